public import Foundation
import PostgresNIO
import TernProtocol

/// Uploaded files, their download keys and the link-preview cache (``FileStore``) on PostgreSQL.
extension PostgresStore {
    public func insertFile(_ f: FileRecord) async throws {
        try await write { db in
            try await db.execute(
                """
                INSERT INTO files(file_id, channel_url, uploader_id, name, type, size, created_at, thumbnails)
                VALUES (?, ?, ?::text, ?, ?, ?, ?, ?)
                """,
                [f.fileId, f.channelUrl, f.uploaderId, f.name, f.type, f.size, f.createdAt, f.thumbnails])
        }
    }

    public func file(_ fileId: String) async throws -> FileRecord? {
        try await read { db in
            guard let r = try await db.fetchOne("SELECT * FROM files WHERE file_id = ?", [fileId]) else { return nil }
            let size: Int64 = try r["size"]
            return FileRecord(
                fileId: try r["file_id"], channelUrl: try r["channel_url"], uploaderId: try r["uploader_id"], name: try r["name"],
                type: try r["type"], size: Int(size), createdAt: try r["created_at"], thumbnails: try r["thumbnails"])
        }
    }

    public func addFileAuth(keyHash: String, userId: String, sessionHash: String, expiresAt: Int64) async throws {
        try await write { db in
            try await db.execute("DELETE FROM file_auth WHERE expires_at < ?", [expiresAt - 4 * 86_400_000])
            try await db.execute(
                """
                INSERT INTO file_auth(key_hash, user_id, expires_at, session_hash) VALUES (?, ?, ?, ?)
                ON CONFLICT (key_hash) DO UPDATE SET user_id = excluded.user_id, expires_at = excluded.expires_at,
                  session_hash = excluded.session_hash
                """,
                [keyHash, userId, expiresAt, sessionHash])
        }
    }

    public func fileAuth(keyHash: String, now: Int64) async throws -> (userId: String, sessionHash: String?)? {
        try await read { db in
            guard let r = try await db.fetchOne("SELECT user_id, session_hash FROM file_auth WHERE key_hash = ? AND expires_at > ?", [keyHash, now])
            else { return nil }
            let user: String = try r["user_id"]
            let session: String? = try r["session_hash"]
            return (user, session)
        }
    }

    public func ogCache(_ url: String) async throws -> (json: String?, fetchedAt: Int64)? {
        try await read { db in
            guard let r = try await db.fetchOne("SELECT og_tag, fetched_at FROM og_cache WHERE url = ?", [url]) else { return nil }
            let json: String? = try r["og_tag"]
            let fetchedAt: Int64 = try r["fetched_at"]
            return (json, fetchedAt)
        }
    }

    public func setOGCache(_ url: String, json: String?, at ms: Int64) async throws {
        try await write { db in
            try await db.execute(
                """
                INSERT INTO og_cache(url, og_tag, fetched_at) VALUES (?, ?::text, ?)
                ON CONFLICT (url) DO UPDATE SET og_tag = excluded.og_tag, fetched_at = excluded.fetched_at
                """,
                [url, json, ms])
        }
    }
}

extension PostgresStore: FileBlobStore {
    public func putBlob(_ id: String, _ bytes: Data) async throws {
        try await write { db in
            try await db.execute(
                "INSERT INTO file_blobs(file_id, bytes) VALUES (?, ?) ON CONFLICT (file_id) DO UPDATE SET bytes = excluded.bytes", [id, bytes])
        }
    }

    public func blob(_ id: String) async throws -> Data? {
        try await read { db in try await db.scalar("SELECT bytes FROM file_blobs WHERE file_id = ?", [id], as: Data.self) }
    }

    public func blobIds() async throws -> [String] {
        try await read { db in try await db.column("SELECT file_id FROM file_blobs ORDER BY file_id", [], as: String.self) }
    }

    public func fileMasterKey(creating fresh: Data) async throws -> Data {
        try await write { db in
            try await db.execute("INSERT INTO file_master_key(id, key) VALUES (1, ?) ON CONFLICT (id) DO NOTHING", [fresh])
            return try await db.scalar("SELECT key FROM file_master_key WHERE id = 1", as: Data.self) ?? fresh
        }
    }
}
