import Foundation
import Synchronization
import TernProtocol

/// Users and their credentials: who a user is, the tokens and sessions that let them in, and
/// what happens when a user changes, is deactivated or is deleted. Routes and the gateway read
/// and write users only through these methods, so each rule (caches forgotten, sessions ended)
/// is written once, here.
extension ChatService {
    // MARK: - Reading users

    public func user(_ userId: String) async throws -> UserRecord? { try await store.user(userId) }

    /// The user, or 400201 when there is none.
    @discardableResult
    public func requireUser(_ userId: String) async throws -> UserRecord {
        guard let u = try await store.user(userId) else { throw SendbirdError(.notFound, "\"User\" not found: \(userId).") }
        return u
    }

    func users(_ userIds: [String]) async throws -> [UserRecord] { try await store.users(userIds) }

    /// Users ordered by id, after the query's `afterUserId`, with its filters.
    func listUsers(_ query: UserListQuery) async throws -> [UserRecord] { try await store.listUsers(query) }

    /// Users `userId` blocks (or, with `blockingMe`, who block them), one page.
    func blockedUsers(_ userId: String, blockingMe: Bool, afterUserId: String?, limit: Int, userIds: [String]?) async throws -> [UserRecord] {
        try await store.blockedUsers(userId, blockingMe: blockingMe, afterUserId: afterUserId, limit: limit, userIds: userIds)
    }

    /// A user was seen now (they connected or disconnected).
    func setLastSeen(_ userId: String) async throws { try await store.setLastSeen(userId, at: now()) }

    // MARK: - Creating, changing and deleting users

    /// Validates a user id: non-empty, NFC without control characters (``Identifier``), at most
    /// 80 characters and 320 bytes.
    static func checkUserId(_ id: String) throws {
        if id.isEmpty { throw SendbirdError.missing("user_id") }
        try TextLimit.userId.check(id, code: .userIdTooLong)
        try Identifier.check(id, field: "user_id")
    }

    static func checkNickname(_ nickname: String) throws {
        try TextLimit.nickname.check(nickname)
    }

    /// Issues a new access token for the user (stored hashed) and returns it in plain text.
    public func issueAccessToken(userId: String, expiresAt: Int64 = 0) async throws -> String {
        let token = Credentials.randomToken(bytes: 20)
        try await store.addAccessToken(userId: userId, tokenHash: Credentials.hash(token), expiresAt: expiresAt)
        return token
    }

    /// Creates a session for a user who just logged in; returns the plain session key and when
    /// it ends (ms, 0 = never): after ``ServerConfiguration/sessionLifetime``, or when the access
    /// token it was made from (`tokenHash`, expiring at `tokenExpiresAt`) ends, whichever is first.
    func createSession(userId: String, tokenHash: String?, tokenExpiresAt: Int64 = 0) async throws -> (key: String, endsAt: Int64) {
        let key = Credentials.randomToken(bytes: 24)
        let expires = config.sessionLifetime > 0 ? now() + config.sessionLifetime * 1000 : 0
        try await store.addSession(keyHash: Credentials.hash(key), userId: userId, expiresAt: expires, tokenHash: tokenHash)
        // Every login adds a session; now and then sweep the expired ones.
        if sessionsCreated.add(1, ordering: .relaxed).newValue % 1000 == 0 {
            _ = try? await store.purgeExpiredSessions(now: now())
        }
        let ends: Int64 = [expires, tokenExpiresAt].filter { $0 != 0 }.min() ?? 0
        return (key, ends)
    }

    /// The session a key opens, if it still holds: its user exists and is active (else 400300),
    /// the access token it was made from was not revoked (else 400310), and neither the session
    /// nor that token has expired (else 400309). Throws 400302 for an unknown key.
    public func validSession(_ key: String) async throws -> SessionRecord {
        guard TextLimit.accessToken.allows(key), let s = try await store.session(keyHash: Credentials.hash(key)) else {
            throw SendbirdError(.invalidAccessToken, "Invalid value: \"Session-Key\".")
        }
        try checkSession(s)
        return s
    }

    /// Whether a stored session still holds (see ``validSession(_:)``); throws why not.
    func checkSession(_ s: SessionRecord) throws {
        guard s.userExists, Identifier.isNFC(s.userId) else {
            throw SendbirdError(.invalidAccessToken, "Invalid value: \"Session-Key\".")
        }
        if !s.userActive { throw SendbirdError(.userDeactivated, "The user is deactivated.") }
        if s.tokenHash != nil && s.tokenExpiresAt == nil {
            throw SendbirdError(.sessionTokenRevoked, "The access token this session was made from was revoked.")
        }
        let end = s.effectiveExpiry
        if end != 0 && end <= now() {
            throw SendbirdError(.sessionKeyExpired, "Session key expired.")
        }
    }

