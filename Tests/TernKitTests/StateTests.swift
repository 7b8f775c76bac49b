import TernProtocol
import Testing

@testable import TernKit

@Suite("Typing, read throttle and channel store (value types)")
struct StateTests {
    let bob = User(userId: "bob", nickname: "Bob")
    let carol = User(userId: "carol")

    @Test func typersExpireTenSecondsAfterTheirLastStart() {
        var t = TypingTracker()
        do { let ok = t.start(bob, in: "c", now: 0); #expect(ok) }
        do { let ok = !t.start(bob, in: "c", now: 5000); #expect(ok) }  // still typing: not new, expiry moves
        do { let ok = t.start(carol, in: "c", now: 6000); #expect(ok) }
        #expect(t.typers(in: "c").map(\.userId) == ["bob", "carol"])
        do { let ok = t.expire(now: 14999).isEmpty; #expect(ok) }
        let gone = t.expire(now: 15000)
        #expect(gone.map(\.user.userId) == ["bob"])
        #expect(t.typers(in: "c").map(\.userId) == ["carol"])
        do { let ok = t.end("carol", in: "c") == carol; #expect(ok) }
        do { let ok = t.end("carol", in: "c") == nil; #expect(ok) }
        #expect(t.nextExpiry == nil)
    }

    @Test func typingThrottleSendsAtMostOncePerSecond() {
        var t = TypingThrottle()
        do { let ok = !t.end("c", now: 0); #expect(ok) }  // never started: no end
        do { let ok = t.start("c", now: 0); #expect(ok) }
        do { let ok = !t.start("c", now: 999); #expect(ok) }
        do { let ok = t.start("c", now: 1000); #expect(ok) }
        do { let ok = t.start("d", now: 1000); #expect(ok) }  // per channel
        do { let ok = t.end("c", now: 1100); #expect(ok) }
        do { let ok = !t.end("c", now: 1200); #expect(ok) }
        do { let ok = t.start("c", now: 1300); #expect(ok) }  // a new start after an end goes out at once
    }

    @Test func readThrottleKeepsOneTrailingSend() {
        var r = ReadThrottle()
        do { let ok = r.request("c", now: 0) == .sendNow; #expect(ok) }
        do { let ok = r.request("c", now: 300) == .deferred(until: 1000); #expect(ok) }
        do { let ok = r.request("c", now: 600) == .deferred(until: 1000); #expect(ok) }
        do { let ok = r.takeDue(now: 999).isEmpty; #expect(ok) }
        do { let ok = r.takeDue(now: 1000) == ["c"]; #expect(ok) }
        do { let ok = r.takeDue(now: 5000).isEmpty; #expect(ok) }
        do { let ok = r.request("c", now: 1500) == .deferred(until: 2000); #expect(ok) }
        do { let ok = r.request("d", now: 1500) == .sendNow; #expect(ok) }
    }

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
        do { let ok = s.applyRead(url: "c", userId: "me", ts: 500); #expect(ok) }
        #expect(s["c"]?.unreadMessageCount == 0 && s["c"]?.unreadMentionCount == 0 && s.totalUnread == 0)
        // An older server total is ignored, a newer one is taken.
        do { let ok = !s.setTotal(UnreadCount(all: 9, ts: 50)); #expect(ok) }
        do { let ok = s.setTotal(UnreadCount(all: 4, ts: 600)) && s.totalUnread == 4; #expect(ok) }
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

    @Test func lastMessageSurvivesStaleFetchesButNotAHistoryReset() {
        var s = ChannelStore(me: "me")
        s.upsert(channel("c", members: ["me", "bob"]))
        _ = s.applyIncoming(message(1, from: "bob", at: 100), viewing: false)
        // A fetch that started before the message arrived does not take it away.
        s.upsert(channel("c", members: ["me", "bob"]))
        #expect(s["c"]?.lastMessage?.messageId == 1)
        // After a reset of the user's history the server's view (no last message) wins.
        var reset = channel("c", members: ["me", "bob"])
        reset.messageOffset = 150
        s.upsert(reset)
        #expect(s["c"]?.lastMessage == nil)
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
        do { let ok = s.applyRead(url: "g", userId: "bob", ts: 1000); #expect(ok) }
        #expect(s["g"]?.unreadMemberCount(of: m, me: "alice") == 1)
        #expect(s["g"]?.readMembers(of: m, me: "alice").map(\.userId) == ["bob"])
        #expect(s["g"]?.unreadMembers(of: m, me: "alice").map(\.userId) == ["carol"])
        // A receipt never moves back.
        do { let ok = !s.applyRead(url: "g", userId: "bob", ts: 10); #expect(ok) }
        #expect(s["g"]?.readReceipt["bob"] == 1000)
        // Delivery.
        #expect(s["g"]?.undeliveredMemberCount(of: m, me: "alice") == 1)
        do { let ok = s.applyDelivery(url: "g", updated: ["carol": 1001]); #expect(ok) }
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

@Suite("Configuration and output of the scriptable commands")
struct ScriptingTests {
    @Test func serverAddresses() throws {
        let local = try ServerAddress(parsing: "http://127.0.0.1:8080")
        #expect(local.apiBase == "http://127.0.0.1:8080" && local.webSocketBase == "ws://127.0.0.1:8080")
        let tls = try ServerAddress(parsing: "https://chat.example.com")
        #expect(tls.webSocketBase == "wss://chat.example.com")
        let v6 = try ServerAddress(parsing: "http://[::1]:9000")
        #expect(v6.webSocketBase == "ws://[::1]:9000")
        let hosted = try ServerAddress(parsing: "sendbird://ABC-123")
        #expect(hosted.apiBase == "https://api-abc-123.sendbird.com" && hosted.webSocketBase == "wss://ws-abc-123.sendbird.com")
        #expect(hosted.impliedAppId == "ABC-123")
        for bad in ["", "localhost:8080", "ftp://x", "sendbird://"] {
            #expect(throws: SendbirdError.self) { try ServerAddress(parsing: bad) }
        }
    }

    @Test func environment() throws {
        var c = try ClientConfiguration.fromEnvironment(["TERN_SERVER": "http://h:1", "USER": "unix"])
        #expect(c.userId == "unix" && c.appId == "LOCAL" && c.token == .none)
        c = try ClientConfiguration.fromEnvironment([
            "TERN_SERVER": "http://h:1", "TERN_USER_ID": "bob", "TERN_ACCESS_TOKEN": "t", "TERN_TOKEN_COMMAND": "echo x", "TERN_APP_ID": "APP",
        ])
        #expect(c.userId == "bob" && c.appId == "APP" && c.token == .token("t"))
        c = try ClientConfiguration.fromEnvironment(["TERN_USER_ID": "bob", "TERN_TOKEN_COMMAND": "echo x"], server: "http://h:2")
        #expect(c.server.apiBase == "http://h:2" && c.token == .command("echo x"))
        #expect(throws: SendbirdError.self) { try ClientConfiguration.fromEnvironment(["TERN_USER_ID": "bob"]) }
        let hosted = try ClientConfiguration.fromEnvironment(["TERN_SERVER": "sendbird://XYZ", "TERN_USER_ID": "u", "TERN_APP_ID": "OTHER"])
        #expect(hosted.appId == "XYZ")
    }

    @Test func tokenCommand() throws {
        #expect(try TokenSource.command("printf ' tok-1\\n'").resolve() == "tok-1")
        #expect(throws: SendbirdError.self) { try TokenSource.command("echo nope >&2; exit 3").resolve() }
        #expect(throws: SendbirdError.self) { try TokenSource.command("true").resolve() }
        #expect(try TokenSource.none.resolve() == nil)
    }

    @Test func tailJSONLines() throws {
        var f = TailFormatter(json: true, me: "bob")
        let m = Message(messageId: 5, channelUrl: "c1", text: "hi \"there\"", sender: User(userId: "alice"), createdAt: 1000)
        let line = try #require(f.lines(for: .messageReceived(m), now: 2000).first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["type"] as? String == "message")
        #expect(object["message"] as? String == "hi \"there\"")
        #expect(object["message_id"] as? Int == 5 && object["user_id"] as? String == "alice")
        let state = try #require(f.lines(for: .connectionStateChanged(.reconnecting(attempt: 1, nextAttemptAt: 6000)), now: 2000).first)
        #expect(state.contains("\"state\":\"reconnecting\"") && state.contains("\"retry_in_ms\":4000"))
        do { let ok = f.lines(for: .messagePending(m), now: 0).isEmpty; #expect(ok) }
        // A channel filter keeps only that channel's events (and connection events).
        f.channelFilter = "other"
        do { let ok = f.lines(for: .messageReceived(m), now: 0).isEmpty; #expect(ok) }
        do { let ok = !f.lines(for: .reconnectStarted, now: 0).isEmpty; #expect(ok) }
    }

    @Test func tailText() {
        var f = TailFormatter(json: false, me: "bob")
        var c = GroupChannel(url: "c1", members: [Member(user: User(userId: "bob")), Member(user: User(userId: "alice", nickname: "Alice"))])
        c.isDistinct = true
        _ = f.lines(for: .channelUpdated(c), now: 0)
        let state = f.lines(for: .connectionStateChanged(.reconnecting(attempt: 0, nextAttemptAt: 4500)), now: 2000)
        #expect(state.first?.hasSuffix("reconnecting in 3s (attempt 1)") == true)
        let typing = f.lines(for: .typingStarted(channelUrl: "c1", user: User(userId: "alice", nickname: "Alice")), now: 0)
        #expect(typing.first?.hasSuffix("#Alice Alice is typing…") == true)
    }

    /// At start-up the engine lists every existing channel as added: nobody "joined" them (issue 30).
    @Test func tailChannelAddedIsNeutral() throws {
        var f = TailFormatter(json: false, me: "bob")
        var c = GroupChannel(url: "c1", members: [Member(user: User(userId: "bob")), Member(user: User(userId: "alice", nickname: "Alice"))])
        c.isDistinct = true
        c.unreadMessageCount = 2
        let line = try #require(f.lines(for: .channelAdded(c), now: 0).first)
        #expect(line.hasSuffix("#Alice: 2 unread"), "\(line)")
        #expect(!line.contains("joined"))
        var invite = GroupChannel(url: "c2", name: "secret")
        invite.myMemberState = "invited"
        invite.inviter = User(userId: "carol", nickname: "Carol")
        let invited = try #require(f.lines(for: .channelAdded(invite), now: 0).first)
        #expect(invited.hasSuffix("#secret: invitation from Carol"), "\(invited)")
        // JSON keeps its type for scripts.
        var j = TailFormatter(json: true, me: "bob")
        #expect(j.lines(for: .channelAdded(c), now: 0).first?.contains("\"type\":\"channel_added\"") == true)
    }
}

import Foundation
