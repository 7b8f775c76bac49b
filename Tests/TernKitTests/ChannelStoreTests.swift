import TernProtocol
import Testing

@testable import TernKit

/// The channel list's counts, receipts and names as a value (State/ChannelStore.swift).
@Suite("Channel store (value type: unread counts, totals, receipts, names)")
struct ChannelStoreTests {
    let bob = User(userId: "bob", nickname: "Bob")
    let carol = User(userId: "carol")

    func channel(_ url: String, members: [String], unread: Int = 0) -> GroupChannel {
        var c = GroupChannel(url: url, name: "", members: members.map { Member(user: User(userId: $0)) })
        c.unreadMessageCount = unread
        return c
    }

    func message(_ id: Int64, from sender: String, in url: String = "c", at ts: Millis, mentions: [String] = []) -> Message {
        Message(messageId: id, channelUrl: url, text: "m\(id)", sender: User(userId: sender), createdAt: ts, mentionedUserIds: mentions)
    }

    @Test func unreadCountsFollowMessagesAndReads() {
        var s = ChannelStore(me: "me")
        _ = s.setTotal(UnreadCount(all: 2, ts: 100))
        s.upsert(channel("c", members: ["me", "bob"], unread: 2))
        s.upsert(channel("d", members: ["me", "carol"]))
        // From someone else: counts, in the channel and in the total.
        var e = s.applyIncoming(message(1, from: "bob", at: 200, mentions: ["me"]), viewing: false)
        #expect(e.unreadChanged && e.lastMessageChanged && !e.unknownChannel)
        #expect(s["c"]?.unreadMessageCount == 3 && s["c"]?.unreadMentionCount == 1 && s.totalUnread == 3)
        // Our own (from another device) and messages in a channel on screen do not count.
        e = s.applyIncoming(message(2, from: "me", at: 300), viewing: false)
        #expect(!e.unreadChanged)
        e = s.applyIncoming(message(3, from: "carol", in: "d", at: 400), viewing: true)
        #expect(!e.unreadChanged && s.totalUnread == 3)
        #expect(s.ordered.map(\.url) == ["d", "c"])
        #expect(s.unreadChannelCount == 1)
        // Reading on any device clears the channel and takes it off the total.
        expectTrue(s.applyRead(url: "c", userId: "me", ts: 500))
        #expect(s["c"]?.unreadMessageCount == 0 && s["c"]?.unreadMentionCount == 0 && s.totalUnread == 0)
        // An older server total is ignored, a newer one is taken.
        expectTrue(!s.setTotal(UnreadCount(all: 9, ts: 50)))
        expectTrue(s.setTotal(UnreadCount(all: 4, ts: 600)) && s.totalUnread == 4)
    }

    @Test func serverTotalsReplaceLocalCountingAndNeverGoBack() {
        var s = ChannelStore(me: "me")
        s.resetTotal(UnreadCount(all: 1, ts: 100))
        s.upsert(channel("c", members: ["me", "bob"], unread: 1))
        // A message that carries the server's total: the channel counts it, the total is the server's (not +1 again).
        _ = s.applyIncoming(message(1, from: "bob", at: 200), viewing: false, server: UnreadCount(all: 2, ts: 110))
        #expect(s["c"]?.unreadMessageCount == 2 && s.totalUnread == 2)
        // A READ of our own with its total: not subtracted a second time.
        _ = s.applyRead(url: "c", userId: "me", ts: 300, server: UnreadCount(all: 0, ts: 120))
        #expect(s["c"]?.unreadMessageCount == 0 && s.totalUnread == 0)
        // Out of order: a figure older than the one held changes nothing, also when it comes with a message.
        _ = s.applyIncoming(message(2, from: "bob", at: 400), viewing: false, server: UnreadCount(all: 7, ts: 115))
        #expect(s.totalUnread == 0 && s.totalUnreadTs == 120 && s["c"]?.unreadMessageCount == 1)
        #expect(!s.setTotal(UnreadCount(all: 5, ts: 119)) && s.totalUnread == 0)
        // A new login starts again from its own figure, even with a smaller ts (a restarted server).
        s.resetTotal(UnreadCount(all: 3, ts: 1))
        #expect(s.totalUnread == 3 && s.setTotal(UnreadCount(all: 4, ts: 2)))
        // A removal that came with the server's figure does not subtract on top of it.
        s.remove("c", server: UnreadCount(all: 0, ts: 3))
        #expect(s.totalUnread == 0)
    }

    @Test func lastMessageAndCountsSurviveStaleFetchesButNotAHistoryReset() {
        var s = ChannelStore(me: "me")
        s.upsert(channel("c", members: ["me", "bob"]))
        _ = s.applyIncoming(message(1, from: "bob", at: 100), viewing: false)
        _ = s.applyIncoming(message(2, from: "bob", at: 110, mentions: ["me"]), viewing: false)
        #expect(s["c"]?.unreadMessageCount == 2 && s["c"]?.unreadMentionCount == 1)
        // A fetch that started before the messages arrived takes away neither them nor what they counted
        // (its counts are as old as its last message).
        var stale = channel("c", members: ["me", "bob"], unread: 1)
        stale.lastMessage = message(1, from: "bob", at: 100)
        s.upsert(stale)
        #expect(s["c"]?.lastMessage?.messageId == 2)
        #expect(s["c"]?.unreadMessageCount == 2 && s["c"]?.unreadMentionCount == 1)
        s.upsert(channel("c", members: ["me", "bob"]))
        #expect(s["c"]?.lastMessage?.messageId == 2 && s["c"]?.unreadMessageCount == 2)
        // One read after them is the server's view, counts included (read elsewhere meanwhile).
        var current = channel("c", members: ["me", "bob"], unread: 0)
        current.lastMessage = message(2, from: "bob", at: 110)
        s.upsert(current)
        #expect(s["c"]?.unreadMessageCount == 0 && s["c"]?.unreadMentionCount == 0)
        // After a reset of the user's history the server's view (no last message) wins.
        _ = s.applyIncoming(message(3, from: "bob", at: 120), viewing: false)
        var reset = channel("c", members: ["me", "bob"])
        reset.messageOffset = 150
        s.upsert(reset)
        #expect(s["c"]?.lastMessage == nil && s["c"]?.unreadMessageCount == 0)
    }

