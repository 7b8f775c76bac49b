import Foundation
import PostgresNIO
import TernProtocol

/// Message search on PostgreSQL: the port of `SQLiteStore`'s FTS5 search.
///
/// The service hands over an FTS5 `MATCH` expression (``SearchQuery``); it is parsed here and
/// turned into a `tsquery` over `messages.search` (see `PostgresSchema`, "pg-v3-search"): every
/// word of `message`, `custom_type` and `data` is a lexeme `x<word>` weighted A, B or C by column
/// (the `x` keeps PostgreSQL's parser from splitting a word such as `12e3abc`), cut at anything
/// that is not a letter or digit, lower case and without diacritics — FTS5's
/// `unicode61 remove_diacritics 2`. The phrases of the query go through the same function as the
/// indexed text (`tern_search_lexemes`), so a query word and an indexed word always compare alike.
/// The vocabulary (wildcard and fuzzy terms) is the `search_words` table the schema keeps.
extension PostgresStore {
    public func messageCount(_ channelUrl: String) async throws -> Int {
        try await read { db in
            Int(try await db.scalar("SELECT COUNT(*) FROM messages WHERE channel_url = ?", [channelUrl], as: Int64.self) ?? 0)
        }
    }

    public func searchMessages(_ q: MessageSearch) async throws -> (messages: [MessageRecord], total: Int) {
        let expression = try PGSearchExpression.parse(q.match)
        return try await read { db in
            let phrases = expression.phrases
            let lexemes: [[String]]
            if phrases.allSatisfy(PGSearchExpression.isPlainPhrase) {
                // Lower-case ASCII letters and digits: the index's normalization leaves them as they are.
                lexemes = phrases.map { $0.split(separator: " ").map(String.init) }
            } else {
                lexemes = try await db.column(
                    "SELECT tern_search_lexemes(t) FROM unnest(?::text[]) WITH ORDINALITY AS u(t, i) ORDER BY i", [phrases],
                    as: [String].self)
            }
            // A query no word can satisfy (FTS5 drops an empty phrase: it matches nothing).
            guard let tsquery = expression.tsquery(lexemes) else { return ([], 0) }

            let search = MessageSearchSQL(q, source: "messages m", match: "m.search @@ ?::tsquery", matchArg: .text(tsquery))
            let base = search.base.sql
            let args = search.base.bindables
            // FTS5 ranks by bm25 (best first); here `ts_rank` with every column weighing the same
            // (bm25's default) and the rank divided by the log of the document's length.
            let order: String
            var orderArgs: [any PGBindable] = []
            if q.byScore {
                order = "ts_rank('{1,1,1,1}'::real[], m.search, ?::tsquery, 1) DESC, m.created_at DESC, m.message_id DESC"
                orderArgs.append(tsquery)
            } else {
                order = search.order
            }
            // The count and the page from one snapshot, as SQLite's read transaction gives.
            try await db.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            do {
                let total = try await db.scalar("SELECT COUNT(*) \(base)", args, as: Int64.self) ?? 0
                let rows = try await db.fetchAll(
                    "SELECT m.* \(base) ORDER BY \(order) LIMIT ? OFFSET ?", args + orderArgs + [q.limit, q.offset])
                let messages = try rows.map(Self.messageRecord)
                try await db.execute("COMMIT")
                return (messages, Int(total))
            } catch {
                _ = try? await db.execute("ROLLBACK")
                if let state = Self.sqlState(error), state == "42601" || state.hasPrefix("22") {
                    throw SendbirdError(.invalidValue, "Invalid value: \"query\" cannot be searched (\(Self.searchErrorMessage(error))).")
                }
                throw error
            }
        }
    }

