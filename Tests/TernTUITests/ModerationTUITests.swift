import Foundation
import TernKit
import TernProtocol
import Testing

@testable import TernTUI

@Suite("Open channels, people lists and operator commands in the client")
struct ModerationTUITests: TUIFixture {
    let reducer = Reducer()

    func state() -> AppState {
        var c = GroupChannel(url: "c1", name: "team", members: [Member(user: alice, role: "operator"), Member(user: bob)])
        c.createdAt = 1
        c.myRole = "operator"
        return aliceIn(c, showing: [Message(messageId: 1, channelUrl: "c1", text: "hi", sender: bob, createdAt: t)])
    }

    func submit(_ text: String, _ s: inout AppState) -> [Effect] {
        s.input = Array(text)
        s.cursor = s.input.count
        return reducer.reduce(&s, .key(.enter))
    }

    @Test func operatorCommandsParseUsersDurationsAndReasons() {
        var s = state()
        #expect(submit("/ban @bob 600 spamming links", &s) == [.moderate(.ban("bob", seconds: 600, reason: "spamming links"), channelUrl: "c1")])
        #expect(submit("/ban bob", &s) == [.moderate(.ban("bob", seconds: -1, reason: ""), channelUrl: "c1")])
        #expect(submit("/ban bob forever for good", &s) == [.moderate(.ban("bob", seconds: -1, reason: "for good"), channelUrl: "c1")])
        #expect(submit("/mute bob 30", &s) == [.moderate(.mute("bob", seconds: 30, reason: ""), channelUrl: "c1")])
        #expect(submit("/unmute bob", &s) == [.moderate(.unmute("bob"), channelUrl: "c1")])
        #expect(submit("/unban bob", &s) == [.moderate(.unban("bob"), channelUrl: "c1")])
        #expect(submit("/op bob", &s) == [.moderate(.op("bob"), channelUrl: "c1")])
        #expect(submit("/deop bob", &s) == [.moderate(.deop("bob"), channelUrl: "c1")])
        #expect(submit("/ban", &s).isEmpty && s.notice?.hasPrefix("usage: /ban USER") == true)
        #expect(submit("/whois @bob", &s) == [.whois("bob")])
        #expect(submit("/nick Ally", &s) == [.nick("Ally")])
    }

