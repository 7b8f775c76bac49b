import Foundation
import TernProtocol

/// The profanity and domain filters of the application (`PUT /v3/applications/settings_global`)
/// and of channels of a custom type (`…/settings_global/{custom_type}`): keywords (`*` at either
/// end matches a word's prefix or suffix), regular expressions, and domains. `type` 0 does
/// nothing, 1 replaces what matched with asterisks, 2 refuses the message (900060).
public struct ContentFilter: Codable, Sendable, Equatable {
    public struct Words: Codable, Sendable, Equatable {
        public var keywords: [String] = []
        public var regexFilters: [Regex] = []
        public var type = 0
        public var shouldCheckGlobal = false
        enum CodingKeys: String, CodingKey {
            case keywords
            case regexFilters = "regex_filters"
            case type
            case shouldCheckGlobal = "should_check_global"
        }
        public struct Regex: Codable, Sendable, Equatable { public var regex: String }
    }
    public struct Domains: Codable, Sendable, Equatable {
        public var domains: [String] = []
        public var type = 0
        public var shouldCheckGlobal = false
        enum CodingKeys: String, CodingKey {
            case domains, type
            case shouldCheckGlobal = "should_check_global"
        }
    }
    public var customType: String?
    public var profanityFilter = Words()
    public var domainFilter = Domains()
    enum CodingKeys: String, CodingKey {
        case customType = "custom_type"
        case profanityFilter = "profanity_filter"
        case domainFilter = "domain_filter"
    }

    public init() {}

    /// Checks the settings: types 0–2, at most 1,000 keywords and domains, 50 regular
    /// expressions of at most 200 characters that compile.
    public func validate() throws {
        guard (0...2).contains(profanityFilter.type), (0...2).contains(domainFilter.type) else {
            throw SendbirdError(.invalidValue, "Invalid value: a filter \"type\" is 0 (off), 1 (replace) or 2 (block).")
        }
        if profanityFilter.keywords.count > 1_000 || domainFilter.domains.count > 1_000 || profanityFilter.regexFilters.count > 50 {
            throw SendbirdError(.tooManyItems, "Too many filter entries (1,000 keywords or domains, 50 regular expressions).")
        }
        for k in profanityFilter.keywords + domainFilter.domains {
            if k.isEmpty || k.count > 100 { throw SendbirdError(.invalidValue, "Invalid value: a keyword or domain of 1–100 characters.") }
        }
        for r in profanityFilter.regexFilters {
            guard r.regex.count <= 200, (try? NSRegularExpression(pattern: r.regex)) != nil else {
                throw SendbirdError(.invalidValue, "Invalid value: \"\(r.regex.prefix(40))\" is not a regular expression (at most 200 characters).")
            }
        }
    }

