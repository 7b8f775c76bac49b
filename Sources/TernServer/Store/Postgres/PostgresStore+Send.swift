import Foundation
import PostgresNIO
import TernProtocol

/// The send path's one statement on PostgreSQL: a batch of messages stored by `tern_send`
/// (`PostgresSchema` "pg-v10"), with the counters decided here by ``UnreadLedger`` from the
/// channels as read just before. The locked path (`PostgresStore+Messages.swift`) stays for
/// replies, ephemeral messages and a batch whose channels changed under it.
extension PostgresStore {
    /// Stores `batch` in three round trips, none of them under a lock:
    /// 1. its channels, their members and the senders' blockers, read as they stand (unlocked),
    ///    with what the counters' decisions rest on (`tern_send_basis`, `tern_blocks_basis`);
    /// 2. `tern_send`, which takes the channels' locks, checks that basis, and stores each
    ///    message with its decided increments, answering each one's id, time and totals;
    /// 3. one more statement, answered only once the second one's transaction has committed
    ///    (a statement's rows come before its commit): nothing is acknowledged before it is on
    ///    disk.
    ///
    /// Nil: a channel (or a block) changed between 1 and 2; nothing was written.
    static func sendInOneStatement(_ db: PGConnection, _ batch: [NewMessage], now: Int64?) async throws
        -> [Result<StoredMessage, any Error>]?
    {
        let urls = Array(Set(batch.map(\.channelUrl))).sorted()
        let senders = Array(Set(batch.compactMap(\.senderId))).sorted()
        let read = try await readBasis(db, urls: urls, senders: senders)
        var ledger = read.ledger
        var call = SendCall()
        var records: [MessageRecord] = []
        var newest: [String: (id: Int64, ts: Int64)] = [:]
        for m in batch {
            let (m, record, blockers) = prepare(m, ledger: ledger, blockersOf: read.blockersOf, newest: newest)
            let before = ledger.channels[m.channelUrl]?.members ?? [:]
            apply(m, blockers: blockers, to: &ledger)
            if ledger.channels[m.channelUrl] != nil { newest[m.channelUrl] = (0, m.createdAt) }
            call.add(m, hiddenFor: record.hiddenFor, before: before, after: ledger.channels[m.channelUrl]?.members ?? [:])
            records.append(record)
        }
        var stored: [Int: (id: Int64, previous: Int64?, at: Int64)] = [:]
        var storedBefore: Set<Int> = []
        var counted: [Int: UnreadLedger] = [:]
        for row in try await db.fetchAll(
            call.sql,
            call.arguments(
                urls: urls, bases: urls.map { read.bases[$0] ?? "" },
                senders: senders, blocksBasis: read.blocksBasis, now: now))
        {
            let index = Int(try row["out_index"] as Int32) - 1
            switch try row["out_kind"] as String {
            case "changed": return nil
            case "stored before": storedBefore.insert(index)
            case "stored":
                let previous: String? = try row["out_b"]
                stored[index] = (Int64(try row["out_a"] as String) ?? 0, previous.flatMap { Int64($0) }, try row["out_n"])
            default:
                counted[index, default: UnreadLedger()].addOutside(try row["out_a"], type: try row["out_b"], count: Int(try row["out_n"] as Int64))
            }
        }
        // Answered once the statement above has committed.
        try await db.execute("SELECT 1")
        var out: [Result<StoredMessage, any Error>] = []
        out.reserveCapacity(batch.count)
        for (index, var m) in batch.enumerated() {
            if storedBefore.contains(index) {
                do {
                    out.append(.success(try await original(db, of: m)))
                } catch {
                    out.append(.failure(error))
                }
                continue
            }
            guard let s = stored[index] else {
                out.append(.failure(SendbirdError(.internalError, "The message could not be stored.")))
                continue
            }
            var record = records[index]
            record.messageId = s.id
            record.createdAt = s.at
            m.createdAt = s.at
            out.append(
                .success(
                    StoredMessage(
                        message: record, duplicate: false, totals: totals(m, counted[index] ?? UnreadLedger()), parent: nil,
                        previousMessageId: read.ledger.channels[m.channelUrl] == nil ? nil : s.previous ?? 0)))
        }
        return out
    }

    /// What step 1 of ``sendInOneStatement(_:_:now:)`` read.
    struct SendBasis {
        var ledger = UnreadLedger()
        var blockersOf: [String: [String]] = [:]
        var bases: [String: String] = [:]
        var blocksBasis = ""
    }

