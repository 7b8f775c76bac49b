import Foundation
import GRDB
import TernProtocol

/// Message changes after sending: threads, updates, deletions, reactions, link previews, search.
extension SQLiteStore {
    // MARK: - Threads

    /// Counts a new reply on its parent: one more reply, the time, the replier first among the latest.
    static func addReply(_ db: Database, parentId: Int64, sender: String, at ms: Int64) throws -> MessageRecord? {
        guard let row = try Row.fetchOne(db, sql: "SELECT most_replies FROM messages WHERE message_id = ?", arguments: [parentId]) else {
            return nil
        }
        var most = decodeJSON(row["most_replies"] ?? "[]", as: [String].self, default: [])
        most.removeAll { $0 == sender }
        most.insert(sender, at: 0)
        try db.execute(
            sql: """
                UPDATE messages SET reply_count = reply_count + 1, last_replied_at = max(last_replied_at, ?), most_replies = ?,
                  changed_at = max(changed_at, ?) WHERE message_id = ?
                """,
            arguments: [ms, json(Array(most.prefix(10))), ms, parentId])
        return try Row.fetchOne(db, sql: "SELECT * FROM messages WHERE message_id = ?", arguments: [parentId]).map(messageRecord)
    }

    /// Recounts a parent's thread from its remaining replies.
    static func recountThread(_ db: Database, parentId: Int64, at ms: Int64) throws -> MessageRecord? {
        let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM messages WHERE parent_message_id = ?", arguments: [parentId]) ?? 0
        let last = try Int64.fetchOne(db, sql: "SELECT MAX(created_at) FROM messages WHERE parent_message_id = ?", arguments: [parentId]) ?? 0
        let senders = try String.fetchAll(
            db, sql: """
                SELECT sender_id FROM messages WHERE parent_message_id = ? AND sender_id IS NOT NULL
                GROUP BY sender_id ORDER BY MAX(created_at) DESC LIMIT 10
                """,
            arguments: [parentId])
        try db.execute(
            sql: "UPDATE messages SET reply_count = ?, last_replied_at = ?, most_replies = ?, changed_at = max(changed_at, ?) WHERE message_id = ?",
            arguments: [count, last, json(senders), ms, parentId])
        return try Row.fetchOne(db, sql: "SELECT * FROM messages WHERE message_id = ?", arguments: [parentId]).map(messageRecord)
    }

    // MARK: - Update and delete

    public func updateMessage(_ channelUrl: String, id: Int64, _ change: MessageChange) async throws -> (old: MessageRecord, new: MessageRecord) {
        try await pool.write { db in
            guard let old = try Row.fetchOne(db, sql: "SELECT * FROM messages WHERE channel_url = ? AND message_id = ?", arguments: [channelUrl, id])
                .map(Self.messageRecord)
            else { throw SendbirdError(.notFound, "\"Message\" not found: \(id).") }
            var new = old
            if let v = change.message { new.message = v }
            if let v = change.data { new.data = v }
            if let v = change.customType { new.customType = v }
            if let v = change.mentionType { new.mentionType = v }
            if let v = change.mentionedUserIds { new.mentionedUserIds = v }
            if let meta = change.metaarray { new.sortedMetaarray = Self.apply(meta, to: old.sortedMetaarray) }
            new.updatedAt = max(change.updatedAt, old.createdAt)
            try db.execute(
                sql: """
                    UPDATE messages SET message = ?, data = ?, custom_type = ?, mention_type = ?, mentioned_user_ids = ?,
                      sorted_metaarray = ?, updated_at = ?, changed_at = max(changed_at, ?) WHERE message_id = ?
                    """,
                arguments: [
                    new.message, new.data, new.customType, new.mentionType, Self.json(new.mentionedUserIds),
                    Self.json(new.sortedMetaarray), new.updatedAt, change.updatedAt, id,
                ])
            return (old, new)
        }
    }

