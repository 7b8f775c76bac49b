import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import Synchronization
import TernProtocol

/// The Sendbird WebSocket endpoint at `/`: handshake, `LOGI`, and the commands of a connection
/// (run by ``WebSocketConnection`` on NIO channel handlers, see ``GatewayChildChannel``).
struct WebSocketGateway: Sendable {
    let service: ChatService
    let logger: Logger

    /// Upgrades `GET /` only, echoing the offered subprotocol (the SDK's URI-encoded
    /// `{"token":…}` / `{"auth":…}` / `{}`): a browser or node client drops a 101 that does not name
    /// it. nil: no upgrade (the request is answered 400).
    func upgradeHeaders(_ head: HTTPRequestHead) -> HTTPHeaders? {
        let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard path == "/" || path.isEmpty else { return nil }
        var headers = HTTPHeaders()
        if let first = Self.offeredSubprotocol(head) { headers.add(name: "Sec-WebSocket-Protocol", value: first) }
        return headers
    }

    /// The first subprotocol the client offers (the SDK sends one).
    static func offeredSubprotocol(_ head: HTTPRequestHead) -> String? {
        guard let offered = head.headers.first(name: "Sec-WebSocket-Protocol") else { return nil }
        return offered.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? offered
    }

    /// The credentials a connection presents.
    struct Handshake: Sendable {
        var userId: String?
        var accessToken: String?
        var sessionKey: String?
        var appId: String?
        var nickname: String?
    }

    /// The credentials of an upgrade request: query (`user_id`, `ai`, `nickname`, `access_token`,
    /// `key`), the `SENDBIRD-WS-TOKEN` / `SENDBIRD-WS-AUTH` headers, the subprotocol's token.
    static func credentials(of head: HTTPRequestHead) -> Handshake {
        let query = head.uri.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init)
        let q = QueryParameters(query)
        var c = Handshake()
        c.userId = q.nonEmpty("user_id")
        c.appId = q.nonEmpty("ai")
        c.nickname = q.nonEmpty("nickname")
        c.accessToken = head.headers.first(name: "SENDBIRD-WS-TOKEN").flatMap { $0.isEmpty ? nil : $0 } ?? q.nonEmpty("access_token")
        c.sessionKey = head.headers.first(name: "SENDBIRD-WS-AUTH").flatMap { $0.isEmpty ? nil : $0 } ?? q.nonEmpty("key")
        if let first = offeredSubprotocol(head) {
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

    /// A command's `channel_url`: present, not empty, one spelling (``Identifier``).
    static func requiredChannelUrl(_ raw: String?) throws -> String {
        guard let url = raw, !url.isEmpty else { throw SendbirdError.missing("channel_url") }
        try Identifier.check(url, field: "channel_url")
        return url
    }

    /// Decides who the connection is. Throws the Sendbird error `LOGI` refuses with.
    func authenticate(_ c: Handshake) async throws -> Login {
        let config = service.config
        guard c.appId == config.appId else {
            throw SendbirdError(.applicationNotFound, "Application not found.")
        }
        if let key = c.sessionKey {
            let session = try await service.validSession(key)
            if let claimed = c.userId, !Identifier.sameBytes(claimed, session.userId) {
                throw SendbirdError(.invalidAccessToken, "The session key belongs to another user.")
            }
            guard let user = try await service.user(session.userId) else { throw SendbirdError(.userNotFoundForLogin, "User not found.") }
            return Login(user: user, tokenHash: session.tokenHash, tokenExpiresAt: session.tokenExpiresAt ?? 0)
        }
        guard let userId = c.userId else { throw SendbirdError(.loginRequired, "\"user_id\" or a session key is required.") }
        try ChatService.checkUserId(userId)
        if let token = c.accessToken {
            let checked = try await service.checkAccessToken(token, userId: userId)
            guard let user = try await service.user(userId) else { throw SendbirdError(.invalidAccessToken, "Invalid access token.") }
            return Login(user: user, tokenHash: checked.hash, tokenExpiresAt: checked.expiresAt)
        }
        if config.requireAccessToken {
            throw SendbirdError(.invalidAccessToken, "An access token is required.")
        }
        if let existing = try await service.user(userId) {
            if try await service.hasAccessTokens(userId: userId) {
                throw SendbirdError(.invalidAccessToken, "This user requires an access token.")
            }
            return Login(user: existing)
        }
        if let n = c.nickname { try ChatService.checkNickname(n) }
        return Login(user: try await service.ensureUser(userId, nickname: c.nickname ?? ""))
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
