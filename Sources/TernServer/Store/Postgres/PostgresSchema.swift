import Foundation
import PostgresNIO

// Longer than 600 lines for a reason: this is one list of migrations, read top to bottom in the order
// they run, and a shipped one is never edited; splitting it would only scatter that order.

/// The PostgreSQL schema: migrations of its own, versioned like the SQLite ones, applied in
/// order once each (recorded in `tern_migrations`). Several nodes starting at once take turns
/// (an advisory lock), so each migration runs exactly once.
///
/// The same tables, columns and indexes as `SQLiteStore.migrator` (`SQLite/SQLiteSchema.swift`) (v1 to v17), with INTEGER as
/// BIGINT, the 0/1 flags as BOOLEAN, the AUTOINCREMENT ids as identity columns and JSON kept as
/// TEXT; the same triggers (the channel changelog, tombstones) as PL/pgSQL; FTS5 as a generated
/// `tsvector` with a GIN index and a vocabulary table. Every TEXT column is `COLLATE "C"`: text
/// compares and sorts by bytes and `lower`/`ILIKE` fold ASCII only, as SQLite's BINARY collation,
/// `lower` and `LIKE` do, whatever the database's locale. `freeze` is a reserved word in
/// PostgreSQL: SQL must quote it (`"freeze"`) except after a qualifier (`c.freeze`).
enum PostgresSchema {
    /// (name, SQL) in order. Never edit one that has shipped: add another.
    static let migrations: [(name: String, sql: String)] = [
        // SQLite v1–v15: every table and index. `tern_now()` is the injected clock of a write
        // transaction (`tern.now`, set by `PostgresStore.write` in tests), else the database's.
        // `files_channel` is not in SQLite: a channel's deletion cascades to `files`.
        (
            "pg-v1-schema",
            #"""
            CREATE OR REPLACE FUNCTION tern_now() RETURNS bigint LANGUAGE sql STABLE AS $$
              SELECT COALESCE(NULLIF(current_setting('tern.now', true), '')::bigint, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint)
            $$;

            CREATE TABLE users (
                user_id TEXT COLLATE "C" PRIMARY KEY NOT NULL,
                nickname TEXT COLLATE "C" NOT NULL DEFAULT '',
                profile_url TEXT COLLATE "C" NOT NULL DEFAULT '',
                metadata TEXT COLLATE "C" NOT NULL DEFAULT '{}',
                created_at BIGINT NOT NULL,
                last_seen_at BIGINT NOT NULL DEFAULT 0,
                has_ever_logged_in BOOLEAN NOT NULL DEFAULT FALSE,
                is_active BOOLEAN NOT NULL DEFAULT TRUE,
                auto_accept BOOLEAN NOT NULL DEFAULT TRUE
            );
            CREATE INDEX users_nickname ON users(nickname);

            CREATE TABLE access_tokens (
                token_hash TEXT COLLATE "C" PRIMARY KEY NOT NULL,
                user_id TEXT COLLATE "C" NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
                expires_at BIGINT NOT NULL DEFAULT 0
            );
            CREATE INDEX access_tokens_user ON access_tokens(user_id);

            CREATE TABLE sessions (
                key_hash TEXT COLLATE "C" PRIMARY KEY NOT NULL,
                user_id TEXT COLLATE "C" NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
                expires_at BIGINT NOT NULL DEFAULT 0,
                token_hash TEXT COLLATE "C"
            );
            CREATE INDEX sessions_user ON sessions(user_id);

            CREATE TABLE group_channels (
                channel_url TEXT COLLATE "C" PRIMARY KEY NOT NULL,
                name TEXT COLLATE "C" NOT NULL DEFAULT '',
                cover_url TEXT COLLATE "C" NOT NULL DEFAULT '',
                custom_type TEXT COLLATE "C" NOT NULL DEFAULT '',
                data TEXT COLLATE "C" NOT NULL DEFAULT '',
                created_at BIGINT NOT NULL,
                created_by TEXT COLLATE "C",
                is_distinct BOOLEAN NOT NULL DEFAULT FALSE,
                is_public BOOLEAN NOT NULL DEFAULT FALSE,
                is_super BOOLEAN NOT NULL DEFAULT FALSE,
                is_ephemeral BOOLEAN NOT NULL DEFAULT FALSE,
                "freeze" BOOLEAN NOT NULL DEFAULT FALSE,
                distinct_key TEXT COLLATE "C",
                last_message_id BIGINT,
                last_message_ts BIGINT NOT NULL DEFAULT 0,
                member_count BIGINT NOT NULL DEFAULT 0,
                joined_member_count BIGINT NOT NULL DEFAULT 0,
                channel_type TEXT COLLATE "C" NOT NULL DEFAULT 'group',
                operator_ids TEXT COLLATE "C" NOT NULL DEFAULT '[]',
                changed_at BIGINT NOT NULL DEFAULT 0
            );
            CREATE INDEX group_channels_distinct ON group_channels(distinct_key) WHERE distinct_key IS NOT NULL;
            CREATE INDEX channels_open ON group_channels(channel_type, created_at) WHERE channel_type = 'open';

            CREATE TABLE members (
                channel_url TEXT COLLATE "C" NOT NULL REFERENCES group_channels(channel_url) ON DELETE CASCADE,
                user_id TEXT COLLATE "C" NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
                state TEXT COLLATE "C" NOT NULL DEFAULT 'joined',
                role TEXT COLLATE "C" NOT NULL DEFAULT 'none',
                joined_ts BIGINT NOT NULL DEFAULT 0,
                invited_at BIGINT NOT NULL DEFAULT 0,
                read_ts BIGINT NOT NULL DEFAULT 0,
                delivered_ts BIGINT NOT NULL DEFAULT 0,
                unread_count BIGINT NOT NULL DEFAULT 0,
                unread_mention_count BIGINT NOT NULL DEFAULT 0,
                inviter_id TEXT COLLATE "C",
                hidden_state TEXT COLLATE "C" NOT NULL DEFAULT 'unhidden',
                ts_message_offset BIGINT NOT NULL DEFAULT 0,
                count_preference TEXT COLLATE "C" NOT NULL DEFAULT 'all',
                changed_at BIGINT NOT NULL DEFAULT 0,
                PRIMARY KEY (channel_url, user_id)
            );
            CREATE INDEX members_user ON members(user_id);

            CREATE TABLE messages (
                message_id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                channel_url TEXT COLLATE "C" NOT NULL REFERENCES group_channels(channel_url) ON DELETE CASCADE,
                type TEXT COLLATE "C" NOT NULL,
                sender_id TEXT COLLATE "C",
                message TEXT COLLATE "C" NOT NULL DEFAULT '',
                custom_type TEXT COLLATE "C" NOT NULL DEFAULT '',
                data TEXT COLLATE "C" NOT NULL DEFAULT '',
                mention_type TEXT COLLATE "C" NOT NULL DEFAULT 'users',
                mentioned_user_ids TEXT COLLATE "C" NOT NULL DEFAULT '[]',
                silent BOOLEAN NOT NULL DEFAULT FALSE,
                is_op_msg BOOLEAN NOT NULL DEFAULT FALSE,
                created_at BIGINT NOT NULL,
                updated_at BIGINT NOT NULL DEFAULT 0,
                parent_message_id BIGINT NOT NULL DEFAULT 0,
                req_id TEXT COLLATE "C",
                hidden_for TEXT COLLATE "C",
                sorted_metaarray TEXT COLLATE "C" NOT NULL DEFAULT '[]',
                reply_to_channel BOOLEAN NOT NULL DEFAULT FALSE,
                reply_count BIGINT NOT NULL DEFAULT 0,
                last_replied_at BIGINT NOT NULL DEFAULT 0,
                most_replies TEXT COLLATE "C" NOT NULL DEFAULT '[]',
                og_tag TEXT COLLATE "C",
                files TEXT COLLATE "C",
                changed_at BIGINT NOT NULL DEFAULT 0
            );
            CREATE INDEX messages_channel_ts ON messages(channel_url, created_at, message_id);
            CREATE UNIQUE INDEX messages_req ON messages(channel_url, sender_id, req_id) WHERE req_id IS NOT NULL;
            CREATE INDEX messages_parent ON messages(parent_message_id, created_at, message_id) WHERE parent_message_id <> 0;
            CREATE INDEX messages_changed ON messages(channel_url, changed_at, message_id) WHERE changed_at > 0;

            CREATE TABLE channel_metadata (
                channel_url TEXT COLLATE "C" NOT NULL REFERENCES group_channels(channel_url) ON DELETE CASCADE,
                key TEXT COLLATE "C" NOT NULL,
                value TEXT COLLATE "C" NOT NULL,
                PRIMARY KEY (channel_url, key)
            );
            CREATE INDEX channel_metadata_key_value ON channel_metadata(key, value);

            CREATE TABLE channel_metacounters (
                channel_url TEXT COLLATE "C" NOT NULL REFERENCES group_channels(channel_url) ON DELETE CASCADE,
                key TEXT COLLATE "C" NOT NULL,
                value BIGINT NOT NULL,
                PRIMARY KEY (channel_url, key)
            );

            CREATE TABLE blocks (
                blocker_id TEXT COLLATE "C" NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
                blocked_id TEXT COLLATE "C" NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
                created_at BIGINT NOT NULL,
                PRIMARY KEY (blocker_id, blocked_id)
            );
            CREATE INDEX blocks_blocked ON blocks(blocked_id);

            CREATE TABLE reactions (
                message_id BIGINT NOT NULL REFERENCES messages(message_id) ON DELETE CASCADE,
                key TEXT COLLATE "C" NOT NULL,
                user_id TEXT COLLATE "C" NOT NULL,
                updated_at BIGINT NOT NULL,
                PRIMARY KEY (message_id, key, user_id)
            );

            CREATE TABLE files (
                file_id TEXT COLLATE "C" PRIMARY KEY NOT NULL,
                channel_url TEXT COLLATE "C" NOT NULL REFERENCES group_channels(channel_url) ON DELETE CASCADE,
                uploader_id TEXT COLLATE "C",
                name TEXT COLLATE "C" NOT NULL,
                type TEXT COLLATE "C" NOT NULL,
                size BIGINT NOT NULL,
                created_at BIGINT NOT NULL,
                thumbnails TEXT COLLATE "C" NOT NULL DEFAULT '[]'
            );
            -- Not in the SQLite schema: deleting a channel cascades here, which without it scans the table.
            CREATE INDEX files_channel ON files(channel_url);

            CREATE TABLE file_auth (
                key_hash TEXT COLLATE "C" PRIMARY KEY NOT NULL,
                user_id TEXT COLLATE "C" NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
                expires_at BIGINT NOT NULL
            );
            CREATE INDEX file_auth_user ON file_auth(user_id);

            CREATE TABLE og_cache (
                url TEXT COLLATE "C" PRIMARY KEY NOT NULL,
                og_tag TEXT COLLATE "C",
                fetched_at BIGINT NOT NULL
            );

            CREATE TABLE restrictions (
                channel_url TEXT COLLATE "C" NOT NULL REFERENCES group_channels(channel_url) ON DELETE CASCADE,
                kind TEXT COLLATE "C" NOT NULL,
                user_id TEXT COLLATE "C" NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
                start_at BIGINT NOT NULL,
                end_at BIGINT NOT NULL,
                description TEXT COLLATE "C" NOT NULL DEFAULT '',
                PRIMARY KEY (channel_url, kind, user_id)
            );
            CREATE INDEX restrictions_user ON restrictions(user_id, kind, channel_url);

            CREATE TABLE reports (
                report_id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                category TEXT COLLATE "C" NOT NULL,
                description TEXT COLLATE "C" NOT NULL DEFAULT '',
                reporting_user_id TEXT COLLATE "C",
                offending_user_id TEXT COLLATE "C",
                channel_url TEXT COLLATE "C",
                channel_type TEXT COLLATE "C",
                message_id BIGINT,
                reported_message TEXT COLLATE "C",
                created_at BIGINT NOT NULL
            );
            CREATE INDEX reports_channel ON reports(channel_url, message_id);
            CREATE INDEX reports_offender ON reports(offending_user_id);

            CREATE TABLE message_tombstones (
                channel_url TEXT COLLATE "C" NOT NULL REFERENCES group_channels(channel_url) ON DELETE CASCADE,
                message_id BIGINT NOT NULL,
                deleted_at BIGINT NOT NULL,
                PRIMARY KEY (channel_url, message_id)
            );
            CREATE INDEX message_tombstones_time ON message_tombstones(channel_url, deleted_at, message_id);

            CREATE TABLE channel_tombstones (
                user_id TEXT COLLATE "C" NOT NULL,
                channel_url TEXT COLLATE "C" NOT NULL,
                deleted_at BIGINT NOT NULL,
                PRIMARY KEY (user_id, channel_url)
            );
            CREATE INDEX channel_tombstones_time ON channel_tombstones(user_id, deleted_at);

            CREATE TABLE settings (
                scope TEXT COLLATE "C" NOT NULL,
                key TEXT COLLATE "C" NOT NULL,
                json TEXT COLLATE "C" NOT NULL,
                PRIMARY KEY (scope, key)
            );

            CREATE TABLE device_tokens (
                token_type TEXT COLLATE "C" NOT NULL,
                token TEXT COLLATE "C" NOT NULL,
                user_id TEXT COLLATE "C" NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
                created_at BIGINT NOT NULL,
                PRIMARY KEY (token_type, token, user_id)
            );
            CREATE INDEX device_tokens_user ON device_tokens(user_id, token_type);

            CREATE TABLE activity (
                day BIGINT NOT NULL,
                user_id TEXT COLLATE "C" NOT NULL,
                PRIMARY KEY (day, user_id)
            );
            """#
        ),
        // SQLite v11–v12: the channel changelog's triggers. SQLite's AFTER triggers that only set
        // the changed row's own `changed_at` are BEFORE triggers here (the same columns, the same
        // WHEN, the same result, no second UPDATE of the row). A trigger WHEN cannot hold a
        // subquery: `last_message_edited` tests the channel's last message in its UPDATE instead.
        // Cascaded deletes (a channel, a user) fire the DELETE triggers, as in SQLite.
        (
            "pg-v2-triggers",
            #"""
            CREATE FUNCTION tern_channel_changed() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              NEW.changed_at := tern_now();
              RETURN NEW;
            END $$;
            CREATE TRIGGER channel_changed BEFORE UPDATE OF
              name, cover_url, custom_type, data, "freeze", is_public, is_distinct, is_super, member_count,
              joined_member_count, operator_ids, last_message_id, last_message_ts ON group_channels
            FOR EACH ROW
            WHEN (NEW.last_message_ts <= OLD.last_message_ts OR NEW.last_message_id IS NOT DISTINCT FROM OLD.last_message_id)
            EXECUTE FUNCTION tern_channel_changed();

            CREATE FUNCTION tern_touch_channel() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              IF TG_OP = 'DELETE' THEN
                UPDATE group_channels SET changed_at = tern_now() WHERE channel_url = OLD.channel_url;
              ELSE
                UPDATE group_channels SET changed_at = tern_now() WHERE channel_url = NEW.channel_url;
              END IF;
              RETURN NULL;
            END $$;
            CREATE TRIGGER channel_metadata_added AFTER INSERT ON channel_metadata
            FOR EACH ROW EXECUTE FUNCTION tern_touch_channel();
            CREATE TRIGGER channel_metadata_changed AFTER UPDATE ON channel_metadata
            FOR EACH ROW WHEN (NEW.value IS DISTINCT FROM OLD.value) EXECUTE FUNCTION tern_touch_channel();
            CREATE TRIGGER channel_metadata_removed AFTER DELETE ON channel_metadata
            FOR EACH ROW EXECUTE FUNCTION tern_touch_channel();

            CREATE FUNCTION tern_last_message_edited() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              UPDATE group_channels SET changed_at = NEW.changed_at
              WHERE channel_url = NEW.channel_url AND last_message_id = NEW.message_id;
              RETURN NULL;
            END $$;
            CREATE TRIGGER last_message_edited AFTER UPDATE OF changed_at ON messages
            FOR EACH ROW WHEN (NEW.changed_at > OLD.changed_at) EXECUTE FUNCTION tern_last_message_edited();

            CREATE FUNCTION tern_member_changed() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              NEW.changed_at := tern_now();
              RETURN NEW;
            END $$;
            CREATE TRIGGER member_added BEFORE INSERT ON members
            FOR EACH ROW EXECUTE FUNCTION tern_member_changed();
            CREATE TRIGGER member_changed BEFORE UPDATE OF
              state, role, read_ts, hidden_state, count_preference, ts_message_offset, invited_at, joined_ts ON members
            FOR EACH ROW
            WHEN (NEW.state IS DISTINCT FROM OLD.state OR NEW.role IS DISTINCT FROM OLD.role OR NEW.read_ts IS DISTINCT FROM OLD.read_ts
              OR NEW.hidden_state IS DISTINCT FROM OLD.hidden_state OR NEW.count_preference IS DISTINCT FROM OLD.count_preference
              OR NEW.ts_message_offset IS DISTINCT FROM OLD.ts_message_offset OR NEW.invited_at IS DISTINCT FROM OLD.invited_at
              OR NEW.joined_ts IS DISTINCT FROM OLD.joined_ts)
            EXECUTE FUNCTION tern_member_changed();

            CREATE FUNCTION tern_member_added() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              DELETE FROM channel_tombstones WHERE user_id = NEW.user_id AND channel_url = NEW.channel_url;
              RETURN NULL;
            END $$;
            CREATE TRIGGER member_added_tombstone AFTER INSERT ON members
            FOR EACH ROW EXECUTE FUNCTION tern_member_added();

            CREATE FUNCTION tern_member_removed() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              INSERT INTO channel_tombstones(user_id, channel_url, deleted_at) VALUES (OLD.user_id, OLD.channel_url, tern_now())
              ON CONFLICT (user_id, channel_url) DO UPDATE SET deleted_at = EXCLUDED.deleted_at;
              RETURN NULL;
            END $$;
            CREATE TRIGGER member_removed AFTER DELETE ON members
            FOR EACH ROW EXECUTE FUNCTION tern_member_removed();

            CREATE TRIGGER member_role_changed AFTER UPDATE OF role ON members
            FOR EACH ROW WHEN (NEW.role IS DISTINCT FROM OLD.role) EXECUTE FUNCTION tern_touch_channel();

            CREATE TRIGGER mute_added AFTER INSERT ON restrictions
            FOR EACH ROW WHEN (NEW.kind = 'mute') EXECUTE FUNCTION tern_touch_channel();
            CREATE TRIGGER mute_changed AFTER UPDATE ON restrictions
            FOR EACH ROW WHEN (NEW.kind = 'mute') EXECUTE FUNCTION tern_touch_channel();
            CREATE TRIGGER mute_lifted AFTER DELETE ON restrictions
            FOR EACH ROW WHEN (OLD.kind = 'mute') EXECUTE FUNCTION tern_touch_channel();
            """#
        ),
        // SQLite v5–v6 (FTS5, `unicode61 remove_diacritics 2`, and its vocabulary). Words are
        // runs of letters and digits, lower case, without diacritics (`unaccent`); each is the
        // lexeme `x<word>` (the prefix keeps PostgreSQL's parser from splitting a word such as
        // `12e3abc` in two), weighted by column: A message, B custom_type, C data. Phrases of a
        // query go through `tern_search_lexemes`, the same normalization. `search_words` holds
        // every word ever indexed (never removed: a word no message has any more matches nothing).
        // Functions used by the generated column name their schema, so that they also work under
        // another search_path (pg_restore, maintenance).
        (
            "pg-v3-search",
            #"""
            CREATE EXTENSION IF NOT EXISTS pg_trgm;
            CREATE EXTENSION IF NOT EXISTS unaccent;

            DO $do$
            DECLARE
              here text := quote_ident(current_schema());
              ua text;
              tg text;
              -- Lower case and "letter or digit" the Unicode way: the database's own locale unless it is
              -- C/POSIX (ASCII only), then an ICU or C.UTF-8 collation when there is one.
              coll text := 'default';
              ctype text;
              provider text;
            BEGIN
              SELECT d.datctype, to_jsonb(d) ->> 'datlocprovider' INTO ctype, provider FROM pg_database d WHERE d.datname = current_database();
              IF coalesce(provider, 'c') = 'c' AND ctype IN ('C', 'POSIX') THEN
                SELECT c.collname INTO coll FROM pg_collation c
                WHERE c.collname IN ('und-x-icu', 'C.utf8', 'C.UTF-8') AND c.collencoding IN (-1, pg_char_to_encoding('UTF8'))
                ORDER BY array_position(ARRAY['und-x-icu', 'C.utf8', 'C.UTF-8']::name[], c.collname) LIMIT 1;
                coll := coalesce(coll, 'default');
              END IF;
              SELECT quote_ident(n.nspname) INTO STRICT ua FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'unaccent';
              SELECT quote_ident(n.nspname) INTO STRICT tg FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
              EXECUTE format($f$
                CREATE FUNCTION %1$s.tern_unaccent(body text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
                AS $b$ SELECT %2$s.unaccent(%3$L::regdictionary, body) $b$
              $f$, here, ua, ua || '.unaccent');
              EXECUTE format($f$
                CREATE FUNCTION %1$s.tern_search_text(body text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
                AS $b$ SELECT regexp_replace(regexp_replace(lower(%1$s.tern_unaccent(body) COLLATE %2$I), '[^[:alnum:]]+', ' ', 'g'), '[[:alnum:]]+', 'x\&', 'g') $b$
              $f$, here, coll);
              EXECUTE format($f$
                CREATE FUNCTION %1$s.tern_search_lexemes(body text) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
                AS $b$ SELECT COALESCE(array_agg(substr(l.lexeme, 2) ORDER BY p), '{}')
                  FROM unnest(to_tsvector('simple', %1$s.tern_search_text(body))) AS l, unnest(l.positions) AS p $b$
              $f$, here);
              CREATE TABLE search_words (word TEXT COLLATE "C" PRIMARY KEY NOT NULL);
              EXECUTE format('CREATE INDEX search_words_trgm ON search_words USING gin (word %s.gin_trgm_ops)', tg);
            END $do$;

            ALTER TABLE messages ADD COLUMN search tsvector GENERATED ALWAYS AS (
              setweight(to_tsvector('simple'::regconfig, tern_search_text(message)), 'A')
              || setweight(to_tsvector('simple'::regconfig, tern_search_text(custom_type)), 'B')
              || setweight(to_tsvector('simple'::regconfig, tern_search_text(data)), 'C')) STORED;
            CREATE INDEX messages_search ON messages USING gin (search);

            CREATE FUNCTION tern_search_words() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              -- New words only, in one order (two writers adding the same new words cannot deadlock).
              IF TG_OP = 'INSERT' THEN
                INSERT INTO search_words(word)
                SELECT w FROM (SELECT substr(lexeme, 2) AS w FROM unnest(NEW.search)) x
                WHERE NOT EXISTS (SELECT 1 FROM search_words s WHERE s.word = x.w)
                ORDER BY 1 ON CONFLICT DO NOTHING;
              ELSE
                INSERT INTO search_words(word)
                SELECT w FROM (SELECT substr(lexeme, 2) AS w FROM (SELECT lexeme FROM unnest(NEW.search) EXCEPT SELECT lexeme FROM unnest(OLD.search)) y) x
                WHERE NOT EXISTS (SELECT 1 FROM search_words s WHERE s.word = x.w)
                ORDER BY 1 ON CONFLICT DO NOTHING;
              END IF;
              RETURN NULL;
            END $$;
            CREATE TRIGGER messages_search_words AFTER INSERT ON messages
            FOR EACH ROW EXECUTE FUNCTION tern_search_words();
            CREATE TRIGGER messages_search_words_update AFTER UPDATE OF message, custom_type, data ON messages
            FOR EACH ROW WHEN (NEW.search IS DISTINCT FROM OLD.search) EXECUTE FUNCTION tern_search_words();
            """#
        ),
        (
            // Several nodes on one database (``PostgresCluster``): the shared event log, its
            // doorbell, and the nodes' heartbeats. A committed message writes its own event in the
            // sending transaction (when the writer names its node), so no code path can forget it.
            "pg-v4-cluster",
            #"""
            CREATE FUNCTION tern_ms() RETURNS BIGINT LANGUAGE sql VOLATILE AS $$
              SELECT (extract(epoch FROM clock_timestamp()) * 1000)::BIGINT
            $$;
            CREATE TABLE cluster_events (
                id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                node TEXT COLLATE "C" NOT NULL,
                kind TEXT COLLATE "C" NOT NULL,
                channel_url TEXT COLLATE "C",
                body TEXT NOT NULL,
                created_at BIGINT NOT NULL DEFAULT tern_ms()
            );
            CREATE INDEX cluster_events_time ON cluster_events(created_at);
            CREATE TABLE cluster_nodes (
                node TEXT COLLATE "C" PRIMARY KEY,
                started_at BIGINT NOT NULL,
                seen_at BIGINT NOT NULL
            );
            CREATE FUNCTION tern_message_event() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
              node TEXT := current_setting('tern.node', true);
            BEGIN
              IF node IS NOT NULL AND node <> '' THEN
                INSERT INTO cluster_events(node, kind, channel_url, body) VALUES (node, 'msg', NEW.channel_url, NEW.message_id::TEXT);
              END IF;
              RETURN NULL;
            END $$;
            CREATE TRIGGER messages_cluster_event AFTER INSERT ON messages
            FOR EACH ROW EXECUTE FUNCTION tern_message_event();
            CREATE FUNCTION tern_event_doorbell() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              PERFORM pg_notify('tern_events', NEW.id::TEXT || ' ' || COALESCE(NEW.channel_url, ''));
              RETURN NULL;
            END $$;
            CREATE TRIGGER cluster_events_doorbell AFTER INSERT ON cluster_events
            FOR EACH ROW EXECUTE FUNCTION tern_event_doorbell();
            """#
        ),
        (
            // Every message updates the unread counter of every member row of its channel (and
            // the channel's row). With full pages each new row version goes to another page and
            // into every index (measured: 401 HOT updates of 75,800); room left on each page lets
            // PostgreSQL update in place (HOT). Applies to pages written from now on.
            "pg-v5-fillfactor",
            #"""
            ALTER TABLE members SET (fillfactor = 50);
            ALTER TABLE group_channels SET (fillfactor = 70);
            """#
        ),
        (
            // A message's event says whether its sender is held to the flood limits (`<id> f`),
            // which the sending transaction sets in `tern.flood`: every node then counts the
            // sender's messages, so the limit is the cluster's.
            "pg-v6-flood-events",
            #"""
            CREATE OR REPLACE FUNCTION tern_message_event() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
              node TEXT := current_setting('tern.node', true);
            BEGIN
              IF node IS NOT NULL AND node <> '' THEN
                INSERT INTO cluster_events(node, kind, channel_url, body) VALUES (node, 'msg', NEW.channel_url,
                  NEW.message_id::TEXT || CASE WHEN current_setting('tern.flood', true) = '1' THEN ' f' ELSE '' END);
              END IF;
              RETURN NULL;
            END $$;
            """#
        ),
        (
            // Uploaded files (sealed, as on disk) and their master key in the database: a file
            // uploaded through one node downloads through every other, with no shared filesystem.
            "pg-v7-file-blobs",
            #"""
            CREATE TABLE file_blobs (file_id TEXT PRIMARY KEY, bytes BYTEA NOT NULL);
            ALTER TABLE file_blobs ALTER COLUMN bytes SET STORAGE EXTERNAL;
            CREATE TABLE file_master_key (id INT PRIMARY KEY CHECK (id = 1), key BYTEA NOT NULL);
            """#
        ),
        (
            // SQLite v16: a download key names the session it was made for and ends with it;
            // keys from before name none and are dropped (clients get new ones at login).
            "pg-v8-file-keys-per-session",
            #"""
            DELETE FROM file_auth;
            ALTER TABLE file_auth ADD COLUMN session_hash TEXT COLLATE "C";
            """#
        ),
        (
            // SQLite v17: secondary API tokens kept as their SHA-256 (hex) with a four-character
            // hint, never as issued.
            "pg-v9-hashed-api-tokens",
            #"""
            INSERT INTO settings(scope, key, json)
            SELECT 'api_token_sha256', encode(sha256(convert_to(key, 'UTF8')), 'hex'),
                   (json::jsonb || jsonb_build_object('hint', right(key, 4)))::text
            FROM settings WHERE scope = 'api_token'
            ON CONFLICT (scope, key) DO NOTHING;
            DELETE FROM settings WHERE scope = 'api_token';
            """#
        ),
        (
            // A batch of one channel's messages is stored in one statement (`tern_send`), so that
            // a slow link to the database costs three round trips a batch (its channel read, the
            // statement, one more that is answered once it has committed), not five and one per
            // message, and no lock is held while a round trip is under way. The node reads the
            // channel first, unlocked, and decides the counters (`UnreadLedger`: the rules are
            // written once, in Swift); `tern_send` takes the channel's lock, checks that what those
            // decisions rest on has not changed meanwhile (`tern_send_basis`,
            // `tern_blocks_basis`) and that no message is a retry, stores the messages and writes
            // each member row once, as increments. Otherwise nothing is written and the node takes
            // the locked path.
            "pg-v10-send-in-one-statement",
            #"""
            CREATE FUNCTION tern_unread_totals(p_users TEXT[], p_excluding TEXT[])
            RETURNS TABLE(u TEXT, t TEXT, n BIGINT) LANGUAGE sql STABLE AS $$
              SELECT m.user_id, c.custom_type,
                SUM(CASE WHEN c.is_super THEN LEAST(m.unread_count, 100) ELSE m.unread_count END)::BIGINT
              FROM members m JOIN group_channels c ON c.channel_url = m.channel_url
              WHERE m.user_id = ANY(p_users) AND m.state = 'joined' AND m.unread_count > 0 AND m.channel_url <> ALL(p_excluding)
              GROUP BY m.user_id, c.custom_type
            $$;
            CREATE FUNCTION tern_send_basis(p_url TEXT) RETURNS TEXT LANGUAGE sql STABLE AS $$
              SELECT md5(
                COALESCE((SELECT is_super::TEXT || ':' || joined_member_count FROM group_channels WHERE channel_url = p_url), '-')
                || '|' || COALESCE((SELECT string_agg(user_id || ':' || state || ':' || count_preference || ':' || hidden_state, ',' ORDER BY user_id)
                                    FROM members WHERE channel_url = p_url), ''))
            $$;
            CREATE FUNCTION tern_blocks_basis(p_senders TEXT[]) RETURNS TEXT LANGUAGE sql STABLE AS $$
              SELECT md5(COALESCE((SELECT string_agg(blocked_id || '>' || blocker_id, ',' ORDER BY blocked_id, blocker_id)
                                   FROM blocks WHERE blocked_id = ANY(p_senders)), ''))
            $$;
            CREATE FUNCTION tern_send(
              p_channel TEXT, p_basis TEXT, p_senders TEXT[], p_blocks_basis TEXT, p_now TEXT,
              p_type TEXT[], p_sender TEXT[], p_message TEXT[], p_custom_type TEXT[], p_data TEXT[],
              p_mention_type TEXT[], p_mentioned TEXT[], p_silent BOOLEAN[], p_is_op BOOLEAN[], p_created_at BIGINT[],
              p_req_id TEXT[], p_hidden_for TEXT[], p_metaarray TEXT[], p_reply_to_channel BOOLEAN[], p_files TEXT[],
              p_og_tag TEXT[], p_stamped BOOLEAN[], p_flood TEXT[],
              p_m_id TEXT[], p_m_reset BOOLEAN[], p_m_unread BIGINT[], p_m_mentions BIGINT[], p_m_hidden TEXT[], p_m_read INT[])
            RETURNS TABLE(out_index INT, out_kind TEXT, out_id BIGINT, out_previous BIGINT, out_at BIGINT) LANGUAGE plpgsql AS $$
            DECLARE
              v_id BIGINT;
              v_previous BIGINT;
              v_last_ts BIGINT;
              v_at BIGINT;
              v_ats BIGINT[] := '{}';
              v_group BOOLEAN;
            BEGIN
              IF p_now IS NOT NULL THEN PERFORM set_config('tern.now', p_now, true); END IF;
              PERFORM pg_advisory_xact_lock(hashtextextended(p_channel, 0));
              -- What the counters were decided on must be as it was read; a message stored before
              -- (a retry) would not count: both leave it to the locked path.
              IF tern_send_basis(p_channel) IS DISTINCT FROM p_basis OR tern_blocks_basis(p_senders) IS DISTINCT FROM p_blocks_basis
                OR EXISTS (SELECT 1 FROM unnest(p_sender, p_req_id) AS r(sender, req)
                           JOIN messages x ON x.channel_url = p_channel AND x.sender_id = r.sender AND x.req_id = r.req) THEN
                RETURN QUERY SELECT 0, 'changed'::TEXT, 0::BIGINT, 0::BIGINT, 0::BIGINT;
                RETURN;
              END IF;
              SELECT g.last_message_id, g.last_message_ts INTO v_previous, v_last_ts FROM group_channels g WHERE g.channel_url = p_channel;
              v_group := FOUND;
              FOR i IN 1..COALESCE(array_length(p_type, 1), 0) LOOP
                v_at := p_created_at[i];
                IF v_group AND p_stamped[i] THEN v_at := GREATEST(v_at, COALESCE(v_last_ts, 0)); END IF;
                PERFORM set_config('tern.flood', p_flood[i], true);
                INSERT INTO messages(channel_url, type, sender_id, message, custom_type, data, mention_type,
                  mentioned_user_ids, silent, is_op_msg, created_at, req_id, hidden_for, sorted_metaarray,
                  parent_message_id, reply_to_channel, files, og_tag)
                VALUES (p_channel, p_type[i], p_sender[i], p_message[i], p_custom_type[i], p_data[i], p_mention_type[i],
                  p_mentioned[i], p_silent[i], p_is_op[i], v_at, p_req_id[i], p_hidden_for[i], p_metaarray[i],
                  0, p_reply_to_channel[i], p_files[i], p_og_tag[i])
                RETURNING message_id INTO v_id;
                RETURN QUERY SELECT i, 'stored'::TEXT, v_id, v_previous, v_at;
                v_ats := v_ats || v_at;
                v_previous := v_id;
                v_last_ts := GREATEST(COALESCE(v_last_ts, 0), v_at);
              END LOOP;
              IF v_group THEN
                UPDATE group_channels g SET last_message_id = v_previous, last_message_ts = v_last_ts WHERE g.channel_url = p_channel;
                -- Each member row once for the whole batch: its increments since the last message
                -- its member sent (which read the channel), or since before the batch.
                UPDATE members m SET
                  unread_count = CASE WHEN d.reset THEN d.du ELSE m.unread_count + d.du END,
                  unread_mention_count = CASE WHEN d.reset THEN d.dm ELSE m.unread_mention_count + d.dm END,
                  hidden_state = d.h,
                  read_ts = CASE WHEN d.ri > 0 THEN GREATEST(m.read_ts, v_ats[d.ri]) ELSE m.read_ts END
                FROM unnest(p_m_id, p_m_reset, p_m_unread, p_m_mentions, p_m_hidden, p_m_read) AS d(id, reset, du, dm, h, ri)
                WHERE m.channel_url = p_channel AND m.user_id = d.id;
              END IF;
            END $$;
            """#
        ),
        (
            // The doorbell says which node wrote the event and of what kind (`<id> <kind> <node>
            // <channel>`): a node that hears another node's message ring asks, in the read of the
            // log that follows, for the unread totals of that channel's members connected to it
            // (`PostgresCluster.readLog`), so that message, event and totals come in one round
            // trip. A node of an older build reads the bell as a bell, whatever it says.
            "pg-v11-doorbell-says-who",
            #"""
            CREATE OR REPLACE FUNCTION tern_event_doorbell() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              PERFORM pg_notify('tern_events', NEW.id::TEXT || ' ' || NEW.kind || ' ' || NEW.node || ' ' || COALESCE(NEW.channel_url, ''));
              RETURN NULL;
            END $$;
            """#
        ),
        (
            // What a batch's counters rest on (`tern_send_basis`) was an md5 over the channel's
            // member rows, computed twice a batch (in the channel's read, and in `tern_send` to
            // check it): 0.74 ms each with 100 members, a fifth of PostgreSQL's time per message.
            // Now a version per channel that every change of a member row's membership, state,
            // count preference or hidden state moves (a trigger, in the changing transaction), so
            // the basis is one row. It lives in a table of its own, written only by triggers
            // (after the member row they follow, and when the channel is deleted): no lock order
            // against `tern_send`'s write of the channel's row. Versions come from one sequence,
            // so a channel deleted and made again under its URL never shows an old basis again.
            // Nodes of the build before call the same function.
            "pg-v12-roster-versions",
            #"""
            CREATE SEQUENCE channel_roster_versions;
            CREATE TABLE channel_rosters (
                channel_url TEXT COLLATE "C" PRIMARY KEY NOT NULL,
                version BIGINT NOT NULL
            );
            CREATE FUNCTION tern_roster_moved() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
              url TEXT;
            BEGIN
              IF TG_OP = 'DELETE' THEN url := OLD.channel_url; ELSE url := NEW.channel_url; END IF;
              -- A channel being deleted (its members go with it) keeps no version.
              INSERT INTO channel_rosters(channel_url, version)
              SELECT url, nextval('channel_roster_versions') WHERE EXISTS (SELECT 1 FROM group_channels WHERE channel_url = url)
              ON CONFLICT (channel_url) DO UPDATE SET version = EXCLUDED.version;
              RETURN NULL;
            END $$;
            CREATE TRIGGER members_roster_added AFTER INSERT OR DELETE ON members
            FOR EACH ROW EXECUTE FUNCTION tern_roster_moved();
            CREATE TRIGGER members_roster_changed AFTER UPDATE OF state, count_preference, hidden_state ON members
            FOR EACH ROW
            WHEN (NEW.state IS DISTINCT FROM OLD.state OR NEW.count_preference IS DISTINCT FROM OLD.count_preference
              OR NEW.hidden_state IS DISTINCT FROM OLD.hidden_state)
            EXECUTE FUNCTION tern_roster_moved();
            CREATE FUNCTION tern_roster_forgotten() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              DELETE FROM channel_rosters WHERE channel_url = OLD.channel_url;
              RETURN NULL;
            END $$;
            CREATE TRIGGER group_channel_roster_forgotten AFTER DELETE ON group_channels
            FOR EACH ROW EXECUTE FUNCTION tern_roster_forgotten();
            CREATE OR REPLACE FUNCTION tern_send_basis(p_url TEXT) RETURNS TEXT LANGUAGE sql STABLE AS $$
              SELECT COALESCE((SELECT is_super::TEXT || ':' || joined_member_count FROM group_channels WHERE channel_url = p_url), '-')
                || '|' || COALESCE((SELECT version FROM channel_rosters WHERE channel_url = p_url), 0)
            $$;
            """#
        ),
    ]

    static func migrate(_ store: PostgresStore) async throws {
        try await store.client.withConnection { conn in
            let db = PGConnection(conn: conn, logger: store.logger)
            try await db.execute("SELECT pg_advisory_lock(7347)")
            do {
                try await db.execute(
                    "CREATE TABLE IF NOT EXISTS tern_migrations (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
                let done = Set(try await db.column("SELECT name FROM tern_migrations", as: String.self))
                for m in migrations where !done.contains(m.name) {
                    try await db.execute("BEGIN")
                    do {
                        // PostgresNIO speaks only the extended protocol (its `simpleQuery` too):
                        // one statement at a time, sent as written (no `?` numbering).
                        for statement in statements(m.sql) {
                            _ = try await conn.query(PostgresQuery(unsafeSQL: statement), logger: store.logger).get()
                        }
                        try await db.execute("INSERT INTO tern_migrations(name) VALUES (?)", [m.name])
                        try await db.execute("COMMIT")
                    } catch {
                        _ = try? await db.execute("ROLLBACK")
                        throw error
                    }
                }
            } catch {
                _ = try? await db.execute("SELECT pg_advisory_unlock(7347)")
                throw error
            }
            try await db.execute("SELECT pg_advisory_unlock(7347)")
        }
    }

    /// The statements of a migration: split at `;` outside quotes ('…', "…"), dollar quotes
    /// ($$…$$, $tag$…$tag$) and comments (-- …, /* … */); empty ones dropped.
    static func statements(_ sql: String) -> [String] {
        let chars = Array(sql.unicodeScalars)
        var out: [String] = []
        var current = String.UnicodeScalarView()
        var i = 0
        func flush() {
            let s = String(current).trimmingCharacters(in: .whitespacesAndNewlines)
            let meaningful = s.split(separator: "\n").contains { line in
                let l = line.trimmingCharacters(in: .whitespaces)
                return !l.isEmpty && !l.hasPrefix("--") && l != ";"
            }
            if meaningful { out.append(s) }
            current = String.UnicodeScalarView()
        }
        /// Copies from `i` up to and including the first `end` (or to the end of the text).
        func copy(until end: [Unicode.Scalar]) {
            while i < chars.count {
                if chars[i] == end[0], i + end.count <= chars.count, Array(chars[i..<(i + end.count)]) == end {
                    current.append(contentsOf: end)
                    i += end.count
                    return
                }
                current.append(chars[i])
                i += 1
            }
        }
        while i < chars.count {
            let c = chars[i]
            switch c {
            case "'", "\"":
                current.append(c)
                i += 1
                copy(until: [c])
            case "-" where i + 1 < chars.count && chars[i + 1] == "-":
                copy(until: ["\n"])
            case "/" where i + 1 < chars.count && chars[i + 1] == "*":
                current.append(contentsOf: ["/", "*"])
                i += 2
                copy(until: ["*", "/"])
            case "$":
                // A dollar quote's tag: `$` letters/digits/underscores `$` (not a `$1` parameter).
                var j = i + 1
                while j < chars.count, chars[j] == "_" || chars[j].properties.isAlphabetic || ("0"..."9").contains(chars[j]) { j += 1 }
                let isTag = j < chars.count && chars[j] == "$" && !(i + 1 < j && ("0"..."9").contains(chars[i + 1]))
                if isTag {
                    let tag = Array(chars[i...j])
                    current.append(contentsOf: tag)
                    i = j + 1
                    copy(until: tag)
                } else {
                    current.append(c)
                    i += 1
                }
            case ";":
                current.append(c)
                i += 1
                flush()
            default:
                current.append(c)
                i += 1
            }
        }
        flush()
        return out
    }
}