    /// Applies a metaarray change: keys keep their first-seen order, values theirs.
    static func apply(_ change: MetaArrayChange, to items: [MetaArrayItem]) -> [MetaArrayItem] {
        var out = change.mode == .replace ? [] : items
        for item in change.items {
            let index = out.firstIndex { $0.key == item.key }
            if change.mode != .remove {
                if let i = index {
                    for v in item.value where !out[i].value.contains(v) { out[i].value.append(v) }
                } else if change.upsert || change.mode == .replace || item.value.isEmpty {
                    var unique: [String] = []
                    for v in item.value where !unique.contains(v) { unique.append(v) }
                    out.append(MetaArrayItem(key: item.key, value: unique))
                }
            } else if let i = index {
                if item.value.isEmpty { out.remove(at: i) } else { out[i].value.removeAll { item.value.contains($0) } }
            }
        }
        return out
    }

    public func deleteMessage(_ channelUrl: String, id: Int64, at ms: Int64) async throws -> (deleted: MessageRecord, parent: MessageRecord?) {
        try await pool.write { db in
            guard let m = try Row.fetchOne(db, sql: "SELECT * FROM messages WHERE channel_url = ? AND message_id = ?", arguments: [channelUrl, id])
                .map(Self.messageRecord)
            else { throw SendbirdError(.notFound, "\"Message\" not found: \(id).") }
            try db.execute(sql: "DELETE FROM messages WHERE message_id = ?", arguments: [id])
            // Kept for message changelogs: clients that were away learn of the deletion.
            try db.execute(
                sql: "INSERT OR REPLACE INTO message_tombstones(channel_url, message_id, deleted_at) VALUES (?, ?, ?)",
                arguments: [channelUrl, id, ms])
            // The channel's last message moves back to the newest one left.
            let last = try Row.fetchOne(
                db, sql: "SELECT message_id, created_at FROM messages WHERE channel_url = ? ORDER BY created_at DESC, message_id DESC LIMIT 1",
                arguments: [channelUrl])
            try db.execute(
                sql: "UPDATE group_channels SET last_message_id = ?, last_message_ts = ? WHERE channel_url = ? AND (last_message_id = ? OR last_message_id IS NULL)",
                arguments: [last?["message_id"] as Int64?, (last?["created_at"] as Int64?) ?? 0, channelUrl, id])
            let parent = m.parentMessageId != 0 ? try Self.recountThread(db, parentId: m.parentMessageId, at: ms) : nil
            return (m, parent)
        }
    }

    // MARK: - Reactions

