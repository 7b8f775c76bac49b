import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// Where the server's WebSocket endpoint is: `ws://HOST:PORT/?ai=APP&user_id=U`.
struct WebSocketTarget: Sendable {
    let host: String
    let port: Int
    let appId: String

    func uri(userId: String) -> String { "/?ai=\(appId)&user_id=\(userId)" }
}

/// Opens WebSockets with NIO channel handlers: TCP connect, the HTTP/1.1 upgrade (no subprotocol
/// offered), then `makeHandler()`'s handler alone on the pipeline, receiving `WebSocketFrame`s on
/// the channel's event loop. Nothing here hops to a task: a frame is handled where it is read.
enum WebSocketConnector {
    /// Largest WebSocket frame accepted from the server.
    static let maxFrameSize = 1 << 20

    /// Connects on `loop`. The returned future completes with the channel once TCP is up; the
    /// handler reports the login itself. `upgradeFailed` is told why when the upgrade is refused.
    static func connect(
        on loop: any EventLoop, target: WebSocketTarget, userId: String,
        upgradeFailed: @escaping @Sendable (any Error) -> Void,
        makeHandler: @escaping @Sendable () -> any ChannelHandler
    ) -> EventLoopFuture<any Channel> {
        let uri = target.uri(userId: userId)
        let hostHeader = "\(target.host):\(target.port)"
        return ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOWebSocketClientUpgrader(maxFrameSize: maxFrameSize) { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(makeHandler())
                        }
                    }
                    let upgrade: NIOHTTPClientUpgradeConfiguration = (
                        upgraders: [upgrader],
                        completionHandler: { context in context.pipeline.removeHandler(name: UpgradeRequest.name, promise: nil) }
                    )
                    // The server may send LOGI in the same read as its 101: keep the bytes after the response.
                    try channel.pipeline.syncOperations.addHTTPClientHandlers(leftOverBytesStrategy: .forwardBytes, withClientUpgrade: upgrade)
                    try channel.pipeline.syncOperations.addHandler(
                        UpgradeRequest(uri: uri, host: hostHeader, failed: upgradeFailed), name: UpgradeRequest.name)
                }
            }
            .connect(host: target.host, port: target.port)
    }

    /// Sends the upgrade's `GET` (the upgrader adds its headers) and closes the connection when
    /// the server answers anything but `101 Switching Protocols`.
    final class UpgradeRequest: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPClientResponsePart
        typealias OutboundOut = HTTPClientRequestPart
        static let name = "tern-bench.upgrade-request"

        let uri: String
        let host: String
        let failed: @Sendable (any Error) -> Void

        init(uri: String, host: String, failed: @escaping @Sendable (any Error) -> Void) {
            self.uri = uri
            self.host = host
            self.failed = failed
        }

        func channelActive(context: ChannelHandlerContext) {
            var headers = HTTPHeaders()
            headers.add(name: "Host", value: host)
            headers.add(name: "Content-Length", value: "0")
            context.write(wrapOutboundOut(.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: uri, headers: headers))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if case .head(let head) = unwrapInboundIn(data) {
                failed(BenchError(description: "WebSocket upgrade refused: HTTP \(head.status.code)"))
                context.close(promise: nil)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            failed(error)
            context.close(promise: nil)
        }
    }
}

/// One channel member's WebSocket as the coordinator holds it. Its ``MemberHandler`` lives on the
/// channel's event loop; the coordinator reaches it only through that loop.
struct MemberConnection: Sendable {
    let member: Int
    let channel: any Channel

    /// Connects, logs in and (open channels) enters. The future completes when the member is
    /// ready to send and receive: after `LOGI`, or after the `ENTR` acknowledgement.
    static func open(member: Int, userId: String, target: WebSocketTarget, run: RunState, on loop: any EventLoop)
        -> EventLoopFuture<MemberConnection>
    {
        let ready = loop.makePromise(of: Void.self)
        let connected = WebSocketConnector.connect(
            on: loop, target: target, userId: userId, upgradeFailed: { ready.fail($0) },
            makeHandler: { MemberHandler(member: member, run: run, ready: ready) })
        connected.whenFailure { ready.fail($0) }
        connected.whenSuccess { channel in
            channel.closeFuture.whenComplete { _ in ready.fail(BenchError(description: "closed before it was ready")) }
        }
        return connected.and(ready.futureResult).map { channel, _ in MemberConnection(member: member, channel: channel) }
    }

