import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// The store suite, on both stores: SQLite (a file) and PostgreSQL (a real server the test
/// support starts, a database per test).
@Suite("Store (SQLite and PostgreSQL)")
struct SQLiteStoreTests {
    /// A new empty store; with `location` (a file path or database URL from an earlier call) the same data again.
    func makeStore(_ kind: StoreKind, _ location: String? = nil) async throws -> any Store {
        try await kind.makeStore(location)
    }

    func user(_ id: String) -> UserRecord {
        UserRecord(userId: id, nickname: id, profileUrl: "", metadata: [:], createdAt: 1, lastSeenAt: 0, hasEverLoggedIn: false, isActive: true)
    }

    func channel(_ url: String, _ users: [String], distinct: Bool = false, ephemeral: Bool = false) -> NewGroupChannel {
        NewGroupChannel(
            channelUrl: url, name: "", coverUrl: "", customType: "", data: "", creator: users.first, userIds: users,
            operatorIds: [], isDistinct: distinct, isPublic: false, isSuper: false, isEphemeral: ephemeral, createdAt: 1, nowMs: 1)
    }

    func message(_ url: String, from: String?, at ts: Int64, text: String = "m", req: String? = nil, persist: Bool = true) -> NewMessage {
        NewMessage(
            channelUrl: url, type: from == nil ? "ADMM" : "MESG", senderId: from, message: text, customType: "", data: "",
            mentionType: "users", mentionedUserIds: [], silent: false, isOpMsg: false, createdAt: ts, reqId: req, persist: persist,
            markSenderRead: from != nil)
    }

    @Test("Distinct channels are reused for the same member set, whatever the order", arguments: StoreKind.allCases)
    func distinct(_ kind: StoreKind) async throws {
        let s = try await makeStore(kind)
        for u in ["a", "b", "c"] { _ = try await s.createUser(user(u)) }
        let (c1, created1) = try await s.createGroupChannel(channel("c1", ["a", "b"], distinct: true))
        let (c2, created2) = try await s.createGroupChannel(channel("c2", ["b", "a"], distinct: true))
        #expect(created1 && !created2)
        #expect(c1.channelUrl == c2.channelUrl)
        let (c3, created3) = try await s.createGroupChannel(channel("c3", ["a", "b"], distinct: false))
        #expect(created3 && c3.channelUrl == "c3")
        #expect(c1.memberCount == 2 && c1.joinedMemberCount == 2)
    }

