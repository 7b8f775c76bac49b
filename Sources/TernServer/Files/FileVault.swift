import Crypto
import Foundation

/// Uploaded files on disk, encrypted at rest with AES-256-GCM. Each file has its own key, derived
/// (HKDF-SHA256) from the server's master key and the file's id; the master key lives in
/// `files.key` in the data directory (created on first use, mode 0600).
public final class FileVault: Sendable {
    let directory: String
    let masterKey: SymmetricKey

    public init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let keyPath = directory + "/files.key"
        if let existing = FileManager.default.contents(atPath: keyPath), existing.count == 32 {
            masterKey = SymmetricKey(data: existing)
        } else {
            let key = SymmetricKey(size: .bits256)
            let data = key.withUnsafeBytes { Data($0) }
            guard FileManager.default.createFile(atPath: keyPath, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: keyPath])
            }
            masterKey = key
        }
    }

    func key(for id: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: masterKey, info: Data("tern-file:\(id)".utf8), outputByteCount: 32)
    }

    func path(_ id: String) -> String { directory + "/" + id + ".bin" }

    /// Encrypts and writes `data` as file `id`.
    public func store(_ data: Data, id: String) throws {
        let sealed = try AES.GCM.seal(data, using: key(for: id))
        guard let combined = sealed.combined else { throw CocoaError(.fileWriteUnknown) }
        try combined.write(to: URL(fileURLWithPath: path(id)), options: .atomic)
    }

    /// Reads and decrypts file `id` (nil when there is none).
    public func load(_ id: String) throws -> Data? {
        guard let combined = FileManager.default.contents(atPath: path(id)) else { return nil }
        return try AES.GCM.open(AES.GCM.SealedBox(combined: combined), using: key(for: id))
    }

    /// The bytes as stored (ciphertext), for tests that check nothing is kept in the clear.
    public func raw(_ id: String) -> Data? { FileManager.default.contents(atPath: path(id)) }

    public func remove(_ id: String) { try? FileManager.default.removeItem(atPath: path(id)) }
}
