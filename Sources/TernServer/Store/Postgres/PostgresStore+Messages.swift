import Foundation
import PostgresNIO
import Synchronization
import TernProtocol

/// The last `ts` given to unread totals by any ``PostgresStore`` of this process (see
/// ``PostgresStore/messageTotals(_:_:hint:)``): it only has to increase.
let pgUnreadStamp = Mutex<Int64>(0)

/// Messages (``MessageStore``) on PostgreSQL: the send path, history, threads, edits, reactions,
/// link previews and the message changelog. A port of `SQLiteStore+Messages.swift`, without its
/// in-memory totals cache (several nodes write the same database): unread totals are read from
/// the rows each time (`PostgresStore+Receipts.swift`).
extension PostgresStore {
    public func insertMessage(_ m: NewMessage) async throws -> StoredMessage {
        try await insertMessages([m])[0].get()
    }

    /// Stores a batch, in order: a message refused by the rules fails alone.
    ///
    /// A batch of messages that are neither replies nor ephemeral is stored in one statement a
    /// channel (``insertByChannel(_:)``), its channel read before it
    /// (``sendInOneStatement(_:_:now:)``, `PostgresStore+Send.swift`): three round trips
    /// whatever its size, none of them while a lock is held. When the channel changed between
    /// the read and the statement, and for the others, the locked path.
    public func insertMessages(_ batch: [NewMessage]) async throws -> [Result<StoredMessage, any Error>] {
        if batch.isEmpty { return [] }
        let fast = batch.allSatisfy { $0.persist && $0.parentMessageId == 0 }
        // One statement a channel, the channels at once.
        if fast, let first = batch.first?.channelUrl, batch.contains(where: { $0.channelUrl != first }) {
            return await insertByChannel(batch)
        }
        if fast {
            let now = setsClock ? clock.nowMs() : nil
            do {
                if let stored = try await read({ db in try await Self.sendInOneStatement(db, batch, now: now) }) { return stored }
            } catch let error as PostgresStoreError where error.isRetryable || error.refusesStatement {
                // A deadlock, or a statement PostgreSQL refused (it wrote nothing): the locked
                // path retries, or stores the batch a message at a time.
            }
        }
        return try await insertLocked(batch)
    }

    /// A batch of several channels, each channel's messages stored on their own connection at
    /// the same time: a channel whose lock another node holds (or whose statement is slow)
    /// holds up only its own messages. Each keeps its order; the answers come in the batch's.
    func insertByChannel(_ batch: [NewMessage]) async -> [Result<StoredMessage, any Error>] {
        var byChannel: [String: [Int]] = [:]
        for (i, m) in batch.enumerated() { byChannel[m.channelUrl, default: []].append(i) }
        var out = [Result<StoredMessage, any Error>?](repeating: nil, count: batch.count)
        await withTaskGroup(of: ([Int], [Result<StoredMessage, any Error>]).self) { group in
            for indices in byChannel.values {
                group.addTask {
                    do {
                        return (indices, try await self.insertMessages(indices.map { batch[$0] }))
                    } catch {
                        return (indices, indices.map { _ in .failure(error) })
                    }
                }
            }
            for await (indices, results) in group {
                for (i, r) in zip(indices, results) { out[i] = r }
            }
        }
        return out.map { $0 ?? .failure(SendbirdError(.internalError, "The message could not be stored.")) }
    }

    /// Group commit on the locked path: every message of the batch in one transaction, in
    /// order. The batch's channels are locked, their member rows read once and their counters
    /// moved in memory (``UnreadLedger``), then written back in one statement. A statement
    /// PostgreSQL refuses aborts the transaction, and the batch is then stored one message per
    /// transaction, so that only the offending one fails.
    func insertLocked(_ batch: [NewMessage]) async throws -> [Result<StoredMessage, any Error>] {
        do {
            return try await write { db in try await Self.insertBatch(db, batch) }
        } catch let error as PostgresStoreError where batch.count > 1 && error.refusesStatement {
            var out: [Result<StoredMessage, any Error>] = []
            for m in batch {
                do {
                    out.append(try await write { db in try await Self.insertBatch(db, [m]) }[0])
                } catch {
                    out.append(.failure(error))
                }
            }
            return out
        }
    }

