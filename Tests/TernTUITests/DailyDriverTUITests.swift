import Foundation
import TernKit
import TernProtocol
import Testing

@testable import TernTUI

@Suite("Terminal input decoding")
struct InputDecoderTests {
    func decode(_ text: String) -> [TerminalInput] {
        var d = InputDecoder()
        return d.feed(text) + d.flush()
    }

    @Test func keysAltKeysAndSequences() {
        #expect(decode("a\u{1}\r\u{7F}\u{8}\t") == [.key(.char("a")), .key(.ctrl("a")), .key(.enter), .key(.backspace), .key(.ctrl("h")), .key(.tab)])
        #expect(decode("\u{1B}b\u{1B}\r\u{1B}\u{7F}") == [.key(.alt("b")), .key(.altEnter), .key(.altBackspace)])
        #expect(decode("\u{1B}[A\u{1B}[1;3B\u{1B}[1;5D\u{1B}[1;5C\u{1B}[Z") == [.key(.up), .key(.altDown), .key(.ctrlLeft), .key(.ctrlRight), .key(.shiftTab)])
        #expect(decode("\u{1B}[5~\u{1B}[6~\u{1B}[3~\u{1B}[1~\u{1B}[4~\u{1B}OP\u{1B}[15~") == [
            .key(.pageUp), .key(.pageDown), .key(.delete), .key(.home), .key(.end), .key(.function(1)), .key(.function(5)),
        ])
        #expect(decode("\u{1F}\u{0}") == [.key(.ctrl("_")), .key(.ctrl(" "))])
        #expect(decode("你好") == [.key(.char("你")), .key(.char("好"))])
        #expect(decode("\u{1B}[13;2u") == [.key(.altEnter)], "Shift-Enter (CSI u) is a new line too")
    }

    @Test func aLoneEscWaitsForTheDelay() {
        var d = InputDecoder()
        #expect(d.feed("\u{1B}").isEmpty && d.isPending)
        #expect(d.flush() == [.key(.escape)])
        #expect(!d.isPending)
        #expect(d.feed("\u{1B}\u{1B}") == [.key(.escape)])
        #expect(d.flush() == [.key(.escape)])
    }

    @Test func bracketedPasteFocusAndMouse() {
        #expect(decode("\u{1B}[200~line one\r\nline two\u{1B}[B\u{1B}[201~x") == [.paste("line one\nline two\u{1B}[B"), .key(.char("x"))])
        #expect(decode("\u{1B}[I\u{1B}[O") == [.focus(true), .focus(false)])
        #expect(decode("\u{1B}[<0;5;3M\u{1B}[<0;5;3m\u{1B}[<64;10;2M\u{1B}[<65;10;2M") == [
            .mouse(MouseEvent(.press(button: 1), x: 4, y: 2)), .mouse(MouseEvent(.release, x: 4, y: 2)),
            .mouse(MouseEvent(.wheelUp, x: 9, y: 1)), .mouse(MouseEvent(.wheelDown, x: 9, y: 1)),
        ])
        // A paste split across reads is still one.
        var d = InputDecoder()
        #expect(d.feed("\u{1B}[200~ab").isEmpty)
        #expect(d.feed("c\u{1B}[20").isEmpty)
        #expect(d.feed("1~") == [.paste("abc")])
    }
}

@Suite("Key map and settings")
struct KeyMapSettingsTests {
    @Test func presetsAndSequences() throws {
        let emacs = KeyTable.standard
        #expect(emacs.command(for: .ctrl("k")) == .killToEnd && emacs.command(for: .ctrl("s")) == .search)
        #expect(emacs.command(for: .alt("3")) == .jump3 && emacs.command(for: .alt("0")) == .jump10)
        #expect(emacs.match([.ctrl("x")], mode: .insert) == .prefix)
        #expect(emacs.match([.ctrl("x"), .ctrl("e")], mode: .insert) == .command(.editor))
        let vi = KeyTable(preset: .vi)
        #expect(vi.command(for: .escape) == .normalMode && vi.command(for: .char("j"), mode: .normal) == .lineDown)
        #expect(vi.match([.char("d")], mode: .normal) == .prefix && vi.match([.char("d"), .char("d")], mode: .normal) == .command(.clearInput))
        #expect(vi.command(for: .alt("a"), mode: .normal) == .nextActivity, "Alt keys work in both modes")
        #expect(try KeyTable.parse("C-x C-e") == [.ctrl("x"), .ctrl("e")])
        #expect(try KeyTable.parse("M-Enter") == [.altEnter] && KeyTable.parse("S-Tab") == [.shiftTab] && KeyTable.parse("Alt-b") == [.alt("b")])
        #expect(throws: KeyTable.BindingError.self) { try KeyTable.parse("C-é") }
        // Every command has a name the config can use, and the help lists every bound command.
        #expect(Command.allCases.allSatisfy { Command(rawValue: $0.rawValue) == $0 })
        let help = emacs.helpLines().map(\.keys)
        #expect(help.contains("Ctrl-S") && help.contains("Alt-1…Alt-9, Alt-0") && help.contains("Ctrl-X Ctrl-E"))
    }

