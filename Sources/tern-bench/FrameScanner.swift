#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    /// `ENTR`: the acknowledgement of entering an open channel (the bench sends no other ENTR).
    case entered
    /// `EROR`, with its Sendbird code.
    case error(code: Int)
    /// A `MESG` without a readable bench text and `msg_id`.
    case unreadableMessage
    /// Any other command.
    case other
}

/// Splits a server WebSocket message into `CMD4{json}\n` lines and pulls out only the fields the
/// bench needs, by byte search over the received bytes themselves (no `String`, no `JSONDecoder`):
/// at ~100k deliveries a second any per-message allocation or decoding would cost the bench more
/// CPU than the server spends, and invalidate the run.
enum FrameScanner {
    static let msgIdKey: StaticString = #""msg_id":"#
    static let messageKey: StaticString = #""message":"b:"#
    static let reqIdKey: StaticString = #"{"req_id":"#
    static let codeKey: StaticString = #""code":"#
    static let errorTrue: StaticString = #""error":true"#

    /// Calls `body` once per line of `bytes`, in order.
    @inline(__always)
    static func scan(_ bytes: UnsafeRawBufferPointer, _ body: (ServerEvent) -> Void) {
        guard let base = bytes.baseAddress else { return }
        let b = UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        var start = 0
        let n = b.count
        while start < n {
            let end: Int
            if let nl = memchr(base + start, 10, n - start) {
                end = base.distance(to: UnsafeRawPointer(nl))
            } else {
                end = n
            }
            if end - start >= 4 { body(event(b, start, end)) }
            start = end + 1
        }
    }

    static func event(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> ServerEvent {
        let c0 = b[start]
        let c1 = b[start + 1]
        let c2 = b[start + 2]
        let c3 = b[start + 3]
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
        case (69, 78, 84, 82):  // ENTR
            return .entered
        case (69, 82, 79, 82):  // EROR
            guard let at = find(b, codeKey, start + 4, end) else { return .error(code: 0) }
            return .error(code: Int(integer(b, at, end).0))
        default:
            return .other
        }
    }

    /// The index just past the first occurrence of `pattern` in `b[from..<to]`. Every pattern
    /// starts with `"`, which JSON is full of, so candidates are found by their second byte (a
    /// letter) with `memchr` (SIMD in glibc) and then compared whole.
    @inline(__always)
    static func find(_ b: UnsafeBufferPointer<UInt8>, _ pattern: StaticString, _ from: Int, _ to: Int) -> Int? {
        let m = pattern.utf8CodeUnitCount
        guard m >= 2, to - from >= m, let base = b.baseAddress else { return nil }
        let p = pattern.utf8Start
        let second = Int32(p[1])
        var i = from + 1
        let last = to - m + 1  // the last index the second byte of a whole match can be at
        while i <= last {
            guard let hit = memchr(base + i, second, last - i + 1) else { return nil }
            let at = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit)) - 1
            if b[at] == p[0], memcmp(base + at + 2, p + 2, m - 2) == 0 { return at + m }
            i = at + 2
        }
        return nil
    }

    @inline(__always)
    static func hasPrefix(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int, _ pattern: StaticString) -> Bool {
        let m = pattern.utf8CodeUnitCount
        guard to - from >= m, let base = b.baseAddress else { return false }
        return memcmp(base + from, pattern.utf8Start, m) == 0
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
