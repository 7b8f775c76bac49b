import Foundation
import TernKit
import Testing

@testable import TernTUI

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
        let t = try Theme.parse(
            """
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

    @Test func markdownRolesStrikeAndLayering() throws {
        let t = try Theme.parse("[styles]\ntimeline.text = white on 235\ntimeline.code = 215 strike\ntimeline.link = underline")
        #expect(t.style("timeline.code") == Style(fg: .index(215), strike: true))
        #expect(t.withoutColor().style("timeline.code") == Style(strike: true), "NO_COLOR keeps the attributes")
        #expect(t.style("timeline.code_block.language") == t.style("default"), "unset: along the dots")
        // A role over the message's style: its colours where it sets them, the attributes of both.
        let text = Style(fg: .index(7), bg: .index(235), bold: true)
        #expect(t.style("timeline.code").layered(over: text) == Style(fg: .index(215), bg: .index(235), bold: true, strike: true))
        #expect(t.style("timeline.link").layered(over: text) == Style(fg: .index(7), bg: .index(235), bold: true, underline: true))
        for key in ["timeline.code", "timeline.code_block", "timeline.code_block.language", "timeline.block_quote", "timeline.link"] {
            #expect(Theme.builtin.styles[key] != nil, "the built-in theme sets \(key)")
        }
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