    /// Stores a batch inside a write transaction (see ``insertMessages(_:)``).
    ///
    /// Round trips, each of which a slow link to the database multiplies: `BEGIN`; the channels'
    /// locks with everything that does not depend on them; the channels' member rows; one insert
    /// per message; the counters; `COMMIT`.
    static func insertBatch(_ db: PGConnection, _ batch: [NewMessage]) async throws -> [Result<StoredMessage, any Error>] {
        let urls = Array(Set(batch.map(\.channelUrl))).sorted()
        var ledger = UnreadLedger()
        // Who blocks each sender (seed 003): the message does not count for them, and in a 1:1
        // channel it is never shown to them.
        let blockersOf = try await lockChannels(
            db, urls, readingBlockersOf: Array(Set(batch.compactMap(\.senderId))).sorted(),
            totalsOf: batch.flatMap(\.totalsFor), into: &ledger)
        try await readChannels(db, urls, into: &ledger)
        var newest: [String: (id: Int64, ts: Int64)] = [:]
        var out: [Result<StoredMessage, any Error>] = []
        out.reserveCapacity(batch.count)
        for m in batch {
            do {
                out.append(.success(try await insertOne(db, m, ledger: &ledger, blockersOf: blockersOf, newest: &newest)))
            } catch let e as SendbirdError {
                out.append(.failure(e))
            }
        }
        let counters = CounterWrite(ledger: ledger, newest: newest)
        if !counters.isEmpty { try await db.execute(counters.statement, counters.arguments) }
        return out
    }

    /// Takes the write locks of a batch's channels, in one order so that two nodes' batches
    /// cannot deadlock, and in the same round trip reads what does not depend on them (it may
    /// be read before the locks are held): who blocks each of `senders`, and the unread totals
    /// of `users` outside the batch's channels (those are counted as they move).
    static func lockChannels(
        _ db: PGConnection, _ urls: [String], readingBlockersOf senders: [String], totalsOf users: [String],
        into ledger: inout UnreadLedger
    ) async throws -> [String: [String]] {
        var blockersOf: [String: [String]] = [:]
        for row in try await db.fetchAll(
            """
            SELECT 'b' AS k, blocked_id AS a, blocker_id AS b, 0::bigint AS n FROM blocks WHERE blocked_id = ANY(?)
            UNION ALL
            SELECT 't', o.u, o.t, o.n FROM (\(outsideTotalsSQL)) AS o
            UNION ALL
            SELECT 'l', NULL, NULL, COUNT(*) FROM (
              SELECT pg_advisory_xact_lock(hashtextextended(s.url, 0))
              FROM (SELECT url FROM unnest(?::text[]) AS url ORDER BY url OFFSET 0) AS s) AS l
            """, [senders, Array(Set(users)).sorted(), urls, urls])
        {
            switch try row["k"] as String {
            case "b": blockersOf[try row["a"], default: []].append(try row["b"])
            case "t": ledger.addOutside(try row["a"], type: try row["b"], count: Int(try row["n"] as Int64))
            default: break
            }
        }
        return blockersOf
    }

    /// Reads the batch's group channels and their member rows (under the batch's locks, so the
    /// rows are the newest), the member rows locked as the counters' UPDATE would lock them, so
    /// that what is written back is what was read. A channel without members (or an open
    /// channel) is read on its own.
    static func readChannels(_ db: PGConnection, _ urls: [String], into ledger: inout UnreadLedger) async throws {
        func channel(_ row: PGRow) throws -> UnreadLedger.Channel {
            UnreadLedger.Channel(
                customType: try row["custom_type"], isSuper: try row["is_super"], joinedMemberCount: try row["joined_member_count"],
                lastMessageId: (try row["last_message_id"] as Int64?) ?? 0, lastMessageTs: (try row["last_message_ts"] as Int64?) ?? 0)
        }
        for row in try await db.fetchAll(
            """
            SELECT g.channel_url, g.custom_type, g.is_super, g.joined_member_count, g.last_message_id, g.last_message_ts,
              m.user_id, m.state, m.count_preference, m.hidden_state, m.unread_count, m.unread_mention_count, m.read_ts
            FROM group_channels g JOIN members m ON m.channel_url = g.channel_url
            WHERE g.channel_url = ANY(?) ORDER BY g.channel_url, m.user_id FOR UPDATE OF m
            """, [urls])
        {
            let url: String = try row["channel_url"]
            if ledger.channels[url] == nil { ledger.channels[url] = try channel(row) }
            ledger.channels[url]?.members[try row["user_id"]] = UnreadLedger.Member(
                state: try row["state"], countPreference: try row["count_preference"], hiddenState: try row["hidden_state"],
                unread: try row["unread_count"], mentions: try row["unread_mention_count"], readTs: try row["read_ts"])
        }
        let memberless = urls.filter { ledger.channels[$0] == nil }
        if !memberless.isEmpty {
            for row in try await db.fetchAll(
                """
                SELECT channel_url, custom_type, is_super, joined_member_count, last_message_id, last_message_ts
                FROM group_channels WHERE channel_url = ANY(?)
                """, [memberless])
            {
                ledger.channels[try row["channel_url"]] = try channel(row)
            }
        }
    }