    @Test func configFileParsesAndErrorsNameTheLine() throws {
        let s = try Settings.parse("""
            server = "http://127.0.0.1:9"
            theme = "light"
            keymap = "vi"
            highlights = ["deploy", "Outage"]
            notify_style = ["bell", "osc9"]
            dnd = "22:00-07:30"
            paste_confirm_lines = 8
            [keys]
            "M-s" = "search"
            "C-k" = "none"
            [keys.normal]
            "q" = "quit"
            [channels.random]
            notify = "none"
            """)
        #expect(s.server == "http://127.0.0.1:9" && s.theme == "light" && s.keymap == .vi && s.pasteConfirmLines == 8)
        #expect(s.highlights == ["deploy", "Outage"] && s.notifyStyle == ["bell", "osc9"] && s.quietWindow! == (1320, 450))
        let keys = try s.keyTable()
        #expect(keys.command(for: .alt("s")) == .search && keys.command(for: .ctrl("k")) == nil && keys.command(for: .char("q"), mode: .normal) == .quit)
        #expect(s.notifyLevel(url: "x", name: "random") == "none" && s.notifyLevel(url: "y", name: "team") == "mentions")
        func error(_ text: String) -> Settings.SettingsError? {
            do {
                _ = try Settings.parse(text, source: "c.toml")
                return nil
            } catch let e as Settings.SettingsError { return e } catch { return nil }
        }
        #expect(error("theme = \"dark\"\nkeymap = \"emacz\"\n")?.description == "c.toml:2: keymap takes emacs or vi, not \"emacz\"")
        #expect(error("\n\ncolour = 1\n")?.line == 3)
        #expect(error("mouse = \"yes\"")?.description == "c.toml:1: mouse must be true or false")
        #expect(error("theme = \n")?.line == 1, "TOML syntax errors name their line")
        #expect(error("[keys]\n\"C-q\" = \"fly\"\n")?.line == 2)
        #expect(error("[channels.x]\nnotify = \"loud\"\n")?.line == 2)
        #expect(error("theme = \"dark\"\n[keys]\n\"C-é\" = \"search\"\n")?.line == 3, "a key that cannot be bound names its line too")
        // The example config shipped in docs/ parses, and is the one in --help.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let file = try String(contentsOf: root.appendingPathComponent("docs/config.example.toml"), encoding: .utf8)
        #expect(file == exampleConfig, "run scripts/bundle-texts.py")
        _ = try Settings.parse(exampleConfig).keyTable()
    }

    @Test func setAndSaveRoundTrip() throws {
        var s = Settings()
        try s.set("notify_style", "osc777,osc9")
        try s.set("dnd", "23:00-06:00")
        try s.set("keymap", "vi")
        #expect(throws: Settings.SettingsError.self) { try s.set("notify", "loudly") }
        #expect(throws: Settings.SettingsError.self) { try s.set("colour", "1") }
        s.keys["M-s"] = "search"
        s.channels["random"] = .init(notify: "none")
        let back = try Settings.parse(s.toml())
        #expect(back == s)
    }

    @Test func bundledThemesMatchTheirFilesAndParse() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        for name in ["dark", "light", "high-contrast"] {
            let file = try String(contentsOf: root.appendingPathComponent("themes/\(name).theme"), encoding: .utf8)
            #expect(bundledThemeTexts[name] == file, "run scripts/bundle-texts.py")
            let t = try Theme.named(name, themesDirectory: "/nonexistent")
            #expect(Theme.keys.allSatisfy { t.styles[$0] != nil }, "\(name) sets every key")
        }
        #expect(throws: Theme.ParseError.self) { try Theme.named("neon", themesDirectory: "/nonexistent") }
        // Nick colours: stable per user, from the theme's palette, none without colour.
        let dark = try Theme.named("dark", themesDirectory: "/nonexistent")
        #expect(dark.nickStyle("bob") == dark.nickStyle("bob") && dark.nickStyle("bob").bold)
        #expect(Set(["alice", "bob", "carol", "dave", "erin", "frank"].map { dark.nickStyle($0).fg }).count > 2)
        #expect(dark.withoutColor().nickStyle("bob").fg == .default)
    }
}

