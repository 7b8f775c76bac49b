public import TernProtocol

/// The channels the engine knows and the user's unread total, as a value: every server event is
/// applied by one function here, so the counting rules are testable without a socket.
public struct ChannelStore: Sendable, Equatable {
    public private(set) var channels: [String: GroupChannel] = [:]
    /// The user's unread messages over all channels: the server's figure from `LOGI` (or a newer
    /// `unread_cnt`), moved by the events applied since.
    public private(set) var totalUnread: Int = 0
    /// The `ts` of the server figure `totalUnread` rests on; older figures are ignored.
    public private(set) var totalUnreadTs: Millis = 0
    /// The signed-in user.
    public var me: String
    /// Users the current user blocks: their messages never count as unread (seed 003).
    public var blocked: Set<String> = []
    /// A supergroup's unread count stops here (`LOGI` `max_unread_cnt_on_super_group`).
    public var maxUnreadOnSuper = 100

    public init(me: String) { self.me = me }

    /// Channels by latest activity, newest first.
    public var ordered: [GroupChannel] {
        channels.values.sorted(by: GroupChannel.newerFirst)
    }

    /// Channels with at least one unread message.
    public var unreadChannelCount: Int { channels.values.filter { $0.unreadMessageCount > 0 }.count }

    public subscript(url: String) -> GroupChannel? { channels[url] }

    /// A server figure for the total (`unread_cnt` on a frame); ignored if older than the one held,
    /// so figures that arrive out of order never move the total back.
    @discardableResult
    public mutating func setTotal(_ count: UnreadCount) -> Bool {
        guard count.ts >= totalUnreadTs else { return false }
        let changed = totalUnread != count.all
        totalUnread = count.all
        totalUnreadTs = count.ts
        return changed
    }

    /// The figure of a new login (`LOGI`): it starts the count again, whatever came before.
    public mutating func resetTotal(_ count: UnreadCount) {
        totalUnread = count.all
        totalUnreadTs = count.ts
    }

    /// Moves the total by `delta` when the server sent no figure of its own with the event.
    mutating func adjustTotal(_ delta: Int, server: UnreadCount?) {
        if let server { setTotal(server) } else { totalUnread = max(0, totalUnread + delta) }
    }

    /// The server's view of one channel replaces ours. Returns true if it was new.
    @discardableResult
    public mutating func upsert(_ channel: GroupChannel) -> Bool {
        let isNew = channels[channel.url] == nil
        var c = channel
        if let old = channels[channel.url] {
            // Receipts only move forward; a stale fetch must not undo an event already applied.
            c.readReceipt.merge(old.readReceipt, uniquingKeysWith: max)
            c.deliveryReceipt.merge(old.deliveryReceipt, uniquingKeysWith: max)
            // (A last message the user's history no longer has — reset or hidden with it — stays gone.)
            if let oldLast = old.lastMessage, (c.lastMessage?.createdAt ?? 0) < oldLast.createdAt, oldLast.createdAt > c.messageOffset {
                // The answer was read before messages already applied here: its unread counts are older than
                // ours (which counted them), as its last message is.
                c.lastMessage = oldLast
                c.unreadMessageCount = old.unreadMessageCount
                c.unreadMentionCount = old.unreadMentionCount
            }
        }
        channels[channel.url] = c
        return isNew
    }

    /// The channel leaves the list. `server` is the user's total the event came with (leave, hide);
    /// without one, the channel's unread count comes off the total.
    public mutating func remove(_ url: String, server: UnreadCount? = nil) {
        guard let c = channels.removeValue(forKey: url) else { return }
        adjustTotal(-c.unreadMessageCount, server: server)
    }

    /// What applying a message changed.
    public struct MessageEffect: Sendable, Equatable {
        /// The channel is not known yet: fetch it (its server view already counts this message).
        public var unknownChannel = false
        public var unreadChanged = false
        public var lastMessageChanged = false
    }

