import Foundation
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
public import NIOSSL
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

// What stands between a socket and the HTTP/WebSocket stack (issue 17 §3, §7): a deadline for the
// first request head (idle and slowloris sockets), admission control that keeps a reserve of
// file descriptors and evicts the oldest unfinished handshake rather than turning a real user
// away, a closing handler that lets a close frame (1009) reach the peer before the socket goes,
// and TLS. Hummingbird adds its own timeout only after the first request is known not to be an
// upgrade, so nothing else guards the time before it.

/// Admission control, done when a connection is accepted. At most `maxTotal` connections are open
/// (the descriptor limit less a reserve for the database, uploads and logs) and at most `maxPerIP`
/// from one address (0: no per-address cap). At the cap, the oldest connection that has not yet
/// sent a complete request head is closed to make room; when there is none, the new connection is
/// closed at once (the peer sees EOF, not a hang in the listen backlog).
public final class ConnectionGate: Sendable {
    struct RejectedError: Error {}

    struct Pending {
        var seq: Int
        var channel: any Channel
    }

    struct State {
        var total = 0
        var perIP: [String: Int] = [:]
        var pending: [ObjectIdentifier: Pending] = [:]
        var queue: [(id: ObjectIdentifier, seq: Int)] = []
        var head = 0
        var seq = 0
        var evicted = 0
        var refused = 0
    }

    let state = Mutex(State())
    public let maxTotal: Int
    public let maxPerIP: Int

    public init(maxTotal: Int, maxPerIP: Int) {
        self.maxTotal = max(1, maxTotal)
        self.maxPerIP = maxPerIP
    }

    /// Open connections, and how many were evicted or refused so far.
    public var counts: (open: Int, evicted: Int, refused: Int) {
        state.withLock { ($0.total, $0.evicted, $0.refused) }
    }

    /// Admits `channel` (true) or closes it (false).
    func admit(_ channel: any Channel) -> Bool {
        let ip = channel.remoteAddress?.ipAddress ?? "?"
        let id = ObjectIdentifier(channel)
        let maxPerIP = self.maxPerIP
        let maxTotal = self.maxTotal
        let (admitted, victim) = state.withLock { s -> (Bool, (any Channel)?) in
            if maxPerIP > 0 && s.perIP[ip, default: 0] >= maxPerIP {
                s.refused += 1
                return (false, nil)
            }
            var victim: (any Channel)?
            if s.total >= maxTotal {
                while s.head < s.queue.count {
                    let candidate = s.queue[s.head]
                    s.head += 1
                    if let p = s.pending[candidate.id], p.seq == candidate.seq {
                        s.pending[candidate.id] = nil
                        victim = p.channel
                        break
                    }
                }
                guard victim != nil else {
                    s.refused += 1
                    return (false, nil)
                }
                s.evicted += 1
            }
            if s.head > 1024 && s.head * 2 > s.queue.count {
                s.queue.removeFirst(s.head)
                s.head = 0
            }
            s.total += 1
            s.perIP[ip, default: 0] += 1
            s.seq += 1
            s.pending[id] = Pending(seq: s.seq, channel: channel)
            s.queue.append((id, s.seq))
            return (true, victim)
        }
        if let victim { Self.reap(victim) }
        guard admitted else {
            channel.close(promise: nil)
            return false
        }
        channel.closeFuture.whenComplete { _ in
            self.state.withLock { s in
                s.total -= 1
                let n = s.perIP[ip, default: 1] - 1
                s.perIP[ip] = n <= 0 ? nil : n
                s.pending[id] = nil
            }
        }
        return true
    }

    /// The connection sent a complete request head: it is no longer the first to go at the cap.
    func headCompleted(_ channel: any Channel) {
        _ = state.withLock { $0.pending.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Closes a connection that never finished its request head. `inputClosed` first, so that
    /// NIO's upgrade handler ends quietly (a bare close is logged as an error by Hummingbird).
    static func reap(_ channel: any Channel) {
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        channel.close(promise: nil)
    }

    /// Descriptors the process has open now (0 where `/proc/self/fd` cannot be read).
    public static func openDescriptorCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    /// Raises the soft limit on open files to the hard one; returns the soft limit in force.
    public static func raiseOpenFileLimit() -> Int {
        var rl = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &rl) == 0 else { return 1024 }
        if rl.rlim_cur < rl.rlim_max {
            var raised = rl
            raised.rlim_cur = rl.rlim_max
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { rl = raised }
        }
        return rl.rlim_cur > UInt(Int.max) ? Int.max : Int(rl.rlim_cur)
    }
}

/// Closes a connection whose first request head (the bytes up to the first CRLFCRLF) has not
/// arrived within `timeout` of the connection opening: a socket that sends nothing, half a head,
/// or a head a byte at a time. Reads plaintext (after TLS, before the HTTP decoder), and removes
/// itself once the head is complete, so request bodies and WebSocket traffic never pass it.
final class RequestHeadDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let timeout: TimeAmount
    private let gate: ConnectionGate?
    private let lingering: LingeringCloseHandler?
    private var timer: Scheduled<Void>?
    private var tail: UInt32 = 0
    private var done = false

