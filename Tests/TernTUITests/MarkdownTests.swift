import Testing

@testable import TernTUI

@Suite("Markdown")
struct MarkdownTests {
    typealias Span = Markdown.Span

    /// The spans of a one-line text.
    func spans(_ text: String) -> [Span] {
        guard case .line(let s) = Markdown(text).blocks.first, Markdown(text).blocks.count == 1 else { return [] }
        return s
    }

    @Test func emphasisStrikeAndCode() {
        #expect(spans("a **b** c") == [Span("a "), Span("b", .bold), Span(" c")])
        #expect(spans("__b__") == [Span("b", .bold)])
        #expect(spans("an *it* and _it_") == [Span("an "), Span("it", .italic), Span(" and "), Span("it", .italic)])
        #expect(spans("***both***") == [Span("both", [.bold, .italic])])
        #expect(spans("~~gone~~ now") == [Span("gone", .strike), Span(" now")])
        #expect(spans("run `make -j2` now") == [Span("run "), Span("make -j2", .code), Span(" now")])
        #expect(spans("`` a ` b ``") == [Span("a ` b", .code)], "a longer run holds a backtick; one space of padding goes")
        #expect(spans("```inline```") == [Span("inline", .code)])
    }

    @Test func nesting() {
        #expect(spans("**bold *and italic* bold**") == [Span("bold ", .bold), Span("and italic", [.bold, .italic]), Span(" bold", .bold)])
        #expect(spans("*it **bold** it*") == [Span("it ", .italic), Span("bold", [.bold, .italic]), Span(" it", .italic)])
        #expect(spans("**`code` in bold**") == [Span("code", [.bold, .code]), Span(" in bold", .bold)])
        #expect(spans("`**not bold**`") == [Span("**not bold**", .code)], "nothing is read inside code")
        #expect(spans("*a `*` b*") == [Span("a ", .italic), Span("*", [.italic, .code]), Span(" b", .italic)], "a code span's star closes nothing")
        #expect(Markdown("- **bold** item").blocks == [.item(.bullet, level: 0, [Span("bold", .bold), Span(" item")])])
        #expect(Markdown("> see `x`").blocks == [.quote([.line([Span("see "), Span("x", .code)])])])
        #expect(Markdown("> - one\n> - two").blocks == [.quote([.item(.bullet, level: 0, [Span("one")]), .item(.bullet, level: 0, [Span("two")])])])
        #expect(Markdown("> ```\n> let x = 1\n> ```").blocks == [.quote([.code(language: "", lines: ["let x = 1"])])])
        #expect(Markdown(">> deeper").blocks == [.quote([.quote([.line([Span("deeper")])])])])
    }

    @Test func links() {
        #expect(spans("see [the docs](https://x.test/a_b) now") == [Span("see "), Span("the docs", link: "https://x.test/a_b"), Span(" now")])
        #expect(spans("[**big**](u)") == [Span("big", .bold, link: "u")])
        #expect(spans("[a [b] c](u)") == [Span("a [b] c", link: "u")])
        #expect(spans("[no url]") == [Span("[no url]")])
        #expect(spans("[text](with space)") == [Span("[text](with space)")])
        #expect(
            spans("[text](https://unclosed") == [Span("[text]("), Span("https://unclosed", link: "https://unclosed")], "the bare URL in it links")
        #expect(spans("[](u)") == [Span("[](u)")])
    }

    @Test func whatStaysLiteral() {
        #expect(spans("snake_case_name and __init__x") == [Span("snake_case_name and __init__x")])
        #expect(spans("2 * 3 * 4") == [Span("2 * 3 * 4")])
        #expect(spans("a ** b") == [Span("a ** b")])
        #expect(spans("**not closed") == [Span("**not closed")])
        #expect(spans("*not closed either") == [Span("*not closed either")])
        #expect(spans("`unclosed code") == [Span("`unclosed code")])
        #expect(spans("~one tilde~") == [Span("~one tilde~")])
        #expect(spans("**a*") == [Span("**a*")], "runs of different lengths do not pair")
        #expect(spans("*a *") == [Span("*a *")], "a closer needs text before it")
        #expect(spans("\\*escaped\\* \\_too\\_") == [Span("*escaped* _too_")])
        #expect(spans("C:\\path") == [Span("C:\\path")], "a backslash before a letter is kept")
        #expect(spans("****") == [Span("****")])
        #expect(spans("") == [])
    }

    @Test func codeBlocks() {
        let text = "before\n```swift\nlet x = \"**no**\"\n\n  indented\n```\nafter"
        #expect(
            Markdown(text).blocks == [
                .line([Span("before")]), .code(language: "swift", lines: ["let x = \"**no**\"", "", "  indented"]), .line([Span("after")]),
            ])
        #expect(Markdown("~~~ python extra\nprint(1)\n~~~~").blocks == [.code(language: "python", lines: ["print(1)"])])
        #expect(Markdown("```\n```").blocks == [.code(language: "", lines: [])])
        // No closing fence: the lines as typed.
        #expect(Markdown("```go\nfmt.Println()").blocks == [.line([Span("```go")]), .line([Span("fmt.Println()")])])
        #expect(Markdown("```\ncode\n``").blocks.count == 3, "a shorter fence does not close")
    }

    @Test func listsAndQuotes() {
        #expect(
            Markdown("- a\n* b\n+ c\n1. d\n12) e\n  - nested").blocks == [
                .item(.bullet, level: 0, [Span("a")]), .item(.bullet, level: 0, [Span("b")]), .item(.bullet, level: 0, [Span("c")]),
                .item(.number("1."), level: 0, [Span("d")]), .item(.number("12)"), level: 0, [Span("e")]),
                .item(.bullet, level: 1, [Span("nested")]),
            ])
        #expect(Markdown("-x").blocks == [.line([Span("-x")])])
        #expect(Markdown("- ").blocks == [.line([Span("- ")])])
        #expect(Markdown("---").blocks == [.line([Span("---")])])
        #expect(Markdown("2 * 3").blocks == [.line([Span("2 * 3")])])
        #expect(Markdown("1.5 litres").blocks == [.line([Span("1.5 litres")])])
        #expect(Markdown("*italic* start").blocks == [.line([Span("italic", .italic), Span(" start")])])
        #expect(Markdown("> a\nb").blocks == [.quote([.line([Span("a")])]), .line([Span("b")])])
        #expect(Markdown("a\n\nb").blocks == [.line([Span("a")]), .line([]), .line([Span("b")])])
        #expect(Markdown(">").blocks == [.quote([.line([])])])
    }

    @Test func wideCharactersAndPlainText() {
        #expect(spans("**你好** 😀 _ü_") == [Span("你好", .bold), Span(" 😀 "), Span("ü", .italic)])
        #expect(Markdown("**a**\n> `b`\n- [c](u)\n```\nd\n```").plainText == "a\nb\nc\nd")
    }
}
