import Foundation
import Synchronization
import TernKit
import TernProtocol
import Testing

@testable import TernTUI

/// ``GridMemo``: the message pane, the channel list and the status bar are reused only while nothing they come from changed. Each step
/// changes one thing the pane shows (or does not); a screen that drew every step before must draw exactly
/// what a fresh one draws.
@Suite("GridMemo: a frame reuses the message pane, the channel list and the status bar only while nothing they show changed")
struct GridMemoTests: TUIFixture {
    let reducer = Reducer()

    func utc() -> Screen { Screen(theme: .builtin, timeZone: TimeZone(identifier: "UTC")!) }

    /// A second channel, #ops (c2), beside the one on screen.
    func addOps(_ s: inout AppState) {
        var other = GroupChannel(url: "c2", name: "ops", members: [Member(user: alice), Member(user: bob)])
        other.lastMessage = Message(messageId: 50, channelUrl: "c2", text: "x", sender: bob, createdAt: t)
        _ = reducer.reduce(&s, .event(.channelAdded(other)))
    }

    @Test("After every kind of change, the remembered pane, channel list and status bar draw what a fresh screen draws")
    func warmEqualsCold() {
        var s = teamChannel(
            (0..<12).map { (bob, "earlier \($0)") } + [(bob, "lunch?"), (alice, "**yes**, at noon"), (bob, "see https://example.com")])
        addOps(&s)
        _ = reducer.reduce(&s, .resized(width: 90, height: 16))
        var warm = utc()
        var size = (width: 90, height: 16)
        var step = 0
        var now = t
        func check(_ what: String) {
            step += 1
            let a = warm.render(s, width: size.width, height: size.height, now: now)
            var cold = utc()
            cold.theme = warm.theme
            cold.timestampFormat = warm.timestampFormat
            cold.nickColors = warm.nickColors
            let b = cold.render(s, width: size.width, height: size.height, now: now)
            #expect(a == b, "step \(step): \(what)\n\(a.text)\n--- fresh:\n\(b.text)")
        }
        let mine = Message(messageId: 4, channelUrl: "c1", text: "anyone?", sender: alice, createdAt: t + 5000)
        let steps: [(String, (inout AppState, inout Screen) -> Void)] = [
            ("nothing", { _, _ in }),
            ("a message in the channel on screen", { s, _ in _ = reducer.reduce(&s, .event(.messageReceived(mine))) }),
            (
                "a message in another channel",
                { s, _ in
                    let m = Message(messageId: 51, channelUrl: "c2", text: "elsewhere", sender: bob, createdAt: t + 6000)
                    _ = reducer.reduce(&s, .event(.messageReceived(m)))
                }
            ),
            (
                "delivered to Bob (the engine updates the channel)",
                { s, _ in
                    var c = s.selectedChannel!
                    c.deliveryReceipt["bob"] = t + 7000
                    _ = reducer.reduce(&s, .event(.channelUpdated(c)))
                }
            ),
            (
                "read by Bob",
                { s, _ in
                    var c = s.selectedChannel!
                    c.readReceipt["bob"] = t + 8000
                    _ = reducer.reduce(&s, .event(.channelUpdated(c)))
                }
            ),
            (
                "an edit",
                { s, _ in
                    var m = s.messages["c1"]![12]
                    m.text = "lunch at one?"
                    m.updatedAt = t + 9000
                    _ = reducer.reduce(&s, .event(.messageUpdated(m)))
                }
            ),
            (
                "a reaction",
                { s, _ in
                    _ = reducer.reduce(&s, .event(.reactionUpdated(channelUrl: "c1", messageId: 1, key: "thumbsup", userId: "bob", added: true)))
                }
            ),
            ("Bob is typing (not in the pane)", { s, _ in _ = reducer.reduce(&s, .event(.typingStarted(channelUrl: "c1", user: bob))) }),
            ("a message picked", { s, _ in s.picker = MessagePicker() }),
            ("the next one picked", { s, _ in s.picker?.index = 1 }),
            ("no message picked", { s, _ in s.picker = nil }),
            ("one jumped to", { s, _ in s.highlight = 2 }),
            ("links numbered", { s, _ in s.linkLabels = LinkLabels(channelUrl: "c1", urls: ["https://example.com"]) }),
            ("a highlight word", { s, _ in s.settings.highlights = ["lunch"] }),
            ("markdown off", { s, _ in s.settings.markdown = false }),
            ("scrolled up", { s, _ in s.scroll = 2 }),
            ("further up", { s, _ in s.scroll = 8 }),
            ("older messages to load", { s, _ in s.hasPrevious["c1"] = true }),
            ("back down", { s, _ in s.scroll = 0 }),
            ("the new-messages line", { s, _ in s.unreadSince["c1"] = t + 500 }),
            ("a deletion", { s, _ in _ = reducer.reduce(&s, .event(.messageDeleted(channelUrl: "c1", messageId: 2))) }),
            ("nicks in one colour", { _, w in w.nickColors = false }),
            ("nicks in colours", { _, w in w.nickColors = true }),
            (
                "a file on its way up",
                { s, _ in
                    var file = Message(messageId: 0, channelUrl: "c1", kind: .file, text: "", sender: alice, createdAt: t + 10_000)
                    file.files = [FilePayload(url: "", name: "notes.txt", size: 200, type: "text/plain")]
                    file.status = .pending
                    file.requestId = "rq-1"
                    _ = reducer.reduce(&s, .event(.messagePending(file)))
                    _ = reducer.reduce(&s, .uploadStarted(requestId: "rq-1", Upload(channelUrl: "c1", name: "notes.txt")))
                }
            ),
            ("its progress", { s, _ in _ = reducer.reduce(&s, .uploadProgress(requestId: "rq-1", sent: 100, total: 200)) }),
            (
                "a picture's preview",
                { s, _ in
                    let symbols = (0..<2).map { _ in (0..<4).map { _ in Cell("▀", Style(fg: .index(196), bg: .index(21))) } }
                    s.previews[PreviewKey(channel: "c1", id: 15)] = ImagePreview(width: 4, rows: symbols)
                }
            ),
            ("seconds in the stamps", { _, w in w.timestampFormat = "HH:mm:ss" }),
            ("no colour", { _, w in w.theme = w.theme.withoutColor() }),
            ("a thread", { s, _ in s.thread = ThreadView(channelUrl: "c1", parent: s.messages["c1"]![0]) }),
            ("out of the thread", { s, _ in s.thread = nil }),
            ("the other channel on screen", { s, _ in s.selected = "c2" }),
            ("back", { s, _ in s.selected = "c1" }),
            ("history loading", { s, _ in s.loadingHistory.insert("c1") }),
            // What the channel list shows (``ListMemo``).
            ("keys typed", { s, _ in for c in "hey" { _ = reducer.reduce(&s, .key(.char(c))) } }),
            (
                "the other channel renamed",
                { s, _ in
                    var c = s.channels.first { $0.url == "c2" }!
                    c.name = "ops-2"
                    _ = reducer.reduce(&s, .event(.channelUpdated(c)))
                }
            ),
            (
                "an invitation",
                { s, _ in
                    var invite = GroupChannel(url: "c3", name: "secret", members: [Member(user: alice), Member(user: bob)])
                    invite.myMemberState = "invited"
                    invite.inviter = bob
                    _ = reducer.reduce(&s, .event(.channelAdded(invite)))
                }
            ),
            ("the invitation declined", { s, _ in _ = reducer.reduce(&s, .event(.channelRemoved(url: "c3", reason: .declined))) }),
            (
                "the other channel read",
                { s, _ in
                    _ = reducer.reduce(&s, .event(.unreadCountChanged(channelUrl: "c2", unreadMessageCount: 0, unreadMentionCount: 0, total: 0)))
                }
            ),
            ("my nickname", { s, _ in s.me = User(userId: "alice", nickname: "Alice L.") }),
            // What the status bar shows (``StatusMemo``).
            ("a notice", { s, _ in s.notice = "saved to ~/notes.txt" }),
            ("no notice", { s, _ in s.notice = nil }),
            ("normal mode", { s, _ in s.mode = .normal }),
            ("insert mode", { s, _ in s.mode = .insert }),
            ("reconnecting in 3 s", { s, _ in s.connection = .reconnecting(attempt: 1, nextAttemptAt: t + 3000) }),
            ("a second later", { _, _ in now = t + 1000 }),
            (
                "syncing",
                { s, _ in
                    s.connection = .open
                    s.syncing = true
                }
            ),
            ("synced", { s, _ in s.syncing = false }),
            ("unread in total", { s, _ in s.totalUnread = 4 }),
            ("the user away from the terminal", { s, _ in s.focused = false }),
            ("back", { s, _ in s.focused = true }),
        ]
        check("first frame")
        for (what, change) in steps {
            change(&s, &warm)
            check(what)
        }
        size = (70, 12)
        check("a smaller terminal")
    }

