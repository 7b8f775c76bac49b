import Foundation
import TernKit
import TernProtocol
import Testing

@testable import TernTUI

@Suite("Key map and settings")
struct KeyMapSettingsTests {
    @Test func presetsAndSequences() throws {
        let emacs = KeyTable.standard
        #expect(emacs.command(for: .ctrl("k")) == .killToEnd && emacs.command(for: .ctrl("s")) == .search)
        #expect(emacs.command(for: .alt("3")) == .jump3 && emacs.command(for: .alt("0")) == .jump10)
        #expect(emacs.match([.ctrl("x")], mode: .insert) == .prefix)
        #expect(emacs.match([.ctrl("x"), .ctrl("e")], mode: .insert) == .command(.editor))
        let vi = KeyTable(preset: .vi)
        #expect(vi.command(for: .escape) == .normalMode && vi.command(for: .char("j"), mode: .normal) == .lineDown)
        #expect(vi.match([.char("d")], mode: .normal) == .prefix && vi.match([.char("d"), .char("d")], mode: .normal) == .command(.clearInput))
        #expect(vi.command(for: .alt("a"), mode: .normal) == .nextActivity, "Alt keys work in both modes")
        #expect(try KeyTable.parse("C-x C-e") == [.ctrl("x"), .ctrl("e")])
        #expect(try KeyTable.parse("M-Enter") == [.altEnter] && KeyTable.parse("S-Tab") == [.shiftTab] && KeyTable.parse("Alt-b") == [.alt("b")])
        #expect(throws: KeyTable.BindingError.self) { try KeyTable.parse("C-é") }
        // Every command has a name the config can use, and the help lists every bound command.
        #expect(Command.allCases.allSatisfy { Command(rawValue: $0.rawValue) == $0 })
        let help = emacs.helpLines().map(\.keys)
        #expect(help.contains("Ctrl-S") && help.contains("Alt-1…Alt-9, Alt-0") && help.contains("Ctrl-X Ctrl-E"))
    }

    @Test func configFileParsesAndErrorsNameTheLine() throws {
        let s = try Settings.parse(
            """
            server = "http://127.0.0.1:9"
            theme = "light"
            keymap = "vi"
            highlights = ["deploy", "Outage"]
            notify_style = ["bell", "osc9"]
            dnd = "22:00-07:30"
            paste_confirm_lines = 8
            [keys]
            "M-s" = "search"
            "C-k" = "none"
            [keys.normal]
            "q" = "quit"
            [channels.random]
            notify = "none"
            """)
        #expect(s.server == "http://127.0.0.1:9" && s.theme == "light" && s.keymap == .vi && s.pasteConfirmLines == 8)
        #expect(s.highlights == ["deploy", "Outage"] && s.notifyStyle == ["bell", "osc9"] && s.quietWindow! == (1320, 450))
        let keys = try s.keyTable()
        #expect(
            keys.command(for: .alt("s")) == .search && keys.command(for: .ctrl("k")) == nil && keys.command(for: .char("q"), mode: .normal) == .quit)
        #expect(s.notifyLevel(url: "x", name: "random") == "none" && s.notifyLevel(url: "y", name: "team") == "mentions")
        func error(_ text: String) -> Settings.SettingsError? {
            do {
                _ = try Settings.parse(text, source: "c.toml")
                return nil
            } catch let e as Settings.SettingsError { return e } catch { return nil }
        }
        #expect(error("theme = \"dark\"\nkeymap = \"emacz\"\n")?.description == "c.toml:2: keymap takes emacs or vi, not \"emacz\"")
        #expect(error("\n\ncolour = 1\n")?.line == 3)
        #expect(error("mouse = \"yes\"")?.description == "c.toml:1: mouse must be true or false")
        #expect(error("theme = \n")?.line == 1, "TOML syntax errors name their line")
        #expect(error("[keys]\n\"C-q\" = \"fly\"\n")?.line == 2)
        #expect(error("[channels.x]\nnotify = \"loud\"\n")?.line == 2)
        #expect(error("theme = \"dark\"\n[keys]\n\"C-é\" = \"search\"\n")?.line == 3, "a key that cannot be bound names its line too")
        // The example config shipped in docs/ parses, and is the one in --help.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let file = try String(contentsOf: root.appendingPathComponent("docs/config.example.toml"), encoding: .utf8)
        #expect(file == exampleConfig, "run scripts/bundle-texts.py")
        _ = try Settings.parse(exampleConfig).keyTable()
    }

    @Test func setAndSaveRoundTrip() throws {
        var s = Settings()
        try s.set("notify_style", "osc777,osc9")
        try s.set("dnd", "23:00-06:00")
        try s.set("keymap", "vi")
        #expect(throws: Settings.SettingsError.self) { try s.set("notify", "loudly") }
        #expect(throws: Settings.SettingsError.self) { try s.set("colour", "1") }
        s.keys["M-s"] = "search"
        s.channels["random"] = .init(notify: "none")
        let back = try Settings.parse(s.toml())
        #expect(back == s)
    }

    @Test func bundledThemesMatchTheirFilesAndParse() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        for name in ["dark", "light", "high-contrast"] {
            let file = try String(contentsOf: root.appendingPathComponent("themes/\(name).theme"), encoding: .utf8)
            #expect(bundledThemeTexts[name] == file, "run scripts/bundle-texts.py")
            let t = try Theme.named(name, themesDirectory: "/nonexistent")
            #expect(Theme.keys.allSatisfy { t.styles[$0] != nil }, "\(name) sets every key")
        }
        #expect(throws: Theme.ParseError.self) { try Theme.named("neon", themesDirectory: "/nonexistent") }
        // Nick colours: stable per user, from the theme's palette, none without colour.
        let dark = try Theme.named("dark", themesDirectory: "/nonexistent")
        #expect(dark.nickStyle("bob") == dark.nickStyle("bob") && dark.nickStyle("bob").bold)
        #expect(Set(["alice", "bob", "carol", "dave", "erin", "frank"].map { dark.nickStyle($0).fg }).count > 2)
        #expect(dark.withoutColor().nickStyle("bob").fg == .default)
    }
}