    /// What a batch changes besides its messages, written in one statement: each group
    /// channel's newest message, and the member rows whose counters moved (``UnreadLedger``).
    struct CounterWrite {
        var urls: [String] = []
        var ids: [String] = []
        var ts: [String] = []
        var memberUrls: [String] = []
        var members: [String] = []
        var unread: [String] = []
        var mentions: [String] = []
        var hidden: [String] = []
        var readTs: [String] = []

        init(ledger: UnreadLedger, newest: [String: (id: Int64, ts: Int64)]) {
            for url in newest.keys.sorted() {
                urls.append(url)
                ids.append(String(newest[url]!.id))
                ts.append(String(newest[url]!.ts))
            }
            for url in ledger.channels.keys.sorted() {
                for (id, m) in ledger.channels[url]?.members ?? [:] where m.changed {
                    memberUrls.append(url)
                    members.append(id)
                    unread.append(String(m.unread))
                    mentions.append(String(m.mentions))
                    hidden.append(m.hiddenState)
                    readTs.append(String(m.readTs))
                }
            }
        }

        var isEmpty: Bool { urls.isEmpty && members.isEmpty }

        /// The statement: both updates, one CTE each.
        var statement: String {
            """
            WITH channels AS (
              UPDATE group_channels g SET last_message_id = v.id, last_message_ts = v.ts
              FROM unnest(?::text[], ?::text[]::bigint[], ?::text[]::bigint[]) AS v(url, id, ts)
              WHERE g.channel_url = v.url RETURNING 1
            ), counters AS (
              UPDATE members m SET unread_count = v.u, unread_mention_count = v.n, hidden_state = v.h, read_ts = v.r
              FROM unnest(?::text[], ?::text[], ?::text[]::bigint[], ?::text[]::bigint[], ?::text[], ?::text[]::bigint[])
                AS v(c, id, u, n, h, r)
              WHERE m.channel_url = v.c AND m.user_id = v.id RETURNING 1
            )
            SELECT 1
            """
        }

        var arguments: [any PGBindable] { [urls, ids, ts, memberUrls, members, unread, mentions, hidden, readTs] }
    }

