import Foundation
import HTTPTypes
public import Logging
import NIOCore
import NIOPosix
public import NIOSSL
import NIOWebSocket
import Synchronization
public import TernProtocol

/// What one WebSocket reports, in order.
public enum TransportEvent: Sendable {
    case opened
    case frames([Frame])
    /// The socket is gone (or never came up); the error says why.
    case closed(SendbirdError)
}

/// One WebSocket to the server. Frames queued with ``send(_:)`` are written together as one
/// WebSocket message when several are waiting (batching out); a message holding several frames
/// is split into frames (batching in). Not reused: a reconnect opens a new one.
///
/// What the socket reports goes, in order, to the `onEvent` given at init, on the socket's event
/// loop (`home`'s): a message read is decoded and handed on in the same call, with no queue and no
/// task between the socket and the engine (issue 36: three queues per frame, NIO's async channel,
/// WSCore's inbound stream and an `AsyncStream`, were a tenth of tern's CPU per line). Without an
/// `onEvent`, the events arrive on ``events``.
public final class WebSocketConnection: Sendable {
    struct State {
        var queued: [Frame] = []
        /// ``close()`` or ``abort()`` was called.
        var closing = false
        var flushScheduled = false
        /// Set on the loop once the upgrade is done and writes may go (``ready(_:)``).
        var channel: (any Channel)?
        var sentClose = false
    }

    /// The events, when no `onEvent` was given at init (it finishes at once when one was).
    public let events: AsyncStream<TransportEvent>
    /// Socket reads on the `home` loop's thread, and elsewhere (a frame that crossed threads to reach
    /// the engine); counted only when a home is given.
    let reads = ReadCounts()

    final class ReadCounts: Sendable {
        let onHome = Atomic<Int>(0)
        let elsewhere = Atomic<Int>(0)

        func count(onHome here: Bool) {
            if here { onHome.add(1, ordering: .relaxed) } else { elsewhere.add(1, ordering: .relaxed) }
        }

        var counts: (onHome: Int, elsewhere: Int) { (onHome.load(ordering: .relaxed), elsewhere.load(ordering: .relaxed)) }
    }

    private let state = Locked(State())
    let loop: any EventLoop
    let home: ClientLoop?
    private let delivery: Delivery
    private let dialing = Locked<Task<Void, Never>?>(nil)

    public static let maxMessageSize = FrameCodec.maxMessageSize
    /// How long a close handshake may take before the socket is dropped.
    static let closeTimeout = TimeAmount.seconds(2)

    /// Starts connecting to `url` with `headers` (credentials travel as `SENDBIRD-WS-TOKEN` / `SENDBIRD-WS-AUTH`).
    /// A `wss://` URL uses `tls` (nil: the system's trust roots); the server's certificate is always verified.
    /// `home`: the event loop the socket runs on and `onEvent` is called on (nil: a loop of the shared group).
    public init(
        url: String, headers: [String: String], tls: TLSConfiguration? = nil, logger: Logger, home: ClientLoop? = nil,
        onEvent: (@Sendable (TransportEvent) -> Void)? = nil
    ) {
        let (events, stream) = AsyncStream<TransportEvent>.makeStream()
        self.events = events
        self.home = home
        let loop = home?.loop ?? MultiThreadedEventLoopGroup.singleton.next()
        self.loop = loop
        if let onEvent {
            stream.finish()
            delivery = Delivery(loop: loop, sink: onEvent)
        } else {
            delivery = Delivery(loop: loop) { event in
                stream.yield(event)
                if case .closed = event { stream.finish() }
            }
        }
        var fields = HTTPFields()
        for (k, v) in headers { if let name = HTTPField.Name(k) { fields[name] = v } }
        var options = WebSocketDialer.Options(maxFrameSize: Self.maxMessageSize, headers: fields)
        if let name = Self.tlsServerName(url) { options.sniHostname = name }
        let dialOptions = options
        let task = Task(executorPreference: home?.tasks) { [self] in
            do {
                let channel = try await WebSocketDialer.dial(url: url, options: dialOptions, tls: tls, eventLoopGroup: loop) { channel in
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(
                        NIOWebSocketFrameAggregator(
                            minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 16, maxAccumulatedFrameSize: Self.maxMessageSize))
                    try sync.addHandler(SocketHandler(connection: self))
                    return channel
                }
                loop.execute { self.ready(channel) }
            } catch {
                let reason = SendbirdError(
                    .webSocketConnectionFailed, "cannot connect to \(Self.origin(of: url)): \(Self.describe(error))")
                loop.execute { self.delivery.deliver(.closed(reason)) }
            }
        }
        dialing.value = task
        logger.trace("dialing \(Self.origin(of: url))")
    }

