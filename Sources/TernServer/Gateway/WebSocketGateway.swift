import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import Synchronization
import TernProtocol

/// The Sendbird WebSocket endpoint at `/`: handshake, `LOGI`, then one command loop per socket.
struct WebSocketGateway: Sendable {
    let service: ChatService
    let logger: Logger

    static let tokenHeader = HTTPField.Name("SENDBIRD-WS-TOKEN")!
    static let authHeader = HTTPField.Name("SENDBIRD-WS-AUTH")!

    /// Echoes the offered subprotocol (the SDK's URI-encoded `{"token":…}` / `{"auth":…}` / `{}`):
    /// a browser or node client drops a 101 that does not name it.
    func shouldUpgrade(_ request: Request) -> RouterShouldUpgrade {
        var headers = HTTPFields()
        if let offered = request.headers[.secWebSocketProtocol] {
            let first = offered.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? offered
            headers[.secWebSocketProtocol] = first
        }
        return .upgrade(headers)
    }

    /// The credentials a connection presents.
    struct Handshake {
        var userId: String?
        var accessToken: String?
        var sessionKey: String?
        var appId: String?
        var nickname: String?
    }

    static func credentials(of request: Request) -> Handshake {
        let q = QueryParameters(request.uri.query)
        var c = Handshake()
        c.userId = q.nonEmpty("user_id")
        c.appId = q.nonEmpty("ai")
        c.nickname = q.nonEmpty("nickname")
        c.accessToken = request.headers[tokenHeader].flatMap { $0.isEmpty ? nil : $0 } ?? q.nonEmpty("access_token")
        c.sessionKey = request.headers[authHeader].flatMap { $0.isEmpty ? nil : $0 } ?? q.nonEmpty("key")
        if let offered = request.headers[.secWebSocketProtocol] {
            let first = offered.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? offered
            let decoded = first.removingPercentEncoding ?? first
            if let obj = try? JSONSerialization.jsonObject(with: Data(decoded.utf8)) as? [String: Any] {
                if let t = obj["token"] as? String, !t.isEmpty, c.accessToken == nil { c.accessToken = t }
                if let a = obj["auth"] as? String, !a.isEmpty, c.sessionKey == nil { c.sessionKey = a }
            }
        }
        return c
    }

    /// Who a connection is, and the access token (hash and expiry) its session rests on.
    struct Login {
        var user: UserRecord
        var tokenHash: String?
        var tokenExpiresAt: Int64 = 0
    }

    /// Decides who the connection is. Throws the Sendbird error `LOGI` refuses with.
    func authenticate(_ c: Handshake) async throws -> Login {
        let config = service.config
        guard c.appId == config.appId else {
            throw SendbirdError(.applicationNotFound, "Application not found.")
        }
        let store = service.store
        if let key = c.sessionKey {
            let session = try await service.validSession(key)
            if let claimed = c.userId, !Identifier.sameBytes(claimed, session.userId) {
                throw SendbirdError(.invalidAccessToken, "The session key belongs to another user.")
            }
            guard let user = try await store.user(session.userId) else { throw SendbirdError(.userNotFoundForLogin, "User not found.") }
            return Login(user: user, tokenHash: session.tokenHash, tokenExpiresAt: session.tokenExpiresAt ?? 0)
        }
        guard let userId = c.userId else { throw SendbirdError(.loginRequired, "\"user_id\" or a session key is required.") }
        try ChatService.checkUserId(userId)
        if let token = c.accessToken {
            guard TextLimit.accessToken.allows(token) else { throw SendbirdError(.invalidAccessToken, "Invalid access token.") }
            let hash = Credentials.hash(token)
            guard let expiry = try await store.accessTokenExpiry(userId: userId, tokenHash: hash)
            else { throw SendbirdError(.invalidAccessToken, "Invalid access token.") }
            if expiry != 0 && expiry <= service.now() { throw SendbirdError(.sessionTokenRevoked, "The access token has expired.") }
            guard let user = try await store.user(userId) else { throw SendbirdError(.invalidAccessToken, "Invalid access token.") }
            return Login(user: user, tokenHash: hash, tokenExpiresAt: expiry)
        }
        if config.requireAccessToken {
            throw SendbirdError(.invalidAccessToken, "An access token is required.")
        }
        if let existing = try await store.user(userId) {
            if try await store.hasAccessTokens(userId: userId) {
                throw SendbirdError(.invalidAccessToken, "This user requires an access token.")
            }
            return Login(user: existing)
        }
        if let n = c.nickname { try ChatService.checkNickname(n) }
        return Login(user: try await store.ensureUser(userId, nickname: c.nickname ?? "", now: service.now()))
    }

