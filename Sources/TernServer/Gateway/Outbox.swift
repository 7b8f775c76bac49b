public import NIOCore
import NIOWebSocket
import Synchronization

/// The bounded outbound queue of one WebSocket connection, written straight into its NIO channel.
///
/// Producers (any thread fanning out a message) append encoded frames (`CMD4{…}\n`) to the
/// connection's pending bytes without waiting. The first frame that finds the outbox idle hands it
/// to its event loop's ``LoopFlusher``, which, on its next turn, writes every waiting outbox of that
/// loop: each as one WebSocket message (or a few, at the frame size limit) and one flush, so frames
/// produced in a burst share a write (BRIEF §7, "coalesce writes"). No task, continuation or actor
/// hop per recipient: one closure per event loop per burst.
///
/// While the channel is not writable (the peer does not read; NIO's buffer is past its high-water
/// mark) frames stay here, and past `limit` queued bytes the outbox closes itself and the
/// connection: the reader is too slow and is cut off rather than slowing the channel (guarantee
/// G6). An outbox without a channel only queues (a connection made up by a unit test).
public final class Outbox: Sendable {
    /// Why the outbox stopped.
    public enum CloseReason: Sendable, Equatable { case normal, overflow }

    struct State {
        /// Complete WebSocket messages waiting for the channel.
        var ready: [ByteBuffer] = []
        /// The message being filled; empty (no storage) while the connection is idle.
        var current = ByteBuffer()
        /// Bytes queued and not yet handed to the channel.
        var bytes = 0
        /// Handed to the flusher and not yet flushed.
        var scheduled = false
        var closed: CloseReason?
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
        var onClose: (@Sendable (CloseReason) -> Void)?
    }

    let state = Mutex(State())
    let limit: Int
    /// A server frame's header is at most 10 bytes.
    static let headroom = 10
    static let allocator = ByteBufferAllocator()
    /// Frames are grouped into WebSocket messages of at most this many bytes (a larger frame goes alone).
    let maxMessage: Int
    let channel: (any Channel)?
    let flusher: LoopFlusher?

    /// An outbox writing into `channel` through `flusher` (which must run on the channel's event loop).
    public init(limit: Int, maxMessage: Int = 1 << 20, channel: (any Channel)?, flusher: LoopFlusher?) {
        self.limit = limit
        self.maxMessage = maxMessage
        self.channel = channel
        self.flusher = flusher
    }

    /// An outbox that only queues (no connection behind it).
    public convenience init(limit: Int) {
        self.init(limit: limit, channel: nil, flusher: nil)
    }

    /// Queues one encoded frame. Returns false when the outbox is closed or has just overflowed.
    @discardableResult
    public func enqueue(_ frame: String) -> Bool {
        enqueue { buffer in buffer.writeString(frame) }
    }

    /// Queues one frame that `write` appends to the pending bytes (it must append exactly one whole
    /// frame). Returns false when the outbox is closed or has just overflowed.
    @discardableResult
    public func enqueue(_ write: (inout ByteBuffer) -> Void) -> Bool {
        enum Outcome { case queued, schedule, refused, overflow }
        let outcome = state.withLock { s -> Outcome in
            guard s.closed == nil else { return .refused }
            if s.current.readableBytes == 0 && s.current.readerIndex < Self.headroom {
                // Room in front for the WebSocket header: the encoder writes it in place (one
                // buffer per write, no header allocation).
                var b = Self.allocator.buffer(capacity: 1024)
                b.moveWriterIndex(forwardBy: Self.headroom)
                b.moveReaderIndex(forwardBy: Self.headroom)
                s.current = b
            }
            let before = s.current.readableBytes
            write(&s.current)
            let added = s.current.readableBytes - before
            if before > 0 && s.current.readableBytes > maxMessage {
                // The frame does not fit the message being filled: that one is complete, the frame
                // starts the next.
                s.ready.append(s.current.getSlice(at: s.current.readerIndex, length: before)!)
                s.current = s.current.getSlice(at: s.current.readerIndex + before, length: added)!
            }
            s.bytes += added
            if s.bytes > limit { return .overflow }
            if s.scheduled { return .queued }
            s.scheduled = true
            return .schedule
        }
        switch outcome {
        case .queued: return true
        case .schedule:
            flusher?.add(self)
            return true
        case .refused: return false
        case .overflow:
            close(.overflow)
            return false
        }
    }

