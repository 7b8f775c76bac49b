import Foundation
import PostgresNIO
import Synchronization
public import TernProtocol

/// Read and delivery receipts, unread counts and count preferences (``ReceiptStore``) on PostgreSQL.
extension PostgresStore {
    /// The unread totals of `userIds` as the transaction sees them, with a `ts` later than any
    /// given before by this process. Supergroups count at most 100 each.
    static func messageTotals(_ db: PGConnection, _ userIds: [String], hint: Int64) async throws -> [String: UnreadCount] {
        if userIds.isEmpty { return [:] }
        var ledger = UnreadLedger()
        try await readOutsideTotals(db, userIds, excluding: [], into: &ledger)
        return stampedTotals(userIds, ledger, hint: hint)
    }

    /// The totals of `userIds` in `ledger` (their counts by custom type, as read), with a `ts`
    /// later than any given before by this process.
    static func stampedTotals(_ userIds: [String], _ ledger: UnreadLedger, hint: Int64) -> [String: UnreadCount] {
        let ts = pgUnreadStamp.withLock { last in
            last = max(last + 1, hint)
            return last
        }
        return ledger.totals(userIds, ts: ts)
    }

    /// Each user's unread count by channel custom type (`u`, `t`, `n`) over their joined channels
    /// other than some (supergroups count at most 100 each; `PostgresSchema` "pg-v10");
    /// arguments: the users, the channels left out.
    static let outsideTotalsSQL = "SELECT u, t, n FROM tern_unread_totals(?, ?)"

    /// Adds to `ledger` the unread counts of `users` in their joined channels other than
    /// `excluding`, by channel custom type (supergroups count at most 100 each).
    static func readOutsideTotals(
        _ db: PGConnection, _ users: [String], excluding: [String], into ledger: inout UnreadLedger
    ) async throws {
        let unique = Array(Set(users)).sorted()
        for start in stride(from: 0, to: unique.count, by: 500) {
            let chunk = Array(unique[start..<min(start + 500, unique.count)])
            for row in try await db.fetchAll(outsideTotalsSQL, [chunk, excluding]) {
                ledger.addOutside(try row["u"], type: try row["t"], count: Int(try row["n"] as Int64))
            }
        }
    }

    public func markRead(_ channelUrl: String, userId: String, ts: Int64) async throws -> UnreadCount {
        try await write { db in
            try await Self.lockChannel(db, channelUrl)
            try await db.execute(
                """
                UPDATE members SET read_ts = GREATEST(read_ts, ?), unread_count = 0, unread_mention_count = 0
                WHERE channel_url = ? AND user_id = ?
                """,
                [ts, channelUrl, userId])
            return try await Self.messageTotals(db, [userId], hint: ts)[userId] ?? UnreadCount(all: 0, ts: ts)
        }
    }

    public func markAllRead(userId: String, channelUrls: [String]?, ts: Int64) async throws -> (channels: [String], totals: UnreadCount) {
        try await write { db in
            var urls: [String] = []
            if channelUrls?.isEmpty != true {
                var sql = "SELECT channel_url FROM members WHERE user_id = ? AND state = 'joined'"
                var args: [any PGBindable] = [userId]
                if let list = channelUrls {
                    sql += " AND channel_url = ANY(?)"
                    args.append(list)
                }
                urls = try await db.column(sql + " ORDER BY channel_url", args, as: String.self)
            }
            if !urls.isEmpty {
                // One statement: each member row is cleared atomically (no read-modify-write).
                try await db.execute(
                    """
                    UPDATE members SET read_ts = GREATEST(read_ts, ?), unread_count = 0, unread_mention_count = 0
                    WHERE user_id = ? AND channel_url = ANY(?)
                    """,
                    [ts, userId, urls])
            }
            return (urls, try await Self.messageTotals(db, [userId], hint: ts)[userId] ?? UnreadCount(all: 0, ts: ts))
        }
    }

    public func markDelivered(_ channelUrl: String, userId: String, ts: Int64) async throws -> Bool {
        try await write { db in
            try await db.execute(
                "UPDATE members SET delivered_ts = ? WHERE channel_url = ? AND user_id = ? AND delivered_ts < ?",
                [ts, channelUrl, userId, ts]) > 0
        }
    }

    public func unreadMessageTotal(userId: String, customTypes: [String]?, superMode: String?) async throws -> Int {
        let t = UnreadTotalSQL.messageTotal(userId: userId, customTypes: customTypes, superMode: superMode, dialect: .postgres)
        return try await read { db in Int(try await db.scalar(t.sql, t.bindables, as: Int64.self) ?? 0) }
    }

    public func unreadChannelCount(userId: String, customTypes: [String]?, superMode: String?) async throws -> Int {
        let t = UnreadTotalSQL.channelCount(userId: userId, customTypes: customTypes, superMode: superMode, dialect: .postgres)
        return try await read { db in Int(try await db.scalar(t.sql, t.bindables, as: Int64.self) ?? 0) }
    }

    public func unreadItems(userId: String, customTypes: [String]?) async throws -> UnreadItems {
        try await read { db in
            var scope = "m.user_id = ?"
            var args: [any PGBindable] = [userId]
            if let types = customTypes, !types.isEmpty {
                scope += " AND c.custom_type = ANY(?)"
                args.append(types)
            }
            let rows = try await db.fetchAll(
                """
                SELECT c.is_super AS s,
                  SUM(CASE WHEN m.state = 'joined' THEN (CASE WHEN c.is_super THEN LEAST(m.unread_count, 100) ELSE m.unread_count END) ELSE 0 END)::bigint AS msgs,
                  SUM(CASE WHEN m.state = 'joined' THEN m.unread_mention_count ELSE 0 END)::bigint AS mentions,
                  SUM(CASE WHEN m.state = 'invited' THEN 1 ELSE 0 END)::bigint AS invites
                FROM members m JOIN group_channels c ON c.channel_url = m.channel_url WHERE \(scope) GROUP BY c.is_super
                """,
                args)
            return try Records.unreadItems(rows)
        }
    }

    public func unreadTotals(_ userIds: [String], at ms: Int64) async throws -> [String: UnreadCount] {
        try await read { db in try await Self.messageTotals(db, userIds, hint: ms) }
    }

    public func setCountPreference(_ channelUrl: String, userId: String, _ preference: String) async throws -> Bool {
        try await write { db in
            // Counts the new preference leaves out start again from zero.
            try await db.execute(
                """
                UPDATE members SET count_preference = ?,
                  unread_count = CASE WHEN ?::text IN ('all', 'unread_message_count_only') THEN unread_count ELSE 0 END,
                  unread_mention_count = CASE WHEN ?::text IN ('all', 'unread_mention_count_only') THEN unread_mention_count ELSE 0 END
                WHERE channel_url = ? AND user_id = ?
                """,
                [preference, preference, preference, channelUrl, userId]) > 0
        }
    }
}
