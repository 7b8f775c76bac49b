import Foundation
import TernKit
import TernProtocol
import Testing

@testable import TernTUI

@Suite("Composing, history, completion, activity, presence")
struct ComposingTUITests: TUIFixture {
    var reducer: Reducer {
        var r = Reducer()
        r.listDirectory = { path in
            path == "/data"
                ? [
                    .init(name: "notes.txt", isDirectory: false), .init(name: "nested", isDirectory: true),
                    .init(name: ".hidden", isDirectory: false),
                ] : []
        }
        return r
    }

    func state() -> AppState {
        var s = aliceAtTheKeyboard()
        var team = GroupChannel(url: "c1", name: "team", members: [Member(user: alice), Member(user: bob), Member(user: User(userId: "carol"))])
        team.lastMessage = Message(messageId: 1, channelUrl: "c1", text: "x", sender: bob, createdAt: 3)
        var ops = GroupChannel(url: "c2", name: "ops", members: [Member(user: alice), Member(user: bob), Member(user: User(userId: "carol"))])
        ops.lastMessage = Message(messageId: 2, channelUrl: "c2", text: "x", sender: bob, createdAt: 2)
        var dm = GroupChannel(url: "c3", name: "", members: [Member(user: alice), Member(user: bob)])
        dm.lastMessage = Message(messageId: 3, channelUrl: "c3", text: "x", sender: bob, createdAt: 1)
        s.channels = [team, ops, dm]
        s.selected = "c1"
        s.messages["c1"] = []
        _ = Reducer().reduce(&s, .resized(width: 80, height: 20))
        return s
    }

    func key(_ k: Key, _ s: inout AppState) -> [Effect] { reducer.reduce(&s, .key(k)) }
    /// Types `text` and presses Tab: the input line completed.
    func complete(_ text: String, _ s: inout AppState) -> String {
        type(text, &s)
        _ = key(.tab, &s)
        return s.inputText
    }

    @Test func readlineEditingKillYankAndUndo() {
        var s = state()
        type("one two three", &s)
        _ = key(.ctrl("w"), &s)
        #expect(s.inputText == "one two " && s.killBuffer == Array("three"))
        _ = key(.altBackspace, &s)
        #expect(s.inputText == "one ")
        _ = key(.ctrl("y"), &s)
        #expect(s.inputText == "one two ")
        _ = key(.ctrl("a"), &s)
        _ = key(.alt("f"), &s)
        #expect(s.cursor == 3)
        _ = key(.alt("d"), &s)
        #expect(s.inputText == "one ")
        _ = key(.ctrl("_"), &s)
        #expect(s.inputText == "one two ")
        _ = key(.ctrl("e"), &s)
        _ = key(.ctrlLeft, &s)
        _ = key(.ctrl("k"), &s)
        #expect(s.inputText == "one ")
        _ = key(.ctrl("u"), &s)
        #expect(s.inputText.isEmpty)
        // A run of typing is one undo step.
        type("hello", &s)
        _ = key(.ctrl("_"), &s)
        #expect(s.inputText.isEmpty)
        // Ctrl-D deletes under the cursor; on an empty line it quits.
        type("ab", &s)
        _ = key(.ctrl("a"), &s)
        _ = key(.ctrl("d"), &s)
        #expect(s.inputText == "b")
        _ = key(.ctrl("e"), &s)
        _ = key(.ctrl("u"), &s)
        #expect(key(.ctrl("d"), &s) == [.quit])
    }

