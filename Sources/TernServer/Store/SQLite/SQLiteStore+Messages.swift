import Foundation
import GRDB
import Synchronization
import TernProtocol

/// Messages (``MessageStore``) on SQLite: the send path (``insert(_:_:)``: the idempotency check,
/// the row, and the counters it moves, in the sender's transaction), history, threads, edits,
/// deletions, reactions, link previews and the message changelog.
extension SQLiteStore: InPlaceMessageInsert {
    // MARK: - Sending and reading

    public func insertMessage(_ m: NewMessage) async throws -> StoredMessage {
        try await self.write { db in try self.insert(db, m) }
    }

    /// Group commit: every message in one transaction, in order, each in a savepoint of its own so
    /// that one refused (a reply to a missing parent) leaves the others stored.
    public func insertMessages(_ batch: [NewMessage]) async throws -> [Result<StoredMessage, any Error>] {
        if batch.count == 1 {
            do { return [.success(try await insertMessage(batch[0]))] } catch let e as SendbirdError { return [.failure(e)] }
        }
        return try await self.write { db in try self.insertBatch(db, batch) }
    }

    /// The same group commit on the calling thread (``InPlaceMessageInsert``: the send pipeline's
    /// own thread).
    func insertMessagesInPlace(_ batch: [NewMessage]) throws -> [Result<StoredMessage, any Error>] {
        if batch.count == 1 {
            do { return [.success(try self.write { db in try self.insert(db, batch[0]) })] } catch let e as SendbirdError { return [.failure(e)] }
        }
        return try self.write { db in try self.insertBatch(db, batch) }
    }

    func insertBatch(_ db: Database, _ batch: [NewMessage]) throws -> [Result<StoredMessage, any Error>] {
        var out: [Result<StoredMessage, any Error>] = []
        out.reserveCapacity(batch.count)
        // Unread counts are written once per channel at the end (``PendingUnread``).
        let pending = PendingUnread()
        for m in batch {
            var stored: StoredMessage?
            let saved = pending.snapshot
            do {
                try db.inSavepoint {
                    stored = try self.insert(db, m, pending: pending)
                    return .commit
                }
                out.append(.success(stored!))
            } catch let e as SendbirdError {
                // Rolled back: totals it may have moved in memory are read again, and what it
                // added to the pending counts goes with its rows.
                pending.restore(saved)
                self.forgetTotals(nil)
                out.append(.failure(e))
            }
        }
        try pending.writeAll(db)
        return out
    }

