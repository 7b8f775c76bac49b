import Foundation
import TernKit
import Testing

@testable import TernTUI

@Suite("Cell widths and wrapping")
struct WidthTests {
    @Test func widths() {
        #expect(CellWidth.of("a" as Character) == 1)
        #expect(CellWidth.of("你" as Character) == 2)
        #expect(CellWidth.of("😀" as Character) == 2)
        #expect(CellWidth.of("❤️" as Character) == 2)  // VS16
        #expect(CellWidth.of("👩‍💻" as Character) == 2)  // ZWJ
        #expect(CellWidth.of("🇫🇷" as Character) == 2)  // flag
        #expect(CellWidth.of("é" as Character) == 1)  // e + combining acute
        #expect(CellWidth.of("ｱ" as Character) == 1)  // halfwidth katakana
        #expect(CellWidth.of("hello 你好 😀") == 6 + 4 + 1 + 2)
    }

    @Test func wrapping() {
        #expect(CellWidth.wrap("the quick brown fox", width: 10) == ["the quick", "brown fox"])
        #expect(CellWidth.wrap("abcdefghijkl", width: 5) == ["abcde", "fghij", "kl"])
        #expect(CellWidth.wrap("你好世界你好", width: 5) == ["你好", "世界", "你好"])
        #expect(CellWidth.wrap("a\nb", width: 5) == ["a", "b"])
        for line in CellWidth.wrap("emoji 😀😀😀 and 中文字符 mixed text here", width: 7) { #expect(CellWidth.of(line) <= 7) }
    }

    @Test func gridKeepsWideGlyphsWhole() {
        var g = CellGrid(width: 5, height: 1)
        let end = g.write("ab你好", x: 0, y: 0, style: .plain)
        #expect(end == 5)
        #expect(g.line(0) == "ab你")  // 好 does not fit in the last cell: a space instead
        #expect(g[3, 0].isContinuation)
        var h = g
        h.write("X", x: 0, y: 0, style: .plain)
        let changes = h.changes(since: g)
        #expect(changes.count == 1 && changes[0].x == 0 && changes[0].count == 1)
    }
}

@Suite("Themes")
struct ThemeTests {
    @Test func shippedFileMatchesTheBuiltin() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("themes/default.theme")
        let file = try Theme.load(path: url.path)
        #expect(file.styles == Theme.builtin.styles)
        #expect(Theme.builtin.style("roomlist.unread").bold)
        #expect(Theme.builtin.style("timeline.nick").fg == .index(6))
        // Inheritance: an unset key falls back along its dots.
        #expect(Theme.builtin.style("timeline.text.self") == Theme.builtin.style("timeline.text.self"))
        #expect(Theme.builtin.style("status.user").reverse)
    }

    @Test func parsing() throws {
        let t = try Theme.parse("""
            [palette]
            hot = #ff0000
            [styles]
            default = white on 235
            roomlist = hot bold underline
            """)
        #expect(t.style("default") == Style(fg: .index(7), bg: .index(235)))
        #expect(t.style("roomlist.unread") == Style(fg: .index(196), bold: true, underline: true))
        #expect(t.withoutColor().style("roomlist").fg == .default)
        #expect(t.withoutColor().style("roomlist").bold)
    }

    @Test func errorsNameTheLine() {
        func error(_ text: String) -> String {
            do {
                _ = try Theme.parse(text, source: "t")
                return ""
            } catch { return "\(error)" }
        }
        #expect(error("[styles]\nroomlist.shiny = red") == "t:2: unknown style key \"roomlist.shiny\"")
        #expect(error("[styles]\nroomlist = reddish") == "t:2: unknown colour or attribute \"reddish\"")
        #expect(error("[colours]") == "t:1: unknown section [colours] (expected [meta], [palette] or [styles])")
        #expect(error("default = red") == "t:1: \"default\" is outside a section")
        #expect(error("[styles]\nroomlist = red on") == "t:2: \"on\" needs a colour after it")
        #expect(error("[meta]\nbackground = pink") == "t:2: background must be dark or light, not \"pink\"")
    }
}

@Suite("Reducer and key table")
struct ReducerTests {
    let reducer = Reducer()

