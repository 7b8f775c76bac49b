import FoundationEssentials
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket
import Synchronization
import TernProtocol

/// HTTP/1 with the Sendbird WebSocket endpoint at `/`: plain requests go to Hummingbird's router
/// (one task per connection while it serves requests); an upgraded WebSocket lives on NIO channel
/// handlers only (``WebSocketConnection``), with no task while it is idle, so that an idle
/// connection costs a few kilobytes (issue 19: 19,000 connections in one process).
struct GatewayChildChannel: ServerChildChannel, HTTPChannelHandler {
    enum Outcome: Sendable {
        case webSocket
        case http(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        case failedUpgrade(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
    }

    struct Value: ServerChildChannelValue {
        let outcome: EventLoopFuture<Outcome>
        let channel: any Channel
    }

    let responder: HTTPChannelHandler.Responder
    let gateway: WebSocketGateway
    let http1: HTTP1Channel.Configuration
    let maxFrameSize: Int

    init(responder: @escaping HTTPChannelHandler.Responder, gateway: WebSocketGateway, http1: HTTP1Channel.Configuration, maxFrameSize: Int) {
        self.responder = Self.redirectingUpgrades(responder)
        self.gateway = gateway
        self.http1 = http1
        self.maxFrameSize = maxFrameSize
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let attempted = NIOLoopBoundBox(false, eventLoop: channel.eventLoop)
            let gateway = self.gateway
            let maxFrameSize = self.maxFrameSize
            let upgrader = NIOTypedWebSocketServerUpgrader<Outcome>(
                maxFrameSize: maxFrameSize,
                shouldUpgrade: { channel, head in
                    attempted.value = true
                    // A server shutting down takes no new connection (400: the client tries again).
                    if gateway.service.isShuttingDown { return channel.eventLoop.makeSucceededFuture(nil) }
                    return channel.eventLoop.makeSucceededFuture(gateway.upgradeHeaders(head))
                },
                upgradePipelineHandler: { channel, head in
                    channel.eventLoop.makeCompletedFuture {
                        let ops = channel.pipeline.syncOperations
                        try ops.addHandler(
                            NIOWebSocketFrameAggregator(
                                minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 16, maxAccumulatedFrameSize: maxFrameSize))
                        try ops.addHandler(WebSocketConnection(gateway: gateway, handshake: WebSocketGateway.credentials(of: head)))
                        return .webSocket
                    }
                })
            let http1 = self.http1
            let upgrades = NIOTypedHTTPServerUpgradeConfiguration<Outcome>(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let ops = channel.pipeline.syncOperations
                        try ops.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                        try ops.addHandlers(http1.additionalChannelHandlers())
                        try ops.addHandler(HTTPConnectionStateHandler(idleTimeout: http1.idleTimeout.map { .init($0) }, logger: logger))
                        let asyncChannel = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                            wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
                        return attempted.value ? .failedUpgrade(asyncChannel) : .http(asyncChannel)
                    }
                })
            var config = NIOUpgradableHTTPServerPipelineConfiguration<Outcome>(upgradeConfiguration: upgrades)
            config.enablePipelining = false  // NIOAsyncChannel pipelines HTTP
            config.enableErrorHandling = false  // Hummingbird handles errors
            config.enableResponseHeaderValidation = false  // HTTPTypes validates
            config.decoderConfiguration.maxHeaderFieldSize = http1.httpDecoder.maxHeaderFieldSize
            config.decoderConfiguration.maxHeaderListSize = http1.httpDecoder.maxHeaderListSize
            config.decoderConfiguration.maxHeaderFieldCount = http1.httpDecoder.maxHeaderFieldCount
            let outcome = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: config)
            return Value(outcome: outcome, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.outcome.get() {
            case .webSocket:
                // The connection lives on in its handlers; no task waits for it.
                return
            case .http(let http):
                await handleHTTP(asyncChannel: http, logger: logger)
            case .failedUpgrade(let http):
                try await http.executeThenClose { _, outbound in
                    let head = HTTPResponse(status: .badRequest, headerFields: [.connection: "close", .contentLength: "0"])
                    try await outbound.write(contentsOf: [.head(head), .end(nil)])
                }
            }
        } catch {
            logger.trace("connection ended before or during the upgrade: \(error)")
        }
    }

    /// A WebSocket upgrade asked for after a plain request on the same connection cannot be
    /// parsed any more: the client is sent to the same URL again, on a new connection.
    static func redirectingUpgrades(_ responder: @escaping HTTPChannelHandler.Responder) -> HTTPChannelHandler.Responder {
        struct RedirectCloseError: Error {}
        return { request, writer, channel in
            guard request.headers[.upgrade]?.lowercased() == "websocket" else {
                return try await responder(request, writer, channel)
            }
            var path = request.uri.path
            if let query = request.uri.query { path += "?\(query)" }
            try await writer.writeResponse(HTTPResponse(status: .temporaryRedirect, headerFields: [.connection: "close", .location: path]))
            throw RedirectCloseError()
        }
    }
}

