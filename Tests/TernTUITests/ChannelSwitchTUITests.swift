import Foundation
import TernKit
import TernProtocol
import Testing

@testable import TernTUI

/// What the screen shows is where input goes, whatever switches the channel (issue 30, point 2), and
/// `/go` / Alt-J rank by match quality (point 5).
@Suite("Channel switches: the thread, the draft and the input follow the channel on screen")
struct ChannelSwitchTUITests: TUIFixture {
    let reducer: Reducer = {
        var r = Reducer()
        r.layout = Screen(theme: .builtin, timeZone: TimeZone(identifier: "UTC")!)
        return r
    }()

    /// #dev (on screen, a message with a thread), #team and #team2.
    func state() -> AppState {
        var s = aliceAtTheKeyboard()
        s.connection = .open
        s.terminal = PaneSize(width: 72, height: 12)
        s.pane = Screen.messagePane(width: 72, height: 12)
        let dev = GroupChannel(url: "dev", name: "dev", members: [Member(user: alice), Member(user: bob)])
        let team2 = GroupChannel(url: "team2", name: "team2", members: [Member(user: alice), Member(user: bob)])
        let team = GroupChannel(url: "team", name: "team", members: [Member(user: alice), Member(user: bob)])
        // The sidebar's order: #dev, #team2 (more recent activity), #team.
        s.channels = [dev, team2, team]
        s.selected = "dev"
        for url in ["dev", "team", "team2"] { s.hasPrevious[url] = false }
        let parent = Message(messageId: 1, channelUrl: "dev", text: "deploy at five?", sender: bob, createdAt: t)
        s.messages["dev"] = [parent]
        s.messages["team"] = [Message(messageId: 5, channelUrl: "team", text: "lunch?", sender: bob, createdAt: t)]
        s.messages["team2"] = []
        return s
    }

    func command(_ text: String, _ s: inout AppState) -> [Effect] {
        _ = type(text, &s)
        return reducer.reduce(&s, .key(.enter))
    }

    @Test func goAwayFromAThreadSendsToTheChannelShownAndBringsTheThreadBack() throws {
        var s = state()
        _ = command("/thread", &s)
        #expect(s.thread?.channelUrl == "dev")
        _ = command("/go team", &s)
        #expect(s.selected == "team")
        #expect(s.thread == nil, "the #dev thread is not on screen in #team")
        #expect(s.parkedThreads["dev"]?.parent.messageId == 1)
        let screen = reducer.layout.render(s, width: 72, height: 12, now: 0)
        #expect(!screen.text.contains("thread>") && !screen.text.contains("── thread"))
        try assertGolden(screen, "go-from-thread-72x12")
        // Enter goes where the screen says: #team, as a plain message.
        let sent = command("hello team", &s)
        #expect(sent.contains(.send(text: "hello team", channelUrl: "team")))
        // Back in #dev the thread is there again, read anew (replies may have come meanwhile).
        let back = command("/go dev", &s)
        #expect(s.thread?.parent.messageId == 1 && s.thread?.loading == true)
        #expect(back.contains { if case .openThread(let m) = $0 { m.messageId == 1 } else { false } })
        let reply = command("me too", &s)
        #expect(reply.contains { if case .sendMessage(let p, "dev") = $0 { p.parentMessageId == 1 } else { false } })
    }

