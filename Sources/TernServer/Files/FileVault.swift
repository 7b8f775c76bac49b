import Crypto
public import Foundation
import Synchronization

/// Where uploaded files' encrypted bytes and the key they are sealed with are kept.
///
/// One node on SQLite keeps them in its data directory (``DirectoryBlobs``). Nodes on PostgreSQL
/// keep them in the database (`PostgresStore`), so that a file uploaded through one node of a
/// cluster downloads through any other, without a shared filesystem.
public protocol FileBlobStore: Sendable {
    /// Writes (or replaces) blob `id`.
    func putBlob(_ id: String, _ bytes: Data) async throws
    /// Blob `id`, nil when there is none.
    func blob(_ id: String) async throws -> Data?
    /// The ids of every blob (for tests that check nothing is kept in the clear).
    func blobIds() async throws -> [String]
    /// The files' master key: the stored one, or `fresh` stored now when there is none yet (every
    /// node that asks gets the same key).
    func fileMasterKey(creating fresh: Data) async throws -> Data
}

/// Blobs as files in a directory of their own (mode 0700): `<id>.bin`, and the master key in
/// `files.key` (mode 0600).
public final class DirectoryBlobs: FileBlobStore {
    let directory: String
    /// Read or made here, once: two first uploads at the same moment must not each write a key.
    let masterKey: Data

    public init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let keyPath = directory + "/files.key"
        if let existing = FileManager.default.contents(atPath: keyPath), existing.count == 32 {
            masterKey = existing
        } else {
            let fresh = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
            guard FileManager.default.createFile(atPath: keyPath, contents: fresh, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: keyPath])
            }
            masterKey = fresh
        }
    }

    func path(_ id: String) -> String { directory + "/" + id + ".bin" }

    public func putBlob(_ id: String, _ bytes: Data) async throws {
        try bytes.write(to: URL(fileURLWithPath: path(id)), options: .atomic)
    }

    public func blob(_ id: String) async throws -> Data? { FileManager.default.contents(atPath: path(id)) }

    public func blobIds() async throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".bin") }.map { String($0.dropLast(4)) }
    }

    public func fileMasterKey(creating fresh: Data) async throws -> Data { masterKey }
}

/// Uploaded files, encrypted at rest with AES-256-GCM. Each file has its own key, derived
/// (HKDF-SHA256) from the server's master key and the file's id; the master key is kept by the
/// ``FileBlobStore`` (created on first use).
public final class FileVault: Sendable {
    let blobs: any FileBlobStore
    let master = Mutex<SymmetricKey?>(nil)
    /// Where files stored before were kept (a node's data directory, from before its files moved
    /// to PostgreSQL): read when `blobs` has no such file.
    let earlier: FileVault?

    public init(blobs: any FileBlobStore, earlier: FileVault? = nil) {
        self.blobs = blobs
        self.earlier = earlier
    }

    /// Files in `directory` (one node, its data directory).
    public convenience init(directory: String) throws {
        self.init(blobs: try DirectoryBlobs(directory: directory))
    }

    func masterKey() async throws -> SymmetricKey {
        if let key = master.withLock({ $0 }) { return key }
        let fresh = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        let stored = try await blobs.fileMasterKey(creating: fresh)
        guard stored.count == 32 else { throw CocoaError(.fileReadCorruptFile) }
        let key = SymmetricKey(data: stored)
        master.withLock { $0 = key }
        return key
    }

    func key(for id: String) async throws -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: try await masterKey(), info: Data("tern-file:\(id)".utf8), outputByteCount: 32)
    }

    /// Encrypts and writes `data` as file `id`.
    public func store(_ data: Data, id: String) async throws {
        let sealed = try AES.GCM.seal(data, using: try await key(for: id))
        guard let combined = sealed.combined else { throw CocoaError(.fileWriteUnknown) }
        try await blobs.putBlob(id, combined)
    }

    /// Reads and decrypts file `id` (nil when there is none).
    public func load(_ id: String) async throws -> Data? {
        guard let combined = try await blobs.blob(id) else { return try await earlier?.load(id) }
        return try AES.GCM.open(AES.GCM.SealedBox(combined: combined), using: try await key(for: id))
    }

    /// Every file's bytes as stored (ciphertext), for tests that check nothing is kept in the clear.
    public func storedBytes() async throws -> [Data] {
        var out: [Data] = []
        for id in try await blobs.blobIds() {
            if let b = try await blobs.blob(id) { out.append(b) }
        }
        return out
    }
}