/// One Sendbird WebSocket connection, on its event loop: login (a short task), then each text
/// message's commands in order (a task only while commands wait), pings, the close handshake, and
/// the outbox's writes (``Outbox``). Nothing runs and no task is held while the connection is idle.
///
/// `@unchecked Sendable`: the `var`s are touched on the channel's event loop only; what the login
/// and command tasks share with it is behind `state`'s lock.
final class WebSocketConnection: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    let gateway: WebSocketGateway
    let handshake: WebSocketGateway.Handshake

    /// Who the connection is, once logged in.
    struct Session: Sendable {
        let conn: ClientConnection
        let user: UserRecord
        let end: SessionEnd
        let timer: SessionTimer
    }

    struct State {
        var session: Session?
        /// Text messages waiting for their commands to run, in arrival order, with when each arrived.
        var waiting: [(text: String, at: Int64)] = []
        /// Frames of a text taken from `waiting`, not yet run.
        var frames: [(frame: Frame, at: Int64)] = []
        var running = false
        /// The channel of the send the command task is waiting for (nil: none).
        var sendingTo: String?
        /// Channels with a send being stored, and the sends to them that came after it (see
        /// ``runCommands()``).
        var lanes: [String: [(frame: Frame, at: Int64)]] = [:]
        /// The socket is gone: what opens later is closed at once.
        var inactive = false
    }
    let state = Mutex(State())

    // Event loop only.
    var channel: (any Channel)?
    var outbox: Outbox?
    var pinger: RepeatedTask?
    /// Where the commands run: on this connection's event loop (set with the channel).
    var commandExecutor: EventLoopTaskExecutor?
    var awaitingPong = false
    var sentClose = false

    static let pingInterval = TimeAmount.seconds(30)

    init(gateway: WebSocketGateway, handshake: WebSocketGateway.Handshake) {
        self.gateway = gateway
        self.handshake = handshake
    }

    var service: ChatService { gateway.service }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        self.channel = channel
        let config = service.config
        let outbox = Outbox(
            limit: config.outboundQueueLimit, maxMessage: config.maxFrameSize, channel: channel,
            flusher: service.registry.flusher(for: channel.eventLoop, coalescingMicroseconds: config.writeCoalescingMicroseconds))
        self.outbox = outbox
        commandExecutor = service.registry.taskExecutor(for: channel.eventLoop)
        outbox.onClose { [self] reason in
            channel.eventLoop.execute { self.outboxClosed(reason) }
        }
        // A peer that went away without a word is found by the next unanswered ping.
        pinger = channel.eventLoop.scheduleRepeatedTask(initialDelay: Self.pingInterval, delay: Self.pingInterval) { [self] _ in
            if awaitingPong {
                channel.close(promise: nil)
                return
            }
            awaitingPong = true
            channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer()), promise: nil)
        }
        let added = ContinuousClock.now
        Task { await self.login(outbox: outbox, channel: channel, upgradedAt: added) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary:
            let bytes = frame.unmaskedData
            guard let text = String(validating: bytes.readableBytesView, as: UTF8.self) else {
                // Text that is not UTF-8 ends the connection with 1007 (binary is read as text too).
                return closeWith(.dataInconsistentWithMessage, context: context)
            }
            received(text)
        case .ping:
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .pong:
            awaitingPong = false
        case .connectionClose:
            // Echo the peer's status code, then close.
            var code = frame.unmaskedData
            sendClose(code.readSlice(length: min(2, code.readableBytes)) ?? ByteBuffer(), on: context.channel)
        default:
            break
        }
    }

    /// The server allows half-closed connections (Hummingbird sets `allowRemoteHalfClosure`): a
    /// peer that has finished sending is done with this connection, so it is closed.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let e = event as? NIOCore.ChannelEvent, e == .inputClosed {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        outbox?.writabilityChanged()
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if case .accumulatedFrameSizeIsTooLarge? = error as? NIOWebSocketFrameAggregator.Error {
            // A message over the size limit: 1009.
            return closeWith(.messageTooLarge, context: context)
        }
        gateway.logger.debug("websocket error: \(error)")
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        pinger?.cancel()
        let session = state.withLock { s -> Session? in
            s.inactive = true
            s.waiting = []
            s.frames = []
            let session = s.session
            s.session = nil
            return session
        }
        outbox?.close()
        if let session { ended(session) }
        context.fireChannelInactive()
    }

    /// Sends a close frame with `code` and closes the connection.
    func closeWith(_ code: WebSocketErrorCode, context: ChannelHandlerContext) {
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        sendClose(data, on: context.channel)
    }

    /// On the event loop: sends a close frame (the first one only) and closes the channel once it
    /// is written; after a close frame was sent, just closes.
    func sendClose(_ data: ByteBuffer, on channel: any Channel) {
        guard !sentClose else { return channel.close(promise: nil) }
        sentClose = true
        channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .connectionClose, data: data))
            .whenComplete { _ in channel.close(promise: nil) }
    }

    /// The outbox closed (on the event loop): a slow consumer is dropped without a close
    /// handshake (it would queue behind the bytes the peer is not reading); a session the server
    /// ended gets what was queued (an `EROR` saying why, `EXPR`), at most a second's wait, then a
    /// close frame.
    func outboxClosed(_ reason: Outbox.CloseReason) {
        guard let channel, channel.isActive else { return }
        if reason == .overflow {
            gateway.logger.notice("slow consumer cut off", metadata: ["user": "\(handshake.userId ?? "?")"])
            channel.close(mode: .all, promise: nil)
            return
        }
        let sent = outbox?.flushOnLoop(promise: true) ?? channel.eventLoop.makeSucceededVoidFuture()
        let deadline = channel.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
        sent.whenComplete { [self] _ in
            deadline.cancel()
            guard !sentClose else { return }
            var data = channel.allocator.buffer(capacity: 2)
            data.write(webSocketErrorCode: .normalClosure)
            sendClose(data, on: channel)
        }
    }

    // MARK: - Login

    func login(outbox: Outbox, channel: any Channel, upgradedAt: ContinuousClock.Instant) async {
        let gateway = self.gateway
        let service = self.service
        let login: WebSocketGateway.Login
        let started = ContinuousClock.now
        defer { noteSlowLogin(upgradedAt: upgradedAt, started: started) }
        do {
            // The client sends nothing before LOGI: the server answers within the login deadline
            // or refuses, so a stalled store does not hold sockets open without end.
            let creds = handshake
            login = try await WebSocketGateway.withDeadline(seconds: service.config.loginTimeout) { try await gateway.authenticate(creds) }
            if !login.user.isActive { throw SendbirdError(.userDeactivated, "The user is deactivated.") }
        } catch {
            return refuse(error, channel: channel)
        }
        let user = login.user
        let config = service.config
        if service.isShuttingDown {
            // Upgraded just before the shutdown began: closed like the others, without a LOGI.
            channel.close(promise: nil)
            return
        }
        // The cap counts the user's connections on the other nodes of a cluster too.
        let limit = config.maxConnectionsPerUser - service.connectionsElsewhere(user.userId)
        guard let conn = service.registry.register(userId: user.userId, outbox: outbox, limit: limit) else {
            return refuse(
                SendbirdError(.tooManyConnections, "Too many connections for this user (at most \(config.maxConnectionsPerUser))."), channel: channel)
        }
        service.noteConnections()
        service.userConnectionsChanged(user.userId)
        let end = SessionEnd(0)
        let timer = SessionTimer(session: end, loop: channel.eventLoop, now: { service.now() }) {
            conn.send(ChatService.frameText(.expiring, SessionExpiry(expiresIn: 0, reason: ErrorCode.sessionKeyExpired.rawValue)))
        } close: {
            outbox.close()
        }
        let session = Session(conn: conn, user: user, end: end, timer: timer)
        do {
            let (key, ends) = try await service.createSession(
                userId: user.userId, tokenHash: login.tokenHash, tokenExpiresAt: login.tokenExpiresAt)
            end.value = ends
            try await service.setLastSeen(user.userId)
            let unread = try await service.unreadCount(userId: user.userId)
            var payload = Presenter.user(user, online: true)
            payload.hasEverLoggedIn = true
            var logi = LoginPayload(user: payload, key: key, loginTs: service.now(), unread: unread, appId: config.appId)
            logi.ekey = try await service.issueFileKey(userId: user.userId, sessionKey: key)
            logi.fileUploadSizeLimit = config.fileUploadSizeLimitMB
            conn.send(ChatService.frameText(.login, logi))
        } catch {
            ended(session)
            return refuse(error, channel: channel)
        }
        if service.isShuttingDown {
            ended(session)
            channel.close(promise: nil)
            return
        }
        // The session key ends after `sessionLifetime` (or with the access token it rests on).
        timer.arm()
        let open = state.withLock { s -> Bool in
            guard !s.inactive else { return false }
            s.session = session
            return true
        }
        if open { runWaiting() } else { ended(session) }
    }

    /// The connection's session is over: timers stop, the registry forgets it, last seen moves.
    func ended(_ session: Session) {
        session.timer.cancel()
        service.connectionClosed(session.conn)
        let gone = service.registry.unregister(session.conn)
        service.userConnectionsChanged(session.user.userId)
        if gone {
            let service = self.service
            let userId = session.user.userId
            Task { try? await service.setLastSeen(userId) }
        }
    }

    /// A login answered more than 2 s after the upgrade is logged, with how long its task waited
    /// to start: a wait there is the process's, not the store's.
    func noteSlowLogin(upgradedAt: ContinuousClock.Instant, started: ContinuousClock.Instant) {
        let total = ContinuousClock.now - upgradedAt
        guard total > .seconds(2) else { return }
        gateway.logger.notice(
            "slow login",
            metadata: ["user": "\(handshake.userId ?? "?")", "answered after": "\(total)", "task started after": "\(started - upgradedAt)"])
    }

    /// Refuses the login: `LOGI` with the error, then (a moment later, so that a client reading
    /// both in one go still sees the refusal) a close frame.
    func refuse(_ error: any Error, channel: any Channel) {
        let e = (error as? SendbirdError) ?? SendbirdError(.internalError, "Internal error.")
        if e.code == .internalError { gateway.logger.error("login failed: \(error)") }
        let text = ChatService.frameText(.login, ErrorPayload(code: e.code, message: e.message))
        channel.eventLoop.execute { [self] in
            channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text)), promise: nil)
            channel.eventLoop.scheduleTask(in: .milliseconds(300)) { [self] in
                guard channel.isActive, !sentClose else { return }
                var data = channel.allocator.buffer(capacity: 2)
                data.write(webSocketErrorCode: .normalClosure)
                sendClose(data, on: channel)
            }
        }
    }

    // MARK: - Commands

    /// A text message arrived (on the event loop): its commands run in order after the ones before,
    /// except that a send waiting to be stored holds up only later sends to the same channel.
    func received(_ text: String) {
        let arrived = service.now()
        let start = state.withLock { s -> Bool in
            s.waiting.append((text, arrived))
            guard s.session != nil else { return false }
            if !s.running {
                s.running = true
                return true
            }
            // The command task waits for a send to be stored: another task takes over the commands,
            // and that send's channel becomes a lane of its own.
            if let channel = s.sendingTo {
                s.sendingTo = nil
                if s.lanes[channel] == nil { s.lanes[channel] = [] }
                return true
            }
            return false
        }
        if start { startCommands() }
    }

    /// Starts a command task on the connection's event loop: from the loop itself (a frame just
    /// read) it is queued there without waking another thread.
    func startCommands() {
        if let commandExecutor {
            Task(executorPreference: commandExecutor) { await self.runCommands() }
        } else {
            Task { await self.runCommands() }  // not set up yet: the commands still run
        }
    }

    /// Starts the command task for what arrived during the login.
    func runWaiting() {
        let start = state.withLock { s -> Bool in
            guard !s.waiting.isEmpty || !s.frames.isEmpty, !s.running else { return false }
            s.running = true
            return true
        }
        if start { startCommands() }
    }

    private static let channelUrlKey = Array(#""channel_url""#.utf8)

    /// The channel a send frame is for, read straight from its bytes (nil: another command, or
    /// one the gateway will refuse anyway).
    static func sendChannel(_ frame: Frame) -> String? {
        guard frame.command == .message || frame.command == .file else { return nil }
        // Over the raw bytes: `Data`'s subscript costs a call per byte.
        return frame.payload.withUnsafeBytes { bytes -> String? in
            let key = channelUrlKey
            guard let at = key.withUnsafeBytes({ ByteSearch.firstOffset(of: $0, in: bytes) }) else { return nil }
            var i = at + key.count
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x3A { i += 1 }
            guard i < bytes.count, bytes[i] == 0x22 else { return nil }
            let start = i + 1
            var end = start
            while end < bytes.count, bytes[end] != 0x22 {
                if bytes[end] == 0x5C { return nil }  // an escape: the gateway's decoder reads it
                end += 1
            }
            return end < bytes.count ? String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self) : nil
        }
    }

    /// Runs waiting commands, in arrival order, until none is left; the task then ends.
    ///
    /// A send is run here as any command, unless its channel has a send being stored already: then
    /// it goes in that channel's lane, after it. When more arrives while this task waits for a send
    /// to be stored, another task takes the commands over (``received(_:)``) and this one, once the
    /// send is done, runs that channel's lane and ends: a send held up by its channel (a lock
    /// another node holds, a slow commit) holds up neither the connection's other channels nor its
    /// pings, and a channel's sends keep their order.
    func runCommands() async {
        while true {
            var malformed: [String] = []
            var handOff = false
            let next = state.withLock { s -> (Frame, Int64, Session, String?)? in
                guard let session = s.session else {
                    s.running = false
                    return nil
                }
                while true {
                    if s.frames.isEmpty {
                        guard !s.waiting.isEmpty else { break }
                        let (text, at) = s.waiting.removeFirst()
                        for result in FrameCodec.decode(text) {
                            switch result {
                            case .failure(let e):
                                malformed.append(
                                    ChatService.frameText(.error, ErrorPayload(code: .invalidJSON, message: "Malformed frame: \(e).", ts: at)))
                            case .success(let frame):
                                s.frames.append((frame, at))
                            }
                        }
                        continue
                    }
                    let (frame, at) = s.frames.removeFirst()
                    let channel = Self.sendChannel(frame)
                    if let channel, s.lanes[channel] != nil {
                        s.lanes[channel]!.append((frame, at))
                        continue
                    }
                    s.sendingTo = channel
                    // More is waiting already: another task runs it while this send is stored.
                    if let channel, !s.frames.isEmpty || !s.waiting.isEmpty {
                        s.sendingTo = nil
                        if s.lanes[channel] == nil { s.lanes[channel] = [] }
                        handOff = true
                    }
                    return (frame, at, session, channel)
                }
                s.running = false
                return nil
            }
            if !malformed.isEmpty, let conn = state.withLock({ $0.session?.conn }) { for m in malformed { conn.send(m) } }
            guard let (frame, arrived, session, sentTo) = next else { return }
            if handOff { startCommands() }
            await gateway.dispatch(frame, conn: session.conn, user: session.user, session: session.end, arrived: arrived)
            guard let channel = sentTo else { continue }
            let tookOver = state.withLock { s -> Bool in
                if s.sendingTo == channel {
                    s.sendingTo = nil
                    return false
                }
                return true
            }
            if tookOver {
                await runLane(channel, session: session)
                return
            }
        }
    }

    /// Runs the sends that waited for `channel`'s send, in order, until none is left.
    func runLane(_ channel: String, session: Session) async {
        while true {
            let next = state.withLock { s -> (Frame, Int64)? in
                guard var lane = s.lanes[channel], !lane.isEmpty else {
                    s.lanes[channel] = nil
                    return nil
                }
                let first = lane.removeFirst()
                s.lanes[channel] = lane
                return first
            }
            guard let (frame, arrived) = next else { return }
            await gateway.dispatch(frame, conn: session.conn, user: session.user, session: session.end, arrived: arrived)
        }
    }
}
