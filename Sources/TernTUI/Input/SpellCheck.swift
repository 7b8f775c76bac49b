import Foundation

/// A spelling dictionary (the terminal adapter's Hunspell, loaded with dlopen; a fake in tests). TernTUI
/// never loads a library itself: ``ChatApp`` is given one and loads the `spell` setting's languages with it.
public protocol SpellChecker: AnyObject, Sendable {
    /// Whether `language`'s dictionary (and the library that reads it) is installed.
    func hasDictionary(_ language: String) -> Bool
    /// Loads these languages' dictionaries in place of the ones loaded before (none: spell check off).
    func load(_ languages: [String]) -> SpellLoad
    /// Whether one of the loaded dictionaries knows `word`.
    func isCorrect(_ word: String) -> Bool
    /// The dictionaries' suggestions for `word`, best first.
    func suggestions(for word: String) -> [String]
}

/// What loading dictionaries gave: the languages loaded, and a sentence about what could not be (no library,
/// no dictionary), for the status notice.
public struct SpellLoad: Sendable, Equatable {
    public var loaded: [String]
    public var problem: String?
    public init(loaded: [String], problem: String? = nil) {
        self.loaded = loaded
        self.problem = problem
    }
}

/// Spell checking of the input line: the dictionaries loaded and each word's answer so far (a word is asked
/// once), and Alt-S going through a word's suggestions.
public struct SpellState: Sendable, Equatable {
    /// The languages loaded; empty: spell check is off.
    public var languages: [String] = []
    /// The words asked about so far: true when a dictionary knows them.
    public var known: [String: Bool] = [:]
    /// The input the words were last looked up for.
    var checkedInput: [Character] = []
    /// Alt-S in progress: the word as typed, where it starts, its suggestions and the one shown, and the input
    /// and cursor it left (any other edit ends the cycle).
    var cycle: Cycle?

    struct Cycle: Sendable, Equatable {
        var start: Int
        var original: String
        var suggestions: [String]
        var index: Int
        var input: [Character]
        var cursor: Int
    }

    public init(languages: [String] = []) { self.languages = languages }
}

/// Which words of a draft are spell checked: words of letters (an apostrophe inside one is part of it), not in
/// a backtick code span, a URL, a path, an @mention, a #channel, an :emoji: or an e-mail address, not all in
/// capitals, not with digits, not a single letter; nothing in a slash command or a draft longer than
/// Sendbird's limit.
public enum SpellWords {
    /// The ranges of the words to check in `input`.
    public static func ranges(in input: [Character]) -> [Range<Int>] {
        guard input.first != "/", input.count <= Reducer.messageLimit else { return [] }
        var out: [Range<Int>] = []
        var i = 0
        var fence = 0  // the backticks that opened the code span the text is in (0: none)
        while i < input.count {
            let c = input[i]
            if c == "`" {
                var n = 0
                while i < input.count && input[i] == "`" {
                    n += 1
                    i += 1
                }
                if fence == 0 {
                    fence = n
                } else if n == fence {
                    fence = 0
                }
                continue
            }
            if fence > 0 || c.isWhitespace {
                i += 1
                continue
            }
            var j = i
            while j < input.count && !input[j].isWhitespace && input[j] != "`" { j += 1 }
            if !skipped(input[i..<j]) { out += words(input, i..<j) }
            i = j
        }
        return out
    }

    /// A chunk between spaces that is not prose: a URL, a path, a mention, a channel, an emoji, an address.
    static func skipped(_ chunk: ArraySlice<Character>) -> Bool {
        guard let first = chunk.first else { return true }
        if first == "@" || first == "#" || chunk.contains("@") || chunk.contains("/") || chunk.contains("\\") { return true }
        if first == ":" && chunk.count > 2 && chunk.dropFirst().contains(":") { return true }
        if first == "w" || first == "W", chunk.count > 4, String(chunk.prefix(4)).lowercased() == "www." { return true }
        // A dot between letters: a host name or a file name (example.com, notes.txt).
        var k = chunk.startIndex + 1
        while k < chunk.endIndex - 1 {
            if chunk[k] == ".", chunk[k - 1].isLetter, chunk[k + 1].isLetter { return true }
            k += 1
        }
        return false
    }

    static func isApostrophe(_ c: Character) -> Bool { c == "'" || c == "’" }

