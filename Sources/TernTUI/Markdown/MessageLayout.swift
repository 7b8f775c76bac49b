/// A message's text laid out into lines of styled runs for a column so wide: wrapped at spaces (as
/// ``CellWidth/wrap(_:width:)`` wraps plain text), read as ``Markdown`` when asked to. What a run looks like
/// is a ``Look`` (a role and marks), which the screen turns into a theme's style; so a layout is remembered
/// by its text and width alone and a frame redraws from the memo, parsing nothing.
public enum MessageLayout {
    /// What a run of a laid-out message looks like before a theme colours it.
    public struct Look: Hashable, Sendable {
        public enum Role: Hashable, Sendable {
            /// The message's own text style.
            case text
            case code, codeBlock, codeLanguage, quote, link, linkURL, listMarker
            /// A link's number while `/url` labels them (`[1]`).
            case linkLabel
            /// A code block's syntax colours.
            case codeKeyword, codeString, codeComment
            /// The receipt mark after a message of mine.
            case mark
        }
        public var role: Role
        /// Bold, italic and strike (`code` is the role).
        public var marks: Markdown.Marks
        /// The URL it is (part of) the text of: its cells carry it, for OSC 8 hyperlinks.
        public var link: String?

        public init(_ role: Role, _ marks: Markdown.Marks = [], link: String? = nil) {
            self.role = role
            self.marks = marks.subtracting(.code)
            self.link = link
        }

        public static let text = Look(.text)

        /// The theme key of a role that has one.
        public var themeKey: String? {
            switch role {
            case .text, .mark: nil
            case .code: "timeline.code"
            case .codeBlock: "timeline.code_block"
            case .codeLanguage: "timeline.code_block.language"
            case .codeKeyword: "timeline.code_block.keyword"
            case .codeString: "timeline.code_block.string"
            case .codeComment: "timeline.code_block.comment"
            case .quote: "timeline.block_quote"
            case .link, .linkLabel: "timeline.link"
            case .linkURL: "timeline.link.url"
            case .listMarker: "timeline.list_marker"
            }
        }
    }

    public struct Run: Hashable, Sendable {
        public var text: String
        public var look: Look
        public init(_ text: String, _ look: Look = .text) {
            self.text = text
            self.look = look
        }
    }

    public typealias Line = [Run]

    /// `text` in lines at most `width` cells wide, `trailing` (the edited note, the receipt mark) after its
    /// last text; read as markdown when `markdown`, else as typed. When it starts with a quote, a list or a
    /// code block, the first line is empty (the block goes under the name). `labels` numbers links (`/url`):
    /// `[N]` follows the link. Remembered: the next frame asks again.
    public static func lines(_ text: String, markdown: Bool, trailing: [Run] = [], labels: [String: Int] = [:], width: Int) -> [Line] {
        guard width > 0 else { return [] }
        return memo.value(Key(text: text, markdown: markdown, trailing: trailing, labels: labels, width: width)) {
            let blocks =
                markdown
                ? Markdown(text).blocks
                : text.split(separator: "\n", omittingEmptySubsequences: false).map { Markdown.Block.line([Markdown.Span(String($0))]) }
            var out = layout(blocks, width: width, trailing: trailing, labels: labels)
            // A quote, list or code block starts under the sender's name, so that its lines line up.
            if let first = blocks.first, first.startsOwnLine { out.insert([], at: 0) }
            return out
        }
    }

    /// The text with its markdown taken off (a reply's one-line quote of what it answers), remembered.
    public static func plain(_ text: String) -> String {
        plainMemo.value(text) { Markdown(text).plainText }
    }

    static let plainMemo = Memo<String, String>()

    struct Key: Hashable, Sendable {
        var text: String
        var markdown: Bool
        var trailing: [Run]
        var labels: [String: Int]
        var width: Int
    }

    static let memo = Memo<Key, [Line]>()

    // MARK: - Blocks

    /// Blocks in lines; `trailing` goes after the last, in its text when that is a line or an item.
    static func layout(_ blocks: [Markdown.Block], width: Int, trailing: [Run] = [], labels: [String: Int] = [:]) -> [Line] {
        var out: [Line] = []
        for (n, block) in blocks.enumerated() {
            let last = n == blocks.count - 1
            switch block {
            case .line(let spans):
                out += wrap(runs(spans, labels: labels) + (last ? trailing : []), width: width)
            case .item(let marker, let level, let spans):
                out += item(marker, level: level, runs(spans, labels: labels) + (last ? trailing : []), width: width)
            case .quote(let inner):
                out += layout(inner, width: max(1, width - 2), labels: labels).map { line in
                    [Run("│ ", Look(.quote))]
                        + line.map { $0.look.role == .text ? Run($0.text, Look(.quote, $0.look.marks, link: $0.look.link)) : $0 }
                }
            case .code(let language, let lines):
                out += codeBlock(language, lines, width: width)
            }
            if last, !trailing.isEmpty {
                switch block {
                case .quote, .code: out = attach(trailing, to: out, width: width)
                case .line, .item: break
                }
            }
        }
        return out
    }

