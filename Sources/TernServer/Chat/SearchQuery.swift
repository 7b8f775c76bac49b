import Foundation
import TernProtocol

/// Message search (seed 002): a keyword, or with `advanced_query` a small language — `*`/`?`
/// wildcards, `~` fuzzy terms, `AND`/`OR` (upper case) with parentheses, and `field:value` for
/// `custom_type` and `data` — turned into an SQLite FTS5 `MATCH` expression. Punctuation is not
/// indexed (FTS5's unicode61 tokenizer drops it), so terms are cut at punctuation the same way.
public enum SearchQuery {
    /// A parsed advanced query.
    indirect enum Node: Equatable {
        case term(String, field: String?)
        case and(Node, Node)
        case or(Node, Node)
    }

    /// Expands a term against the index's vocabulary (wildcards and fuzzy terms match several words).
    public typealias Vocabulary = @Sendable (_ pattern: TermPattern) async throws -> [String]

    /// What one term of an advanced query matches.
    public enum TermPattern: Sendable, Equatable {
        /// Whole word.
        case word(String)
        /// SQLite GLOB pattern (`*`, `?`), lower case.
        case glob(String)
        /// Words within the seed's edit distance of this one.
        case fuzzy(String)
    }

    /// The words of a plain keyword, cut at anything that is not a letter or a digit.
    public static func words(_ text: String) -> [String] {
        text.lowercased().split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    /// A plain keyword: every word, each also as a prefix; `exact` wants the words as one phrase.
    public static func plain(_ keyword: String, exact: Bool) throws -> String {
        let ws = words(keyword)
        guard !ws.isEmpty else { throw SendbirdError(.invalidValue, "Invalid value: \"query\" has no words to search for.") }
        if exact { return "\"" + ws.joined(separator: " ") + "\"" }
        return ws.map { "\"\($0)\"*" }.joined(separator: " AND ")
    }

    /// An advanced query as an FTS5 expression, with wildcard and fuzzy terms expanded by `vocabulary`.
    public static func advanced(_ query: String, vocabulary: Vocabulary) async throws -> String {
        var parser = Parser(tokens: try tokenize(query))
        let node = try parser.parseOr()
        guard parser.atEnd else { throw SendbirdError(.invalidValue, "Invalid value: \"query\" has an unexpected \(parser.peekDescription).") }
        return try await render(node, vocabulary: vocabulary)
    }

    /// Levenshtein distance allowed for a fuzzy term (seed 002): under 3 characters none, 3–5 one, more two.
    public static func fuzzyDistance(_ term: String) -> Int {
        switch term.count {
        case ..<3: 0
        case 3...5: 1
        default: 2
        }
    }

    public static func editDistance(_ a: String, _ b: String, limit: Int) -> Int {
        let a = Array(a)
        let b = Array(b)
        if abs(a.count - b.count) > limit { return limit + 1 }
        var prev = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var cur = [i] + Array(repeating: 0, count: b.count)
            var best = cur[0]
            for j in stride(from: 1, through: b.count, by: 1) {
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                best = min(best, cur[j])
            }
            if best > limit { return limit + 1 }
            prev = cur
        }
        return a.isEmpty ? b.count : prev[b.count]
    }

    // MARK: - Parsing

    enum Token: Equatable {
        case word(String)
        case and, or, open, close
    }

    static func tokenize(_ query: String) throws -> [Token] {
        var tokens: [Token] = []
        var current = ""
        var quoted = false
        func flush() {
            if current.isEmpty { return }
            switch current {
            case "AND": tokens.append(.and)
            case "OR": tokens.append(.or)
            default: tokens.append(.word(current))
            }
            current = ""
        }
        for ch in query {
            if ch == "\"" {
                quoted.toggle()
                continue
            }
            if quoted {
                current.append(ch)
                continue
            }
            switch ch {
            case "(":
                flush()
                tokens.append(.open)
            case ")":
                flush()
                tokens.append(.close)
            case " ", "\t", "\n":
                flush()
            default:
                current.append(ch)
            }
        }
        if quoted { throw SendbirdError(.invalidValue, "Invalid value: \"query\" has an unclosed quote.") }
        flush()
        if tokens.isEmpty { throw SendbirdError(.invalidValue, "Invalid value: \"query\" is empty.") }
        return tokens
    }

    struct Parser {
        var tokens: [Token]
        var i = 0
        var atEnd: Bool { i >= tokens.count }
        var peekDescription: String {
            guard i < tokens.count else { return "end" }
            switch tokens[i] {
            case .word(let w): return "word \(w)"
            case .and: return "AND"
            case .or: return "OR"
            case .open: return "("
            case .close: return ")"
            }
        }

