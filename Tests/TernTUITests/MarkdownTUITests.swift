import Foundation
import TernKit
import Testing

@testable import TernTUI

@Suite("Markdown on screen")
struct MarkdownTUITests: TUIFixture {
    let reducer = Reducer(keys: .standard, timeZone: TimeZone(identifier: "UTC")!)
    let screen = Screen(theme: .builtin, timeZone: TimeZone(identifier: "UTC")!)

    var markdownState: AppState {
        teamChannel([
            (bob, "**bold**, *italic*, _also_, ~~struck~~ and `code`; snake_case and 2 * 3 stay"),
            (bob, "see [the docs](https://tern.test/docs) or **unclosed"),
            (alice, "> quoted with `code` inside\n> and **bold**\nthen:\n- a **bold** item that wraps onto the next line\n- two\n  1. nested"),
        ])
    }

    var codeState: AppState {
        teamChannel([
            (
                bob,
                "try this:\n```swift\nlet greeting = \"**not bold**\"\nfor (i, c) in greeting.enumerated() where i % 2 == 0 { print(c) }\n\tindented()\n```"
            ),
            (alice, "```\nno language, 你好 😀\n```"),
        ])
    }

    @Test func markdownScreen() throws {
        try assertGolden(screen.render(markdownState, width: 80, height: 20, now: 0), "markdown-80x20")
    }

    @Test func codeBlockScreen() throws {
        try assertGolden(screen.render(codeState, width: 72, height: 16, now: 0), "codeblock-72x16")
    }

    /// Where `text` starts on screen.
    func find(_ text: String, in grid: CellGrid) -> (x: Int, y: Int)? {
        for y in 0..<grid.height {
            var cells: [Int] = []  // the column of each character of the line
            var line = ""
            for x in 0..<grid.width where !grid[x, y].isContinuation {
                line += grid[x, y].text
                cells += Array(repeating: x, count: grid[x, y].text.count)
            }
            if let r = line.range(of: text) { return (cells[line.distance(from: line.startIndex, to: r.lowerBound)], y) }
        }
        return nil
    }

    @Test func stylesComeFromTheThemeAndNoColorKeepsAttributes() throws {
        let theme = Theme.builtin
        for (t, colour) in [(theme, true), (theme.withoutColor(), false)] {
            var sc = screen
            sc.theme = t
            let grid = sc.render(markdownState, width: 80, height: 20, now: 0)
            #expect(!grid.text.contains("**bold**") && grid.text.contains("**unclosed"))
            let bold = try #require(find("bold,", in: grid))
            #expect(grid[bold.x, bold.y].style.bold && !grid[bold.x + 4, bold.y].style.bold)
            let italic = try #require(find("italic", in: grid))
            #expect(grid[italic.x, italic.y].style.italic)
            let struck = try #require(find("struck", in: grid))
            #expect(grid[struck.x, struck.y].style.strike)
            let code = try #require(find("code;", in: grid))
            #expect(grid[code.x, code.y].style == t.style("timeline.code").layered(over: t.style("timeline.text")))
            #expect((grid[code.x, code.y].style.fg == .index(3)) == colour, "yellow, unless NO_COLOR")
            #expect(grid[code.x, code.y].style != grid[code.x - 2, code.y].style, "a code span stands out from its text, NO_COLOR too")
            let link = try #require(find("the docs", in: grid))
            #expect(grid[link.x, link.y].style.underline)
            let url = try #require(find("<https://tern.test/docs>", in: grid))
            #expect(grid[url.x, url.y].style == t.style("timeline.link.url").layered(over: t.style("timeline.text")))
            let quote = try #require(find("│ quoted", in: grid))
            #expect(grid[quote.x + 2, quote.y].style.italic)
            let bullet = try #require(find("• a", in: grid))
            #expect(grid[bullet.x, bullet.y].style.bold)
        }
        let code = sampleGrid(codeState, theme: try Theme.named("dark", themesDirectory: "/nonexistent"))
        let label = try #require(find("swift", in: code))
        #expect(code[label.x, label.y].style.italic && code[label.x, label.y].style.bg == .index(235))
        let body = try #require(find("let greeting", in: code))
        #expect(code[body.x, body.y].style.bg == .index(235) && !code[body.x + 16, body.y].style.bold)
        #expect(code[body.x, body.y].style.fg == .index(176) && code[body.x + 16, body.y].style.fg == .index(150), "let, a string: syntax colours")
    }

    func sampleGrid(_ s: AppState, theme: Theme) -> CellGrid {
        var sc = screen
        sc.theme = theme
        return sc.render(s, width: 72, height: 16, now: 0)
    }

    @Test func setMarkdownOffShowsTheTextAsTypedAndSendingStaysPlain() throws {
        var s = markdownState
        _ = type("/set markdown off", &s)
        _ = reducer.reduce(&s, .key(.enter))
        #expect(s.settings.markdown == false && s.notice == "markdown = off · /save keeps it")
        let raw = screen.render(s, width: 80, height: 20, now: 0)
        #expect(raw.text.contains("**bold**, *italic*") && raw.text.contains("> quoted with `code` inside"))
        #expect(!raw.text.contains("•"))
        _ = type("/set markdown on", &s)
        _ = reducer.reduce(&s, .key(.enter))
        #expect(s.settings.markdown && !screen.render(s, width: 80, height: 20, now: 0).text.contains("**bold**,"))
        // What is sent is what was typed.
        _ = type("**hi** `there`", &s)
        let effects = reducer.reduce(&s, .key(.enter))
        #expect(effects.contains(.send(text: "**hi** `there`", channelUrl: "c1")), "\(effects)")
    }

    @Test func aReplyQuotesItsParentWithoutMarkers() throws {
        var s = teamChannel([(bob, "**ship** it `now`"), (alice, "done")])
        s.messages["c1"]![1].parentMessageId = 1
        s.messages["c1"]![1].isReplyToChannel = true
        s.messages["c1"]![1].parent = ParentSummary(messageId: 1, text: "**ship** it `now`", sender: bob, createdAt: t)
        #expect(screen.render(s, width: 80, height: 12, now: 0).text.contains("↱ Bob: ship it now"))
        s.settings.markdown = false
        #expect(screen.render(s, width: 80, height: 12, now: 0).text.contains("↱ Bob: **ship** it `now`"))
    }

    @Test func configAndSave() throws {
        #expect(Settings().markdown)
        #expect(try Settings.parse("markdown = false").markdown == false)
        #expect(throws: Settings.SettingsError.self) { try Settings.parse("markdown = \"no\"") }
        var s = Settings()
        try s.set("markdown", "off")
        #expect(s.value("markdown") == "off")
        #expect(try Settings.parse(s.toml()) == s)
        #expect(Settings.settable.contains { $0.key == "markdown" })
    }
}