    /// Queues frames for the next write.
    public func send(_ frames: [Frame]) {
        guard !frames.isEmpty else { return }
        let flush = state.withLock { s -> Bool in
            if s.closing { return false }
            s.queued += frames
            return s.claimFlush()
        }
        if flush { loop.execute { self.flush() } }
    }

    /// Sends what is queued, then a close frame; the socket ends when the server has closed it, or
    /// soon after (3 s at the most, dialing included).
    public func close() {
        let flush = state.withLock { s -> Bool in
            s.closing = true
            return s.claimFlush()
        }
        if flush { loop.execute { self.flush() } }
        loop.scheduleTask(in: .seconds(3)) { self.drop() }
    }

    /// Drops the socket at once, without a close handshake.
    public func abort() {
        state.withLock { $0.closing = true }
        loop.execute { self.drop() }
    }

    /// On the loop: the upgrade is done; what was queued meanwhile goes.
    func ready(_ channel: any Channel) {
        let go = state.withLock { s -> Bool in
            s.channel = channel
            return s.claimFlush()
        }
        if go { flush() }
    }

    /// On the loop: writes what is queued as one message, and the close frame once closing.
    func flush() {
        let (batch, close, channel) = state.withLock { s -> ([Frame], Bool, (any Channel)?) in
            s.flushScheduled = false
            let batch = s.queued
            s.queued = []
            let close = s.closing && !s.sentClose && s.channel != nil
            if close { s.sentClose = true }
            return (batch, close, s.channel)
        }
        guard let channel, channel.isActive else { return }
        if !batch.isEmpty {
            let data = channel.allocator.buffer(string: FrameCodec.encode(batch))
            channel.write(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: data), promise: nil)
        }
        if close { Self.writeClose(.normalClosure, on: channel) }
        channel.flush()
    }

    /// On the loop: the socket is closed without a word, or the dial given up.
    func drop() {
        let channel = state.withLock { s -> (any Channel)? in
            s.closing = true
            return s.channel
        }
        dialing.value?.cancel()
        channel?.close(promise: nil)
    }

    /// On the loop: a close frame with `code` (flushed by the caller), and the socket closed if the
    /// server has not closed it within ``closeTimeout``.
    static func writeClose(_ code: WebSocketErrorCode, on channel: any Channel) {
        var data = channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        channel.write(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data), promise: nil)
        channel.eventLoop.scheduleTask(in: closeTimeout) { channel.close(promise: nil) }
    }

    /// The handler's side: a close frame is about to be sent (false: one already was).
    func claimClose() -> Bool {
        state.withLock { s in
            defer { s.sentClose = true }
            return !s.sentClose
        }
    }

    /// The socket's handling on its event loop, after the upgrade: each message is decoded and handed
    /// on at once; pings answered; the close handshake; the end of the socket reported once, with why.
    final class SocketHandler: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = WebSocketFrame
        typealias OutboundOut = WebSocketFrame

        let connection: WebSocketConnection
        /// The status code of the server's close frame.
        var serverClose: WebSocketErrorCode?
        var failure: (any Error)?

        init(connection: WebSocketConnection) { self.connection = connection }

        func handlerAdded(context: ChannelHandlerContext) {
            connection.delivery.deliver(.opened)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = unwrapInboundIn(data)
            switch frame.opcode {
            case .text, .binary:
                let frames = FrameCodec.decode(Array(frame.unmaskedData.readableBytesView)).compactMap { try? $0.get() }
                if let home = connection.home { connection.reads.count(onHome: home.loop.inEventLoop) }
                if !frames.isEmpty { connection.delivery.deliver(.frames(frames)) }
            case .ping where frame.fin:
                context.writeAndFlush(
                    wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)), promise: nil)
            case .connectionClose:
                var data = frame.unmaskedData
                let code = data.readWebSocketErrorCode() ?? .normalClosure
                serverClose = code
                // Answered with the same code; the server then closes the socket.
                if connection.claimClose() {
                    WebSocketConnection.writeClose(code, on: context.channel)
                    context.flush()
                }
            default:
                break
            }
        }

        /// The socket is half-closable (the upgrade needs it); the server's end of the stream ends it.
        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let e = event as? NIOCore.ChannelEvent, e == .inputClosed {
                context.close(promise: nil)
                return
            }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            if failure == nil { failure = error }
            if case .accumulatedFrameSizeIsTooLarge? = error as? NIOWebSocketFrameAggregator.Error, connection.claimClose() {
                WebSocketConnection.writeClose(.messageTooLarge, on: context.channel)
                context.flush()
                return
            }
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            // A close frame from the server says why, whatever the socket did after it (a reset
            // answering the client's close frame, say).
            let reason =
                if let code = serverClose, code != .normalClosure {
                    SendbirdError(.webSocketConnectionClosed, "the server closed the connection (\(code))")
                } else if let failure, serverClose == nil {
                    SendbirdError(.webSocketConnectionClosed, "connection lost: \(failure)")
                } else {
                    SendbirdError(.webSocketConnectionClosed, "the server closed the connection")
                }
            connection.delivery.deliver(.closed(reason))
            context.fireChannelInactive()
        }
    }

    /// Hands the events on in order, on the loop. An event raised while one is being handed on (the
    /// engine closing the socket from inside its handling) waits for it; nothing follows `.closed`.
    final class Delivery: @unchecked Sendable {
        let loop: any EventLoop
        let sink: @Sendable (TransportEvent) -> Void
        // On the loop only.
        private var pending: [TransportEvent] = []
        private var busy = false
        private var ended = false

        init(loop: any EventLoop, sink: @escaping @Sendable (TransportEvent) -> Void) {
            self.loop = loop
            self.sink = sink
        }

        func deliver(_ event: TransportEvent) {
            loop.assertInEventLoop()
            guard !ended else { return }
            if case .closed = event { ended = true }
            pending.append(event)
            guard !busy else { return }
            busy = true
            var next = 0
            while next < pending.count {
                sink(pending[next])
                next += 1
            }
            pending.removeAll(keepingCapacity: true)
            busy = false
        }
    }

    /// The TLS server name for a `wss://` URL whose host is an IP address (nil for any other URL).
    /// `WebSocketDialer` (as WSClient) hands the URL's host to NIOSSL as the server name, and NIOSSL refuses an IP address
    /// there (SNI carries host names only), so `wss://127.0.0.1:PORT` could never connect. Written
    /// with a trailing dot the address is no longer taken for one; the verification is as strict:
    /// NIOSSL still checks the certificate's chain, and matches its IP-address names against the
    /// address actually connected to (the one in the URL).
    static func tlsServerName(_ url: String) -> String? {
        guard let u = URL(string: url), u.scheme?.lowercased() == "wss", var host = u.host, !host.isEmpty else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        var v4 = in_addr()
        var v6 = in6_addr()
        let isAddress = host.withCString { inet_pton(AF_INET, $0, &v4) == 1 || inet_pton(AF_INET6, $0, &v6) == 1 }
        return isAddress ? host + "." : nil
    }

    static func origin(of url: String) -> String {
        guard let u = URL(string: url), let host = u.host else { return url }
        return "\(u.scheme ?? "ws")://\(host)\(u.port.map { ":\($0)" } ?? "")"
    }

    static func describe(_ error: any Error) -> String { TransportError.describe(error) }
}

extension WebSocketConnection.State {
    /// Claims the one flush that may be pending (false: one is scheduled already, or the socket is
    /// not up yet: ``WebSocketConnection/ready(_:)`` flushes then).
    mutating func claimFlush() -> Bool {
        guard !flushScheduled, channel != nil else { return false }
        flushScheduled = true
        return true
    }
}
