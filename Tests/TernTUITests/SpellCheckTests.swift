import Foundation
import TernKit
import Testing

@testable import TernTUI

/// A dictionary of a few words; `asked` counts the look-ups (each word once).
final class FakeSpeller: SpellChecker, @unchecked Sendable {
    let words: Set<String>
    let lock = NSLock()
    var asked: [String] = []
    init(_ words: Set<String>) { self.words = words }
    func hasDictionary(_ language: String) -> Bool { language == "en_US" }
    func load(_ languages: [String]) -> SpellLoad {
        let ok = languages.filter { $0 == "en_US" }
        let missing = languages.filter { $0 != "en_US" }
        return SpellLoad(loaded: ok, problem: missing.isEmpty ? nil : "no dictionary for \(missing.joined(separator: ", "))")
    }
    func isCorrect(_ word: String) -> Bool {
        lock.withLock { asked.append(word) }
        return words.contains(word.lowercased())
    }
    func suggestions(for word: String) -> [String] {
        switch word {
        case "helo": ["hello", "help", "hell"]
        case "wrold": ["world"]
        default: []
        }
    }
}

/// Spell check while typing (issue 38 item 3): the words checked, the underline, Alt-S, the setting.
@Suite("Spell check while typing")
struct SpellCheckTests: TUIFixture {
    let speller = FakeSpeller(["hello", "help", "hell", "world", "the", "see", "and", "don't", "is", "at", "code"])
    var reducer: Reducer {
        var r = Reducer(keys: .standard, timeZone: TimeZone(identifier: "UTC")!)
        r.spellChecker = speller
        return r
    }

    func words(_ text: String) -> [String] {
        let input = Array(text)
        return SpellWords.ranges(in: input).map { String(input[$0]) }
    }

    @Test func whichWordsAreChecked() {
        #expect(words("helo wrold, don't see") == ["helo", "wrold", "don't", "see"])
        #expect(words("see `helo wrold` and ``x `y` z`` wrold") == ["see", "and", "wrold"], "code spans are skipped")
        #expect(words("see https://exmple.com/helo and www.exmple.org") == ["see", "and"], "URLs are skipped")
        #expect(words("@bobb and #genral see :thumsup:") == ["and", "see"], "mentions, channels and emoji are skipped")
        #expect(words("/jion #helo wrold") == [], "a slash command is not prose")
        #expect(words("NASA x 3rd me@exmple.com notes.txt ~/helo") == [], "capitals, letters, digits, addresses, files, paths")
        #expect(words("`unclosed helo") == [], "a code span being typed is code")
        #expect(words(String(repeating: "helo ", count: 1001)).isEmpty, "a draft beyond Sendbird's limit is not checked")
    }

    func typing(_ text: String) -> AppState {
        var s = teamChannel([(bob, "hi")])
        s.terminal = PaneSize(width: 60, height: 10)
        s.spell = SpellState(languages: ["en_US"])
        type(text, &s)
        return s
    }

    @Test func misspelledWordsAreMarkedButNotTheOneBeingTyped() {
        var s = typing("helo wrold")
        #expect(s.spell.known["helo"] == false && s.spell.known["wrold"] == false)
        #expect(Reducer.misspelled(s) == [0..<4], "the word at the cursor is still being typed")
        _ = reducer.reduce(&s, .key(.char(" ")))
        #expect(Reducer.misspelled(s) == [0..<4, 5..<10])
        #expect(speller.asked.filter { $0 == "helo" }.count == 1, "a word is looked up once")
        var off = s
        off.spell.languages = []
        #expect(Reducer.misspelled(off).isEmpty, "no dictionary: nothing marked")
    }

