import Crypto
import Foundation
import GRDB
import Synchronization
import TernProtocol

/// The default ``Store``: one SQLite file in WAL mode, through GRDB.
///
/// `synchronous=NORMAL` in WAL mode: a committed transaction survives a crash of the process
/// (`kill -9`), which is what an acknowledgement promises (guarantee G1 in `research/backend.md`).
public final class SQLiteStore: Store {
    let pool: DatabasePool
    /// The last `ts` given to unread totals (see ``totals(_:_:hint:)``).
    let unreadStamp = Mutex<Int64>(0)
    /// Unread totals of users by id, kept current by the send path (which only adds) and dropped by
    /// every other write that can move them; read and changed only inside write transactions.
    let totalsCache = Mutex<[String: UnreadCount]>([:])

    /// Drops one user's cached totals, or everyone's (`nil`).
    func forgetTotals(_ userId: String?) {
        totalsCache.withLock { cache in
            if let userId { cache[userId] = nil } else { cache.removeAll() }
        }
    }

    /// Opens (creating if needed) the database at `path` and runs the migrations. `clock` dates
    /// the change log the triggers keep (`tern_now()` in SQL: channel and member change times,
    /// channel tombstones).
    /// - Throws: when the file cannot be opened or migrated.
    public init(path: String, clock: any ServerClock = SystemClock()) throws {
        var config = Configuration()
        let now = DatabaseFunction("tern_now", argumentCount: 0, pure: false) { _ in clock.nowMs() }
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA foreign_keys = ON")
            // The WAL is checkpointed by `checkpointer`, off the write path; this is the backstop
            // should it fall behind (32 MB of WAL).
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(Self.backstopCheckpointPages)")
            db.add(function: now)
        }
        config.busyMode = .timeout(5)
        pool = try DatabasePool(path: path, configuration: config)
        try Self.migrator.migrate(pool)
        checkpointer = try WALCheckpointer(path: path)
    }

    /// The writer checkpoints by itself only past this many WAL pages.
    static let backstopCheckpointPages = 8192
    let checkpointer: WALCheckpointer

    public func close() async throws {
        checkpointer.stop()
        try pool.close()
    }

    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE users (
                        user_id TEXT PRIMARY KEY NOT NULL,
                        nickname TEXT NOT NULL DEFAULT '',
                        profile_url TEXT NOT NULL DEFAULT '',
                        metadata TEXT NOT NULL DEFAULT '{}',
                        created_at INTEGER NOT NULL,
                        last_seen_at INTEGER NOT NULL DEFAULT 0,
                        has_ever_logged_in INTEGER NOT NULL DEFAULT 0,
                        is_active INTEGER NOT NULL DEFAULT 1
                    );
                    CREATE TABLE access_tokens (
                        token_hash TEXT PRIMARY KEY NOT NULL,
                        user_id TEXT NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
                        expires_at INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE INDEX access_tokens_user ON access_tokens(user_id);
                    CREATE TABLE sessions (
                        key_hash TEXT PRIMARY KEY NOT NULL,
                        user_id TEXT NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
                        expires_at INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE INDEX sessions_user ON sessions(user_id);
                    CREATE TABLE group_channels (
                        channel_url TEXT PRIMARY KEY NOT NULL,
                        name TEXT NOT NULL DEFAULT '',
                        cover_url TEXT NOT NULL DEFAULT '',
                        custom_type TEXT NOT NULL DEFAULT '',
                        data TEXT NOT NULL DEFAULT '',
                        created_at INTEGER NOT NULL,
                        created_by TEXT,
                        is_distinct INTEGER NOT NULL DEFAULT 0,
                        is_public INTEGER NOT NULL DEFAULT 0,
                        is_super INTEGER NOT NULL DEFAULT 0,
                        is_ephemeral INTEGER NOT NULL DEFAULT 0,
                        freeze INTEGER NOT NULL DEFAULT 0,
                        distinct_key TEXT,
                        last_message_id INTEGER,
                        last_message_ts INTEGER NOT NULL DEFAULT 0,
                        member_count INTEGER NOT NULL DEFAULT 0,
                        joined_member_count INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE INDEX group_channels_distinct ON group_channels(distinct_key) WHERE distinct_key IS NOT NULL;
                    CREATE TABLE members (
                        channel_url TEXT NOT NULL REFERENCES group_channels(channel_url) ON DELETE CASCADE,
                        user_id TEXT NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
                        state TEXT NOT NULL DEFAULT 'joined',
                        role TEXT NOT NULL DEFAULT 'none',
                        joined_ts INTEGER NOT NULL DEFAULT 0,
                        invited_at INTEGER NOT NULL DEFAULT 0,
                        read_ts INTEGER NOT NULL DEFAULT 0,
                        delivered_ts INTEGER NOT NULL DEFAULT 0,
                        unread_count INTEGER NOT NULL DEFAULT 0,
                        unread_mention_count INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (channel_url, user_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX members_user ON members(user_id);
                    CREATE TABLE messages (
                        message_id INTEGER PRIMARY KEY AUTOINCREMENT,
                        channel_url TEXT NOT NULL REFERENCES group_channels(channel_url) ON DELETE CASCADE,
                        type TEXT NOT NULL,
                        sender_id TEXT,
                        message TEXT NOT NULL DEFAULT '',
                        custom_type TEXT NOT NULL DEFAULT '',
                        data TEXT NOT NULL DEFAULT '',
                        mention_type TEXT NOT NULL DEFAULT 'users',
                        mentioned_user_ids TEXT NOT NULL DEFAULT '[]',
                        silent INTEGER NOT NULL DEFAULT 0,
                        is_op_msg INTEGER NOT NULL DEFAULT 0,
                        created_at INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL DEFAULT 0,
                        parent_message_id INTEGER NOT NULL DEFAULT 0,
                        req_id TEXT
                    );
                    CREATE INDEX messages_channel_ts ON messages(channel_url, created_at, message_id);
                    CREATE UNIQUE INDEX messages_req ON messages(channel_url, sender_id, req_id) WHERE req_id IS NOT NULL;
                    """)
        }
        m.registerMigration("v2-membership") { db in
            try db.execute(
                sql: """
                    ALTER TABLE members ADD COLUMN inviter_id TEXT;
                    ALTER TABLE members ADD COLUMN hidden_state TEXT NOT NULL DEFAULT 'unhidden';
                    ALTER TABLE members ADD COLUMN ts_message_offset INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE users ADD COLUMN auto_accept INTEGER NOT NULL DEFAULT 1;
                    """)
        }
        m.registerMigration("v3-channel-metadata") { db in
            try db.execute(
                sql: """
                    CREATE TABLE channel_metadata (
                        channel_url TEXT NOT NULL REFERENCES group_channels(channel_url) ON DELETE CASCADE,
                        key TEXT NOT NULL,
                        value TEXT NOT NULL,
                        PRIMARY KEY (channel_url, key)
                    ) WITHOUT ROWID;
                    CREATE INDEX channel_metadata_key_value ON channel_metadata(key, value);
                    CREATE TABLE channel_metacounters (
                        channel_url TEXT NOT NULL REFERENCES group_channels(channel_url) ON DELETE CASCADE,
                        key TEXT NOT NULL,
                        value INTEGER NOT NULL,
                        PRIMARY KEY (channel_url, key)
                    ) WITHOUT ROWID;
                    """)
        }
        m.registerMigration("v4-receipts-blocks") { db in
            try db.execute(
                sql: """
                    ALTER TABLE members ADD COLUMN count_preference TEXT NOT NULL DEFAULT 'all';
                    ALTER TABLE messages ADD COLUMN hidden_for TEXT;
                    CREATE TABLE blocks (
                        blocker_id TEXT NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
                        blocked_id TEXT NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
                        created_at INTEGER NOT NULL,
                        PRIMARY KEY (blocker_id, blocked_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX blocks_blocked ON blocks(blocked_id);
                    """)
        }
        m.registerMigration("v5-threads-reactions-search") { db in
            try db.execute(
                sql: """
                    ALTER TABLE messages ADD COLUMN sorted_metaarray TEXT NOT NULL DEFAULT '[]';
                    ALTER TABLE messages ADD COLUMN reply_to_channel INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE messages ADD COLUMN reply_count INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE messages ADD COLUMN last_replied_at INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE messages ADD COLUMN most_replies TEXT NOT NULL DEFAULT '[]';
                    ALTER TABLE messages ADD COLUMN og_tag TEXT;
                    ALTER TABLE messages ADD COLUMN files TEXT;
                    CREATE INDEX messages_parent ON messages(parent_message_id, created_at, message_id) WHERE parent_message_id <> 0;
                    CREATE TABLE reactions (
                        message_id INTEGER NOT NULL REFERENCES messages(message_id) ON DELETE CASCADE,
                        key TEXT NOT NULL,
                        user_id TEXT NOT NULL,
                        updated_at INTEGER NOT NULL,
                        PRIMARY KEY (message_id, key, user_id)
                    ) WITHOUT ROWID;
                    CREATE VIRTUAL TABLE messages_fts USING fts5(
                        message, custom_type, data, content='messages', content_rowid='message_id', tokenize='unicode61 remove_diacritics 2'
                    );
                    CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
                        INSERT INTO messages_fts(rowid, message, custom_type, data) VALUES (new.message_id, new.message, new.custom_type, new.data);
                    END;
                    CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
                        INSERT INTO messages_fts(messages_fts, rowid, message, custom_type, data) VALUES ('delete', old.message_id, old.message, old.custom_type, old.data);
                    END;
                    CREATE TRIGGER messages_fts_update AFTER UPDATE OF message, custom_type, data ON messages BEGIN
                        INSERT INTO messages_fts(messages_fts, rowid, message, custom_type, data) VALUES ('delete', old.message_id, old.message, old.custom_type, old.data);
                        INSERT INTO messages_fts(rowid, message, custom_type, data) VALUES (new.message_id, new.message, new.custom_type, new.data);
                    END;
                    INSERT INTO messages_fts(messages_fts) VALUES ('rebuild');
                    """)
        }
        m.registerMigration("v6-search-vocabulary") { db in
            try db.execute(sql: "CREATE VIRTUAL TABLE messages_fts_vocab USING fts5vocab('messages_fts', 'row')")
        }
        m.registerMigration("v7-files") { db in
            try db.execute(
                sql: """
                    CREATE TABLE files (
                        file_id TEXT PRIMARY KEY NOT NULL,
                        channel_url TEXT NOT NULL REFERENCES group_channels(channel_url) ON DELETE CASCADE,
                        uploader_id TEXT,
                        name TEXT NOT NULL,
                        type TEXT NOT NULL,
                        size INTEGER NOT NULL,
                        created_at INTEGER NOT NULL,
                        thumbnails TEXT NOT NULL DEFAULT '[]'
                    );
                    CREATE TABLE file_auth (
                        key_hash TEXT PRIMARY KEY NOT NULL,
                        user_id TEXT NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
                        expires_at INTEGER NOT NULL
                    );
                    CREATE INDEX file_auth_user ON file_auth(user_id);
                    """)
        }
        m.registerMigration("v8-link-previews") { db in
            try db.execute(
                sql: """
                    CREATE TABLE og_cache (
                        url TEXT PRIMARY KEY NOT NULL,
                        og_tag TEXT,
                        fetched_at INTEGER NOT NULL
                    );
                    """)
        }
        m.registerMigration("v9-open-channels-moderation") { db in
            try db.execute(
                sql: """
                    ALTER TABLE group_channels ADD COLUMN channel_type TEXT NOT NULL DEFAULT 'group';
                    ALTER TABLE group_channels ADD COLUMN operator_ids TEXT NOT NULL DEFAULT '[]';
                    CREATE INDEX channels_open ON group_channels(channel_type, created_at) WHERE channel_type = 'open';
                    CREATE TABLE restrictions (
                        channel_url TEXT NOT NULL REFERENCES group_channels(channel_url) ON DELETE CASCADE,
                        kind TEXT NOT NULL,
                        user_id TEXT NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
                        start_at INTEGER NOT NULL,
                        end_at INTEGER NOT NULL,
                        description TEXT NOT NULL DEFAULT '',
                        PRIMARY KEY (channel_url, kind, user_id)
                    ) WITHOUT ROWID;
                    CREATE TABLE reports (
                        report_id INTEGER PRIMARY KEY AUTOINCREMENT,
                        category TEXT NOT NULL,
                        description TEXT NOT NULL DEFAULT '',
                        reporting_user_id TEXT,
                        offending_user_id TEXT,
                        channel_url TEXT,
                        channel_type TEXT,
                        message_id INTEGER,
                        reported_message TEXT,
                        created_at INTEGER NOT NULL
                    );
                    CREATE INDEX reports_channel ON reports(channel_url, message_id);
                    CREATE INDEX reports_offender ON reports(offending_user_id);
                    CREATE INDEX users_nickname ON users(nickname);
                    """)
        }
        m.registerMigration("v10-message-changelog") { db in
            try db.execute(
                sql: """
                    ALTER TABLE messages ADD COLUMN changed_at INTEGER NOT NULL DEFAULT 0;
                    CREATE INDEX messages_changed ON messages(channel_url, changed_at, message_id) WHERE changed_at > 0;
                    CREATE TABLE message_tombstones (
                        channel_url TEXT NOT NULL REFERENCES group_channels(channel_url) ON DELETE CASCADE,
                        message_id INTEGER NOT NULL,
                        deleted_at INTEGER NOT NULL,
                        PRIMARY KEY (channel_url, message_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX message_tombstones_time ON message_tombstones(channel_url, deleted_at, message_id);
                    """)
        }
        m.registerMigration("v11-channel-changelog") { db in
            // The channel changelog (`my_group_channels/changelogs`): when a channel changed as a whole
            // (properties, members, operators, metadata, a last message edited or deleted — a new last
            // message is its own `last_message_ts`), when one member's view of it changed (joined,
            // invited, read, hidden, role, count preference), and when a user lost it (left, removed,
            // banned, deleted: a tombstone kept until they are a member again). Triggers keep all three,
            // so every write path does; the per-message unread update only pays a `WHEN` test.
            try db.execute(
                sql: """
                    ALTER TABLE group_channels ADD COLUMN changed_at INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE members ADD COLUMN changed_at INTEGER NOT NULL DEFAULT 0;
                    UPDATE group_channels SET changed_at = max(created_at * 1000, last_message_ts);
                    UPDATE members SET changed_at = max(joined_ts, invited_at, read_ts);
                    CREATE TABLE channel_tombstones (
                        user_id TEXT NOT NULL,
                        channel_url TEXT NOT NULL,
                        deleted_at INTEGER NOT NULL,
                        PRIMARY KEY (user_id, channel_url)
                    ) WITHOUT ROWID;
                    CREATE INDEX channel_tombstones_time ON channel_tombstones(user_id, deleted_at);
                    CREATE TRIGGER channel_changed AFTER UPDATE OF
                      name, cover_url, custom_type, data, freeze, is_public, is_distinct, is_super, member_count,
                      joined_member_count, operator_ids, last_message_id, last_message_ts ON group_channels
                    WHEN NEW.last_message_ts <= OLD.last_message_ts OR NEW.last_message_id IS OLD.last_message_id
                    BEGIN
                      UPDATE group_channels SET changed_at = tern_now() WHERE channel_url = NEW.channel_url;
                    END;
                    CREATE TRIGGER channel_metadata_added AFTER INSERT ON channel_metadata BEGIN
                      UPDATE group_channels SET changed_at = tern_now() WHERE channel_url = NEW.channel_url;
                    END;
                    CREATE TRIGGER channel_metadata_changed AFTER UPDATE ON channel_metadata WHEN NEW.value IS NOT OLD.value BEGIN
                      UPDATE group_channels SET changed_at = tern_now() WHERE channel_url = NEW.channel_url;
                    END;
                    CREATE TRIGGER channel_metadata_removed AFTER DELETE ON channel_metadata BEGIN
                      UPDATE group_channels SET changed_at = tern_now() WHERE channel_url = OLD.channel_url;
                    END;
                    CREATE TRIGGER last_message_edited AFTER UPDATE OF changed_at ON messages
                    WHEN NEW.changed_at > OLD.changed_at
                      AND NEW.message_id = (SELECT last_message_id FROM group_channels WHERE channel_url = NEW.channel_url)
                    BEGIN
                      UPDATE group_channels SET changed_at = NEW.changed_at WHERE channel_url = NEW.channel_url;
                    END;
                    CREATE TRIGGER member_added AFTER INSERT ON members BEGIN
                      UPDATE members SET changed_at = tern_now() WHERE channel_url = NEW.channel_url AND user_id = NEW.user_id;
                      DELETE FROM channel_tombstones WHERE user_id = NEW.user_id AND channel_url = NEW.channel_url;
                    END;
                    CREATE TRIGGER member_changed AFTER UPDATE OF
                      state, role, read_ts, hidden_state, count_preference, ts_message_offset, invited_at, joined_ts ON members
                    WHEN NEW.state IS NOT OLD.state OR NEW.role IS NOT OLD.role OR NEW.read_ts IS NOT OLD.read_ts
                      OR NEW.hidden_state IS NOT OLD.hidden_state OR NEW.count_preference IS NOT OLD.count_preference
                      OR NEW.ts_message_offset IS NOT OLD.ts_message_offset OR NEW.invited_at IS NOT OLD.invited_at
                      OR NEW.joined_ts IS NOT OLD.joined_ts
                    BEGIN
                      UPDATE members SET changed_at = tern_now() WHERE channel_url = NEW.channel_url AND user_id = NEW.user_id;
                    END;
                    CREATE TRIGGER member_removed AFTER DELETE ON members BEGIN
                      INSERT OR REPLACE INTO channel_tombstones(user_id, channel_url, deleted_at) VALUES (OLD.user_id, OLD.channel_url, tern_now());
                    END;
                    """)
        }
        m.registerMigration("v12-channel-changelog-shared-views") { db in
            // What every member's channel JSON shows about one member: their role (`operators`,
            // `members[].role`) and whether they are muted (`members[].is_muted`, the viewer's own
            // `is_muted`). A change moves the whole channel. (Read and delivery receipts are read
            // from the member rows themselves by the changelog query: no write on the receipt path.)
            try db.execute(
                sql: """
                    CREATE TRIGGER member_role_changed AFTER UPDATE OF role ON members WHEN NEW.role IS NOT OLD.role BEGIN
                      UPDATE group_channels SET changed_at = tern_now() WHERE channel_url = NEW.channel_url;
                    END;
                    CREATE TRIGGER mute_added AFTER INSERT ON restrictions WHEN NEW.kind = 'mute' BEGIN
                      UPDATE group_channels SET changed_at = tern_now() WHERE channel_url = NEW.channel_url;
                    END;
                    CREATE TRIGGER mute_changed AFTER UPDATE ON restrictions WHEN NEW.kind = 'mute' BEGIN
                      UPDATE group_channels SET changed_at = tern_now() WHERE channel_url = NEW.channel_url;
                    END;
                    CREATE TRIGGER mute_lifted AFTER DELETE ON restrictions WHEN OLD.kind = 'mute' BEGIN
                      UPDATE group_channels SET changed_at = tern_now() WHERE channel_url = OLD.channel_url;
                    END;
                    """)
        }
        m.registerMigration("v13-session-tokens") { db in
            // The access token a session was made from (its hash; NULL when the user connected
            // without one): revoking the token ends the session, and the session ends when it does.
            try db.execute(sql: "ALTER TABLE sessions ADD COLUMN token_hash TEXT")
        }
        m.registerMigration("v14-platform-settings") { db in
            // Settings the Platform API stores as documents (push preferences, application
            // settings, webhooks, …): one JSON text per scope and key.
            try db.execute(
                sql: """
                    CREATE TABLE settings (
                        scope TEXT NOT NULL,
                        key TEXT NOT NULL,
                        json TEXT NOT NULL,
                        PRIMARY KEY (scope, key)
                    ) WITHOUT ROWID;
                    CREATE TABLE device_tokens (
                        token_type TEXT NOT NULL,
                        token TEXT NOT NULL,
                        user_id TEXT NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
                        created_at INTEGER NOT NULL,
                        PRIMARY KEY (token_type, token, user_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX device_tokens_user ON device_tokens(user_id, token_type);
                    CREATE INDEX restrictions_user ON restrictions(user_id, kind, channel_url);
                    """)
        }
        m.registerMigration("v15-activity") { db in
            // Who connected on which day (UTC day number): daily and monthly active users.
            try db.execute(
                sql: """
                    CREATE TABLE activity (
                        day INTEGER NOT NULL,
                        user_id TEXT NOT NULL,
                        PRIMARY KEY (day, user_id)
                    ) WITHOUT ROWID;
                    """)
        }
        m.registerMigration("v16-file-keys-per-session") { db in
            // A download key names the session it was made for (the hash of its key) and ends
            // with it. Keys from before name none: they are dropped (a client gets a new one at
            // its next login, which the restart that runs this migration brings anyway).
            try db.execute(sql: "DELETE FROM file_auth; ALTER TABLE file_auth ADD COLUMN session_hash TEXT")
        }
        m.registerMigration("v17-hashed-api-tokens") { db in
            // Secondary API tokens were kept as issued (scope `api_token`, the token as key); now
            // only their SHA-256 (hex) is, with the last four characters as a hint.
            let rows = try Row.fetchAll(db, sql: "SELECT key, json FROM settings WHERE scope = 'api_token'")
            for row in rows {
                let token: String = row["key"]
                let json: String = row["json"]
                var fields = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] ?? [:]
                fields["hint"] = String(token.suffix(4))
                let hash = SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
                let text = String(decoding: try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]), as: UTF8.self)
                try db.execute(
                    sql: "INSERT OR REPLACE INTO settings(scope, key, json) VALUES ('api_token_sha256', ?, ?)", arguments: [hash, text])
            }
            try db.execute(sql: "DELETE FROM settings WHERE scope = 'api_token'")
        }
        return m
    }

    // MARK: - Users

    public func createUser(_ user: UserRecord) async throws -> UserRecord {
        try await pool.write { db in
            if try Self.fetchUser(db, user.userId) != nil {
                throw SendbirdError(.alreadyExists, "\"user_id\" violates a unique constraint: \(user.userId) already exists.")
            }
            try Self.insertUser(db, user)
            return user
        }
    }

    public func ensureUser(_ userId: String, nickname: String, now: Int64) async throws -> UserRecord {
        if let u = try await user(userId) { return u }
        return try await pool.write { db in
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
        try await pool.write { db in
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
        try await pool.write { db in
            self.forgetTotals(nil)
            let channels = try String.fetchAll(db, sql: "SELECT channel_url FROM members WHERE user_id = ?", arguments: [userId])
            try db.execute(sql: "DELETE FROM users WHERE user_id = ?", arguments: [userId])
            let deleted = db.changesCount > 0
            for url in channels { try Self.recountMembers(db, url) }
            return deleted
        }
    }

    public func setLastSeen(_ userId: String, at ms: Int64) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE users SET last_seen_at = ?, has_ever_logged_in = 1 WHERE user_id = ?", arguments: [ms, userId])
            try db.execute(sql: "INSERT OR IGNORE INTO activity(day, user_id) VALUES (?, ?)", arguments: [ms / 86_400_000, userId])
        }
    }

    // MARK: - Credentials

    public func addAccessToken(userId: String, tokenHash: String, expiresAt: Int64) async throws {
        try await pool.write { db in
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
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM access_tokens WHERE user_id = ?", arguments: [userId])
        }
    }

    public func addSession(keyHash: String, userId: String, expiresAt: Int64, tokenHash: String?) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO sessions(key_hash, user_id, expires_at, token_hash) VALUES (?, ?, ?, ?)",
                arguments: [keyHash, userId, expiresAt, tokenHash])
        }
    }

    public func session(keyHash: String) async throws -> SessionRecord? {
        try await pool.read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT s.user_id, s.expires_at, s.token_hash, u.is_active, u.user_id IS NOT NULL AS user_exists,
                               t.token_hash IS NOT NULL AS token_exists, t.expires_at AS token_expires_at
                        FROM sessions s
                        LEFT JOIN users u ON u.user_id = s.user_id
                        LEFT JOIN access_tokens t ON t.token_hash = s.token_hash AND t.user_id = s.user_id
                        WHERE s.key_hash = ?
                        """, arguments: [keyHash])
            else { return nil }
            let tokenHash: String? = row["token_hash"]
            return SessionRecord(
                userId: row["user_id"], expiresAt: row["expires_at"], tokenHash: tokenHash,
                tokenExpiresAt: tokenHash == nil ? nil : (row["token_exists"] as Bool) ? (row["token_expires_at"] as Int64? ?? 0) : nil,
                userExists: row["user_exists"], userActive: row["is_active"] ?? false)
        }
    }

    public func deleteSessions(userId: String) async throws -> Int {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM sessions WHERE user_id = ?", arguments: [userId])
            return db.changesCount
        }
    }

    public func purgeExpiredSessions(now: Int64) async throws -> Int {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM sessions WHERE expires_at != 0 AND expires_at <= ?", arguments: [now])
            return db.changesCount
        }
    }

    // MARK: - Channels

    public func createGroupChannel(_ new: NewGroupChannel) async throws -> (channel: ChannelRecord, created: Bool) {
        let memberIds = Array(Set(new.userIds)).sorted()
        let distinctKey = new.isDistinct ? memberIds.joined(separator: "\u{1F}") : nil
        return try await pool.write { db in
            self.forgetTotals(nil)
            if let key = distinctKey,
                let url = try String.fetchOne(
                    db, sql: "SELECT channel_url FROM group_channels WHERE distinct_key = ? AND is_distinct = 1 LIMIT 1",
                    arguments: [key]),
                let existing = try Self.fetchChannel(db, url)
            {
                return (existing, false)
            }
            if try Self.fetchChannel(db, new.channelUrl) != nil {
                throw SendbirdError(.alreadyExists, "\"channel_url\" violates a unique constraint: \(new.channelUrl) already exists.")
            }
            try db.execute(
                sql: """
                    INSERT INTO group_channels(channel_url, name, cover_url, custom_type, data, created_at, created_by,
                      is_distinct, is_public, is_super, is_ephemeral, distinct_key)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    new.channelUrl, new.name, new.coverUrl, new.customType, new.data, new.createdAt, new.creator,
                    new.isDistinct, new.isPublic, new.isSuper, new.isEphemeral, distinctKey,
                ])
            let operators = Set(new.operatorIds)
            // Read receipts start just before the channel does: nothing in it is read yet, and the SDKs
            // (which skip members whose receipt is 0) count every member as not having read what follows.
            let invited = Set(new.invitedIds)
            for uid in memberIds {
                let isInvited = invited.contains(uid)
                try db.execute(
                    sql: """
                        INSERT INTO members(channel_url, user_id, state, role, joined_ts, invited_at, read_ts, inviter_id)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        new.channelUrl, uid, isInvited ? "invited" : "joined", operators.contains(uid) ? "operator" : "none",
                        isInvited ? 0 : new.nowMs, isInvited ? new.nowMs : 0, max(new.nowMs - 1, 0), isInvited ? new.creator : nil,
                    ])
            }
            try Self.recountMembers(db, new.channelUrl)
            return (try Self.fetchChannel(db, new.channelUrl)!, true)
        }
    }

    public func channel(_ channelUrl: String) async throws -> ChannelRecord? {
        try await pool.read { db in try Self.fetchChannel(db, channelUrl) }
    }

    public func members(_ channelUrl: String) async throws -> [MemberRecord] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM members WHERE channel_url = ? ORDER BY user_id", arguments: [channelUrl])
                .map(Self.memberRecord)
        }
    }

    public func member(_ channelUrl: String, userId: String) async throws -> MemberRecord? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM members WHERE channel_url = ? AND user_id = ?", arguments: [channelUrl, userId])
                .map(Self.memberRecord)
        }
    }

    public func members(ofChannels channelUrls: [String]) async throws -> [String: [MemberRecord]] {
        if channelUrls.isEmpty { return [:] }
        return try await pool.read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM members WHERE channel_url IN (\(Self.placeholders(channelUrls.count))) ORDER BY user_id",
                arguments: StatementArguments(channelUrls))
            return Dictionary(grouping: try rows.map(Self.memberRecord), by: \.channelUrl)
        }
    }

    public func listChannels(_ q: ChannelListQuery) async throws -> [(channel: ChannelRecord, cursor: ChannelCursor)] {
        try await pool.read { db in
            let snapshot = q.after?.snapshot ?? (q.snapshot > 0 ? q.snapshot : Int64.max / 4)
            let list = ChannelListSQL(q, snapshot: snapshot, dialect: .sqlite)
            return try Row.fetchAll(db, sql: list.statement.sql, arguments: list.statement.arguments).map { row in
                let cursor = ChannelCursor(
                    snapshot: snapshot, number: list.textKey ? nil : row["sort_key"], text: list.textKey ? row["sort_key"] : nil,
                    url: row["channel_url"])
                return (try Self.channelRecord(row), cursor)
            }
        }
    }

    // MARK: - Channel metadata

    public func channelMetadata(_ channelUrls: [String]) async throws -> [String: [String: String]] {
        if channelUrls.isEmpty { return [:] }
        return try await pool.read { db in
            var out: [String: [String: String]] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT * FROM channel_metadata WHERE channel_url IN (\(Self.placeholders(channelUrls.count)))",
                arguments: StatementArguments(channelUrls))
            {
                out[row["channel_url"], default: [:]][row["key"]] = row["value"]
            }
            return out
        }
    }

    public func changeChannelMetadata(_ channelUrl: String, _ change: MetadataChange) async throws -> MetadataResult {
        try await pool.write { db in
            guard try Self.fetchChannel(db, channelUrl) != nil else { throw SendbirdError.notFound("Channel") }
            func existing(_ key: String) throws -> Bool {
                try Bool.fetchOne(db, sql: "SELECT 1 FROM channel_metadata WHERE channel_url = ? AND key = ?", arguments: [channelUrl, key]) ?? false
            }
            var result = MetadataResult()
            switch change {
            case .create(let items):
                for key in items.keys.sorted() where try existing(key) {
                    throw SendbirdError(.alreadyExists, "\"\(key)\" violates a unique constraint: the metadata key already exists.")
                }
                for (k, v) in items {
                    try db.execute(sql: "INSERT INTO channel_metadata(channel_url, key, value) VALUES (?, ?, ?)", arguments: [channelUrl, k, v])
                }
                result.created = items
            case .update(let items, let upsert):
                for key in items.keys.sorted() where !upsert {
                    if try !existing(key) { throw SendbirdError(.notFound, "\"Metadata\" not found: \(key).") }
                }
                for (k, v) in items {
                    if try existing(k) { result.updated[k] = v } else { result.created[k] = v }
                    try db.execute(
                        sql: "INSERT INTO channel_metadata(channel_url, key, value) VALUES (?, ?, ?) ON CONFLICT(channel_url, key) DO UPDATE SET value = excluded.value",
                        arguments: [channelUrl, k, v])
                }
            case .delete(let keys):
                if let keys {
                    for k in keys {
                        if try !existing(k) { throw SendbirdError(.notFound, "\"Metadata\" not found: \(k).") }
                        try db.execute(sql: "DELETE FROM channel_metadata WHERE channel_url = ? AND key = ?", arguments: [channelUrl, k])
                        result.deleted.append(k)
                    }
                } else {
                    result.deleted = try String.fetchAll(db, sql: "SELECT key FROM channel_metadata WHERE channel_url = ? ORDER BY key", arguments: [channelUrl])
                    try db.execute(sql: "DELETE FROM channel_metadata WHERE channel_url = ?", arguments: [channelUrl])
                }
            }
            return result
        }
    }

    public func channelMetacounters(_ channelUrl: String) async throws -> [String: Int64] {
        try await pool.read { db in
            var out: [String: Int64] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT * FROM channel_metacounters WHERE channel_url = ?", arguments: [channelUrl]) {
                out[row["key"]] = row["value"]
            }
            return out
        }
    }

    public func changeChannelMetacounters(_ channelUrl: String, _ change: MetacounterChange) async throws -> MetacounterResult {
        try await pool.write { db in
            guard try Self.fetchChannel(db, channelUrl) != nil else { throw SendbirdError.notFound("Channel") }
            func current(_ key: String) throws -> Int64? {
                try Int64.fetchOne(db, sql: "SELECT value FROM channel_metacounters WHERE channel_url = ? AND key = ?", arguments: [channelUrl, key])
            }
            func write(_ key: String, _ value: Int64) throws {
                try db.execute(
                    sql: "INSERT INTO channel_metacounters(channel_url, key, value) VALUES (?, ?, ?) ON CONFLICT(channel_url, key) DO UPDATE SET value = excluded.value",
                    arguments: [channelUrl, key, value])
            }
            var result = MetacounterResult()
            switch change {
            case .create(let items):
                for key in items.keys.sorted() where try current(key) != nil {
                    throw SendbirdError(.alreadyExists, "\"\(key)\" violates a unique constraint: the metacounter key already exists.")
                }
                for (k, v) in items { try write(k, v) }
                result.created = items
            case .update(let items, let mode, let upsert):
                for key in items.keys.sorted() where !upsert {
                    if try current(key) == nil { throw SendbirdError(.notFound, "\"Metacounter\" not found: \(key).") }
                }
                for (k, v) in items {
                    let old = try current(k)
                    let (sum, overflow): (Int64, Bool) =
                        switch mode {
                        case "increase": (old ?? 0).addingReportingOverflow(v)
                        case "decrease": (old ?? 0).subtractingReportingOverflow(v)
                        default: (v, false)
                        }
                    if overflow { throw SendbirdError(.invalidValue, "The metacounter \"\(k)\" would overflow.") }
                    try write(k, sum)
                    if old == nil { result.created[k] = sum } else { result.updated[k] = sum }
                }
            case .delete(let keys):
                if let keys {
                    for k in keys {
                        if try current(k) == nil { throw SendbirdError(.notFound, "\"Metacounter\" not found: \(k).") }
                        try db.execute(sql: "DELETE FROM channel_metacounters WHERE channel_url = ? AND key = ?", arguments: [channelUrl, k])
                        result.deleted.append(k)
                    }
                } else {
                    result.deleted = try String.fetchAll(db, sql: "SELECT key FROM channel_metacounters WHERE channel_url = ? ORDER BY key", arguments: [channelUrl])
                    try db.execute(sql: "DELETE FROM channel_metacounters WHERE channel_url = ?", arguments: [channelUrl])
                }
            }
            return result
        }
    }

    // MARK: - Membership

    public func channelCount(userId: String) async throws -> Int {
        try await pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM members WHERE user_id = ?", arguments: [userId]) ?? 0
        }
    }

    public func addMembers(_ channelUrl: String, _ adds: [MemberAdd], nowMs: Int64, chatHistory: Bool) async throws -> [MemberRecord] {
        try await pool.write { db in
            self.forgetTotals(nil)
            guard try Self.fetchChannel(db, channelUrl) != nil else { throw SendbirdError.notFound("Channel") }
            let lastTs = try Int64.fetchOne(db, sql: "SELECT last_message_ts FROM group_channels WHERE channel_url = ?", arguments: [channelUrl]) ?? 0
            var added: [MemberRecord] = []
            for a in adds {
                let exists = try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM members WHERE channel_url = ? AND user_id = ?", arguments: [channelUrl, a.userId]) ?? false
                if exists { continue }
                // Seed 002: a new member's read receipt is the last message's time with chat history, else 0
                // (and without chat history what came before is hidden from them). Nothing before is unread.
                try db.execute(
                    sql: """
                        INSERT INTO members(channel_url, user_id, state, role, joined_ts, invited_at, read_ts, inviter_id, ts_message_offset)
                        VALUES (?, ?, ?, 'none', ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        channelUrl, a.userId, a.state, a.state == "joined" ? nowMs : 0, a.inviterId == nil ? 0 : nowMs,
                        chatHistory ? lastTs : 0, a.inviterId, chatHistory ? 0 : nowMs,
                    ])
                if let row = try Row.fetchOne(
                    db, sql: "SELECT * FROM members WHERE channel_url = ? AND user_id = ?", arguments: [channelUrl, a.userId])
                {
                    added.append(try Self.memberRecord(row))
                }
            }
            if !added.isEmpty {
                try db.execute(
                    sql: "UPDATE group_channels SET is_distinct = 0, distinct_key = NULL WHERE channel_url = ?", arguments: [channelUrl])
                try Self.recountMembers(db, channelUrl)
            }
            return added
        }
    }

    public func acceptInvitation(_ channelUrl: String, userId: String, nowMs: Int64) async throws -> Bool {
        try await pool.write { db in
            self.forgetTotals(nil)
            try db.execute(
                sql: "UPDATE members SET state = 'joined', joined_ts = ? WHERE channel_url = ? AND user_id = ? AND state = 'invited'",
                arguments: [nowMs, channelUrl, userId])
            guard db.changesCount > 0 else { return false }
            try Self.recountMembers(db, channelUrl)
            return true
        }
    }

    public func removeMember(_ channelUrl: String, userId: String, turnOffDistinct: Bool) async throws -> Bool {
        try await pool.write { db in
            self.forgetTotals(nil)
            try db.execute(sql: "DELETE FROM members WHERE channel_url = ? AND user_id = ?", arguments: [channelUrl, userId])
            guard db.changesCount > 0 else { return false }
            if turnOffDistinct {
                try db.execute(
                    sql: "UPDATE group_channels SET is_distinct = 0, distinct_key = NULL WHERE channel_url = ?", arguments: [channelUrl])
            }
            try Self.recountMembers(db, channelUrl)
            return true
        }
    }

    public func updateChannel(_ c: ChannelRecord) async throws {
        try await pool.write { db in
            self.forgetTotals(nil)
            try db.execute(
                sql: "UPDATE group_channels SET name = ?, cover_url = ?, data = ?, custom_type = ?, freeze = ? WHERE channel_url = ?",
                arguments: [c.name, c.coverUrl, c.data, c.customType, c.freeze, c.channelUrl])
        }
    }

    public func deleteChannel(_ channelUrl: String) async throws -> Bool {
        try await pool.write { db in
            self.forgetTotals(nil)
            try db.execute(sql: "DELETE FROM group_channels WHERE channel_url = ?", arguments: [channelUrl])
            return db.changesCount > 0
        }
    }

    public func setHidden(_ channelUrl: String, userId: String, state: String, messageOffset: Int64?) async throws {
        try await pool.write { db in
            self.forgetTotals(nil)
            if let offset = messageOffset {
                try db.execute(
                    sql: """
                        UPDATE members SET hidden_state = ?, ts_message_offset = max(ts_message_offset, ?),
                          unread_count = 0, unread_mention_count = 0, read_ts = max(read_ts, ?)
                        WHERE channel_url = ? AND user_id = ?
                        """,
                    arguments: [state, offset, offset, channelUrl, userId])
            } else {
                try db.execute(
                    sql: "UPDATE members SET hidden_state = ? WHERE channel_url = ? AND user_id = ?",
                    arguments: [state, channelUrl, userId])
            }
        }
    }

    public func invitationAutoAccept(userId: String) async throws -> Bool {
        try await pool.read { db in
            try Bool.fetchOne(db, sql: "SELECT auto_accept FROM users WHERE user_id = ?", arguments: [userId]) ?? true
        }
    }

    public func setInvitationAutoAccept(userId: String, _ autoAccept: Bool) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE users SET auto_accept = ? WHERE user_id = ?", arguments: [autoAccept, userId])
        }
    }

    // MARK: - Messages

    public func insertMessage(_ m: NewMessage) async throws -> StoredMessage {
        try await pool.write { db in try self.insert(db, m) }
    }

    /// Group commit: every message in one transaction, in order, each in a savepoint of its own so
    /// that one refused (a reply to a missing parent) leaves the others stored.
    public func insertMessages(_ batch: [NewMessage]) async throws -> [Result<StoredMessage, any Error>] {
        if batch.count == 1 {
            do { return [.success(try await insertMessage(batch[0]))] } catch let e as SendbirdError { return [.failure(e)] }
        }
        return try await pool.write { db in
            var out: [Result<StoredMessage, any Error>] = []
            out.reserveCapacity(batch.count)
            for m in batch {
                var stored: StoredMessage?
                do {
                    try db.inSavepoint {
                        stored = try self.insert(db, m)
                        return .commit
                    }
                    out.append(.success(stored!))
                } catch let e as SendbirdError {
                    // Rolled back: totals it may have moved in memory are read again.
                    self.forgetTotals(nil)
                    out.append(.failure(e))
                }
            }
            return out
        }
    }

    /// Stores one new message inside a write transaction (see ``insertMessage(_:)``).
    func insert(_ db: Database, _ m: NewMessage) throws -> StoredMessage {
        if let req = m.reqId, let sender = m.senderId,
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM messages WHERE channel_url = ? AND sender_id = ? AND req_id = ?"),
                arguments: [m.channelUrl, sender, req])
        {
            return StoredMessage(message: try Self.messageRecord(row), duplicate: true, totals: [:])
        }
        var record = MessageRecord(
            messageId: 0, channelUrl: m.channelUrl, type: m.type, senderId: m.senderId, message: m.message,
            customType: m.customType, data: m.data, mentionType: m.mentionType, mentionedUserIds: m.mentionedUserIds,
            silent: m.silent, isOpMsg: m.isOpMsg, createdAt: m.createdAt, updatedAt: 0, parentMessageId: m.parentMessageId,
            reqId: m.reqId, sortedMetaarray: m.sortedMetaarray, replyToChannel: m.replyToChannel, ogTag: m.ogTag, files: m.files)
        // A reply: its parent is in this channel and is not a reply itself.
        if m.parentMessageId != 0 {
            guard let parent = try Row.fetchOne(
                db, sql: "SELECT parent_message_id FROM messages WHERE message_id = ? AND channel_url = ?",
                arguments: [m.parentMessageId, m.channelUrl])
            else { throw SendbirdError(.notFound, "\"Message\" not found: \(m.parentMessageId) (the parent).") }
            if (parent["parent_message_id"] as Int64) != 0 {
                throw SendbirdError(.invalidValue, "Invalid value: a reply cannot be a parent (\(m.parentMessageId) is a reply).")
            }
        }
        // Members who block the sender (seed 003): the message does not count for them, and in a
        // 1:1 channel it is never shown to them.
        var blockers: [String] = []
        if let sender = m.senderId {
            blockers = try String.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT b.blocker_id FROM blocks b JOIN members mb ON mb.user_id = b.blocker_id
                        WHERE b.blocked_id = ? AND mb.channel_url = ? AND mb.state = 'joined'
                        """),
                arguments: [sender, m.channelUrl])
            if !blockers.isEmpty,
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT is_super, joined_member_count FROM group_channels WHERE channel_url = ?"),
                    arguments: [m.channelUrl]),
                !(row["is_super"] as Bool), (row["joined_member_count"] as Int) <= 2
            {
                record.hiddenFor = blockers.first
            }
        }
        if m.persist {
            try Self.exec(
                db, sql: """
                    INSERT INTO messages(channel_url, type, sender_id, message, custom_type, data, mention_type,
                      mentioned_user_ids, silent, is_op_msg, created_at, req_id, hidden_for, sorted_metaarray,
                      parent_message_id, reply_to_channel, files, og_tag)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    m.channelUrl, m.type, m.senderId, m.message, m.customType, m.data, m.mentionType,
                    Self.json(m.mentionedUserIds), m.silent, m.isOpMsg, m.createdAt, m.reqId, record.hiddenFor,
                    Self.json(m.sortedMetaarray), m.parentMessageId, m.replyToChannel, m.files, m.ogTag,
                ])
            record.messageId = db.lastInsertedRowID
            try Self.exec(
                db, sql: "UPDATE group_channels SET last_message_id = ?, last_message_ts = ? WHERE channel_url = ?",
                arguments: [record.messageId, m.createdAt, m.channelUrl])
        } else {
            // Ephemeral: an id from the same sequence so ids stay unique, but no row is kept.
            try Self.exec(
                db, sql: "INSERT INTO messages(channel_url, type, created_at) VALUES (?, 'EPHM', ?)",
                arguments: [m.channelUrl, m.createdAt])
            record.messageId = db.lastInsertedRowID
            try db.execute(sql: "DELETE FROM messages WHERE message_id = ?", arguments: [record.messageId])
        }
        // A new message from someone else counts as unread (as each member's count preference says)
        // and brings back a channel hidden with auto-unhide. Silent messages only unhide. Blockers
        // are left out of both. (Two statements: `hidden_state` in the counting one would run the
        // member-change trigger for every row.)
        let blockedBy = Self.json(blockers)
        if !m.silent {
            if let counting = m.countingMembers {
                // The rows are not read back (RETURNING over a whole channel costs more than the
                // update): the cached totals move for the members the roster says count.
                try Self.exec(
                    db, sql: """
                        UPDATE members SET unread_count = unread_count + 1
                        WHERE channel_url = ? AND state = 'joined' AND user_id IS NOT ?
                          AND count_preference IN ('all', 'unread_message_count_only')
                          AND user_id NOT IN (SELECT value FROM json_each(?))
                        """,
                    arguments: [m.channelUrl, m.senderId, blockedBy])
                let type = m.channelCustomType
                totalsCache.withLock { cache in
                    for uid in counting where uid != m.senderId && !blockers.contains(uid) {
                        guard var t = cache[uid] else { continue }
                        t.all += 1
                        if !type.isEmpty { t.customTypes[type, default: 0] += 1 }
                        cache[uid] = t
                    }
                }
            } else {
                let bumped = try Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            UPDATE members SET unread_count = unread_count + 1
                            WHERE channel_url = ? AND state = 'joined' AND user_id IS NOT ?
                              AND count_preference IN ('all', 'unread_message_count_only')
                              AND user_id NOT IN (SELECT value FROM json_each(?))
                            RETURNING user_id, unread_count
                            """),
                    arguments: [m.channelUrl, m.senderId, blockedBy])
                // Cached totals move by what this message added (a supergroup's count stops adding at 100).
                if !bumped.isEmpty,
                    let info = try Row.fetchOne(
                        db.cachedStatement(sql: "SELECT is_super, custom_type FROM group_channels WHERE channel_url = ?"), arguments: [m.channelUrl])
                {
                    let isSuper: Bool = info[0]
                    let type: String = info[1]
                    totalsCache.withLock { cache in
                        // By position (RETURNING user_id, unread_count): no column-name lookups.
                        for row in bumped {
                            let uid: String = row[0]
                            let count: Int = row[1]
                            guard !isSuper || count <= 100, var t = cache[uid] else { continue }
                            t.all += 1
                            if !type.isEmpty { t.customTypes[type, default: 0] += 1 }
                            cache[uid] = t
                        }
                    }
                }
            }
        }
        try Self.exec(
            db, sql: """
                UPDATE members SET hidden_state = 'unhidden'
                WHERE channel_url = ? AND hidden_state = 'hidden_allow_auto_unhide' AND state = 'joined' AND user_id IS NOT ?
                  AND user_id NOT IN (SELECT value FROM json_each(?))
                """,
            arguments: [m.channelUrl, m.senderId, blockedBy])
        if !m.silent {
            let mentionable = "count_preference IN ('all', 'unread_mention_count_only') AND user_id NOT IN (SELECT value FROM json_each(?))"
            if m.mentionType == "channel" {
                try Self.exec(
                    db, sql: "UPDATE members SET unread_mention_count = unread_mention_count + 1 WHERE channel_url = ? AND state = 'joined' AND user_id IS NOT ? AND \(mentionable)",
                    arguments: [m.channelUrl, m.senderId, blockedBy])
            } else {
                for uid in Set(m.mentionedUserIds) where uid != m.senderId {
                    try Self.exec(
                        db, sql: "UPDATE members SET unread_mention_count = unread_mention_count + 1 WHERE channel_url = ? AND user_id = ? AND state = 'joined' AND \(mentionable)",
                        arguments: [m.channelUrl, uid, blockedBy])
                }
            }
        }
        if m.markSenderRead, let sender = m.senderId {
            // The sender's unread count here drops to zero: their cached total loses what it counted.
            if totalsCache.withLock({ $0[sender] != nil }),
                let row = try Row.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT m.unread_count AS n, c.is_super AS s, c.custom_type AS t FROM members m
                            JOIN group_channels c ON c.channel_url = m.channel_url
                            WHERE m.channel_url = ? AND m.user_id = ? AND m.state = 'joined'
                            """),
                    arguments: [m.channelUrl, sender])
            {
                let n: Int = row["n"]
                let counted = (row["s"] as Bool) ? min(n, 100) : n
                let type: String = row["t"]
                totalsCache.withLock { cache in
                    guard var t = cache[sender] else { return }
                    t.all = max(0, t.all - counted)
                    if !type.isEmpty, let c = t.customTypes[type] {
                        t.customTypes[type] = c - counted > 0 ? c - counted : nil
                    }
                    cache[sender] = t
                }
            } else {
                forgetTotals(sender)
            }
            try Self.exec(
                db, sql: "UPDATE members SET read_ts = max(read_ts, ?), unread_count = 0, unread_mention_count = 0 WHERE channel_url = ? AND user_id = ?",
                arguments: [m.createdAt, m.channelUrl, sender])
        }
        var parent: MessageRecord?
        if m.parentMessageId != 0, m.persist, let sender = m.senderId {
            parent = try Self.addReply(db, parentId: m.parentMessageId, sender: sender, at: m.createdAt)
        }
        let totals = try self.totals(db, m.totalsFor, hint: m.createdAt)
        return StoredMessage(message: record, duplicate: false, totals: totals, parent: parent)
    }

    /// The unread totals of `userIds` as the write just made them, with a `ts` later than any given
    /// before (writes are serial, so a later `ts` always means a later state).
    func totals(_ db: Database, _ userIds: [String], hint: Int64) throws -> [String: UnreadCount] {
        if userIds.isEmpty { return [:] }
        let ts = unreadStamp.withLock { last in
            last = max(last + 1, hint)
            return last
        }
        var out: [String: UnreadCount] = [:]
        out.reserveCapacity(userIds.count)
        var missing: [String] = []
        totalsCache.withLock { cache in
            for id in userIds {
                if var t = cache[id] {
                    t.ts = ts
                    out[id] = t
                } else {
                    missing.append(id)
                }
            }
        }
        if missing.isEmpty { return out }
        for id in missing { out[id] = UnreadCount(all: 0, ts: ts) }
        defer {
            totalsCache.withLock { cache in
                for id in missing { cache[id] = out[id] }
            }
        }
        for chunk in stride(from: 0, to: missing.count, by: 500).map({ Array(missing[$0..<min($0 + 500, missing.count)]) }) {
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT m.user_id AS u, c.custom_type AS t,
                      SUM(CASE WHEN c.is_super = 1 THEN min(m.unread_count, 100) ELSE m.unread_count END) AS n
                    FROM members m JOIN group_channels c ON c.channel_url = m.channel_url
                    WHERE m.user_id IN (\(Self.placeholders(chunk.count))) AND m.state = 'joined' AND m.unread_count > 0
                    GROUP BY m.user_id, c.custom_type
                    """),
                arguments: StatementArguments(chunk))
            for row in rows {
                let u: String = row["u"]
                let t: String = row["t"]
                let n: Int = row["n"]
                out[u]?.all += n
                if !t.isEmpty { out[u]?.customTypes[t, default: 0] += n }
            }
        }
        return out
    }

    public func unreadTotals(_ userIds: [String], at ms: Int64) async throws -> [String: UnreadCount] {
        try await pool.write { db in try self.totals(db, userIds, hint: ms) }
    }

    public func lastVisibleMessage(_ channelUrl: String, viewer: String, after: Int64) async throws -> MessageRecord? {
        try await pool.read { db in
            try Row.fetchOne(
                db, sql: """
                    SELECT * FROM messages WHERE channel_url = ? AND created_at > ? AND (hidden_for IS NULL OR hidden_for <> ?)
                    ORDER BY created_at DESC, message_id DESC LIMIT 1
                    """,
                arguments: [channelUrl, after, viewer]
            ).map(Self.messageRecord)
        }
    }

    public func message(_ channelUrl: String, id: Int64) async throws -> MessageRecord? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM messages WHERE channel_url = ? AND message_id = ?", arguments: [channelUrl, id])
                .map(Self.messageRecord)
        }
    }

    public func messages(ids: [Int64]) async throws -> [MessageRecord] {
        if ids.isEmpty { return [] }
        return try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM messages WHERE message_id IN (\(Self.placeholders(ids.count)))",
                arguments: StatementArguments(ids)
            ).map(Self.messageRecord)
        }
    }

    public func messages(_ channelUrl: String, query q: MessageQuery) async throws -> [MessageRecord] {
        try await pool.read { db in
            func fetch(_ t: SQLText?) throws -> [MessageRecord] {
                guard let t else { return [] }
                return try Row.fetchAll(db, sql: t.sql, arguments: t.arguments).map(Self.messageRecord)
            }
            var anchorTs: Int64
            var anchorId: Int64?
            switch q.anchor {
            case .timestamp(let ts): (anchorTs, anchorId) = (ts, nil)
            case .messageId(let id):
                let t = MessagePageSQL.anchorTime(channelUrl: channelUrl, messageId: id)
                guard let ts = try Int64.fetchOne(db, sql: t.sql, arguments: t.arguments) else { throw SendbirdError.notFound("Message") }
                (anchorTs, anchorId) = (ts, id)
            }
            let page = MessagePageSQL(q, channelUrl: channelUrl, anchorTs: anchorTs, anchorId: anchorId, dialect: .sqlite)
            let prev = try fetch(page.prev)
            let prevTies = try fetch(page.prevTies(prev))
            let anchor = try fetch(page.anchor)
            let next = try fetch(page.next)
            return page.assemble(prev: prev, prevTies: prevTies, anchor: anchor, next: next, nextTies: try fetch(page.nextTies(next)))
        }
    }

    // MARK: - Receipts and unread

    public func markRead(_ channelUrl: String, userId: String, ts: Int64) async throws -> UnreadCount {
        try await pool.write { db in
            self.forgetTotals(userId)
            try Self.exec(
                db, sql: "UPDATE members SET read_ts = max(read_ts, ?), unread_count = 0, unread_mention_count = 0 WHERE channel_url = ? AND user_id = ?",
                arguments: [ts, channelUrl, userId])
            return try self.totals(db, [userId], hint: ts)[userId] ?? UnreadCount(all: 0, ts: ts)
        }
    }

    public func markAllRead(userId: String, channelUrls: [String]?, ts: Int64) async throws -> (channels: [String], totals: UnreadCount) {
        try await pool.write { db in
            self.forgetTotals(userId)
            var sql = "SELECT channel_url FROM members WHERE user_id = ? AND state = 'joined'"
            var args: [any DatabaseValueConvertible] = [userId]
            if let urls = channelUrls {
                sql += " AND channel_url IN (\(Self.placeholders(urls.count)))"
                args += urls
            }
            let urls = channelUrls?.isEmpty == true ? [] : try String.fetchAll(db, sql: sql, arguments: StatementArguments(args))
            for url in urls {
                try db.execute(
                    sql: "UPDATE members SET read_ts = max(read_ts, ?), unread_count = 0, unread_mention_count = 0 WHERE channel_url = ? AND user_id = ?",
                    arguments: [ts, url, userId])
            }
            return (urls, try self.totals(db, [userId], hint: ts)[userId] ?? UnreadCount(all: 0, ts: ts))
        }
    }

    public func markDelivered(_ channelUrl: String, userId: String, ts: Int64) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE members SET delivered_ts = ? WHERE channel_url = ? AND user_id = ? AND delivered_ts < ?",
                arguments: [ts, channelUrl, userId, ts])
            return db.changesCount > 0
        }
    }

    /// `WHERE` conditions for a user's joined channels of some custom types and super mode.
    static func unreadScope(userId: String, customTypes: [String]?, superMode: String?) -> (String, [any DatabaseValueConvertible]) {
        var sql = "m.user_id = ? AND m.state = 'joined'"
        var args: [any DatabaseValueConvertible] = [userId]
        if let types = customTypes, !types.isEmpty {
            sql += " AND c.custom_type IN (\(placeholders(types.count)))"
            args += types
        }
        switch superMode {
        case "super": sql += " AND c.is_super = 1"
        case "nonsuper": sql += " AND c.is_super = 0"
        default: break
        }
        return (sql, args)
    }

    public func unreadMessageTotal(userId: String, customTypes: [String]?, superMode: String?) async throws -> Int {
        try await pool.read { db in
            let (scope, args) = Self.unreadScope(userId: userId, customTypes: customTypes, superMode: superMode)
            return try Int.fetchOne(
                db, sql: """
                    SELECT COALESCE(SUM(CASE WHEN c.is_super = 1 THEN min(m.unread_count, 100) ELSE m.unread_count END), 0)
                    FROM members m JOIN group_channels c ON c.channel_url = m.channel_url WHERE \(scope)
                    """,
                arguments: StatementArguments(args)) ?? 0
        }
    }

    public func unreadChannelCount(userId: String, customTypes: [String]?, superMode: String?) async throws -> Int {
        try await pool.read { db in
            let (scope, args) = Self.unreadScope(userId: userId, customTypes: customTypes, superMode: superMode)
            return try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM members m JOIN group_channels c ON c.channel_url = m.channel_url WHERE \(scope) AND m.unread_count > 0",
                arguments: StatementArguments(args)) ?? 0
        }
    }

    public func unreadItems(userId: String, customTypes: [String]?) async throws -> UnreadItems {
        try await pool.read { db in
            var scope = "m.user_id = ?"
            var args: [any DatabaseValueConvertible] = [userId]
            if let types = customTypes, !types.isEmpty {
                scope += " AND c.custom_type IN (\(Self.placeholders(types.count)))"
                args += types
            }
            let rows = try Row.fetchAll(
                db, sql: """
                    SELECT c.is_super AS s,
                      SUM(CASE WHEN m.state = 'joined' THEN (CASE WHEN c.is_super = 1 THEN min(m.unread_count, 100) ELSE m.unread_count END) ELSE 0 END) AS msgs,
                      SUM(CASE WHEN m.state = 'joined' THEN m.unread_mention_count ELSE 0 END) AS mentions,
                      SUM(CASE WHEN m.state = 'invited' THEN 1 ELSE 0 END) AS invites
                    FROM members m JOIN group_channels c ON c.channel_url = m.channel_url WHERE \(scope) GROUP BY c.is_super
                    """,
                arguments: StatementArguments(args))
            return try Records.unreadItems(rows)
        }
    }

    public func setCountPreference(_ channelUrl: String, userId: String, _ preference: String) async throws -> Bool {
        try await pool.write { db in
            self.forgetTotals(nil)
            // Counts the new preference leaves out start again from zero.
            try db.execute(
                sql: """
                    UPDATE members SET count_preference = ?,
                      unread_count = CASE WHEN ? IN ('all', 'unread_message_count_only') THEN unread_count ELSE 0 END,
                      unread_mention_count = CASE WHEN ? IN ('all', 'unread_mention_count_only') THEN unread_mention_count ELSE 0 END
                    WHERE channel_url = ? AND user_id = ?
                    """,
                arguments: [preference, preference, preference, channelUrl, userId])
            return db.changesCount > 0
        }
    }

    // MARK: - Blocking

    public func block(_ blocker: String, _ blocked: String, at ms: Int64) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO blocks(blocker_id, blocked_id, created_at) VALUES (?, ?, ?)", arguments: [blocker, blocked, ms])
            return db.changesCount > 0
        }
    }

    public func unblock(_ blocker: String, _ blocked: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM blocks WHERE blocker_id = ? AND blocked_id = ?", arguments: [blocker, blocked])
            return db.changesCount > 0
        }
    }

    public func blockedUsers(_ userId: String, blockingMe: Bool, afterUserId: String?, limit: Int, userIds: [String]?) async throws -> [UserRecord] {
        try await pool.read { db in
            var sql = blockingMe
                ? "SELECT u.* FROM blocks b JOIN users u ON u.user_id = b.blocker_id WHERE b.blocked_id = ?"
                : "SELECT u.* FROM blocks b JOIN users u ON u.user_id = b.blocked_id WHERE b.blocker_id = ?"
            var args: [any DatabaseValueConvertible] = [userId]
            if let after = afterUserId {
                sql += " AND u.user_id > ?"
                args.append(after)
            }
            if let ids = userIds, !ids.isEmpty {
                sql += " AND u.user_id IN (\(Self.placeholders(ids.count)))"
                args += ids
            }
            sql += " ORDER BY u.user_id LIMIT ?"
            args.append(limit)
            return try Row.fetchAll(db, sql: sql, arguments: StatementArguments(args)).map(Self.userRecord)
        }
    }

    public func blocked(by blocker: String, among userIds: [String]) async throws -> Set<String> {
        if userIds.isEmpty { return [] }
        return try await pool.read { db in
            Set(try String.fetchAll(
                db, sql: "SELECT blocked_id FROM blocks WHERE blocker_id = ? AND blocked_id IN (SELECT value FROM json_each(?))",
                arguments: [blocker, Self.json(userIds)]))
        }
    }

    public func blockers(of blocked: String, among userIds: [String]) async throws -> Set<String> {
        if userIds.isEmpty { return [] }
        return try await pool.read { db in
            Set(try String.fetchAll(
                db, sql: "SELECT blocker_id FROM blocks WHERE blocked_id = ? AND blocker_id IN (SELECT value FROM json_each(?))",
                arguments: [blocked, Self.json(userIds)]))
        }
    }

    // MARK: - Row mapping

    /// Runs a statement prepared once per connection (the send path runs the same few every time).
    static func exec(_ db: Database, sql: String, arguments: StatementArguments) throws {
        try db.cachedStatement(sql: sql).execute(arguments: arguments)
    }

    static func placeholders(_ n: Int) -> String { Array(repeating: "?", count: n).joined(separator: ",") }

    static func json(_ value: some Encodable) -> String {
        (try? String(decoding: JSONEncoder().encode(value), as: UTF8.self)) ?? "null"
    }

    static func decodeJSON<T: Decodable>(_ text: String, as: T.Type, default value: T) -> T {
        (try? JSONDecoder().decode(T.self, from: Data(text.utf8))) ?? value
    }

    static func insertUser(_ db: Database, _ u: UserRecord) throws {
        // The identity rule's last line of defence: SQLite compares bytes, so only one spelling
        // of an id may ever be stored (``Identifier``).
        try Identifier.check(u.userId, field: "user_id")
        try db.execute(
            sql: """
                INSERT INTO users(user_id, nickname, profile_url, metadata, created_at, last_seen_at, has_ever_logged_in, is_active,
                  auto_accept)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, COALESCE((
                  SELECT json_extract(json, '$.auto_accept') FROM settings
                  WHERE scope = 'application' AND key = 'default_channel_invitation_preference'), 1))
                """,
            arguments: [
                u.userId, u.nickname, u.profileUrl, json(u.metadata), u.createdAt, u.lastSeenAt, u.hasEverLoggedIn, u.isActive,
            ])
    }

    static func fetchUser(_ db: Database, _ id: String) throws -> UserRecord? {
        try Row.fetchOne(db, sql: "SELECT * FROM users WHERE user_id = ?", arguments: [id]).map(userRecord)
    }

    static func fetchChannel(_ db: Database, _ url: String) throws -> ChannelRecord? {
        try Row.fetchOne(db, sql: "SELECT * FROM group_channels WHERE channel_url = ?", arguments: [url]).map(channelRecord)
    }

    static func recountMembers(_ db: Database, _ url: String) throws {
        try db.execute(
            sql: """
                UPDATE group_channels SET
                  member_count = (SELECT COUNT(*) FROM members WHERE channel_url = ?),
                  joined_member_count = (SELECT COUNT(*) FROM members WHERE channel_url = ? AND state = 'joined')
                WHERE channel_url = ?
                """,
            arguments: [url, url, url])
    }

    static func userRecord(_ row: Row) throws -> UserRecord { try Records.user(row) }
    static func channelRecord(_ row: Row) throws -> ChannelRecord { try Records.channel(row) }
    static func memberRecord(_ row: Row) throws -> MemberRecord { try Records.member(row) }
    static func messageRecord(_ row: Row) throws -> MessageRecord { try Records.message(row) }
}

