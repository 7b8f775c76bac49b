import Foundation
import TernKit
import Testing

@testable import TernTUI

/// Long pastes, emoji widths, open channels in the list (issue 30, point 10).
@Suite("Rough edges: pastes, emoji widths, open channel counts")
struct RoughEdgesTUITests {
    let screen = Screen(theme: .builtin, timeZone: TimeZone(identifier: "UTC")!)

    func state() -> AppState {
        var s = AppState(me: User(userId: "alice", nickname: "Alice"), server: "test")
        s.present = true
        s.connection = .open
        s.channels = [GroupChannel(url: "c1", name: "team", members: [Member(user: User(userId: "alice"))])]
        s.selected = "c1"
        s.hasPrevious["c1"] = false
        s.messages["c1"] = []
        _ = Reducer().reduce(&s, .resized(width: 80, height: 12))
        return s
    }

    /// A 100,000-character paste lands whole, and drawing it measures a screen's width, not the line.
    @Test func longPasteIsLinear() {
        let reducer = Reducer()
        for n in [10_000, 100_000] {
            var s = state()
            let text = String(repeating: "0123456789", count: n / 10)
            _ = reducer.reduce(&s, .paste(text))
            #expect(s.input.count == n && s.cursor == n && s.inputText == text)
            let grid = screen.render(s, width: 80, height: 12, now: 0)
            #expect(grid.text.contains("\(n)/5000"), "the counter shows")
            #expect(grid.cursor != nil)
            // The seam: finding the shown part of the line measures at most room + 1 characters.
            let window = Screen.inputWindow(s.input, lineStart: 0, cursor: s.cursor, room: 40)
            #expect(window.steps <= 41 && window.column <= 40 && window.start == n - 40)
            // Enter refuses it with the reason, keeping the text.
            _ = reducer.reduce(&s, .key(.enter))
            #expect(s.input.count == n && s.notice?.hasPrefix("too long") == true)
        }
        // Wide glyphs: the window never splits one and the cursor column counts cells.
        let wide = Array("你好你好你好")
        let w = Screen.inputWindow(wide, lineStart: 0, cursor: wide.count, room: 5)
        #expect(w.start == 4 && w.column == 4)
    }

    @Test func emojiPresentationSequencesAreTwoCellsAndReachTheTerminalConsistently() {
        #expect(CellWidth.of("❤️" as Character) == 2)
        #expect(CellWidth.of("❤" as Character) == 1, "text presentation without VS16")
        #expect(CellWidth.of("☺️" as Character) == 2)
        #expect(CellWidth.of("1️⃣" as Character) == 2, "keycap")
        #expect(CellWidth.of("a❤️b") == 4)
        var g = CellGrid(width: 6, height: 1)
        let end = g.write("a❤️b", x: 0, y: 0, style: .plain)
        #expect(end == 4 && g[1, 0].text == "❤️" && g[2, 0].isContinuation && g[3, 0].text == "b")
        // A wcwidth like glibc's: U+2764 is one column, VS16 and ZWJ none, 😀 two.
        func wcwidth(_ s: Unicode.Scalar) -> Int {
            switch s.value {
            case 0xFE0F, 0x200D, 0x20E3: 0
            case 0x1F600, 0x1F469, 0x1F4BB, 0x4F60: 2
            default: 1
            }
        }
        // ❤️: curses would count one column for a two-cell glyph; it goes out as ❤ and a space.
        let heart = CellWidth.forTerminal("❤️", width: 2, wcwidth: wcwidth)
        #expect(heart.scalars == ["\u{2764}"] && heart.pad == 1)
        // What both count alike goes out unchanged.
        #expect(CellWidth.forTerminal("😀", width: 2, wcwidth: wcwidth).pad == 0)
        #expect(CellWidth.forTerminal("你", width: 2, wcwidth: wcwidth).scalars == ["\u{4F60}"])
        #expect(CellWidth.forTerminal("e\u{301}", width: 1, wcwidth: { $0.value == 0x301 ? 0 : 1 }).scalars.count == 2)
        // A ZWJ sequence curses would count as four columns: its first glyph only.
        let coder = CellWidth.forTerminal("👩‍💻", width: 2, wcwidth: wcwidth)
        #expect(coder.scalars == ["\u{1F469}"] && coder.pad == 0)
    }

    @Test func openChannelsShowWhoIsInNotAnUnreadCount() throws {
        var s = state()
        var o = OpenChannel(url: "lobby", name: "lobby")
        o.participantCount = 3
        s.openChannels = [o]
        s.channels[0].unreadMessageCount = 3
        let grid = screen.render(s, width: 80, height: 12, now: 0)
        try assertGolden(grid, "open-count-80x12")
        let row = (0..<12).map(grid.line).first { $0.contains("lobby") } ?? ""
        #expect(row.contains("3 in"))
        // Drawn in the dim event style, not the unread badge's.
        let x = (0..<grid.width).first { grid[$0, (0..<12).first { grid.line($0).contains("lobby") }!].text == "3" }
        let y = (0..<12).first { grid.line($0).contains("lobby") }!
        #expect(x.map { grid[$0, y].style.italic } == true)
        #expect(x.map { grid[$0, y].style == Theme.builtin.style("roomlist.count") } == false)
    }
}