    public func addReaction(_ messageId: Int64, key: String, userId: String, at ms: Int64) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO reactions(message_id, key, user_id, updated_at) VALUES (?, ?, ?, ?)",
                arguments: [messageId, key, userId, ms])
            let changed = db.changesCount > 0
            if changed { try Self.touch(db, messageId, at: ms) }
            return changed
        }
    }

    public func deleteReaction(_ messageId: Int64, key: String, userId: String, at ms: Int64) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM reactions WHERE message_id = ? AND key = ? AND user_id = ?", arguments: [messageId, key, userId])
            let changed = db.changesCount > 0
            if changed { try Self.touch(db, messageId, at: ms) }
            return changed
        }
    }

    /// Marks a message changed at `ms` (for message changelogs).
    static func touch(_ db: Database, _ messageId: Int64, at ms: Int64) throws {
        try db.execute(sql: "UPDATE messages SET changed_at = max(changed_at, ?) WHERE message_id = ?", arguments: [ms, messageId])
    }

    public func channelChanges(userId: String, after c: ChannelChangeCursor, limit: Int) async throws
        -> (updated: [(url: String, at: Int64)], deleted: [(url: String, at: Int64)])
    {
        try await pool.read { db in
            // A channel's change time for the user: the channel's own, its last message's, the user's
            // member row's, and the newest read or delivery receipt of a joined member (the channel JSON
            // shows them all; supergroups show none).
            let updated = try Row.fetchAll(
                db,
                sql: """
                    SELECT url, at FROM (
                      SELECT c.channel_url AS url, max(c.changed_at, c.last_message_ts, m.changed_at,
                        CASE WHEN c.is_super THEN 0 ELSE coalesce(
                          (SELECT max(max(o.read_ts), max(o.delivered_ts)) FROM members o
                           WHERE o.channel_url = c.channel_url AND o.state = 'joined'), 0) END) AS at
                      FROM members m JOIN group_channels c ON c.channel_url = m.channel_url
                      WHERE m.user_id = ? AND c.channel_type = 'group')
                    WHERE at > ? OR (at = ? AND url > ?)
                    ORDER BY at, url LIMIT ?
                    """,
                arguments: [userId, c.ts, c.ts, c.url, limit]
            ).map { (url: $0["url"] as String, at: $0["at"] as Int64) }
            let deleted = try Row.fetchAll(
                db,
                sql: """
                    SELECT channel_url, deleted_at FROM channel_tombstones
                    WHERE user_id = ? AND (deleted_at > ? OR (deleted_at = ? AND channel_url > ?))
                    ORDER BY deleted_at, channel_url LIMIT ?
                    """,
                arguments: [userId, c.ts, c.ts, c.url, limit]
            ).map { (url: $0["channel_url"] as String, at: $0["deleted_at"] as Int64) }
            return (updated, deleted)
        }
    }

    public func messageChanges(_ channelUrl: String, after c: MessageChangeCursor, limit: Int) async throws
        -> (updated: [MessageRecord], deleted: [(id: Int64, at: Int64)])
    {
        try await pool.read { db in
            let updated = try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM messages WHERE channel_url = ? AND changed_at > 0
                      AND (changed_at > ? OR (changed_at = ? AND message_id > ?))
                    ORDER BY changed_at, message_id LIMIT ?
                    """,
                arguments: [channelUrl, c.ts, c.ts, c.messageId, limit]
            ).map(Self.messageRecord)
            let deleted = try Row.fetchAll(
                db,
                sql: """
                    SELECT message_id, deleted_at FROM message_tombstones WHERE channel_url = ?
                      AND (deleted_at > ? OR (deleted_at = ? AND message_id > ?))
                    ORDER BY deleted_at, message_id LIMIT ?
                    """,
                arguments: [channelUrl, c.ts, c.ts, c.messageId, limit]
            ).map { (id: $0["message_id"] as Int64, at: $0["deleted_at"] as Int64) }
            return (updated, deleted)
        }
    }

    public func reactionKeyCount(_ messageId: Int64) async throws -> Int {
        try await pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(DISTINCT key) FROM reactions WHERE message_id = ?", arguments: [messageId]) ?? 0
        }
    }

    public func reactions(_ messageIds: [Int64]) async throws -> [Int64: [ReactionRecord]] {
        if messageIds.isEmpty { return [:] }
        return try await pool.read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM reactions WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY updated_at, user_id",
                arguments: [Self.json(messageIds)])
            var out: [Int64: [ReactionRecord]] = [:]
            for r in rows {
                let rec = ReactionRecord(messageId: r["message_id"], key: r["key"], userId: r["user_id"], updatedAt: r["updated_at"])
                out[rec.messageId, default: []].append(rec)
            }
            return out
        }
    }

    // MARK: - Link previews

    public func setOGTag(_ messageId: Int64, _ json: String, updatedAt: Int64) async throws -> MessageRecord? {
        try await pool.write { db in
            try db.execute(sql: "UPDATE messages SET og_tag = ?, changed_at = max(changed_at, ?) WHERE message_id = ?", arguments: [json, updatedAt, messageId])
            return try Row.fetchOne(db, sql: "SELECT * FROM messages WHERE message_id = ?", arguments: [messageId]).map(Self.messageRecord)
        }
    }

    // MARK: - Search

    public func searchMessages(_ q: MessageSearch) async throws -> (messages: [MessageRecord], total: Int) {
        try await pool.read { db in
            let search = MessageSearchSQL(
                q, source: "messages_fts f JOIN messages m ON m.message_id = f.rowid", match: "messages_fts MATCH ?", matchArg: .text(q.match))
            let base = search.base.sql
            let order = q.byScore ? "f.rank, m.created_at DESC, m.message_id DESC" : search.order
            let args = search.base.arguments
            do {
                let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) \(base)", arguments: args) ?? 0
                let rows = try Row.fetchAll(
                    db, sql: "SELECT m.* \(base) ORDER BY \(order) LIMIT ? OFFSET ?", arguments: args + [q.limit, q.offset])
                return (try rows.map(Self.messageRecord), total)
            } catch let e as DatabaseError where e.message?.contains("fts5") == true || e.resultCode == .SQLITE_ERROR {
                throw SendbirdError(.invalidValue, "Invalid value: \"query\" cannot be searched (\(e.message ?? "syntax")).")
            }
        }
    }

    public func searchVocabulary(_ pattern: SearchQuery.TermPattern) async throws -> [String] {
        try await pool.read { db in
            switch pattern {
            case .word(let w):
                return try String.fetchAll(db, sql: "SELECT term FROM messages_fts_vocab WHERE term = ?", arguments: [w])
            case .glob(let g):
                return try String.fetchAll(db, sql: "SELECT term FROM messages_fts_vocab WHERE term GLOB ? ORDER BY doc DESC LIMIT 200", arguments: [g])
            case .fuzzy(let w):
                let d = SearchQuery.fuzzyDistance(w)
                if d == 0 { return try String.fetchAll(db, sql: "SELECT term FROM messages_fts_vocab WHERE term = ?", arguments: [w]) }
                let candidates = try String.fetchAll(
                    db, sql: "SELECT term FROM messages_fts_vocab WHERE length(term) BETWEEN ? AND ? LIMIT 20000",
                    arguments: [w.count - d, w.count + d])
                return Array(candidates.filter { SearchQuery.editDistance($0, w, limit: d) <= d }.prefix(200))
            }
        }
    }

    // MARK: - Files

    public func insertFile(_ f: FileRecord) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT INTO files(file_id, channel_url, uploader_id, name, type, size, created_at, thumbnails) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                arguments: [f.fileId, f.channelUrl, f.uploaderId, f.name, f.type, f.size, f.createdAt, f.thumbnails])
        }
    }

    public func file(_ fileId: String) async throws -> FileRecord? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM files WHERE file_id = ?", arguments: [fileId]).map { r in
                FileRecord(
                    fileId: r["file_id"], channelUrl: r["channel_url"], uploaderId: r["uploader_id"], name: r["name"], type: r["type"],
                    size: r["size"], createdAt: r["created_at"], thumbnails: r["thumbnails"])
            }
        }
    }

    public func addFileAuth(keyHash: String, userId: String, sessionHash: String, expiresAt: Int64) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM file_auth WHERE expires_at < ?", arguments: [expiresAt - 4 * 86_400_000])
            try db.execute(
                sql: "INSERT OR REPLACE INTO file_auth(key_hash, user_id, expires_at, session_hash) VALUES (?, ?, ?, ?)",
                arguments: [keyHash, userId, expiresAt, sessionHash])
        }
    }

    public func fileAuth(keyHash: String, now: Int64) async throws -> (userId: String, sessionHash: String?)? {
        try await pool.read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT user_id, session_hash FROM file_auth WHERE key_hash = ? AND expires_at > ?", arguments: [keyHash, now])
            else { return nil }
            return (row["user_id"], row["session_hash"])
        }
    }

    public func ogCache(_ url: String) async throws -> (json: String?, fetchedAt: Int64)? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT og_tag, fetched_at FROM og_cache WHERE url = ?", arguments: [url]).map { ($0["og_tag"], $0["fetched_at"]) }
        }
    }

    public func setOGCache(_ url: String, json: String?, at ms: Int64) async throws {
        try await pool.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO og_cache(url, og_tag, fetched_at) VALUES (?, ?, ?)", arguments: [url, json, ms])
        }
    }

    public func messageCount(_ channelUrl: String) async throws -> Int {
        try await pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM messages WHERE channel_url = ?", arguments: [channelUrl]) ?? 0
        }
    }
}
