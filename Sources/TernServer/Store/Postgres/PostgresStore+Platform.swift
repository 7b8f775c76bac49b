import Foundation
import PostgresNIO
import TernProtocol

/// Settings documents, device tokens and per-user views (``PlatformStore``) on PostgreSQL.
extension PostgresStore {
    public func setting(scope: String, key: String) async throws -> String? {
        try await read { db in
            try await db.scalar("SELECT json FROM settings WHERE scope = ? AND key = ?", [scope, key], as: String.self)
        }
    }

    public func setSetting(scope: String, key: String, json: String?) async throws {
        try await write { db in
            if let json {
                _ = try await db.execute(
                    "INSERT INTO settings(scope, key, json) VALUES (?, ?, ?) ON CONFLICT (scope, key) DO UPDATE SET json = excluded.json",
                    [scope, key, json])
            } else {
                _ = try await db.execute("DELETE FROM settings WHERE scope = ? AND key = ?", [scope, key])
            }
        }
    }

    public func settings(scope: String, keyPrefix: String) async throws -> [(key: String, json: String)] {
        try await read { db in
            // Byte order of keys, as SQLite's BINARY collation.
            let rows = try await db.fetchAll(
                "SELECT key, json FROM settings WHERE scope = ? AND starts_with(key, ?) ORDER BY key COLLATE \"C\"",
                [scope, keyPrefix])
            var out: [(key: String, json: String)] = []
            out.reserveCapacity(rows.count)
            for row in rows {
                let key: String = try row["key"]
                let json: String = try row["json"]
                out.append((key: key, json: json))
            }
            return out
        }
    }

    public func deleteSettings(scope: String, keyPrefix: String) async throws -> Int {
        try await write { db in
            try await db.execute("DELETE FROM settings WHERE scope = ? AND starts_with(key, ?)", [scope, keyPrefix])
        }
    }

