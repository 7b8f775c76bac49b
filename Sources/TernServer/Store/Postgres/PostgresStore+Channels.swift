import Foundation
import PostgresNIO
import TernProtocol

/// Group and open channels, their members and roles, and the channel changelog (``ChannelStore``)
/// on PostgreSQL.
///
/// Every write that touches a channel's rows takes the channel's advisory lock first
/// (``PostgresStore/lockChannel(_:_:)``), so that writers on any node go one at a time per channel as
/// SQLite's single writer does.
extension PostgresStore {
    public func createGroupChannel(_ new: NewGroupChannel) async throws -> (channel: ChannelRecord, created: Bool) {
        let memberIds = Array(Set(new.userIds)).sorted()
        let distinctKey = new.isDistinct ? memberIds.joined(separator: "\u{1F}") : nil
        return try await write { db in
            if let key = distinctKey {
                // Two nodes creating the same distinct channel at once: the second waits here, then finds the first's.
                try await db.execute("SELECT pg_advisory_xact_lock(hashtextextended(?, 2))", [key])
                if let url = try await db.scalar(
                    "SELECT channel_url FROM group_channels WHERE distinct_key = ? AND is_distinct LIMIT 1", [key], as: String.self),
                    let existing = try await Self.fetchChannel(db, url)
                {
                    return (existing, false)
                }
            }
            try await Self.lockChannel(db, new.channelUrl)
            let taken = SendbirdError(.alreadyExists, "\"channel_url\" violates a unique constraint: \(new.channelUrl) already exists.")
            if try await Self.fetchChannel(db, new.channelUrl) != nil { throw taken }
            let inserted = try await db.execute(
                """
                INSERT INTO group_channels(channel_url, name, cover_url, custom_type, data, created_at, created_by,
                  is_distinct, is_public, is_super, is_ephemeral, distinct_key)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT DO NOTHING
                """,
                [
                    new.channelUrl, new.name, new.coverUrl, new.customType, new.data, new.createdAt, new.creator,
                    new.isDistinct, new.isPublic, new.isSuper, new.isEphemeral, distinctKey,
                ])
            if inserted == 0 { throw taken }
            let operators = Set(new.operatorIds)
            // Read receipts start just before the channel does: nothing in it is read yet, and the SDKs
            // (which skip members whose receipt is 0) count every member as not having read what follows.
            let invited = Set(new.invitedIds)
            for uid in memberIds {
                let isInvited = invited.contains(uid)
                try await db.execute(
                    """
                    INSERT INTO members(channel_url, user_id, state, role, joined_ts, invited_at, read_ts, inviter_id)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        new.channelUrl, uid, isInvited ? "invited" : "joined", operators.contains(uid) ? "operator" : "none",
                        isInvited ? Int64(0) : new.nowMs, isInvited ? new.nowMs : Int64(0), max(new.nowMs - 1, 0),
                        isInvited ? new.creator : nil,
                    ])
            }
            try await Self.recountMembers(db, new.channelUrl)
            guard let channel = try await Self.fetchChannel(db, new.channelUrl) else { throw SendbirdError.notFound("Channel") }
            return (channel, true)
        }
    }

    public func channel(_ channelUrl: String) async throws -> ChannelRecord? {
        try await read { db in try await Self.fetchChannel(db, channelUrl) }
    }

    public func members(_ channelUrl: String) async throws -> [MemberRecord] {
        try await read { db in
            try await db.fetchAll("SELECT * FROM members WHERE channel_url = ? ORDER BY user_id", [channelUrl]).map(Self.memberRecord)
        }
    }

    public func member(_ channelUrl: String, userId: String) async throws -> MemberRecord? {
        try await read { db in
            try await db.fetchOne("SELECT * FROM members WHERE channel_url = ? AND user_id = ?", [channelUrl, userId])
                .map(Self.memberRecord)
        }
    }

    public func members(ofChannels channelUrls: [String]) async throws -> [String: [MemberRecord]] {
        if channelUrls.isEmpty { return [:] }
        return try await read { db in
            let rows = try await db.fetchAll("SELECT * FROM members WHERE channel_url = ANY(?) ORDER BY user_id", [channelUrls])
            return Dictionary(grouping: try rows.map(Self.memberRecord), by: \.channelUrl)
        }
    }

    public func listChannels(_ q: ChannelListQuery) async throws -> [(channel: ChannelRecord, cursor: ChannelCursor)] {
        try await read { db in
            let snapshot = q.after?.snapshot ?? (q.snapshot > 0 ? q.snapshot : Int64.max / 4)
            let list = ChannelListSQL(q, snapshot: snapshot, dialect: .postgres)
            return try await db.fetchAll(list.statement).map { row in
                let url: String = try row["channel_url"]
                let cursor =
                    list.textKey
                    ? ChannelCursor(snapshot: snapshot, text: try row["sort_key"] as String?, url: url)
                    : ChannelCursor(snapshot: snapshot, number: try row["sort_key"] as Int64?, url: url)
                return (try Self.channelRecord(row), cursor)
            }
        }
    }

    public func channelCount(userId: String) async throws -> Int {
        try await read { db in
            Int(try await db.scalar("SELECT COUNT(*) FROM members WHERE user_id = ?", [userId], as: Int64.self) ?? 0)
        }
    }

    public func addMembers(_ channelUrl: String, _ adds: [MemberAdd], nowMs: Int64, chatHistory: Bool) async throws -> [MemberRecord] {
        try await write { db in
            try await Self.lockChannel(db, channelUrl)
            guard try await Self.fetchChannel(db, channelUrl) != nil else { throw SendbirdError.notFound("Channel") }
            let lastTs =
                try await db.scalar("SELECT last_message_ts FROM group_channels WHERE channel_url = ?", [channelUrl], as: Int64.self) ?? 0
            var added: [MemberRecord] = []
            for a in adds {
                let exists =
                    try await db.scalar(
                        "SELECT EXISTS(SELECT 1 FROM members WHERE channel_url = ? AND user_id = ?)", [channelUrl, a.userId], as: Bool.self)
                    ?? false
                if exists { continue }
                // Seed 002: a new member's read receipt is the last message's time with chat history, else 0
                // (and without chat history what came before is hidden from them). Nothing before is unread.
                try await db.execute(
                    """
                    INSERT INTO members(channel_url, user_id, state, role, joined_ts, invited_at, read_ts, inviter_id, ts_message_offset)
                    VALUES (?, ?, ?, 'none', ?, ?, ?, ?, ?)
                    """,
                    [
                        channelUrl, a.userId, a.state, a.state == "joined" ? nowMs : Int64(0), a.inviterId == nil ? Int64(0) : nowMs,
                        chatHistory ? lastTs : Int64(0), a.inviterId, chatHistory ? Int64(0) : nowMs,
                    ])
                // Read back after the insert triggers ran, as SQLite does.
                if let row = try await db.fetchOne("SELECT * FROM members WHERE channel_url = ? AND user_id = ?", [channelUrl, a.userId]) {
                    added.append(try Self.memberRecord(row))
                }
            }
            if !added.isEmpty {
                try await db.execute("UPDATE group_channels SET is_distinct = false, distinct_key = NULL WHERE channel_url = ?", [channelUrl])
                try await Self.recountMembers(db, channelUrl)
            }
            return added
        }
    }

    public func acceptInvitation(_ channelUrl: String, userId: String, nowMs: Int64) async throws -> Bool {
        try await write { db in
            try await Self.lockChannel(db, channelUrl)
            let changed = try await db.execute(
                "UPDATE members SET state = 'joined', joined_ts = ? WHERE channel_url = ? AND user_id = ? AND state = 'invited'",
                [nowMs, channelUrl, userId])
            guard changed > 0 else { return false }
            try await Self.recountMembers(db, channelUrl)
            return true
        }
    }

    public func removeMember(_ channelUrl: String, userId: String, turnOffDistinct: Bool) async throws -> Bool {
        try await write { db in
            try await Self.lockChannel(db, channelUrl)
            let removed = try await db.execute("DELETE FROM members WHERE channel_url = ? AND user_id = ?", [channelUrl, userId])
            guard removed > 0 else { return false }
            if turnOffDistinct {
                try await db.execute("UPDATE group_channels SET is_distinct = false, distinct_key = NULL WHERE channel_url = ?", [channelUrl])
            }
            try await Self.recountMembers(db, channelUrl)
            return true
        }
    }

    public func updateChannel(_ c: ChannelRecord) async throws {
        try await write { db in
            try await Self.lockChannel(db, c.channelUrl)
            try await db.execute(
                "UPDATE group_channels SET name = ?, cover_url = ?, data = ?, custom_type = ?, \"freeze\" = ? WHERE channel_url = ?",
                [c.name, c.coverUrl, c.data, c.customType, c.freeze, c.channelUrl])
        }
    }

    public func deleteChannel(_ channelUrl: String) async throws -> Bool {
        try await write { db in
            try await Self.lockChannel(db, channelUrl)
            return try await db.execute("DELETE FROM group_channels WHERE channel_url = ?", [channelUrl]) > 0
        }
    }

    public func setHidden(_ channelUrl: String, userId: String, state: String, messageOffset: Int64?) async throws {
        try await write { db in
            try await Self.lockChannel(db, channelUrl)
            if let offset = messageOffset {
                try await db.execute(
                    """
                    UPDATE members SET hidden_state = ?, ts_message_offset = GREATEST(ts_message_offset, ?),
                      unread_count = 0, unread_mention_count = 0, read_ts = GREATEST(read_ts, ?)
                    WHERE channel_url = ? AND user_id = ?
                    """,
                    [state, offset, offset, channelUrl, userId])
            } else {
                try await db.execute(
                    "UPDATE members SET hidden_state = ? WHERE channel_url = ? AND user_id = ?", [state, channelUrl, userId])
            }
        }
    }

    public func invitationAutoAccept(userId: String) async throws -> Bool {
        try await read { db in
            try await db.scalar("SELECT auto_accept FROM users WHERE user_id = ?", [userId], as: Bool.self) ?? true
        }
    }

    public func setInvitationAutoAccept(userId: String, _ autoAccept: Bool) async throws {
        try await write { db in
            _ = try await db.execute("UPDATE users SET auto_accept = ? WHERE user_id = ?", [autoAccept, userId])
        }
    }

    public func createOpenChannel(_ c: ChannelRecord) async throws -> ChannelRecord {
        try await write { db in
            try await Self.lockChannel(db, c.channelUrl)
            let taken = SendbirdError(.alreadyExists, "\"channel_url\" violates a unique constraint: \(c.channelUrl) already exists.")
            if try await Self.fetchChannel(db, c.channelUrl) != nil { throw taken }
            let inserted = try await db.execute(
                """
                INSERT INTO group_channels(channel_url, channel_type, name, cover_url, custom_type, data, created_at, created_by,
                  is_ephemeral, "freeze", operator_ids)
                VALUES (?, 'open', ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT DO NOTHING
                """,
                [
                    c.channelUrl, c.name, c.coverUrl, c.customType, c.data, c.createdAt, c.createdBy, c.isEphemeral, c.freeze,
                    Self.json(c.operatorIds),
                ])
            if inserted == 0 { throw taken }
            guard let channel = try await Self.fetchChannel(db, c.channelUrl) else { throw SendbirdError.notFound("Channel") }
            return channel
        }
    }

    public func listOpenChannels(_ q: OpenChannelListQuery) async throws -> [ChannelRecord] {
        guard let t = OpenChannelListSQL.statement(q, dialect: .postgres) else { return [] }
        return try await read { db in try await db.fetchAll(t).map(Self.channelRecord) }
    }

    public func setOpenChannelOperators(_ channelUrl: String, _ userIds: [String]) async throws {
        try await write { db in
            try await Self.lockChannel(db, channelUrl)
            try await db.execute(
                "UPDATE group_channels SET operator_ids = ? WHERE channel_url = ? AND channel_type = 'open'",
                [Self.json(userIds), channelUrl])
        }
    }

    public func setMemberRole(_ channelUrl: String, userIds: [String], role: String) async throws -> [String] {
        if userIds.isEmpty { return [] }
        return try await write { db in
            try await Self.lockChannel(db, channelUrl)
            let changed = try await db.column(
                "SELECT user_id FROM members WHERE channel_url = ? AND role <> ? AND user_id = ANY(?) ORDER BY user_id",
                [channelUrl, role, userIds], as: String.self)
            if !changed.isEmpty {
                try await db.execute("UPDATE members SET role = ? WHERE channel_url = ? AND user_id = ANY(?)", [role, channelUrl, changed])
            }
            return changed
        }
    }

    public func channelChanges(userId: String, after c: ChannelChangeCursor, limit: Int) async throws
        -> (updated: [(url: String, at: Int64)], deleted: [(url: String, at: Int64)])
    {
        try await read { db in
            // A channel's change time for the user: the channel's own, its last message's, the user's
            // member row's, and the newest read or delivery receipt of a joined member (the channel JSON
            // shows them all; supergroups show none). The columns are NOT NULL, so GREATEST (which skips
            // NULLs) agrees with SQLite's scalar max (NULL when any argument is).
            let updated = try await db.fetchAll(
                """
                SELECT url, at FROM (
                  SELECT c.channel_url AS url, GREATEST(c.changed_at, c.last_message_ts, m.changed_at,
                    CASE WHEN c.is_super THEN 0 ELSE COALESCE(
                      (SELECT GREATEST(MAX(o.read_ts), MAX(o.delivered_ts)) FROM members o
                       WHERE o.channel_url = c.channel_url AND o.state = 'joined'), 0) END)::bigint AS at
                  FROM members m JOIN group_channels c ON c.channel_url = m.channel_url
                  WHERE m.user_id = ? AND c.channel_type = 'group') AS changes
                WHERE at > ? OR (at = ? AND url COLLATE "C" > ?)
                ORDER BY at, url COLLATE "C" LIMIT ?
                """,
                [userId, c.ts, c.ts, c.url, limit]
            ).map { (url: try $0["url"] as String, at: try $0["at"] as Int64) }
            let deleted = try await db.fetchAll(ChangelogSQL.deletedChannels(userId: userId, after: c, limit: limit, dialect: .postgres)).map {
                (url: try $0["channel_url"] as String, at: try $0["deleted_at"] as Int64)
            }
            return (updated, deleted)
        }
    }

    static func fetchChannel(_ db: PGConnection, _ url: String) async throws -> ChannelRecord? {
        try await db.fetchOne("SELECT * FROM group_channels WHERE channel_url = ?", [url]).map(channelRecord)
    }

    /// Sets a channel's member counts from its member rows (call with the channel's lock held).
    static func recountMembers(_ db: PGConnection, _ url: String) async throws {
        try await db.execute(
            """
            UPDATE group_channels SET
              member_count = (SELECT COUNT(*) FROM members WHERE channel_url = ?),
              joined_member_count = (SELECT COUNT(*) FROM members WHERE channel_url = ? AND state = 'joined')
            WHERE channel_url = ?
            """,
            [url, url, url])
    }
}
