import Foundation
import GRDB
import TernProtocol

/// Uploaded files, their download keys and the link-preview cache (``FileStore``) on SQLite.
extension SQLiteStore {
    public func insertFile(_ f: FileRecord) async throws {
        try await self.write { db in
            try db.execute(
                sql: "INSERT INTO files(file_id, channel_url, uploader_id, name, type, size, created_at, thumbnails) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                arguments: [f.fileId, f.channelUrl, f.uploaderId, f.name, f.type, f.size, f.createdAt, f.thumbnails])
        }
    }

    public func file(_ fileId: String) async throws -> FileRecord? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM files WHERE file_id = ?", arguments: [fileId]).map { r in
                FileRecord(
                    fileId: r["file_id"], channelUrl: r["channel_url"], uploaderId: r["uploader_id"], name: r["name"], type: r["type"],
                    size: r["size"], createdAt: r["created_at"], thumbnails: r["thumbnails"])
            }
        }
    }

    public func addFileAuth(keyHash: String, userId: String, sessionHash: String, expiresAt: Int64) async throws {
        try await self.write { db in
            try db.execute(sql: "DELETE FROM file_auth WHERE expires_at < ?", arguments: [expiresAt - 4 * 86_400_000])
            try db.execute(
                sql: "INSERT OR REPLACE INTO file_auth(key_hash, user_id, expires_at, session_hash) VALUES (?, ?, ?, ?)",
                arguments: [keyHash, userId, expiresAt, sessionHash])
        }
    }

    public func fileAuth(keyHash: String, now: Int64) async throws -> (userId: String, sessionHash: String?)? {
        try await pool.read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT user_id, session_hash FROM file_auth WHERE key_hash = ? AND expires_at > ?", arguments: [keyHash, now])
            else { return nil }
            return (row["user_id"], row["session_hash"])
        }
    }

    public func ogCache(_ url: String) async throws -> (json: String?, fetchedAt: Int64)? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT og_tag, fetched_at FROM og_cache WHERE url = ?", arguments: [url]).map {
                ($0["og_tag"], $0["fetched_at"])
            }
        }
    }

    public func setOGCache(_ url: String, json: String?, at ms: Int64) async throws {
        try await self.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO og_cache(url, og_tag, fetched_at) VALUES (?, ?, ?)", arguments: [url, json, ms])
        }
    }
}