    /// The words of a chunk: runs of letters and digits, an apostrophe between letters inside one.
    static func words(_ s: [Character], _ range: Range<Int>) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var i = range.lowerBound
        while i < range.upperBound {
            guard s[i].isLetter || s[i].isNumber else {
                i += 1
                continue
            }
            var j = i
            while j < range.upperBound {
                if s[j].isLetter || s[j].isNumber {
                    j += 1
                } else if isApostrophe(s[j]), j + 1 < range.upperBound, s[j + 1].isLetter, j > i {
                    j += 1
                } else {
                    break
                }
            }
            let word = s[i..<j]
            let capitals = word.allSatisfy { !$0.isLetter || $0.isUppercase }
            if word.count > 1, !word.contains(where: \.isNumber), !capitals { out.append(i..<j) }
            i = j
        }
        return out
    }
}

extension Reducer {
    /// Looks up the words of the input no dictionary was asked about yet (after every change of the input;
    /// each word once, so a keystroke asks about one word at most).
    func refreshSpelling(_ state: inout AppState) {
        guard let checker = spellChecker, !state.spell.languages.isEmpty, state.spell.checkedInput != state.input else { return }
        state.spell.checkedInput = state.input
        if state.spell.cycle.map({ $0.input != state.input }) == true { state.spell.cycle = nil }
        if state.spell.known.count > 20_000 { state.spell.known = [:] }
        for r in SpellWords.ranges(in: state.input) {
            let word = String(state.input[r])
            if state.spell.known[word] == nil { state.spell.known[word] = checker.isCorrect(word) }
        }
    }

    /// The words the input line underlines: those a dictionary does not know, except the one being typed (the
    /// cursor at its end).
    public static func misspelled(_ state: AppState) -> [Range<Int>] {
        guard !state.spell.languages.isEmpty, !state.spell.known.isEmpty else { return [] }
        return SpellWords.ranges(in: state.input).filter { r in
            guard state.spell.known[String(state.input[r])] == false else { return false }
            return r.upperBound != state.cursor || state.spell.cycle != nil
        }
    }

    /// Alt-S: the word under or before the cursor (when it is right: the nearest misspelled one before it) becomes
    /// its first suggestion; again: the next one, and after the last, the word as typed. The notice shows them.
    func spellSuggest(_ state: inout AppState) {
        guard let checker = spellChecker, !state.spell.languages.isEmpty else {
            state.notice = "spell check is off (/set spell en_US turns it on)"
            return
        }
        if var c = state.spell.cycle, c.input == state.input, c.cursor == state.cursor {
            let shown = c.index < c.suggestions.count ? c.suggestions[c.index] : c.original
            c.index = (c.index + 1) % (c.suggestions.count + 1)
            replaceWord(c.start..<c.start + shown.count, with: c, &state)
            return
        }
        state.spell.cycle = nil
        let before = SpellWords.ranges(in: state.input).filter { $0.lowerBound <= state.cursor }
        guard let under = before.last else {
            state.notice = "no word to check here"
            return
        }
        // The word under the cursor, or when it is right, the nearest misspelled one before it.
        func isCorrect(_ r: Range<Int>) -> Bool {
            let word = String(state.input[r])
            if let known = state.spell.known[word] { return known }
            let answer = checker.isCorrect(word)
            state.spell.known[word] = answer
            return answer
        }
        guard let r = before.last(where: { !isCorrect($0) }) else {
            state.notice = "\"\(String(state.input[under]))\" is spelled right"
            return
        }
        let word = String(state.input[r])
        let suggestions = Array(checker.suggestions(for: word).prefix(9))
        guard !suggestions.isEmpty else {
            state.notice = "no suggestions for \"\(word)\""
            return
        }
        let c = SpellState.Cycle(start: r.lowerBound, original: word, suggestions: suggestions, index: 0, input: [], cursor: 0)
        replaceWord(r, with: c, &state)
    }

    /// Puts the cycle's current word in place of `range` (one undo step) and says where the cycle is.
    private func replaceWord(_ range: Range<Int>, with cycle: SpellState.Cycle, _ state: inout AppState) {
        var c = cycle
        let word = c.index < c.suggestions.count ? c.suggestions[c.index] : c.original
        pushUndo(&state)
        state.typingRun = false
        // The cursor stays where it was in the text after the word, else it goes to the word's end.
        let after = state.cursor > range.upperBound ? state.cursor - range.upperBound : nil
        state.input.replaceSubrange(range, with: Array(word))
        state.cursor = range.lowerBound + word.count + (after ?? 0)
        c.input = state.input
        c.cursor = state.cursor
        state.spell.cycle = c
        for w in c.suggestions where state.spell.known[w] == nil { state.spell.known[w] = true }
        let list = c.suggestions.enumerated().map { $0.offset == c.index ? "[\($0.element)]" : $0.element }
        let original = c.index == c.suggestions.count ? "[\(c.original)]" : c.original
        state.notice = "spelling: \(list.joined(separator: " ")) · as typed: \(original) · again: the next"
    }
}