    /// `trailing` after the last line when it fits there, else under it.
    static func attach(_ trailing: [Run], to lines: [Line], width: Int) -> [Line] {
        var out = lines
        let used = out.last.map { CellWidth.of($0.map(\.text).joined()) } ?? 0
        if let last = out.indices.last, used + CellWidth.of(trailing.map(\.text).joined()) <= width {
            out[last] += trailing
        } else {
            out += wrap(Array(trailing.drop { $0.text.allSatisfy { $0 == " " } }), width: width)
        }
        return out
    }

    /// The spans of a line as runs; a link's URL follows its text (unless the text is the URL), then its
    /// number when `labels` has one.
    static func runs(_ spans: [Markdown.Span], labels: [String: Int] = [:]) -> [Run] {
        var out: [Run] = []
        for (i, s) in spans.enumerated() {
            let role: Look.Role = s.marks.contains(.code) ? .code : s.link != nil ? .link : .text
            out.append(Run(s.text, Look(role, s.marks, link: s.link)))
            guard let url = s.link, i == spans.count - 1 || spans[i + 1].link != url else { continue }
            var label = ""
            for t in spans[...i].reversed() {
                guard t.link == url else { break }
                label = t.text + label
            }
            if label != url { out.append(Run(" <\(url)>", Look(.linkURL, link: url))) }
            if let n = labels[url] { out += [Run(" "), Run("[\(n)]", Look(.linkLabel, .bold))] }
        }
        return out
    }

    /// A list item: its marker indented by level, its text wrapped under itself.
    static func item(_ marker: Markdown.Marker, level: Int, _ runs: [Run], width: Int) -> [Line] {
        let indent = String(repeating: " ", count: 2 * level)
        let mark: String
        switch marker {
        case .bullet: mark = "•"
        case .number(let n): mark = n
        }
        let hang = min(CellWidth.of(indent + mark) + 1, max(0, width - 1))
        return wrap(runs, width: max(1, width - hang)).enumerated().map { n, line in
            guard n == 0 else { return [Run(String(repeating: " ", count: hang))] + line }
            return (indent.isEmpty ? [] : [Run(indent)]) + [Run(mark, Look(.listMarker)), Run(" ")] + line
        }
    }

    /// A fenced block in a box with its language on the top edge; lines keep their breaks and are cut (with
    /// an ellipsis) at the box's edge, never wrapped, in syntax colours when ``CodeColours`` knows the
    /// language. Too narrow for a box: the lines alone.
    static func codeBlock(_ language: String, _ lines: [String], width: Int) -> [Line] {
        let body = Look(.codeBlock)
        let texts = lines.map { $0.replacingTabs }
        guard width >= 8 else { return texts.map { [Run(Screen.clip($0, width), body)] } }
        let label = language.isEmpty ? "" : " " + Screen.clip(language, width - 6) + " "
        let longest = texts.map { CellWidth.of($0) }.max() ?? 0
        let inner = min(width - 4, max(longest, CellWidth.of(label) + 1, 1))
        var out: [Line] = []
        if label.isEmpty {
            out.append([Run("╭" + String(repeating: "─", count: inner + 2) + "╮", body)])
        } else {
            let rest = String(repeating: "─", count: max(0, inner + 1 - CellWidth.of(label))) + "╮"
            out.append([Run("╭─", body), Run(label, Look(.codeLanguage)), Run(rest, body)])
        }
        for t in texts {
            let shown = Screen.clip(t, inner)
            let pad = String(repeating: " ", count: max(0, inner - CellWidth.of(shown)))
            let pieces = (CodeColours.tokens(shown, language: language) ?? [(shown, .plain)]).map { text, kind in
                let role: Look.Role =
                    switch kind {
                    case .plain: .codeBlock
                    case .keyword: .codeKeyword
                    case .string: .codeString
                    case .comment: .codeComment
                    }
                return Run(text, Look(role))
            }
            out.append([Run("│ ", body)] + pieces + [Run(pad + " │", body)])
        }
        out.append([Run("╰" + String(repeating: "─", count: inner + 2) + "╯", body)])
        return out
    }

    // MARK: - Wrapping

    /// Runs wrapped at `width` exactly as ``CellWidth/wrap(_:width:)`` wraps their text.
    static func wrap(_ runs: [Run], width: Int) -> [Line] {
        var chars: [(Character, Look)] = []
        for r in runs { chars += r.text.map { ($0, r.look) } }
        return CellWidth.wrapTagged(chars, width: width).map { line in
            var out: Line = []
            for (c, look) in line {
                if let last = out.last, last.look == look {
                    out[out.count - 1].text.append(c)
                } else {
                    out.append(Run(String(c), look))
                }
            }
            return out
        }
    }
}

extension Markdown.Block {
    /// Whether it is drawn with something down its side (a bar, a box, a hanging indent).
    var startsOwnLine: Bool {
        if case .line = self { false } else { true }
    }
}

extension String {
    /// Tabs as four spaces (a code block's indentation).
    var replacingTabs: String {
        contains("\t") ? split(separator: "\t", omittingEmptySubsequences: false).joined(separator: "    ") : self
    }
}