    @Test func theInputLineUnderlinesThem() throws {
        let s = typing("helo world `wrold` ")
        for theme in [Theme.builtin, Theme.builtin.withoutColor()] {
            let grid = Screen(theme: theme, timeZone: TimeZone(identifier: "UTC")!).render(s, width: 60, height: 10, now: 0)
            let y = try #require((0..<grid.height).first { grid.line($0).contains("> helo") })
            let x = try #require(grid.line(y).range(of: "helo").map { grid.line(y).distance(from: grid.line(y).startIndex, to: $0.lowerBound) })
            for i in 0..<4 { #expect(grid[x + i, y].style.underline, "helo is underlined") }
            #expect(!grid[x + 4, y].style.underline && !grid[x + 5, y].style.underline, "the space and world are not")
            #expect(!grid[x + 12, y].style.underline, "code is not checked")
            if theme == Theme.builtin { #expect(grid[x, y].style.fg == .index(1), "input.misspelled: red underline") }
        }
        for name in ["dark", "light", "high-contrast"] {
            let t = try Theme.named(name, themesDirectory: "/nonexistent")
            #expect(t.style("input.misspelled").underline, "\(name) underlines misspelled words")
        }
    }

    @Test func altSReplacesAndCycles() {
        var s = typing("say helo")
        s.cursor = 6  // inside "helo"
        _ = reducer.reduce(&s, .key(.alt("s")))
        #expect(s.inputText == "say hello" && s.cursor == 9)
        #expect(s.notice == "spelling: [hello] help hell · as typed: helo · again: the next")
        _ = reducer.reduce(&s, .key(.alt("s")))
        #expect(s.inputText == "say help" && s.notice?.contains("[help]") == true)
        _ = reducer.reduce(&s, .key(.alt("s")))
        _ = reducer.reduce(&s, .key(.alt("s")))
        #expect(s.inputText == "say helo" && s.notice?.contains("[helo]") == true, "after the last: the word as typed")
        _ = reducer.reduce(&s, .key(.alt("s")))
        #expect(s.inputText == "say hello", "and round again")
        _ = reducer.reduce(&s, .key(.ctrl("_")))
        #expect(s.inputText == "say helo", "undo takes a replacement back")
        type(" wrold!", &s)
        _ = reducer.reduce(&s, .key(.alt("s")))
        #expect(s.inputText == "say helo world!", "the word before the cursor")
        _ = reducer.reduce(&s, .key(.alt("s")))
        #expect(s.inputText == "say helo wrold!")
        var earlier = typing("see helo and the ")
        _ = reducer.reduce(&earlier, .key(.alt("s")))
        #expect(earlier.inputText == "see hello and the " && earlier.cursor == 18, "the nearest misspelled word before; the cursor stays")
        _ = reducer.reduce(&earlier, .key(.alt("s")))
        #expect(earlier.inputText == "see help and the " && earlier.cursor == 17, "cycling there too")
        var right = typing("hello and the")
        _ = reducer.reduce(&right, .key(.alt("s")))
        #expect(right.inputText == "hello and the" && right.notice == "\"the\" is spelled right")
        var off = typing("helo")
        off.spell.languages = []
        _ = reducer.reduce(&off, .key(.alt("s")))
        #expect(off.inputText == "helo" && off.notice?.contains("spell check is off") == true)
        #expect(
            KeyTable.standard.command(for: .alt("s")) == .spellSuggest
                && KeyTable(preset: .vi).command(for: .alt("s"), mode: .normal) == .spellSuggest)
    }

    @Test func theSetting() throws {
        var s = Settings()
        #expect(s.spell == nil && s.value("spell") == "auto")
        try s.set("spell", "en_US, de_DE")
        #expect(s.spell == ["en_US", "de_DE"] && s.value("spell") == "en_US,de_DE")
        try s.set("spell", "off")
        #expect(s.spell == [] && s.value("spell") == "off")
        try s.set("spell", "auto")
        #expect(s.spell == nil)
        #expect(throws: Settings.SettingsError.self) { try s.set("spell", "../etc/passwd") }
        #expect(try Settings.parse("spell = \"en_GB\"").spell == ["en_GB"])
        #expect(try Settings.parse("spell = [\"en_US\", \"fr\"]").spell == ["en_US", "fr"])
        #expect(try Settings.parse("spell = \"off\"").spell == [])
        #expect(try Settings.parse("").spell == nil)
        for value in [["en_US"], ["en_US", "de_DE"], []] {
            var one = Settings()
            one.spell = value
            #expect(try Settings.parse(one.toml()).spell == value, "/save keeps \(value)")
        }
        #expect(try Settings.parse(Settings().toml()).spell == nil, "unset stays unset")
    }
}
