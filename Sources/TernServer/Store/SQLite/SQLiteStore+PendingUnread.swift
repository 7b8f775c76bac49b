import GRDB

/// The unread counts a group commit adds on SQLite, written once per channel when the batch ends
/// (issue 35 item 2; PostgreSQL's ``UnreadLedger`` does the same there).
///
/// Each counted message adds one to the unread count of every joined member whose count preference
/// takes messages, except its sender and the members who block the sender. Written message by
/// message, that is an `UPDATE` of 99 rows for each message into a 100-member channel: at 2,000
/// messages a second that statement was the writer's largest cost, and latency queued behind it.
/// Instead the batch keeps, per channel, how many messages counted and, per member, how many of
/// those do not count for them (their own, a blocked sender's) or are already written; at the end
/// one statement adds the count to every eligible member and one takes the exceptions back.
///
/// Whatever reads a member's count inside the batch is served first:
/// - the sender's read (``SQLiteStore/markSenderRead(_:_:sender:pending:)``) drops the sender's own
///   pending count (``discard(channel:user:)``): it sets their count to zero, and takes from their
///   cached total what the row had plus what was pending;
/// - a message without a roster (``SQLiteStore/countUnread(_:_:blockers:blockedBy:pending:)``'s
///   statement that reads the counts back) writes its channel's pending counts first;
/// - totals read from the database (a recipient not in the cache) write everything pending first.
///
/// A message refused inside its savepoint restores the ledger as it was before it
/// (``snapshot``/``restore(_:)``): what it added is rolled back with the rows it wrote.
final class PendingUnread {
    struct Channel {
        /// Messages counted in this channel since the last write.
        var counted = 0
        /// Per member: how many of those do not add to their count.
        var minus: [String: Int] = [:]
    }

    private(set) var channels: [String: Channel] = [:]

    var isEmpty: Bool { channels.isEmpty }

    /// A counted message: one more for every eligible member but its sender and its blockers.
    func add(channel: String, sender: String?, blockers: [String]) {
        var c = channels[channel, default: Channel()]
        c.counted += 1
        if let sender { c.minus[sender, default: 0] += 1 }
        for b in blockers where b != sender { c.minus[b, default: 0] += 1 }
        channels[channel] = c
    }

    var snapshot: [String: Channel] { channels }

    func restore(_ saved: [String: Channel]) { channels = saved }

    /// What is pending for `user` in `channel`, dropped: their count is about to be set to zero (their
    /// own message read the channel), so it is never written.
    func discard(channel: String, user: String) -> Int {
        guard var c = channels[channel] else { return 0 }
        let add = c.counted - c.minus[user, default: 0]
        guard add > 0 else { return 0 }
        c.minus[user] = c.counted
        channels[channel] = c
        return add
    }

    /// Writes everything pending for `channel`: the count to every eligible member, then the
    /// exceptions taken back (the same transaction: nobody sees the count in between).
    func write(_ db: Database, channel: String) throws {
        guard let c = channels.removeValue(forKey: channel), c.counted > 0 else { return }
        try SQLiteStore.exec(
            db,
            sql: """
                UPDATE members SET unread_count = unread_count + ?
                WHERE channel_url = ? AND state = 'joined' AND count_preference IN ('all', 'unread_message_count_only')
                """,
            arguments: [c.counted, channel])
        let exceptions = c.minus.filter { $0.value > 0 }
        if exceptions.isEmpty { return }
        try SQLiteStore.exec(
            db,
            sql: """
                UPDATE members SET unread_count = unread_count - j.value
                FROM json_each(?) AS j
                WHERE members.channel_url = ? AND members.user_id = j.key AND members.state = 'joined'
                  AND members.count_preference IN ('all', 'unread_message_count_only')
                """,
            arguments: [SQLiteStore.json(exceptions), channel])
    }

    /// Writes everything pending, every channel.
    func writeAll(_ db: Database) throws {
        for channel in Array(channels.keys) { try write(db, channel: channel) }
    }
}