        mutating func parseOr() throws -> Node {
            var left = try parseAnd()
            while i < tokens.count, tokens[i] == .or {
                i += 1
                left = .or(left, try parseAnd())
            }
            return left
        }

        /// Terms side by side mean AND, as with the explicit operator.
        mutating func parseAnd() throws -> Node {
            var left = try parsePrimary()
            while i < tokens.count {
                if tokens[i] == .and {
                    i += 1
                    left = .and(left, try parsePrimary())
                } else if case .word = tokens[i] {
                    left = .and(left, try parsePrimary())
                } else if tokens[i] == .open {
                    left = .and(left, try parsePrimary())
                } else {
                    break
                }
            }
            return left
        }

        mutating func parsePrimary() throws -> Node {
            guard i < tokens.count else { throw SendbirdError(.invalidValue, "Invalid value: \"query\" ends where a term was expected.") }
            switch tokens[i] {
            case .open:
                i += 1
                let inner = try parseOr()
                guard i < tokens.count, tokens[i] == .close else {
                    throw SendbirdError(.invalidValue, "Invalid value: \"query\" has an unclosed parenthesis.")
                }
                i += 1
                return inner
            case .word(let w):
                i += 1
                if let colon = w.firstIndex(of: ":"), colon != w.startIndex {
                    let field = String(w[..<colon])
                    var value = String(w[w.index(after: colon)...])
                    guard ["custom_type", "data", "message"].contains(field) else {
                        throw SendbirdError(
                            .invalidValue, "Invalid value: \"query\" can search the fields message, custom_type and data, not \(field).")
                    }
                    // `field:(a OR b)`.
                    if value.isEmpty, i < tokens.count, tokens[i] == .open {
                        i += 1
                        let inner = try parseOr()
                        guard i < tokens.count, tokens[i] == .close else {
                            throw SendbirdError(.invalidValue, "Invalid value: \"query\" has an unclosed parenthesis.")
                        }
                        i += 1
                        return Self.scoped(inner, field)
                    }
                    if value.isEmpty { throw SendbirdError(.invalidValue, "Invalid value: \"query\" has no value after \(field):.") }
                    value = value.trimmingCharacters(in: .whitespaces)
                    return .term(value, field: field)
                }
                return .term(w, field: nil)
            case .and, .or, .close:
                throw SendbirdError(.invalidValue, "Invalid value: \"query\" has an unexpected \(peekDescription).")
            }
        }

        static func scoped(_ n: Node, _ field: String) -> Node {
            switch n {
            case .term(let t, _): .term(t, field: field)
            case .and(let a, let b): .and(scoped(a, field), scoped(b, field))
            case .or(let a, let b): .or(scoped(a, field), scoped(b, field))
            }
        }
    }

    // MARK: - Rendering

    static func render(_ node: Node, vocabulary: Vocabulary) async throws -> String {
        switch node {
        case .and(let a, let b):
            return "(\(try await render(a, vocabulary: vocabulary)) AND \(try await render(b, vocabulary: vocabulary)))"
        case .or(let a, let b):
            return "(\(try await render(a, vocabulary: vocabulary)) OR \(try await render(b, vocabulary: vocabulary)))"
        case .term(let raw, let field):
            let column = (field ?? "message")
            var text = raw.lowercased()
            let fuzzy = text.hasSuffix("~")
            if fuzzy { text.removeLast() }
            let words: [String]
            if text.contains("*") || text.contains("?") {
                let pattern = text.filter { $0.isLetter || $0.isNumber || $0 == "*" || $0 == "?" }
                words = pattern.isEmpty ? [] : try await vocabulary(.glob(pattern))
            } else if fuzzy {
                let w = Self.words(text).joined()
                words = w.isEmpty ? [] : try await vocabulary(.fuzzy(w))
            } else {
                // A term with punctuation inside is the phrase of its words.
                let ws = Self.words(text)
                if ws.count > 1 { return "\(column) : \"\(ws.joined(separator: " "))\"" }
                words = ws
            }
            // A term that matches no word: a token nothing in the index can contain.
            guard !words.isEmpty else { return "\(column) : \"\u{1}nomatch\"" }
            let alternatives = words.map { "\"\($0)\"" }.joined(separator: " OR ")
            return words.count == 1 ? "\(column) : \(alternatives)" : "\(column) : (\(alternatives))"
        }
    }

    /// Whether a keyword uses the advanced syntax.
    public static func looksAdvanced(_ q: String) -> Bool {
        q.contains("*") || q.contains("?") || q.contains("~") || q.contains(" AND ") || q.contains(" OR ") || q.contains("(") || q.contains(":")
    }
}
