@preconcurrency import CImage
@preconcurrency import CNCursesw
import Foundation
public import TernTUI

/// The thin terminal adapter: the only code that calls ncurses.
public enum TernTerminal {
    /// The ncurses version string the adapter is linked against.
    public static var cursesVersion: String { String(cString: curses_version()) }
}

/// The terminal through ncursesw. Every curses call happens on one dedicated thread (input,
/// drawing, resize), never on Swift's cooperative pool. The thread sleeps in `poll` on standard
/// input and a wake-up pipe (a new frame, a resize, a request) — no timer ticks while nothing
/// happens. Input bytes go through ``InputDecoder`` (Alt keys, bracketed paste, focus, mouse);
/// frames are drawn as the cells that changed since the frame before.
public final class CursesTerminal: TerminalSurface, @unchecked Sendable {
    public let inputs: AsyncStream<TerminalInput>
    private let sink: AsyncStream<TerminalInput>.Continuation
    let lock = NSLock()
    /// Held around every curses call after start-up: by the curses thread while it works, and by
    /// ``present(_:)`` when it draws on its caller's thread.
    let cursesLock = NSLock()
    /// Curses has ended (under `cursesLock`): frames are no longer drawn.
    private var cursesClosed = false
    private var pending: CellGrid?
    private var outbox: [String] = []
    /// The alert to raise with the next frame (under `lock`).
    private var alertWaiting: WaitingAlert?
    private var width = 80
    private var height = 24
    private var running = true
    private var wantMouse = false
    private var mouseOn = false
    private var fullRedraw = false
    private var handOver: (argv: [String], done: CheckedContinuation<Int32, Never>)?
    private let started = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    private let useColor: Bool
    let inTmux = ProcessInfo.processInfo.environment["TMUX"] != nil
    /// What the environment says the terminal draws pictures with (the start-up queries may add to it).
    let environmentGraphics = ImageProtocol.fromEnvironment(ProcessInfo.processInfo.environment)
    /// What the terminal draws pictures with, as far as known (under `lock`).
    var detectedGraphics: ImageProtocol?
    /// kitty's answer to the graphics query was OK (curses thread).
    var kittyAnswered = false
    /// kitty: the picture each image id was last sent with (curses thread).
    var sentKitty: [Int: Int64] = [:]
    /// Sixel and iTerm2 pictures drawn with the last frame (curses thread).
    var placed: [GraphicPlacement] = []
    private var wakeRead: Int32 = -1
    private var wakeWrite: Int32 = -1

