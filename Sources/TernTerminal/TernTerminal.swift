@preconcurrency import CNCursesw
import Foundation
import TernTUI

/// The thin terminal adapter: the only code that calls ncurses.
public enum TernTerminal {
    /// The ncurses version string the adapter is linked against.
    public static var cursesVersion: String { String(cString: curses_version()) }
}

/// The terminal through ncursesw. Every curses call happens on one dedicated thread (input,
/// drawing, resize), never on Swift's cooperative pool: it polls standard input, drains keys
/// into ``inputs``, and draws the newest frame handed to ``present(_:)`` — only the cells that
/// changed since the frame before.
public final class CursesTerminal: TerminalSurface, @unchecked Sendable {
    public let inputs: AsyncStream<TerminalInput>
    private let sink: AsyncStream<TerminalInput>.Continuation
    private let lock = NSLock()
    private var pending: CellGrid?
    private var alerts: [String] = []
    private var width = 80
    private var height = 24
    private var running = true
    private let started = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    private let useColor: Bool

    /// Takes over the terminal; `color: false` draws attributes only (`NO_COLOR`).
    public init(color: Bool) {
        (inputs, sink) = AsyncStream<TerminalInput>.makeStream()
        useColor = color
        let thread = Thread { [unowned self] in self.loop() }
        thread.name = "tern-curses"
        thread.start()
        started.wait()
    }

    public func present(_ grid: CellGrid) {
        lock.lock()
        pending = grid
        lock.unlock()
    }

    /// The bell, and OSC 777 (`notify;TITLE;BODY`) for terminals that show desktop notifications,
    /// wrapped for tmux when it runs inside one; written by the curses thread after its next frame.
    public func alert(title: String, body: String) {
        func clean(_ s: String) -> String { String(s.unicodeScalars.filter { $0.value >= 0x20 && $0 != ";" && $0.value != 0x7F }.map(Character.init)) }
        var osc = "\u{1B}]777;notify;\(clean(title));\(clean(body))\u{7}"
        if ProcessInfo.processInfo.environment["TMUX"] != nil {
            osc = "\u{1B}Ptmux;" + osc.replacingOccurrences(of: "\u{1B}", with: "\u{1B}\u{1B}") + "\u{1B}\\"
        }
        lock.lock()
        alerts.append("\u{7}" + osc)
        lock.unlock()
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
        if wasRunning { stopped.wait() }
        sink.finish()
    }

    // MARK: - The curses thread

    private var pairs: [Style: Int16] = [:]
    private var drawn: CellGrid?
    private var altUp: Int32 = -1
    private var altDown: Int32 = -1

    private func loop() {
        setlocale(LC_ALL, "")
        let win = initscr()
        raw()
        noecho()
        nonl()
        keypad(win, true)
        nodelay(win, true)
        set_escdelay(25)
        if useColor && has_colors() {
            start_color()
            use_default_colors()
        }
        altUp = cnc_key_code("kUP3")
        altDown = cnc_key_code("kDN3")
        updateSize()
        started.signal()
        while true {
            lock.lock()
            let go = running
            lock.unlock()
            if !go { break }
            _ = cnc_wait_stdin(16)
            readKeys()
            lock.lock()
            let frame = pending
            pending = nil
            let ring = alerts
            alerts = []
            lock.unlock()
            if let frame { draw(frame) }
            if !ring.isEmpty {
                for a in ring { fputs(a, stdout) }
                fflush(stdout)
            }
        }
        endwin()
        stopped.signal()
    }

    private func updateSize() {
        let w = Int(getmaxx(cnc_stdscr()))
        let h = Int(getmaxy(cnc_stdscr()))
        lock.lock()
        width = w
        height = h
        lock.unlock()
    }

    private func readKeys() {
        var ch: wint_t = 0
        while true {
            let r = get_wch(&ch)
            if r == ERR { return }
            if r == KEY_CODE_YES {
                let code = Int32(ch)
                if code == KEY_RESIZE {
                    updateSize()
                    drawn = nil
                    clear()
                    sink.yield(.resize)
                    continue
                }
                if let k = functionKey(code) { sink.yield(.key(k)) }
                continue
            }
            let v = UInt32(ch)
            switch v {
            case 10, 13: sink.yield(.key(.enter))
            case 127, 8: sink.yield(.key(.backspace))
            case 9: sink.yield(.key(.tab))
            case 27: sink.yield(.key(.escape))
            case 1...26: sink.yield(.key(.ctrl(Character(Unicode.Scalar(v + 96)!))))
            default:
                if let s = Unicode.Scalar(v) { sink.yield(.key(.char(Character(s)))) }
            }
        }
    }

    private func functionKey(_ code: Int32) -> Key? {
        switch code {
        case KEY_UP: .up
        case KEY_DOWN: .down
        case KEY_LEFT: .left
        case KEY_RIGHT: .right
        case KEY_HOME: .home
        case KEY_END: .end
        case KEY_PPAGE: .pageUp
        case KEY_NPAGE: .pageDown
        case KEY_BACKSPACE: .backspace
        case KEY_DC: .delete
        case KEY_ENTER: .enter
        default:
            code == altUp ? .altUp : code == altDown ? .altDown : nil
        }
    }

    private func colorNumber(_ c: Color) -> Int16 {
        switch c {
        case .default: return -1
        case .index(let i): return Int16(i < Int(cnc_colors()) ? i : i % 8)
        }
    }

    private func attributes(_ s: Style) -> Int32 {
        var a: Int32 = 0
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
                let pair: Int16
                if let p = pairs[key] {
                    pair = p
                } else if pairs.count + 1 < Int(cnc_color_pairs()) {
                    pair = Int16(pairs.count + 1)
                    init_pair(pair, colorNumber(key.fg), colorNumber(key.bg))
                    pairs[key] = pair
                } else {
                    pair = 0
                }
                a |= Int32(COLOR_PAIR(Int32(pair)))
            }
        }
        return a
    }

    private func draw(_ frame: CellGrid) {
        let (w, h) = (Int(getmaxx(cnc_stdscr())), Int(getmaxy(cnc_stdscr())))
        guard frame.width == w, frame.height == h else { return }  // a resize is on its way
        for run in frame.changes(since: drawn) {
            var x = run.x
            while x < run.x + run.count {
                let cell = frame[x, run.y]
                if cell.isContinuation {
                    x += 1
                    continue
                }
                attrset(attributes(cell.style))
                var wide = cell.text.unicodeScalars.map { wchar_t(bitPattern: $0.value) } + [0]
                // The bottom-right cell cannot be written without scrolling; skip it.
                if !(run.y == h - 1 && x == w - 1) { _ = mvaddwstr(Int32(run.y), Int32(x), &wide) }
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
        drawn = frame
    }
}
