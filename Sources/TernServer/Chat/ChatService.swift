import Foundation
import Logging
import Synchronization
import TernProtocol

/// The chat domain: who may do what, and what each change tells whom. REST routes and the
/// WebSocket gateway both call it; it calls the ``Store`` and fans events out through the
/// ``ConnectionRegistry``.
public final class ChatService: Sendable {
    public let store: any Store
    public let registry: ConnectionRegistry
    public let config: ServerConfiguration
    public let logger: Logger
    let sendQueue = KeyedSerialQueue()
    let rateLimiter: RateLimiter
    let deliveries: DeliveryCoalescer
    let rosters = ShardedCache<ChannelRoster>()
    let senders = ShardedCache<SenderPayload>()
    let sessionsCreated = Atomic<Int>(0)
    /// Who is in which open channel (in memory: entering lasts as long as the connection).
    let rooms = OpenRooms()
    /// Messages broadcast per open channel per second.
    let openBroadcast: RateLimiter
    /// Open channels whose participant count changed since the last `MCNT`.
    let countsToPush = Mutex<Set<String>>([])
    /// Uploaded files, encrypted at rest (nil when the data directory cannot hold them).
    public let files: FileVault?

    public init(store: any Store, config: ServerConfiguration, logger: Logger) {
        self.store = store
        self.config = config
        self.logger = logger
        self.registry = ConnectionRegistry()
        self.rateLimiter = RateLimiter(perSecond: config.maxMessagesPerSecond)
        self.deliveries = DeliveryCoalescer()
        self.openBroadcast = RateLimiter(perSecond: config.openChannelMessagesPerSecond)
        self.files = try? FileVault(directory: config.dataDirectory + "/files")
    }

    var clock: any ServerClock { config.clock }
    func now() -> Int64 { clock.nowMs() }

    // MARK: - Users

    /// Validates a user id (non-empty, at most 80 characters).
    static func checkUserId(_ id: String) throws {
        if id.isEmpty { throw SendbirdError.missing("user_id") }
        if id.count > 80 { throw SendbirdError(.userIdTooLong, "\"user_id\" is too long (at most 80).") }
    }

    static func checkNickname(_ nickname: String) throws {
        if nickname.count > 80 { throw SendbirdError.tooLong("nickname", max: 80) }
    }

    /// Issues a new access token for the user (stored hashed) and returns it in plain text.
    public func issueAccessToken(userId: String, expiresAt: Int64 = 0) async throws -> String {
        let token = Credentials.randomToken(bytes: 20)
        try await store.addAccessToken(userId: userId, tokenHash: Credentials.hash(token), expiresAt: expiresAt)
        return token
    }

    /// Creates a session for a user who just logged in; returns the plain session key.
    func createSession(userId: String) async throws -> String {
        let key = Credentials.randomToken(bytes: 24)
        let expires = config.sessionLifetime > 0 ? now() + config.sessionLifetime * 1000 : 0
        try await store.addSession(keyHash: Credentials.hash(key), userId: userId, expiresAt: expires)
        // Every login adds a session; now and then sweep the expired ones.
        if sessionsCreated.add(1, ordering: .relaxed).newValue % 1000 == 0 {
            _ = try? await store.purgeExpiredSessions(now: now())
        }
        return key
    }

    /// The user a session key belongs to. Throws 400302 for an unknown key, 400309 for an expired one.
    public func userForSessionKey(_ key: String) async throws -> String {
        guard let s = try await store.session(keyHash: Credentials.hash(key)) else {
            throw SendbirdError(.invalidAccessToken, "Invalid value: \"Session-Key\".")
        }
        if s.expiresAt != 0 && s.expiresAt <= now() {
            throw SendbirdError(.sessionKeyExpired, "Session key expired.")
        }
        return s.userId
    }

    // MARK: - Fan-out helpers

    /// Queues `frame` on every connection of every joined member, except connections in `except`
    /// and, when given, all connections of `exceptUser`.
    func fanOut(_ frame: String, to members: [MemberRecord], except: ClientConnection? = nil, exceptUser: String? = nil) {
        for m in members where m.state == "joined" && m.userId != exceptUser {
            for c in registry.connections(of: m.userId) where c.id != except?.id {
                if !c.send(frame) { logger.debug("slow consumer cut off", metadata: ["user": "\(c.userId)"]) }
            }
        }
    }

    static func frameText(_ command: Command, _ value: some Encodable) -> String {
        let data = (try? WireCoding.encoder.encode(value)) ?? Data("{}".utf8)
        return command.rawValue + String(decoding: data, as: UTF8.self) + "\n"
    }

    /// Adds `"req_id":"…"` to an encoded JSON object without re-encoding it.
    static func withReqId(_ json: String, _ reqId: String) -> String {
        let escaped = (try? String(decoding: JSONEncoder().encode(reqId), as: UTF8.self)) ?? "\"\""
        guard json.first == "{" else { return json }
        if json == "{}" { return "{\"req_id\":\(escaped)}" }
        return "{\"req_id\":\(escaped)," + json.dropFirst()
    }

    // MARK: - Sender lookups

    func sender(_ userId: String?) async throws -> SenderPayload? {
        guard let id = userId else { return nil }
        if let s = senders[id] { return s }
        guard let u = try await store.user(id) else { return SenderPayload(userId: id) }
        let s = Presenter.sender(u)
        senders.set(id, s)
        return s
    }
}

/// Coalesces delivery receipts (`MACK`) per channel: receivers acknowledge every message, so the
/// receipts are written and pushed (`DLVR`) at most a few times a second per channel, not once
/// per message per member.
final class DeliveryCoalescer: Sendable {
    let pending = Mutex<[String: [String: Int64]]>([:])

    /// Records a receipt; returns true when the caller should schedule a flush for this channel.
    func add(channelUrl: String, userId: String, ts: Int64) -> Bool {
        pending.withLock { map in
            let first = map[channelUrl] == nil
            var entry = map[channelUrl] ?? [:]
            entry[userId] = max(entry[userId] ?? 0, ts)
            map[channelUrl] = entry
            return first
        }
    }

    func take(_ channelUrl: String) -> [String: Int64] {
        pending.withLock { $0.removeValue(forKey: channelUrl) ?? [:] }
    }
}
