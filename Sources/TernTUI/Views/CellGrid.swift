import Synchronization

/// A colour as themes name it.
public enum Color: Hashable, Sendable {
    case `default`
    /// 0–255 (0–15: the ANSI colours).
    case index(Int)
}

/// What a cell looks like. Stored packed (colours in 32 bits each, the attributes in one byte) so that a
/// ``Cell`` copies and compares as plain bytes; the properties read and write it as before.
public struct Style: Hashable, Sendable {
    /// A colour: -1 for the default, else its index.
    private var fgValue: Int32 = -1
    private var bgValue: Int32 = -1
    private var flags: UInt8 = 0

    private static func packed(_ c: Color) -> Int32 {
        switch c {
        case .default: return -1
        case .index(let i): return Int32(clamping: max(0, i))
        }
    }
    private static func color(_ v: Int32) -> Color { v < 0 ? .default : .index(Int(v)) }
    private func flag(_ bit: UInt8) -> Bool { flags & bit != 0 }
    private mutating func set(_ bit: UInt8, _ on: Bool) { flags = on ? flags | bit : flags & ~bit }

    public var fg: Color {
        get { Self.color(fgValue) }
        set { fgValue = Self.packed(newValue) }
    }
    public var bg: Color {
        get { Self.color(bgValue) }
        set { bgValue = Self.packed(newValue) }
    }
    public var bold: Bool {
        get { flag(1) }
        set { set(1, newValue) }
    }
    public var dim: Bool {
        get { flag(2) }
        set { set(2, newValue) }
    }
    public var italic: Bool {
        get { flag(4) }
        set { set(4, newValue) }
    }
    public var underline: Bool {
        get { flag(8) }
        set { set(8, newValue) }
    }
    public var reverse: Bool {
        get { flag(16) }
        set { set(16, newValue) }
    }
    /// Struck through (curses has no such attribute: the terminal adapter overlays U+0336 on each cell).
    public var strike: Bool {
        get { flag(32) }
        set { set(32, newValue) }
    }

    public init(
        fg: Color = .default, bg: Color = .default, bold: Bool = false, dim: Bool = false, italic: Bool = false, underline: Bool = false,
        reverse: Bool = false, strike: Bool = false
    ) {
        fgValue = Self.packed(fg)
        bgValue = Self.packed(bg)
        flags = (bold ? 1 : 0) | (dim ? 2 : 0) | (italic ? 4 : 0) | (underline ? 8 : 0) | (reverse ? 16 : 0) | (strike ? 32 : 0)
    }

    public static let plain = Style()

    /// This style drawn over `base`: its colours where it sets them, else the base's; the attributes of both.
    public func layered(over base: Style) -> Style {
        var s = base
        if fgValue >= 0 { s.fgValue = fgValue }
        if bgValue >= 0 { s.bgValue = bgValue }
        s.flags |= flags
        return s
    }
}

/// The grapheme a cell shows, as plain bytes: up to three Unicode scalars held inline (21 bits each), a
/// longer cluster (an emoji sequence, a letter with several marks) as its number in a table kept for the
/// process. Equal graphemes, scalar for scalar, are equal glyphs; the empty glyph is the right half of a
/// wide one.
public struct Glyph: Hashable, Sendable {
    fileprivate var raw: UInt64

    /// Marks a number in the table rather than scalars.
    private static let tableBit: UInt64 = 1 << 63
    private static let table = Mutex<(strings: [String], numbers: [String: UInt64])>(([], [:]))

    public static let space = Glyph(raw: 0x20)
    public static let empty = Glyph(raw: 0)

    private init(raw: UInt64) { self.raw = raw }

    public init(_ c: Character) { self = Self.packed(c.unicodeScalars) ?? Self.numbered(String(c)) }

    public init(_ text: String) { self = Self.packed(text.unicodeScalars) ?? Self.numbered(text) }