    func state() -> AppState {
        var s = AppState(me: User(userId: "alice"), server: "test")
        s.present = true  // the user is at the keyboard (else the channel on screen is not yet read)
        for (i, url) in ["c1", "c2", "c3"].enumerated() {
            var c = GroupChannel(url: url, name: url, members: [Member(user: User(userId: "alice")), Member(user: User(userId: "bob"))])
            c.createdAt = Int64(100 - i)
            c.unreadMessageCount = i
            s.channels.append(c)
        }
        s.selected = "c1"
        s.messages["c1"] = []
        return s
    }

    func type(_ text: String, _ s: inout AppState) -> [Effect] {
        text.flatMap { reducer.reduce(&s, .key(.char($0))) }
    }

    @Test func typingAndSending() {
        var s = state()
        let effects = type("hi", &s)
        #expect(effects == [.typing(channelUrl: "c1", started: true), .typing(channelUrl: "c1", started: true)])
        #expect(s.inputText == "hi" && s.cursor == 2)
        #expect(reducer.reduce(&s, .key(.enter)) == [.typing(channelUrl: "c1", started: false), .send(text: "hi", channelUrl: "c1")])
        #expect(s.input.isEmpty)
        #expect(reducer.reduce(&s, .key(.enter)).isEmpty)  // nothing to send
    }

    @Test func editingKeys() {
        var s = state()
        _ = type("hello world", &s)
        _ = reducer.reduce(&s, .key(.ctrl("w")))
        #expect(s.inputText == "hello ")
        _ = reducer.reduce(&s, .key(.ctrl("a")))
        _ = reducer.reduce(&s, .key(.delete))
        #expect(s.inputText == "ello " && s.cursor == 0)
        _ = reducer.reduce(&s, .key(.ctrl("e")))
        _ = reducer.reduce(&s, .key(.backspace))
        #expect(s.inputText == "ello")
        _ = reducer.reduce(&s, .key(.ctrl("u")))
        #expect(s.inputText.isEmpty)
    }

