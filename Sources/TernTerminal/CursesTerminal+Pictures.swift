@preconcurrency import CImage
@preconcurrency import CNCursesw
import Foundation
public import TernTUI

/// Pictures at the terminal's resolution (`images` in config.toml): what the terminal speaks, the pictures
/// made for it (off the drawing thread), and how each frame sends or draws them on the curses thread.
///
/// - kitty: the picture is sent once per image id with a virtual placement (`U=1`); the frame's cells are
///   Unicode placeholders, so curses draws, scrolls and clips it as text, and tmux passes it on.
/// - sixel and iTerm2: drawn at the picture's top-left cell after curses has written the frame, whenever its
///   cells are new or were written again; when it moves or goes, its old rows are written again, which
///   paints over it.
extension CursesTerminal {
    public var imageProtocol: ImageProtocol? {
        lock.lock()
        defer { lock.unlock() }
        return detectedGraphics
    }

    public func renderImage(_ data: [UInt8], columns: Int, maxRows: Int, graphics: ImageProtocol?, id: Int, key: Int64) -> ImagePreview? {
        guard var preview = Self.renderImage(data, columns: columns, maxRows: maxRows) else { return nil }
        if let graphics {
            preview.graphic = Self.picture(data, kind: graphics, columns: preview.width, rows: preview.rows.count, id: id, key: key)
        }
        return preview
    }

    /// `data` scaled to `columns` × `rows` cells of `cell` pixels (by default this terminal's size of a cell, or
    /// 10 × 20 when it does not say), as `kind` sends it.
    public static func picture(
        _ data: [UInt8], kind: ImageProtocol, columns: Int, rows: Int, id: Int, key: Int64, cell: (width: Int, height: Int)? = nil
    ) -> ImageGraphic? {
        guard columns > 0, rows > 0, columns <= ImageGraphic.maxCells, rows <= ImageGraphic.maxCells else { return nil }
        var cw: Int32 = 0
        var ch: Int32 = 0
        if let cell {
            (cw, ch) = (Int32(cell.width), Int32(cell.height))
        } else {
            cti_cell_pixels(&cw, &ch)
        }
        if cw < 2 || ch < 2 || cw > 200 || ch > 400 { (cw, ch) = (10, 20) }
        let (pw, ph) = (columns * Int(cw), rows * Int(ch))
        var length: Int32 = 0
        let buffer = data.withUnsafeBytes { raw in
            cti_picture(raw.baseAddress, Int32(data.count), Int32(pw), Int32(ph), kind == .sixel ? 0 : 1, &length)
        }
        guard let buffer, length > 0 else { return nil }
        defer { free(buffer) }
        let bytes = Array(UnsafeBufferPointer(start: buffer, count: Int(length)))
        let sequence: String
        switch kind {
        case .kitty: sequence = TerminalSequences.kittyImage(png: bytes, id: id, columns: columns, rows: rows)
        case .iterm: sequence = TerminalSequences.itermImage(png: bytes, columns: columns, rows: rows)
        case .sixel: sequence = Sixel.encode(rgba: bytes, width: pw, height: ph)
        }
        return ImageGraphic(kind: kind, id: id, key: key, columns: columns, rows: rows, sequence: sequence)
    }

    /// At start: kitty's graphics query (through tmux's passthrough inside tmux) and the device attributes,
    /// whose answer ends the answers.
    func askGraphics() {
        decoder.expectsReplies = true
        fputs(passthrough(TerminalSequences.graphicsQuery) + TerminalSequences.deviceAttributesQuery, stdout)
        fflush(stdout)
    }

    /// The terminal answered: kitty's OK means kitty graphics; the device attributes (the last answer) with a
    /// 4 mean sixels. What the environment said comes first.
    func noteReply(_ reply: TerminalReply) {
        var found: ImageProtocol?
        switch reply {
        case .graphics(let ok):
            kittyAnswered = kittyAnswered || ok
            found = environmentGraphics ?? (ok ? .kitty : nil)
        case .deviceAttributes(let attributes):
            found = environmentGraphics ?? (kittyAnswered ? .kitty : attributes.contains(4) ? .sixel : nil)
        }
        lock.lock()
        detectedGraphics = found
        lock.unlock()
    }

    /// Before curses writes a frame: kitty's pictures not yet sent are sent; rows where a sixel or iTerm2
    /// picture was and is no more are marked to be written again whole.
    func picturesBefore(_ frame: CellGrid) {
        let drawnNow = frame.graphics.filter { $0.graphic.kind != .kitty }
        for old in placed where !drawnNow.contains(old) {
            _ = wredrawln(cnc_stdscr(), Int32(old.y), Int32(old.graphic.rows))
        }
        var out = ""
        for p in frame.graphics where p.graphic.kind == .kitty && sentKitty[p.graphic.id] != p.graphic.key {
            out += TerminalSequences.passthroughEach(p.graphic.sequence, inTmux: inTmux)
            sentKitty[p.graphic.id] = p.graphic.key
        }
        if !out.isEmpty {
            fputs(out, stdout)
            fflush(stdout)
        }
    }

    /// After curses wrote a frame: each sixel or iTerm2 picture that is new there, or whose rows were written,
    /// drawn at its top-left cell; then the cursor put back where curses left it.
    func picturesAfter(_ frame: CellGrid, changedRows: [Int]) {
        let drawnNow = frame.graphics.filter { $0.graphic.kind != .kitty }
        defer { placed = drawnNow }
        var out = ""
        for p in drawnNow {
            let rows = p.y..<(p.y + p.graphic.rows)
            guard !placed.contains(p) || changedRows.contains(where: rows.contains) else { continue }
            out += "\u{1B}[\(p.y + 1);\(p.x + 1)H" + passthrough(p.graphic.sequence)
        }
        guard !out.isEmpty else { return }
        let (y, x) = (getcury(cnc_stdscr()), getcurx(cnc_stdscr()))
        fputs(out + "\u{1B}[\(y + 1);\(x + 1)H", stdout)
        fflush(stdout)
    }

    /// At the end: kitty forgets the pictures tern sent.
    func forgetPictures() {
        guard !sentKitty.isEmpty else { return }
        fputs(sentKitty.keys.map { passthrough(TerminalSequences.kittyDelete(id: $0)) }.joined(), stdout)
        fflush(stdout)
    }
}