    /// Stores one new message of a batch (its channel locked, its counters in `ledger`).
    static func insertOne(
        _ db: PGConnection, _ m: NewMessage, ledger: inout UnreadLedger, blockersOf: [String: [String]],
        newest: inout [String: (id: Int64, ts: Int64)]
    ) async throws -> StoredMessage {
        var (m, record, blockers) = prepare(m, ledger: ledger, blockersOf: blockersOf, newest: newest)
        let channel = ledger.channels[m.channelUrl]
        // A reply: its parent is in this channel and is not a reply itself.
        if m.parentMessageId != 0 {
            guard
                let parent = try await db.fetchOne(
                    "SELECT parent_message_id FROM messages WHERE message_id = ? AND channel_url = ?",
                    [m.parentMessageId, m.channelUrl])
            else { throw SendbirdError(.notFound, "\"Message\" not found: \(m.parentMessageId) (the parent).") }
            if (try parent["parent_message_id"] as Int64) != 0 {
                throw SendbirdError(.invalidValue, "Invalid value: a reply cannot be a parent (\(m.parentMessageId) is a reply).")
            }
        }
        let previous = newest[m.channelUrl]?.id ?? channel?.lastMessageId
        if m.persist {
            // The same `(channel, sender, req_id)` stored before (a retry): the insert does nothing
            // and the original is returned.
            let insert = insertStatement(m, hiddenFor: record.hiddenFor)
            guard let id = try await db.scalar(insert.sql, insert.arguments, as: Int64.self) else {
                return try await original(db, of: m)
            }
            record.messageId = id
            if channel != nil { newest[m.channelUrl] = (id, m.createdAt) }
        } else {
            // Ephemeral: an id from the same sequence so ids stay unique, but no row is kept.
            guard
                let id = try await db.scalar(
                    "SELECT nextval(pg_get_serial_sequence('messages', 'message_id'))", [], as: Int64.self)
            else { throw SendbirdError(.internalError, "No message id.") }
            record.messageId = id
        }
        apply(m, blockers: blockers, to: &ledger)
        var parent: MessageRecord?
        if m.parentMessageId != 0, m.persist, let sender = m.senderId {
            parent = try await addReply(db, parentId: m.parentMessageId, sender: sender, at: m.createdAt)
        }
        return StoredMessage(
            message: record, duplicate: false, totals: totals(m, ledger), parent: parent, previousMessageId: m.persist ? previous : nil)
    }

    /// A new message as it will be stored: its time (never older than its channel's newest), its
    /// record (id still 0), and the joined members who block its sender.
    static func prepare(
        _ m: NewMessage, ledger: UnreadLedger, blockersOf: [String: [String]], newest: [String: (id: Int64, ts: Int64)]
    ) -> (NewMessage, MessageRecord, blockers: [String]) {
        var m = m
        let channel = ledger.channels[m.channelUrl]
        // A channel's messages are stored in time order as in id order: a message committed
        // after another (several nodes, each with its own clock) is never older than it.
        if let channel, m.stampedNow { m.createdAt = max(m.createdAt, newest[m.channelUrl]?.ts ?? channel.lastMessageTs) }
        var record = MessageRecord(
            messageId: 0, channelUrl: m.channelUrl, type: m.type, senderId: m.senderId, message: m.message,
            customType: m.customType, data: m.data, mentionType: m.mentionType, mentionedUserIds: m.mentionedUserIds,
            silent: m.silent, isOpMsg: m.isOpMsg, createdAt: m.createdAt, updatedAt: 0, parentMessageId: m.parentMessageId,
            reqId: m.reqId, sortedMetaarray: m.sortedMetaarray, replyToChannel: m.replyToChannel, ogTag: m.ogTag, files: m.files)
        let blockers = m.senderId.flatMap { blockersOf[$0] }.map { channel?.joined(among: $0) ?? [] } ?? []
        record.hiddenFor = channel?.hiddenFor(blockers: blockers)
        return (m, record, blockers)
    }

    /// The insert of a persisted message, returning its id; it does nothing for a `(channel,
    /// sender, req_id)` stored before. It also tells the message trigger whether the sender is
    /// held to the flood limits.
    static func insertStatement(_ m: NewMessage, hiddenFor: String?) -> (sql: String, arguments: [any PGBindable]) {
        (
            """
            INSERT INTO messages(channel_url, type, sender_id, message, custom_type, data, mention_type,
              mentioned_user_ids, silent, is_op_msg, created_at, req_id, hidden_for, sorted_metaarray,
              parent_message_id, reply_to_channel, files, og_tag)
            SELECT ?, ?, ?::text, ?, ?, ?, ?, ?, ?, ?, ?, ?::text, ?::text, ?, ?, ?, ?::text, ?::text
            FROM (SELECT set_config('tern.flood', ?, true)) AS flood
            ON CONFLICT DO NOTHING
            RETURNING message_id
            """,
            [
                m.channelUrl, m.type, m.senderId, m.message, m.customType, m.data, m.mentionType,
                json(m.mentionedUserIds), m.silent, m.isOpMsg, m.createdAt, m.reqId, hiddenFor,
                json(m.sortedMetaarray), m.parentMessageId, m.replyToChannel, m.files, m.ogTag,
                m.floodLimited ? "1" : "0",
            ]
        )
    }

