import Foundation
import PostgresNIO
import TernProtocol

/// The send path's one statement on PostgreSQL: a batch of one channel's messages stored by
/// `tern_send` (`PostgresSchema` "pg-v10"), with the counters decided here by ``UnreadLedger``
/// from the channel as read just before. The locked path (`PostgresStore+Messages.swift`) stays
/// for replies, ephemeral messages, retries and a batch whose channel changed under it.
extension PostgresStore {
    /// Stores `batch` (one channel's messages) in three round trips, none of them under a lock:
    /// 1. the channel, its members, the senders' blockers and the unread totals asked for outside
    ///    the channel, read as they stand (unlocked), with what the counters' decisions rest on
    ///    (`tern_send_basis`, `tern_blocks_basis`);
    /// 2. `tern_send`, which takes the channel's lock, checks that basis and that no message is a
    ///    retry, stores the messages and writes each member row once, as increments, answering
    ///    each message's id, previous message and time;
    /// 3. one more statement, answered only once the second one's transaction has committed (a
    ///    statement's rows come before its commit): nothing is acknowledged before it is on disk.
    ///
    /// Each message's recipients get their totals as they stood after it, from the ledger.
    /// Nil: the channel (or a block) changed between 1 and 2, or a message is a retry; nothing
    /// was written.
    static func sendInOneStatement(_ db: PGConnection, _ batch: [NewMessage], now: Int64?) async throws
        -> [Result<StoredMessage, any Error>]?
    {
        guard let url = batch.first?.channelUrl, batch.allSatisfy({ $0.channelUrl == url }) else { return nil }
        // Two sends of one request in a batch: the second is a retry, for the locked path.
        let requests = batch.compactMap { m in m.reqId.map { "\(m.senderId ?? "")\u{0}\($0)" } }
        if Set(requests).count != requests.count { return nil }
        let senders = Array(Set(batch.compactMap(\.senderId))).sorted()
        let users = Array(Set(batch.flatMap(\.totalsFor))).sorted()
        let read = try await readBasis(db, url: url, senders: senders, totalsFor: users)
        var ledger = read.ledger
        var call = SendCall()
        var prepared: [(NewMessage, MessageRecord, totals: [String: UnreadCount])] = []
        var newest: [String: (id: Int64, ts: Int64)] = [:]
        for (index, m) in batch.enumerated() {
            let (m, record, blockers) = prepare(m, ledger: ledger, blockersOf: read.blockersOf, newest: newest)
            let before = ledger.channels[url]?.members ?? [:]
            apply(m, blockers: blockers, to: &ledger)
            if ledger.channels[url] != nil { newest[url] = (0, m.createdAt) }
            call.add(m, index: index + 1, hiddenFor: record.hiddenFor, before: before, after: ledger.channels[url]?.members ?? [:])
            // Its recipients' totals as they stand after it (no copy of the ledger kept a message).
            prepared.append((m, record, totals(m, ledger)))
        }
        var stored: [Int: (id: Int64, previous: Int64?, at: Int64)] = [:]
        for row in try await db.fetchAll(
            prepared: SendCall.Statement.self,
            call.arguments(url: url, basis: read.basis, senders: senders, blocksBasis: read.blocksBasis, now: now))
        {
            if try row["out_kind"] as String == "changed" { return nil }
            stored[Int(try row["out_index"] as Int32) - 1] = (try row["out_id"], try row["out_previous"], try row["out_at"])
        }
        // Answered once the statement above has committed.
        try await db.execute("SELECT 1")
        return prepared.enumerated().map { index, item -> Result<StoredMessage, any Error> in
            var (_, record, counts) = item
            guard let s = stored[index] else { return .failure(SendbirdError(.internalError, "The message could not be stored.")) }
            record.messageId = s.id
            record.createdAt = s.at
            return .success(
                StoredMessage(
                    message: record, duplicate: false, totals: counts, parent: nil,
                    previousMessageId: read.ledger.channels[url] == nil ? nil : s.previous ?? 0))
        }
    }