    /// Up to three scalars, none of them NUL, packed 21 bits each (nil: the cluster goes in the table).
    private static func packed(_ scalars: some Sequence<Unicode.Scalar>) -> Glyph? {
        var raw: UInt64 = 0
        var shift: UInt64 = 0
        for u in scalars {
            guard shift < 63, u.value != 0 else { return nil }
            raw |= UInt64(u.value) << shift
            shift += 21
        }
        return Glyph(raw: raw)
    }

    private static func numbered(_ text: String) -> Glyph {
        table.withLock { t in
            if let n = t.numbers[text] { return Glyph(raw: tableBit | n) }
            let n = UInt64(t.strings.count)
            t.strings.append(text)
            t.numbers[text] = n
            return Glyph(raw: tableBit | n)
        }
    }

    public var isEmpty: Bool { raw == 0 }

    /// The grapheme's one scalar, when it is one (most cells): the terminal adapter writes it with no text made.
    public var scalar: Unicode.Scalar? { raw != 0 && raw < 1 << 21 ? Unicode.Scalar(UInt32(raw)) : nil }

    /// The grapheme as text.
    public var text: String {
        if raw & Self.tableBit != 0 {
            let n = Int(raw & ~Self.tableBit)
            return Self.table.withLock { $0.strings[n] }
        }
        var s = String.UnicodeScalarView()
        var r = raw
        while r != 0 {
            if let u = Unicode.Scalar(UInt32(r & 0x1F_FFFF)) { s.append(u) }
            r >>= 21
        }
        return String(s)
    }
}

/// One terminal cell: a grapheme (empty for the second half of a wide one), its style, and the link it is
/// part of (an index into its grid's ``CellGrid/links`` plus one; 0: none). Plain bytes: a grid copies and
/// compares with no reference counting.
public struct Cell: Hashable, Sendable {
    public var glyph: Glyph
    public var style: Style
    public var link: UInt16
    public init(_ text: String = " ", _ style: Style = .plain, link: UInt16 = 0) {
        self.glyph = Glyph(text)
        self.style = style
        self.link = link
    }
    public init(glyph: Glyph, _ style: Style = .plain, link: UInt16 = 0) {
        self.glyph = glyph
        self.style = style
        self.link = link
    }
    /// The grapheme as text ("" for the right half of a wide one).
    public var text: String {
        get { glyph.text }
        set { glyph = Glyph(newValue) }
    }
    /// The right half of a two-cell glyph.
    public var isContinuation: Bool { glyph.isEmpty }
}