    /// Starts the schedule (`start`: absolute `Mono.now()` ns); a sender arms its first timer.
    func begin(start: UInt64) {
        let channel = channel
        channel.eventLoop.execute {
            try? channel.pipeline.syncOperations.handler(type: MemberHandler.self).begin(start: start)
        }
    }

    /// Stops recording and sending, hands back what the member saw, and closes the socket.
    func finish() -> EventLoopFuture<ReceiverLog> {
        let channel = channel
        return channel.eventLoop.submit {
            let log = try channel.pipeline.syncOperations.handler(type: MemberHandler.self).finish()
            channel.close(promise: nil)
            return log
        }
    }
}

/// The receive and send side of one member, on its channel's event loop. Every frame is scanned
/// where it is read, into this member's own ``ReceiverLog`` (no lock, no task); the run-wide
/// counters get one atomic add per socket read. A sender writes each message from a timer on the
/// same loop when it falls due.
final class MemberHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    enum Phase {
        /// Waiting for `LOGI`.
        case loggingIn
        /// Open channels: `ENTR` sent, waiting for its acknowledgement.
        case entering
        /// Logged in (and entered): recording.
        case ready
        /// The coordinator took the log: nothing more is recorded or sent, and a close is expected.
        case finished
    }

    let member: Int
    let run: RunState
    let schedule: Schedule
    let ready: EventLoopPromise<Void>
    var phase = Phase.loggingIn
    var log: ReceiverLog
    /// Totals not yet added to the run-wide counters (flushed at the end of each socket read).
    var counts = ReceiverLog.Counts()
    /// The start of the schedule; 0 until ``begin(start:)``.
    var start: UInt64 = 0
    /// A text message whose later fragments (continuation frames) have not all arrived.
    var partial: ByteBuffer?
    var context: ChannelHandlerContext?

    // Sending (the first `schedule.senders` members only).
    let sendCount: Int
    var nextSeq = 0
    var timer: Scheduled<Void>?
    /// `MESG{"channel_url":"…","message":"` — every frame this member sends starts with it.
    let framePrefix: String

    init(member: Int, run: RunState, ready: EventLoopPromise<Void>) {
        self.member = member
        self.run = run
        self.schedule = run.schedule
        self.ready = ready
        log = ReceiverLog(member: member, schedule: run.schedule)
        sendCount = member < run.schedule.senders ? run.schedule.count(sender: member) : 0
        framePrefix = #"MESG{"channel_url":"\#(run.channelUrl)","message":""#
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            if frame.fin {
                received(frame.data)
            } else {
                partial = frame.data
            }
        case .continuation:
            guard partial != nil else { return }
            var more = frame.data
            partial!.writeBuffer(&more)
            if frame.fin, let whole = partial {
                partial = nil
                received(whole)
            }
        case .ping:
            context.writeAndFlush(
                wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)), promise: nil)
        case .connectionClose:
            if phase != .finished { failed("the server closed the WebSocket") }
            context.close(promise: nil)
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushCounts()
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        if phase != .finished { failed("connection closed") }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if phase != .finished { failed("\(error)") }
        context.close(promise: nil)
    }

    /// Scans one complete text message (one or more `CMD4{json}\n` lines).
    func received(_ buffer: ByteBuffer) {
        guard phase != .finished else { return }
        let now = Mono.now()
        buffer.withUnsafeReadableBytes { bytes in
            FrameScanner.scan(bytes) { event in
                switch (event, phase) {
                case (.login(let ok), .loggingIn):
                    guard ok else {
                        failed("login refused: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
                        context?.close(promise: nil)
                        return
                    }
                    if run.channelType == .open {
                        phase = .entering
                        write(#"ENTR{"channel_url":"\#(run.channelUrl)","req_id":"enter-\#(member)"}"# + "\n")
                    } else {
                        phase = .ready
                        ready.succeed()
                    }
                case (.entered, .entering):
                    phase = .ready
                    ready.succeed()
                case (.error(let code), .entering):
                    failed("ENTR refused with code \(code): \(String(decoding: bytes.prefix(200), as: UTF8.self))")
                    context?.close(promise: nil)
                case (_, .ready):
                    log.record(event, now: now, start: start, schedule: schedule, into: &counts)
                default:
                    break
                }
            }
        }
    }

    func flushCounts() {
        if counts.delivered > 0 { run.delivered.add(counts.delivered, ordering: .relaxed) }
        if counts.acked > 0 { run.acked.add(counts.acked, ordering: .relaxed) }
        if counts.rejected > 0 { run.rejected.add(counts.rejected, ordering: .relaxed) }
        counts = ReceiverLog.Counts()
    }

    func failed(_ why: String) {
        if phase != .finished { run.fail("member \(member): \(why)") }
        ready.fail(BenchError(description: why))
        phase = .finished
        timer?.cancel()
    }

    /// Writes one client frame (masked, as RFC 6455 requires of clients) and flushes it.
    func write(_ text: String) {
        guard let context else { return }
        var buffer = context.channel.allocator.buffer(capacity: 14 + text.utf8.count)
        // Room in front for the frame header, so the encoder prepends it instead of writing a second buffer.
        buffer.moveWriterIndex(forwardBy: 14)
        buffer.moveReaderIndex(forwardBy: 14)
        buffer.writeString(text)
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: buffer)), promise: nil)
    }

    // MARK: Sending

    func begin(start: UInt64) {
        self.start = start
        if sendCount > 0 { sendDue() }
    }

    /// Sends every message that is due (a late one at once, still stamped with its due time: no
    /// coordinated omission), then arms a timer for the next one.
    func sendDue() {
        timer = nil
        guard phase == .ready, let context else { return }
        var now = Mono.now()
        while nextSeq < sendCount {
            let rel = schedule.due(sender: member, seq: nextSeq)
            let due = start + rel
            if due > now {
                timer = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(due - now))) { [self] in sendDue() }
                return
            }
            if schedule.isMeasured(rel) { log.senderLagUs.append(UInt32(clamping: (now - due) / 1000)) }
            let text = BenchText.make(sender: member, seq: nextSeq, scheduled: due, size: schedule.payloadBytes)
            write(framePrefix + text + #"","req_id":"\#(nextSeq)"}"# + "\n")
            run.sent.add(1, ordering: .relaxed)
            nextSeq += 1
            now = Mono.now()
        }
        run.sendersDone.add(1, ordering: .relaxed)
    }

    /// Ends the member's part in the run and returns its log.
    func finish() -> ReceiverLog {
        timer?.cancel()
        flushCounts()
        phase = .finished
        return log
    }
}

/// An idle connection of the ramp (`--ramp`): logs in, answers pings, and otherwise only notices
/// being closed. The server keeps it as it would any client that is online and quiet.
final class IdleHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    let ready: EventLoopPromise<Void>
    let ramp: RampState
    var loggedIn = false

    init(ready: EventLoopPromise<Void>, ramp: RampState) {
        self.ready = ready
        self.ramp = ramp
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text where !loggedIn:
            loggedIn = true
            var login = false
            frame.data.withUnsafeReadableBytes { bytes in
                FrameScanner.scan(bytes) { event in
                    if case .login(let ok) = event { login = ok }
                }
            }
            if login {
                ready.succeed()
            } else {
                ready.fail(BenchError(description: "login refused: \(String(buffer: frame.data).prefix(200))"))
                context.close(promise: nil)
            }
        case .ping:
            context.writeAndFlush(
                wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)), promise: nil)
        case .connectionClose:
            context.close(promise: nil)
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !ramp.closing.load(ordering: .relaxed) && loggedIn { ramp.dropped.add(1, ordering: .relaxed) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        ready.fail(error)
        context.close(promise: nil)
    }
}