    /// `EXPR`: the session key has `expires_in` s left (0: it has ended), and why.
    struct SessionExpiry: Encodable {
        let expiresIn: Int
        let reason: Int
        enum CodingKeys: String, CodingKey { case expiresIn = "expires_in", reason }
    }

    /// Runs one connection from handshake to close.
    func handle(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, request: Request, channel: any Channel) async throws {
        let creds = Self.credentials(of: request)
        let login: Login
        do {
            // The client sends nothing before LOGI: the server answers within the login deadline
            // or refuses, so a stalled store does not hold sockets open without end.
            login = try await Self.withDeadline(seconds: service.config.loginTimeout) { try await authenticate(creds) }
            if !login.user.isActive { throw SendbirdError(.userDeactivated, "The user is deactivated.") }
        } catch {
            await refuse(outbound, error)
            return
        }
        let user = login.user
        let config = service.config
        let maxFrame = config.maxFrameSize
        let outbox = Outbox(
            limit: config.outboundQueueLimit, maxMessage: maxFrame, channel: channel,
            flusher: service.registry.flusher(for: channel.eventLoop, coalescingMicroseconds: config.writeCoalescingMicroseconds))
        // Tells the outbox when a peer that stopped reading takes bytes again.
        try? await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.addHandler(OutboxWritabilityHandler(outbox))
        }.get()
        guard let conn = service.registry.register(userId: user.userId, outbox: outbox, limit: config.maxConnectionsPerUser) else {
            await refuse(outbound, SendbirdError(.tooManyConnections, "Too many connections for this user (at most \(config.maxConnectionsPerUser))."))
            return
        }
        service.noteConnections()
        defer {
            service.connectionClosed(conn)
            if service.registry.unregister(conn) {
                let s = service
                Task { try? await s.store.setLastSeen(user.userId, at: s.now()) }
            }
        }
        let sessionEnds: Int64
        do {
            let (key, ends) = try await service.createSession(
                userId: user.userId, tokenHash: login.tokenHash, tokenExpiresAt: login.tokenExpiresAt)
            sessionEnds = ends
            try await service.store.setLastSeen(user.userId, at: service.now())
            let unread = try await service.unreadCount(userId: user.userId)
            var payload = Presenter.user(user, online: true)
            payload.hasEverLoggedIn = true
            var login = LoginPayload(user: payload, key: key, loginTs: service.now(), unread: unread, appId: config.appId)
            login.ekey = try await service.issueFileKey(userId: user.userId)
            login.fileUploadSizeLimit = config.fileUploadSizeLimitMB
            conn.send(ChatService.frameText(.login, login))
        } catch {
            await refuse(outbound, error)
            return
        }
        // The session key ends after `sessionLifetime` (or with the access token it rests on): the
        // client hears `EXPR` and logs in again (with its token); one that does not is closed a
        // little later.
        let session = SessionEnd(sessionEnds)
        let expiry = SessionTimer(session: session, loop: channel.eventLoop, now: { service.now() }) {
            conn.send(ChatService.frameText(.expiring, SessionExpiry(expiresIn: 0, reason: ErrorCode.sessionKeyExpired.rawValue)))
        } close: {
            outbox.close()
        }
        expiry.arm()
        defer { expiry.cancel() }
        // Why reading stopped, when the stream said: a message over the size limit (close 1009) or
        // text that is not UTF-8 (close 1007). Rethrown at the end, it becomes that close code.
        let readFailure = SharedValue<(any Error)?>(nil)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    for try await message in inbound.messages(maxSize: maxFrame) {
                        let arrived = service.now()
                        let text: String
                        switch message {
                        case .text(let s): text = s
                        case .binary(let b): text = String(buffer: b)
                        }
                        for result in FrameCodec.decode(text) {
                            switch result {
                            case .failure(let e):
                                conn.send(ChatService.frameText(.error, ErrorPayload(code: .invalidJSON, message: "Malformed frame: \(e).", ts: arrived)))
                            case .success(let frame):
                                await dispatch(frame, conn: conn, user: user, session: session, arrived: arrived)
                            }
                        }
                    }
                } catch {
                    logger.debug("websocket read ended: \(error)")
                    if !(error is CancellationError) { readFailure.set(error) }
                }
                // Reading ended (the peer closed, or a frame was refused): wake the wait below.
                outbox.close()
            }
            // The outbox closes when reading ends, when the server ends the session, or when a slow
            // consumer overflows it (no task of its own: this one waits).
            await outbox.waitClosed()
            if outbox.closeReason == .overflow {
                logger.notice("slow consumer cut off", metadata: ["user": "\(user.userId)"])
                // No close handshake: it would queue behind the bytes the peer is not reading.
                // Closing the channel also ends the read loop.
                channel.close(mode: .all, promise: nil)
            }
            group.cancelAll()
        }
        if outbox.closeReason == .normal {
            // What was queued before a close (an `EROR` saying why, `EXPR`) reaches the client
            // before the socket closes; a peer that does not read costs at most a second.
            await outbox.drain(seconds: 1)
        }
        if let failure = readFailure.get() { throw failure }
    }

    /// Runs `body`, or throws 500901 when it has not finished after `seconds` (it then goes on
    /// alone and its result is dropped).
    static func withDeadline<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let once = SharedValue(false)
        let result: Result<T, any Error> = await withCheckedContinuation { continuation in
            @Sendable func finish(_ r: Result<T, any Error>) {
                if once.exchange(true) == false { continuation.resume(returning: r) }
            }
            Task {
                do { finish(.success(try await body())) } catch { finish(.failure(error)) }
            }
            Task {
                try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
                finish(.failure(SendbirdError(.internalError, "The login took too long; try again.")))
            }
        }
        return try result.get()
    }

    func refuse(_ outbound: WebSocketOutboundWriter, _ error: any Error) async {
        let e = (error as? SendbirdError) ?? SendbirdError(.internalError, "Internal error.")
        if e.code == .internalError { logger.error("login failed: \(error)") }
        let frame = ChatService.frameText(.login, ErrorPayload(code: e.code, message: e.message))
        try? await outbound.write(.text(frame))
        // Let the refusal reach the client on its own before the close frame follows: a client
        // that reads both in one go may end its stream before handing the text frame over
        // (seen with swift-websocket's client under load: 1 run in 10 of the whole suite lost it
        // with 100 ms). A client waits 10 s for LOGI; the server's pause costs nobody.
        try? await Task.sleep(for: .milliseconds(300))
        try? await outbound.close(.normalClosure, reason: nil)
    }

    // MARK: - Commands

    func dispatch(_ frame: Frame, conn: ClientConnection, user: UserRecord, session: SessionEnd, arrived: Int64) async {
        var reqId: String?
        var channelUrl: String?
        do {
            switch frame.command {
            case .ping:
                let p = try decode(PingPayload.self, frame)
                conn.send(ChatService.frameText(.pong, PingPayload(id: p.id?.value ?? arrived, ts: service.now())))
            case .message:
                let r = try decode(SendMessageRequest.self, frame)
                reqId = r.reqId
                channelUrl = r.channelUrl
                guard let url = r.channelUrl, !url.isEmpty else { throw SendbirdError.missing("channel_url") }
                try Identifier.check(url, field: "channel_url")
                var out = OutgoingMessage(channelUrl: url, message: r.message ?? "")
                out.data = r.data ?? ""
                out.customType = r.customType ?? ""
                out.mentionType = r.mentionType ?? "users"
                out.mentionedUserIds = r.mentionedUserIds ?? []
                try Identifier.check(out.mentionedUserIds, field: "mentioned_user_ids")
                out.silent = r.silent ?? false
                out.reqId = r.reqId
                out.sortedMetaarray = r.metaarray?.items ?? []
                out.parentMessageId = r.parentMessageId?.value ?? 0
                out.replyToChannel = r.replyToChannel ?? false
                try await service.sendUserMessage(from: user.userId, out, connection: conn, origin: .webSocket)
            case .updateMessage, .updateFileMessage:
                let r = try decode(UpdateMessageRequest.self, frame)
                reqId = r.reqId
                channelUrl = r.channelUrl
                guard let url = r.channelUrl, !url.isEmpty else { throw SendbirdError.missing("channel_url") }
                try Identifier.check(url, field: "channel_url")
                guard let id = r.msgId?.value else { throw SendbirdError.missing("msg_id") }
                var u = MessageUpdate()
                u.message = r.message
                u.data = r.data
                u.customType = r.customType
                u.mentionType = r.mentionType
                u.mentionedUserIds = r.mentionedUserIds
                if let m = r.metaarray {
                    let mode: MetaArrayChange.Mode = m.mode == "remove" ? .remove : .add
                    u.metaarray = MetaArrayChange(items: m.array, mode: mode, upsert: m.upsert ?? false)
                }
                try await service.updateMessage(channelUrl: url, id: id, u, by: user.userId, connection: conn, reqId: r.reqId, origin: .webSocket)
            case .read:
                let r = try decode(ChannelRequest.self, frame)
                reqId = r.reqId
                channelUrl = r.channelUrl
                guard let url = r.channelUrl, !url.isEmpty else { throw SendbirdError.missing("channel_url") }
                try Identifier.check(url, field: "channel_url")
                try await service.markRead(userId: user.userId, channelUrl: url, connection: conn, reqId: r.reqId, origin: .webSocket, arrivedAt: arrived)
            case .typingStart, .typingEnd:
                let r = try decode(ChannelRequest.self, frame)
                channelUrl = r.channelUrl
                guard let url = r.channelUrl, !url.isEmpty else { throw SendbirdError.missing("channel_url") }
                try Identifier.check(url, field: "channel_url")
                try await service.typing(userId: user.userId, channelUrl: url, start: frame.command == .typingStart)
            case .messageAck:
                let r = try decode(ChannelRequest.self, frame)
                if let url = r.channelUrl { try await service.acknowledgeDelivery(userId: user.userId, channelUrl: url) }
            case .login:
                // Session refresh over an open socket: `LOGI{token,req_id}` → a new key. The token
                // must be one of the user's and still valid, and the user still active.
                let obj = (try? JSONSerialization.jsonObject(with: frame.payload) as? [String: Any]) ?? [:]
                reqId = obj["req_id"] as? String
                var tokenHash: String?
                var tokenExpiresAt: Int64 = 0
                if let token = obj["token"] as? String, !token.isEmpty {
                    let hash = Credentials.hash(token)
                    guard TextLimit.accessToken.allows(token),
                        let expiry = try await service.store.accessTokenExpiry(userId: user.userId, tokenHash: hash)
                    else { throw SendbirdError(.invalidAccessToken, "Invalid access token.") }
                    if expiry != 0 && expiry <= service.now() { throw SendbirdError(.sessionTokenRevoked, "The access token has expired.") }
                    tokenHash = hash
                    tokenExpiresAt = expiry
                } else if service.config.requireAccessToken {
                    throw SendbirdError(.invalidAccessToken, "An access token is required.")
                } else if try await service.store.hasAccessTokens(userId: user.userId) {
                    throw SendbirdError(.invalidAccessToken, "An access token is required.")
                }
                guard let current = try await service.store.user(user.userId), current.isActive else {
                    throw SendbirdError(.userDeactivated, "The user is deactivated.")
                }
                let (key, ends) = try await service.createSession(userId: user.userId, tokenHash: tokenHash, tokenExpiresAt: tokenExpiresAt)
                session.value = ends
                struct Refreshed: Encodable {
                    let key: String, newKey: String, reqId: String?
                    enum CodingKeys: String, CodingKey { case key, newKey = "new_key", reqId = "req_id" }
                }
                conn.send(ChatService.frameText(.login, Refreshed(key: key, newKey: key, reqId: reqId)))
            case .file:
                let r = try decode(FileMessageRequest.self, frame)
                reqId = r.reqId
                channelUrl = r.channelUrl
                guard let url = r.channelUrl, !url.isEmpty else { throw SendbirdError.missing("channel_url") }
                try Identifier.check(url, field: "channel_url")
                var files: [OutgoingFile] = []
                if let many = r.files, !many.isEmpty {
                    files = many.map { OutgoingFile(url: $0.url, name: $0.name, type: $0.type, size: $0.size, thumbnails: $0.thumbnails) }
                } else if let u = r.url {
                    files = [OutgoingFile(url: u, name: r.name ?? "", type: r.type ?? "", size: Int(r.size?.value ?? 0), thumbnails: r.thumbnails ?? [])]
                }
                var out = OutgoingFileMessage(channelUrl: url, files: files)
                out.data = r.custom ?? r.data ?? ""
                out.customType = r.customType ?? ""
                out.mentionType = r.mentionType ?? "users"
                out.mentionedUserIds = r.mentionedUserIds ?? []
                try Identifier.check(out.mentionedUserIds, field: "mentioned_user_ids")
                out.sortedMetaarray = r.metaarray?.items ?? []
                out.parentMessageId = r.parentMessageId?.value ?? 0
                out.replyToChannel = r.replyToChannel ?? false
                out.reqId = r.reqId
                try await service.sendFileMessage(from: user.userId, out, connection: conn, origin: .webSocket)
            case .enter, .exit:
                let r = try decode(ChannelRequest.self, frame)
                reqId = r.reqId
                channelUrl = r.channelUrl
                guard let url = r.channelUrl, !url.isEmpty else { throw SendbirdError.missing("channel_url") }
                try Identifier.check(url, field: "channel_url")
                let ack = frame.command == .enter
                    ? try await service.enter(conn, channelUrl: url, reqId: r.reqId)
                    : try await service.exit(conn, channelUrl: url, reqId: r.reqId)
                conn.send(ChatService.frameText(frame.command, ack))
            default:
                throw SendbirdError(.invalidValue, "Unknown command \(frame.command).")
            }
        } catch {
            let e: SendbirdError
            if let s = error as? SendbirdError {
                e = s
            } else if error is DecodingError {
                e = SendbirdError(.invalidJSON, "Malformed \(frame.command) payload.")
            } else {
                logger.error("command \(frame.command) failed: \(error)")
                e = SendbirdError(.internalError, "Internal error.")
            }
            conn.send(ChatService.frameText(.error, ErrorPayload(code: e.code, message: e.message, reqId: reqId, channelUrl: channelUrl, ts: service.now())))
        }
    }

    func decode<T: Decodable>(_ type: T.Type, _ frame: Frame) throws -> T {
        do { return try frame.decode(T.self) } catch {
            throw SendbirdError(.invalidJSON, "Malformed \(frame.command) payload.")
        }
    }
}