    /// Stores one new message inside a write transaction (see ``insertMessage(_:)``), in named steps: a reply's parent is checked; the row is
    /// written (or, ephemeral, only an id is taken), and a repeated `req_id`, which the insert finds,
    /// returns the original instead; then the counters it moves — unread and mention counts, auto-unhide, the
    /// sender's read — and the thread of its parent. In a batch, `pending` takes the unread counts
    /// to write at its end.
    func insert(_ db: Database, _ m: NewMessage, pending: PendingUnread? = nil) throws -> StoredMessage {
        // A resend (the same channel, sender and req_id) is found by the insert itself, which stores
        // nothing when the unique index `messages_req` has the row: no lookup before every message.
        var record = MessageRecord(
            messageId: 0, channelUrl: m.channelUrl, type: m.type, senderId: m.senderId, message: m.message,
            customType: m.customType, data: m.data, mentionType: m.mentionType, mentionedUserIds: m.mentionedUserIds,
            silent: m.silent, isOpMsg: m.isOpMsg, createdAt: m.createdAt, updatedAt: 0, parentMessageId: m.parentMessageId,
            reqId: m.reqId, sortedMetaarray: m.sortedMetaarray, replyToChannel: m.replyToChannel, ogTag: m.ogTag, files: m.files)
        do {
            try Self.checkParent(db, m)
        } catch {
            // The parent may have gone since the original was stored: a resend still gets the original.
            if let original = try Self.duplicate(db, m) { return StoredMessage(message: original, duplicate: true, totals: [:]) }
            throw error
        }
        // Most senders are blocked by no one and most channels are hidden by no one: the two
        // statements that would find that out are skipped (``mayBeBlocked``, ``mayAutoUnhide``).
        let senderMayBeBlocked = m.senderId.map { s in mayBeBlocked.withLock { $0.contains(s) } } ?? false
        let blockers = senderMayBeBlocked ? try Self.blockersOfSender(db, m, hiddenFor: &record.hiddenFor) : []
        guard let id = try storeRow(db, m, hiddenFor: record.hiddenFor) else {
            guard let original = try Self.duplicate(db, m) else { throw SendbirdError(.internalError, "A resend's original is not found.") }
            return StoredMessage(message: original, duplicate: true, totals: [:])
        }
        record.messageId = id
        // Blockers are left out of every count below (seed 003).
        let blockedBy = Self.json(blockers)
        if !m.silent { try countUnread(db, m, blockers: blockers, blockedBy: blockedBy, pending: pending) }
        if mayAutoUnhide.withLock({ $0.contains(m.channelUrl) }) { try Self.autoUnhide(db, m, blockedBy: blockedBy) }
        if !m.silent { try Self.countMentions(db, m, blockedBy: blockedBy) }
        if m.markSenderRead, let sender = m.senderId { try markSenderRead(db, m, sender: sender, pending: pending) }
        var parent: MessageRecord?
        if m.parentMessageId != 0, m.persist, let sender = m.senderId {
            parent = try Self.addReply(db, parentId: m.parentMessageId, sender: sender, at: m.createdAt)
        }
        // Totals the cache lacks are read from the members' rows: what is pending is written first.
        let totals = try self.totals(db, m.totalsFor, hint: m.createdAt) { try pending?.writeAll(db) }
        return StoredMessage(message: record, duplicate: false, totals: totals, parent: parent)
    }