    @Test func commands() {
        var s = state()
        _ = type("/dm bob", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.openDirect(userId: "bob")])
        _ = type("/create ops bob carol", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.createGroup(name: "ops", userIds: ["bob", "carol"])])
        _ = type("/dm", &s)
        #expect(reducer.reduce(&s, .key(.enter)).isEmpty && s.notice == "usage: /dm USER")
        _ = type("/frobnicate", &s)
        _ = reducer.reduce(&s, .key(.enter))
        #expect(s.notice?.hasPrefix("unknown command /frobnicate") == true)
        // Channel commands act on the channel on screen.
        _ = type("/invite carol dave", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.channel(.invite(["carol", "dave"]), channelUrl: "c1")])
        _ = type("/rename the new name", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.channel(.rename("the new name"), channelUrl: "c1")])
        for (word, command) in [("accept", ChannelCommand.accept), ("decline", .decline), ("leave", .leave), ("hide", .hide), ("archive", .archive), ("freeze", .freeze), ("unfreeze", .unfreeze)] {
            _ = type("/" + word, &s)
            #expect(reducer.reduce(&s, .key(.enter)) == [.channel(command, channelUrl: "c1")])
        }
        _ = type("/invite", &s)
        #expect(reducer.reduce(&s, .key(.enter)).isEmpty && s.notice == "usage: /invite USER…")
        _ = type("/autoaccept off", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.setAutoAccept(false)])
        _ = type("/autoaccept maybe", &s)
        #expect(reducer.reduce(&s, .key(.enter)).isEmpty && s.notice?.hasPrefix("usage: /autoaccept") == true)
        _ = type("/join lobby", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.joinPublic("lobby")])
        // Counting and blocking.
        _ = type("/count mentions", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.channel(.countPreference(.mentionsOnly), channelUrl: s.selected ?? "?")])
        _ = type("/count some", &s)
        #expect(reducer.reduce(&s, .key(.enter)).isEmpty && s.notice?.hasPrefix("usage: /count") == true)
        _ = type("/block mallory", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.block("mallory")])
        _ = type("/unblock mallory", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.unblock("mallory")])
        _ = type("/blocked", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.listBlocked])
        _ = type("/readall", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.markAllRead])
        _ = reducer.reduce(&s, .event(.userBlocked(User(userId: "mallory"))))
        #expect(s.notice?.hasPrefix("blocked mallory") == true)
        _ = reducer.reduce(&s, .notice("invited carol"))
        #expect(s.notice == "invited carol")
        _ = type("/help", &s)
        _ = reducer.reduce(&s, .key(.enter))
        #expect(s.showHelp)
        _ = reducer.reduce(&s, .key(.char("x")))  // any key closes help
        #expect(!s.showHelp && s.input.isEmpty)
        _ = type("/quit", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.quit] && s.quitting)
        var t = state()
        #expect(reducer.reduce(&t, .key(.ctrl("c"))) == [.quit])
    }

    @Test func switchingChannelsMarksReadAndLoadsHistory() {
        var s = state()
        let next = reducer.reduce(&s, .key(.ctrl("n")))
        #expect(s.selected == "c2")
        #expect(next == [.unview(channelUrl: "c1"), .view(channelUrl: "c2"), .loadHistory(channelUrl: "c2", before: nil)])
        #expect(s.channels.first { $0.url == "c2" }?.unreadMessageCount == 0)
        _ = reducer.reduce(&s, .key(.ctrl("p")))
        _ = reducer.reduce(&s, .key(.ctrl("p")))
        #expect(s.selected == "c3")  // wraps around
        _ = reducer.reduce(&s, .key(.altDown))
        #expect(s.selected == "c1")
    }

    @Test func scrollingPagesByThePaneAndLoadsHistoryBeforeTheTop() {
        var s = state()
        let t: Millis = 1_795_300_000_000
        s.messages["c1"] = (1...60).map { Message(messageId: Int64($0), channelUrl: "c1", text: "line \($0)", sender: User(userId: "bob"), createdAt: t + Int64($0)) }
        s.hasPrevious["c1"] = true
        _ = reducer.reduce(&s, .resized(width: 80, height: 14))
        #expect(s.pane == PaneSize(width: 58, height: 11))
        let total = reducer.layout.lineCount(s, width: 58)
        #expect(total == 61)  // a day separator and 60 one-line messages
        // A page is the pane's height less one line of overlap.
        #expect(reducer.reduce(&s, .key(.pageUp)).isEmpty)
        #expect(s.scroll == 10)
        _ = reducer.reduce(&s, .key(.pageUp))
        _ = reducer.reduce(&s, .key(.pageUp))
        #expect(s.scroll == 30)
        // Within a page of the top, the older page is asked for once.
        let load = reducer.reduce(&s, .key(.pageUp))
        #expect(s.scroll == 40)
        #expect(load == [.loadHistory(channelUrl: "c1", before: t + 1)])
        #expect(reducer.reduce(&s, .key(.pageUp)).isEmpty)  // already loading
        let top = reducer.layout.lineCount(s, width: 58) - 11
        #expect(top == total + 1 - 11)  // a "loading" line shows at the top meanwhile
        #expect(s.scroll == 50)
        _ = reducer.reduce(&s, .key(.pageUp))
        #expect(s.scroll == top)  // never past the top
        _ = reducer.reduce(&s, .key(.pageUp))
        #expect(s.scroll == top)
        // Older messages land above: what is on screen stays (scroll counts from the bottom).
        let older = (1...5).map { Message(messageId: Int64(100 + $0), channelUrl: "c1", text: "old \($0)", sender: User(userId: "bob"), createdAt: t - 10 + Int64($0)) }
        _ = reducer.reduce(&s, .historyLoaded(url: "c1", page: MessagePage(messages: older, hasPrevious: false), replace: false))
        #expect(s.scroll == top)
        // A new message below while reading keeps the view still, too.
        let before = s.scroll
        _ = reducer.reduce(&s, .event(.messageReceived(Message(messageId: 200, channelUrl: "c1", text: "new", sender: User(userId: "bob"), createdAt: t + 100))))
        #expect(s.scroll == before + 1)
        _ = reducer.reduce(&s, .key(.pageDown))
        #expect(s.scroll == before + 1 - 10)
        // A taller terminal shows everything: nothing is left to scroll.
        _ = reducer.reduce(&s, .resized(width: 80, height: 200))
        #expect(s.scroll == 0)
    }

    @Test func browserAndInfoKeys() {
        var s = state()
        // Ctrl-G opens the public browser and asks for channels; typing searches; Tab switches to hidden ones.
        #expect(reducer.reduce(&s, .key(.ctrl("g"))) == [.browse(kind: .publicChannels, query: "")])
        #expect(reducer.reduce(&s, .key(.char("l"))) == [.browse(kind: .publicChannels, query: "l")])
        _ = type("ob type:game", &s)
        #expect(s.browser?.terms.name == "lob" && s.browser?.terms.customType == "game")
        #expect(s.input.isEmpty)  // typing went to the search, not the message line
        // Results for an older query are dropped; the current ones shown.
        _ = reducer.reduce(&s, .browserResults(kind: .publicChannels, query: "l", [GroupChannel(url: "old")]))
        #expect(s.browser?.results.isEmpty == true)
        let found = [GroupChannel(url: "x1", name: "lobby"), GroupChannel(url: "x2", name: "lobby 2")]
        _ = reducer.reduce(&s, .browserResults(kind: .publicChannels, query: "lob type:game", found))
        #expect(s.browser?.results.count == 2 && s.browser?.loading == false)
        _ = reducer.reduce(&s, .key(.down))
        #expect(reducer.reduce(&s, .key(.enter)) == [.channel(.join, channelUrl: "x2")])
        #expect(s.browser == nil)
        _ = reducer.reduce(&s, .key(.ctrl("g")))
        // Tab: public → open channels → hidden ones.
        #expect(reducer.reduce(&s, .key(.tab)) == [.browse(kind: .openChannels, query: "")])
        #expect(reducer.reduce(&s, .key(.tab)) == [.browse(kind: .hiddenChannels, query: "")])
        _ = reducer.reduce(&s, .browserResults(kind: .hiddenChannels, query: "", [GroupChannel(url: "h1")]))
        #expect(reducer.reduce(&s, .key(.enter)) == [.channel(.unhide, channelUrl: "h1")])
        _ = type("/hidden", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.browse(kind: .hiddenChannels, query: "")])
        _ = reducer.reduce(&s, .key(.escape))
        #expect(s.browser == nil)
        // Ctrl-O: the info view; a letter acts, invite starts the command line.
        _ = reducer.reduce(&s, .key(.ctrl("o")))
        #expect(s.info == "c1")
        #expect(reducer.reduce(&s, .key(.char("l"))) == [.channel(.leave, channelUrl: "c1")])
        #expect(s.info == nil)
        _ = reducer.reduce(&s, .key(.ctrl("o")))
        _ = reducer.reduce(&s, .key(.char("i")))
        #expect(s.inputText == "/invite " && s.info == nil)
        _ = reducer.reduce(&s, .key(.ctrl("u")))
        _ = reducer.reduce(&s, .key(.ctrl("o")))
        #expect(reducer.reduce(&s, .key(.char("z"))).isEmpty && s.info == nil)  // any other key closes
    }

    @Test func invitationsComeFirstAndEventsAreNoticed() {
        var s = state()
        var invite = GroupChannel(url: "inv", name: "secret")
        invite.myMemberState = "invited"
        invite.inviter = User(userId: "bob")
        _ = reducer.reduce(&s, .event(.channelAdded(invite)))
        #expect(s.channels.first?.url == "inv")
        #expect(s.notice == "bob invited you to #secret")
        // Selecting an invitation loads nothing (the server answers members only); accepting it does.
        #expect(reducer.reduce(&s, .key(.ctrl("p"))) == [.unview(channelUrl: "c1")])
        #expect(s.selected == "inv")
        var accepted = invite
        accepted.myMemberState = "joined"
        #expect(reducer.reduce(&s, .opened(accepted)) == [.view(channelUrl: "inv"), .loadHistory(channelUrl: "inv", before: nil)])
        _ = reducer.reduce(&s, .key(.ctrl("n")))
        #expect(s.selected == "c1")
        _ = reducer.reduce(&s, .event(.channelEvent(channelUrl: "inv", .invited(inviter: User(userId: "bob"), invitees: [User(userId: "alice")]))))
        #expect(s.notice == "bob invited you to #secret")
        _ = reducer.reduce(&s, .event(.channelEvent(channelUrl: "c1", .joined([User(userId: "carol")]))))
        #expect(s.notice == "carol joined #c1")
        _ = reducer.reduce(&s, .event(.channelEvent(channelUrl: "c2", .joined([User(userId: "dan")]))))
        #expect(s.notice == "carol joined #c1")  // not the channel on screen
    }

    @Test func engineEventsUpdateTheState() {
        var s = state()
        let pending = Message(messageId: 0, requestId: "rq-1", channelUrl: "c1", text: "yo", sender: User(userId: "alice"), createdAt: 5, status: .pending)
        _ = reducer.reduce(&s, .event(.messagePending(pending)))
        var sent = pending
        sent.messageId = 9
        sent.status = .succeeded
        _ = reducer.reduce(&s, .event(.messageSent(sent)))
        #expect(s.messages["c1"]?.count == 1 && s.messages["c1"]?.first?.status == .succeeded)
        _ = reducer.reduce(&s, .event(.typingStarted(channelUrl: "c1", user: User(userId: "bob"))))
        #expect(s.typers["c1"]?.map(\.userId) == ["bob"])
        _ = reducer.reduce(&s, .event(.messageReceived(Message(messageId: 10, channelUrl: "c1", text: "hey", sender: User(userId: "bob"), createdAt: 6))))
        #expect(s.typers["c1"]?.isEmpty == true && s.messages["c1"]?.count == 2)
        _ = reducer.reduce(&s, .event(.connectionStateChanged(.reconnecting(attempt: 1, nextAttemptAt: 9000))))
        #expect(Screen.connectionText(s.connection, now: 7000).0 == "reconnecting in 2s")
    }

    @Test func typingLine() {
        #expect(Screen.typingText(["bob"]) == "bob is typing…")
        #expect(Screen.typingText(["bob", "carol"]) == "bob and carol are typing…")
        #expect(Screen.typingText(["bob", "carol", "dave"]) == "several people are typing…")
    }
}