    /// What a message does to its channel's counters (``UnreadLedger``).
    static func apply(_ m: NewMessage, blockers: [String], to ledger: inout UnreadLedger) {
        ledger.channels[m.channelUrl]?.apply(
            sender: m.senderId, silent: m.silent, mentionType: m.mentionType, mentioned: m.mentionedUserIds,
            blockers: Set(blockers), markSenderRead: m.markSenderRead, createdAt: m.createdAt)
    }

    /// The unread totals `m` asks for, as `ledger` now has them.
    static func totals(_ m: NewMessage, _ ledger: UnreadLedger) -> [String: UnreadCount] {
        if m.totalsFor.isEmpty { return [:] }
        let ts = pgUnreadStamp.withLock { last in
            last = max(last + 1, m.createdAt)
            return last
        }
        return ledger.totals(m.totalsFor, ts: ts)
    }

    /// The message stored before for a retry's `(channel, sender, req_id)`, as a duplicate.
    static func original(_ db: PGConnection, of m: NewMessage) async throws -> StoredMessage {
        if let req = m.reqId, let sender = m.senderId, let original = try await duplicateOf(db, m.channelUrl, sender: sender, reqId: req) {
            return StoredMessage(message: original, duplicate: true, totals: [:])
        }
        throw SendbirdError(.internalError, "The message could not be stored.")
    }

    /// The message already stored for `(channel, sender, req_id)`, if any.
    static func duplicateOf(_ db: PGConnection, _ channelUrl: String, sender: String, reqId: String) async throws -> MessageRecord? {
        try await db.fetchOne(
            "SELECT * FROM messages WHERE channel_url = ? AND sender_id = ? AND req_id = ?", [channelUrl, sender, reqId]
        ).map(messageRecord)
    }

    /// Counts a new reply on its parent: one more reply, the time, the replier first among the latest.
    static func addReply(_ db: PGConnection, parentId: Int64, sender: String, at ms: Int64) async throws -> MessageRecord? {
        guard let row = try await db.fetchOne("SELECT most_replies FROM messages WHERE message_id = ?", [parentId]) else {
            return nil
        }
        var most = decodeJSON((try row["most_replies"] as String?) ?? "[]", as: [String].self, default: [])
        most.removeAll { $0 == sender }
        most.insert(sender, at: 0)
        try await db.execute(
            """
            UPDATE messages SET reply_count = reply_count + 1, last_replied_at = GREATEST(last_replied_at, ?), most_replies = ?,
              changed_at = GREATEST(changed_at, ?) WHERE message_id = ?
            """,
            [ms, json(Array(most.prefix(10))), ms, parentId])
        return try await db.fetchOne("SELECT * FROM messages WHERE message_id = ?", [parentId]).map(messageRecord)
    }

    /// Recounts a parent's thread from its remaining replies.
    static func recountThread(_ db: PGConnection, parentId: Int64, at ms: Int64) async throws -> MessageRecord? {
        let count = try await db.scalar("SELECT COUNT(*) FROM messages WHERE parent_message_id = ?", [parentId], as: Int64.self) ?? 0
        let last = try await db.scalar("SELECT MAX(created_at) FROM messages WHERE parent_message_id = ?", [parentId], as: Int64.self) ?? 0
        let senders = try await db.column(
            """
            SELECT sender_id FROM messages WHERE parent_message_id = ? AND sender_id IS NOT NULL
            GROUP BY sender_id ORDER BY MAX(created_at) DESC, MAX(message_id) DESC LIMIT 10
            """,
            [parentId], as: String.self)
        try await db.execute(
            """
            UPDATE messages SET reply_count = ?, last_replied_at = ?, most_replies = ?, changed_at = GREATEST(changed_at, ?)
            WHERE message_id = ?
            """,
            [count, last, json(senders), ms, parentId])
        return try await db.fetchOne("SELECT * FROM messages WHERE message_id = ?", [parentId]).map(messageRecord)
    }

    public func message(_ channelUrl: String, id: Int64) async throws -> MessageRecord? {
        try await read { db in
            try await db.fetchOne("SELECT * FROM messages WHERE channel_url = ? AND message_id = ?", [channelUrl, id])
                .map(Self.messageRecord)
        }
    }