    /// What step 1 of ``sendInOneStatement(_:_:now:)`` read.
    struct SendBasis {
        var ledger = UnreadLedger()
        var blockersOf: [String: [String]] = [:]
        var basis = ""
        var blocksBasis = ""
    }

    /// The channel (if a group channel) with its member rows, the senders' blockers, the unread
    /// totals of `users` outside it and the bases, in one statement (one snapshot).
    static func readBasis(_ db: PGConnection, url: String, senders: [String], totalsFor users: [String]) async throws -> SendBasis {
        var read = SendBasis()
        var channel: UnreadLedger.Channel?
        var members: [String: UnreadLedger.Member] = [:]
        for row in try await db.fetchAll(prepared: BasisRead.self, [url, senders, url, url, senders, users, [url]]) {
            switch try row["k"] as String {
            case "s":
                read.basis = try row["a"]
                read.blocksBasis = try row["b"]
            case "c":
                channel = UnreadLedger.Channel(
                    customType: try row["a"], isSuper: (try row["i"] as Int64) == 1, joinedMemberCount: try row["j"],
                    lastMessageId: try row["l"], lastMessageTs: try row["o"])
            case "m":
                members[try row["a"]] = UnreadLedger.Member(
                    state: try row["b"], countPreference: try row["c"], hiddenState: try row["d"], unread: try row["i"],
                    mentions: try row["j"], readTs: try row["l"])
            case "t": read.ledger.addOutside(try row["a"], type: try row["b"], count: Int(try row["i"] as Int64))
            default: read.blockersOf[try row["a"], default: []].append(try row["b"])
            }
        }
        if var channel {
            channel.members = members
            read.ledger.channels[url] = channel
        }
        return read
    }

    /// The statement of ``readBasis(_:url:senders:totalsFor:)``.
    enum BasisRead: PGPreparedText {
        static let sql = PGConnection.numbered(
            """
            SELECT 's' AS k, tern_send_basis(?) AS a, tern_blocks_basis(?::text[]) AS b, NULL::text AS c, NULL::text AS d,
              0::bigint AS i, 0::bigint AS j, 0::bigint AS l, 0::bigint AS o
            UNION ALL SELECT 'c', custom_type, NULL, NULL, NULL, CASE WHEN is_super THEN 1 ELSE 0 END, joined_member_count::bigint,
              COALESCE(last_message_id, 0)::bigint, COALESCE(last_message_ts, 0)::bigint
            FROM group_channels WHERE channel_url = ?
            UNION ALL SELECT 'm', user_id, state, count_preference, hidden_state, unread_count::bigint,
              unread_mention_count::bigint, read_ts::bigint, 0
            FROM members WHERE channel_url = ?
            UNION ALL SELECT 'b', blocked_id, blocker_id, NULL, NULL, 0, 0, 0, 0 FROM blocks WHERE blocked_id = ANY(?)
            UNION ALL SELECT 't', u, t, NULL, NULL, n, 0, 0, 0 FROM tern_unread_totals(?, ?)
            """)
    }

    /// The arguments of `tern_send`: the messages' columns, and each member row's change over
    /// the whole batch.
    struct SendCall {
        var type: [String] = []
        var sender: [String?] = []
        var message: [String] = []
        var customType: [String] = []
        var data: [String] = []
        var mentionType: [String] = []
        var mentioned: [String] = []
        var silent: [String] = []
        var isOp: [String] = []
        var createdAt: [String] = []
        var reqId: [String?] = []
        var hiddenFor: [String?] = []
        var metaarray: [String] = []
        var replyToChannel: [String] = []
        var files: [String?] = []
        var ogTag: [String?] = []
        var stamped: [String] = []
        var flood: [String] = []
        /// A member row's change: reset to zero by a message its member sent (`read`, the last
        /// such message's index), then the increments after it; the hidden state at the end.
        struct Change {
            var reset = false
            var unread: Int64 = 0
            var mentions: Int64 = 0
            var hidden = ""
            var read = 0
        }
        var changes: [String: Change] = [:]