    @Test func reportsOfTheChannelAUserAndAMessage() {
        var s = state()
        #expect(submit("/report spam", &s) == [.report(.channel("c1"), category: .spam, description: "")])
        #expect(
            submit("/report user bob harassing said things", &s) == [
                .report(.user("bob", channelUrl: "c1"), category: .harassing, description: "said things")
            ])
        let m = s.messages["c1"]![0]
        #expect(submit("/report message inappropriate", &s) == [.report(.message(m), category: .inappropriate, description: "")])
        #expect(submit("/report rude", &s).isEmpty && s.notice?.hasPrefix("usage: /report") == true)
        // Ctrl-R, then ! and a category key.
        _ = reducer.reduce(&s, .key(.ctrl("r")))
        _ = reducer.reduce(&s, .key(.char("!")))
        #expect(s.reporting?.messageId == 1 && s.picker == nil)
        #expect(reducer.reduce(&s, .key(.char("p"))) == [.report(.message(m), category: .spam, description: "")])
        #expect(s.reporting == nil)
    }

    @Test func peopleListsOpenFilterAndMessage() {
        var s = state()
        #expect(submit("/members", &s) == [.people(.members("c1"), query: "")])
        #expect(s.people?.kind == .members("c1"))
        _ = reducer.reduce(
            &s, .peopleLoaded(.members("c1"), query: "", [.init(user: alice, online: true, isOperator: true), .init(user: bob, online: false)]))
        _ = reducer.reduce(&s, .key(.down))
        #expect(reducer.reduce(&s, .key(.enter)) == [.openDirect(userId: "bob")] && s.people == nil)
        // The user browser filters as you type.
        #expect(submit("/users ca", &s) == [.people(.users, query: "ca")])
        #expect(reducer.reduce(&s, .key(.char("r"))) == [.people(.users, query: "car")])
        // An answer to an older query is dropped.
        _ = reducer.reduce(&s, .peopleLoaded(.users, query: "ca", [.init(user: bob)]))
        #expect(s.people?.rows.isEmpty == true && s.people?.loading == true)
        _ = reducer.reduce(&s, .key(.escape))
        #expect(s.people == nil)
        let f = Reducer.userFilter("ca team:red,blue")
        #expect(f.nicknameStartsWith == "ca" && f.metadataKey == "team" && f.metadataValues == ["red", "blue"])
        #expect(submit("/banned", &s) == [.people(.banned("c1"), query: "")])
        _ = reducer.reduce(&s, .key(.escape))
        #expect(submit("/muted", &s) == [.people(.muted("c1"), query: "")])
    }

    @Test func openChannelsEnterSelectTalkAndExit() {
        var s = state()
        #expect(submit("/open lob", &s) == [.browse(kind: .openChannels, query: "lob")])
        let lobby = OpenChannel(url: "o1", name: "Lobby", operators: [bob], participantCount: 12)
        _ = reducer.reduce(&s, .openBrowserResults(query: "lob", [lobby]))
        #expect(reducer.reduce(&s, .key(.enter)) == [.enterOpen("o1")])
        // Entering selects it and loads its history; no unread bookkeeping.
        let effects = reducer.reduce(&s, .event(.openChannelEntered(lobby)))
        #expect(s.selected == "o1" && s.openChannels == [lobby])
        #expect(effects.contains(.loadHistory(channelUrl: "o1", before: nil)))
        #expect(submit("hello room", &s).contains(.send(text: "hello room", channelUrl: "o1")))
        // Channel order: group channels, then open ones.
        _ = reducer.reduce(&s, .key(.ctrl("n")))
        #expect(s.selected == "c1")
        _ = reducer.reduce(&s, .key(.ctrl("n")))
        #expect(s.selected == "o1")
        // /members in an open channel lists its participants.
        #expect(submit("/members", &s) == [.people(.participants("o1"), query: "")])
        _ = reducer.reduce(&s, .key(.escape))
        #expect(submit("/exit", &s) == [.exitOpen("o1")])
        _ = reducer.reduce(&s, .event(.openChannelExited(url: "o1", reason: .banned)))
        #expect(s.openChannels.isEmpty && s.selected == "c1" && s.notice == "you were banned from #Lobby")
        #expect(submit("/exit", &s).isEmpty && s.notice?.contains("/quit") == true, "/exit does not quit")
    }

    @Test func moderationEventsShowInTheChannelAndAreNeverPicked() {
        var s = state()
        _ = reducer.reduce(&s, .event(.channelEvent(channelUrl: "c1", .muted(bob, endAt: -1))))
        _ = reducer.reduce(&s, .event(.channelEvent(channelUrl: "c1", .operatorsChanged([alice, bob]))))
        let lines = s.messages["c1"]!.filter { $0.customType == Reducer.localEventType }.map(\.text)
        #expect(lines == ["Bob muted", "operators now: you, Bob"])
        #expect(s.notice == "operators now: you, Bob")
        _ = reducer.reduce(&s, .key(.ctrl("r")))
        #expect(Reducer.picked(s)?.messageId == 1, "the picker skips tern's own lines")
    }

    @Test func peoplePaneTogglesAndFollowsTheOpenChannel() throws {
        var s = state()
        let lobby = OpenChannel(url: "o1", name: "Lobby", operators: [bob], participantCount: 2)
        s.openChannels = [lobby]
        _ = reducer.reduce(&s, .resized(width: 80, height: 12))
        let narrow = s.pane.width
        #expect(reducer.reduce(&s, .key(.ctrl("t"))).isEmpty, "a group channel's members come with it")
        #expect(s.sidePane && s.pane.width < narrow)
        // Selecting the open channel reads its participants; entering and leaving read them again.
        #expect(reducer.reduce(&s, .key(.ctrl("n"))).contains(.loadPane(channelUrl: "o1")))
        _ = reducer.reduce(&s, .paneLoaded(url: "o1", [.init(user: alice, online: true), .init(user: bob, online: true)]))
        #expect(Screen.paneRows(s).map(\.user.userId) == ["bob", "alice"], "operators first")
        #expect(reducer.reduce(&s, .event(.channelEvent(channelUrl: "o1", .exited(bob, count: 1)))) == [.loadPane(channelUrl: "o1")])
        let screen = Screen(theme: .builtin, timeZone: TimeZone(identifier: "UTC")!)
        s.hasPrevious["o1"] = false
        s.messages["o1"] = [Message(messageId: 9, channelUrl: "o1", text: "welcome", sender: bob, createdAt: t)]
        try assertGolden(screen.render(s, width: 80, height: 12, now: 0), "people-pane-80x12")
        _ = submit("/pane", &s)
        #expect(!s.sidePane && s.pane.width == narrow)
        // Too narrow for a pane: the user is told.
        _ = reducer.reduce(&s, .resized(width: 50, height: 12))
        _ = reducer.reduce(&s, .key(.ctrl("t")))
        #expect(s.notice?.contains("64 columns") == true && s.pane.width == Screen.messagePane(width: 50, height: 12).width)
    }

    @Test func goldenOpenChannelAndPeople() throws {
        var s = state()
        let lobby = OpenChannel(url: "o1", name: "Lobby", operators: [alice], participantCount: 1234)
        s.openChannels = [lobby]
        s.selected = "o1"
        s.hasPrevious["o1"] = false
        s.messages["o1"] = [
            Message(messageId: 5, channelUrl: "o1", text: "welcome to the stream", sender: alice, createdAt: t),
            Message(messageId: 6, channelUrl: "o1", text: "hi all", sender: bob, createdAt: t + 60_000),
        ]
        let screen = Screen(theme: .builtin, timeZone: TimeZone(identifier: "UTC")!)
        try assertGolden(screen.render(s, width: 80, height: 12, now: 0), "open-channel-80x12")
        var p = PeopleView(kind: .participants("o1"))
        p.rows = [.init(user: alice, online: true, isOperator: true), .init(user: bob, online: true, isMuted: true, detail: "until 14:02")]
        p.loading = false
        s.people = p
        try assertGolden(screen.render(s, width: 80, height: 12, now: 0), "people-80x12")
    }
}
