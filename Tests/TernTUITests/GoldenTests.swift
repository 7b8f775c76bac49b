import Foundation
import TernKit
import TernProtocol
import Testing

@testable import TernTUI

@Suite("Screens (golden files)")
struct GoldenTests {

    @Test func badgesAndStatusSummary() {
        #expect(Screen.badge(unread: 0, mentions: 0) == "")
        #expect(Screen.badge(unread: 3, mentions: 0) == "3")
        #expect(Screen.badge(unread: 120, mentions: 1) == "@1 99+")
        #expect(Screen.badge(unread: 0, mentions: 2) == "@2", "a mentions-only count preference still shows mentions")
        var s = sample()
        #expect(Screen.activityText(s) == "3 unread in 1 · @1")
        s.totalUnread = 0
        s.channels = s.channels.map {
            var c = $0
            c.unreadMessageCount = 0
            c.unreadMentionCount = 0
            return c
        }
        #expect(Screen.activityText(s) == nil)
    }

    func sample() -> AppState {
        var s = AppState(me: User(userId: "alice", nickname: "Alice"), server: "test")
        s.present = true  // the user is at the keyboard (else the channel on screen is not yet read)
        var dm = GroupChannel(
            url: "dm", members: [Member(user: User(userId: "alice", nickname: "Alice")), Member(user: User(userId: "bob", nickname: "Bob"))])
        dm.isDistinct = true
        dm.readReceipt = ["bob": 1_795_300_000_000]
        var ops = GroupChannel(url: "ops", name: "ops", members: [Member(user: User(userId: "alice")), Member(user: User(userId: "carol"))])
        ops.unreadMessageCount = 3
        ops.unreadMentionCount = 1
        s.channels = [dm, ops]
        s.totalUnread = 3
        s.selected = "dm"
        s.hasPrevious["dm"] = false
        let t: Millis = 1_795_300_000_000  // 2026-11-21 20:26:40 UTC
        s.messages["dm"] = [
            Message(messageId: 1, channelUrl: "dm", text: "hi Bob, 你好 😀", sender: User(userId: "alice", nickname: "Alice"), createdAt: t - 60_000),
            Message(
                messageId: 2, channelUrl: "dm", text: "a long reply that has to wrap onto a second line in this narrow pane",
                sender: User(userId: "bob", nickname: "Bob"), createdAt: t),
            Message(
                messageId: 0, requestId: "rq-x", channelUrl: "dm", text: "on its way", sender: User(userId: "alice", nickname: "Alice"),
                createdAt: t + 86_400_000, status: .pending),
            Message(
                messageId: 0, requestId: "rq-y", channelUrl: "dm", text: "refused", sender: User(userId: "alice", nickname: "Alice"),
                createdAt: t + 86_400_001, status: .failed, error: .init(.notAMember, "no")),
        ]
        s.typers["dm"] = [User(userId: "bob", nickname: "Bob")]
        s.input = Array("draft")
        s.cursor = 5
        s.connection = .open
        return s
    }

    @Test func mainScreen() throws {
        let screen = Screen(theme: .builtin, timeZone: TimeZone(identifier: "UTC")!)
        let grid = screen.render(sample(), width: 72, height: 14, now: 1_795_300_000_000)
        try assertGolden(grid, "main-72x14")
        #expect(grid.cursor?.y == 12)
    }

    @Test func reconnectingAndNarrow() throws {
        var s = sample()
        s.connection = .reconnecting(attempt: 2, nextAttemptAt: 1_795_300_004_000)
        let screen = Screen(theme: .builtin, timeZone: TimeZone(identifier: "UTC")!)
        try assertGolden(screen.render(s, width: 40, height: 10, now: 1_795_300_000_000), "reconnecting-40x10")
    }

    @Test func helpOverlay() throws {
        var s = sample()
        s.showHelp = true
        let screen = Screen(theme: .builtin, timeZone: TimeZone(identifier: "UTC")!)
        try assertGolden(screen.render(s, width: 80, height: 20, now: 0), "help-80x20")
    }

    @Test func groupReceiptsAndNewMessagesLine() throws {
        var s = sample()
        let t: Millis = 1_795_300_000_000
        let me = User(userId: "alice", nickname: "Alice")
        var ops = GroupChannel(
            url: "ops", name: "ops", members: [Member(user: me), Member(user: User(userId: "carol")), Member(user: User(userId: "dave"))])
        ops.unreadMessageCount = 2
        ops.readReceipt = ["alice": t, "carol": t + 10, "dave": t - 1]
        ops.deliveryReceipt = ["carol": t + 10, "dave": t + 5]
        s.channels[1] = ops
        s.messages["ops"] = [
            Message(messageId: 1, channelUrl: "ops", text: "standup at ten", sender: me, createdAt: t),
            Message(messageId: 2, channelUrl: "ops", text: "on my way", sender: User(userId: "carol"), createdAt: t + 60_000),
            Message(messageId: 3, channelUrl: "ops", text: "me too", sender: User(userId: "dave"), createdAt: t + 120_000),
        ]
        s.hasPrevious["ops"] = false
        s.typers = [:]
        s.input = []
        s.cursor = 0
        var reducer = Reducer()
        reducer.layout = Screen(theme: .builtin, timeZone: TimeZone(identifier: "UTC")!)
        _ = reducer.reduce(&s, .key(.ctrl("n")))
        #expect(s.selected == "ops" && s.unreadSince["ops"] == t)
        let screen = Screen(theme: .builtin, timeZone: TimeZone(identifier: "UTC")!)
        try assertGolden(screen.render(s, width: 72, height: 12, now: 0), "group-72x12")
    }

    @Test func channelInfoAndBrowser() throws {
        var s = sample()
        s.channels[1].myRole = "operator"
        s.channels[1].isFrozen = true
        s.channels[1].customType = "team"
        s.channels[1].metadata = ["floor": "3"]
        s.channels[1].members[0].role = "operator"
        s.channels[1].memberCount = 3
        s.channels[1].joinedMemberCount = 2
        s.channels[1].members.append(Member(user: User(userId: "dave"), state: "invited"))
        var invite = GroupChannel(url: "inv", name: "secret")
        invite.myMemberState = "invited"
        invite.inviter = User(userId: "carol", nickname: "Carol")
        s.channels.insert(invite, at: 0)
        s.selected = "ops"
        s.info = "ops"
        let screen = Screen(theme: .builtin, timeZone: TimeZone(identifier: "UTC")!)
        try assertGolden(screen.render(s, width: 80, height: 22, now: 0), "info-80x22")
        s.info = nil
        var b = Browser(kind: .publicChannels)
        b.query = "lob type:game"
        b.loading = false
        var lobby = GroupChannel(url: "lobby", name: "lobby")
        lobby.memberCount = 12
        lobby.customType = "game"
        lobby.myMemberState = "none"
        var lobby2 = GroupChannel(url: "lobby2", name: "lobby two 你好")
        lobby2.memberCount = 3
        lobby2.myMemberState = "joined"
        b.results = [lobby, lobby2]
        b.selected = 1
        s.browser = b
        try assertGolden(screen.render(s, width: 80, height: 16, now: 0), "browser-80x16")
    }
}