@Suite("Composing, history, completion, activity, presence")
struct ComposingTUITests {
    let alice = User(userId: "alice", nickname: "Alice")
    let bob = User(userId: "bob", nickname: "Bob")
    var reducer: Reducer {
        var r = Reducer()
        r.listDirectory = { path in
            path == "/data" ? [.init(name: "notes.txt", isDirectory: false), .init(name: "nested", isDirectory: true), .init(name: ".hidden", isDirectory: false)] : []
        }
        return r
    }

    func state() -> AppState {
        var s = AppState(me: alice, server: "test")
        s.present = true
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

    func type(_ text: String, _ s: inout AppState) { for c in text { _ = reducer.reduce(&s, .key(.char(c))) } }
    func key(_ k: Key, _ s: inout AppState) -> [Effect] { reducer.reduce(&s, .key(k)) }

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
        #expect(sent.contains { if case .sendMessage(let p, _) = $0 { p.text == "half\nmore" } else if case .send("half\nmore", _) = $0 { true } else { false } })
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
        type("@", &s)
        _ = key(.tab, &s)
        #expect(s.inputText == "@carol ", "who spoke last comes first")
        _ = key(.tab, &s)
        #expect(s.inputText == "@bob ")
        _ = key(.shiftTab, &s)
        #expect(s.inputText == "@carol ")
        _ = key(.escape, &s)
        #expect(s.inputText == "@", "Esc puts the word back")
        _ = key(.ctrl("u"), &s)
        type("/cou", &s)
        _ = key(.tab, &s)
        #expect(s.inputText == "/count ")
        type("men", &s)
        _ = key(.tab, &s)
        #expect(s.inputText == "/count mentions ")
        _ = key(.ctrl("u"), &s)
        type("see #o", &s)
        _ = key(.tab, &s)
        #expect(s.inputText == "see #ops ")
        type(":tada", &s)
        _ = key(.tab, &s)
        #expect(s.inputText == "see #ops 🎉")
        _ = key(.ctrl("u"), &s)
        type("/upload /data/", &s)
        _ = key(.tab, &s)
        #expect(s.inputText == "/upload /data/nested/", "directories first by name, hidden files left out")
        _ = key(.tab, &s)
        #expect(s.inputText == "/upload /data/notes.txt ")
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
        #expect(Reducer.alertEffects(plain, s, timeZone: TimeZone(identifier: "UTC")!).isEmpty)
        _ = reducer.reduce(&s, .key(.char("/")))
        "notify mentions".forEach { _ = reducer.reduce(&s, .key(.char($0))) }
        _ = reducer.reduce(&s, .key(.enter))
        #expect(s.settings.channels["c3"]?.notify == "mentions")
        "/set notify_style bell,osc9".forEach { _ = reducer.reduce(&s, .key(.char($0))) }
        _ = reducer.reduce(&s, .key(.enter))
        #expect(s.settings.notifyStyle == ["bell", "osc9"])
        "/set keymap vim".forEach { _ = reducer.reduce(&s, .key(.char($0))) }
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

@Suite("Time formats")
struct TimeFormatTests {
    @Test func patternsMatchDateFormatter() {
        let zones = [TimeZone(identifier: "UTC")!, TimeZone(identifier: "Asia/Kolkata")!, TimeZone(identifier: "America/Los_Angeles")!]
        let patterns = ["HH:mm", "HH:mm:ss", "h:mm a", "EEE d MMM yyyy", "d MMM HH:mm", "yyyy-MM-dd'T'HH:mm", "EEEE, MMMM d", "yy/M/d"]
        for zone in zones {
            for t: Double in [0, 951_782_400, 1_795_300_000.5, 1_709_164_800, -34_560_000] {
                let date = Date(timeIntervalSince1970: t)
                for p in patterns {
                    let f = DateFormatter()
                    f.locale = Locale(identifier: "en_US_POSIX")
                    f.timeZone = zone
                    f.dateFormat = p
                    #expect(TimeFormat(p, timeZone: zone).string(from: date) == f.string(from: date), "\(p) at \(t) in \(zone.identifier)")
                }
            }
        }
    }
}
