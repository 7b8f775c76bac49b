import Foundation
import PostgresNIO
import TernProtocol

/// Bans, mutes and reports (``ModerationStore``) on PostgreSQL.
extension PostgresStore {
    public func restrict(_ r: RestrictionRecord) async throws {
        try await write { db in
            try await Self.lockChannel(db, r.channelUrl)
            // The restriction triggers move the channel's `changed_at` for mutes (schema).
            try await db.execute(
                """
                INSERT INTO restrictions(channel_url, kind, user_id, start_at, end_at, description) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (channel_url, kind, user_id) DO UPDATE SET
                  start_at = excluded.start_at, end_at = excluded.end_at, description = excluded.description
                """,
                [r.channelUrl, r.kind.rawValue, r.userId, r.startAt, r.endAt, r.description])
        }
    }

    public func lift(_ channelUrl: String, userId: String, kind: RestrictionRecord.Kind) async throws -> Bool {
        try await write { db in
            try await Self.lockChannel(db, channelUrl)
            let n = try await db.execute(
                "DELETE FROM restrictions WHERE channel_url = ? AND kind = ? AND user_id = ?",
                [channelUrl, kind.rawValue, userId])
            return n > 0
        }
    }

    public func restrictions(
        _ channelUrl: String, kind: RestrictionRecord.Kind, now: Int64, afterUserId: String?, limit: Int?
    ) async throws -> [RestrictionRecord] {
        let t = RestrictionListSQL.statement(channelUrl, kind: kind, now: now, afterUserId: afterUserId, limit: limit)
        return try await read { db in try await db.fetchAll(t).map(Self.restrictionRecord) }
    }

    static func restrictionRecord(_ row: PGRow) throws -> RestrictionRecord { try Records.restriction(row) }

    public func mutedUsers(ofChannels channelUrls: [String], now: Int64) async throws -> [String: Set<String>] {
        if channelUrls.isEmpty { return [:] }
        return try await read { db in
            let rows = try await db.fetchAll(
                """
                SELECT channel_url, user_id FROM restrictions
                WHERE kind = 'mute' AND (end_at < 0 OR end_at > ?) AND channel_url = ANY(?)
                """,
                [now, channelUrls])
            var out: [String: Set<String>] = [:]
            for r in rows {
                let url: String = try r["channel_url"]
                let user: String = try r["user_id"]
                out[url, default: []].insert(user)
            }
            return out
        }
    }

    public func addReport(_ r: ReportRecord) async throws -> ReportRecord {
        try await write { db in
            let id = try await db.scalar(
                """
                INSERT INTO reports(category, description, reporting_user_id, offending_user_id, channel_url, channel_type,
                  message_id, reported_message, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                RETURNING report_id
                """,
                [
                    r.category, r.description, r.reportingUserId, r.offendingUserId, r.channelUrl, r.channelType, r.messageId,
                    r.reportedMessage, r.createdAt,
                ],
                as: Int64.self)
            var stored = r
            stored.reportId = id ?? 0
            return stored
        }
    }

    public func reports(_ q: ReportQuery) async throws -> [ReportRecord] {
        let t = reportListSQL(q)
        return try await read { db in try await db.fetchAll(t).map(Records.report) }
    }
}