    public func addDeviceToken(userId: String, type: String, token: String, at ms: Int64) async throws {
        try await write { db in
            _ = try await db.execute(
                "INSERT INTO device_tokens(token_type, token, user_id, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [type, token, userId, ms])
        }
    }

    public func deviceTokens(userId: String, type: String) async throws -> [String] {
        try await read { db in
            try await db.column(
                "SELECT token FROM device_tokens WHERE user_id = ? AND token_type = ? ORDER BY created_at, token",
                [userId, type], as: String.self)
        }
    }

    public func removeDeviceToken(type: String, token: String, userId: String?) async throws -> [String] {
        try await write { db in
            var cond = "token_type = ? AND token = ?"
            var args: [any PGBindable] = [type, token]
            if let userId {
                cond += " AND user_id = ?"
                args.append(userId)
            }
            // The owners it was removed from, by user id (as the SQLite store).
            return try await db.column(
                "WITH d AS (DELETE FROM device_tokens WHERE \(cond) RETURNING user_id) SELECT user_id FROM d ORDER BY user_id",
                args, as: String.self)
        }
    }

    public func removeDeviceTokens(userId: String) async throws -> Int {
        try await write { db in
            try await db.execute("DELETE FROM device_tokens WHERE user_id = ?", [userId])
        }
    }

    public func deviceTokenOwners(type: String, token: String) async throws -> [String] {
        try await read { db in
            try await db.column(
                "SELECT user_id FROM device_tokens WHERE token_type = ? AND token = ? ORDER BY user_id", [type, token],
                as: String.self)
        }
    }

    public func memberships(userId: String) async throws -> [(channelUrl: String, state: String, customType: String)] {
        try await read { db in
            let rows = try await db.fetchAll(
                """
                SELECT m.channel_url, m.state, c.custom_type FROM members m JOIN group_channels c ON c.channel_url = m.channel_url
                WHERE m.user_id = ? AND c.channel_type = 'group' ORDER BY m.channel_url
                """,
                [userId])
            var out: [(channelUrl: String, state: String, customType: String)] = []
            out.reserveCapacity(rows.count)
            for row in rows {
                let url: String = try row["channel_url"]
                let state: String = try row["state"]
                let customType: String = try row["custom_type"]
                out.append((channelUrl: url, state: state, customType: customType))
            }
            return out
        }
    }

    public func channelUrls(customTypes: [String], open: Bool) async throws -> [String] {
        if customTypes.isEmpty { return [] }
        return try await read { db in
            try await db.column(
                "SELECT channel_url FROM group_channels WHERE channel_type = ? AND custom_type = ANY(?) ORDER BY channel_url",
                [open ? "open" : "group", customTypes], as: String.self)
        }
    }

    public func exportMessages(from: Int64, to: Int64, channelUrls: [String]?, senderIds: [String]?, limit: Int) async throws -> [MessageRecord] {
        let t = ExportSQL.messages(from: from, to: to, channelUrls: channelUrls, senderIds: senderIds, limit: limit, dialect: .postgres)
        return try await read { db in try await db.fetchAll(t).map(Self.messageRecord) }
    }

    public func dailyMessageStats(firstDay: Int64, lastDay: Int64) async throws -> [Int64: (messages: Int, senders: Int, channels: Int)] {
        try await read { db in
            var out: [Int64: (messages: Int, senders: Int, channels: Int)] = [:]
            // `created_at` is bigint ms: the division is an integer one (UTC day number).
            for row in try await db.fetchAll(
                """
                SELECT created_at / 86400000 AS day, COUNT(*) AS n, COUNT(DISTINCT sender_id) AS s, COUNT(DISTINCT channel_url) AS c
                FROM messages WHERE created_at >= ? AND created_at < ? GROUP BY day
                """,
                [firstDay * 86_400_000, (lastDay + 1) * 86_400_000])
            {
                let day: Int64 = try row["day"]
                let n: Int = try row["n"]
                let s: Int = try row["s"]
                let c: Int = try row["c"]
                out[day] = (n, s, c)
            }
            return out
        }
    }

    public func dailyCreatedChannels(firstDay: Int64, lastDay: Int64) async throws -> [Int64: Int] {
        try await read { db in
            var out: [Int64: Int] = [:]
            // Channels' `created_at` is in seconds.
            for row in try await db.fetchAll(
                "SELECT created_at / 86400 AS day, COUNT(*) AS n FROM group_channels WHERE created_at >= ? AND created_at < ? GROUP BY day",
                [firstDay * 86_400, (lastDay + 1) * 86_400])
            {
                let day: Int64 = try row["day"]
                let n: Int = try row["n"]
                out[day] = n
            }
            return out
        }
    }

    public func importMessages(_ channelUrl: String, _ messages: [NewMessage]) async throws -> [Int64] {
        try await write { db in
            try await Self.lockChannel(db, channelUrl)
            guard try await db.fetchOne("SELECT 1 FROM group_channels WHERE channel_url = ?", [channelUrl]) != nil else {
                throw SendbirdError.notFound("Channel")
            }
            var ids: [Int64] = []
            ids.reserveCapacity(messages.count)
            var newest: (id: Int64, ts: Int64)?
            for m in messages {
                // Full-text search is a generated column: nothing else to index.
                guard
                    let id = try await db.scalar(
                        """
                        INSERT INTO messages(channel_url, type, sender_id, message, custom_type, data, mention_type,
                          mentioned_user_ids, silent, is_op_msg, created_at, req_id, sorted_metaarray, parent_message_id, files)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '[]', 0, ?)
                        RETURNING message_id
                        """,
                        [
                            channelUrl, m.type, m.senderId, m.message, m.customType, m.data, m.mentionType,
                            Self.json(m.mentionedUserIds), m.silent, m.isOpMsg, m.createdAt, m.reqId, m.files,
                        ],
                        as: Int64.self)
                else { throw SendbirdError.notFound("Channel") }
                ids.append(id)
                if newest == nil || m.createdAt >= newest!.ts { newest = (id, m.createdAt) }
            }
            if let newest {
                try await db.execute(
                    """
                    UPDATE group_channels SET last_message_id = ?, last_message_ts = ?
                    WHERE channel_url = ? AND (last_message_ts IS NULL OR last_message_ts <= ?)
                    """,
                    [newest.id, newest.ts, channelUrl, newest.ts])
            }
            return ids
        }
    }

    public func exportChannels(channelUrls: [String]?, limit: Int) async throws -> [ChannelRecord] {
        let t = ExportSQL.channels("*", channelUrls: channelUrls, limit: limit, dialect: .postgres)
        return try await read { db in try await db.fetchAll(t).map(Self.channelRecord) }
    }

    public func activeUsers(firstDay: Int64, lastDay: Int64) async throws -> Int {
        try await read { db in
            try await db.scalar(
                "SELECT COUNT(DISTINCT user_id) FROM activity WHERE day BETWEEN ? AND ?", [firstDay, lastDay], as: Int.self) ?? 0
        }
    }

    public func restrictions(
        ofUser userId: String, kind: RestrictionRecord.Kind, now: Int64, afterChannelUrl: String?, limit: Int
    ) async throws -> [RestrictionRecord] {
        try await read { db in
            try await db.fetchAll(
                """
                SELECT * FROM restrictions WHERE user_id = ? AND kind = ? AND (end_at < 0 OR end_at > ?) AND channel_url > ?
                ORDER BY channel_url LIMIT ?
                """,
                [userId, kind.rawValue, now, afterChannelUrl ?? "", limit]
            ).map(Self.restrictionRecord)
        }
    }
}
