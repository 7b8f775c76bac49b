/// Markdown within a line: `**bold**`, `*italic*` / `_italic_`, `***both***`, `~~strike~~`, `` `code` ``,
/// `[text](url)`, bare `http(s)://` URLs and backslash escapes. A marker that opens nothing, or is never closed, stays as typed.
extension Markdown {
    /// The spans of one line.
    static func spans(_ text: String) -> [Span] {
        let inline = Inline(chars: Array(text))
        var out: [Span] = []
        inline.read(0..<inline.chars.count, marks: [], link: nil, into: &out)
        return out
    }

    struct Inline {
        let chars: [Character]

        static let punctuation = Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")

        func read(_ range: Range<Int>, marks: Marks, link: String?, into out: inout [Span]) {
            var text = ""
            func flush() {
                Inline.append(Span(text, marks, link: link), to: &out)
                text = ""
            }
            var i = range.lowerBound
            let end = range.upperBound
            while i < end {
                let c = chars[i]
                if c == "\\", i + 1 < end, Self.punctuation.contains(chars[i + 1]) {
                    text.append(chars[i + 1])
                    i += 2
                    continue
                }
                if c == "`" {
                    let run = self.run(at: i, end)
                    if let (content, after) = code(at: i, run: run, end) {
                        flush()
                        Inline.append(Span(content, marks.union(.code), link: link), to: &out)
                        i = after
                    } else {
                        text += String(repeating: "`", count: run)
                        i += run
                    }
                    continue
                }
                if c == "[", link == nil, let (label, url, after) = self.link(at: i, end) {
                    flush()
                    read(label, marks: marks, link: url, into: &out)
                    i = after
                    continue
                }
                if c == "h", link == nil, let (url, after) = bareURL(at: i, end) {
                    flush()
                    Inline.append(Span(url, marks, link: url), to: &out)
                    i = after
                    continue
                }
                if c == "*" || c == "_" || c == "~" {
                    let run = self.run(at: i, end)
                    if let (inner, added, after) = emphasis(at: i, run: run, end) {
                        flush()
                        read(inner, marks: marks.union(added), link: link, into: &out)
                        i = after
                    } else {
                        text += String(repeating: c, count: run)
                        i += run
                    }
                    continue
                }
                text.append(c)
                i += 1
            }
            flush()
        }

        /// Adds a span, joined to the one before when they look alike.
        static func append(_ span: Span, to out: inout [Span]) {
            guard !span.text.isEmpty else { return }
            if let last = out.last, last.marks == span.marks, last.link == span.link {
                out[out.count - 1].text += span.text
            } else {
                out.append(span)
            }
        }

        /// How many of `chars[i]` follow one another from `i`.
        func run(at i: Int, _ end: Int) -> Int {
            var j = i
            while j < end, chars[j] == chars[i] { j += 1 }
            return j - i
        }

        /// A code span opened by `run` backticks at `i`: its text and where it ends (a run as long closes it).
        func code(at i: Int, run: Int, _ end: Int) -> (String, Int)? {
            var j = i + run
            while j < end {
                guard chars[j] == "`" else {
                    j += 1
                    continue
                }
                let r = self.run(at: j, end)
                if r == run {
                    var content = chars[(i + run)..<j]
                    // One space on both sides is padding (`` ` `` shows a backtick), unless it is all spaces.
                    if content.count >= 2, content.first == " ", content.last == " ", content.contains(where: { $0 != " " }) {
                        content = content.dropFirst().dropLast()
                    }
                    return (String(content), j + r)
                }
                j += r
            }
            return nil
        }

        /// `[text](url)` at `i`: the text's range, the URL (no spaces in it) and where it ends.
        func link(at i: Int, _ end: Int) -> (Range<Int>, String, Int)? {
            var depth = 0
            var j = i
            while j < end {
                if let next = skipped(at: j, end) {
                    j = next
                    continue
                }
                let c = chars[j]
                if c == "[" { depth += 1 }
                if c == "]" {
                    depth -= 1
                    if depth == 0 { break }
                }
                j += 1
            }
            guard j < end, j > i + 1, j + 1 < end, chars[j + 1] == "(" else { return nil }
            var k = j + 2
            var url = ""
            while k < end, chars[k] != ")" {
                if chars[k].isWhitespace { return nil }
                url.append(chars[k])
                k += 1
            }
            guard k < end, !url.isEmpty else { return nil }
            return ((i + 1)..<j, url, k + 1)
        }

        /// A bare `http://` or `https://` URL at `i` (not inside a word): up to whitespace, without the
        /// punctuation that ends a sentence around it (`.,;:!?'">` and a `)` or `]` it did not open); where it ends.
        func bareURL(at i: Int, _ end: Int) -> (String, Int)? {
            guard i == 0 || !Self.wordy(chars[i - 1]) else { return nil }
            var j = i
            while j < end, !chars[j].isWhitespace { j += 1 }
            var word = Array(chars[i..<j])
            while let last = word.last {
                let opened = last == ")" ? word.filter { $0 == "(" }.count : last == "]" ? word.filter { $0 == "[" }.count : 0
                let closed = word.filter { $0 == last }.count
                guard Self.trailing.contains(last) || ((last == ")" || last == "]") && closed > opened) else { break }
                word.removeLast()
            }
            let url = String(word)
            for scheme in ["https://", "http://"] where url.hasPrefix(scheme) && url.count > scheme.count {
                return (url, i + word.count)
            }
            return nil
        }

        static let trailing = Set(".,;:!?'\"*_~`>")

        /// Emphasis opened by `run` of `*`, `_` or `~` at `i`: what it holds, the marks it adds, where it ends.
        /// It opens before a non-space (and an underscore not inside a word); a run as long closes it after a
        /// non-space (an underscore not followed by a letter or digit). Escapes and code spans inside are skipped over.
        func emphasis(at i: Int, run: Int, _ end: Int) -> (Range<Int>, Marks, Int)? {
            let c = chars[i]
            let marks: Marks
            switch (c, run) {
            case ("~", 2): marks = .strike
            case ("~", _): return nil
            case (_, 1): marks = .italic
            case (_, 2): marks = .bold
            case (_, 3): marks = [.bold, .italic]
            default: return nil
            }
            let open = i + run
            guard open < end, !chars[open].isWhitespace else { return nil }
            if c == "_", i > 0, Self.wordy(chars[i - 1]) { return nil }
            var j = open
            while j < end {
                if let next = skipped(at: j, end) {
                    j = next
                    continue
                }
                guard chars[j] == c else {
                    j += 1
                    continue
                }
                let r = self.run(at: j, end)
                let closes = r == run && j > open && !chars[j - 1].isWhitespace && !(c == "_" && j + r < end && Self.wordy(chars[j + r]))
                if closes { return (open..<j, marks, j + r) }
                j += r
            }
            return nil
        }

        /// Past an escape or a code span at `j` (their characters open and close nothing); nil if none is there.
        func skipped(at j: Int, _ end: Int) -> Int? {
            switch chars[j] {
            case "\\": return j + 2
            case "`":
                let r = run(at: j, end)
                return code(at: j, run: r, end)?.1 ?? j + r
            default: return nil
            }
        }

        static func wordy(_ c: Character) -> Bool { c.isLetter || c.isNumber }
    }
}