/// Checkpoints the WAL into the database file from a connection and a thread of its own, a few
/// times a second (passive: it never waits for readers or the writer). A checkpoint copies pages
/// and syncs the file; left to SQLite's automatic checkpoint, that happens inside whichever commit
/// crosses 1,000 pages, and every message behind that commit waits for it (tern-bench showed a
/// 15–20 ms p99 at 100 msg/s from it).
///
/// `@unchecked Sendable`: its only mutable part is the dispatch timer, whose `cancel` is thread-safe.
final class WALCheckpointer: @unchecked Sendable {
    let queue: DatabaseQueue
    let timer: DispatchSourceTimer
    static let interval = DispatchTimeInterval.milliseconds(250)

    init(path: String) throws {
        var config = Configuration()
        config.busyMode = .timeout(5)
        queue = try DatabaseQueue(path: path, configuration: config)
        let work = DispatchQueue(label: "tern.sqlite.checkpoint", qos: .utility)
        timer = DispatchSource.makeTimerSource(queue: work)
        timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval, leeway: .milliseconds(50))
        let queue = self.queue
        timer.setEventHandler {
            _ = try? queue.writeWithoutTransaction { try $0.checkpoint(.passive) }
        }
        timer.resume()
    }

    func stop() {
        timer.cancel()
        try? queue.close()
    }

    deinit { timer.cancel() }
}

extension SQLText {
    /// The arguments as GRDB binds them (a shared statement never holds a list for SQLite).
    var arguments: StatementArguments {
        StatementArguments(
            args.map { a -> (any DatabaseValueConvertible)? in
                switch a {
                case .text(let s): s
                case .int(let n): n
                case .bool(let b): b
                case .texts(let list): SQLiteStore.json(list)
                }
            })
    }
}
