import Foundation
import PostgresNIO
import TernProtocol

/// Users, credentials, sessions and blocks (``UserStore``) on PostgreSQL: the same behaviour as
/// `SQLiteStore+Users.swift`.
extension PostgresStore {
    public func createUser(_ user: UserRecord) async throws -> UserRecord {
        try await write { db in
            if try await Self.fetchUser(db, user.userId) != nil {
                throw SendbirdError(.alreadyExists, "\"user_id\" violates a unique constraint: \(user.userId) already exists.")
            }
            do {
                try await Self.insertUser(db, user)
            } catch  where Self.sqlState(error) == "23505" {
                // Created meanwhile by another connection (SQLite's single writer cannot see this race).
                // The transaction is rolled back as this throws.
                throw SendbirdError(.alreadyExists, "\"user_id\" violates a unique constraint: \(user.userId) already exists.")
            }
            return user
        }
    }

    public func ensureUser(_ userId: String, nickname: String, now: Int64) async throws -> UserRecord {
        if let u = try await user(userId) { return u }
        return try await write { db in
            if let u = try await Self.fetchUser(db, userId) { return u }
            let u = UserRecord(
                userId: userId, nickname: nickname, profileUrl: "", metadata: [:], createdAt: now / 1000, lastSeenAt: 0,
                hasEverLoggedIn: false, isActive: true)
            do {
                try await db.inSavepoint { try await Self.insertUser(db, u) }
            } catch  where Self.sqlState(error) == "23505" {
                // Another connection created it since: return theirs, as SQLite's next writer would
                // (READ COMMITTED: this statement sees the row they committed).
                if let existing = try await Self.fetchUser(db, userId) { return existing }
                throw error
            }
            return u
        }
    }

    public func user(_ userId: String) async throws -> UserRecord? {
        try await read { db in try await Self.fetchUser(db, userId) }
    }

    public func users(_ userIds: [String]) async throws -> [UserRecord] {
        if userIds.isEmpty { return [] }
        return try await read { db in
            // SQLite walks `user_id IN (…)` through the primary key: in id order.
            try await db.fetchAll("SELECT * FROM users WHERE user_id = ANY(?) ORDER BY user_id", [userIds])
                .map(Self.userRecord)
        }
    }

    public func listUsers(_ q: UserListQuery) async throws -> [UserRecord] {
        guard let t = userListSQL(q, dialect: .postgres) else { return [] }
        return try await read { db in try await db.fetchAll(t).map(Self.userRecord) }
    }

    public func updateUser(_ user: UserRecord) async throws {
        try await write { db in
            try await db.execute(
                """
                UPDATE users SET nickname = ?, profile_url = ?, metadata = ?, last_seen_at = ?,
                has_ever_logged_in = ?, is_active = ? WHERE user_id = ?
                """,
                [
                    user.nickname, user.profileUrl, Self.json(user.metadata), user.lastSeenAt, user.hasEverLoggedIn,
                    user.isActive, user.userId,
                ])
        }
    }

    public func deleteUser(_ userId: String) async throws -> Bool {
        try await write { db in
            // The channels whose member counts this changes, each locked before it is recounted.
            // Lock them (in URL order) until no new one turns up, then hold the user's row so that no
            // membership can be added meanwhile (adding one checks the row), and look once more.
            var locked = Set<String>()
            func lockMemberships() async throws {
                while true {
                    let urls = try await db.column("SELECT channel_url FROM members WHERE user_id = ?", [userId], as: String.self)
                    let new = Set(urls).subtracting(locked).sorted()
                    if new.isEmpty { return }
                    for url in new {
                        try await Self.lockChannel(db, url)
                        locked.insert(url)
                    }
                }
            }
            try await lockMemberships()
            try await db.execute("SELECT 1 FROM users WHERE user_id = ? FOR UPDATE", [userId])
            try await lockMemberships()
            // Cascades: access tokens, sessions, memberships, blocks, download keys, restrictions, device tokens.
            let deleted = try await db.execute("DELETE FROM users WHERE user_id = ?", [userId]) > 0
            for url in locked.sorted() { try await Self.recountMembers(db, url) }
            return deleted
        }
    }

    public func setLastSeen(_ userId: String, at ms: Int64) async throws {
        try await write { db in
            try await db.execute("UPDATE users SET last_seen_at = ?, has_ever_logged_in = TRUE WHERE user_id = ?", [ms, userId])
            try await db.execute(
                "INSERT INTO activity(day, user_id) VALUES (?, ?) ON CONFLICT DO NOTHING", [ms / 86_400_000, userId])
        }
    }

    public func addAccessToken(userId: String, tokenHash: String, expiresAt: Int64) async throws {
        try await write { db in
            try await db.execute(
                """
                INSERT INTO access_tokens(token_hash, user_id, expires_at) VALUES (?, ?, ?)
                ON CONFLICT (token_hash) DO UPDATE SET user_id = excluded.user_id, expires_at = excluded.expires_at
                """,
                [tokenHash, userId, expiresAt])
        }
    }

