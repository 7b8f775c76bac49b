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
        try await read { db in
            var sql = """
                SELECT * FROM restrictions WHERE channel_url = ? AND kind = ? AND (end_at < 0 OR end_at > ?) AND user_id > ?
                ORDER BY user_id
                """
            var args: [any PGBindable] = [channelUrl, kind.rawValue, now, afterUserId ?? ""]
            if let limit {
                sql += " LIMIT ?"
                args.append(limit)
            }
            return try await db.fetchAll(sql, args).map(Self.restrictionRecord)
        }
    }

    static func restrictionRecord(_ row: PGRow) throws -> RestrictionRecord {
        let kind: String = try row["kind"]
        return RestrictionRecord(
            channelUrl: try row["channel_url"], userId: try row["user_id"], kind: RestrictionRecord.Kind(rawValue: kind) ?? .ban,
            startAt: try row["start_at"], endAt: try row["end_at"], description: try row["description"])
    }

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
        try await read { db in
            var wheres: [String] = []
            var args: [any PGBindable] = []
            if let u = q.channelUrl {
                wheres.append("channel_url = ?")
                args.append(u)
            }
            if let m = q.messageId {
                wheres.append("message_id = ?")
                args.append(m)
            }
            if let o = q.offendingUserId {
                wheres.append("offending_user_id = ?")
                args.append(o)
            }
            if let s = q.startTs {
                wheres.append("created_at >= ?")
                args.append(s)
            }
            if let e = q.endTs {
                wheres.append("created_at < ?")
                args.append(e)
            }
            if let b = q.beforeId {
                wheres.append("report_id < ?")
                args.append(b)
            }
            var sql = "SELECT * FROM reports"
            if !wheres.isEmpty { sql += " WHERE " + wheres.joined(separator: " AND ") }
            sql += " ORDER BY report_id DESC LIMIT ?"
            args.append(q.limit)
            return try await db.fetchAll(sql, args).map { row in
                var r = ReportRecord(
                    category: try row["category"], description: try row["description"],
                    reportingUserId: try row["reporting_user_id"], offendingUserId: try row["offending_user_id"],
                    channelUrl: try row["channel_url"], channelType: try row["channel_type"],
                    messageId: try row["message_id"], reportedMessage: try row["reported_message"],
                    createdAt: try row["created_at"])
                r.reportId = try row["report_id"]
                return r
            }
        }
    }
}
