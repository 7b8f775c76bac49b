import Foundation

/// How image messages are shown (`images` in config.toml, `/set images`): at the terminal's own resolution
/// with one of the three graphics protocols, as coloured symbol cells, or not at all. `auto` takes what the
/// terminal answered to tern's queries at start (kitty's graphics query, the sixel flag of its device
/// attributes) and what its environment says (`TERM`, `TERM_PROGRAM`, `KITTY_WINDOW_ID`, …), else symbols.
public enum ImageMode: String, Sendable, Equatable, CaseIterable {
    case auto, kitty, sixel, iterm, symbols, off
}

/// A graphics protocol a terminal speaks.
public enum ImageProtocol: String, Sendable, Equatable {
    /// kitty's graphics protocol with Unicode placeholders: the picture is made of text cells (U+10EEEE with
    /// row and column marks), so it scrolls and clips with the text in a curses pane, and through tmux.
    case kitty
    /// DEC sixels, drawn into the message's reserved cells once they are all on screen.
    case sixel
    /// iTerm2's inline images (OSC 1337), drawn like sixels.
    case iterm

    /// What a terminal's environment says it speaks (nil: nothing known; the start-up queries may still tell).
    /// Inside tmux, `TERM_PROGRAM` is tmux's own, so only what the outer terminal left in the environment
    /// counts (`KITTY_WINDOW_ID`, `LC_TERMINAL`, `TERM_PROGRAM` from before).
    public static func fromEnvironment(_ env: [String: String]) -> ImageProtocol? {
        let term = env["TERM"] ?? ""
        let program = env["TERM_PROGRAM"] ?? ""
        if env["KITTY_WINDOW_ID"] != nil || term == "xterm-kitty" || term.contains("ghostty") || program == "ghostty" { return .kitty }
        if program == "iTerm.app" || env["LC_TERMINAL"] == "iTerm2" || program == "WezTerm" { return .iterm }
        if term.hasPrefix("foot") || term.hasPrefix("mlterm") || term.contains("sixel") || term == "contour" || program == "contour" {
            return .sixel
        }
        return nil
    }
}

/// A picture ready for a graphics protocol: what the terminal adapter writes to show it (the sequence, without
/// tmux's wrapping), and the cells it covers. `key` tells pictures apart when an id is used again.
public struct ImageGraphic: Sendable, Equatable {
    public var kind: ImageProtocol
    /// kitty's image id (1–255: the cells carry it as their 256-colour foreground); for sixel and iTerm2 a number
    /// that names the picture in placements.
    public var id: Int
    /// The message it shows.
    public var key: Int64
    public var columns: Int
    public var rows: Int
    /// kitty: the transmission (`a=T`, a virtual placement of `columns` × `rows`); sixel: the DCS string;
    /// iTerm2: the OSC 1337 string.
    public var sequence: String

    public init(kind: ImageProtocol, id: Int, key: Int64, columns: Int, rows: Int, sequence: String) {
        self.kind = kind
        self.id = id
        self.key = key
        self.columns = columns
        self.rows = rows
        self.sequence = sequence
    }

    /// Equal when they are the same picture in the same cells (the sequences are large and follow from that).
    public static func == (a: ImageGraphic, b: ImageGraphic) -> Bool {
        a.kind == b.kind && a.id == b.id && a.key == b.key && a.columns == b.columns && a.rows == b.rows
    }

    /// kitty: the cell at `row`, `column` of the picture: the placeholder with the row's and the column's marks,
    /// in the image id's colour.
    public func placeholder(row: Int, column: Int) -> Cell {
        Cell(String(Self.placeholderCharacter(row: row, column: column)), Style(fg: .index(id)))
    }

    static func placeholderCharacter(row: Int, column: Int) -> Character {
        var s = String.UnicodeScalarView()
        s.append(Unicode.Scalar(0x10EEEE)!)
        s.append(Unicode.Scalar(rowColumnMarks[min(row, rowColumnMarks.count - 1)])!)
        s.append(Unicode.Scalar(rowColumnMarks[min(column, rowColumnMarks.count - 1)])!)
        return Character(String(s))
    }