    /// A message arrived from the server (sent by anyone, ourselves on another device included).
    /// `viewing` says the user has the channel open, so it does not count as unread. `server` is the
    /// user's total that came with it (`unread_cnt`), which then replaces counting locally.
    ///
    /// What counts follows the server's rules: not our own messages, not silent ones, not those of
    /// users we block; the channel's count preference decides between messages and mentions; a
    /// supergroup stops at ``maxUnreadOnSuper``.
    public mutating func applyIncoming(_ message: Message, viewing: Bool, server: UnreadCount? = nil) -> MessageEffect {
        var effect = MessageEffect()
        let fromOthers = message.sender?.userId != me
        let blockedSender = message.sender.map { blocked.contains($0.userId) } ?? false
        let counts = fromOthers && !message.silent && !viewing && !blockedSender
        guard var c = channels[message.channelUrl] else {
            effect.unknownChannel = true
            if let server {
                effect.unreadChanged = setTotal(server)
            } else if counts {
                totalUnread += 1
                effect.unreadChanged = true
            }
            return effect
        }
        if message.createdAt >= (c.lastMessage?.createdAt ?? 0) {
            c.lastMessage = message
            effect.lastMessageChanged = true
        }
        if let sender = message.sender?.userId, !c.isSuper {
            // The sender has read up to their own message (the server moves their receipt at send).
            c.readReceipt[sender] = max(c.readReceipt[sender] ?? 0, message.createdAt)
        }
        var added = 0
        if counts {
            if c.countsMessages {
                let cap = c.isSuper ? maxUnreadOnSuper : Int.max
                if c.unreadMessageCount < cap {
                    c.unreadMessageCount += 1
                    added = 1
                }
            }
            if c.countsMentions, message.mentions(me) { c.unreadMentionCount += 1 }
        }
        let before = totalUnread
        adjustTotal(added, server: server)
        effect.unreadChanged = added > 0 || before != totalUnread || (counts && c.countsMentions && message.mentions(me))
        channels[message.channelUrl] = c
        return effect
    }

    /// A message changed: the channel's last message follows. Returns whether the channel changed.
    public mutating func applyUpdated(_ message: Message) -> Bool {
        guard var c = channels[message.channelUrl], c.lastMessage?.messageId == message.messageId, message.messageId > 0 else { return false }
        c.lastMessage = message
        channels[message.channelUrl] = c
        return true
    }

    /// A message was deleted. Returns true when it was the channel's last message (which is now
    /// unknown until the channel is read again).
    public mutating func applyDeleted(url: String, id: Int64) -> Bool {
        guard var c = channels[url], c.lastMessage?.messageId == id else { return false }
        c.lastMessage = nil
        channels[url] = c
        return true
    }

    /// A message we sent was stored (the server's acknowledgement).
    public mutating func applySent(_ message: Message) {
        guard var c = channels[message.channelUrl] else { return }
        if message.createdAt >= (c.lastMessage?.createdAt ?? 0) { c.lastMessage = message }
        c.readReceipt[me] = max(c.readReceipt[me] ?? 0, message.createdAt)
        channels[message.channelUrl] = c
    }

    /// A `READ`: `userId` read `url` up to `ts`. For the current user (any device) the channel's
    /// unread counts drop to zero. Returns whether anything changed.
    @discardableResult
    public mutating func applyRead(url: String, userId: String, ts: Millis, server: UnreadCount? = nil) -> Bool {
        guard var c = channels[url] else {
            if userId == me, let server { return setTotal(server) }
            return false
        }
        var changed = false
        if (c.readReceipt[userId] ?? 0) < ts, !c.isSuper {
            c.readReceipt[userId] = ts
            changed = true
        }
        if userId == me {
            let before = totalUnread
            adjustTotal(-c.unreadMessageCount, server: server)
            if c.unreadMessageCount > 0 || c.unreadMentionCount > 0 || before != totalUnread { changed = true }
            c.unreadMessageCount = 0
            c.unreadMentionCount = 0
        }
        channels[url] = c
        return changed
    }

    /// A `DLVR`: delivery receipts that moved.
    @discardableResult
    public mutating func applyDelivery(url: String, updated: [String: Millis]) -> Bool {
        guard var c = channels[url] else { return false }
        var changed = false
        for (user, ts) in updated where (c.deliveryReceipt[user] ?? 0) < ts {
            c.deliveryReceipt[user] = ts
            changed = true
        }
        channels[url] = c
        return changed
    }

    /// `MCNT`: member counts that moved.
    public mutating func applyMemberCount(url: String, memberCount: Int, joinedMemberCount: Int) -> Bool {
        guard var c = channels[url], c.memberCount != memberCount || c.joinedMemberCount != joinedMemberCount else { return false }
        c.memberCount = memberCount
        c.joinedMemberCount = joinedMemberCount
        channels[url] = c
        return true
    }
}