    /// Takes over the terminal; `color: false` draws attributes only (`NO_COLOR`).
    public init(color: Bool) {
        (inputs, sink) = AsyncStream<TerminalInput>.makeStream()
        useColor = color
        detectedGraphics = environmentGraphics
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            wakeRead = fds[0]
            wakeWrite = fds[1]
            _ = fcntl(wakeRead, F_SETFL, O_NONBLOCK)
            _ = fcntl(wakeWrite, F_SETFL, O_NONBLOCK)
        }
        let thread = Thread { [unowned self] in self.loop() }
        thread.name = "tern-curses"
        thread.start()
        started.wait()
    }

    private func wake() {
        var b: UInt8 = 1
        _ = write(wakeWrite, &b, 1)
    }

    /// Draws `grid` on the calling thread when no curses call is under way (the app's event loop: no
    /// thread woken per frame); else hands it to the curses thread, which draws it when it is done
    /// (reading keys, a resize, a program on the terminal).
    public func present(_ grid: CellGrid) {
        if cursesLock.try() {
            defer { cursesLock.unlock() }
            if !cursesClosed {
                lock.lock()
                pending = nil
                lock.unlock()
                output(grid)
                return
            }
        }
        lock.lock()
        pending = grid
        lock.unlock()
        wake()
    }

    /// Wraps an escape sequence for tmux's passthrough when tern runs inside tmux.
    func passthrough(_ seq: String) -> String {
        TerminalSequences.passthrough(seq, inTmux: inTmux)
    }

    /// The bell, OSC 777 (`notify;TITLE;BODY`) and/or OSC 9 (`BODY`), wrapped for tmux when inside one;
    /// written by the curses thread with the next frame (the message that raised it draws one), so an
    /// alert does not wake the thread by itself. Several alerts before a frame are one: the bell rings
    /// once and the notification is the newest, its title saying how many more came with it.
    public func alert(title: String, body: String, styles: [String]) {
        guard styles.contains(where: { ["bell", "osc777", "osc9"].contains($0) }) else { return }
        lock.lock()
        if var a = alertWaiting {
            a.more += 1
            (a.title, a.body, a.styles) = (title, body, styles)
            alertWaiting = a
        } else {
            alertWaiting = WaitingAlert(title: title, body: body, styles: styles)
        }
        lock.unlock()
    }

    struct WaitingAlert: Equatable {
        var title: String
        var body: String
        var styles: [String]
        var more = 0

        /// The escape sequences that raise it.
        func sequence(_ passthrough: (String) -> String) -> String {
            func clean(_ s: String) -> String {
                String(s.unicodeScalars.filter { $0.value >= 0x20 && $0 != ";" && $0.value != 0x7F }.map(Character.init))
            }
            let title = more > 0 ? "\(self.title) (+\(more) more)" : self.title
            var out = ""
            if styles.contains("bell") { out += "\u{7}" }
            if styles.contains("osc777") { out += passthrough("\u{1B}]777;notify;\(clean(title));\(clean(body))\u{7}") }
            if styles.contains("osc9") { out += passthrough("\u{1B}]9;\(clean(title)): \(clean(body))\u{7}") }
            return out
        }
    }

    public func copy(_ text: String) {
        send(TerminalSequences.clipboard(text, inTmux: inTmux))
    }

    public func setTitle(_ title: String) {
        let clean = String(title.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
        send("\u{1B}]2;\(clean)\u{7}")
    }

    public func setMouse(_ on: Bool) {
        lock.lock()
        wantMouse = on
        lock.unlock()
        wake()
    }

    public func redrawAll() {
        lock.lock()
        fullRedraw = true
        lock.unlock()
        wake()
    }

    /// Leaves curses, runs the program on the terminal, waits for it, and takes the terminal back.
    public func runInTerminal(_ argv: [String]) async -> Int32 {
        await withCheckedContinuation { cont in
            lock.lock()
            if handOver != nil || !running {
                lock.unlock()
                cont.resume(returning: -1)
                return
            }
            handOver = (argv, cont)
            lock.unlock()
            wake()
        }
    }

    /// libgd decodes, libchafa draws symbols in 256-colour pens (both loaded on the first image).
    public static func renderImage(_ data: [UInt8], columns: Int, maxRows: Int) -> ImagePreview? {
        guard columns > 0, maxRows > 0, !data.isEmpty else { return nil }
        let n = columns * maxRows
        var chars = [UInt32](repeating: 32, count: n)
        var fg = [Int32](repeating: -1, count: n)
        var bg = [Int32](repeating: -1, count: n)
        var used: Int32 = 0
        let rows = data.withUnsafeBytes { raw in
            Int(cti_render(raw.baseAddress, Int32(data.count), Int32(columns), Int32(maxRows), &chars, &fg, &bg, &used))
        }
        guard rows > 0 else { return nil }
        var out: [[Cell]] = []
        for y in 0..<rows {
            var row: [Cell] = []
            for x in 0..<Int(used) {
                let i = y * columns + x
                let ch = Unicode.Scalar(chars[i]).map { String(Character($0)) } ?? " "
                let style = Style(fg: Self.pen(fg[i]), bg: Self.pen(bg[i]))
                row.append(Cell(ch, style))
            }
            out.append(row)
        }
        return ImagePreview(width: Int(used), rows: out)
    }

    /// A chafa pen as a colour: -1 none, 0–255 the palette, else packed RGB (to the 256-colour cube).
    static func pen(_ v: Int32) -> Color {
        if v < 0 { return .default }
        if v < 256 { return .index(Int(v)) }
        func level(_ c: Int32) -> Int { c < 48 ? 0 : c < 115 ? 1 : Int((c - 35) / 40) }
        return .index(16 + 36 * level((v >> 16) & 255) + 6 * level((v >> 8) & 255) + level(v & 255))
    }

    private func send(_ raw: String) {
        lock.lock()
        outbox.append(raw)
        lock.unlock()
        wake()
    }

    public func size() -> (width: Int, height: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (width, height)
    }

    /// Gives the terminal back (endwin) and waits for the curses thread to end.
    public func stop() {
        lock.lock()
        let wasRunning = running
        running = false
        lock.unlock()
        if wasRunning {
            wake()
            stopped.wait()
        }
        sink.finish()
    }

    // MARK: - The curses thread

    private var pairs: [Style: Int16] = [:]
    private var drawn: CellGrid?
    private var lastFrame: CellGrid?
    var decoder = InputDecoder()

    /// Bracketed paste and focus reporting on (and mouse reporting when asked).
    private func modesOn() {
        fputs("\u{1B}[?2004h\u{1B}[?1004h", stdout)
        if mouseOn { fputs("\u{1B}[?1000h\u{1B}[?1006h", stdout) }
        fflush(stdout)
    }

    private func modesOff() {
        fputs("\u{1B}[?2004l\u{1B}[?1004l\u{1B}[?1000l\u{1B}[?1006l", stdout)
        fflush(stdout)
    }

    private func loop() {
        setlocale(LC_ALL, "")
        let win = initscr()
        raw()
        noecho()
        nonl()
        // Keys are decoded here (InputDecoder), not by curses: every byte comes through.
        keypad(win, false)
        nodelay(win, true)
        if useColor && has_colors() {
            start_color()
            use_default_colors()
        }
        cnc_install_winch(wakeWrite)
        modesOn()
        askGraphics()
        updateSize()
        started.signal()
        while true {
            lock.lock()
            let go = running
            lock.unlock()
            if !go { break }
            // Sleep until input or a wake-up; a lone Esc waits 25 ms for the rest of its sequence.
            let ready = cnc_wait_input(wakeRead, decoder.isPending ? 25 : -1)
            if ready & 2 != 0 {
                var buf = [UInt8](repeating: 0, count: 64)
                while read(wakeRead, &buf, 64) > 0 {}
            }
            cursesLock.lock()
            let alive = serviceWakeUp(ready)
            cursesLock.unlock()
            if !alive { break }
        }
        cursesLock.lock()
        cursesClosed = true
        forgetPictures()
        modesOff()
        endwin()
        cursesLock.unlock()
        stopped.signal()
    }

    /// What the curses thread does when `poll` returns (`ready`: 1 input, 2 the wake-up pipe, 4 the
    /// terminal gone), with `cursesLock` held: keys, a resize, a program to run, then what waits to be
    /// drawn or written. False: the terminal went away.
    private func serviceWakeUp(_ ready: Int32) -> Bool {
        if ready & 1 != 0 {
            readKeys()
        } else if decoder.isPending && ready == 0 {
            for i in decoder.flush() { sink.yield(i) }
        }
        if ready & 4 != 0 {
            // The terminal went away (its window closed without a SIGHUP reaching us): quit, do not spin.
            sink.yield(.hangup)
            lock.lock()
            running = false
            lock.unlock()
            return false
        }
        checkSize()
        lock.lock()
        let frame = pending
        pending = nil
        let request = handOver
        handOver = nil
        lock.unlock()
        if let request { request.done.resume(returning: hand(request.argv)) }
        output(frame)
        return true
    }

    /// Draws `frame` (if any) and writes what waits: mouse reporting turned on or off, a full redraw,
    /// then the escape sequences (title, clipboard, the alert) after the frame. With `cursesLock` held,
    /// on the curses thread or the thread presenting a frame.
    private func output(_ frame: CellGrid?) {
        lock.lock()
        var raw = outbox
        outbox = []
        if let a = alertWaiting {
            alertWaiting = nil
            raw.append(a.sequence(passthrough))
        }
        let mouse = wantMouse
        let full = fullRedraw
        fullRedraw = false
        lock.unlock()
        if mouse != mouseOn {
            mouseOn = mouse
            fputs(mouse ? "\u{1B}[?1000h\u{1B}[?1006h" : "\u{1B}[?1000l\u{1B}[?1006l", stdout)
            fflush(stdout)
        }
        if full {
            drawn = nil
            clearok(cnc_stdscr(), true)
            if frame == nil, let last = lastFrame { draw(last) }
        }
        if let frame { draw(frame) }
        if !raw.isEmpty {
            for a in raw { fputs(a, stdout) }
            fflush(stdout)
        }
    }

    /// Runs a program on the terminal (curses off meanwhile); its exit status.
    private func hand(_ argv: [String]) -> Int32 {
        modesOff()
        def_prog_mode()
        endwin()
        var pid: pid_t = 0
        var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGWINCH)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGTSTP)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var status: Int32 = -1
        if posix_spawn(&pid, argv[0], nil, &attributes, &cArgs, environ) == 0 {
            var ws: Int32 = 0
            while waitpid(pid, &ws, 0) < 0 && errno == EINTR {}
            status = (ws & 0x7F) == 0 ? (ws >> 8) & 0xFF : 128 + (ws & 0x7F)
        }
        reset_prog_mode()
        refresh()
        modesOn()
        drawn = nil
        clearok(cnc_stdscr(), true)
        checkSize()
        sink.yield(.resize)
        return status
    }

    private func updateSize() {
        let w = Int(getmaxx(cnc_stdscr()))
        let h = Int(getmaxy(cnc_stdscr()))
        lock.lock()
        width = w
        height = h
        lock.unlock()
    }

    /// After a SIGWINCH (or any wake-up): the kernel's size, and curses resized to it.
    private func checkSize() {
        var w: Int32 = 0
        var h: Int32 = 0
        guard cnc_term_size(&w, &h) == 0 else { return }
        if Int(w) != Int(getmaxx(cnc_stdscr())) || Int(h) != Int(getmaxy(cnc_stdscr())) {
            resizeterm(h, w)
            updateSize()
            drawn = nil
            clear()
            sink.yield(.resize)
        }
    }

    private func readKeys() {
        var ch: wint_t = 0
        while true {
            let r = get_wch(&ch)
            if r == ERR { return }
            if r == KEY_CODE_YES { continue }
            guard let scalar = Unicode.Scalar(UInt32(ch)) else { continue }
            for i in decoder.feed(scalar) {
                if case .reply(let r) = i { noteReply(r) }
                sink.yield(i)
            }
        }
    }

    private func colorNumber(_ c: Color) -> Int16 {
        switch c {
        case .default: return -1
        case .index(let i): return Int16(Self.fit(i, colors: Int(cnc_colors())))
        }
    }

    /// A palette colour on a terminal with fewer colours: the nearest of the 16 (or 8) ANSI colours.
    public static func fit(_ i: Int, colors: Int) -> Int {
        if i < colors { return i }
        let ansi: [(Int, Int, Int)] = [
            (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
            (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
        ]
        let rgb: (Int, Int, Int)
        if i < 16 {
            rgb = ansi[i]
        } else if i < 232 {
            let v = i - 16
            func level(_ n: Int) -> Int { n == 0 ? 0 : 55 + 40 * n }
            rgb = (level(v / 36), level(v / 6 % 6), level(v % 6))
        } else {
            let g = 8 + 10 * (i - 232)
            rgb = (g, g, g)
        }
        let usable = min(colors, 16)
        var best = 0
        var bestDistance = Int.max
        for (n, c) in ansi.prefix(max(usable, 1)).enumerated() {
            let d = (c.0 - rgb.0) * (c.0 - rgb.0) + (c.1 - rgb.1) * (c.1 - rgb.1) + (c.2 - rgb.2) * (c.2 - rgb.2)
            if d < bestDistance { (best, bestDistance) = (n, d) }
        }
        return best
    }

    /// The attributes and colour pair of a style (pairs past 255 do not fit in the attributes: attr_set takes them apart).
    private func attributes(_ s: Style) -> (attrs: Int32, pair: Int16) {
        var a: Int32 = 0
        var pair: Int16 = 0
        if s.bold { a |= Int32(cnc_a_bold()) }
        if s.dim { a |= Int32(cnc_a_dim()) }
        if s.underline { a |= Int32(cnc_a_underline()) }
        if s.reverse { a |= Int32(cnc_a_reverse()) }
        if s.italic { a |= Int32(cnc_a_italic()) }
        if useColor && has_colors() {
            var key = Style()
            key.fg = s.fg
            key.bg = s.bg
            if key.fg != .default || key.bg != .default {
                if let p = pairs[key] {
                    pair = p
                } else if pairs.count + 1 < min(Int(cnc_color_pairs()), Int(Int16.max)) {
                    pair = Int16(pairs.count + 1)
                    init_pair(pair, colorNumber(key.fg), colorNumber(key.bg))
                    pairs[key] = pair
                }
            }
        }
        return (a, pair)
    }

    private func draw(_ frame: CellGrid) {
        let (w, h) = (Int(getmaxx(cnc_stdscr())), Int(getmaxy(cnc_stdscr())))
        guard frame.width == w, frame.height == h else { return }  // a resize is on its way
        let changes = frame.changes(since: drawn)
        var changedRows: [Int] = []
        for run in changes where changedRows.last != run.y { changedRows.append(run.y) }
        // A row that had a link: curses skips cells it thinks are unchanged, which would keep the old hyperlink.
        if let drawn, !drawn.links.isEmpty {
            for y in changedRows where !drawn.linkRuns(y).isEmpty { _ = wredrawln(cnc_stdscr(), Int32(y), 1) }
        }
        picturesBefore(frame)
        var penStyle: Style? = nil
        for run in changes {
            var x = run.x
            while x < run.x + run.count {
                let cell = frame[x, run.y]
                if cell.isContinuation {
                    x += 1
                    continue
                }
                // A run of cells in one style (most of a row) sets it once.
                if cell.style != penStyle {
                    let (attrs, pair) = attributes(cell.style)
                    attr_set(attr_t(truncatingIfNeeded: UInt32(bitPattern: attrs)), pair, nil)
                    penStyle = cell.style
                }
                // As many columns as curses counts (wcwidth) as the grid gives the cell: an emoji
                // presentation sequence goes out as its base and a space (CellWidth.forTerminal).
                let cells = x + 1 < frame.width && frame[x + 1, run.y].isContinuation ? 2 : 1
                let bottomRight = run.y == h - 1 && x == w - 1
                // Most cells: one scalar as wide as its cells, no overlay — written with no text or array made.
                if let u = cell.glyph.scalar, !cell.style.strike, Int(cnc_wcwidth(u.value)) == cells {
                    var wide: (wchar_t, wchar_t) = (wchar_t(bitPattern: u.value), 0)
                    if !bottomRight {
                        _ = withUnsafeMutablePointer(to: &wide) {
                            $0.withMemoryRebound(to: wchar_t.self, capacity: 2) { mvaddwstr(Int32(run.y), Int32(x), $0) }
                        }
                    }
                    x += 1
                    continue
                }
                var (scalars, pad) = CellWidth.forTerminal(cell.text, width: cells) { Int(cnc_wcwidth($0.value)) }
                // curses has no strike-through attribute: a combining long stroke overlay (U+0336) on the cell.
                if cell.style.strike { scalars.append("\u{0336}") }
                let room = run.y == h - 1 ? min(pad, max(0, w - 1 - x - 1)) : pad
                var wide = scalars.map { wchar_t(bitPattern: $0.value) } + Array(repeating: wchar_t(32), count: room) + [0]
                // The bottom-right cell cannot be written without scrolling; skip it.
                if !bottomRight { _ = mvaddwstr(Int32(run.y), Int32(x), &wide) }
                x += 1
            }
        }
        attrset(0)
        if let c = frame.cursor {
            curs_set(1)
            move(Int32(c.y), Int32(c.x))
        } else {
            curs_set(0)
        }
        refresh()
        hyperlinks(frame, rows: changedRows)
        picturesAfter(frame, changedRows: changedRows)
        drawn = frame
        lastFrame = frame
    }

    /// The links on the rows just drawn, written again inside OSC 8 hyperlinks (curses cannot send them), then
    /// the cursor put back where curses left it.
    private func hyperlinks(_ frame: CellGrid, rows: [Int]) {
        guard !frame.links.isEmpty else { return }
        let colors = Int(cnc_colors())
        let color: ((Int) -> Int)? = useColor && has_colors() ? { Self.fit($0, colors: colors) } : nil
        let out = TerminalSequences.hyperlinks(frame, rows: rows, color: color) { cell, cells in
            var (scalars, pad) = CellWidth.forTerminal(cell.text, width: cells) { Int(cnc_wcwidth($0.value)) }
            if cell.style.strike { scalars.append("\u{0336}") }
            return String(String.UnicodeScalarView(scalars)) + String(repeating: " ", count: pad)
        }
        guard !out.isEmpty else { return }
        let (y, x) = (getcury(cnc_stdscr()), getcurx(cnc_stdscr()))
        fputs(out + "\u{1B}[\(y + 1);\(x + 1)H", stdout)
        fflush(stdout)
    }
}