    @Test("A frame that changed only the channel list lays the pane out from its memory")
    func otherChannelsDoNotLayOut() {
        var s = teamChannel([(bob, "lunch?"), (alice, "yes")])
        addOps(&s)
        let screen = utc()
        _ = screen.render(s, width: 90, height: 16, now: t)
        let before = screen.paneMemo.layouts.load(ordering: .relaxed)
        for i in 0..<5 {
            let m = Message(messageId: 60 + Int64(i), channelUrl: "c2", text: "burst \(i)", sender: bob, createdAt: t + Millis(i) * 1000)
            _ = reducer.reduce(&s, .event(.messageReceived(m)))
            _ = screen.render(s, width: 90, height: 16, now: t + Millis(i) * 1000)
        }
        #expect(screen.paneMemo.layouts.load(ordering: .relaxed) == before, "five messages elsewhere, no layout of the pane")
        _ = reducer.reduce(&s, .event(.messageReceived(Message(messageId: 70, channelUrl: "c1", text: "here", sender: bob, createdAt: t + 9000))))
        let grid = screen.render(s, width: 90, height: 16, now: t + 9000)
        #expect(screen.paneMemo.layouts.load(ordering: .relaxed) == before + 1)
        #expect(grid.text.contains("here"))
    }

    @Test("Keys typed lay out neither the message pane nor the channel list; a message elsewhere draws the list again")
    func typingDrawsOnlyTheInput() {
        var s = teamChannel([(bob, "lunch?"), (alice, "yes")])
        addOps(&s)
        let screen = utc()
        _ = screen.render(s, width: 90, height: 16, now: t)
        let pane = screen.paneMemo.layouts.load(ordering: .relaxed)
        let list = screen.listMemo.layouts.load(ordering: .relaxed)
        var grid = CellGrid(width: 0, height: 0)
        for c in "see you" {
            _ = reducer.reduce(&s, .key(.char(c)))
            grid = screen.render(s, width: 90, height: 16, now: t)
        }
        #expect(grid.text.contains("see you"))
        #expect(screen.paneMemo.layouts.load(ordering: .relaxed) == pane, "seven keys, no layout of the pane")
        #expect(screen.listMemo.layouts.load(ordering: .relaxed) == list, "seven keys, no drawing of the list")
        var news = s.channels.first { $0.url == "c2" }!
        news.unreadMessageCount = 3
        _ = reducer.reduce(&s, .event(.channelUpdated(news)))
        grid = screen.render(s, width: 90, height: 16, now: t + 1000)
        #expect(screen.listMemo.layouts.load(ordering: .relaxed) == list + 1, "a badge: the list drawn again")
        #expect(grid.line(1) == " ops                 3│", "\(grid.text)")
    }

