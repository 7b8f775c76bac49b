import Foundation
import GRDB
import Synchronization
import TernProtocol

/// Users, their credentials, sessions and blocks (``UserStore``) on SQLite.
extension SQLiteStore {
    public func createUser(_ user: UserRecord) async throws -> UserRecord {
        try await self.write { db in
            if try Self.fetchUser(db, user.userId) != nil {
                throw SendbirdError(.alreadyExists, "\"user_id\" violates a unique constraint: \(user.userId) already exists.")
            }
            try Self.insertUser(db, user)
            return user
        }
    }

    public func ensureUser(_ userId: String, nickname: String, now: Int64) async throws -> UserRecord {
        if let u = try await user(userId) { return u }
        return try await self.write { db in
            if let u = try Self.fetchUser(db, userId) { return u }
            let u = UserRecord(
                userId: userId, nickname: nickname, profileUrl: "", metadata: [:], createdAt: now / 1000, lastSeenAt: 0,
                hasEverLoggedIn: false, isActive: true)
            try Self.insertUser(db, u)
            return u
        }
    }

    public func user(_ userId: String) async throws -> UserRecord? {
        try await pool.read { db in try Self.fetchUser(db, userId) }
    }

    public func users(_ userIds: [String]) async throws -> [UserRecord] {
        if userIds.isEmpty { return [] }
        return try await pool.read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM users WHERE user_id IN (\(Self.placeholders(userIds.count)))",
                arguments: StatementArguments(userIds))
            return try rows.map(Self.userRecord)
        }
    }

    public func listUsers(_ q: UserListQuery) async throws -> [UserRecord] {
        guard let t = userListSQL(q, dialect: .sqlite) else { return [] }
        return try await pool.read { db in try Row.fetchAll(db, sql: t.sql, arguments: t.arguments).map(Self.userRecord) }
    }

    /// A JSON path naming one key of an object, quoted so that any key works.
    static func jsonPath(_ key: String) -> String {
        "$.\"" + key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    public func updateUser(_ user: UserRecord) async throws {
        try await self.write { db in
            try db.execute(
                sql: """
                    UPDATE users SET nickname = ?, profile_url = ?, metadata = ?, last_seen_at = ?,
                    has_ever_logged_in = ?, is_active = ? WHERE user_id = ?
                    """,
                arguments: [
                    user.nickname, user.profileUrl, Self.json(user.metadata), user.lastSeenAt, user.hasEverLoggedIn,
                    user.isActive, user.userId,
                ])
        }
    }

    public func deleteUser(_ userId: String) async throws -> Bool {
        try await self.write { db in
            self.forgetTotals(nil)
            let channels = try String.fetchAll(db, sql: "SELECT channel_url FROM members WHERE user_id = ?", arguments: [userId])
            try db.execute(sql: "DELETE FROM users WHERE user_id = ?", arguments: [userId])
            let deleted = db.changesCount > 0
            for url in channels { try Self.recountMembers(db, url) }
            return deleted
        }
    }

    public func setLastSeen(_ userId: String, at ms: Int64) async throws {
        try await self.write { db in
            try db.execute(
                sql: "UPDATE users SET last_seen_at = ?, has_ever_logged_in = 1 WHERE user_id = ?", arguments: [ms, userId])
            try db.execute(sql: "INSERT OR IGNORE INTO activity(day, user_id) VALUES (?, ?)", arguments: [ms / 86_400_000, userId])
        }
    }

    public func addAccessToken(userId: String, tokenHash: String, expiresAt: Int64) async throws {
        try await self.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO access_tokens(token_hash, user_id, expires_at) VALUES (?, ?, ?)",
                arguments: [tokenHash, userId, expiresAt])
        }
    }

    public func accessTokenExpiry(userId: String, tokenHash: String) async throws -> Int64? {
        try await pool.read { db in
            try Int64.fetchOne(
                db, sql: "SELECT expires_at FROM access_tokens WHERE token_hash = ? AND user_id = ?",
                arguments: [tokenHash, userId])
        }
    }

    public func hasAccessTokens(userId: String) async throws -> Bool {
        try await pool.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM access_tokens WHERE user_id = ?)", arguments: [userId]) ?? false
        }
    }

    public func revokeAccessTokens(userId: String) async throws {
        try await self.write { db in
            try db.execute(sql: "DELETE FROM access_tokens WHERE user_id = ?", arguments: [userId])
        }
    }

    public func addSession(keyHash: String, userId: String, expiresAt: Int64, tokenHash: String?) async throws {
        try await self.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO sessions(key_hash, user_id, expires_at, token_hash) VALUES (?, ?, ?, ?)",
                arguments: [keyHash, userId, expiresAt, tokenHash])
        }
    }

    public func session(keyHash: String) async throws -> SessionRecord? {
        try await pool.read { db in
            guard
                let row = try Row.fetchOne(db, sql: sessionSQL, arguments: [keyHash])
            else { return nil }
            let tokenHash: String? = row["token_hash"]
            return SessionRecord(
                userId: row["user_id"], expiresAt: row["expires_at"], tokenHash: tokenHash,
                tokenExpiresAt: tokenHash == nil ? nil : (row["token_exists"] as Bool) ? (row["token_expires_at"] as Int64? ?? 0) : nil,
                userExists: row["user_exists"], userActive: row["is_active"] ?? false)
        }
    }

    public func deleteSessions(userId: String) async throws -> Int {
        try await self.write { db in
            try db.execute(sql: "DELETE FROM sessions WHERE user_id = ?", arguments: [userId])
            return db.changesCount
        }
    }

    public func purgeExpiredSessions(now: Int64) async throws -> Int {
        try await self.write { db in
            try db.execute(sql: "DELETE FROM sessions WHERE expires_at != 0 AND expires_at <= ?", arguments: [now])
            return db.changesCount
        }
    }

    public func block(_ blocker: String, _ blocked: String, at ms: Int64) async throws -> Bool {
        try await self.write { db in
            // Known before the block commits: the send path reads it in its own (later) transaction.
            self.mayBeBlocked.withLock { _ = $0.insert(blocked) }
            try db.execute(
                sql: "INSERT OR IGNORE INTO blocks(blocker_id, blocked_id, created_at) VALUES (?, ?, ?)", arguments: [blocker, blocked, ms])
            return db.changesCount > 0
        }
    }

    public func unblock(_ blocker: String, _ blocked: String) async throws -> Bool {
        try await self.write { db in
            try db.execute(sql: "DELETE FROM blocks WHERE blocker_id = ? AND blocked_id = ?", arguments: [blocker, blocked])
            return db.changesCount > 0
        }
    }

    public func blockedUsers(_ userId: String, blockingMe: Bool, afterUserId: String?, limit: Int, userIds: [String]?) async throws -> [UserRecord] {
        let t = blockedUsersSQL(userId, blockingMe: blockingMe, afterUserId: afterUserId, limit: limit, userIds: userIds, dialect: .sqlite)
        return try await pool.read { db in try Row.fetchAll(db, sql: t.sql, arguments: t.arguments).map(Self.userRecord) }
    }

    public func blocked(by blocker: String, among userIds: [String]) async throws -> Set<String> {
        try await blocks(side: "blocked_id", other: "blocker_id", is: blocker, among: userIds)
    }

    public func blockers(of blocked: String, among userIds: [String]) async throws -> Set<String> {
        try await blocks(side: "blocker_id", other: "blocked_id", is: blocked, among: userIds)
    }

    /// Those of `userIds` on the `side` column of a block whose `other` column is `user`.
    private func blocks(side: String, other: String, is user: String, among userIds: [String]) async throws -> Set<String> {
        if userIds.isEmpty { return [] }
        return try await pool.read { db in
            Set(
                try String.fetchAll(
                    db, sql: "SELECT \(side) FROM blocks WHERE \(other) = ? AND \(side) IN (SELECT value FROM json_each(?))",
                    arguments: [user, Self.json(userIds)]))
        }
    }
}
