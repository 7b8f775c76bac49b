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
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    let state = Mutex(State())
    let limit: Int

    public init(limit: Int) { self.limit = limit }

    /// Queues one encoded frame (`CMD4{…}\n`). Returns false when the outbox is closed or overflowed.
    @discardableResult
    public func enqueue(_ frame: String) -> Bool {
        let overflowed = state.withLock { s -> Bool? in
            guard s.closed == nil else { return nil }
            s.bytes += frame.utf8.count
            return s.bytes > limit
        }
        switch overflowed {
        case nil:
            return false
        case true?:
            close(.overflow)
            return false
        case false?:
            let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
                guard s.closed == nil else { return nil }
                s.frames.append(frame)
                let w = s.waiter
                s.waiter = nil
                return w
            }
            waiter?.resume()
            return true
        }
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
        let (w, closeWaiters) = state.withLock { s -> (CheckedContinuation<Void, Never>?, [CheckedContinuation<Void, Never>]) in
            if s.closed == nil { s.closed = reason }
            if reason == .overflow { s.frames.removeAll() }
            let w = s.waiter
            s.waiter = nil
            let cw = s.closeWaiters
            s.closeWaiters = []
            return (w, cw)
        }
        w?.resume()
        for c in closeWaiters { c.resume() }
    }

    /// Returns once the outbox is closed (normally or by an overflow).
    public func waitClosed() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.closed != nil { return true }
                s.closeWaiters.append(c)
                return false
            }
            if now { c.resume() }
        }
    }

    /// Why the outbox closed, if it has.
    public var closeReason: CloseReason? { state.withLock { $0.closed } }
}