    @Test("A grid copied into another: clipped at its edges, its links joined to the other's (ids as drawing there gives), its pictures moved")
    func blit() {
        var pane = CellGrid(width: 6, height: 2)
        let a = pane.link("https://a.test")
        let b = pane.link("https://b.test")
        pane.write("ab", x: 0, y: 0, style: .plain, link: a)
        pane.write("漢c", x: 2, y: 1, style: Style(bold: true), link: b)
        let picture = ImageGraphic(kind: .sixel, id: 1, key: 9, columns: 2, rows: 1, sequence: "")
        pane.graphics = [GraphicPlacement(x: 1, y: 1, graphic: picture)]

        var direct = CellGrid(width: 8, height: 3)
        _ = direct.link("https://b.test")
        let (da, db) = (direct.link("https://a.test"), direct.link("https://b.test"))
        direct.write("ab", x: 3, y: 1, style: .plain, link: da)
        direct.write("漢c", x: 5, y: 2, style: Style(bold: true), link: db)
        direct.graphics = [GraphicPlacement(x: 4, y: 2, graphic: picture)]

        var copied = CellGrid(width: 8, height: 3)
        _ = copied.link("https://b.test")
        copied.blit(pane, x: 3, y: 1)
        #expect(copied == direct)
        #expect(copied.url(x: 3, y: 1) == "https://a.test" && copied.url(x: 5, y: 2) == "https://b.test")
        // Past the right and bottom edges: cut off, nothing written outside.
        var small = CellGrid(width: 4, height: 2)
        small.blit(pane, x: 2, y: 1)
        #expect(small.line(1) == "  ab")
        #expect(small.line(0) == "")
    }
}