    @Test func historyDraftsAndMultiLine() {
        var s = state()
        type("first", &s)
        _ = key(.enter, &s)
        type("second", &s)
        _ = key(.enter, &s)
        type("half", &s)
        _ = key(.up, &s)
        #expect(s.inputText == "second")
        _ = key(.up, &s)
        _ = key(.up, &s)
        #expect(s.inputText == "first")
        _ = key(.down, &s)
        _ = key(.down, &s)
        #expect(s.inputText == "half", "past the newest: the line being written comes back")
        // The draft stays with its channel.
        _ = key(.ctrl("n"), &s)
        #expect(s.selected == "c2" && s.input.isEmpty)
        _ = key(.up, &s)
        #expect(s.input.isEmpty && s.notice?.hasPrefix("nothing sent here yet") == true, "history is per channel")
        _ = key(.ctrl("p"), &s)
        #expect(s.selected == "c1" && s.inputText == "half")
        // Alt-Enter: a new line; the input grows and the pane shrinks; ↑ moves between lines first.
        let pane = s.pane.height
        _ = key(.altEnter, &s)
        type("more", &s)
        #expect(s.inputText == "half\nmore" && s.pane.height == pane - 1)
        _ = key(.up, &s)
        #expect(s.cursor == 4 && s.inputText == "half\nmore")
        let sent = key(.enter, &s)
        #expect(
            sent.contains {
                if case .sendMessage(let p, _) = $0 { p.text == "half\nmore" } else if case .send("half\nmore", _) = $0 { true } else { false }
            })
        #expect(s.pane.height == pane)
    }

    @Test func pasteConfirmationAndLengthLimit() {
        var s = state()
        s.settings.pasteConfirmLines = 2
        _ = reducer.reduce(&s, .paste("a\nb\nc"))
        #expect(s.inputText == "a\nb\nc" && s.notice?.contains("3 lines") == true)
        #expect(key(.enter, &s).isEmpty && s.confirmSend)
        _ = key(.char("n"), &s)
        #expect(!s.confirmSend && s.inputText == "a\nb\nc", "n keeps it")
        _ = key(.enter, &s)
        let sent = key(.char("y"), &s)
        #expect(sent.contains { if case .send("a\nb\nc", "c1") = $0 { true } else { false } })
        // Over Sendbird's limit: refused before sending, the text stays.
        _ = reducer.reduce(&s, .paste(String(repeating: "x", count: Reducer.messageLimit + 1)))
        #expect(key(.enter, &s).isEmpty && s.notice?.hasPrefix("too long") == true && s.input.count == Reducer.messageLimit + 1)
        let screen = Screen().render(s, width: 80, height: 20, now: 0)
        #expect(screen.line(18).contains("5001/5000"), "the counter near the limit")
    }

    @Test func completionCyclesNicksCommandsChannelsEmojiAndPaths() {
        var s = state()
        s.messages["c1"] = [Message(messageId: 5, channelUrl: "c1", text: "hi", sender: User(userId: "carol"), createdAt: 9)]
        #expect(complete("@", &s) == "@carol ", "who spoke last comes first")
        #expect(complete("", &s) == "@bob ")
        _ = key(.shiftTab, &s)
        #expect(s.inputText == "@carol ")
        _ = key(.escape, &s)
        #expect(s.inputText == "@", "Esc puts the word back")
        _ = key(.ctrl("u"), &s)
        #expect(complete("/cou", &s) == "/count ")
        #expect(complete("men", &s) == "/count mentions ")
        _ = key(.ctrl("u"), &s)
        #expect(complete("see #o", &s) == "see #ops ")
        #expect(complete(":tada", &s) == "see #ops 🎉")
        _ = key(.ctrl("u"), &s)
        #expect(complete("/upload /data/", &s) == "/upload /data/nested/", "directories first by name, hidden files left out")
        #expect(complete("", &s) == "/upload /data/notes.txt ")
    }

    @Test func hotlistAltAJumpsAndTheSwitcher() {
        var s = state()
        s.channels[1].unreadMessageCount = 2
        s.channels[2].unreadMessageCount = 1
        s.channels[2].unreadMentionCount = 0
        #expect(Reducer.hotlist(s).map(\.url) == ["c3", "c2"], "1-on-1s before plain groups")
        s.channels[1].unreadMentionCount = 1
        #expect(Reducer.hotlist(s).map(\.url) == ["c2", "c3"], "mentions first")
        _ = key(.alt("a"), &s)
        #expect(s.selected == "c2")
        _ = key(.alt("a"), &s)
        #expect(s.selected == "c3")
        _ = key(.alt("a"), &s)
        #expect(s.selected == "c3" && s.notice == "no activity elsewhere")
        _ = key(.alt("1"), &s)
        #expect(s.selected == "c1")
        _ = key(.alt("9"), &s)
        #expect(s.notice == "no channel 9 (there are 3)")
        #expect(Reducer.switcherMatches("tm", s).first?.url == "c1")
        #expect(Reducer.switcherMatches("op", s).map(\.url) == ["c2"])
        _ = key(.alt("j"), &s)
        type("ops", &s)
        _ = key(.enter, &s)
        #expect(s.selected == "c2" && s.switcher == nil)
        let title = Screen.title(s)
        #expect(title.hasPrefix("tern · #ops") || title.contains("tern · #ops"))
    }

    @Test func aChannelOpenedByTernIsReadOnlyOnceTheUserIsThere() {
        var s = AppState(me: alice, server: "test")
        var c = GroupChannel(url: "c1", name: "team", members: [Member(user: alice), Member(user: bob)])
        c.unreadMessageCount = 3
        // tern opens the first channel by itself: history loads, nothing is marked read.
        let opened = reducer.reduce(&s, .channelsLoaded([c]))
        #expect(s.selected == "c1" && opened == [.show(channelUrl: "c1"), .loadHistory(channelUrl: "c1", before: nil)])
        #expect(s.channels[0].unreadMessageCount == 3)
        // A message arrives and the server counts it: still unread, and it alerts (not seen).
        c.unreadMessageCount = 4
        _ = reducer.reduce(&s, .event(.channelUpdated(c)))
        #expect(s.channels[0].unreadMessageCount == 4)
        let m = Message(messageId: 9, channelUrl: "c1", text: "hey", sender: bob, createdAt: 1)
        #expect(!Reducer.alertEffects(m, s).isEmpty, "a 1-on-1 message not yet seen alerts")
        // The first key: the user is there, the channel is read (the new-messages line goes above what was unread).
        let seen = reducer.reduce(&s, .key(.char("x")))
        #expect(seen.contains(.view(channelUrl: "c1")) && s.channels[0].unreadMessageCount == 0)
        // Focus out: unviewed; new messages count; focus in: read again.
        #expect(reducer.reduce(&s, .focus(false)) == [.show(channelUrl: "c1")], "kept current, no longer read")
        c.unreadMessageCount = 1
        _ = reducer.reduce(&s, .event(.channelUpdated(c)))
        #expect(s.channels[0].unreadMessageCount == 1 && Reducer.hotlist(s).map(\.url) == ["c1"])
        #expect(reducer.reduce(&s, .focus(true)).contains(.view(channelUrl: "c1")) && s.channels[0].unreadMessageCount == 0)
        // Focus reported before any key also counts as the user being there.
        var t = AppState(me: alice, server: "test")
        _ = reducer.reduce(&t, .channelsLoaded([c]))
        #expect(reducer.reduce(&t, .focus(true)).contains(.view(channelUrl: "c1")))
    }

    @Test func notifyLevelsHighlightsAndDoNotDisturb() {
        var s = state()
        s.selected = "c3"
        let plain = Message(messageId: 9, channelUrl: "c1", text: "the deploy is done", sender: bob, createdAt: 1_795_300_000_000)
        #expect(Reducer.alertEffects(plain, s).isEmpty, "a plain group message is quiet by default")
        s.settings.highlights = ["Deploy"]
        #expect(Reducer.alertEffects(plain, s) == [.alert(title: "Bob in #team", body: "the deploy is done")])
        #expect(Reducer.highlighted("redeployed", words: ["deploy"]) == false, "whole words only")
        s.settings.channels["team"] = .init(notify: "none")
        #expect(Reducer.alertEffects(plain, s).isEmpty)
        s.settings.channels["team"] = nil
        s.settings.notify = "all"
        s.settings.highlights = []
        #expect(!Reducer.alertEffects(plain, s).isEmpty)
        s.settings.doNotDisturb = "00:00-23:59"
        #expect(Reducer.alertEffects(plain, s, zone: .utc).isEmpty)
        _ = reducer.reduce(&s, .key(.char("/")))
        for c in "notify mentions" { _ = reducer.reduce(&s, .key(.char(c))) }
        _ = reducer.reduce(&s, .key(.enter))
        #expect(s.settings.channels["c3"]?.notify == "mentions")
        for c in "/set notify_style bell,osc9" { _ = reducer.reduce(&s, .key(.char(c))) }
        _ = reducer.reduce(&s, .key(.enter))
        #expect(s.settings.notifyStyle == ["bell", "osc9"])
        for c in "/set keymap vim" { _ = reducer.reduce(&s, .key(.char(c))) }
        _ = reducer.reduce(&s, .key(.enter))
        #expect(s.notice == "keymap takes emacs or vi, not \"vim\"" && s.settings.keymap == .emacs)
    }

    @Test func anUnboundAltKeyIsEscThenTheKey() {
        var s = state()
        s.showHelp = true
        _ = key(.alt("/"), &s)
        #expect(!s.showHelp && s.inputText == "/", "Esc closed the help, / was typed")
    }

    @Test func mouseClicksChannelsAndWheelScrolls() {
        var s = state()
        // Row 0 is the "Channels" header, then team, ops, the 1-on-1.
        _ = reducer.reduce(&s, .mouse(MouseEvent(.press(button: 1), x: 2, y: 2)))
        #expect(s.selected == "c2")
        s.settings.mouse = false
        _ = reducer.reduce(&s, .mouse(MouseEvent(.press(button: 1), x: 2, y: 3)))
        #expect(s.selected == "c2", "mouse off: clicks do nothing")
    }

    @Test func goldenMultiLineInputSwitcherAndViMode() throws {
        var s = state()
        s.channels[1].unreadMessageCount = 2
        s.channels[1].unreadMentionCount = 1
        s.input = Array("first line\nsecond line\nthird")
        s.cursor = s.input.count
        try assertGolden(Screen().render(s, width: 72, height: 12, now: 0), "multiline-72x12")
        s.input = []
        s.cursor = 0
        s.switcher = Switcher()
        s.switcher?.query = "o"
        try assertGolden(Screen().render(s, width: 72, height: 12, now: 0), "switcher-72x12")
        s.switcher = nil
        let vi = Screen(keys: KeyTable(preset: .vi))
        s.mode = .normal
        s.input = Array("draft")
        try assertGolden(vi.render(s, width: 72, height: 8, now: 0), "vi-normal-72x8")
    }
}