    init(timeout: TimeAmount, gate: ConnectionGate?, lingering: LingeringCloseHandler?) {
        self.timeout = timeout
        self.gate = gate
        self.lingering = lingering
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !done {
            let buffer = Self.unwrapInboundIn(data)
            for byte in buffer.readableBytesView {
                tail = (tail << 8) | UInt32(byte)
                if tail == 0x0D0A_0D0A {
                    done = true
                    break
                }
            }
        }
        context.fireChannelRead(data)
        if done {
            timer?.cancel()
            timer = nil
            gate?.headCompleted(context.channel)
            // From here a close lets what was written reach the peer first.
            lingering?.lingerOnClose = true
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    private func arm(_ context: ChannelHandlerContext) {
        guard timer == nil, !done else { return }
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: timeout) {
            let (handler, context) = bound.value
            handler.timer = nil
            guard !handler.done else { return }
            context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            context.close(promise: nil)
        }
    }
}

/// A close that lets the peer read what was written: the output is shut down once every pending
/// write is out (FIN after, say, a WebSocket close frame 1009), input is read and dropped until
/// the peer closes, `lingerTime` passes or `maxDiscard` bytes were dropped, and only then is the
/// socket closed. Closing a socket with unread input makes the kernel send RST, and a peer that
/// sees RST may drop the close frame it had not read yet. First in the pipeline. Off until the
/// request head is complete (idle and refused connections close at once).
final class LingeringCloseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum Phase { case open, lingering, closed }
    private var phase = Phase.open
    private var timer: Scheduled<Void>?
    private var discarded = 0
    private var closePromise: EventLoopPromise<Void>?
    private let lingerTime: TimeAmount
    private let maxDiscard: Int
    var lingerOnClose = false

    init(lingerTime: TimeAmount = .seconds(2), maxDiscard: Int = 1 << 20) {
        self.lingerTime = lingerTime
        self.maxDiscard = maxDiscard
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all, lingerOnClose, case .open = phase, context.channel.isActive else {
            if case .lingering = phase, mode == .all {
                if let promise { closePromise?.futureResult.cascade(to: promise) }
                return
            }
            context.close(mode: mode, promise: promise)
            return
        }
        phase = .lingering
        closePromise = promise ?? context.eventLoop.makePromise()
        context.close(mode: .output, promise: nil)
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: lingerTime) {
            let (handler, context) = bound.value
            handler.finish(context)
        }
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch phase {
        case .open:
            context.fireChannelRead(data)
        case .lingering:
            discarded += Self.unwrapInboundIn(data).readableBytes
            if discarded > maxDiscard { finish(context) }
        case .closed:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if case .lingering = phase { context.read() } else { context.fireChannelReadComplete() }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .lingering = phase {
            if let e = event as? ChannelEvent, e == .inputClosed { finish(context) }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if case .lingering = phase {
            finish(context)
            return
        }
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        if case .lingering = phase {
            phase = .closed
            closePromise?.succeed(())
            closePromise = nil
        }
        context.fireChannelInactive()
    }

    private func finish(_ context: ChannelHandlerContext) {
        guard case .lingering = phase else { return }
        phase = .closed
        timer?.cancel()
        timer = nil
        let promise = closePromise
        closePromise = nil
        context.close(mode: .all, promise: promise)
    }
}

/// Until NIO's upgrade handler has decided between a WebSocket and plain HTTP, nothing handles a
/// request that does not parse (garbage, a head over the size limit): the socket would stay open.
/// This closes it; after the decision Hummingbird's own handling (400 and close) takes over.
final class PreUpgradeParseErrorHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        context.fireUserInboundEventTriggered(event)
        if event is HTTPServerUpgradeEvents {
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError {
            context.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            context.close(promise: nil)
            return
        }
        context.fireErrorCaught(error)
    }
}

/// Wraps the HTTP/WebSocket child channel with the guards above, and TLS when configured:
/// lingering close (raw TCP) → TLS → request-head deadline → the wrapped pipeline.
struct GuardedChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let headTimeout: TimeAmount
    let sslContext: NIOSSLContext?
    let gate: ConnectionGate?

    init(_ base: Base, headTimeout: TimeAmount, sslContext: NIOSSLContext?, gate: ConnectionGate?) {
        self.base = base
        self.headTimeout = headTimeout
        self.sslContext = sslContext
        self.gate = gate
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        if let gate, !gate.admit(channel) {
            // A failed setup makes NIO drop the connection without handing it on (no log line).
            return channel.eventLoop.makeFailedFuture(ConnectionGate.RejectedError())
        }
        return channel.eventLoop.makeCompletedFuture {
            let ops = channel.pipeline.syncOperations
            let lingering = LingeringCloseHandler()
            try ops.addHandler(lingering)
            if let sslContext { try ops.addHandler(NIOSSLServerHandler(context: sslContext)) }
            try ops.addHandler(RequestHeadDeadlineHandler(timeout: headTimeout, gate: gate, lingering: lingering))
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }.flatMapThrowing { value in
            try channel.pipeline.syncOperations.addHandler(PreUpgradeParseErrorHandler())
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Loads `--tls-cert` / `--tls-key` (PEM) into a server TLS context.
public enum ServerTLS {
    public static func context(certificatePath: String, keyPath: String) throws -> NIOSSLContext {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
        } catch {
            throw ServerStartError("cannot read the TLS certificate \(certificatePath): \(error)")
        }
        do {
            key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        } catch {
            throw ServerStartError("cannot read the TLS key \(keyPath): \(error)")
        }
        if chain.isEmpty { throw ServerStartError("no certificate in \(certificatePath)") }
        let config = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        return try NIOSSLContext(configuration: config)
    }
}
