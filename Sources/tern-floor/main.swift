// tern-floor: the least a terminal chat client can do on this stack, as the baseline for tern's own
// figures (issue 36): the same Swift toolchain and build, the same WebSocket client (WSClient on
// SwiftNIO) and the same curses library as tern, and nothing else. It paints a status line at once
// (" me │", the first-paint mark `scripts/tui-bench.py` waits for), logs in to ternd's WebSocket
// as `TERN_USER_ID`, and paints each new message's text on the next line of the screen. No
// engine, no cache, no layout, no JSON decoding beyond finding the text.
//
//   TERN_SERVER=http://127.0.0.1:PORT TERN_USER_ID=me tern-floor
import CNCursesw
import Logging
import WSClient

#if canImport(Glibc)
import Glibc
#endif

let server = getenv("TERN_SERVER").map { String(cString: $0) } ?? "http://127.0.0.1:8080"
let user = getenv("TERN_USER_ID").map { String(cString: $0) } ?? "me"
let url = "ws" + server.dropFirst(4) + "/?p=Tern&pv=Linux&sv=floor&ai=LOCAL&user_id=" + user

setlocale(LC_ALL, "")
_ = initscr()
noecho()
cbreak()
let rows = max(2, Int(getmaxy(cnc_stdscr())))
func paint(_ text: Substring, row: Int) {
    wmove(cnc_stdscr(), Int32(row), 0)
    var text = text
    text.withUTF8 { bytes in
        bytes.withMemoryRebound(to: CChar.self) { _ = waddnstr(cnc_stdscr(), $0.baseAddress, Int32($0.count)) }
    }
    wclrtoeol(cnc_stdscr())
}
paint(" \(user) │ tern-floor"[...], row: rows - 1)
wrefresh(cnc_stdscr())

/// The text of a `MESG` frame's `"message"` member (escapes left as they are).
func messageText(_ frame: Substring) -> Substring? {
    guard let key = frame.firstRange(of: "\"message\":\"") else { return nil }
    let rest = frame[key.upperBound...]
    var i = rest.startIndex
    while i < rest.endIndex, rest[i] != "\"" {
        if rest[i] == "\\", rest.index(after: i) < rest.endIndex { i = rest.index(after: i) }
        i = rest.index(after: i)
    }
    return rest[..<i]
}

do {
    _ = try await WebSocketClient.connect(url: url, logger: Logger(label: "tern-floor")) { inbound, _, _ in
        var row = 0
        for try await message in inbound.messages(maxSize: 1 << 24) {
            guard case .text(let text) = message else { continue }
            for frame in text.split(separator: "\n") {
                if frame.hasPrefix("LOGI") {
                    paint(" \(user) │ tern-floor · connected"[...], row: rows - 1)
                } else if frame.hasPrefix("MESG"), let body = messageText(frame) {
                    paint(body, row: row)
                    row = (row + 1) % (rows - 1)
                }
            }
            wrefresh(cnc_stdscr())
        }
    }
} catch {
    endwin()
    print("tern-floor: \(error)")
    exit(1)
}
endwin()