    public func searchVocabulary(_ pattern: SearchQuery.TermPattern) async throws -> [String] {
        try await read { db in
            switch pattern {
            case .word(let w):
                return try await Self.indexedWord(db, w)
            case .glob(let g):
                let like = PGSearchExpression.likePattern(glob: g)
                let first = try await db.column(
                    "SELECT word FROM search_words WHERE word LIKE ? ORDER BY word LIMIT 201", [like], as: String.self)
                if first.count <= 200 { return first }
                // More than a search takes: the words in the most messages, as FTS5's `ORDER BY doc DESC`.
                return try await db.column(
                    """
                    WITH c AS (SELECT word FROM search_words WHERE word LIKE ?)
                    SELECT substr(u.lexeme, 2) FROM messages m CROSS JOIN LATERAL unnest(m.search) AS u
                    WHERE m.search @@ (SELECT string_agg('''x' || replace(replace(word, '\\', '\\\\'), '''', '''''') || '''', ' | ')::tsquery FROM c)
                      AND substr(u.lexeme, 2) IN (SELECT word FROM c)
                    GROUP BY u.lexeme ORDER BY count(*) DESC, u.lexeme COLLATE "C" LIMIT 200
                    """, [like], as: String.self)
            case .fuzzy(let w):
                let d = SearchQuery.fuzzyDistance(w)
                if d == 0 { return try await Self.indexedWord(db, w) }
                let candidates = try await db.column(
                    "SELECT word FROM search_words WHERE char_length(word) BETWEEN ? AND ? ORDER BY word LIMIT 20000",
                    [w.count - d, w.count + d], as: String.self)
                return Array(candidates.filter { SearchQuery.editDistance($0, w, limit: d) <= d }.prefix(200))
            }
        }
    }

    /// `[w]` when some message has the word `w` (exactly: lower case, no diacritics), else `[]`.
    static func indexedWord(_ db: PGConnection, _ w: String) async throws -> [String] {
        let found = try await db.scalar(
            "SELECT EXISTS (SELECT 1 FROM search_words WHERE word = ?) AND EXISTS (SELECT 1 FROM messages WHERE search @@ ?::tsquery)",
            [w, PGSearchExpression.lexeme(w)], as: Bool.self)
        return found == true ? [w] : []
    }

    static func searchErrorMessage(_ error: any Error) -> String {
        (error as? PSQLError)?.serverInfo?[.message] ?? "syntax"
    }
}

/// An FTS5 query expression (the subset of FTS5's syntax a `MATCH` takes: phrases in double
/// quotes or bare words, `*` prefixes, `AND` / `OR` / `NOT`, implicit AND, parentheses and
/// `column :` / `{columns} :` / `- column :` filters), and its rendering as a `tsquery`.
struct PGSearchExpression: Sendable {
    indirect enum Node: Sendable {
        /// Index into `phrases`; `columns`: weights (A message, B custom_type, C data).
        case phrase(Int, prefix: Bool, columns: [Character])
        case and(Node, Node)
        case or(Node, Node)
        case not(Node, Node)
    }

    static let columnWeights: [String: Character] = ["message": "A", "custom_type": "B", "data": "C"]
    static let allColumns: [Character] = ["A", "B", "C"]

    var root: Node
    /// The text of every phrase, in order (each normalized like the indexed text before use).
    var phrases: [String]

    /// Whether a phrase is words of lower-case ASCII letters and digits separated by single spaces.
    static func isPlainPhrase(_ s: String) -> Bool {
        guard let first = s.utf8.first, let last = s.utf8.last, first != 0x20, last != 0x20 else { return false }
        var previousSpace = false
        for b in s.utf8 {
            if b == 0x20 {
                if previousSpace { return false }
                previousSpace = true
            } else if (0x61...0x7A).contains(b) || (0x30...0x39).contains(b) {
                previousSpace = false
            } else {
                return false
            }
        }
        return true
    }

