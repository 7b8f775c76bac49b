@preconcurrency import CHunspell
import Foundation
public import TernTUI

/// Hunspell's dictionaries through dlopen (the C shim CHunspell): `LANG.aff` and `LANG.dic` from `$DICPATH`,
/// `/usr/share/hunspell` (Debian's hunspell-en-us), `/usr/share/myspell` and Homebrew's places. Without the
/// library or a dictionary, `load` says so and every word counts as right. Calls are serialised by a lock (the
/// library is not thread-safe per dictionary); a word costs one `Hunspell_spell`, some microseconds.
public final class HunspellChecker: SpellChecker, @unchecked Sendable {
    let lock = NSLock()
    /// The loaded dictionaries, each with whether it reads ISO 8859-1 (else UTF-8).
    var dictionaries: [(handle: UnsafeMutableRawPointer, latin1: Bool)] = []
    public let directories: [String]

    public init(directories: [String]? = nil) {
        self.directories = directories ?? Self.defaultDirectories
    }

    deinit { for d in dictionaries { cth_destroy(d.handle) } }

    /// Where dictionaries are looked for: `$DICPATH` (colon-separated) first.
    public static var defaultDirectories: [String] {
        let env = ProcessInfo.processInfo.environment["DICPATH"].map { $0.split(separator: ":").map(String.init) } ?? []
        let home = NSHomeDirectory()
        return env + [
            "/usr/share/hunspell", "/usr/local/share/hunspell", "/opt/homebrew/share/hunspell", "/usr/share/myspell",
            "/usr/share/myspell/dicts", home + "/.local/share/hunspell", home + "/Library/Spelling",
        ]
    }

    /// The directory holding `language`'s .aff and .dic.
    func directory(of language: String) -> String? {
        guard !language.contains("/") else { return nil }
        return directories.first { d in
            FileManager.default.fileExists(atPath: "\(d)/\(language).aff") && FileManager.default.fileExists(atPath: "\(d)/\(language).dic")
        }
    }

    public static var libraryAvailable: Bool { cth_library() != nil }

    public func hasDictionary(_ language: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return cth_library() != nil && directory(of: language) != nil
    }

    public func load(_ languages: [String]) -> SpellLoad {
        lock.lock()
        defer { lock.unlock() }
        for d in dictionaries { cth_destroy(d.handle) }
        dictionaries = []
        guard !languages.isEmpty else { return SpellLoad(loaded: []) }
        guard cth_library() != nil else {
            return SpellLoad(loaded: [], problem: "spell check off: libhunspell is not installed (e.g. apt-get install libhunspell-1.7-0)")
        }
        var loaded: [String] = []
        var missing: [String] = []
        for language in languages {
            guard let dir = directory(of: language), let h = cth_create("\(dir)/\(language).aff", "\(dir)/\(language).dic") else {
                missing.append(language)
                continue
            }
            let encoding = String(cString: cth_encoding(h)).uppercased()
            dictionaries.append((h, encoding.hasPrefix("ISO8859-1") || encoding.hasPrefix("ISO-8859-1")))
            loaded.append(language)
        }
        guard !missing.isEmpty else { return SpellLoad(loaded: loaded) }
        let what = missing.joined(separator: ", ")
        let package = "e.g. apt-get install hunspell-\(missing[0].lowercased().replacingOccurrences(of: "_", with: "-"))"
        let problem =
            loaded.isEmpty
            ? "spell check off: no Hunspell dictionary for \(what) (\(package))"
            : "spell check: no Hunspell dictionary for \(what) (\(package)); checking \(loaded.joined(separator: ", "))"
        return SpellLoad(loaded: loaded, problem: problem)
    }

    /// `word` in a dictionary's encoding (nil: it has characters the dictionary cannot hold).
    static func encoded(_ word: String, latin1: Bool) -> [CChar]? {
        guard latin1 else { return word.utf8CString.map { $0 } }
        guard let data = word.data(using: .isoLatin1) else { return nil }
        return data.map { CChar(bitPattern: $0) } + [0]
    }

    public func isCorrect(_ word: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !dictionaries.isEmpty else { return true }
        for d in dictionaries {
            guard let w = Self.encoded(word, latin1: d.latin1) else { continue }
            if cth_spell(d.handle, w) != 0 { return true }
        }
        return false
    }

    public func suggestions(for word: String) -> [String] {
        lock.lock()
        defer { lock.unlock() }
        var out: [String] = []
        for d in dictionaries {
            guard let w = Self.encoded(word, latin1: d.latin1) else { continue }
            var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
            let n = Int(cth_suggest(d.handle, w, &list))
            guard let list, n > 0 else { continue }
            for i in 0..<n {
                guard let p = list[i] else { continue }
                let s = d.latin1 ? String(data: Data(bytes: p, count: strlen(p)), encoding: .isoLatin1) ?? "" : String(cString: p)
                if !out.contains(s) { out.append(s) }
            }
            cth_free_list(d.handle, list, Int32(n))
        }
        return out
    }
}