/// Ends a connection's session on time, with timers on its event loop (no task per connection):
/// `EXPR` when the session key ends, the connection closed 10 s later unless a refresh
/// (`LOGI{token}`) moved the end meanwhile.
final class SessionTimer: Sendable {
    let session: SessionEnd
    let loop: any EventLoop
    let now: @Sendable () -> Int64
    let warn: @Sendable () -> Void
    let close: @Sendable () -> Void
    let scheduled = Mutex<Scheduled<Void>?>(nil)
    static let grace = TimeAmount.seconds(10)

    init(
        session: SessionEnd, loop: any EventLoop, now: @escaping @Sendable () -> Int64, warn: @escaping @Sendable () -> Void,
        close: @escaping @Sendable () -> Void
    ) {
        self.session = session
        self.loop = loop
        self.now = now
        self.warn = warn
        self.close = close
    }

    /// Waits for the session's current end (none when it never ends).
    func arm() {
        let end = session.value
        guard end > 0 else { return }
        schedule(in: .milliseconds(max(0, end - now()))) { self.ended(end) }
    }

    func ended(_ end: Int64) {
        // A refresh moved the end: wait for the new one.
        guard session.value == end else { return arm() }
        warn()
        schedule(in: Self.grace) {
            if self.session.value != end { self.arm() } else { self.close() }
        }
    }

    func schedule(in delay: TimeAmount, _ body: @escaping @Sendable () -> Void) {
        let task = loop.scheduleTask(in: delay, body)
        scheduled.withLock { old in
            old?.cancel()
            old = task
        }
    }

    func cancel() {
        scheduled.withLock { $0?.cancel() }
    }
}

/// When a connection's session ends (ms, 0 = never); a refresh moves it.
final class SessionEnd: Sendable {
    private let end: Atomic<Int64>
    init(_ value: Int64) { end = Atomic(value) }
    var value: Int64 {
        get { end.load(ordering: .relaxed) }
        set { end.store(newValue, ordering: .relaxed) }
    }
}

/// A value shared between tasks behind a lock.
final class SharedValue<Value: Sendable>: Sendable {
    private let lock: Mutex<Value>
    init(_ value: Value) { lock = Mutex(value) }
    func get() -> Value { lock.withLock { $0 } }
    func set(_ value: Value) { lock.withLock { $0 = value } }
    /// Stores `value`; returns what was there.
    func exchange(_ value: Value) -> Value {
        lock.withLock { current in
            let old = current
            current = value
            return old
        }
    }
}
