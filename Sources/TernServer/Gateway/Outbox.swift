import Synchronization

/// The bounded outbound queue of one WebSocket connection.
///
/// Producers (any task fanning out a message) append encoded frames without waiting; the
/// connection's writer task takes everything queued at once and writes it as one WebSocket
/// message, so frames produced in a burst share a write (BRIEF §7, "coalesce writes"). Past
/// `limit` queued bytes the outbox closes itself: the reader is too slow and is cut off rather
/// than slowing the channel (guarantee G6).
public final class Outbox: Sendable {
    /// Why the outbox stopped.
    public enum CloseReason: Sendable, Equatable { case normal, overflow }

    struct State {
        var frames: [String] = []
        var bytes = 0
        var closed: CloseReason?
        var waiter: CheckedContinuation<Void, Never>?
    }

    let state = Mutex(State())
    let limit: Int

    public init(limit: Int) { self.limit = limit }

    /// Queues one encoded frame (`CMD4{…}\n`). Returns false when the outbox is closed or overflowed.
    @discardableResult
    public func enqueue(_ frame: String) -> Bool {
        let waiter: CheckedContinuation<Void, Never>?
        let accepted: Bool
        (accepted, waiter) = state.withLock { s -> (Bool, CheckedContinuation<Void, Never>?) in
            guard s.closed == nil else { return (false, nil) }
            s.bytes += frame.utf8.count
            if s.bytes > limit {
                s.closed = .overflow
                s.frames.removeAll()
                let w = s.waiter
                s.waiter = nil
                return (false, w)
            }
            s.frames.append(frame)
            let w = s.waiter
            s.waiter = nil
            return (true, w)
        }
        waiter?.resume()
        return accepted
    }

    /// Waits for frames and takes all of them; nil once closed (queued frames are still handed out
    /// after a normal close, never after an overflow).
    public func next() async -> [String]? {
        while true {
            let taken: [String]? = state.withLock { s in
                if !s.frames.isEmpty {
                    let f = s.frames
                    s.frames.removeAll(keepingCapacity: true)
                    s.bytes = 0
                    return f
                }
                return nil
            }
            if let taken { return taken }
            let isClosed = state.withLock { $0.closed != nil }
            if isClosed { return nil }
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s -> Bool in
                    if !s.frames.isEmpty || s.closed != nil { return true }
                    s.waiter = c
                    return false
                }
                if resumeNow { c.resume() }
            }
        }
    }

    /// Stops accepting frames and wakes the writer.
    public func close(_ reason: CloseReason = .normal) {
        let w = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if s.closed == nil { s.closed = reason }
            if reason == .overflow { s.frames.removeAll() }
            let w = s.waiter
            s.waiter = nil
            return w
        }
        w?.resume()
    }

    /// Why the outbox closed, if it has.
    public var closeReason: CloseReason? { state.withLock { $0.closed } }
}