    /// The user a session key belongs to (see ``validSession(_:)``).
    public func userForSessionKey(_ key: String) async throws -> String {
        try await validSession(key).userId
    }

    /// Ends every session of a user at once, on every transport: the stored session keys are
    /// deleted (REST refuses them from now on) and each open socket is told `EROR` with `code`
    /// (400300 deactivated, 400310 token revoked), then closed.
    func endSessions(userId: String, code: ErrorCode, message: String) async throws {
        _ = try await store.deleteSessions(userId: userId)
        let frame = Self.frameText(.error, ErrorPayload(code: code, message: message, ts: now()))
        for c in registry.connections(of: userId) {
            c.send(frame)
            c.outbox.close()
        }
        relay(frame, toUsers: [userId], close: true)
    }

    /// Creates a user (400202 when the id is taken).
    @discardableResult
    func createUser(_ user: UserRecord) async throws -> UserRecord { try await store.createUser(user) }

    /// The user who connects without a token (when the application allows it): created with
    /// `nickname` on first connect.
    func ensureUser(_ userId: String, nickname: String) async throws -> UserRecord {
        try await store.ensureUser(userId, nickname: nickname, now: now())
    }

    /// Writes a user's profile (nickname, profile URL, metadata, active flag); cached senders
    /// forget them. A user who is inactive after the change is signed out everywhere at once:
    /// their session keys stop working on REST, their sockets close with 400300, and they are
    /// refused when they come back (``checkSession(_:)``).
    func updateUser(_ user: UserRecord) async throws {
        try await store.updateUser(user)
        invalidateUser(user.userId)
        if !user.isActive {
            try await endSessions(userId: user.userId, code: .userDeactivated, message: "The user is deactivated.")
        }
    }

    /// A new access token replaces the user's old ones: what was made from them (sessions, file
    /// keys, open sockets) ends with them (400310). Returns the new token in plain text.
    func replaceAccessTokens(userId: String) async throws -> String {
        try await store.revokeAccessTokens(userId: userId)
        try await endSessions(userId: userId, code: .sessionTokenRevoked, message: "The access token was revoked.")
        return try await issueAccessToken(userId: userId)
    }

    /// Deletes a user — the one way every route does it (the user API, bots, GDPR erasure): the
    /// user goes with their tokens, sessions and memberships; every cached channel and sender is
    /// forgotten (here and on the other nodes); their sockets are told `reason` (400302) and
    /// closed, and their file keys stop working with the sessions they rest on. Returns false
    /// when there was no such user (the rest is done anyway, so nothing of them outlives this).
    @discardableResult
    func deleteUser(_ userId: String, reason: String = "The user was deleted.") async throws -> Bool {
        let existed = try await store.deleteUser(userId)
        invalidateAll()
        try await endSessions(userId: userId, code: .invalidAccessToken, message: reason)
        return existed
    }

    /// Erases a user (GDPR `delete`), first deleting their channels as `channelDeleteOption`
    /// says: `all` of them, `1_on_1_only` (those of at most two members), or none.
    func eraseUser(_ userId: String, channelDeleteOption: String) async throws {
        if channelDeleteOption != "do_not_delete" {
            for m in try await store.memberships(userId: userId) {
                guard let c = try await store.channel(m.channelUrl) else { continue }
                if channelDeleteOption == "all" || c.memberCount <= 2 {
                    try await deleteChannel(channelUrl: m.channelUrl, by: nil)
                }
            }
        }
        try await deleteUser(userId)
    }

    // MARK: - Access tokens

    /// Checks an access token the user presents: one of theirs (else 400302) and not expired (else
    /// 400310). Returns its hash and expiry (ms, 0 = never), which the session made from it keeps.
    func checkAccessToken(_ token: String, userId: String) async throws -> (hash: String, expiresAt: Int64) {
        guard TextLimit.accessToken.allows(token) else { throw SendbirdError(.invalidAccessToken, "Invalid access token.") }
        let hash = Credentials.hash(token)
        guard let expiry = try await store.accessTokenExpiry(userId: userId, tokenHash: hash) else {
            throw SendbirdError(.invalidAccessToken, "Invalid access token.")
        }
        if expiry != 0 && expiry <= now() { throw SendbirdError(.sessionTokenRevoked, "The access token has expired.") }
        return (hash, expiry)
    }

    /// Whether the user holds any access token (then they may not connect with their id alone).
    func hasAccessTokens(userId: String) async throws -> Bool { try await store.hasAccessTokens(userId: userId) }
}
