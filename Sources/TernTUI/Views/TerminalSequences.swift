import Foundation

/// Escape sequences the terminal adapter writes itself (curses knows none of them), as pure functions of
/// what they carry: tmux passthrough, OSC 8 hyperlinks and OSC 52 clipboard writes.
public enum TerminalSequences {
    static let esc = "\u{1B}"
    /// The string terminator, `ESC \`.
    static let st = "\u{1B}\\"

    /// `seq` wrapped for tmux's passthrough (`ESC P tmux; …` with every ESC doubled, then `ESC \`) when
    /// `inTmux`, else as it is.
    public static func passthrough(_ seq: String, inTmux: Bool) -> String {
        guard inTmux else { return seq }
        return esc + "Ptmux;" + seq.replacingOccurrences(of: esc, with: esc + esc) + st
    }

    /// OSC 52: `ESC ] 52 ; c ; BASE64 ESC \` puts `text` on the clipboard; inside tmux, wrapped for its
    /// passthrough (tmux then hands it on to the terminal).
    public static func clipboard(_ text: String, inTmux: Bool) -> String {
        passthrough(esc + "]52;c;" + Data(text.utf8).base64EncodedString() + st, inTmux: inTmux)
    }

    /// OSC 8: `ESC ] 8 ; ; URL ESC \` opens a hyperlink (an empty URL closes it). Control characters are
    /// taken out of the URL (they would end the sequence).
    public static func hyperlink(_ url: String) -> String {
        esc + "]8;;" + String(url.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init)) + st
    }

    /// The SGR sequence that draws `style` (after a reset), with `color` mapping a palette colour to what
    /// the terminal has (nil: no colours).
    public static func sgr(_ style: Style, color: ((Int) -> Int)?) -> String {
        var codes = ["0"]
        if style.bold { codes.append("1") }
        if style.dim { codes.append("2") }
        if style.italic { codes.append("3") }
        if style.underline { codes.append("4") }
        if style.reverse { codes.append("7") }
        if let color {
            if case .index(let i) = style.fg { codes.append("38;5;\(color(i))") }
            if case .index(let i) = style.bg { codes.append("48;5;\(color(i))") }
        }
        return esc + "[" + codes.joined(separator: ";") + "m"
    }

    /// The links of rows `rows` of `frame` drawn again inside OSC 8 hyperlinks: for each run of a link's
    /// cells, the cursor moved there, the link opened, the cells in their styles, the link closed and the
    /// attributes reset. `text` gives what a cell is written as (curses' way for wide and struck cells).
    /// The bottom-right cell is left out (writing it would scroll).
    public static func hyperlinks(
        _ frame: CellGrid, rows: [Int], color: ((Int) -> Int)?, text: (Cell, _ cells: Int) -> String = { c, _ in c.text }
    ) -> String {
        var out = ""
        for y in rows where y >= 0 && y < frame.height {
            for run in frame.linkRuns(y) {
                out += esc + "[\(y + 1);\(run.x + 1)H" + hyperlink(run.url)
                var last: Style?
                for x in run.x..<(run.x + run.count) {
                    let cell = frame[x, y]
                    if cell.isContinuation || (y == frame.height - 1 && x == frame.width - 1) { continue }
                    if cell.style != last {
                        out += sgr(cell.style, color: color)
                        last = cell.style
                    }
                    out += text(cell, x + 1 < frame.width && frame[x + 1, y].isContinuation ? 2 : 1)
                }
                out += hyperlink("") + esc + "[0m"
            }
        }
        return out
    }
}