    public func messages(ids: [Int64]) async throws -> [MessageRecord] {
        if ids.isEmpty { return [] }
        return try await read { db in
            try await db.fetchAll(
                "SELECT * FROM messages WHERE message_id = ANY(?::bigint[]) ORDER BY message_id", [ids.map { String($0) }]
            ).map(Self.messageRecord)
        }
    }

    public func lastVisibleMessage(_ channelUrl: String, viewer: String, after: Int64) async throws -> MessageRecord? {
        try await read { db in
            try await db.fetchOne(
                """
                SELECT * FROM messages WHERE channel_url = ? AND created_at > ? AND (hidden_for IS NULL OR hidden_for <> ?)
                ORDER BY created_at DESC, message_id DESC LIMIT 1
                """,
                [channelUrl, after, viewer]
            ).map(Self.messageRecord)
        }
    }

    public func messages(_ channelUrl: String, query q: MessageQuery) async throws -> [MessageRecord] {
        try await read { db in
            func fetch(_ t: SQLText?) async throws -> [MessageRecord] {
                guard let t else { return [] }
                return try await db.fetchAll(t).map(Self.messageRecord)
            }
            var anchorTs: Int64
            var anchorId: Int64?
            switch q.anchor {
            case .timestamp(let ts): (anchorTs, anchorId) = (ts, nil)
            case .messageId(let id):
                let t = MessagePageSQL.anchorTime(channelUrl: channelUrl, messageId: id)
                guard let ts = try await db.scalar(t.sql, t.bindables, as: Int64.self) else { throw SendbirdError.notFound("Message") }
                (anchorTs, anchorId) = (ts, id)
            }
            let page = MessagePageSQL(q, channelUrl: channelUrl, anchorTs: anchorTs, anchorId: anchorId, dialect: .postgres)
            let prev = try await fetch(page.prev)
            let prevTies = try await fetch(page.prevTies(prev))
            let anchor = try await fetch(page.anchor)
            let next = try await fetch(page.next)
            let nextTies = try await fetch(page.nextTies(next))
            return page.assemble(prev: prev, prevTies: prevTies, anchor: anchor, next: next, nextTies: nextTies)
        }
    }

    public func updateMessage(_ channelUrl: String, id: Int64, _ change: MessageChange) async throws -> (old: MessageRecord, new: MessageRecord) {
        try await write { db in
            try await Self.lockChannel(db, channelUrl)
            guard
                let old = try await db.fetchOne("SELECT * FROM messages WHERE channel_url = ? AND message_id = ?", [channelUrl, id])
                    .map(Self.messageRecord)
            else { throw SendbirdError(.notFound, "\"Message\" not found: \(id).") }
            let new = old.applying(change)
            try await db.execute(
                """
                UPDATE messages SET message = ?, data = ?, custom_type = ?, mention_type = ?, mentioned_user_ids = ?,
                  sorted_metaarray = ?, updated_at = ?, changed_at = GREATEST(changed_at, ?) WHERE message_id = ?
                """,
                [
                    new.message, new.data, new.customType, new.mentionType, Self.json(new.mentionedUserIds),
                    Self.json(new.sortedMetaarray), new.updatedAt, change.updatedAt, id,
                ])
            return (old, new)
        }
    }

