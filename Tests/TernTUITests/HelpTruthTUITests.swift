import Foundation
import TernKit
import Testing

@testable import TernTUI

/// The help, the settings and the docs say what the program does (issue 30, point 9).
@Suite("Help and docs match the program")
struct HelpTruthTUITests {
    let screen = Screen(theme: .builtin, timeZone: TimeZone(identifier: "UTC")!)

    func state(height: Int = 20) -> AppState {
        var s = AppState(me: User(userId: "alice", nickname: "Alice"), server: "test")
        s.present = true
        s.connection = .open
        s.terminal = PaneSize(width: 80, height: height)
        return s
    }

    @Test func helpNamesTheLiveSearchKey() {
        let lines = screen.overlayLines(state()).lines
        let search = lines.first { $0.0 == "/search WORDS" }
        #expect(search?.1 == "search messages (Ctrl-S)")
        #expect(!lines.contains { $0.1.contains("Ctrl-K") && $0.1.contains("search") })
        // Rebound, the help follows.
        var keys = KeyTable.standard
        try? keys.bind("M-s", to: .search)
        try? keys.bind("C-s", to: nil)
        let rebound = Screen(theme: .builtin, keys: keys).overlayLines(state()).lines
        #expect(rebound.first { $0.0 == "/search WORDS" }?.1 == "search messages (Alt-s)")
    }

    @Test func everyKeyRowSaysWhatItsKeyDoes() {
        for preset in KeyTable.Preset.allCases {
            for mode in [KeyTable.Mode.insert, .normal] {
                let rows = KeyTable(preset: preset).helpLines(mode: mode)
                let texts = rows.map(\.what)
                #expect(Set(texts).count == texts.count, "\(preset) \(mode): two rows share a description: \(texts)")
            }
        }
        #expect(Command.nextChannel.summary != Command.previousChannel.summary)
    }

    /// PgDn moves by exactly what is shown: every line of the help is on screen once, none skipped.
    @Test func pagingShowsEveryLine() {
        let reducer = Reducer(keys: .standard, timeZone: TimeZone(identifier: "UTC")!)
        for height in [12, 20, 31] {
            var s = state(height: height)
            _ = reducer.reduce(&s, .key(.function(1)))
            #expect(s.showHelp)
            let lines = screen.overlayLines(s).lines
            let page = Screen.overlayPage(height: height)
            var covered = Set<Int>()
            for _ in 0..<100 {
                let text = screen.render(s, width: 80, height: height, now: 0).text
                let shown = s.helpScroll..<min(lines.count, s.helpScroll + page)
                for i in [shown.lowerBound, shown.upperBound - 1] {
                    let (k, what) = lines[i]
                    let probe = k.isEmpty ? String(what.prefix(12)) : k
                    #expect(probe.isEmpty || text.contains(probe), "height \(height): line \(i) (\(k)) is not on screen")
                }
                covered.formUnion(shown)
                let before = s.helpScroll
                _ = reducer.reduce(&s, .key(.pageDown))
                if s.helpScroll == before { break }
            }
            #expect(
                covered == Set(0..<lines.count),
                "height \(height): PgDn skipped \(Set(0..<lines.count).subtracting(covered).sorted().map { lines[$0].0 })")
            #expect(s.showHelp, "PgDn at the end keeps the help open")
            _ = reducer.reduce(&s, .key(.pageUp))
            #expect(s.helpScroll == max(0, lines.count - page - page))
        }
    }

    @Test func setAloneOpensTheSettingsOverlay() throws {
        let reducer = Reducer(keys: .standard, timeZone: TimeZone(identifier: "UTC")!)
        var s = state()
        s.input = Array("/set")
        s.cursor = 4
        _ = reducer.reduce(&s, .key(.enter))
        #expect(s.sheet == .settings && s.notice == nil)
        let grid = screen.render(s, width: 80, height: 20, now: 0)
        try assertGolden(grid, "settings-80x20")
        // The status bar is not overflowing with settings.
        #expect(!grid.line(19).contains("keymap=") && grid.text.contains("paste_confirm_lines"))
        _ = reducer.reduce(&s, .key(.char("q")))
        #expect(s.sheet == nil)
    }

    @Test func reactAloneListsTheServersEmojis() throws {
        let reducer = Reducer(keys: .standard, timeZone: TimeZone(identifier: "UTC")!)
        var s = state()
        s.input = Array("/react")
        s.cursor = 6
        let effects = reducer.reduce(&s, .key(.enter))
        #expect(effects == [.loadEmojis] && s.sheet == .emojis)
        #expect(screen.render(s, width: 80, height: 20, now: 0).text.contains("this server lists no emojis"))
        _ = reducer.reduce(&s, .emojisLoaded(["thumbsup", "heart", "party"]))
        let grid = screen.render(s, width: 80, height: 20, now: 0)
        try assertGolden(grid, "emojis-80x20")
        #expect(grid.text.contains(":thumbsup:") && grid.text.contains(":party:"))
    }

    /// The bindable names are one list: tern --help and the example config print it from `Command`.
    @Test func bindableNamesAreListedFromTheKeyMap() throws {
        let names = Command.namesText(width: 76, prefix: "#   ").joined(separator: "\n")
        #expect(exampleConfig.contains(names), "docs/config.example.toml lists every command (run scripts/bundle-texts.py after changing it)")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let file = try String(contentsOf: root.appendingPathComponent("docs/config.example.toml"), encoding: .utf8)
        #expect(file.contains(names))
        for c in Command.allCases { #expect(Command.namesText().joined().contains(c.rawValue)) }
        var settings = Settings()
        settings.keys = ["C-k": "kill-lines"]
        #expect(throws: Settings.SettingsError.self) { try settings.keyTable() }
        do {
            _ = try settings.keyTable()
        } catch {
            #expect("\(error)".contains("did you mean kill-line"), "\(error)")
            #expect("\(error)".contains("KEY COMMANDS"))
        }
    }

    @Test func createPublicAndChannelKindsAreExplained() {
        let reducer = Reducer()
        var s = state()
        s.input = Array("/create -public lobby bob")
        s.cursor = s.input.count
        #expect(reducer.reduce(&s, .key(.enter)) == [.createGroup(name: "lobby", userIds: ["bob"], isPublic: true)])
        s.input = Array("/create-public lobby")
        s.cursor = s.input.count
        #expect(reducer.reduce(&s, .key(.enter)) == [.createGroup(name: "lobby", userIds: [], isPublic: true)])
        s.input = Array("/create crew bob")
        s.cursor = s.input.count
        #expect(reducer.reduce(&s, .key(.enter)) == [.createGroup(name: "crew", userIds: ["bob"], isPublic: false)])
        s.input = Array("/create -public")
        s.cursor = s.input.count
        #expect(reducer.reduce(&s, .key(.enter)).isEmpty && s.notice?.hasPrefix("usage: /create [-public]") == true)
        let help = screen.overlayLines(state()).lines
        for kind in ["private", "public", "open"] { #expect(help.contains { $0.0 == kind }, "the help explains \(kind)") }
    }
}
