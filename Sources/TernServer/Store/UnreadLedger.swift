import TernProtocol

/// The counters' rules of a send, free of any SQL dialect: what one new message does to the
/// member rows of its channel (unread and mention counts, auto-unhide, the sender's read
/// receipt), and the unread totals each member then has. A store reads the rows of a batch's
/// channels once, applies the batch's messages here in order, and writes back the rows that
/// changed in one statement, instead of several statements per message.
struct UnreadLedger: Sendable {
    /// One member row of a channel, as the batch leaves it.
    struct Member: Sendable, Equatable {
        var state: String
        var countPreference: String
        var hiddenState: String
        var unread: Int64
        var mentions: Int64
        var readTs: Int64
        var changed = false

        var countsMessages: Bool { countPreference == "all" || countPreference == "unread_message_count_only" }
        var countsMentions: Bool { countPreference == "all" || countPreference == "unread_mention_count_only" }
    }

    /// One group channel of the batch.
    struct Channel: Sendable, Equatable {
        var customType: String
        var isSuper: Bool
        var joinedMemberCount: Int64
        var lastMessageId: Int64
        /// The `created_at` of the channel's newest message: a new one is never older.
        var lastMessageTs: Int64 = 0
        var members: [String: Member] = [:]

        /// What this channel adds to a user's unread total: supergroups count at most 100.
        func contribution(of user: String) -> Int {
            guard let m = members[user], m.state == "joined", m.unread > 0 else { return 0 }
            return Int(isSuper ? min(m.unread, 100) : m.unread)
        }

        /// The joined members among `users`, in order (those blocking a sender, of all who block him).
        func joined(among users: [String]) -> [String] {
            users.filter { members[$0]?.state == "joined" }.sorted()
        }

        /// A 1:1 channel (not a supergroup, at most two joined) hides a message from a member who blocks its sender.
        func hiddenFor(blockers: [String]) -> String? {
            (!isSuper && joinedMemberCount <= 2) ? blockers.first : nil
        }

        /// Applies one new message from `sender` (nil: an admin message). Blockers are left out of
        /// counting and of auto-unhide; silent messages only unhide.
        mutating func apply(
            sender: String?, silent: Bool, mentionType: String, mentioned: [String], blockers: Set<String>, markSenderRead: Bool,
            createdAt: Int64
        ) {
            let mentionedSet = Set(mentioned)
            for (id, var m) in members where m.state == "joined" && id != sender && !blockers.contains(id) {
                var touched = false
                if !silent && m.countsMessages {
                    m.unread += 1
                    touched = true
                }
                if m.hiddenState == "hidden_allow_auto_unhide" {
                    m.hiddenState = "unhidden"
                    touched = true
                }
                if !silent && m.countsMentions && (mentionType == "channel" || mentionedSet.contains(id)) {
                    m.mentions += 1
                    touched = true
                }
                if touched {
                    m.changed = true
                    members[id] = m
                }
            }
            if markSenderRead, let sender, var m = members[sender] {
                m.readTs = max(m.readTs, createdAt)
                m.unread = 0
                m.mentions = 0
                m.changed = true
                members[sender] = m
            }
        }
    }

    /// The batch's channels, by URL.
    var channels: [String: Channel] = [:]
    /// Each user's unread totals over every channel outside the batch, by channel custom type
    /// ("" for none): `(all, by custom type)`.
    var outside: [String: (all: Int, byType: [String: Int])] = [:]

    /// Adds what a store read of a user's unread counts outside the batch: `n` in channels of custom type `type`.
    mutating func addOutside(_ user: String, type: String, count n: Int) {
        var o = outside[user] ?? (0, [:])
        o.all += n
        if !type.isEmpty { o.byType[type, default: 0] += n }
        outside[user] = o
    }

    /// The unread totals of `users` now (outside the batch, plus the batch's channels as they stand).
    func totals(_ users: [String], ts: Int64) -> [String: UnreadCount] {
        var out: [String: UnreadCount] = [:]
        out.reserveCapacity(users.count)
        for u in users {
            let o = outside[u]
            var t = UnreadCount(all: o?.all ?? 0, customTypes: o?.byType ?? [:], ts: ts)
            for c in channels.values {
                let n = c.contribution(of: u)
                guard n > 0 else { continue }
                t.all += n
                if !c.customType.isEmpty { t.customTypes[c.customType, default: 0] += n }
            }
            out[u] = t
        }
        return out
    }
}
