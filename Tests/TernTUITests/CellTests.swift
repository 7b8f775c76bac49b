import Testing

@testable import TernTUI

/// A cell as plain bytes: its grapheme (``Glyph``) and its style packed, so that a grid copies, fills and
/// compares with no reference counting; every grapheme and style reads back as written.
@Suite("Cell: a grapheme and a style as plain bytes")
struct CellTests {
    @Test func isPlainBytesAndSmall() {
        #expect(_isPOD(Cell.self), "no reference counted part")
        #expect(MemoryLayout<Cell>.stride <= 24)
        #expect(MemoryLayout<Style>.size <= 9)
    }

    @Test func graphemesReadBackAsWritten() {
        let samples = [
            " ", "a", "é", "e\u{301}", "e\u{301}\u{302}", "e\u{301}\u{302}\u{303}", "中", "👍", "👍🏽",
            "👩‍👩‍👧‍👦", "🇫🇷", "\u{10EEEE}\u{305}\u{30D}", "", "\u{0}", "a\u{0}",
        ]
        for text in samples {
            #expect(Cell(text).text == text, "\(Array(text.unicodeScalars))")
            if let c = text.first, text.count == 1 { #expect(Glyph(c) == Glyph(text)) }
        }
        #expect(Cell("").isContinuation && !Cell(" ").isContinuation && !Cell("\u{0}").isContinuation)
        #expect(Glyph("👩‍👩‍👧‍👦") == Glyph("👩‍👩‍👧‍👦"), "a long cluster gets the same number each time")
        #expect(Glyph("👩‍👩‍👧‍👦") != Glyph("👩‍👩‍👧"))
        #expect(Glyph("ab") != Glyph("ba") && Glyph("a") != Glyph("a\u{301}"))
        var cell = Cell("e")
        cell.text.append("\u{301}")  // a combining mark joins the cell before it (CellGrid.write)
        #expect(cell.text == "e\u{301}" && cell.glyph == Glyph("e\u{301}"))
    }

    @Test func stylesReadBackAsWritten() {
        let colors: [Color] = [.default, .index(0), .index(7), .index(15), .index(255), .index(4096)]
        var n = 0
        for fg in colors {
            for bg in colors {
                for bits in 0..<64 {
                    n += 1
                    guard n % 7 == 0 || bits == 0 || bits == 63 else { continue }
                    let s = Style(
                        fg: fg, bg: bg, bold: bits & 1 != 0, dim: bits & 2 != 0, italic: bits & 4 != 0, underline: bits & 8 != 0,
                        reverse: bits & 16 != 0, strike: bits & 32 != 0)
                    #expect(s.fg == fg && s.bg == bg)
                    #expect([s.bold, s.dim, s.italic, s.underline, s.reverse, s.strike] == (0..<6).map { bits & (1 << $0) != 0 })
                    var t = Style.plain
                    (t.fg, t.bg, t.bold, t.dim, t.italic, t.underline, t.reverse, t.strike) = (
                        fg, bg, s.bold, s.dim, s.italic, s.underline, s.reverse, s.strike
                    )
                    #expect(t == s, "set property by property equals made at once")
                }
            }
        }
    }

    @Test func layeringKeepsTheBaseWhereTheTopSetsNothing() {
        let base = Style(fg: .index(1), bg: .index(2), bold: true)
        #expect(Style.plain.layered(over: base) == base)
        #expect(Style(fg: .index(9), italic: true).layered(over: base) == Style(fg: .index(9), bg: .index(2), bold: true, italic: true))
        #expect(Style(bg: .index(0), strike: true).layered(over: base) == Style(fg: .index(1), bg: .index(0), bold: true, strike: true))
    }
}