    /// The words of `text`: maximal runs of letters and digits.
    static func words(_ text: String) -> [Range<String.Index>] {
        var out: [Range<String.Index>] = []
        var start: String.Index?
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            let inWord = c.isLetter || c.isNumber
            if inWord && start == nil { start = i }
            if !inWord, let s = start {
                out.append(s..<i)
                start = nil
            }
            i = text.index(after: i)
        }
        if let s = start { out.append(s..<text.endIndex) }
        return out
    }

    /// The ranges of `text` the profanity filter matches.
    func profanity(in text: String) -> [Range<String.Index>] {
        var found: [Range<String.Index>] = []
        if !profanityFilter.keywords.isEmpty {
            for range in Self.words(text) {
                let w = text[range].lowercased()
                for k in profanityFilter.keywords {
                    let key = k.lowercased()
                    let prefix = key.hasSuffix("*")
                    let suffix = key.hasPrefix("*")
                    let core = key.trimmingCharacters(in: CharacterSet(charactersIn: "*"))
                    if core.isEmpty { continue }
                    let hit =
                        prefix && suffix ? w.contains(core) : prefix ? w.hasPrefix(core) : suffix ? w.hasSuffix(core) : w == core
                    if hit {
                        found.append(range)
                        break
                    }
                }
            }
        }
        for r in profanityFilter.regexFilters {
            guard let re = try? NSRegularExpression(pattern: r.regex, options: [.caseInsensitive]) else { continue }
            for m in re.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(m.range, in: text), !range.isEmpty { found.append(range) }
            }
        }
        return found
    }

    /// The ranges of `text` that name a filtered domain (the domain or any subdomain of it).
    func domains(in text: String) -> [Range<String.Index>] {
        guard !domainFilter.domains.isEmpty else { return [] }
        var found: [Range<String.Index>] = []
        let lowered = text.lowercased()
        for d in domainFilter.domains {
            let domain = d.lowercased()
            var from = lowered.startIndex
            while let r = lowered.range(of: domain, range: from..<lowered.endIndex) {
                // A whole label sequence: not a part of a longer name ("notexample.com").
                let before = r.lowerBound == lowered.startIndex ? nil : lowered[lowered.index(before: r.lowerBound)]
                let after = r.upperBound == lowered.endIndex ? nil : lowered[r.upperBound]
                let okBefore = before.map { !($0.isLetter || $0.isNumber || $0 == "-") } ?? true
                let okAfter = after.map { !($0.isLetter || $0.isNumber || $0 == "-") } ?? true
                if okBefore && okAfter, let range = Range(NSRange(r, in: lowered), in: text) { found.append(range) }
                from = r.upperBound
            }
        }
        return found
    }

    /// Applies both filters: the text (with asterisks where a filter replaces), or 900060.
    func apply(_ text: String) throws -> String {
        var replace: [Range<String.Index>] = []
        let p = profanityFilter.type == 0 ? [] : profanity(in: text)
        if !p.isEmpty {
            if profanityFilter.type == 2 { throw SendbirdError(.profanityBlocked, "The message contains words that are not allowed.") }
            replace += p
        }
        let d = domainFilter.type == 0 ? [] : domains(in: text)
        if !d.isEmpty {
            if domainFilter.type == 2 { throw SendbirdError(.profanityBlocked, "The message contains a domain that is not allowed.") }
            replace += d
        }
        if replace.isEmpty { return text }
        var out = ""
        var i = text.startIndex
        for r in replace.sorted(by: { $0.lowerBound < $1.lowerBound }) where r.lowerBound >= i {
            out += text[i..<r.lowerBound]
            out += String(repeating: "*", count: text[r].count)
            i = r.upperBound
        }
        out += text[i...]
        return out
    }
}

extension ChatService {
    /// The filters for a channel's custom type, and the global ones when it asks for them (or has none).
    func contentFilters(for customType: String) async throws -> [ContentFilter] {
        let all = try await settingsCache.contentFilters()
        if all.isEmpty { return [] }
        var out: [ContentFilter] = []
        if !customType.isEmpty, let typed = all["type:" + customType] {
            out.append(typed)
            if let global = all["global"] {
                var g = global
                if !typed.profanityFilter.shouldCheckGlobal { g.profanityFilter.type = 0 }
                if !typed.domainFilter.shouldCheckGlobal { g.domainFilter.type = 0 }
                out.append(g)
            }
        } else if let global = all["global"] {
            out.append(global)
        }
        return out
    }

    /// The message text after the filters (or 900060).
    func filtered(_ text: String, channel: ChannelRecord) async throws -> String {
        var t = text
        for f in try await contentFilters(for: channel.customType) { t = try f.apply(t) }
        return t
    }

    func saveContentFilter(_ f: ContentFilter, key: String) async throws {
        try f.validate()
        let json = String(decoding: try JSONEncoder().encode(f), as: UTF8.self)
        try await settingsCache.change([.init(scope: ApplicationSettingsCache.Scope.contentFilters, key: key, json: json)])
    }
}
