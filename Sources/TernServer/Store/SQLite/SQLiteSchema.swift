import Crypto
import Foundation
import GRDB
import TernProtocol

/// The schema and its migrations on SQLite.
extension SQLiteStore {
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
        m.registerMigration("v18-search-index-after-commit") { db in
            // The full-text index is no longer written inside each message's transaction (an FTS5
            // segment per commit was about half of a lone message's store cost): messages past
            // `indexed_upto` are indexed in batches after commit (``SQLiteStore/indexForSearch(_:limit:)``),
            // and before every search. Edits and deletions touch the index only for messages
            // already in it (ids never come back: `AUTOINCREMENT`).
            try db.execute(
                sql: """
                    CREATE TABLE search_index_state (id INTEGER PRIMARY KEY CHECK (id = 1), indexed_upto INTEGER NOT NULL);
                    INSERT INTO search_index_state VALUES (1, max(
                      COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'messages'), 0),
                      COALESCE((SELECT max(message_id) FROM messages), 0)));
                    DROP TRIGGER messages_fts_insert;
                    DROP TRIGGER messages_fts_delete;
                    DROP TRIGGER messages_fts_update;
                    CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages
                    WHEN old.message_id <= (SELECT indexed_upto FROM search_index_state) BEGIN
                        INSERT INTO messages_fts(messages_fts, rowid, message, custom_type, data) VALUES ('delete', old.message_id, old.message, old.custom_type, old.data);
                    END;
                    CREATE TRIGGER messages_fts_update AFTER UPDATE OF message, custom_type, data ON messages
                    WHEN old.message_id <= (SELECT indexed_upto FROM search_index_state) BEGIN
                        INSERT INTO messages_fts(messages_fts, rowid, message, custom_type, data) VALUES ('delete', old.message_id, old.message, old.custom_type, old.data);
                        INSERT INTO messages_fts(rowid, message, custom_type, data) VALUES (new.message_id, new.message, new.custom_type, new.data);
                    END;
                    """)
        }
        return m
    }
}