    @Test("History around a timestamp: prev/next sizes, inclusive edges, reverse, type filter", arguments: StoreKind.allCases)
    func history(_ kind: StoreKind) async throws {
        let s = try await makeStore(kind)
        for u in ["a", "b"] { _ = try await s.createUser(user(u)) }
        _ = try await s.createGroupChannel(channel("c", ["a", "b"]))
        for (i, ts) in [100, 200, 300, 400, 500].enumerated() {
            _ = try await s.insertMessage(message("c", from: i == 4 ? nil : "a", at: Int64(ts), text: "m\(ts)"))
        }
        func texts(_ q: MessageQuery) async throws -> [String] { try await s.messages("c", query: q).map(\.message) }
        #expect(
            try await texts(MessageQuery(anchor: .timestamp(300), prevLimit: 2, nextLimit: 1, inclusive: false, reverse: false)) == [
                "m100", "m200", "m400",
            ])
        #expect(
            try await texts(MessageQuery(anchor: .timestamp(300), prevLimit: 2, nextLimit: 1, inclusive: true, reverse: false)) == [
                "m100", "m200", "m300", "m400",
            ], "the anchor comes in addition to prev/next")
        #expect(
            try await texts(MessageQuery(anchor: .timestamp(300), prevLimit: 0, nextLimit: 2, inclusive: true, reverse: false)) == [
                "m300", "m400", "m500",
            ])
        #expect(
            try await texts(MessageQuery(anchor: .timestamp(1000), prevLimit: 3, nextLimit: 0, inclusive: false, reverse: true)) == [
                "m500", "m400", "m300",
            ])
        #expect(
            try await texts(MessageQuery(anchor: .timestamp(1000), prevLimit: 9, nextLimit: 0, inclusive: false, reverse: false, messageType: "ADMM"))
                == ["m500"])
        #expect(
            try await texts(MessageQuery(anchor: .timestamp(1000), prevLimit: 9, nextLimit: 0, inclusive: false, reverse: false, senderIds: ["b"]))
                .isEmpty)
        // Ties at the edge return extra messages rather than dropping some.
        _ = try await s.insertMessage(message("c", from: "a", at: 200, text: "m200b"))
        #expect(
            try await texts(MessageQuery(anchor: .timestamp(300), prevLimit: 1, nextLimit: 0, inclusive: false, reverse: false)) == ["m200", "m200b"])
        await #expect(throws: SendbirdError.self) {
            _ = try await s.messages("c", query: MessageQuery(anchor: .messageId(999), prevLimit: 1, nextLimit: 1, inclusive: true, reverse: false))
        }
    }

    @Test("Group commit: a batch is stored in order in one transaction; a refused reply leaves the others stored", arguments: StoreKind.allCases)
    func batch(_ kind: StoreKind) async throws {
        let s = try await makeStore(kind)
        for u in ["a", "b"] { _ = try await s.createUser(user(u)) }
        _ = try await s.createGroupChannel(channel("c", ["a", "b"]))
        var reply = message("c", from: "a", at: 20, text: "orphan")
        reply.parentMessageId = 999_999
        let results = try await s.insertMessages([
            message("c", from: "a", at: 10, text: "one", req: "r1"), reply, message("c", from: "b", at: 30, text: "three"),
            message("c", from: "a", at: 40, text: "again", req: "r1"),
        ])
        #expect(results.count == 4)
        let first = try results[0].get()
        #expect(!first.duplicate && first.message.message == "one")
        #expect(throws: SendbirdError.self) { try results[1].get() }
        let third = try results[2].get()
        #expect(third.message.messageId > first.message.messageId, "ids follow the batch's order")
        let again = try results[3].get()
        #expect(again.duplicate && again.message.messageId == first.message.messageId, "a repeated req_id in the same batch is the original")
        let stored = try await s.messages(
            "c", query: MessageQuery(anchor: .timestamp(1000), prevLimit: 9, nextLimit: 0, inclusive: false, reverse: false))
        #expect(stored.map(\.message) == ["one", "three"])
        // b's own message read the channel for b; a has b's one, the duplicate counted nothing.
        #expect(try await s.unreadMessageTotal(userId: "a", customTypes: nil, superMode: nil) == 1)
        #expect(try await s.unreadMessageTotal(userId: "b", customTypes: nil, superMode: nil) == 0)
    }

    @Test("Sending moves unread counts of the others and the sender's read receipt; reading clears them", arguments: StoreKind.allCases)
    func counters(_ kind: StoreKind) async throws {
        let s = try await makeStore(kind)
        for u in ["a", "b", "c"] { _ = try await s.createUser(user(u)) }
        _ = try await s.createGroupChannel(channel("c", ["a", "b", "c"]))
        _ = try await s.insertMessage(message("c", from: "a", at: 10))
        _ = try await s.insertMessage(message("c", from: "a", at: 20))
        _ = try await s.insertMessage(message("c", from: nil, at: 30))
        #expect(try await s.unreadMessageTotal(userId: "b", customTypes: nil, superMode: nil) == 3)
        #expect(try await s.unreadMessageTotal(userId: "a", customTypes: nil, superMode: nil) == 1)
        #expect(try await s.member("c", userId: "a")?.readTs == 20)
        // The sender reads what was unread by sending (their cached total drops with it), and with
        // nothing unread, their receipt still moves to each message they send.
        var mention = message("c", from: "b", at: 31)
        mention.mentionedUserIds = ["a"]
        _ = try await s.insertMessage(mention)
        #expect(try await s.member("c", userId: "a")?.unreadMentionCount == 1)
        var reply = message("c", from: "a", at: 32)
        reply.totalsFor = ["a"]
        #expect(try await s.insertMessage(reply).totals["a"]?.all == 0)
        #expect(try await s.unreadMessageTotal(userId: "a", customTypes: nil, superMode: nil) == 0)
        var member = try await s.member("c", userId: "a")
        #expect(member?.readTs == 32 && member?.unreadCount == 0 && member?.unreadMentionCount == 0)
        _ = try await s.insertMessage(message("c", from: "a", at: 33))
        member = try await s.member("c", userId: "a")
        #expect(member?.readTs == 33 && member?.unreadCount == 0)
        #expect(try await s.unreadMessageTotal(userId: "b", customTypes: nil, superMode: nil) == 2, "b read all by sending at 31")
        _ = try await s.markRead("c", userId: "b", ts: 40)
        #expect(try await s.unreadMessageTotal(userId: "b", customTypes: nil, superMode: nil) == 0)
        #expect(try await s.unreadChannelCount(userId: "c", customTypes: nil, superMode: nil) == 1)
        #expect(try await s.markAllRead(userId: "c", channelUrls: nil, ts: 50).channels == ["c"])
        #expect(try await s.unreadChannelCount(userId: "c", customTypes: nil, superMode: nil) == 0)
        #expect(try await s.markDelivered("c", userId: "b", ts: 60))
        #expect(try await !s.markDelivered("c", userId: "b", ts: 55), "receipts never move back")
    }

    @Test("Count preferences, blocks and supergroups decide what counts; totals carry a ts that only grows", arguments: StoreKind.allCases)
    func countingRules(_ kind: StoreKind) async throws {
        let s = try await makeStore(kind)
        for u in ["a", "b", "c", "d"] { _ = try await s.createUser(user(u)) }
        _ = try await s.createGroupChannel(channel("g", ["a", "b", "c", "d"]))
        var sup = channel("s", ["a", "b"])
        sup.isSuper = true
        _ = try await s.createGroupChannel(sup)
        _ = try await s.createGroupChannel(channel("dm", ["a", "b"]))
        #expect(try await s.setCountPreference("g", userId: "b", "off"))
        #expect(try await s.setCountPreference("g", userId: "c", "unread_mention_count_only"))
        #expect(try await !s.setCountPreference("g", userId: "nobody", "off"))
        #expect(try await s.block("d", "a", at: 5))
        #expect(try await !s.block("d", "a", at: 6), "blocking twice changes nothing")
        var mention = message("g", from: "a", at: 10)
        mention.mentionedUserIds = ["b", "c", "d"]
        mention.totalsFor = ["b", "c", "d"]
        let stored = try await s.insertMessage(mention)
        let g = try await s.members("g")
        func member(_ id: String) -> MemberRecord? { g.first { $0.userId == id } }
        #expect(member("b")?.unreadCount == 0 && member("b")?.unreadMentionCount == 0, "off counts nothing")
        #expect(member("c")?.unreadCount == 0 && member("c")?.unreadMentionCount == 1, "mentions only")
        #expect(member("d")?.unreadCount == 0 && member("d")?.unreadMentionCount == 0, "a blocked sender never counts")
        #expect(stored.message.hiddenFor == nil, "in a group the blocked user's messages are delivered")
        #expect(stored.totals["c"]?.all == 0 && stored.totals["b"] != nil && stored.totals["a"] == nil)
        // Admin messages count for everyone whose preference counts messages.
        _ = try await s.insertMessage(message("g", from: nil, at: 11))
        #expect(try await s.member("g", userId: "d")?.unreadCount == 1)
        #expect(try await s.member("g", userId: "b")?.unreadCount == 0)
        // Supergroups: at most 100 per channel in totals.
        for i in 0..<105 { _ = try await s.insertMessage(message("s", from: "a", at: 100 + Int64(i))) }
        #expect(try await s.member("s", userId: "b")?.unreadCount == 105)
        #expect(try await s.unreadMessageTotal(userId: "b", customTypes: nil, superMode: "super") == 100)
        #expect(try await s.unreadMessageTotal(userId: "b", customTypes: nil, superMode: "nonsuper") == 0)
        let items = try await s.unreadItems(userId: "c", customTypes: nil)
        #expect(items.nonSuperMentions == 1 && items.nonSuperMessages == 0)
        // 1:1: the blocker (b blocks a) never sees what a sends while blocked, even after unblocking.
        #expect(try await s.block("b", "a", at: 300))
        let hidden = try await s.insertMessage(message("dm", from: "a", at: 310))
        #expect(hidden.message.hiddenFor == "b")
        #expect(try await s.member("dm", userId: "b")?.unreadCount == 0)
        #expect(try await s.unblock("b", "a"))
        let seen = try await s.insertMessage(message("dm", from: "a", at: 320))
        var q = MessageQuery(anchor: .timestamp(1000), prevLimit: 10, nextLimit: 0, inclusive: true, reverse: false)
        q.viewer = "b"
        #expect(try await s.messages("dm", query: q).map(\.messageId) == [seen.message.messageId])
        q.viewer = "a"
        #expect(try await s.messages("dm", query: q).count == 2, "the sender sees both")
        #expect(try await s.lastVisibleMessage("dm", viewer: "b", after: 0)?.messageId == seen.message.messageId)
        // Totals: later writes give later stamps, whatever the hint.
        let t1 = try await s.markRead("s", userId: "b", ts: 50)
        let t2 = try await s.unreadTotals(["b"], at: 0)["b"]!
        #expect(t1.all == 1 && t2.all == 1 && t2.ts > t1.ts)
        #expect(try await s.blockedUsers("d", blockingMe: false, afterUserId: nil, limit: 10, userIds: nil).map(\.userId) == ["a"])
        #expect(try await s.blockedUsers("d", blockingMe: false, afterUserId: nil, limit: 10, userIds: ["b"]).isEmpty)
        #expect(try await s.blockedUsers("a", blockingMe: true, afterUserId: nil, limit: 10, userIds: nil).map(\.userId) == ["d"])
    }

    /// The send path skips the blockers' query and the auto-unhide update where no block or hidden
    /// channel can apply (SQLite keeps who may be blocked and where a member may have hidden the
    /// channel): blocks and hides made before the store opened, and since, must still count.
    @Test("Blocks and auto-unhide hides count whether made before the store opened or since, on every write path", arguments: StoreKind.allCases)
    func blocksAndHidesAcrossReopening(_ kind: StoreKind) async throws {
        let location = try await kind.newLocation()
        var s = try await makeStore(kind, location)
        for u in ["a", "b", "c"] { _ = try await s.createUser(user(u)) }
        _ = try await s.createGroupChannel(channel("g", ["a", "b", "c"]))
        _ = try await s.createGroupChannel(channel("dm", ["a", "b"]))
        _ = try await s.createGroupChannel(channel("quiet", ["a", "c"]))
        #expect(try await s.block("b", "a", at: 5))
        try await s.setHidden("quiet", userId: "c", state: "hidden_allow_auto_unhide", messageOffset: nil)
        try await s.close()
        s = try await makeStore(kind, location)
        // Sent through the send pipeline's path where the store has one (a transaction of its own).
        func send(_ m: NewMessage) async throws -> StoredMessage {
            if let inPlace = s as? any InPlaceMessageInsert { return try inPlace.insertMessagesInPlace([m])[0].get() }
            return try await s.insertMessage(m)
        }
        #expect(try await send(message("dm", from: "a", at: 10)).message.hiddenFor == "b", "a block from before the store opened")
        _ = try await send(message("g", from: "a", at: 11))
        #expect(try await s.member("g", userId: "b")?.unreadCount == 0)
        #expect(try await s.member("g", userId: "c")?.unreadCount == 1)
        _ = try await send(message("quiet", from: "a", at: 12))
        #expect(try await s.member("quiet", userId: "c")?.hiddenState == "unhidden", "a hide from before the store opened")
        // And since: c blocks a, a hides g with auto-unhide and c sends there.
        #expect(try await s.block("c", "a", at: 20))
        _ = try await send(message("g", from: "a", at: 21))
        #expect(try await s.member("g", userId: "c")?.unreadCount == 1, "c blocks a now: a's message no longer counts for c")
        try await s.setHidden("g", userId: "a", state: "hidden_allow_auto_unhide", messageOffset: nil)
        try await s.setHidden("dm", userId: "a", state: "hidden_prevent_auto_unhide", messageOffset: nil)
        _ = try await send(message("g", from: "c", at: 22))
        _ = try await send(message("dm", from: "b", at: 23))
        #expect(try await s.member("g", userId: "a")?.hiddenState == "unhidden")
        #expect(try await s.member("dm", userId: "a")?.hiddenState == "hidden_prevent_auto_unhide")
        // A refused message (a reply to no message) leaves nothing behind and the next one is stored.
        var orphan = message("g", from: "b", at: 30)
        orphan.parentMessageId = 999_999
        await #expect(throws: SendbirdError.self) { _ = try await send(orphan) }
        let after = try await send(message("g", from: "b", at: 31))
        let all = try await s.messages(
            "g", query: MessageQuery(anchor: .timestamp(100), prevLimit: 10, nextLimit: 0, inclusive: true, reverse: false))
        #expect(all.map(\.createdAt) == [11, 21, 22, 31] && all.last?.messageId == after.message.messageId)
        try await s.close()
    }

    @Test("A repeated (sender, req_id) returns the original and stores nothing; ephemeral messages are not kept", arguments: StoreKind.allCases)
    func idempotentAndEphemeral(_ kind: StoreKind) async throws {
        let s = try await makeStore(kind)
        for u in ["a", "b"] { _ = try await s.createUser(user(u)) }
        _ = try await s.createGroupChannel(channel("c", ["a", "b"]))
        let storedm1 = try await s.insertMessage(message("c", from: "a", at: 10, req: "r1"))
        let m1 = storedm1.message
        let d1 = storedm1.duplicate
        let storedm2 = try await s.insertMessage(message("c", from: "a", at: 11, req: "r1"))
        let m2 = storedm2.message
        let d2 = storedm2.duplicate
        #expect(!d1 && d2 && m1.messageId == m2.messageId)
        #expect(try await s.unreadMessageTotal(userId: "b", customTypes: nil, superMode: nil) == 1)
        _ = try await s.createGroupChannel(channel("other", ["a", "b"]))
        let storedm3 = try await s.insertMessage(message("other", from: "a", at: 11, req: "r1"))
        let m3 = storedm3.message
        let d3 = storedm3.duplicate
        #expect(!d3 && m3.messageId != m1.messageId, "the same req_id in another channel is another message")
        let e = try await s.insertMessage(message("c", from: "a", at: 12, persist: false))
        #expect(e.message.messageId > m1.messageId)
        let all = try await s.messages(
            "c", query: MessageQuery(anchor: .timestamp(100), prevLimit: 10, nextLimit: 0, inclusive: true, reverse: false))
        #expect(all.map(\.messageId) == [m1.messageId])
    }

    @Test("Committed data survives closing and reopening the store", arguments: StoreKind.allCases)
    func durable(_ kind: StoreKind) async throws {
        let location = try await kind.newLocation()
        let s = try await makeStore(kind, location)
        for u in ["a", "b"] { _ = try await s.createUser(user(u)) }
        _ = try await s.createGroupChannel(channel("c", ["a", "b"]))
        let m = try await s.insertMessage(message("c", from: "a", at: 10)).message
        try await s.addAccessToken(userId: "a", tokenHash: "h", expiresAt: 0)
        try await s.close()
        let reopened = try await makeStore(kind, location)
        #expect(try await reopened.message("c", id: m.messageId)?.message == "m")
        #expect(try await reopened.accessTokenExpiry(userId: "a", tokenHash: "h") == 0)
        try await reopened.addSession(keyHash: "old", userId: "b", expiresAt: 5)
        try await reopened.addSession(keyHash: "forever", userId: "b", expiresAt: 0)
        #expect(try await reopened.purgeExpiredSessions(now: 10) == 1)
        #expect(try await reopened.session(keyHash: "forever")?.userId == "b")
        #expect(try await reopened.deleteUser("a"))
        #expect(try await reopened.channel("c")?.memberCount == 1)
    }
}
