import Foundation
import GRDB
import TernProtocol

/// Settings documents, device tokens and per-user views (``PlatformStore``).
extension SQLiteStore {
    public func setting(scope: String, key: String) async throws -> String? {
        try await pool.read { db in
            try String.fetchOne(db, sql: "SELECT json FROM settings WHERE scope = ? AND key = ?", arguments: [scope, key])
        }
    }

    public func setSetting(scope: String, key: String, json: String?) async throws {
        try await self.write { db in
            if let json {
                try db.execute(
                    sql: "INSERT INTO settings(scope, key, json) VALUES (?, ?, ?) ON CONFLICT(scope, key) DO UPDATE SET json = excluded.json",
                    arguments: [scope, key, json])
            } else {
                try db.execute(sql: "DELETE FROM settings WHERE scope = ? AND key = ?", arguments: [scope, key])
            }
        }
    }

    public func settings(scope: String, keyPrefix: String) async throws -> [(key: String, json: String)] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT key, json FROM settings WHERE scope = ? AND substr(key, 1, ?) = ? ORDER BY key",
                arguments: [scope, keyPrefix.utf8.count, keyPrefix]
            ).map { (key: $0["key"], json: $0["json"]) }
        }
    }

    public func deleteSettings(scope: String, keyPrefix: String) async throws -> Int {
        try await self.write { db in
            try db.execute(
                sql: "DELETE FROM settings WHERE scope = ? AND substr(key, 1, ?) = ?", arguments: [scope, keyPrefix.utf8.count, keyPrefix])
            return db.changesCount
        }
    }

    public func addDeviceToken(userId: String, type: String, token: String, at ms: Int64) async throws {
        try await self.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO device_tokens(token_type, token, user_id, created_at) VALUES (?, ?, ?, ?)",
                arguments: [type, token, userId, ms])
        }
    }

    public func deviceTokens(userId: String, type: String) async throws -> [String] {
        try await pool.read { db in
            try String.fetchAll(
                db, sql: "SELECT token FROM device_tokens WHERE user_id = ? AND token_type = ? ORDER BY created_at, token",
                arguments: [userId, type])
        }
    }

    public func removeDeviceToken(type: String, token: String, userId: String?) async throws -> [String] {
        try await self.write { db in
            var sql = "SELECT user_id FROM device_tokens WHERE token_type = ? AND token = ?"
            var args: [any DatabaseValueConvertible] = [type, token]
            if let userId {
                sql += " AND user_id = ?"
                args.append(userId)
            }
            let owners = try String.fetchAll(db, sql: sql + " ORDER BY user_id", arguments: StatementArguments(args))
            try db.execute(sql: "DELETE" + sql.dropFirst("SELECT user_id".count), arguments: StatementArguments(args))
            return owners
        }
    }

    public func removeDeviceTokens(userId: String) async throws -> Int {
        try await self.write { db in
            try db.execute(sql: "DELETE FROM device_tokens WHERE user_id = ?", arguments: [userId])
            return db.changesCount
        }
    }

    public func deviceTokenOwners(type: String, token: String) async throws -> [String] {
        try await pool.read { db in
            try String.fetchAll(
                db, sql: "SELECT user_id FROM device_tokens WHERE token_type = ? AND token = ? ORDER BY user_id", arguments: [type, token])
        }
    }

    public func memberships(userId: String) async throws -> [(channelUrl: String, state: String, customType: String)] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT m.channel_url, m.state, c.custom_type FROM members m JOIN group_channels c ON c.channel_url = m.channel_url
                    WHERE m.user_id = ? AND c.channel_type = 'group' ORDER BY m.channel_url
                    """,
                arguments: [userId]
            ).map { (channelUrl: $0["channel_url"], state: $0["state"], customType: $0["custom_type"]) }
        }
    }

    public func channelUrls(customTypes: [String], open: Bool) async throws -> [String] {
        if customTypes.isEmpty { return [] }
        return try await pool.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT channel_url FROM group_channels
                    WHERE channel_type = ? AND custom_type IN (\(Self.placeholders(customTypes.count))) ORDER BY channel_url
                    """,
                arguments: StatementArguments([open ? "open" : "group"] + customTypes))
        }
    }

    public func exportMessages(from: Int64, to: Int64, channelUrls: [String]?, senderIds: [String]?, limit: Int) async throws -> [MessageRecord] {
        let t = ExportSQL.messages(from: from, to: to, channelUrls: channelUrls, senderIds: senderIds, limit: limit, dialect: .sqlite)
        return try await pool.read { db in try Row.fetchAll(db, sql: t.sql, arguments: t.arguments).map(Self.messageRecord) }
    }

    public func dailyMessageStats(firstDay: Int64, lastDay: Int64) async throws -> [Int64: (messages: Int, senders: Int, channels: Int)] {
        try await pool.read { db in
            var out: [Int64: (messages: Int, senders: Int, channels: Int)] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT created_at / 86400000 AS day, COUNT(*) AS n, COUNT(DISTINCT sender_id) AS s, COUNT(DISTINCT channel_url) AS c
                    FROM messages WHERE created_at >= ? AND created_at < ? GROUP BY day
                    """,
                arguments: [firstDay * 86_400_000, (lastDay + 1) * 86_400_000])
            {
                out[row["day"]] = (row["n"], row["s"], row["c"])
            }
            return out
        }
    }

    public func dailyCreatedChannels(firstDay: Int64, lastDay: Int64) async throws -> [Int64: Int] {
        try await pool.read { db in
            var out: [Int64: Int] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT created_at / 86400 AS day, COUNT(*) AS n FROM group_channels WHERE created_at >= ? AND created_at < ? GROUP BY day",
                arguments: [firstDay * 86_400, (lastDay + 1) * 86_400])
            {
                out[row["day"]] = row["n"]
            }
            return out
        }
    }

    public func importMessages(_ channelUrl: String, _ messages: [NewMessage]) async throws -> [Int64] {
        try await self.write { db in
            guard try Self.fetchChannel(db, channelUrl) != nil else { throw SendbirdError.notFound("Channel") }
            var ids: [Int64] = []
            var newest: (id: Int64, ts: Int64)?
            if !messages.isEmpty { self.noteUnindexed() }
            for m in messages {
                try db.execute(
                    sql: """
                        INSERT INTO messages(channel_url, type, sender_id, message, custom_type, data, mention_type,
                          mentioned_user_ids, silent, is_op_msg, created_at, req_id, sorted_metaarray, parent_message_id, files)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '[]', 0, ?)
                        """,
                    arguments: [
                        channelUrl, m.type, m.senderId, m.message, m.customType, m.data, m.mentionType, Self.json(m.mentionedUserIds),
                        m.silent, m.isOpMsg, m.createdAt, m.reqId, m.files,
                    ])
                let id = db.lastInsertedRowID
                ids.append(id)
                if newest == nil || m.createdAt >= newest!.ts { newest = (id, m.createdAt) }
            }
            if let newest {
                try db.execute(
                    sql: """
                        UPDATE group_channels SET last_message_id = ?, last_message_ts = ?
                        WHERE channel_url = ? AND (last_message_ts IS NULL OR last_message_ts <= ?)
                        """,
                    arguments: [newest.id, newest.ts, channelUrl, newest.ts])
            }
            return ids
        }
    }

    public func exportChannels(channelUrls: [String]?, limit: Int) async throws -> [ChannelRecord] {
        let t = ExportSQL.channels("channel_url", channelUrls: channelUrls, limit: limit, dialect: .sqlite)
        return try await pool.read { db in
            try String.fetchAll(db, sql: t.sql, arguments: t.arguments).compactMap { try Self.fetchChannel(db, $0) }
        }
    }

    public func activeUsers(firstDay: Int64, lastDay: Int64) async throws -> Int {
        try await pool.read { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(DISTINCT user_id) FROM activity WHERE day BETWEEN ? AND ?", arguments: [firstDay, lastDay]) ?? 0
        }
    }

    public func restrictions(
        ofUser userId: String, kind: RestrictionRecord.Kind, now: Int64, afterChannelUrl: String?, limit: Int
    ) async throws -> [RestrictionRecord] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM restrictions WHERE user_id = ? AND kind = ? AND (end_at < 0 OR end_at > ?) AND channel_url > ?
                    ORDER BY channel_url LIMIT ?
                    """,
                arguments: [userId, kind.rawValue, now, afterChannelUrl ?? "", limit]
            ).map(Self.restrictionRecord)
        }
    }
}