    @Test func countPreferencesBlocksAndSupergroupsDecideWhatCounts() {
        var s = ChannelStore(me: "me")
        var off = channel("off", members: ["me", "bob"])
        off.countPreference = "off"
        var mentions = channel("mentions", members: ["me", "bob"])
        mentions.countPreference = "unread_mention_count_only"
        var sup = channel("super", members: ["me", "bob"], unread: 99)
        sup.isSuper = true
        for c in [off, mentions, sup, channel("g", members: ["me", "bob", "mallory"])] { s.upsert(c) }
        s.resetTotal(UnreadCount(all: 99, ts: 1))
        _ = s.applyIncoming(message(1, from: "bob", in: "off", at: 10, mentions: ["me"]), viewing: false)
        #expect(s["off"]?.unreadMessageCount == 0 && s["off"]?.unreadMentionCount == 0)
        _ = s.applyIncoming(message(2, from: "bob", in: "mentions", at: 11), viewing: false)
        _ = s.applyIncoming(message(3, from: "bob", in: "mentions", at: 12, mentions: ["me"]), viewing: false)
        #expect(s["mentions"]?.unreadMessageCount == 0 && s["mentions"]?.unreadMentionCount == 1)
        var everyone = message(4, from: "bob", in: "g", at: 13)
        everyone.mentionType = "channel"
        _ = s.applyIncoming(everyone, viewing: false)
        #expect(s["g"]?.unreadMessageCount == 1 && s["g"]?.unreadMentionCount == 1, "a channel mention mentions me")
        s.blocked = ["mallory"]
        _ = s.applyIncoming(message(5, from: "mallory", in: "g", at: 14, mentions: ["me"]), viewing: false)
        #expect(s["g"]?.unreadMessageCount == 1 && s["g"]?.unreadMentionCount == 1, "a blocked sender never counts")
        for i in 0..<3 { _ = s.applyIncoming(message(10 + Int64(i), from: "bob", in: "super", at: 20 + Int64(i)), viewing: false) }
        #expect(s["super"]?.unreadMessageCount == 100, "supergroups stop at 100")
        #expect(s.totalUnread == 101)
        // Supergroups keep no read receipts.
        _ = s.applyRead(url: "super", userId: "bob", ts: 50)
        #expect(s["super"]?.readReceipt.isEmpty == true)
    }

    @Test func unknownChannelCountsInTheTotal() {
        var s = ChannelStore(me: "me")
        let e = s.applyIncoming(message(1, from: "bob", in: "new", at: 10), viewing: false)
        #expect(e.unknownChannel && e.unreadChanged && s.totalUnread == 1)
    }

    @Test func receiptsGiveReadAndUnreadMembers() {
        var s = ChannelStore(me: "alice")
        s.upsert(channel("g", members: ["alice", "bob", "carol"]))
        let m = message(7, from: "alice", in: "g", at: 1000)
        s.applySent(m)
        #expect(s["g"]?.unreadMemberCount(of: m, me: "alice") == 2)
        expectTrue(s.applyRead(url: "g", userId: "bob", ts: 1000))
        #expect(s["g"]?.unreadMemberCount(of: m, me: "alice") == 1)
        #expect(s["g"]?.readMembers(of: m, me: "alice").map(\.userId) == ["bob"])
        #expect(s["g"]?.unreadMembers(of: m, me: "alice").map(\.userId) == ["carol"])
        // A receipt never moves back.
        expectTrue(!s.applyRead(url: "g", userId: "bob", ts: 10))
        #expect(s["g"]?.readReceipt["bob"] == 1000)
        // Delivery.
        #expect(s["g"]?.undeliveredMemberCount(of: m, me: "alice") == 1)
        expectTrue(s.applyDelivery(url: "g", updated: ["carol": 1001]))
        #expect(s["g"]?.undeliveredMemberCount(of: m, me: "alice") == 0)
        // A stale fetch does not undo receipts already applied.
        s.upsert(channel("g", members: ["alice", "bob", "carol"]))
        #expect(s["g"]?.readReceipt["bob"] == 1000)
        // Admin messages and supergroups have no receipts.
        var admin = m
        admin.kind = .admin
        #expect(s["g"]?.unreadMemberCount(of: admin, me: "alice") == 0)
    }

    @Test func directChannelsAreNamedAfterTheOtherMember() {
        var c = channel("x", members: ["me", "bob"])
        c.isDistinct = true
        c.members[1].user.nickname = "Bob B."
        #expect(c.displayName(me: "me") == "Bob B.")
        var g = channel("y", members: ["me", "bob", "carol"])
        g.name = "ops"
        #expect(g.displayName(me: "me") == "ops")
        g.name = ""
        #expect(g.displayName(me: "me") == "bob, carol")
    }
}