    /// The combining marks that number rows and columns in kitty's placeholders (the first 64 of its list: the
    /// marks of combining class 230 without decompositions, in code point order, as Unicode 6.0 lists them).
    static let rowColumnMarks: [UInt32] = [
        0x0305, 0x030D, 0x030E, 0x0310, 0x0312, 0x033D, 0x033E, 0x033F, 0x0346, 0x034A, 0x034B, 0x034C, 0x0350, 0x0351, 0x0352, 0x0357,
        0x035B, 0x0363, 0x0364, 0x0365, 0x0366, 0x0367, 0x0368, 0x0369, 0x036A, 0x036B, 0x036C, 0x036D, 0x036E, 0x036F, 0x0483, 0x0484,
        0x0485, 0x0486, 0x0487, 0x0592, 0x0593, 0x0594, 0x0595, 0x0597, 0x0598, 0x0599, 0x059C, 0x059D, 0x059E, 0x059F, 0x05A0, 0x05A1,
        0x05A8, 0x05A9, 0x05AB, 0x05AC, 0x05AF, 0x05C4, 0x0610, 0x0611, 0x0612, 0x0613, 0x0614, 0x0615, 0x0616, 0x0617, 0x0657, 0x0658,
    ]

    /// The widest and tallest picture the placeholders can number.
    public static let maxCells = rowColumnMarks.count
}

/// Where a picture stands in a frame: its top-left cell. kitty's pictures are listed whenever any of their
/// cells is on screen (the adapter transmits them); sixel and iTerm2 pictures only when all of their cells
/// are (the adapter draws them there, and what is cut off shows as symbols instead).
public struct GraphicPlacement: Sendable, Equatable {
    public var x: Int
    public var y: Int
    public var graphic: ImageGraphic
    public init(x: Int, y: Int, graphic: ImageGraphic) {
        self.x = x
        self.y = y
        self.graphic = graphic
    }
}

extension TerminalSequences {
    /// kitty: transmits a PNG as image `id` and makes a virtual placement of `columns` × `rows` cells for
    /// Unicode placeholders (`U=1`), quietly (`q=2`); the data goes in chunks of 4096 base64 bytes.
    public static func kittyImage(png: [UInt8], id: Int, columns: Int, rows: Int) -> String {
        let data = Data(png).base64EncodedString()
        var out = ""
        var start = data.startIndex
        var first = true
        repeat {
            let end = data.index(start, offsetBy: 4096, limitedBy: data.endIndex) ?? data.endIndex
            let more = end < data.endIndex ? 1 : 0
            let control = first ? "a=T,q=2,f=100,t=d,i=\(id),U=1,c=\(columns),r=\(rows),m=\(more)" : "m=\(more)"
            out += esc + "_G" + control + ";" + data[start..<end] + st
            start = end
            first = false
        } while start < data.endIndex
        return out
    }

    /// kitty: forgets image `id` and its placements.
    public static func kittyDelete(id: Int) -> String { esc + "_Ga=d,d=I,i=\(id),q=2" + st }

    /// kitty's query whether it takes graphics (answered `ESC _ G i=31;OK ESC \`), then the primary device
    /// attributes (answered by every terminal, so the answers end there; a 4 among them: sixels).
    public static let graphicsQuery = esc + "_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA" + st

    /// The primary device attributes request (DA1).
    public static let deviceAttributesQuery = esc + "[c"

    /// iTerm2: an inline image of `columns` × `rows` cells at the cursor (OSC 1337).
    public static func itermImage(png: [UInt8], columns: Int, rows: Int) -> String {
        esc + "]1337;File=inline=1;size=\(png.count);width=\(columns);height=\(rows);preserveAspectRatio=1:"
            + Data(png).base64EncodedString() + "\u{07}"
    }

    /// Each escape sequence of `seq` (each ending in `ESC \`, as kitty's chunks do) wrapped for tmux's
    /// passthrough on its own, or `seq` as it is outside tmux.
    public static func passthroughEach(_ seq: String, inTmux: Bool) -> String {
        guard inTmux else { return seq }
        return seq.components(separatedBy: st).filter { !$0.isEmpty }.map { passthrough($0 + st, inTmux: true) }.joined()
    }
}
