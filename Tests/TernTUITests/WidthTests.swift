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