    /// Every path that changes the channel leaves no thread of another channel on screen.
    @Test func everyPathKeepsTheThreadWithItsChannel() {
        let paths: [(String, (inout AppState) -> Void)] = [
            ("Ctrl-N", { s in _ = reducer.reduce(&s, .key(.ctrl("n"))) }),
            ("Ctrl-P", { s in _ = reducer.reduce(&s, .key(.ctrl("p"))) }),
            ("Alt-↓", { s in _ = reducer.reduce(&s, .key(.altDown)) }),
            ("Alt-2", { s in _ = reducer.reduce(&s, .key(.alt("2"))) }),
            (
                "Alt-J",
                { s in
                    _ = reducer.reduce(&s, .key(.alt("j")))
                    _ = type("team", &s)
                    _ = reducer.reduce(&s, .key(.enter))
                }
            ),
            (
                "Alt-A",
                { s in
                    s.channels[2].unreadMessageCount = 1
                    _ = reducer.reduce(&s, .key(.alt("a")))
                }
            ),
            (
                "mouse",
                { s in
                    s.settings.mouse = true
                    _ = reducer.reduce(&s, .mouse(MouseEvent(.press(button: 1), x: 2, y: 2)))
                }
            ),
            (
                "/go",
                { s in
                    s.input = Array("/go team")
                    s.cursor = s.input.count
                    _ = reducer.reduce(&s, .key(.enter))
                }
            ),
            ("opened (/dm, /join, /create)", { s in _ = reducer.reduce(&s, .opened(s.channels[2])) }),
            (
                "search jump",
                { s in
                    s.search = SearchView()
                    s.search?.query = "lunch"
                    s.search?.answered = "lunch"
                    s.search?.results = [s.messages["team"]![0]]
                    _ = reducer.reduce(&s, .key(.enter))
                }
            ),
            ("channel removed", { s in _ = reducer.reduce(&s, .event(.channelRemoved(url: "dev", reason: .left))) }),
        ]
        for (name, path) in paths {
            var s = state()
            _ = command("/thread", &s)
            _ = type("draft for dev", &s)
            path(&s)
            #expect(s.selected != "dev", "\(name) switched")
            #expect(s.thread == nil || s.thread?.channelUrl == s.selected, "\(name): the thread belongs to the channel on screen")
            #expect(s.inputText != "draft for dev", "\(name): the #dev draft stays with #dev")
            let screen = reducer.layout.render(s, width: 72, height: 12, now: 0).text
            #expect(!screen.contains("thread>"), "\(name): no thread prompt outside its channel")
        }
    }

    @Test func aSwitchClosesWhatBelongedToTheOldChannel() {
        var s = state()
        s.settings.mouse = true
        // A pending "send 3 lines?" question must not send the next channel's draft.
        s.settings.pasteConfirmLines = 2
        _ = reducer.reduce(&s, .paste("a\nb\nc"))
        _ = reducer.reduce(&s, .key(.enter))
        #expect(s.confirmSend)
        _ = reducer.reduce(&s, .mouse(MouseEvent(.press(button: 1), x: 2, y: 2)))
        #expect(!s.confirmSend && s.picker == nil && s.editing == nil)
        #expect(s.drafts["dev"] == Array("a\nb\nc"))
    }

    // MARK: Point 5: ranking

    @Test func exactNameBeatsPrefixBeatsWordStartBeatsFuzzy() {
        var s = state()
        var ops = GroupChannel(url: "devops", name: "dev-ops")
        ops.members = [Member(user: alice)]
        var tm = GroupChannel(url: "tm", name: "the-main")
        tm.members = [Member(user: alice)]
        s.channels += [ops, tm]
        #expect(Reducer.switcherMatches("team", s).map(\.url).prefix(2) == ["team", "team2"])
        #expect(Reducer.switcherMatches("TEAM", s).first?.url == "team", "case does not matter")
        #expect(Reducer.switcherMatches("#team", s).first?.url == "team")
        #expect(Reducer.switcherMatches("tea", s).map(\.url).prefix(2) == ["team2", "team"], "both prefixes: sidebar order")
        #expect(Reducer.switcherMatches("ops", s).first?.url == "devops", "a word start")
        #expect(Reducer.switcherMatches("tm", s).contains { $0.url == "team" }, "fuzzy still finds")
        #expect(Reducer.MatchQuality.of("team", in: "Team")?.quality == .exact)
        #expect(Reducer.MatchQuality.of("te", in: "team")?.quality == .prefix)
        #expect(Reducer.MatchQuality.of("ops", in: "dev-ops")?.quality == .wordStart)
        #expect(Reducer.MatchQuality.of("vop", in: "devops")?.quality == .substring)
        #expect(Reducer.MatchQuality.of("dps", in: "devops")?.quality == .fuzzy)
        #expect(Reducer.MatchQuality.of("xyz", in: "devops") == nil)
        #expect(Reducer.MatchQuality.of("abc", in: "abd") == nil, "same length, no match")
    }

    @Test func goAndTheSwitcherOpenTheExactName() {
        var s = state()
        _ = command("/go team", &s)
        #expect(s.selected == "team")
        var t = state()
        _ = reducer.reduce(&t, .key(.alt("j")))
        _ = type("team", &t)
        _ = reducer.reduce(&t, .key(.enter))
        #expect(t.selected == "team")
    }
}
