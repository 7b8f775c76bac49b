import Foundation
import GRDB
import Synchronization
public import TernProtocol

/// Read and delivery receipts, unread counts and count preferences (``ReceiptStore``) on SQLite.
extension SQLiteStore {
    /// The unread totals of `userIds` as the write just made them, with a `ts` later than any given
    /// before (writes are serial, so a later `ts` always means a later state). `beforeReadingRows` runs
    /// when some are not in the cache, before the members' rows are read (a batch writes its pending
    /// unread counts there: ``PendingUnread``).
    func totals(
        _ db: Database, _ userIds: [String], hint: Int64, beforeReadingRows: () throws -> Void = {}
    ) throws -> [String: UnreadCount] {
        if userIds.isEmpty { return [:] }
        let ts = unreadStamp.withLock { last in
            last = max(last + 1, hint)
            return last
        }
        var out: [String: UnreadCount] = [:]
        out.reserveCapacity(userIds.count)
        var missing: [String] = []
        totalsCache.withLock { cache in
            for id in userIds {
                if var t = cache[id] {
                    t.ts = ts
                    out[id] = t
                } else {
                    missing.append(id)
                }
            }
        }
        if missing.isEmpty { return out }
        try beforeReadingRows()
        for id in missing { out[id] = UnreadCount(all: 0, ts: ts) }
        defer {
            totalsCache.withLock { cache in
                for id in missing { cache[id] = out[id] }
            }
        }
        for chunk in stride(from: 0, to: missing.count, by: 500).map({ Array(missing[$0..<min($0 + 500, missing.count)]) }) {
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT m.user_id AS u, c.custom_type AS t,
                          SUM(CASE WHEN c.is_super = 1 THEN min(m.unread_count, 100) ELSE m.unread_count END) AS n
                        FROM members m JOIN group_channels c ON c.channel_url = m.channel_url
                        WHERE m.user_id IN (\(Self.placeholders(chunk.count))) AND m.state = 'joined' AND m.unread_count > 0
                        GROUP BY m.user_id, c.custom_type
                        """),
                arguments: StatementArguments(chunk))
            for row in rows {
                let u: String = row["u"]
                let t: String = row["t"]
                let n: Int = row["n"]
                out[u]?.all += n
                if !t.isEmpty { out[u]?.customTypes[t, default: 0] += n }
            }
        }
        return out
    }

    public func unreadTotals(_ userIds: [String], at ms: Int64) async throws -> [String: UnreadCount] {
        try await self.write { db in try self.totals(db, userIds, hint: ms) }
    }

    public func markRead(_ channelUrl: String, userId: String, ts: Int64) async throws -> UnreadCount {
        try await self.write { db in
            self.forgetTotals(userId)
            try Self.exec(
                db,
                sql: "UPDATE members SET read_ts = max(read_ts, ?), unread_count = 0, unread_mention_count = 0 WHERE channel_url = ? AND user_id = ?",
                arguments: [ts, channelUrl, userId])
            return try self.totals(db, [userId], hint: ts)[userId] ?? UnreadCount(all: 0, ts: ts)
        }
    }

    public func markAllRead(userId: String, channelUrls: [String]?, ts: Int64) async throws -> (channels: [String], totals: UnreadCount) {
        try await self.write { db in
            self.forgetTotals(userId)
            var sql = "SELECT channel_url FROM members WHERE user_id = ? AND state = 'joined'"
            var args: [any DatabaseValueConvertible] = [userId]
            if let urls = channelUrls {
                sql += " AND channel_url IN (\(Self.placeholders(urls.count)))"
                args += urls
            }
            let urls = channelUrls?.isEmpty == true ? [] : try String.fetchAll(db, sql: sql, arguments: StatementArguments(args))
            for url in urls {
                try db.execute(
                    sql:
                        "UPDATE members SET read_ts = max(read_ts, ?), unread_count = 0, unread_mention_count = 0 WHERE channel_url = ? AND user_id = ?",
                    arguments: [ts, url, userId])
            }
            return (urls, try self.totals(db, [userId], hint: ts)[userId] ?? UnreadCount(all: 0, ts: ts))
        }
    }

    public func markDelivered(_ channelUrl: String, userId: String, ts: Int64) async throws -> Bool {
        try await self.write { db in
            try db.execute(
                sql: "UPDATE members SET delivered_ts = ? WHERE channel_url = ? AND user_id = ? AND delivered_ts < ?",
                arguments: [ts, channelUrl, userId, ts])
            return db.changesCount > 0
        }
    }

    public func unreadMessageTotal(userId: String, customTypes: [String]?, superMode: String?) async throws -> Int {
        let t = UnreadTotalSQL.messageTotal(userId: userId, customTypes: customTypes, superMode: superMode, dialect: .sqlite)
        return try await pool.read { db in try Int.fetchOne(db, sql: t.sql, arguments: t.arguments) ?? 0 }
    }

    public func unreadChannelCount(userId: String, customTypes: [String]?, superMode: String?) async throws -> Int {
        let t = UnreadTotalSQL.channelCount(userId: userId, customTypes: customTypes, superMode: superMode, dialect: .sqlite)
        return try await pool.read { db in try Int.fetchOne(db, sql: t.sql, arguments: t.arguments) ?? 0 }
    }

    public func unreadItems(userId: String, customTypes: [String]?) async throws -> UnreadItems {
        try await pool.read { db in
            var scope = "m.user_id = ?"
            var args: [any DatabaseValueConvertible] = [userId]
            if let types = customTypes, !types.isEmpty {
                scope += " AND c.custom_type IN (\(Self.placeholders(types.count)))"
                args += types
            }
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT c.is_super AS s,
                      SUM(CASE WHEN m.state = 'joined' THEN (CASE WHEN c.is_super = 1 THEN min(m.unread_count, 100) ELSE m.unread_count END) ELSE 0 END) AS msgs,
                      SUM(CASE WHEN m.state = 'joined' THEN m.unread_mention_count ELSE 0 END) AS mentions,
                      SUM(CASE WHEN m.state = 'invited' THEN 1 ELSE 0 END) AS invites
                    FROM members m JOIN group_channels c ON c.channel_url = m.channel_url WHERE \(scope) GROUP BY c.is_super
                    """,
                arguments: StatementArguments(args))
            return try Records.unreadItems(rows)
        }
    }

    public func setCountPreference(_ channelUrl: String, userId: String, _ preference: String) async throws -> Bool {
        try await self.write { db in
            self.forgetTotals(nil)
            // Counts the new preference leaves out start again from zero.
            try db.execute(
                sql: """
                    UPDATE members SET count_preference = ?,
                      unread_count = CASE WHEN ? IN ('all', 'unread_message_count_only') THEN unread_count ELSE 0 END,
                      unread_mention_count = CASE WHEN ? IN ('all', 'unread_mention_count_only') THEN unread_mention_count ELSE 0 END
                    WHERE channel_url = ? AND user_id = ?
                    """,
                arguments: [preference, preference, preference, channelUrl, userId])
            return db.changesCount > 0
        }
    }
}
