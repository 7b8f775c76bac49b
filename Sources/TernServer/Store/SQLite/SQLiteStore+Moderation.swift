import Foundation
import GRDB
import TernProtocol

/// Bans, mutes and reports (``ModerationStore``) on SQLite.
extension SQLiteStore {
    public func restrict(_ r: RestrictionRecord) async throws {
        try await self.write { db in
            try db.execute(
                sql: """
                    INSERT INTO restrictions(channel_url, kind, user_id, start_at, end_at, description) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT(channel_url, kind, user_id) DO UPDATE SET
                      start_at = excluded.start_at, end_at = excluded.end_at, description = excluded.description
                    """,
                arguments: [r.channelUrl, r.kind.rawValue, r.userId, r.startAt, r.endAt, r.description])
        }
    }

    public func lift(_ channelUrl: String, userId: String, kind: RestrictionRecord.Kind) async throws -> Bool {
        try await self.write { db in
            try db.execute(
                sql: "DELETE FROM restrictions WHERE channel_url = ? AND kind = ? AND user_id = ?",
                arguments: [channelUrl, kind.rawValue, userId])
            return db.changesCount > 0
        }
    }

    public func restrictions(
        _ channelUrl: String, kind: RestrictionRecord.Kind, now: Int64, afterUserId: String?, limit: Int?
    ) async throws -> [RestrictionRecord] {
        let t = RestrictionListSQL.statement(channelUrl, kind: kind, now: now, afterUserId: afterUserId, limit: limit)
        return try await pool.read { db in try Row.fetchAll(db, sql: t.sql, arguments: t.arguments).map(Self.restrictionRecord) }
    }

    static func restrictionRecord(_ row: Row) throws -> RestrictionRecord { try Records.restriction(row) }

    public func mutedUsers(ofChannels channelUrls: [String], now: Int64) async throws -> [String: Set<String>] {
        if channelUrls.isEmpty { return [:] }
        return try await pool.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT channel_url, user_id FROM restrictions
                    WHERE kind = 'mute' AND (end_at < 0 OR end_at > ?) AND channel_url IN (\(Self.placeholders(channelUrls.count)))
                    """,
                arguments: StatementArguments([now] + channelUrls))
            var out: [String: Set<String>] = [:]
            for r in rows { out[r["channel_url"], default: []].insert(r["user_id"]) }
            return out
        }
    }

    public func addReport(_ r: ReportRecord) async throws -> ReportRecord {
        try await self.write { db in
            try db.execute(
                sql: """
                    INSERT INTO reports(category, description, reporting_user_id, offending_user_id, channel_url, channel_type,
                      message_id, reported_message, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    r.category, r.description, r.reportingUserId, r.offendingUserId, r.channelUrl, r.channelType, r.messageId,
                    r.reportedMessage, r.createdAt,
                ])
            var stored = r
            stored.reportId = db.lastInsertedRowID
            return stored
        }
    }

    public func reports(_ q: ReportQuery) async throws -> [ReportRecord] {
        let t = reportListSQL(q)
        return try await pool.read { db in try Row.fetchAll(db, sql: t.sql, arguments: t.arguments).map(Records.report) }
    }
}