    /// The batch's group channels with their member rows, the senders' blockers and the bases,
    /// in one statement (one snapshot).
    static func readBasis(_ db: PGConnection, urls: [String], senders: [String]) async throws -> SendBasis {
        var read = SendBasis()
        var members: [(url: String, id: String, member: UnreadLedger.Member)] = []
        for row in try await db.fetchAll(
            """
            SELECT 's' AS k, u AS a, tern_send_basis(u) AS b, NULL::text AS c, NULL::text AS d, NULL::text AS e,
              0::bigint AS i, 0::bigint AS j, 0::bigint AS l, 0::bigint AS o
            FROM unnest(?::text[]) AS u
            UNION ALL SELECT 'x', tern_blocks_basis(?::text[]), NULL, NULL, NULL, NULL, 0, 0, 0, 0
            UNION ALL SELECT 'c', channel_url, custom_type, NULL, NULL, NULL, CASE WHEN is_super THEN 1 ELSE 0 END,
              joined_member_count::bigint, COALESCE(last_message_id, 0)::bigint, COALESCE(last_message_ts, 0)::bigint
            FROM group_channels WHERE channel_url = ANY(?)
            UNION ALL SELECT 'm', channel_url, user_id, state, count_preference, hidden_state, unread_count::bigint,
              unread_mention_count::bigint, read_ts::bigint, 0
            FROM members WHERE channel_url = ANY(?)
            UNION ALL SELECT 'b', blocked_id, blocker_id, NULL, NULL, NULL, 0, 0, 0, 0 FROM blocks WHERE blocked_id = ANY(?)
            """, [urls, senders, urls, urls, senders])
        {
            switch try row["k"] as String {
            case "s": read.bases[try row["a"]] = try row["b"]
            case "x": read.blocksBasis = try row["a"]
            case "c":
                read.ledger.channels[try row["a"]] = UnreadLedger.Channel(
                    customType: try row["b"], isSuper: (try row["i"] as Int64) == 1, joinedMemberCount: try row["j"],
                    lastMessageId: try row["l"], lastMessageTs: try row["o"])
            case "m":
                members.append(
                    (
                        try row["a"], try row["b"],
                        UnreadLedger.Member(
                            state: try row["c"], countPreference: try row["d"], hiddenState: try row["e"], unread: try row["i"],
                            mentions: try row["j"], readTs: try row["l"])
                    ))
            default: read.blockersOf[try row["a"], default: []].append(try row["b"])
            }
        }
        for (url, id, member) in members { read.ledger.channels[url]?.members[id] = member }
        return read
    }

    /// The arguments of `tern_send`, a message at a time: its columns, the increments it makes
    /// to its channel's member rows, and whose totals it answers.
    struct SendCall {
        var url: [String] = []
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
        var deltaStart: [String] = []
        var deltaCount: [String] = []
        var deltaMember: [String] = []
        var deltaUnread: [String] = []
        var deltaMentions: [String] = []
        var deltaHidden: [String] = []
        var deltaReads: [String] = []
        var totalsStart: [String] = []
        var totalsCount: [String] = []
        var totalsUser: [String] = []

        /// Adds `m`; `before` and `after` are its channel's member rows around it (``UnreadLedger``).
        mutating func add(
            _ m: NewMessage, hiddenFor: String?, before: [String: UnreadLedger.Member], after: [String: UnreadLedger.Member]
        ) {
            url.append(m.channelUrl)
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
            deltaStart.append(String(deltaMember.count + 1))
            var count = 0
            for (id, now) in after.sorted(by: { $0.key < $1.key }) {
                guard let was = before[id] else { continue }
                let reads = m.markSenderRead && id == m.senderId
                guard reads || now.unread != was.unread || now.mentions != was.mentions || now.hiddenState != was.hiddenState else {
                    continue
                }
                deltaMember.append(id)
                deltaUnread.append(String(now.unread - was.unread))
                deltaMentions.append(String(now.mentions - was.mentions))
                deltaHidden.append(now.hiddenState)
                deltaReads.append(String(reads))
                count += 1
            }
            deltaCount.append(String(count))
            let users = Array(Set(m.totalsFor)).sorted()
            totalsStart.append(String(totalsUser.count + 1))
            totalsCount.append(String(users.count))
            totalsUser.append(contentsOf: users)
        }

        var sql: String {
            let texts = "ARRAY(SELECT e FROM jsonb_array_elements_text(?::jsonb) WITH ORDINALITY AS t(e, o) ORDER BY o)"
            return """
                SELECT out_index, out_kind, out_a, out_b, out_n FROM tern_send(?, ?, ?, ?, ?::text,
                  ?, ?, \(texts), ?, ?, ?, ?, ?, ?::text[]::boolean[], ?::text[]::boolean[], ?::text[]::bigint[], \(texts), \(texts), ?,
                  ?::text[]::boolean[], \(texts), \(texts), ?::text[]::boolean[], ?,
                  ?::text[]::int[], ?::text[]::int[], ?, ?::text[]::bigint[], ?::text[]::bigint[], ?, ?::text[]::boolean[],
                  ?::text[]::int[], ?::text[]::int[], ?)
                """
        }

        func arguments(urls: [String], bases: [String], senders: [String], blocksBasis: String, now: Int64?) -> [any PGBindable] {
            [
                urls, bases, senders, blocksBasis, now.map(String.init),
                url, type, OptionalTexts(sender), message, customType, data, mentionType, mentioned, silent, isOp, createdAt,
                OptionalTexts(reqId), OptionalTexts(hiddenFor), metaarray, replyToChannel, OptionalTexts(files), OptionalTexts(ogTag),
                stamped, flood,
                deltaStart, deltaCount, deltaMember, deltaUnread, deltaMentions, deltaHidden, deltaReads,
                totalsStart, totalsCount, totalsUser,
            ]
        }
    }
}

/// Binds as a JSON array of strings and nulls, which the statement turns into a `text[]` with
/// NULL elements (`tern_texts`).
struct OptionalTexts: PGBindable {
    let values: [String?]
    init(_ values: [String?]) { self.values = values }
    func bind(into b: inout PostgresBindings) { b.append(PostgresStore.json(values)) }
}
