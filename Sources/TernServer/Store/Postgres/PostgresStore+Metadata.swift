import Foundation
import PostgresNIO
import TernProtocol

/// Channel metadata and metacounters (``MetadataStore``) on PostgreSQL. Like every channel write,
/// each change takes the channel's advisory lock first (``PostgresStore/lockChannel(_:_:)``).
extension PostgresStore {
    public func channelMetadata(_ channelUrls: [String]) async throws -> [String: [String: String]] {
        if channelUrls.isEmpty { return [:] }
        return try await read { db in
            var out: [String: [String: String]] = [:]
            for row in try await db.fetchAll("SELECT channel_url, key, value FROM channel_metadata WHERE channel_url = ANY(?)", [channelUrls]) {
                let url: String = try row["channel_url"]
                out[url, default: [:]][try row["key"]] = try row["value"] as String
            }
            return out
        }
    }

    public func changeChannelMetadata(_ channelUrl: String, _ change: MetadataChange) async throws -> MetadataResult {
        try await write { db in
            try await Self.lockChannel(db, channelUrl)
            guard try await Self.fetchChannel(db, channelUrl) != nil else { throw SendbirdError.notFound("Channel") }
            /// Which of `keys` the channel has.
            func existing(_ keys: [String]) async throws -> Set<String> {
                Set(
                    try await db.column(
                        "SELECT key FROM channel_metadata WHERE channel_url = ? AND key = ANY(?)", [channelUrl, keys], as: String.self))
            }
            var result = MetadataResult()
            switch change {
            case .create(let items):
                let have = try await existing(Array(items.keys))
                for key in items.keys.sorted() where have.contains(key) {
                    throw SendbirdError(.alreadyExists, "\"\(key)\" violates a unique constraint: the metadata key already exists.")
                }
                for (k, v) in items {
                    try await db.execute("INSERT INTO channel_metadata(channel_url, key, value) VALUES (?, ?, ?)", [channelUrl, k, v])
                }
                result.created = items
            case .update(let items, let upsert):
                let have = try await existing(Array(items.keys))
                for key in items.keys.sorted() where !upsert {
                    if !have.contains(key) { throw SendbirdError(.notFound, "\"Metadata\" not found: \(key).") }
                }
                for (k, v) in items {
                    if have.contains(k) { result.updated[k] = v } else { result.created[k] = v }
                    try await db.execute(
                        """
                        INSERT INTO channel_metadata(channel_url, key, value) VALUES (?, ?, ?)
                        ON CONFLICT (channel_url, key) DO UPDATE SET value = excluded.value
                        """,
                        [channelUrl, k, v])
                }
            case .delete(let keys):
                var have: Set<String> = []
                if let keys { have = try await existing(keys) }
                // A key named twice is gone the second time, as it is in SQLite.
                result.deleted = try await Self.deleteKeys(db, "channel_metadata", channelUrl, keys, what: "Metadata") { have.remove($0) != nil }
            }
            return result
        }
    }

    public func channelMetacounters(_ channelUrl: String) async throws -> [String: Int64] {
        try await read { db in
            var out: [String: Int64] = [:]
            for row in try await db.fetchAll("SELECT key, value FROM channel_metacounters WHERE channel_url = ?", [channelUrl]) {
                out[try row["key"]] = try row["value"] as Int64
            }
            return out
        }
    }

    public func changeChannelMetacounters(_ channelUrl: String, _ change: MetacounterChange) async throws -> MetacounterResult {
        try await write { db in
            // The channel lock makes each read-then-write below atomic: no other writer of this
            // channel's counters (on any node) runs until this transaction ends.
            try await Self.lockChannel(db, channelUrl)
            guard try await Self.fetchChannel(db, channelUrl) != nil else { throw SendbirdError.notFound("Channel") }
            func current(_ key: String) async throws -> Int64? {
                try await db.scalar("SELECT value FROM channel_metacounters WHERE channel_url = ? AND key = ?", [channelUrl, key], as: Int64.self)
            }
            func put(_ key: String, _ value: Int64) async throws {
                try await db.execute(
                    """
                    INSERT INTO channel_metacounters(channel_url, key, value) VALUES (?, ?, ?)
                    ON CONFLICT (channel_url, key) DO UPDATE SET value = excluded.value
                    """,
                    [channelUrl, key, value])
            }
            var result = MetacounterResult()
            switch change {
            case .create(let items):
                for key in items.keys.sorted() where try await current(key) != nil {
                    throw SendbirdError(.alreadyExists, "\"\(key)\" violates a unique constraint: the metacounter key already exists.")
                }
                for (k, v) in items { try await put(k, v) }
                result.created = items
            case .update(let items, let mode, let upsert):
                for key in items.keys.sorted() where !upsert {
                    if try await current(key) == nil { throw SendbirdError(.notFound, "\"Metacounter\" not found: \(key).") }
                }
                for (k, v) in items {
                    let old = try await current(k)
                    let sum = try MetacounterChange.updated(old, by: v, mode: mode, key: k)
                    try await put(k, sum)
                    if old == nil { result.created[k] = sum } else { result.updated[k] = sum }
                }
            case .delete(let keys):
                result.deleted = try await Self.deleteKeys(db, "channel_metacounters", channelUrl, keys, what: "Metacounter") {
                    try await current($0) != nil
                }
            }
            return result
        }
    }

    /// Deletes keys of a channel's metadata or metacounters (`table`), every key when `keys` is
    /// nil; a named key that `exists` denies is 400201 (`what` not found). Returns the keys deleted.
    static func deleteKeys(
        _ db: PGConnection, _ table: String, _ channelUrl: String, _ keys: [String]?, what: String, exists: (String) async throws -> Bool
    ) async throws -> [String] {
        guard let keys else {
            let all = try await db.column("SELECT key FROM \(table) WHERE channel_url = ? ORDER BY key", [channelUrl], as: String.self)
            try await db.execute("DELETE FROM \(table) WHERE channel_url = ?", [channelUrl])
            return all
        }
        for k in keys {
            if try await !exists(k) { throw SendbirdError(.notFound, "\"\(what)\" not found: \(k).") }
            try await db.execute("DELETE FROM \(table) WHERE channel_url = ? AND key = ?", [channelUrl, k])
        }
        return keys
    }
}
