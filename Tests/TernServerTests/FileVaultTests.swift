import Foundation
import Synchronization
import TernTestSupport
import Testing

@testable import TernServer

/// The file vault on its two kinds of blob store: sealed bytes only, one master key made once,
/// and files a node kept in its data directory before still readable once its files moved to the
/// database.
@Suite("File vault")
struct FileVaultTests {
    /// A blob store in memory (the database's in these unit tests).
    final class MemoryBlobs: FileBlobStore {
        let state = Mutex<(blobs: [String: Data], key: Data?)>(([:], nil))
        func putBlob(_ id: String, _ bytes: Data) async throws { state.withLock { $0.blobs[id] = bytes } }
        func blob(_ id: String) async throws -> Data? { state.withLock { $0.blobs[id] } }
        func blobIds() async throws -> [String] { state.withLock { Array($0.blobs.keys) } }
        func fileMasterKey(creating fresh: Data) async throws -> Data {
            state.withLock { s in
                if let k = s.key { return k }
                s.key = fresh
                return fresh
            }
        }
    }

    @Test("Sealed in the store; two vaults on one store share its master key; a file only in the data directory is read from there")
    func sealedSharedAndEarlier() async throws {
        let blobs = MemoryBlobs()
        let a = FileVault(blobs: blobs)
        let b = FileVault(blobs: blobs)
        let secret = Data("attack at dawn".utf8)
        try await a.store(secret, id: "f1")
        #expect(try await b.load("f1") == secret, "another node's vault opens it")
        #expect(try await blobs.blob("f1")?.range(of: secret) == nil, "only sealed bytes are kept")
        #expect(try await a.load("missing") == nil)

        let dir = makeTempDirectory() + "/files"
        let onDisk = try FileVault(directory: dir)
        try await onDisk.store(Data("from before".utf8), id: "old")
        let moved = FileVault(blobs: blobs, earlier: try FileVault(directory: dir))
        #expect(try await moved.load("old") == Data("from before".utf8))
        #expect(try await moved.load("f1") == secret)
        let mode = (try FileManager.default.attributesOfItem(atPath: dir + "/files.key")[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
    }
}
