import Foundation
import TernKit
import TernProtocol
import Testing

@testable import TernTUI

@Suite("Links")
struct LinksTUITests: TUIFixture {
    let reducer = Reducer(keys: .standard, timeZone: TimeZone(identifier: "UTC")!)
    let screen = Screen(theme: .builtin, timeZone: TimeZone(identifier: "UTC")!)

    func spans(_ text: String) -> [Markdown.Span] {
        guard case .line(let s) = Markdown(text).blocks.first else { return [] }
        return s
    }

    @Test func bareURLs() {
        typealias Span = Markdown.Span
        #expect(spans("see https://tern.test/a_b now") == [Span("see "), Span("https://tern.test/a_b", link: "https://tern.test/a_b"), Span(" now")])
        #expect(spans("at http://x.test.") == [Span("at "), Span("http://x.test", link: "http://x.test"), Span(".")])
        #expect(spans("(https://x.test/a), then") == [Span("("), Span("https://x.test/a", link: "https://x.test/a"), Span("), then")])
        let wiki = "https://en.test/Foo_(bar)"
        #expect(spans("read \(wiki).") == [Span("read "), Span(wiki, link: wiki), Span(".")], "a parenthesis it opened stays")
        #expect(spans("**https://x.test**") == [Span("https://x.test", .bold, link: "https://x.test")])
        #expect(spans("`https://x.test`") == [Span("https://x.test", .code)], "nothing is a link inside code")
        #expect(spans("xhttps://x.test") == [Span("xhttps://x.test")], "not inside a word")
        #expect(spans("https:// alone") == [Span("https:// alone")])
        #expect(
            spans("[docs](https://d.test) and https://e.test") == [
                Span("docs", link: "https://d.test"), Span(" and "), Span("https://e.test", link: "https://e.test"),
            ])
        #expect(
            Markdown("a https://a.test [b](https://b.test) https://a.test\n> https://c.test").links == [
                "https://a.test", "https://b.test", "https://c.test",
            ])
    }

    /// Types a line and Enter; the effects of Enter.
    func run(_ line: String, _ s: inout AppState) -> [Effect] {
        _ = type(line, &s)
        return reducer.reduce(&s, .key(.enter))
    }

    func state(_ texts: [String]) -> AppState { teamChannel(texts.map { (bob, $0) }) }

    var linkState: AppState {
        state(["the docs: [tern docs](https://tern.test/docs)", "see https://a.test/x and https://b.test/y."])
    }

    @Test func altULabelsTheLinksAndADigitOpensOne() {
        var s = linkState
        #expect(reducer.reduce(&s, .key(.alt("u"))).isEmpty)
        #expect(s.linkLabels?.choosing == true && s.linkLabels?.urls.count == 3)
        #expect(s.notice?.hasPrefix("1–9 opens (Esc: none): [1] https://a.test/x") == true, "\(s.notice ?? "")")
        #expect(reducer.reduce(&s, .key(.char("2"))) == [.openURL("https://b.test/y")])
        #expect(s.linkLabels == nil)
        // Esc takes the labels away; a key that is not a digit goes on as usual and ends the choosing.
        _ = reducer.reduce(&s, .key(.alt("u")))
        #expect(reducer.reduce(&s, .key(.escape)).isEmpty && s.linkLabels == nil && !s.showHelp, "Esc clears, not help")
        _ = reducer.reduce(&s, .key(.alt("u")))
        _ = reducer.reduce(&s, .key(.char("x")))
        #expect(s.input == ["x"] && s.linkLabels?.choosing == false, "typed; the labels stay until Esc")
        _ = reducer.reduce(&s, .key(.char("1")))
        #expect(s.input == ["x", "1"], "a digit is typed once choosing is over")
        var none = state(["no links"])
        _ = reducer.reduce(&none, .key(.alt("u")))
        #expect(none.notice == "no links on screen" && none.linkLabels == nil)
    }

    @Test func urlLabelsTheLinksNewestFirst() {
        var s = linkState
        let effects = run("/url", &s)
        #expect(effects.isEmpty)
        #expect(s.linkLabels?.urls == ["https://a.test/x", "https://b.test/y", "https://tern.test/docs"])
        #expect(s.notice == "/url N opens: [1] https://a.test/x  [2] https://b.test/y  [3] https://tern.test/docs")
        s.messages["c1"]?.append(Message(messageId: 9, channelUrl: "c1", text: "new: https://c.test", sender: bob, createdAt: t + 9000))
        _ = run("/url", &s)
        #expect(s.linkLabels?.urls.first == "https://c.test", "/url again numbers what is on screen now")
        #expect(run("/url 2", &s) == [.openURL("https://a.test/x")])
    }

    @Test func urlNOpensTheLink() {
        var s = linkState
        _ = run("/url", &s)
        #expect(run("/url 3", &s) == [.openURL("https://tern.test/docs")])
        #expect(s.linkLabels == nil, "opening one takes the labels off")
        var fresh = linkState
        #expect(run("/url 2", &fresh) == [.openURL("https://b.test/y")], "without /url first: the same numbers")
        #expect(run("/url 9", &fresh).isEmpty)
        #expect(fresh.notice == "no link 9: /url N takes 1 to 3")
        var none = state(["no links here"])
        #expect(run("/url", &none).isEmpty)
        #expect(none.notice == "no links on screen")
    }

    @Test func urlCompletesLinkNumbers() {
        var s = linkState
        s.input = Array("/url ")
        s.cursor = s.input.count
        #expect(reducer.completionCandidates(s)?.candidates == ["1", "2", "3"])
    }

    @Test func labelsScreen() throws {
        var s = linkState
        _ = run("/url", &s)
        let grid = screen.render(s, width: 100, height: 12, now: 0)
        try assertGolden(grid, "links-labels-100x12")
        #expect(grid.links.sorted() == ["https://a.test/x", "https://b.test/y", "https://tern.test/docs"])
    }

    @Test func linkCellsCarryTheirURL() throws {
        var s = linkState
        let grid = screen.render(s, width: 80, height: 12, now: 0)
        let row = try #require((0..<grid.height).first { grid.line($0).contains("https://a.test/x") })
        let runs = grid.linkRuns(row)
        #expect(runs.map(\.url) == ["https://a.test/x", "https://b.test/y"])
        #expect(runs.first.map { (0..<$0.count).map { i in grid[runs[0].x + i, row].text }.joined() } == "https://a.test/x")
        let docs = try #require((0..<grid.height).first { grid.line($0).contains("tern docs") })
        let run = try #require(grid.linkRuns(docs).first)
        #expect(run.url == "https://tern.test/docs" && grid.linkRuns(docs).count == 1)
        #expect((0..<run.count).map { grid[run.x + $0, docs].text }.joined() == "tern docs <https://tern.test/docs>", "the text, then its <url>")
        s.settings.hyperlinks = false
        #expect(screen.render(s, width: 80, height: 12, now: 0).links.isEmpty, "hyperlinks = off: no link cells")
    }

    @Test func osc8AroundALinkRun() {
        var g = CellGrid(width: 20, height: 2)
        let id = g.link("https://x.test")
        g.write("go ", x: 0, y: 0, style: .plain)
        g.write("here", x: 3, y: 0, style: Style(underline: true), link: id)
        let out = TerminalSequences.hyperlinks(g, rows: [0, 1], color: nil)
        #expect(out == "\u{1B}[1;4H\u{1B}]8;;https://x.test\u{1B}\\\u{1B}[0;4mhere\u{1B}]8;;\u{1B}\\\u{1B}[0m")
        #expect(TerminalSequences.hyperlinks(g, rows: [1], color: nil).isEmpty)
        var moved = g
        moved.write("    ", x: 3, y: 0, style: .plain)
        #expect(moved.changes(since: g).map(\.x) == [3])
    }

    @Test func theOpenerIsBrowserOrXdgOpen() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tern-links-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let record = dir.appendingPathComponent("opened").path
        let browser = dir.appendingPathComponent("browser").path
        try "#!/bin/sh\necho \"$1\" > \(record)\n".write(toFile: browser, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: browser)
        #expect(ChatApp.opener(["BROWSER": browser]) == browser)
        #expect(ChatApp.opener(["PATH": dir.path]) == nil, "no $BROWSER and no xdg-open on the PATH")
        #expect(ChatApp.opener(["PATH": dir.path], found: false) == "xdg-open")
        try ChatApp.launch(browser, "https://tern.test/a b")
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: record) { Thread.sleep(forTimeInterval: 0.01) }
        Thread.sleep(forTimeInterval: 0.05)
        #expect(try String(contentsOfFile: record, encoding: .utf8) == "https://tern.test/a b\n")
    }
}

