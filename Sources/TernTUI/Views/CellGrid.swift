/// A colour as themes name it.
public enum Color: Hashable, Sendable {
    case `default`
    /// 0–255 (0–15: the ANSI colours).
    case index(Int)
}

/// What a cell looks like.
public struct Style: Hashable, Sendable {
    public var fg: Color = .default
    public var bg: Color = .default
    public var bold = false
    public var dim = false
    public var italic = false
    public var underline = false
    public var reverse = false
    /// Struck through (curses has no such attribute: the terminal adapter overlays U+0336 on each cell).
    public var strike = false

    public init(
        fg: Color = .default, bg: Color = .default, bold: Bool = false, dim: Bool = false, italic: Bool = false, underline: Bool = false,
        reverse: Bool = false, strike: Bool = false
    ) {
        self.fg = fg
        self.bg = bg
        self.bold = bold
        self.dim = dim
        self.italic = italic
        self.underline = underline
        self.reverse = reverse
        self.strike = strike
    }

    public static let plain = Style()

    /// This style drawn over `base`: its colours where it sets them, else the base's; the attributes of both.
    public func layered(over base: Style) -> Style {
        var s = base
        if fg != .default { s.fg = fg }
        if bg != .default { s.bg = bg }
        s.bold = s.bold || bold
        s.dim = s.dim || dim
        s.italic = s.italic || italic
        s.underline = s.underline || underline
        s.reverse = s.reverse || reverse
        s.strike = s.strike || strike
        return s
    }
}

/// One terminal cell: a grapheme (or "" for the second half of a wide one) and its style.
public struct Cell: Hashable, Sendable {
    public var text: String
    public var style: Style
    public init(_ text: String = " ", _ style: Style = .plain) {
        self.text = text
        self.style = style
    }
    /// The right half of a two-cell glyph.
    public var isContinuation: Bool { text.isEmpty }
}

/// The screen as a value: views draw into it, tests compare it, and the terminal adapter writes
/// only the cells that differ from the last one it drew.
public struct CellGrid: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public private(set) var cells: [Cell]
    /// Where the terminal cursor goes (the input box), if shown.
    public var cursor: (x: Int, y: Int)?

    public init(width: Int, height: Int, fill: Style = .plain) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: Cell(" ", fill), count: self.width * self.height)
    }

    public static func == (a: CellGrid, b: CellGrid) -> Bool {
        a.width == b.width && a.height == b.height && a.cells == b.cells && a.cursor?.x == b.cursor?.x && a.cursor?.y == b.cursor?.y
    }

    public subscript(x: Int, y: Int) -> Cell {
        get { cells[y * width + x] }
        set { cells[y * width + x] = newValue }
    }

    /// Fills a rectangle.
    public mutating func fill(x: Int, y: Int, width w: Int, height h: Int, style: Style, text: String = " ") {
        for yy in max(0, y)..<min(height, y + h) {
            for xx in max(0, x)..<min(width, x + w) { self[xx, yy] = Cell(text, style) }
        }
    }

    /// Writes `text` at (x, y), clipped at `limit` (exclusive; default: the right edge). A wide
    /// glyph that would straddle the limit becomes a space. Returns the column after the text.
    @discardableResult
    public mutating func write(_ text: String, x: Int, y: Int, style: Style, limit: Int? = nil) -> Int {
        guard y >= 0, y < height else { return x }
        let end = min(limit ?? width, width)
        var col = x
        for c in text {
            if c == "\n" || c == "\r" { continue }
            let w = CellWidth.of(c)
            if w == 0 {
                // A combining mark or a control: attach to the previous cell, never take one.
                if col > x, col - 1 < end, c.unicodeScalars.allSatisfy({ $0.value >= 0x20 }) {
                    var prev = col - 1
                    if prev > 0 && self[prev, y].isContinuation { prev -= 1 }
                    self[prev, y].text.append(c)
                }
                continue
            }
            if col + w > end {
                if col < end { self[col, y] = Cell(" ", style) }
                return end
            }
            if col >= 0 {
                self[col, y] = Cell(String(c), style)
                if w == 2 { self[col + 1, y] = Cell("", style) }
            }
            col += w
        }
        return col
    }

    /// The text of row `y`, trailing spaces removed (for golden files).
    public func line(_ y: Int) -> String {
        var s = ""
        for x in 0..<width {
            let c = self[x, y]
            if !c.isContinuation { s += c.text }
        }
        while s.hasSuffix(" ") { s.removeLast() }
        return s
    }

    /// The whole screen as text, one line per row.
    public var text: String { (0..<height).map(line).joined(separator: "\n") }

    /// Rows and column runs that differ from `old` (everything when the size changed).
    public func changes(since old: CellGrid?) -> [(y: Int, x: Int, count: Int)] {
        guard let old, old.width == width, old.height == height else {
            return (0..<height).map { ($0, 0, width) }
        }
        var runs: [(Int, Int, Int)] = []
        for y in 0..<height {
            var x = 0
            while x < width {
                if self[x, y] != old[x, y] {
                    var start = x
                    if start > 0 && self[start, y].isContinuation { start -= 1 }
                    var e = x
                    while e < width && self[e, y] != old[e, y] { e += 1 }
                    if e < width && self[e, y].isContinuation { e += 1 }
                    runs.append((y, start, e - start))
                    x = e
                } else {
                    x += 1
                }
            }
        }
        return runs
    }
}