/// The screen as a value: views draw into it, tests compare it, and the terminal adapter writes
/// only the cells that differ from the last one it drew.
public struct CellGrid: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public private(set) var cells: [Cell]
    /// Where the terminal cursor goes (the input box), if shown.
    public var cursor: (x: Int, y: Int)?
    /// The URLs of the links in it (a cell's `link` is an index here plus one): the terminal adapter wraps
    /// their cells in OSC 8 hyperlinks.
    public private(set) var links: [String] = []
    /// The pictures in it, for the adapter to send or draw (see ``GraphicPlacement``).
    public var graphics: [GraphicPlacement] = []

    public init(width: Int, height: Int, fill: Style = .plain) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: Cell(glyph: .space, fill), count: self.width * self.height)
    }

    public static func == (a: CellGrid, b: CellGrid) -> Bool {
        a.width == b.width && a.height == b.height && a.cells == b.cells && a.cursor?.x == b.cursor?.x && a.cursor?.y == b.cursor?.y
            && a.links == b.links && a.graphics == b.graphics
    }

    /// The id of `url` in this grid's links (added when new), for ``write(_:x:y:style:limit:link:)``.
    public mutating func link(_ url: String) -> UInt16 {
        if let i = links.firstIndex(of: url) { return UInt16(i + 1) }
        guard links.count < Int(UInt16.max) else { return 0 }
        links.append(url)
        return UInt16(links.count)
    }

    /// The URL of the link the cell at (x, y) is part of.
    public func url(x: Int, y: Int) -> String? {
        let id = Int(self[x, y].link)
        return id > 0 && id <= links.count ? links[id - 1] : nil
    }

    public subscript(x: Int, y: Int) -> Cell {
        get { cells[y * width + x] }
        set { cells[y * width + x] = newValue }
    }

    /// Fills a rectangle.
    public mutating func fill(x: Int, y: Int, width w: Int, height h: Int, style: Style, text: String = " ") {
        let cell = Cell(text, style)
        for yy in max(0, y)..<min(height, y + h) {
            for xx in max(0, x)..<min(width, x + w) { self[xx, yy] = cell }
        }
    }

    /// Writes `text` at (x, y), clipped at `limit` (exclusive; default: the right edge). A wide
    /// glyph that would straddle the limit becomes a space; `link` (from ``link(_:)``) marks the cells as a
    /// link's. Returns the column after the text.
    @discardableResult
    public mutating func write(_ text: String, x: Int, y: Int, style: Style, limit: Int? = nil, link: UInt16 = 0) -> Int {
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
                if col < end { self[col, y] = Cell(glyph: .space, style) }
                return end
            }
            if col >= 0 {
                self[col, y] = Cell(glyph: Glyph(c), style, link: link)
                if w == 2 { self[col + 1, y] = Cell(glyph: .empty, style, link: link) }
            }
            col += w
        }
        return col
    }

    /// Copies `other` into this grid with its top-left corner at (x, y), clipped at the edges: its links
    /// join this grid's (in its order, so their ids are those drawing it here would give), its pictures
    /// move with it.
    public mutating func blit(_ other: CellGrid, x: Int, y: Int) {
        if other.links.isEmpty, x >= 0, x + other.width <= width, y >= 0, y + other.height <= height {
            // Whole rows inside this grid and no links to renumber: each row copied in one go.
            for row in 0..<other.height {
                let to = (y + row) * width + x
                let from = row * other.width
                cells.replaceSubrange(to..<(to + other.width), with: other.cells[from..<(from + other.width)])
            }
        } else {
            let ids = other.links.map { link($0) }
            for row in 0..<other.height where y + row >= 0 && y + row < height {
                for col in 0..<other.width where x + col >= 0 && x + col < width {
                    var c = other.cells[row * other.width + col]
                    if c.link != 0 { c.link = Int(c.link) <= ids.count ? ids[Int(c.link) - 1] : 0 }
                    cells[(y + row) * width + x + col] = c
                }
            }
        }
        graphics += other.graphics.map { GraphicPlacement(x: $0.x + x, y: $0.y + y, graphic: $0.graphic) }
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

    /// Whether the cell at (x, y) differs from `old`'s (its link compared by URL: ids are per frame).
    private func differs(_ old: CellGrid, _ x: Int, _ y: Int) -> Bool {
        let (a, b) = (self[x, y], old[x, y])
        if a.link == 0 && b.link == 0 { return a != b }
        return a.text != b.text || a.style != b.style || url(x: x, y: y) != old.url(x: x, y: y)
    }

    /// The runs of cells of row `y` that are part of a link: where each starts, how many cells, its URL.
    public func linkRuns(_ y: Int) -> [(x: Int, count: Int, url: String)] {
        guard !links.isEmpty else { return [] }
        var out: [(x: Int, count: Int, url: String)] = []
        var x = 0
        while x < width {
            guard let u = url(x: x, y: y) else {
                x += 1
                continue
            }
            var e = x + 1
            while e < width && self[e, y].link == self[x, y].link { e += 1 }
            out.append((x, e - x, u))
            x = e
        }
        return out
    }

    /// Rows and column runs that differ from `old` (everything when the size changed).
    public func changes(since old: CellGrid?) -> [(y: Int, x: Int, count: Int)] {
        guard let old, old.width == width, old.height == height else {
            return (0..<height).map { ($0, 0, width) }
        }
        var runs: [(Int, Int, Int)] = []
        for y in 0..<height {
            var x = 0
            while x < width {
                if differs(old, x, y) {
                    var start = x
                    if start > 0 && self[start, y].isContinuation { start -= 1 }
                    var e = x
                    while e < width && differs(old, e, y) { e += 1 }
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