    /// The message already stored for this `(channel, sender, req_id)`, if any: a resend.
    static func duplicate(_ db: Database, _ m: NewMessage) throws -> MessageRecord? {
        if let req = m.reqId, let sender = m.senderId,
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM messages WHERE channel_url = ? AND sender_id = ? AND req_id = ?"),
                arguments: [m.channelUrl, sender, req])
        {
            return try Self.messageRecord(row)
        }
        return nil
    }

    /// A reply: its parent is in this channel and is not a reply itself.
    static func checkParent(_ db: Database, _ m: NewMessage) throws {
        if m.parentMessageId != 0 {
            guard
                let parent = try Row.fetchOne(
                    db, sql: "SELECT parent_message_id FROM messages WHERE message_id = ? AND channel_url = ?",
                    arguments: [m.parentMessageId, m.channelUrl])
            else { throw SendbirdError(.notFound, "\"Message\" not found: \(m.parentMessageId) (the parent).") }
            if (parent["parent_message_id"] as Int64) != 0 {
                throw SendbirdError(.invalidValue, "Invalid value: a reply cannot be a parent (\(m.parentMessageId) is a reply).")
            }
        }
    }

    /// Members who block the sender (seed 003): the message does not count for them, and in a
    /// 1:1 channel it is never shown to them (`hiddenFor`).
    static func blockersOfSender(_ db: Database, _ m: NewMessage, hiddenFor: inout String?) throws -> [String] {
        var blockers: [String] = []
        if let sender = m.senderId {
            blockers = try String.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT b.blocker_id FROM blocks b JOIN members mb ON mb.user_id = b.blocker_id
                        WHERE b.blocked_id = ? AND mb.channel_url = ? AND mb.state = 'joined'
                        """),
                arguments: [sender, m.channelUrl])
            if !blockers.isEmpty,
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT is_super, joined_member_count FROM group_channels WHERE channel_url = ?"),
                    arguments: [m.channelUrl]),
                !(row["is_super"] as Bool), (row["joined_member_count"] as Int) <= 2
            {
                hiddenFor = blockers.first
            }
        }
        return blockers
    }

    /// Writes the message's row and moves the channel's last message; returns the new id, or nil
    /// (nothing stored) when the row for this channel, sender and req_id is there already. An
    /// ephemeral message only takes an id from the same sequence, so ids stay unique.
    func storeRow(_ db: Database, _ m: NewMessage, hiddenFor: String?) throws -> Int64? {
        if m.persist {
            try Self.exec(
                db,
                sql: """
                    INSERT INTO messages(channel_url, type, sender_id, message, custom_type, data, mention_type,
                      mentioned_user_ids, silent, is_op_msg, created_at, req_id, hidden_for, sorted_metaarray,
                      parent_message_id, reply_to_channel, files, og_tag)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT DO NOTHING
                    """,
                arguments: [
                    m.channelUrl, m.type, m.senderId, m.message, m.customType, m.data, m.mentionType,
                    Self.json(m.mentionedUserIds), m.silent, m.isOpMsg, m.createdAt, m.reqId, hiddenFor,
                    Self.json(m.sortedMetaarray), m.parentMessageId, m.replyToChannel, m.files, m.ogTag,
                ])
            // Only the unique index on (channel_url, sender_id, req_id) can refuse the row.
            if db.changesCount == 0 { return nil }
            noteUnindexed()
            let id = db.lastInsertedRowID
            try Self.exec(
                db, sql: "UPDATE group_channels SET last_message_id = ?, last_message_ts = ? WHERE channel_url = ?",
                arguments: [id, m.createdAt, m.channelUrl])
            return id
        } else {
            // Ephemeral: an id from the same sequence so ids stay unique, but no row is kept.
            try Self.exec(
                db, sql: "INSERT INTO messages(channel_url, type, created_at) VALUES (?, 'EPHM', ?)",
                arguments: [m.channelUrl, m.createdAt])
            let id = db.lastInsertedRowID
            try db.execute(sql: "DELETE FROM messages WHERE message_id = ?", arguments: [id])
            return id
        }
    }

    /// A new message from someone else counts as unread, as each member's count preference says,
    /// and the cached totals move with it. Not for a silent message (it only unhides:
    /// ``autoUnhide(_:_:blockedBy:)``, a statement of its own because `hidden_state` in this one
    /// would run the member-change trigger for every row).
    func countUnread(_ db: Database, _ m: NewMessage, blockers: [String], blockedBy: String, pending: PendingUnread? = nil) throws {
        if let counting = m.countingMembers {
            // The rows are not read back (RETURNING over a whole channel costs more than the
            // update): the cached totals move for the members the roster says count. In a batch
            // the rows are written at its end (``PendingUnread``).
            if let pending {
                pending.add(channel: m.channelUrl, sender: m.senderId, blockers: blockers)
            } else {
                try Self.exec(
                    db,
                    sql: """
                        UPDATE members SET unread_count = unread_count + 1
                        WHERE channel_url = ? AND state = 'joined' AND user_id IS NOT ?
                          AND count_preference IN ('all', 'unread_message_count_only')
                          AND user_id NOT IN (SELECT value FROM json_each(?))
                        """,
                    arguments: [m.channelUrl, m.senderId, blockedBy])
            }
            let type = m.channelCustomType
            totalsCache.withLock { cache in
                for uid in counting where uid != m.senderId && !blockers.contains(uid) {
                    guard var t = cache[uid] else { continue }
                    t.all += 1
                    if !type.isEmpty { t.customTypes[type, default: 0] += 1 }
                    cache[uid] = t
                }
            }
        } else {
            // The counts are read back: what the batch has pending here is written first.
            try pending?.write(db, channel: m.channelUrl)
            let bumped = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        UPDATE members SET unread_count = unread_count + 1
                        WHERE channel_url = ? AND state = 'joined' AND user_id IS NOT ?
                          AND count_preference IN ('all', 'unread_message_count_only')
                          AND user_id NOT IN (SELECT value FROM json_each(?))
                        RETURNING user_id, unread_count
                        """),
                arguments: [m.channelUrl, m.senderId, blockedBy])
            // Cached totals move by what this message added (a supergroup's count stops adding at 100).
            if !bumped.isEmpty,
                let info = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT is_super, custom_type FROM group_channels WHERE channel_url = ?"), arguments: [m.channelUrl])
            {
                let isSuper: Bool = info[0]
                let type: String = info[1]
                totalsCache.withLock { cache in
                    // By position (RETURNING user_id, unread_count): no column-name lookups.
                    for row in bumped {
                        let uid: String = row[0]
                        let count: Int = row[1]
                        guard !isSuper || count <= 100, var t = cache[uid] else { continue }
                        t.all += 1
                        if !type.isEmpty { t.customTypes[type, default: 0] += 1 }
                        cache[uid] = t
                    }
                }
            }
        }
    }

    /// Brings back the channel for members who hid it with auto-unhide (silent messages too).
    static func autoUnhide(_ db: Database, _ m: NewMessage, blockedBy: String) throws {
        try Self.exec(
            db,
            sql: """
                UPDATE members SET hidden_state = 'unhidden'
                WHERE channel_url = ? AND hidden_state = 'hidden_allow_auto_unhide' AND state = 'joined' AND user_id IS NOT ?
                  AND user_id NOT IN (SELECT value FROM json_each(?))
                """,
            arguments: [m.channelUrl, m.senderId, blockedBy])
    }

    /// Mentions count for the members mentioned (or all, for a channel mention) whose count
    /// preference takes mentions. Not for a silent message.
    static func countMentions(_ db: Database, _ m: NewMessage, blockedBy: String) throws {
        let mentionable = "count_preference IN ('all', 'unread_mention_count_only') AND user_id NOT IN (SELECT value FROM json_each(?))"
        if m.mentionType == "channel" {
            try Self.exec(
                db,
                sql:
                    "UPDATE members SET unread_mention_count = unread_mention_count + 1 WHERE channel_url = ? AND state = 'joined' AND user_id IS NOT ? AND \(mentionable)",
                arguments: [m.channelUrl, m.senderId, blockedBy])
        } else {
            for uid in Set(m.mentionedUserIds) where uid != m.senderId {
                try Self.exec(
                    db,
                    sql:
                        "UPDATE members SET unread_mention_count = unread_mention_count + 1 WHERE channel_url = ? AND user_id = ? AND state = 'joined' AND \(mentionable)",
                    arguments: [m.channelUrl, uid, blockedBy])
            }
        }
    }

    /// The sender has read their own message: their read receipt moves to it and their unread
    /// counts in the channel drop to zero.
    func markSenderRead(_ db: Database, _ m: NewMessage, sender: String, pending: PendingUnread? = nil) throws {
        // The sender's count is set to zero below: what the batch has pending for them is never
        // written, but their cached total moved by it and loses it with the rest.
        let pendingForSender = pending?.discard(channel: m.channelUrl, user: sender) ?? 0
        // Most often the sender has nothing unread here (their last message read it all): one update
        // moves the receipt, and no total changes.
        if pendingForSender == 0 {
            try Self.exec(
                db,
                sql: """
                    UPDATE members SET read_ts = max(read_ts, ?)
                    WHERE channel_url = ? AND user_id = ? AND unread_count = 0 AND unread_mention_count = 0
                    """,
                arguments: [m.createdAt, m.channelUrl, sender])
            if db.changesCount > 0 { return }
        }
        // The sender's unread count here drops to zero: their cached total loses what it counted.
        if totalsCache.withLock({ $0[sender] != nil }),
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT m.unread_count AS n, c.is_super AS s, c.custom_type AS t,
                          m.count_preference IN ('all', 'unread_message_count_only') AS counts
                        FROM members m
                        JOIN group_channels c ON c.channel_url = m.channel_url
                        WHERE m.channel_url = ? AND m.user_id = ? AND m.state = 'joined'
                        """),
                arguments: [m.channelUrl, sender])
        {
            // What was pending added to the row only where the member's preference counts messages.
            let n = (row["n"] as Int) + ((row["counts"] as Bool) ? pendingForSender : 0)
            let counted = (row["s"] as Bool) ? min(n, 100) : n
            let type: String = row["t"]
            totalsCache.withLock { cache in
                guard var t = cache[sender] else { return }
                t.all = max(0, t.all - counted)
                if !type.isEmpty, let c = t.customTypes[type] {
                    t.customTypes[type] = c - counted > 0 ? c - counted : nil
                }
                cache[sender] = t
            }
        } else {
            forgetTotals(sender)
        }
        try Self.exec(
            db, sql: "UPDATE members SET read_ts = max(read_ts, ?), unread_count = 0, unread_mention_count = 0 WHERE channel_url = ? AND user_id = ?",
            arguments: [m.createdAt, m.channelUrl, sender])
    }

    public func lastVisibleMessage(_ channelUrl: String, viewer: String, after: Int64) async throws -> MessageRecord? {
        try await pool.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT * FROM messages WHERE channel_url = ? AND created_at > ? AND (hidden_for IS NULL OR hidden_for <> ?)
                    ORDER BY created_at DESC, message_id DESC LIMIT 1
                    """,
                arguments: [channelUrl, after, viewer]
            ).map(Self.messageRecord)
        }
    }

    public func message(_ channelUrl: String, id: Int64) async throws -> MessageRecord? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM messages WHERE channel_url = ? AND message_id = ?", arguments: [channelUrl, id])
                .map(Self.messageRecord)
        }
    }

    public func messages(ids: [Int64]) async throws -> [MessageRecord] {
        if ids.isEmpty { return [] }
        return try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM messages WHERE message_id IN (\(Self.placeholders(ids.count)))",
                arguments: StatementArguments(ids)
            ).map(Self.messageRecord)
        }
    }

    public func messages(_ channelUrl: String, query q: MessageQuery) async throws -> [MessageRecord] {
        try await pool.read { db in
            func fetch(_ t: SQLText?) throws -> [MessageRecord] {
                guard let t else { return [] }
                return try Row.fetchAll(db, sql: t.sql, arguments: t.arguments).map(Self.messageRecord)
            }
            var anchorTs: Int64
            var anchorId: Int64?
            switch q.anchor {
            case .timestamp(let ts): (anchorTs, anchorId) = (ts, nil)
            case .messageId(let id):
                let t = MessagePageSQL.anchorTime(channelUrl: channelUrl, messageId: id)
                guard let ts = try Int64.fetchOne(db, sql: t.sql, arguments: t.arguments) else { throw SendbirdError.notFound("Message") }
                (anchorTs, anchorId) = (ts, id)
            }
            let page = MessagePageSQL(q, channelUrl: channelUrl, anchorTs: anchorTs, anchorId: anchorId, dialect: .sqlite)
            let prev = try fetch(page.prev)
            let prevTies = try fetch(page.prevTies(prev))
            let anchor = try fetch(page.anchor)
            let next = try fetch(page.next)
            return page.assemble(prev: prev, prevTies: prevTies, anchor: anchor, next: next, nextTies: try fetch(page.nextTies(next)))
        }
    }

    // MARK: - Threads, edits, deletions, reactions, link previews

    /// Counts a new reply on its parent: one more reply, the time, the replier first among the latest.
    static func addReply(_ db: Database, parentId: Int64, sender: String, at ms: Int64) throws -> MessageRecord? {
        guard let row = try Row.fetchOne(db, sql: "SELECT most_replies FROM messages WHERE message_id = ?", arguments: [parentId]) else {
            return nil
        }
        var most = decodeJSON(row["most_replies"] ?? "[]", as: [String].self, default: [])
        most.removeAll { $0 == sender }
        most.insert(sender, at: 0)
        try db.execute(
            sql: """
                UPDATE messages SET reply_count = reply_count + 1, last_replied_at = max(last_replied_at, ?), most_replies = ?,
                  changed_at = max(changed_at, ?) WHERE message_id = ?
                """,
            arguments: [ms, json(Array(most.prefix(10))), ms, parentId])
        return try Row.fetchOne(db, sql: "SELECT * FROM messages WHERE message_id = ?", arguments: [parentId]).map(messageRecord)
    }

    /// Recounts a parent's thread from its remaining replies.
    static func recountThread(_ db: Database, parentId: Int64, at ms: Int64) throws -> MessageRecord? {
        let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM messages WHERE parent_message_id = ?", arguments: [parentId]) ?? 0
        let last = try Int64.fetchOne(db, sql: "SELECT MAX(created_at) FROM messages WHERE parent_message_id = ?", arguments: [parentId]) ?? 0
        let senders = try String.fetchAll(
            db,
            sql: """
                SELECT sender_id FROM messages WHERE parent_message_id = ? AND sender_id IS NOT NULL
                GROUP BY sender_id ORDER BY MAX(created_at) DESC LIMIT 10
                """,
            arguments: [parentId])
        try db.execute(
            sql: "UPDATE messages SET reply_count = ?, last_replied_at = ?, most_replies = ?, changed_at = max(changed_at, ?) WHERE message_id = ?",
            arguments: [count, last, json(senders), ms, parentId])
        return try Row.fetchOne(db, sql: "SELECT * FROM messages WHERE message_id = ?", arguments: [parentId]).map(messageRecord)
    }

    public func updateMessage(_ channelUrl: String, id: Int64, _ change: MessageChange) async throws -> (old: MessageRecord, new: MessageRecord) {
        try await self.write { db in
            guard
                let old = try Row.fetchOne(db, sql: "SELECT * FROM messages WHERE channel_url = ? AND message_id = ?", arguments: [channelUrl, id])
                    .map(Self.messageRecord)
            else { throw SendbirdError(.notFound, "\"Message\" not found: \(id).") }
            let new = old.applying(change)
            try db.execute(
                sql: """
                    UPDATE messages SET message = ?, data = ?, custom_type = ?, mention_type = ?, mentioned_user_ids = ?,
                      sorted_metaarray = ?, updated_at = ?, changed_at = max(changed_at, ?) WHERE message_id = ?
                    """,
                arguments: [
                    new.message, new.data, new.customType, new.mentionType, Self.json(new.mentionedUserIds),
                    Self.json(new.sortedMetaarray), new.updatedAt, change.updatedAt, id,
                ])
            return (old, new)
        }
    }

    public func deleteMessage(_ channelUrl: String, id: Int64, at ms: Int64) async throws -> (deleted: MessageRecord, parent: MessageRecord?) {
        try await self.write { db in
            guard
                let m = try Row.fetchOne(db, sql: "SELECT * FROM messages WHERE channel_url = ? AND message_id = ?", arguments: [channelUrl, id])
                    .map(Self.messageRecord)
            else { throw SendbirdError(.notFound, "\"Message\" not found: \(id).") }
            try db.execute(sql: "DELETE FROM messages WHERE message_id = ?", arguments: [id])
            // Kept for message changelogs: clients that were away learn of the deletion.
            try db.execute(
                sql: "INSERT OR REPLACE INTO message_tombstones(channel_url, message_id, deleted_at) VALUES (?, ?, ?)",
                arguments: [channelUrl, id, ms])
            // The channel's last message moves back to the newest one left.
            let last = try Row.fetchOne(
                db, sql: "SELECT message_id, created_at FROM messages WHERE channel_url = ? ORDER BY created_at DESC, message_id DESC LIMIT 1",
                arguments: [channelUrl])
            try db.execute(
                sql:
                    "UPDATE group_channels SET last_message_id = ?, last_message_ts = ? WHERE channel_url = ? AND (last_message_id = ? OR last_message_id IS NULL)",
                arguments: [last?["message_id"] as Int64?, (last?["created_at"] as Int64?) ?? 0, channelUrl, id])
            let parent = m.parentMessageId != 0 ? try Self.recountThread(db, parentId: m.parentMessageId, at: ms) : nil
            return (m, parent)
        }
    }

    public func addReaction(_ messageId: Int64, key: String, userId: String, at ms: Int64) async throws -> Bool {
        try await self.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO reactions(message_id, key, user_id, updated_at) VALUES (?, ?, ?, ?)",
                arguments: [messageId, key, userId, ms])
            let changed = db.changesCount > 0
            if changed { try Self.touch(db, messageId, at: ms) }
            return changed
        }
    }

    public func deleteReaction(_ messageId: Int64, key: String, userId: String, at ms: Int64) async throws -> Bool {
        try await self.write { db in
            try db.execute(sql: "DELETE FROM reactions WHERE message_id = ? AND key = ? AND user_id = ?", arguments: [messageId, key, userId])
            let changed = db.changesCount > 0
            if changed { try Self.touch(db, messageId, at: ms) }
            return changed
        }
    }

    /// Marks a message changed at `ms` (for message changelogs).
    static func touch(_ db: Database, _ messageId: Int64, at ms: Int64) throws {
        try db.execute(sql: "UPDATE messages SET changed_at = max(changed_at, ?) WHERE message_id = ?", arguments: [ms, messageId])
    }

    public func messageChanges(_ channelUrl: String, after c: MessageChangeCursor, limit: Int) async throws
        -> (updated: [MessageRecord], deleted: [(id: Int64, at: Int64)])
    {
        try await pool.read { db in
            let changed = ChangelogSQL.updatedMessages(channelUrl, after: c, limit: limit)
            let updated = try Row.fetchAll(db, sql: changed.sql, arguments: changed.arguments).map(Self.messageRecord)
            let gone = ChangelogSQL.deletedMessages(channelUrl, after: c, limit: limit)
            let deleted = try Row.fetchAll(db, sql: gone.sql, arguments: gone.arguments).map {
                (id: $0["message_id"] as Int64, at: $0["deleted_at"] as Int64)
            }
            return (updated, deleted)
        }
    }

    public func reactionKeyCount(_ messageId: Int64) async throws -> Int {
        try await pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(DISTINCT key) FROM reactions WHERE message_id = ?", arguments: [messageId]) ?? 0
        }
    }

    public func reactions(_ messageIds: [Int64]) async throws -> [Int64: [ReactionRecord]] {
        if messageIds.isEmpty { return [:] }
        return try await pool.read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM reactions WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY updated_at, user_id",
                arguments: [Self.json(messageIds)])
            var out: [Int64: [ReactionRecord]] = [:]
            for r in rows {
                let rec = ReactionRecord(messageId: r["message_id"], key: r["key"], userId: r["user_id"], updatedAt: r["updated_at"])
                out[rec.messageId, default: []].append(rec)
            }
            return out
        }
    }

    public func setOGTag(_ messageId: Int64, _ json: String, updatedAt: Int64) async throws -> MessageRecord? {
        try await self.write { db in
            try db.execute(
                sql: "UPDATE messages SET og_tag = ?, changed_at = max(changed_at, ?) WHERE message_id = ?", arguments: [json, updatedAt, messageId])
            return try Row.fetchOne(db, sql: "SELECT * FROM messages WHERE message_id = ?", arguments: [messageId]).map(Self.messageRecord)
        }
    }
}
