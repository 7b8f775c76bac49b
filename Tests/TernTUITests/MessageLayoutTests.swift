import Testing

@testable import TernTUI

@Suite("Message layout")
struct MessageLayoutTests {
    typealias Run = MessageLayout.Run
    typealias Look = MessageLayout.Look

    func texts(_ lines: [MessageLayout.Line]) -> [String] { lines.map { $0.map(\.text).joined() } }

    @Test func plainTextWrapsAsBefore() {
        let samples = [
            "a long reply that has to wrap onto a second line in this narrow pane", "hi Bob, 你好 😀", "",
            "averyveryverylongwordthatcannotfit and more", "tabs\tand  two  spaces   end  ", "one\ntwo\n\nthree", "你好你好你好你好你好",
        ]
        for text in samples {
            for width in [1, 3, 7, 12, 40] {
                #expect(texts(MessageLayout.lines(text, markdown: false, width: width)) == CellWidth.wrap(text, width: width), "\(text) at \(width)")
                #expect(texts(MessageLayout.lines(text, markdown: true, width: width)) == CellWidth.wrap(text, width: width), "\(text) at \(width)")
            }
        }
    }

    @Test func styledRunsWrapAcrossLines() {
        let lines = MessageLayout.lines("aa **bbb ccc** dd", markdown: true, width: 7)
        #expect(texts(lines) == ["aa bbb", "ccc dd"])
        #expect(lines[0] == [Run("aa "), Run("bbb", Look(.text, .bold))])
        #expect(lines[1] == [Run("ccc", Look(.text, .bold)), Run(" dd")])
        // Wide characters are two cells: no line is wider than the column.
        let wide = MessageLayout.lines("**你好你好** 😀😀 `ok`", markdown: true, width: 5)
        #expect(texts(wide) == ["你好", "你好", "😀😀", "ok"])
        #expect(wide.allSatisfy { CellWidth.of($0.map(\.text).joined()) <= 5 })
        #expect(wide[1] == [Run("你好", Look(.text, .bold))] && wide[3] == [Run("ok", Look(.code))])
        #expect(texts(MessageLayout.lines("**bold**", markdown: false, width: 20)) == ["**bold**"], "markdown off: as typed")
    }

    @Test func linksShowTheirURL() {
        let lines = MessageLayout.lines("[docs](https://d.test) and [https://e.test](https://e.test)", markdown: true, width: 80)
        #expect(
            lines == [
                [
                    Run("docs", Look(.link, link: "https://d.test")), Run(" <https://d.test>", Look(.linkURL, link: "https://d.test")), Run(" and "),
                    Run("https://e.test", Look(.link, link: "https://e.test")),
                ]
            ])
    }

    @Test func listsHangAndQuotesHaveABar() {
        let list = MessageLayout.lines("- first item wraps\n  1. sub", markdown: true, width: 12)
        #expect(texts(list) == ["", "• first item", "  wraps", "  1. sub"], "a list starts under the name")
        #expect(list[1][0] == Run("•", Look(.listMarker)) && list[3][1] == Run("1.", Look(.listMarker)))
        let quote = MessageLayout.lines("> **quoted** text here", markdown: true, width: 12)
        #expect(texts(quote) == ["", "│ quoted", "│ text here"])
        #expect(quote[1] == [Run("│ ", Look(.quote)), Run("quoted", Look(.quote, .bold))])
    }

    @Test func codeBlocksKeepTheirLinesInABox() {
        let text = "```swift\nlet x = 1\nprint(x, \"a long line that is cut\")\n```"
        let lines = MessageLayout.lines(text, markdown: true, width: 24)
        #expect(
            texts(lines) == [
                "",
                "╭─ swift ──────────────╮",
                "│ let x = 1            │",
                "│ print(x, \"a long li… │",
                "╰──────────────────────╯",
            ])
        #expect(lines[1][1] == Run(" swift ", Look(.codeLanguage)))
        #expect(lines.allSatisfy { CellWidth.of($0.map(\.text).joined()) <= 24 })
        // Just wide enough for its longest line; no language, no label.
        #expect(texts(MessageLayout.lines("```\nab\n```", markdown: true, width: 24)) == ["", "╭────╮", "│ ab │", "╰────╯"])
        // Too narrow for a box: the lines, cut.
        #expect(texts(MessageLayout.lines("```\nabcdefghij\n```", markdown: true, width: 6)) == ["", "abcde…"])
    }

    @Test func syntaxColoursForKnownLanguages() throws {
        let swift = try #require(CodeColours.tokens("let s = \"a \\\" b\" // note", language: "Swift"))
        #expect(swift.map(\.0) == ["let", " s = ", "\"a \\\" b\"", " ", "// note"])
        #expect(swift.map(\.1) == [.keyword, .plain, .string, .plain, .comment])
        let py = try #require(CodeColours.tokens("def f(x): return 42  # done", language: "py"))
        #expect(py.filter { $0.1 == .keyword }.map(\.0) == ["def", "return"] && py.last! == ("# done", .comment))
        #expect(py.contains { $0 == ("42", .string) }, "numbers are coloured as strings")
        #expect(CodeColours.tokens("x := \"unterminated", language: "go")?.last?.1 == .string)
        #expect(CodeColours.tokens("let x", language: "cobol") == nil && CodeColours.tokens("let x", language: "") == nil)
        let lines = MessageLayout.lines("```swift\nlet x = \"s\" // c\n```", markdown: true, width: 30)
        #expect(
            lines[2]
                == [
                    Run("│ "), Run("let", Look(.codeKeyword)), Run(" x = ", Look(.codeBlock)), Run("\"s\"", Look(.codeString)),
                    Run(" ", Look(.codeBlock)), Run("// c", Look(.codeComment)), Run(" │", Look(.codeBlock)),
                ].map { r in r.look == .text ? Run(r.text, Look(.codeBlock)) : r })
    }

    @Test func theReceiptMarkFollowsTheText() {
        let mark = [Run(" "), Run("✓", Look(.mark))]
        #expect(MessageLayout.lines("hi", markdown: true, trailing: mark, width: 10) == [[Run("hi "), Run("✓", Look(.mark))]])
        let after = MessageLayout.lines("```\nab\n```", markdown: true, trailing: mark, width: 10)
        #expect(texts(MessageLayout.lines("a\n```\nb\n```", markdown: true, width: 10)) == ["a", "╭───╮", "│ b │", "╰───╯"])
        #expect(texts(after) == ["", "╭────╮", "│ ab │", "╰────╯ ✓"])
        let under = MessageLayout.lines("```\nabcd\n```", markdown: true, trailing: mark, width: 9)
        #expect(texts(under) == ["", "╭──────╮", "│ abcd │", "╰──────╯", "✓"])
    }
}
