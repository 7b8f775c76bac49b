/// A message's text read as the markdown chat clients send: emphasis, strike, code spans, links, fenced code
/// blocks, quotes and lists. A value with no UI in it: ``MessageLayout`` turns it into styled lines.
///
/// Chat, not documents: every line break is kept (a paragraph is not reflowed), a fenced block without its
/// closing fence, an emphasis without its closing marker and a link without its `(url)` stay literal, an
/// underscore inside a word (`snake_case`) and an asterisk between spaces (`2 * 3`) are text.
public struct Markdown: Sendable, Equatable {
    /// What a span of text is marked as.
    public struct Marks: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let bold = Marks(rawValue: 1)
        public static let italic = Marks(rawValue: 2)
        public static let strike = Marks(rawValue: 4)
        public static let code = Marks(rawValue: 8)
    }

    /// Text with its marks, and the link it is the text of.
    public struct Span: Sendable, Equatable {
        public var text: String
        public var marks: Marks
        public var link: String?
        public init(_ text: String, _ marks: Marks = [], link: String? = nil) {
            self.text = text
            self.marks = marks
            self.link = link
        }
    }

    /// A list item's marker: a bullet (`-`, `*`, `+`) or the number as typed (`1.`, `2)`).
    public enum Marker: Sendable, Equatable {
        case bullet
        case number(String)
    }

    public indirect enum Block: Sendable, Equatable {
        /// One line of text (no spans: an empty line).
        case line([Span])
        /// A list item, `level` deep (two spaces of indent a level).
        case item(Marker, level: Int, [Span])
        /// `> ` lines, read as markdown themselves.
        case quote([Block])
        /// A fenced block: its language (the info string's first word, or "") and its lines as typed.
        case code(language: String, lines: [String])
    }

    public var blocks: [Block]

    public init(blocks: [Block]) { self.blocks = blocks }

    /// Reads `text`.
    public init(_ text: String) {
        blocks = Self.blocks(text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
    }

    /// The text with its marks, links and markers taken off (what a line of it shows, for a one-line quote).
    public var plainText: String {
        func text(_ spans: [Span]) -> String { spans.map(\.text).joined() }
        func lines(_ blocks: [Block]) -> [String] {
            blocks.flatMap { b -> [String] in
                switch b {
                case .line(let s), .item(_, _, let s): [text(s)]
                case .quote(let inner): lines(inner)
                case .code(_, let l): l
                }
            }
        }
        return lines(blocks).joined(separator: "\n")
    }

    /// The links in it (`[text](url)` and bare URLs), in order, each once.
    public var links: [String] {
        func inBlocks(_ blocks: [Block]) -> [String] {
            blocks.flatMap { b -> [String] in
                switch b {
                case .line(let s), .item(_, _, let s): s.compactMap(\.link)
                case .quote(let inner): inBlocks(inner)
                case .code: []
                }
            }
        }
        var seen = Set<String>()
        return inBlocks(blocks).filter { seen.insert($0).inserted }
    }

    // MARK: - Blocks

    static func blocks(_ lines: [String]) -> [Block] {
        var out: [Block] = []
        var i = 0
        while i < lines.count {
            let line = lines[i]
            if let fence = Self.fence(line), let end = lines[(i + 1)...].firstIndex(where: { Self.closes(fence, $0) }) {
                out.append(.code(language: fence.language, lines: Array(lines[(i + 1)..<end])))
                i = end + 1
                continue
            }
            if Self.quoted(line) != nil {
                var inner: [String] = []
                while i < lines.count, let q = Self.quoted(lines[i]) {
                    inner.append(q)
                    i += 1
                }
                out.append(.quote(blocks(inner)))
                continue
            }
            if let (marker, level, rest) = Self.item(line) {
                out.append(.item(marker, level: level, Self.spans(rest)))
            } else {
                out.append(.line(Self.spans(line)))
            }
            i += 1
        }
        return out
    }

    struct Fence: Equatable {
        var char: Character
        var count: Int
        var language: String
    }

    /// A line opening a fenced block: up to three spaces, three or more backticks (or tildes), an info string.
    static func fence(_ line: String) -> Fence? {
        let body = line.drop { $0 == " " }
        guard line.count - body.count <= 3, let c = body.first, c == "`" || c == "~" else { return nil }
        let run = body.prefix { $0 == c }
        guard run.count >= 3 else { return nil }
        let info = body.dropFirst(run.count).trimmingSpaces
        if c == "`" && info.contains("`") { return nil }
        return Fence(char: c, count: run.count, language: String(info.prefix { $0 != " " }))
    }

    /// Whether `line` closes the block `fence` opened: the same character, at least as many, nothing after.
    static func closes(_ fence: Fence, _ line: String) -> Bool {
        let body = line.drop { $0 == " " }
        guard line.count - body.count <= 3 else { return false }
        let run = body.prefix { $0 == fence.char }
        return run.count >= fence.count && body.dropFirst(run.count).trimmingSpaces.isEmpty
    }

    /// The rest of a `> ` line (up to three spaces before the `>`, one after it dropped).
    static func quoted(_ line: String) -> String? {
        let body = line.drop { $0 == " " }
        guard line.count - body.count <= 3, body.first == ">" else { return nil }
        let rest = body.dropFirst()
        return String(rest.first == " " ? rest.dropFirst() : rest)
    }

    /// A list item: indent, `-`/`*`/`+` or digits then `.`/`)`, a space, and something after it.
    static func item(_ line: String) -> (Marker, Int, String)? {
        let body = line.drop { $0 == " " }
        let level = min(4, (line.count - body.count) / 2)
        guard let c = body.first else { return nil }
        let marker: Marker
        var rest: Substring
        if c == "-" || c == "*" || c == "+" {
            marker = .bullet
            rest = body.dropFirst()
        } else {
            let digits = body.prefix { $0.isASCII && $0.isNumber }
            guard (1...9).contains(digits.count), let p = body.dropFirst(digits.count).first, p == "." || p == ")" else { return nil }
            marker = .number(String(body.prefix(digits.count + 1)))
            rest = body.dropFirst(digits.count + 1)
        }
        guard rest.first == " " else { return nil }
        rest = rest.drop { $0 == " " }
        guard !rest.isEmpty else { return nil }
        return (marker, level, String(rest))
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        let start = drop { $0 == " " || $0 == "\t" }
        var end = start
        while let l = end.last, l == " " || l == "\t" { end = end.dropLast() }
        return end
    }
}
