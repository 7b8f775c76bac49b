/// The body of every message the bench sends: `b:<sender>:<seq>:<scheduled ns>:` padded with `x`.
///
/// The scheduled time is `Mono.now()`-based and is the time the message was *due*, not the time it
/// was written, so a sender that falls behind does not hide the delay (no coordinated omission).
enum BenchText {
    static func make(sender: Int, seq: Int, scheduled: UInt64, size: Int) -> String {
        var s = "b:\(sender):\(seq):\(scheduled):"
        let pad = size - s.utf8.count
        if pad > 0 { s += String(repeating: "x", count: pad) }
        return s
    }
}

/// One line of a server WebSocket message, as far as the bench cares.
enum ServerEvent {
    /// A `MESG` carrying a bench text. `isAck`: it carries `req_id` (the sender's own copy).
    case message(sender: Int, seq: Int, scheduled: UInt64, msgId: Int64, isAck: Bool)
    /// `LOGI`: `ok` false when it is a refusal (`"error":true`).
    case login(ok: Bool)
    /// `EROR`, with its Sendbird code.
    case error(code: Int)
    /// A `MESG` without a readable bench text and `msg_id`.
    case unreadableMessage
    /// Any other command.
    case other
}

/// Splits a server WebSocket message into `CMD4{json}\n` lines and pulls out only the fields the
/// bench needs, by byte search: decoding ~100k JSON messages a second with `JSONDecoder` would
/// use more CPU than the server and invalidate the run.
enum FrameScanner {
    static let msgIdKey = Array(#""msg_id":"#.utf8)
    static let messageKey = Array(#""message":"b:"#.utf8)
    static let reqIdKey = Array(#"{"req_id":"#.utf8)
    static let codeKey = Array(#""code":"#.utf8)
    static let errorTrue = Array(#""error":true"#.utf8)

    /// Calls `body` once per line of `text`, in order.
    static func scan(_ text: String, _ body: (ServerEvent) -> Void) {
        var copy = text
        copy.withUTF8 { buf in
            var start = 0
            let n = buf.count
            while start < n {
                var end = start
                while end < n, buf[end] != 10 { end += 1 }
                if end - start >= 4 { body(event(buf, start, end)) }
                start = end + 1
            }
        }
    }

    static func event(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> ServerEvent {
        let c0 = b[start], c1 = b[start + 1], c2 = b[start + 2], c3 = b[start + 3]
        switch (c0, c1, c2, c3) {
        case (77, 69, 83, 71):  // MESG
            let isAck = hasPrefix(b, start + 4, end, reqIdKey)
            guard let idAt = find(b, msgIdKey, start + 4, end) else { return .unreadableMessage }
            let (msgId, _) = integer(b, idAt, end)
            // Key order varies from message to message (the encoder does not keep it): search each from the start.
            guard let textAt = find(b, messageKey, start + 4, end) else { return .unreadableMessage }
            let (sender, a) = integer(b, textAt, end)
            guard a < end, b[a] == 58 else { return .unreadableMessage }
            let (seq, c) = integer(b, a + 1, end)
            guard c < end, b[c] == 58 else { return .unreadableMessage }
            let (scheduled, d) = integer(b, c + 1, end)
            guard d < end, b[d] == 58 else { return .unreadableMessage }
            return .message(sender: Int(sender), seq: Int(seq), scheduled: UInt64(scheduled), msgId: msgId, isAck: isAck)
        case (76, 79, 71, 73):  // LOGI
            return .login(ok: find(b, errorTrue, start + 4, end) == nil)
        case (69, 82, 79, 82):  // EROR
            guard let at = find(b, codeKey, start + 4, end) else { return .error(code: 0) }
            return .error(code: Int(integer(b, at, end).0))
        default:
            return .other
        }
    }

    /// The index just past the first occurrence of `pattern` in `b[from..<to]`.
    @inline(__always)
    static func find(_ b: UnsafeBufferPointer<UInt8>, _ pattern: [UInt8], _ from: Int, _ to: Int) -> Int? {
        let m = pattern.count
        guard m > 0, to - from >= m else { return nil }
        let first = pattern[0]
        var i = from
        let last = to - m
        while i <= last {
            if b[i] == first {
                var j = 1
                while j < m, b[i + j] == pattern[j] { j += 1 }
                if j == m { return i + m }
            }
            i += 1
        }
        return nil
    }

    @inline(__always)
    static func hasPrefix(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int, _ pattern: [UInt8]) -> Bool {
        guard to - from >= pattern.count else { return false }
        for j in 0..<pattern.count where b[from + j] != pattern[j] { return false }
        return true
    }

    /// A non-negative decimal integer at `b[from...]` and the index after its last digit.
    @inline(__always)
    static func integer(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> (Int64, Int) {
        var v: Int64 = 0
        var i = from
        while i < to, b[i] >= 48, b[i] <= 57 {
            v = v &* 10 &+ Int64(b[i] - 48)
            i += 1
        }
        return (v, i)
    }
}