        /// Adds message number `index` (from 1); `before` and `after` are its channel's member
        /// rows around it (``UnreadLedger``).
        mutating func add(
            _ m: NewMessage, index: Int, hiddenFor: String?, before: [String: UnreadLedger.Member],
            after: [String: UnreadLedger.Member]
        ) {
            type.append(m.type)
            sender.append(m.senderId)
            message.append(m.message)
            customType.append(m.customType)
            data.append(m.data)
            mentionType.append(m.mentionType)
            mentioned.append(PostgresStore.json(m.mentionedUserIds))
            silent.append(String(m.silent))
            isOp.append(String(m.isOpMsg))
            createdAt.append(String(m.createdAt))
            reqId.append(m.reqId)
            self.hiddenFor.append(hiddenFor)
            metaarray.append(PostgresStore.json(m.sortedMetaarray))
            replyToChannel.append(String(m.replyToChannel))
            files.append(m.files)
            ogTag.append(m.ogTag)
            stamped.append(String(m.stampedNow))
            flood.append(m.floodLimited ? "1" : "0")
            for (id, now) in after {
                guard let was = before[id] else { continue }
                if m.markSenderRead && id == m.senderId {
                    changes[id] = Change(reset: true, hidden: now.hiddenState, read: index)
                } else if now.unread != was.unread || now.mentions != was.mentions || now.hiddenState != was.hiddenState {
                    var change = changes[id] ?? Change()
                    change.unread += now.unread - was.unread
                    change.mentions += now.mentions - was.mentions
                    change.hidden = now.hiddenState
                    changes[id] = change
                }
            }
        }

        /// The call of `tern_send`, its arguments as ``arguments(url:basis:senders:blocksBasis:now:)`` gives them.
        enum Statement: PGPreparedText {
            static let sql: String = {
                let texts = "ARRAY(SELECT e FROM jsonb_array_elements_text(?::jsonb) WITH ORDINALITY AS t(e, o) ORDER BY o)"
                return PGConnection.numbered(
                    """
                    SELECT out_index, out_kind, out_id, out_previous, out_at FROM tern_send(?, ?, ?, ?, ?::text,
                      ?, \(texts), ?, ?, ?, ?, ?, ?::text[]::boolean[], ?::text[]::boolean[], ?::text[]::bigint[], \(texts), \(texts), ?,
                      ?::text[]::boolean[], \(texts), \(texts), ?::text[]::boolean[], ?,
                      ?, ?::text[]::boolean[], ?::text[]::bigint[], ?::text[]::bigint[], ?, ?::text[]::int[])
                    """)
            }()
        }

        func arguments(url: String, basis: String, senders: [String], blocksBasis: String, now: Int64?) -> [any PGBindable] {
            let ids = changes.keys.sorted()
            let rows = ids.map { changes[$0]! }
            return [
                url, basis, senders, blocksBasis, now.map(String.init),
                type, OptionalTexts(sender), message, customType, data, mentionType, mentioned, silent, isOp, createdAt,
                OptionalTexts(reqId), OptionalTexts(hiddenFor), metaarray, replyToChannel, OptionalTexts(files), OptionalTexts(ogTag),
                stamped, flood,
                ids, rows.map { String($0.reset) }, rows.map { String($0.unread) }, rows.map { String($0.mentions) },
                rows.map(\.hidden), rows.map { String($0.read) },
            ]
        }
    }
}

/// Binds as a JSON array of strings and nulls, which the statement turns into a `text[]` with
/// NULL elements.
struct OptionalTexts: PGBindable {
    let values: [String?]
    init(_ values: [String?]) { self.values = values }
    func bind(into b: inout PostgresBindings) { b.append(PostgresStore.json(values)) }
}