@Suite("Copy to the clipboard")
struct CopyTUITests: TUIFixture {
    let reducer = Reducer(keys: .standard, timeZone: TimeZone(identifier: "UTC")!)

    var copyState: AppState {
        var s = teamChannel([(bob, "see **this**: https://a.test/x"), (alice, "héllo wörld")])
        var file = Message(messageId: 3, channelUrl: "c1", kind: .file, text: "", sender: bob, createdAt: t - 1000)
        file.files = [FilePayload(url: "http://x.test/f", name: "plan.pdf", size: 2_500_000, type: "application/pdf")]
        s.messages["c1"]?.insert(file, at: 0)
        return s
    }

    /// Ctrl-R, ↑ `up` times, then `key`: its effects.
    func pick(_ up: Int, _ key: Character, _ s: inout AppState) -> [Effect] {
        _ = reducer.reduce(&s, .key(.ctrl("r")))
        for _ in 0..<up { _ = reducer.reduce(&s, .key(.up)) }
        return reducer.reduce(&s, .key(.char(key)))
    }

    @Test func yCopiesTheTextAndYItsLink() {
        var s = copyState
        #expect(pick(0, "y", &s) == [.copy("héllo wörld")])
        #expect(s.notice == "copied 11 characters" && s.picker == nil)
        #expect(pick(1, "y", &s) == [.copy("see **this**: https://a.test/x")], "the text as sent, markdown and all")
        #expect(pick(1, "Y", &s) == [.copy("https://a.test/x")])
        #expect(pick(2, "Y", &s) == [.copy("http://x.test/f")], "a file message: its file's URL")
        #expect(pick(0, "Y", &s).isEmpty)
        #expect(s.notice == "no link or file in this message")
    }

    @Test func copyCopiesTheLastMessage() {
        var s = copyState
        _ = type("/copy", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.copy("héllo wörld")])
        #expect(s.notice == "copied 11 characters")
    }

    @Test func clipboardOffSaysSo() throws {
        var s = copyState
        _ = type("/set clipboard off", &s)
        _ = reducer.reduce(&s, .key(.enter))
        #expect(s.settings.clipboard == false)
        #expect(pick(0, "y", &s).isEmpty)
        #expect(s.notice == "clipboard is off (/set clipboard on)")
        #expect(try Settings.parse("clipboard = false").clipboard == false)
    }

    @Test func osc52Bytes() {
        #expect(TerminalSequences.clipboard("héllo", inTmux: false) == "\u{1B}]52;c;aMOpbGxv\u{1B}\\")
        #expect(TerminalSequences.clipboard("héllo", inTmux: true) == "\u{1B}Ptmux;\u{1B}\u{1B}]52;c;aMOpbGxv\u{1B}\u{1B}\\\u{1B}\\")
    }
}
