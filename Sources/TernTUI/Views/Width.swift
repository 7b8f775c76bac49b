/// How many terminal cells text takes: per scalar, like `wcwidth`, with the overrides terminals
/// agree on today (emoji presentation and VS16 are two cells, ZWJ sequences one glyph).
public enum CellWidth {
    /// East Asian Wide and Fullwidth blocks (Unicode 15).
    static let wide: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0...0x23F0, 0x23F3...0x23F3,
        0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F...0x267F, 0x2693...0x2693, 0x26A1...0x26A1,
        0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5, 0x26CE...0x26CE, 0x26D4...0x26D4, 0x26EA...0x26EA,
        0x26F2...0x26F3, 0x26F5...0x26F5, 0x26FA...0x26FA, 0x26FD...0x26FD, 0x2705...0x2705, 0x270A...0x270B,
        0x2728...0x2728, 0x274C...0x274C, 0x274E...0x274E, 0x2753...0x2755, 0x2757...0x2757, 0x2795...0x2797,
        0x27B0...0x27B0, 0x27BF...0x27BF, 0x2B1B...0x2B1C, 0x2B50...0x2B50, 0x2B55...0x2B55,
        0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F,
        0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
        0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1AFF0...0x1B2FF, 0x1F004...0x1F004, 0x1F0CF...0x1F0CF,
        0x1F18E...0x1F18E, 0x1F191...0x1F19A, 0x1F200...0x1F251, 0x1F300...0x1F64F, 0x1F680...0x1F6FF,
        0x1F7E0...0x1F7EB, 0x1F90C...0x1F9FF, 0x1FA70...0x1FAFF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]

    /// The width of one scalar: 0 (combining, format, control), 1 or 2.
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v == 0 { return 0 }
        if v < 0x20 || (0x7F..<0xA0).contains(v) { return 0 }
        if v < 0x300 { return 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if (0x1160...0x11FF).contains(v) || v == 0x200B { return 0 }
        if scalar.properties.isEmojiPresentation { return 2 }
        var lo = 0
        var hi = wide.count - 1
        while lo <= hi {
            let mid = (lo + hi) / 2
            if wide[mid].upperBound < v {
                lo = mid + 1
            } else if wide[mid].lowerBound > v {
                hi = mid - 1
            } else {
                return 2
            }
        }
        return 1
    }

    /// The width of one grapheme: its first scalar's, or 2 for an emoji made with VS16 / ZWJ.
    public static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        let base = of(first)
        if scalars.count > 1 {
            if scalars.contains(where: { $0.value == 0xFE0F }) && first.properties.isEmoji { return 2 }
            if scalars.contains(where: { $0.value == 0x200D }) && first.properties.isEmoji { return 2 }
            if (0x1F1E6...0x1F1FF).contains(first.value) { return 2 }  // a flag: two regional indicators
        }
        return base
    }

    /// What to hand a terminal library that counts columns per scalar (curses with the C library's
    /// `wcwidth`) for a cell `width` cells wide, so that it and the grid agree where the next cell is.
    /// An emoji presentation sequence (`❤️`: U+2764 U+FE0F) is two cells here, as terminals draw it, but
    /// `wcwidth` counts one: handed over as is, curses and the terminal disagree by a cell and a stray
    /// character stays behind. Such a cluster goes out as its base (text presentation, one cell both count)
    /// followed by `pad` spaces up to `width`; clusters both count alike go out unchanged.
    public static func forTerminal(_ text: String, width: Int, wcwidth: (Unicode.Scalar) -> Int) -> (scalars: [Unicode.Scalar], pad: Int) {
        let scalars = Array(text.unicodeScalars)
        guard let first = scalars.first else { return ([" "], max(0, width - 1)) }
        let counted = scalars.reduce(0) { $0 + max(0, wcwidth($1)) }
        if counted == width { return (scalars, 0) }
        // The base and the marks that combine with it (not a variation selector, not a joined glyph).
        var base = [first]
        for s in scalars.dropFirst() {
            if s.value == 0x200D || s.value == 0xFE0F || s.value == 0xFE0E { break }
            if wcwidth(s) != 0 { break }
            base.append(s)
        }
        let w = max(0, wcwidth(first))
        guard w > 0, w <= width else { return (["?"], max(0, width - 1)) }
        return (base, width - w)
    }

    /// The width of a string.
    public static func of(_ text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    /// Splits text into lines of at most `width` cells, breaking at spaces where it can and
    /// inside a word only when the word alone is too long. Newlines always break.
    /// Wrapped text, remembered: a frame wraps the same messages as the one before.
    public static func wrap(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        return wrapMemo.value(WrapKey(text: text, width: width)) { wrapUncached(text, width: width) }
    }

    struct WrapKey: Hashable, Sendable {
        var text: String
        var width: Int
    }

    static let wrapMemo = Memo<WrapKey, [String]>()

    static func wrapUncached(_ text: String, width: Int) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).flatMap { paragraph in
            wrapTagged(paragraph.map { ($0, ()) }, width: width).map { String($0.map(\.0)) }
        }
    }

    /// One paragraph (no newlines) of characters, each with a tag that goes where it goes (a message's
    /// styled runs), in lines of at most `width` cells: broken at spaces where it can and inside a word only
    /// when the word alone is too long; a tab is a space.
    static func wrapTagged<Tag>(_ paragraph: [(Character, Tag)], width: Int) -> [[(Character, Tag)]] {
        var lines: [[(Character, Tag)]] = []
        var line: [(Character, Tag)] = []
        var lineWidth = 0
        var word: [(Character, Tag)] = []
        var wordWidth = 0
        func flushWord() {
            if word.isEmpty { return }
            if lineWidth + wordWidth <= width {
                line += word
                lineWidth += wordWidth
            } else {
                if !line.isEmpty {
                    while line.last?.0 == " " { line.removeLast() }
                    lines.append(line)
                    line = []
                    lineWidth = 0
                }
                var w = word.drop(while: { $0.0 == " " })
                var rest = w.reduce(0) { $0 + of($1.0) }
                while rest > width {
                    var piece: [(Character, Tag)] = []
                    var pw = 0
                    while let c = w.first, pw + of(c.0) <= width {
                        piece.append(c)
                        pw += of(c.0)
                        w = w.dropFirst()
                    }
                    if piece.isEmpty, let c = w.first {  // a glyph wider than the line
                        piece.append(c)
                        pw = of(c.0)
                        w = w.dropFirst()
                    }
                    lines.append(piece)
                    rest -= pw
                }
                line = Array(w)
                lineWidth = rest
            }
            word = []
            wordWidth = 0
        }
        for (c, tag) in paragraph {
            if c == " " && !word.isEmpty && word.last?.0 != " " { flushWord() }
            word.append((c == "\t" ? " " : c, tag))
            wordWidth += c == "\t" ? 1 : of(c)
        }
        flushWord()
        lines.append(line)
        return lines
    }

    /// The longest prefix of `text` that fits in `width` cells.
    public static func prefix(_ text: String, width: Int) -> String {
        var out = ""
        var w = 0
        for c in text {
            let cw = of(c)
            if w + cw > width { break }
            out.append(c)
            w += cw
        }
        return out
    }
}
