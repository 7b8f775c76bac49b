import Foundation
import TernKit
import TernTUI
import TernTerminal
import Testing

/// The real Hunspell binding (dlopen of libhunspell-1.7.so.0) against the installed en_US dictionary
/// (Debian: apt-get install libhunspell-1.7-0 hunspell-en-us; .ci/run and scripts/setup.sh --dev install them).
@Suite("Hunspell through dlopen")
struct HunspellTests {
    static let installed = HunspellChecker().hasDictionary("en_US")

    @Test(.enabled(if: installed, "skipped: no libhunspell or no en_US dictionary (apt-get install libhunspell-1.7-0 hunspell-en-us)"))
    func englishWords() {
        let h = HunspellChecker()
        #expect(h.load(["en_US"]) == SpellLoad(loaded: ["en_US"]))
        #expect(!h.isCorrect("helo"))
        #expect(h.isCorrect("hello") && h.isCorrect("Hello") && h.isCorrect("don't"))
        #expect(h.suggestions(for: "helo").contains("hello"))
        #expect(h.isCorrect("naïve") || !h.suggestions(for: "naïve").isEmpty, "UTF-8 words go through")
        let partial = h.load(["en_US", "xx_NOPE"])
        #expect(partial.loaded == ["en_US"] && partial.problem?.contains("xx_NOPE") == true)
        #expect(!h.isCorrect("wrold"), "what did load still checks")
    }

    @Test func aMissingDictionaryIsSaidNotACrash() {
        let h = HunspellChecker(directories: ["/nonexistent"])
        #expect(!h.hasDictionary("en_US"))
        let r = h.load(["en_US"])
        #expect(r.loaded.isEmpty)
        let problem = r.problem ?? ""
        #expect(problem.contains("no Hunspell dictionary for en_US") || problem.contains("libhunspell is not installed"), "\(problem)")
        #expect(h.isCorrect("helo") && h.suggestions(for: "helo").isEmpty, "nothing loaded: every word is right")
        #expect(h.load([]) == SpellLoad(loaded: []), "off")
    }

    /// One keystroke's cost with the real dictionary: the reducer (the look-up of the new word) and the screen,
    /// typing a sentence of new words a key at a time; printed for docs/benchmarks.md.
    @Test(.enabled(if: installed, "skipped: no en_US dictionary")) func keystrokeCost() {
        let h = HunspellChecker()
        let loading = ContinuousClock().measure { _ = h.load(["en_US"]) }
        let text = "Thsi is a sentance with a few mispeled words typed one key at a time, like a persn would"
        func run(_ checker: HunspellChecker?) -> (perKey: Double, lookups: Double) {
            var reducer = Reducer(keys: .standard, timeZone: TimeZone(identifier: "UTC")!)
            reducer.spellChecker = checker
            let screen = Screen(theme: .builtin, timeZone: TimeZone(identifier: "UTC")!)
            var total: Duration = .zero
            var lookups: Duration = .zero
            for _ in 0..<5 {
                var s = AppState(me: User(userId: "alice"), server: "test")
                s.spell = SpellState(languages: checker == nil ? [] : ["en_US"])
                let clock = ContinuousClock()
                for c in text {
                    total += clock.measure {
                        _ = reducer.reduce(&s, .key(.char(c)))
                        _ = screen.render(s, width: 120, height: 40, now: 0)
                    }
                }
                if let checker {
                    lookups += clock.measure { for w in text.split(separator: " ") { _ = checker.isCorrect(String(w) + "x") } }
                }
            }
            let keys = Double(text.count * 5)
            func us(_ d: Duration) -> Double { Double(d.components.attoseconds) / 1e12 + Double(d.components.seconds) * 1e6 }
            return (us(total) / keys, us(lookups) / Double(text.split(separator: " ").count * 5))
        }
        _ = run(h)  // warm up
        let with = run(h)
        let without = run(nil)
        print(
            "spell keystroke cost: \(String(format: "%.1f", with.perKey)) µs a key with spell check, "
                + "\(String(format: "%.1f", without.perKey)) µs without (reduce + render 120×40); "
                + "one Hunspell look-up \(String(format: "%.1f", with.lookups)) µs; loading en_US \(loading) (off the actor)")
        #expect(with.perKey < 5000, "a keystroke stays well under a frame")
    }
}