/// Compares a screen with `Golden/NAME.txt`; with TERN_UPDATE_GOLDEN=1 writes it instead.
func assertGolden(_ grid: CellGrid, _ name: String) throws {
    let text = grid.text + "\n"
    let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/\(name).txt")
    if ProcessInfo.processInfo.environment["TERN_UPDATE_GOLDEN"] == "1" {
        try text.write(to: source, atomically: true, encoding: .utf8)
        return
    }
    let expected = try String(contentsOf: source, encoding: .utf8)
    #expect(text == expected, "screen \(name) differs:\n\(text)")
}

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
        s.channels = s.channels.map { var c = $0; c.unreadMessageCount = 0; c.unreadMentionCount = 0; return c }
        #expect(Screen.activityText(s) == nil)
    }

    func sample() -> AppState {
        var s = AppState(me: User(userId: "alice", nickname: "Alice"), server: "test")
        s.present = true  // the user is at the keyboard (else the channel on screen is not yet read)
        var dm = GroupChannel(url: "dm", members: [Member(user: User(userId: "alice", nickname: "Alice")), Member(user: User(userId: "bob", nickname: "Bob"))])
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
            Message(messageId: 2, channelUrl: "dm", text: "a long reply that has to wrap onto a second line in this narrow pane", sender: User(userId: "bob", nickname: "Bob"), createdAt: t),
            Message(messageId: 0, requestId: "rq-x", channelUrl: "dm", text: "on its way", sender: User(userId: "alice", nickname: "Alice"), createdAt: t + 86_400_000, status: .pending),
            Message(messageId: 0, requestId: "rq-y", channelUrl: "dm", text: "refused", sender: User(userId: "alice", nickname: "Alice"), createdAt: t + 86_400_001, status: .failed, error: .init(.notAMember, "no")),
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
        var ops = GroupChannel(url: "ops", name: "ops", members: [Member(user: me), Member(user: User(userId: "carol")), Member(user: User(userId: "dave"))])
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