    /// Runs on the channel's event loop: hands everything queued to the channel and flushes once.
    /// While the channel is not writable the bytes stay queued (``writabilityChanged()`` comes back).
    /// - Returns: the last write's future, when something was written and `promise` was asked for.
    @discardableResult
    func flushOnLoop(promise: Bool = false) -> EventLoopFuture<Void>? {
        guard let channel else { return nil }
        let messages = state.withLock { s -> [ByteBuffer] in
            s.scheduled = false
            guard s.closed != .overflow, channel.isWritable else { return [] }
            var out = s.ready
            s.ready = []
            if s.current.readableBytes > 0 {
                out.append(s.current)
                s.current = ByteBuffer()
            }
            s.bytes = 0
            return out
        }
        guard !messages.isEmpty else { return nil }
        var last: EventLoopPromise<Void>?
        for (i, m) in messages.enumerated() {
            if promise && i == messages.count - 1 { last = channel.eventLoop.makePromise() }
            channel.write(WebSocketFrame(fin: true, opcode: .text, data: m), promise: last)
        }
        channel.flush()
        return last?.futureResult
    }

    /// The channel became writable again (on its event loop): write what waited.
    func writabilityChanged() {
        guard channel?.isWritable == true else { return }
        flushOnLoop()
    }

    /// Stops accepting frames. After an overflow the queued bytes are dropped (the connection
    /// closes them away).
    public func close(_ reason: CloseReason = .normal) {
        let (closeWaiters, handler) = state.withLock { s -> ([CheckedContinuation<Void, Never>], (@Sendable (CloseReason) -> Void)?) in
            var handler: (@Sendable (CloseReason) -> Void)?
            if s.closed == nil {
                s.closed = reason
                handler = s.onClose
                s.onClose = nil
            }
            if reason == .overflow {
                s.ready = []
                s.current = ByteBuffer()
                s.bytes = 0
            }
            let cw = s.closeWaiters
            s.closeWaiters = []
            return (cw, handler)
        }
        for c in closeWaiters { c.resume() }
        handler?(reason)
    }

    /// Calls `body` once, when the outbox closes (at once if it has).
    public func onClose(_ body: @escaping @Sendable (CloseReason) -> Void) {
        let closed = state.withLock { s -> CloseReason? in
            if let c = s.closed { return c }
            s.onClose = body
            return nil
        }
        if let closed { body(closed) }
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

    /// Bytes queued and not yet handed to the channel.
    public var queuedBytes: Int { state.withLock { $0.bytes } }
}

/// Writes the waiting outboxes of one event loop in one job per burst.
///
/// With `coalescing` above zero, a loop that has just flushed waits that long before the next
/// round, so frames arriving meanwhile share a write; the first frame after a quiet spell still
/// goes at once (tern-bench, docs/benchmarks.md).
public final class LoopFlusher: Sendable {
    let loop: any EventLoop
    let coalescing: TimeAmount

    struct State {
        var waiting: [Outbox] = []
        var scheduled = false
        var quietUntil = NIODeadline.uptimeNanoseconds(0)
    }
    let state = Mutex(State())

    public init(loop: any EventLoop, coalescing: TimeAmount) {
        self.loop = loop
        self.coalescing = coalescing
    }

    func add(_ outbox: Outbox) {
        let start = state.withLock { s -> NIODeadline? in
            s.waiting.append(outbox)
            if s.scheduled { return nil }
            s.scheduled = true
            return s.quietUntil
        }
        guard let start else { return }
        if coalescing == .zero || start <= .now() {
            loop.execute { self.run() }
        } else {
            loop.scheduleTask(deadline: start) { self.run() }
        }
    }

    /// On the loop: flushes every outbox that waited.
    func run() {
        let waiting = state.withLock { s -> [Outbox] in
            let w = s.waiting
            s.waiting.removeAll(keepingCapacity: true)
            s.scheduled = false
            if coalescing > .zero { s.quietUntil = .now() + coalescing }
            return w
        }
        for o in waiting { o.flushOnLoop() }
    }
}