    /// A lexeme of `messages.search` as a `tsquery` operand (no weight, no prefix).
    static func lexeme(_ word: String) -> String {
        "'x" + word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// An SQLite GLOB pattern (`*`, `?`) as a LIKE pattern (backslash escapes).
    static func likePattern(glob: String) -> String {
        var out = ""
        for ch in glob {
            switch ch {
            case "*": out += "%"
            case "?": out += "_"
            case "%", "_", "\\": out += "\\" + String(ch)
            default: out.append(ch)
            }
        }
        return out
    }

    /// The `tsquery` text, given each phrase's lexemes; nil when nothing can match.
    func tsquery(_ lexemes: [[String]]) -> String? {
        func render(_ n: Node) -> String? {
            switch n {
            case .phrase(let i, let prefix, let columns):
                let words = i < lexemes.count ? lexemes[i] : []
                if words.isEmpty || columns.isEmpty { return nil }
                func phrase(_ weights: String) -> String {
                    let items = words.enumerated().map { k, w in
                        let suffix = (prefix && k == words.count - 1 ? "*" : "") + weights
                        return Self.lexeme(w) + (suffix.isEmpty ? "" : ":" + suffix)
                    }
                    return items.count == 1 ? items[0] : "(" + items.joined(separator: " <-> ") + ")"
                }
                if words.count == 1 {
                    // One word: any of the columns (all three: no weight restriction needed).
                    return phrase(columns.count == 3 ? "" : String(columns))
                }
                // A phrase stays within one column (the columns' positions follow each other).
                let perColumn = columns.map { phrase(String($0)) }
                return perColumn.count == 1 ? perColumn[0] : "(" + perColumn.joined(separator: " | ") + ")"
            case .and(let a, let b):
                guard let x = render(a), let y = render(b) else { return nil }
                return "(\(x) & \(y))"
            case .or(let a, let b):
                switch (render(a), render(b)) {
                case (let x?, let y?): return "(\(x) | \(y))"
                case (let x?, nil): return x
                case (nil, let y?): return y
                case (nil, nil): return nil
                }
            case .not(let a, let b):
                guard let x = render(a) else { return nil }
                guard let y = render(b) else { return x }
                return "(\(x) & !\(y))"
            }
        }
        return render(root)
    }

    // MARK: - Parsing

    enum Token: Equatable {
        case string(String)
        case bare(String)
        case and, or, not
        case open, close, colon, star, minus, lbrace, rbrace
        case other(Character)
    }

    static func syntaxError(_ near: String) -> SendbirdError {
        SendbirdError(.invalidValue, "Invalid value: \"query\" cannot be searched (fts5: syntax error near \"\(near)\").")
    }

    /// FTS5's bareword characters: ASCII letters and digits, `_`, 0x1A, and anything non-ASCII.
    static func isBare(_ s: Unicode.Scalar) -> Bool {
        s.value >= 0x80 || s.value == 0x1A || s == "_" || ("0"..."9").contains(s) || ("a"..."z").contains(s) || ("A"..."Z").contains(s)
    }

    /// The one-character tokens.
    static let punctuation: [Unicode.Scalar: Token] = [
        "(": .open, ")": .close, ":": .colon, "*": .star, "-": .minus, "{": .lbrace, "}": .rbrace,
    ]

    static func tokenize(_ text: String) throws -> [Token] {
        var tokens: [Token] = []
        let scalars = Array(text.unicodeScalars)
        var i = 0
        while i < scalars.count {
            let s = scalars[i]
            if let one = punctuation[s] {
                tokens.append(one)
                i += 1
                continue
            }
            switch s {
            case " ", "\t", "\n", "\r", "\u{0C}":
                i += 1
            case "\"":
                var value = String.UnicodeScalarView()
                i += 1
                var closed = false
                while i < scalars.count {
                    if scalars[i] == "\"" {
                        if i + 1 < scalars.count, scalars[i + 1] == "\"" {
                            value.append("\"")
                            i += 2
                            continue
                        }
                        i += 1
                        closed = true
                        break
                    }
                    value.append(scalars[i])
                    i += 1
                }
                if !closed { throw Self.syntaxError(String(value)) }
                tokens.append(.string(String(value)))
            default:
                if isBare(s) {
                    var value = String.UnicodeScalarView()
                    while i < scalars.count, isBare(scalars[i]) {
                        value.append(scalars[i])
                        i += 1
                    }
                    let word = String(value)
                    switch word {
                    case "AND": tokens.append(.and)
                    case "OR": tokens.append(.or)
                    case "NOT": tokens.append(.not)
                    default: tokens.append(.bare(word))
                    }
                } else {
                    tokens.append(.other(Character(s)))
                    i += 1
                }
            }
        }
        return tokens
    }

    static func parse(_ text: String) throws -> PGSearchExpression {
        var p = Parser(tokens: try tokenize(text))
        guard !p.tokens.isEmpty else { throw syntaxError("") }
        let root = try p.parseOr(columns: allColumns)
        if p.i < p.tokens.count { throw syntaxError(p.describe(p.i)) }
        return PGSearchExpression(root: root, phrases: p.phrases)
    }

    struct Parser {
        var tokens: [Token]
        var i = 0
        var phrases: [String] = []

        func describe(_ k: Int) -> String {
            guard k < tokens.count else { return "" }
            switch tokens[k] {
            case .string(let s): return s
            case .bare(let s): return s
            case .and: return "AND"
            case .or: return "OR"
            case .not: return "NOT"
            case .open: return "("
            case .close: return ")"
            case .colon: return ":"
            case .star: return "*"
            case .minus: return "-"
            case .lbrace: return "{"
            case .rbrace: return "}"
            case .other(let c): return String(c)
            }
        }

        var peek: Token? { i < tokens.count ? tokens[i] : nil }

        mutating func parseOr(columns: [Character]) throws -> Node {
            try parseChain(.or, Node.or) { try $0.parseAnd(columns: columns) }
        }

        /// Operands joined by `op`, left to right (`a OP b OP c` is `(a OP b) OP c`).
        mutating func parseChain(_ op: Token, _ join: (Node, Node) -> Node, operand: (inout Self) throws -> Node) throws -> Node {
            var left = try operand(&self)
            while peek == op {
                i += 1
                left = join(left, try operand(&self))
            }
            return left
        }

        /// `AND`, or two expressions side by side.
        mutating func parseAnd(columns: [Character]) throws -> Node {
            var left = try parseNot(columns: columns)
            while let t = peek {
                if t == .and {
                    i += 1
                    left = .and(left, try parseNot(columns: columns))
                } else if startsPrimary(t) {
                    left = .and(left, try parseNot(columns: columns))
                } else {
                    break
                }
            }
            return left
        }

        mutating func parseNot(columns: [Character]) throws -> Node {
            try parseChain(.not, Node.not) { try $0.parsePrimary(columns: columns) }
        }

        func startsPrimary(_ t: Token) -> Bool {
            switch t {
            case .string, .bare, .open, .minus, .lbrace: true
            default: false
            }
        }

        mutating func parsePrimary(columns: [Character]) throws -> Node {
            guard let t = peek else { throw PGSearchExpression.syntaxError("") }
            switch t {
            case .open:
                i += 1
                let inner = try parseOr(columns: columns)
                guard peek == .close else { throw PGSearchExpression.syntaxError(describe(i)) }
                i += 1
                return inner
            case .minus, .lbrace:
                let filter = try parseColumnSet()
                return try parseFiltered(columns.filter { filter.contains($0) })
            case .bare(let word) where i + 1 < tokens.count && tokens[i + 1] == .colon:
                i += 2
                guard let weight = PGSearchExpression.columnWeights[word] else {
                    throw SendbirdError(.invalidValue, "Invalid value: \"query\" cannot be searched (no such column: \(word)).")
                }
                return try parseFiltered(columns.filter { $0 == weight })
            case .string(let text), .bare(let text):
                i += 1
                var prefix = false
                if peek == .star {
                    i += 1
                    prefix = true
                }
                phrases.append(text)
                return .phrase(phrases.count - 1, prefix: prefix, columns: columns)
            default:
                throw PGSearchExpression.syntaxError(describe(i))
            }
        }

        /// What follows `column :` — a phrase or a parenthesized expression.
        mutating func parseFiltered(_ columns: [Character]) throws -> Node {
            guard let t = peek else { throw PGSearchExpression.syntaxError("") }
            switch t {
            case .open, .string, .bare: return try parsePrimary(columns: columns)
            default: throw PGSearchExpression.syntaxError(describe(i))
            }
        }

        /// `{a b} :`, `- a :`, `- {a b} :` (a leading `-`: every column but these). Returns the weights.
        mutating func parseColumnSet() throws -> [Character] {
            var negate = false
            if peek == .minus {
                negate = true
                i += 1
            }
            var names: [String] = []
            if peek == .lbrace {
                i += 1
                while case .bare(let name)? = peek {
                    names.append(name)
                    i += 1
                }
                guard peek == .rbrace else { throw PGSearchExpression.syntaxError(describe(i)) }
                i += 1
            } else if case .bare(let name)? = peek {
                names.append(name)
                i += 1
            } else {
                throw PGSearchExpression.syntaxError(describe(i))
            }
            guard peek == .colon else { throw PGSearchExpression.syntaxError(describe(i)) }
            i += 1
            var weights: [Character] = []
            for name in names {
                guard let w = PGSearchExpression.columnWeights[name] else {
                    throw SendbirdError(.invalidValue, "Invalid value: \"query\" cannot be searched (no such column: \(name)).")
                }
                weights.append(w)
            }
            return negate ? PGSearchExpression.allColumns.filter { !weights.contains($0) } : weights
        }
    }
}