    public func deleteMessage(_ channelUrl: String, id: Int64, at ms: Int64) async throws -> (deleted: MessageRecord, parent: MessageRecord?) {
        try await write { db in
            try await Self.lockChannel(db, channelUrl)
            guard
                let m = try await db.fetchOne("SELECT * FROM messages WHERE channel_url = ? AND message_id = ?", [channelUrl, id])
                    .map(Self.messageRecord)
            else { throw SendbirdError(.notFound, "\"Message\" not found: \(id).") }
            try await db.execute("DELETE FROM messages WHERE message_id = ?", [id])
            // Kept for message changelogs: clients that were away learn of the deletion.
            try await db.execute(
                """
                INSERT INTO message_tombstones(channel_url, message_id, deleted_at) VALUES (?, ?, ?)
                ON CONFLICT (channel_url, message_id) DO UPDATE SET deleted_at = EXCLUDED.deleted_at
                """,
                [channelUrl, id, ms])
            // The channel's last message moves back to the newest one left.
            let last = try await db.fetchOne(
                "SELECT message_id, created_at FROM messages WHERE channel_url = ? ORDER BY created_at DESC, message_id DESC LIMIT 1",
                [channelUrl])
            let lastId: Int64? = try last.map { try $0["message_id"] }
            let lastTs: Int64 = try last.map { try $0["created_at"] } ?? 0
            try await db.execute(
                """
                UPDATE group_channels SET last_message_id = ?::bigint, last_message_ts = ?
                WHERE channel_url = ? AND (last_message_id = ? OR last_message_id IS NULL)
                """,
                [lastId, lastTs, channelUrl, id])
            let parent = m.parentMessageId != 0 ? try await Self.recountThread(db, parentId: m.parentMessageId, at: ms) : nil
            return (m, parent)
        }
    }

    public func addReaction(_ messageId: Int64, key: String, userId: String, at ms: Int64) async throws -> Bool {
        try await write { db in
            let changed =
                try await db.execute(
                    "INSERT INTO reactions(message_id, key, user_id, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    [messageId, key, userId, ms]) > 0
            if changed { try await Self.touchMessage(db, messageId, at: ms) }
            return changed
        }
    }

    public func deleteReaction(_ messageId: Int64, key: String, userId: String, at ms: Int64) async throws -> Bool {
        try await write { db in
            let changed =
                try await db.execute(
                    "DELETE FROM reactions WHERE message_id = ? AND key = ? AND user_id = ?", [messageId, key, userId]) > 0
            if changed { try await Self.touchMessage(db, messageId, at: ms) }
            return changed
        }
    }

    /// Marks a message changed at `ms` (for message changelogs).
    static func touchMessage(_ db: PGConnection, _ messageId: Int64, at ms: Int64) async throws {
        try await db.execute("UPDATE messages SET changed_at = GREATEST(changed_at, ?) WHERE message_id = ?", [ms, messageId])
    }

    public func reactionKeyCount(_ messageId: Int64) async throws -> Int {
        try await read { db in
            Int(try await db.scalar("SELECT COUNT(DISTINCT key) FROM reactions WHERE message_id = ?", [messageId], as: Int64.self) ?? 0)
        }
    }

    public func reactions(_ messageIds: [Int64]) async throws -> [Int64: [ReactionRecord]] {
        if messageIds.isEmpty { return [:] }
        return try await read { db in
            let rows = try await db.fetchAll(
                """
                SELECT message_id, key, user_id, updated_at FROM reactions WHERE message_id = ANY(?::bigint[])
                ORDER BY updated_at, user_id, message_id, key
                """,
                [messageIds.map { String($0) }])
            var out: [Int64: [ReactionRecord]] = [:]
            for r in rows {
                let rec = ReactionRecord(
                    messageId: try r["message_id"], key: try r["key"], userId: try r["user_id"], updatedAt: try r["updated_at"])
                out[rec.messageId, default: []].append(rec)
            }
            return out
        }
    }

    public func setOGTag(_ messageId: Int64, _ json: String, updatedAt: Int64) async throws -> MessageRecord? {
        try await write { db in
            try await db.execute(
                "UPDATE messages SET og_tag = ?, changed_at = GREATEST(changed_at, ?) WHERE message_id = ?", [json, updatedAt, messageId])
            return try await db.fetchOne("SELECT * FROM messages WHERE message_id = ?", [messageId]).map(Self.messageRecord)
        }
    }

    public func messageChanges(_ channelUrl: String, after c: MessageChangeCursor, limit: Int) async throws
        -> (updated: [MessageRecord], deleted: [(id: Int64, at: Int64)])
    {
        try await read { db in
            let updated = try await db.fetchAll(ChangelogSQL.updatedMessages(channelUrl, after: c, limit: limit)).map(Self.messageRecord)
            let deleted = try await db.fetchAll(ChangelogSQL.deletedMessages(channelUrl, after: c, limit: limit)).map {
                (id: try $0["message_id"] as Int64, at: try $0["deleted_at"] as Int64)
            }
            return (updated, deleted)
        }
    }
}