    public func accessTokenExpiry(userId: String, tokenHash: String) async throws -> Int64? {
        try await read { db in
            try await db.scalar(
                "SELECT expires_at FROM access_tokens WHERE token_hash = ? AND user_id = ?", [tokenHash, userId], as: Int64.self)
        }
    }

    public func hasAccessTokens(userId: String) async throws -> Bool {
        try await read { db in
            try await db.scalar("SELECT EXISTS(SELECT 1 FROM access_tokens WHERE user_id = ?)", [userId], as: Bool.self) ?? false
        }
    }

    public func revokeAccessTokens(userId: String) async throws {
        try await write { db in
            try await db.execute("DELETE FROM access_tokens WHERE user_id = ?", [userId])
        }
    }

    public func addSession(keyHash: String, userId: String, expiresAt: Int64, tokenHash: String?) async throws {
        try await write { db in
            try await db.execute(
                """
                INSERT INTO sessions(key_hash, user_id, expires_at, token_hash) VALUES (?, ?, ?, ?::text)
                ON CONFLICT (key_hash) DO UPDATE SET user_id = excluded.user_id, expires_at = excluded.expires_at,
                  token_hash = excluded.token_hash
                """,
                [keyHash, userId, expiresAt, tokenHash])
        }
    }

    public func session(keyHash: String) async throws -> SessionRecord? {
        try await read { db in
            guard
                let row = try await db.fetchOne(sessionSQL, [keyHash])
            else { return nil }
            let tokenHash: String? = try row["token_hash"]
            let tokenExists: Bool = try row["token_exists"]
            let tokenExpiresAt: Int64? = try row["token_expires_at"]
            let isActive: Bool? = try row["is_active"]
            return SessionRecord(
                userId: try row["user_id"], expiresAt: try row["expires_at"], tokenHash: tokenHash,
                tokenExpiresAt: tokenHash == nil ? nil : tokenExists ? (tokenExpiresAt ?? 0) : nil,
                userExists: try row["user_exists"], userActive: isActive ?? false)
        }
    }

    public func deleteSessions(userId: String) async throws -> Int {
        try await write { db in
            try await db.execute("DELETE FROM sessions WHERE user_id = ?", [userId])
        }
    }

    public func purgeExpiredSessions(now: Int64) async throws -> Int {
        try await write { db in
            try await db.execute("DELETE FROM sessions WHERE expires_at <> 0 AND expires_at <= ?", [now])
        }
    }

    public func block(_ blocker: String, _ blocked: String, at ms: Int64) async throws -> Bool {
        try await write { db in
            try await db.execute(
                "INSERT INTO blocks(blocker_id, blocked_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                [blocker, blocked, ms]) > 0
        }
    }

    public func unblock(_ blocker: String, _ blocked: String) async throws -> Bool {
        try await write { db in
            try await db.execute("DELETE FROM blocks WHERE blocker_id = ? AND blocked_id = ?", [blocker, blocked]) > 0
        }
    }

    public func blockedUsers(_ userId: String, blockingMe: Bool, afterUserId: String?, limit: Int, userIds: [String]?) async throws -> [UserRecord] {
        let t = blockedUsersSQL(userId, blockingMe: blockingMe, afterUserId: afterUserId, limit: limit, userIds: userIds, dialect: .postgres)
        return try await read { db in try await db.fetchAll(t).map(Self.userRecord) }
    }

    public func blocked(by blocker: String, among userIds: [String]) async throws -> Set<String> {
        if userIds.isEmpty { return [] }
        return try await read { db in
            Set(
                try await db.column(
                    "SELECT blocked_id FROM blocks WHERE blocker_id = ? AND blocked_id = ANY(?)", [blocker, userIds], as: String.self))
        }
    }

    public func blockers(of blocked: String, among userIds: [String]) async throws -> Set<String> {
        if userIds.isEmpty { return [] }
        return try await read { db in
            Set(
                try await db.column(
                    "SELECT blocker_id FROM blocks WHERE blocked_id = ? AND blocker_id = ANY(?)", [blocked, userIds], as: String.self))
        }
    }

    /// Stores a new user (plain INSERT: a taken id fails with SQLSTATE 23505). New users take the
    /// application's default invitation preference (`auto_accept`, default true).
    static func insertUser(_ db: PGConnection, _ u: UserRecord) async throws {
        // The identity rule's last line of defence: the store compares bytes, so only one spelling
        // of an id may ever be stored (``Identifier``).
        try Identifier.check(u.userId, field: "user_id")
        try await db.execute(
            """
            INSERT INTO users(user_id, nickname, profile_url, metadata, created_at, last_seen_at, has_ever_logged_in, is_active,
              auto_accept)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, COALESCE((
              SELECT (json::jsonb ->> 'auto_accept')::boolean FROM settings
              WHERE scope = 'application' AND key = 'default_channel_invitation_preference'), TRUE))
            """,
            [u.userId, u.nickname, u.profileUrl, json(u.metadata), u.createdAt, u.lastSeenAt, u.hasEverLoggedIn, u.isActive])
    }

    static func fetchUser(_ db: PGConnection, _ id: String) async throws -> UserRecord? {
        try await db.fetchOne("SELECT * FROM users WHERE user_id = ?", [id]).map(userRecord)
    }
}
