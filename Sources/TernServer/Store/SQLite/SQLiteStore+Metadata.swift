import Foundation
import GRDB
import TernProtocol

/// Channel metadata and metacounters (``MetadataStore``) on SQLite.
extension SQLiteStore {
    public func channelMetadata(_ channelUrls: [String]) async throws -> [String: [String: String]] {
        if channelUrls.isEmpty { return [:] }
        return try await pool.read { db in
            var out: [String: [String: String]] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT * FROM channel_metadata WHERE channel_url IN (\(Self.placeholders(channelUrls.count)))",
                arguments: StatementArguments(channelUrls))
            {
                out[row["channel_url"], default: [:]][row["key"]] = row["value"]
            }
            return out
        }
    }

    public func changeChannelMetadata(_ channelUrl: String, _ change: MetadataChange) async throws -> MetadataResult {
        try await self.write { db in
            guard try Self.fetchChannel(db, channelUrl) != nil else { throw SendbirdError.notFound("Channel") }
            func existing(_ key: String) throws -> Bool {
                try Bool.fetchOne(db, sql: "SELECT 1 FROM channel_metadata WHERE channel_url = ? AND key = ?", arguments: [channelUrl, key]) ?? false
            }
            var result = MetadataResult()
            switch change {
            case .create(let items):
                for key in items.keys.sorted() where try existing(key) {
                    throw SendbirdError(.alreadyExists, "\"\(key)\" violates a unique constraint: the metadata key already exists.")
                }
                for (k, v) in items {
                    try db.execute(sql: "INSERT INTO channel_metadata(channel_url, key, value) VALUES (?, ?, ?)", arguments: [channelUrl, k, v])
                }
                result.created = items
            case .update(let items, let upsert):
                for key in items.keys.sorted() where !upsert {
                    if try !existing(key) { throw SendbirdError(.notFound, "\"Metadata\" not found: \(key).") }
                }
                for (k, v) in items {
                    if try existing(k) { result.updated[k] = v } else { result.created[k] = v }
                    try db.execute(
                        sql:
                            "INSERT INTO channel_metadata(channel_url, key, value) VALUES (?, ?, ?) ON CONFLICT(channel_url, key) DO UPDATE SET value = excluded.value",
                        arguments: [channelUrl, k, v])
                }
            case .delete(let keys):
                result.deleted = try Self.deleteKeys(db, "channel_metadata", channelUrl, keys, what: "Metadata", exists: existing)
            }
            return result
        }
    }

    public func channelMetacounters(_ channelUrl: String) async throws -> [String: Int64] {
        try await pool.read { db in
            var out: [String: Int64] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT * FROM channel_metacounters WHERE channel_url = ?", arguments: [channelUrl]) {
                out[row["key"]] = row["value"]
            }
            return out
        }
    }

    public func changeChannelMetacounters(_ channelUrl: String, _ change: MetacounterChange) async throws -> MetacounterResult {
        try await self.write { db in
            guard try Self.fetchChannel(db, channelUrl) != nil else { throw SendbirdError.notFound("Channel") }
            func current(_ key: String) throws -> Int64? {
                try Int64.fetchOne(db, sql: "SELECT value FROM channel_metacounters WHERE channel_url = ? AND key = ?", arguments: [channelUrl, key])
            }
            func write(_ key: String, _ value: Int64) throws {
                try db.execute(
                    sql:
                        "INSERT INTO channel_metacounters(channel_url, key, value) VALUES (?, ?, ?) ON CONFLICT(channel_url, key) DO UPDATE SET value = excluded.value",
                    arguments: [channelUrl, key, value])
            }
            var result = MetacounterResult()
            switch change {
            case .create(let items):
                for key in items.keys.sorted() where try current(key) != nil {
                    throw SendbirdError(.alreadyExists, "\"\(key)\" violates a unique constraint: the metacounter key already exists.")
                }
                for (k, v) in items { try write(k, v) }
                result.created = items
            case .update(let items, let mode, let upsert):
                for key in items.keys.sorted() where !upsert {
                    if try current(key) == nil { throw SendbirdError(.notFound, "\"Metacounter\" not found: \(key).") }
                }
                for (k, v) in items {
                    let old = try current(k)
                    let sum = try MetacounterChange.updated(old, by: v, mode: mode, key: k)
                    try write(k, sum)
                    if old == nil { result.created[k] = sum } else { result.updated[k] = sum }
                }
            case .delete(let keys):
                result.deleted = try Self.deleteKeys(db, "channel_metacounters", channelUrl, keys, what: "Metacounter") { try current($0) != nil }
            }
            return result
        }
    }

    /// Deletes keys of a channel's metadata or metacounters (`table`), every key when `keys` is
    /// nil; a named key that `exists` denies is 400201 (`what` not found). Returns the keys deleted.
    static func deleteKeys(
        _ db: Database, _ table: String, _ channelUrl: String, _ keys: [String]?, what: String, exists: (String) throws -> Bool
    ) throws -> [String] {
        guard let keys else {
            let all = try String.fetchAll(db, sql: "SELECT key FROM \(table) WHERE channel_url = ? ORDER BY key", arguments: [channelUrl])
            try db.execute(sql: "DELETE FROM \(table) WHERE channel_url = ?", arguments: [channelUrl])
            return all
        }
        for k in keys {
            if try !exists(k) { throw SendbirdError(.notFound, "\"\(what)\" not found: \(k).") }
            try db.execute(sql: "DELETE FROM \(table) WHERE channel_url = ? AND key = ?", arguments: [channelUrl, k])
        }
        return keys
    }
}
