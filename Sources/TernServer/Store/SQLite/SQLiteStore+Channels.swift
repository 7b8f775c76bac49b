import Foundation
import GRDB
import Synchronization
import TernProtocol

/// Group and open channels, their members and roles, and the per-user channel changelog (``ChannelStore``) on SQLite.
extension SQLiteStore {
    public func createGroupChannel(_ new: NewGroupChannel) async throws -> (channel: ChannelRecord, created: Bool) {
        let memberIds = Array(Set(new.userIds)).sorted()
        let distinctKey = new.isDistinct ? memberIds.joined(separator: "\u{1F}") : nil
        return try await self.write { db in
            self.forgetTotals(nil)
            if let key = distinctKey,
                let url = try String.fetchOne(
                    db, sql: "SELECT channel_url FROM group_channels WHERE distinct_key = ? AND is_distinct = 1 LIMIT 1",
                    arguments: [key]),
                let existing = try Self.fetchChannel(db, url)
            {
                return (existing, false)
            }
            if try Self.fetchChannel(db, new.channelUrl) != nil {
                throw SendbirdError(.alreadyExists, "\"channel_url\" violates a unique constraint: \(new.channelUrl) already exists.")
            }
            try db.execute(
                sql: """
                    INSERT INTO group_channels(channel_url, name, cover_url, custom_type, data, created_at, created_by,
                      is_distinct, is_public, is_super, is_ephemeral, distinct_key)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    new.channelUrl, new.name, new.coverUrl, new.customType, new.data, new.createdAt, new.creator,
                    new.isDistinct, new.isPublic, new.isSuper, new.isEphemeral, distinctKey,
                ])
            let operators = Set(new.operatorIds)
            // Read receipts start just before the channel does: nothing in it is read yet, and the SDKs
            // (which skip members whose receipt is 0) count every member as not having read what follows.
            let invited = Set(new.invitedIds)
            for uid in memberIds {
                let isInvited = invited.contains(uid)
                try db.execute(
                    sql: """
                        INSERT INTO members(channel_url, user_id, state, role, joined_ts, invited_at, read_ts, inviter_id)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        new.channelUrl, uid, isInvited ? "invited" : "joined", operators.contains(uid) ? "operator" : "none",
                        isInvited ? 0 : new.nowMs, isInvited ? new.nowMs : 0, max(new.nowMs - 1, 0), isInvited ? new.creator : nil,
                    ])
            }
            try Self.recountMembers(db, new.channelUrl)
            return (try Self.fetchChannel(db, new.channelUrl)!, true)
        }
    }

    public func channel(_ channelUrl: String) async throws -> ChannelRecord? {
        try await pool.read { db in try Self.fetchChannel(db, channelUrl) }
    }

    public func members(_ channelUrl: String) async throws -> [MemberRecord] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM members WHERE channel_url = ? ORDER BY user_id", arguments: [channelUrl])
                .map(Self.memberRecord)
        }
    }

    public func member(_ channelUrl: String, userId: String) async throws -> MemberRecord? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM members WHERE channel_url = ? AND user_id = ?", arguments: [channelUrl, userId])
                .map(Self.memberRecord)
        }
    }

    public func members(ofChannels channelUrls: [String]) async throws -> [String: [MemberRecord]] {
        if channelUrls.isEmpty { return [:] }
        return try await pool.read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM members WHERE channel_url IN (\(Self.placeholders(channelUrls.count))) ORDER BY user_id",
                arguments: StatementArguments(channelUrls))
            return Dictionary(grouping: try rows.map(Self.memberRecord), by: \.channelUrl)
        }
    }

    public func listChannels(_ q: ChannelListQuery) async throws -> [(channel: ChannelRecord, cursor: ChannelCursor)] {
        try await pool.read { db in
            let snapshot = q.after?.snapshot ?? (q.snapshot > 0 ? q.snapshot : Int64.max / 4)
            let list = ChannelListSQL(q, snapshot: snapshot, dialect: .sqlite)
            return try Row.fetchAll(db, sql: list.statement.sql, arguments: list.statement.arguments).map { row in
                let cursor = ChannelCursor(
                    snapshot: snapshot, number: list.textKey ? nil : row["sort_key"], text: list.textKey ? row["sort_key"] : nil,
                    url: row["channel_url"])
                return (try Self.channelRecord(row), cursor)
            }
        }
    }

    public func channelCount(userId: String) async throws -> Int {
        try await pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM members WHERE user_id = ?", arguments: [userId]) ?? 0
        }
    }

    public func addMembers(_ channelUrl: String, _ adds: [MemberAdd], nowMs: Int64, chatHistory: Bool) async throws -> [MemberRecord] {
        try await self.write { db in
            self.forgetTotals(nil)
            guard try Self.fetchChannel(db, channelUrl) != nil else { throw SendbirdError.notFound("Channel") }
            let lastTs = try Int64.fetchOne(db, sql: "SELECT last_message_ts FROM group_channels WHERE channel_url = ?", arguments: [channelUrl]) ?? 0
            var added: [MemberRecord] = []
            for a in adds {
                let exists =
                    try Bool.fetchOne(
                        db, sql: "SELECT 1 FROM members WHERE channel_url = ? AND user_id = ?", arguments: [channelUrl, a.userId]) ?? false
                if exists { continue }
                // Seed 002: a new member's read receipt is the last message's time with chat history, else 0
                // (and without chat history what came before is hidden from them). Nothing before is unread.
                try db.execute(
                    sql: """
                        INSERT INTO members(channel_url, user_id, state, role, joined_ts, invited_at, read_ts, inviter_id, ts_message_offset)
                        VALUES (?, ?, ?, 'none', ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        channelUrl, a.userId, a.state, a.state == "joined" ? nowMs : 0, a.inviterId == nil ? 0 : nowMs,
                        chatHistory ? lastTs : 0, a.inviterId, chatHistory ? 0 : nowMs,
                    ])
                if let row = try Row.fetchOne(
                    db, sql: "SELECT * FROM members WHERE channel_url = ? AND user_id = ?", arguments: [channelUrl, a.userId])
                {
                    added.append(try Self.memberRecord(row))
                }
            }
            if !added.isEmpty {
                try db.execute(
                    sql: "UPDATE group_channels SET is_distinct = 0, distinct_key = NULL WHERE channel_url = ?", arguments: [channelUrl])
                try Self.recountMembers(db, channelUrl)
            }
            return added
        }
    }

    public func acceptInvitation(_ channelUrl: String, userId: String, nowMs: Int64) async throws -> Bool {
        try await self.write { db in
            self.forgetTotals(nil)
            try db.execute(
                sql: "UPDATE members SET state = 'joined', joined_ts = ? WHERE channel_url = ? AND user_id = ? AND state = 'invited'",
                arguments: [nowMs, channelUrl, userId])
            guard db.changesCount > 0 else { return false }
            try Self.recountMembers(db, channelUrl)
            return true
        }
    }

    public func removeMember(_ channelUrl: String, userId: String, turnOffDistinct: Bool) async throws -> Bool {
        try await self.write { db in
            self.forgetTotals(nil)
            try db.execute(sql: "DELETE FROM members WHERE channel_url = ? AND user_id = ?", arguments: [channelUrl, userId])
            guard db.changesCount > 0 else { return false }
            if turnOffDistinct {
                try db.execute(
                    sql: "UPDATE group_channels SET is_distinct = 0, distinct_key = NULL WHERE channel_url = ?", arguments: [channelUrl])
            }
            try Self.recountMembers(db, channelUrl)
            return true
        }
    }

    public func updateChannel(_ c: ChannelRecord) async throws {
        try await self.write { db in
            self.forgetTotals(nil)
            try db.execute(
                sql: "UPDATE group_channels SET name = ?, cover_url = ?, data = ?, custom_type = ?, freeze = ? WHERE channel_url = ?",
                arguments: [c.name, c.coverUrl, c.data, c.customType, c.freeze, c.channelUrl])
        }
    }

    public func deleteChannel(_ channelUrl: String) async throws -> Bool {
        try await self.write { db in
            self.forgetTotals(nil)
            try db.execute(sql: "DELETE FROM group_channels WHERE channel_url = ?", arguments: [channelUrl])
            return db.changesCount > 0
        }
    }

    public func setHidden(_ channelUrl: String, userId: String, state: String, messageOffset: Int64?) async throws {
        try await self.write { db in
            self.forgetTotals(nil)
            if state == "hidden_allow_auto_unhide" { self.mayAutoUnhide.withLock { _ = $0.insert(channelUrl) } }
            if let offset = messageOffset {
                try db.execute(
                    sql: """
                        UPDATE members SET hidden_state = ?, ts_message_offset = max(ts_message_offset, ?),
                          unread_count = 0, unread_mention_count = 0, read_ts = max(read_ts, ?)
                        WHERE channel_url = ? AND user_id = ?
                        """,
                    arguments: [state, offset, offset, channelUrl, userId])
            } else {
                try db.execute(
                    sql: "UPDATE members SET hidden_state = ? WHERE channel_url = ? AND user_id = ?",
                    arguments: [state, channelUrl, userId])
            }
        }
    }

    public func invitationAutoAccept(userId: String) async throws -> Bool {
        try await pool.read { db in
            try Bool.fetchOne(db, sql: "SELECT auto_accept FROM users WHERE user_id = ?", arguments: [userId]) ?? true
        }
    }

    public func setInvitationAutoAccept(userId: String, _ autoAccept: Bool) async throws {
        try await self.write { db in
            try db.execute(sql: "UPDATE users SET auto_accept = ? WHERE user_id = ?", arguments: [autoAccept, userId])
        }
    }

    public func channelChanges(userId: String, after c: ChannelChangeCursor, limit: Int) async throws
        -> (updated: [(url: String, at: Int64)], deleted: [(url: String, at: Int64)])
    {
        try await pool.read { db in
            // A channel's change time for the user: the channel's own, its last message's, the user's
            // member row's, and the newest read or delivery receipt of a joined member (the channel JSON
            // shows them all; supergroups show none).
            let updated = try Row.fetchAll(
                db,
                sql: """
                    SELECT url, at FROM (
                      SELECT c.channel_url AS url, max(c.changed_at, c.last_message_ts, m.changed_at,
                        CASE WHEN c.is_super THEN 0 ELSE coalesce(
                          (SELECT max(max(o.read_ts), max(o.delivered_ts)) FROM members o
                           WHERE o.channel_url = c.channel_url AND o.state = 'joined'), 0) END) AS at
                      FROM members m JOIN group_channels c ON c.channel_url = m.channel_url
                      WHERE m.user_id = ? AND c.channel_type = 'group')
                    WHERE at > ? OR (at = ? AND url > ?)
                    ORDER BY at, url LIMIT ?
                    """,
                arguments: [userId, c.ts, c.ts, c.url, limit]
            ).map { (url: $0["url"] as String, at: $0["at"] as Int64) }
            let gone = ChangelogSQL.deletedChannels(userId: userId, after: c, limit: limit, dialect: .sqlite)
            let deleted = try Row.fetchAll(db, sql: gone.sql, arguments: gone.arguments).map {
                (url: $0["channel_url"] as String, at: $0["deleted_at"] as Int64)
            }
            return (updated, deleted)
        }
    }

    public func createOpenChannel(_ c: ChannelRecord) async throws -> ChannelRecord {
        try await self.write { db in
            if try Self.fetchChannel(db, c.channelUrl) != nil {
                throw SendbirdError(.alreadyExists, "\"channel_url\" violates a unique constraint: \(c.channelUrl) already exists.")
            }
            try db.execute(
                sql: """
                    INSERT INTO group_channels(channel_url, channel_type, name, cover_url, custom_type, data, created_at, created_by,
                      is_ephemeral, freeze, operator_ids)
                    VALUES (?, 'open', ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    c.channelUrl, c.name, c.coverUrl, c.customType, c.data, c.createdAt, c.createdBy, c.isEphemeral, c.freeze,
                    Self.json(c.operatorIds),
                ])
            return try Self.fetchChannel(db, c.channelUrl)!
        }
    }

    public func listOpenChannels(_ q: OpenChannelListQuery) async throws -> [ChannelRecord] {
        guard let t = OpenChannelListSQL.statement(q, dialect: .sqlite) else { return [] }
        return try await pool.read { db in try Row.fetchAll(db, sql: t.sql, arguments: t.arguments).map(Self.channelRecord) }
    }

    public func setOpenChannelOperators(_ channelUrl: String, _ userIds: [String]) async throws {
        try await self.write { db in
            try db.execute(
                sql: "UPDATE group_channels SET operator_ids = ? WHERE channel_url = ? AND channel_type = 'open'",
                arguments: [Self.json(userIds), channelUrl])
        }
    }

    public func setMemberRole(_ channelUrl: String, userIds: [String], role: String) async throws -> [String] {
        if userIds.isEmpty { return [] }
        return try await self.write { db in
            let changed = try String.fetchAll(
                db,
                sql: "SELECT user_id FROM members WHERE channel_url = ? AND role != ? AND user_id IN (\(Self.placeholders(userIds.count)))",
                arguments: StatementArguments([channelUrl, role] + userIds))
            if !changed.isEmpty {
                try db.execute(
                    sql: "UPDATE members SET role = ? WHERE channel_url = ? AND user_id IN (\(Self.placeholders(changed.count)))",
                    arguments: StatementArguments([role, channelUrl] + changed))
            }
            return changed
        }
    }
}
