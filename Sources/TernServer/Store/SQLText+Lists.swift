/// Smaller statements both stores share, built once per dialect like those in `SQLText.swift`:
/// the open channel listing, a channel's restrictions, and a user's unread totals.

// MARK: - Open channel listing

/// The statement of ``ChannelStore/listOpenChannels(_:)`` (nil: the query names an empty list of
/// channel URLs, so nothing matches).
enum OpenChannelListSQL {
    static func statement(_ q: OpenChannelListQuery, dialect d: SQLDialect) -> SQLText? {
        var args: [SQLValue] = []
        var wheres = ["c.channel_type = 'open'"]
        if let n = q.nameContains, !n.isEmpty { wheres.append(d.contains("c.name", n, &args)) }
        if let u = q.urlContains, !u.isEmpty { wheres.append(d.containsExactly("c.channel_url", u, &args)) }
        if let types = q.customTypes, !types.isEmpty { wheres.append(d.isIn("c.custom_type", types, &args)) }
        if let urls = q.channelUrls {
            if urls.isEmpty { return nil }
            wheres.append(d.isIn("c.channel_url", urls, &args))
        }
        if !q.showFrozen { wheres.append(d.flag("c.freeze", false)) }
        // Newest first. SQLite breaks ties (one second) by insertion order (rowid), which
        // PostgreSQL does not keep; the URL in descending order stands in for it there.
        let tieBreak =
            switch d {
            case .sqlite: "c.rowid DESC"
            case .postgres: "c.channel_url COLLATE \"C\" DESC"
            }
        args += [.int(Int64(q.limit)), .int(Int64(q.offset))]
        return SQLText(
            "SELECT c.* FROM group_channels c WHERE \(wheres.joined(separator: " AND ")) ORDER BY c.created_at DESC, \(tieBreak) LIMIT ? OFFSET ?",
            args)
    }
}

// MARK: - Restrictions

/// The statement of ``ModerationStore/restrictions(_:kind:now:afterUserId:limit:)``: a channel's
/// bans or mutes in force at `now`, by user id after `afterUserId`.
enum RestrictionListSQL {
    static func statement(_ channelUrl: String, kind: RestrictionRecord.Kind, now: Int64, afterUserId: String?, limit: Int?) -> SQLText {
        var t = SQLText(
            """
            SELECT * FROM restrictions WHERE channel_url = ? AND kind = ? AND (end_at < 0 OR end_at > ?) AND user_id > ?
            ORDER BY user_id
            """, [.text(channelUrl), .text(kind.rawValue), .int(now), .text(afterUserId ?? "")])
        if let limit {
            t.sql += " LIMIT ?"
            t.args.append(.int(Int64(limit)))
        }
        return t
    }
}

// MARK: - Unread totals

/// The statements of ``ReceiptStore/unreadMessageTotal(userId:customTypes:superMode:)`` and
/// ``ReceiptStore/unreadChannelCount(userId:customTypes:superMode:)``: over a user's joined
/// channels of some custom types and super mode; a supergroup counts at most 100 unread.
enum UnreadTotalSQL {
    static func messageTotal(userId: String, customTypes: [String]?, superMode: String?, dialect d: SQLDialect) -> SQLText {
        var args: [SQLValue] = []
        let scope = self.scope(userId: userId, customTypes: customTypes, superMode: superMode, d, &args)
        // The smaller of two numbers: `min` in SQLite, `LEAST` in PostgreSQL (its `min` is an aggregate).
        let capped =
            switch d {
            case .sqlite: "min(m.unread_count, 100)"
            case .postgres: "LEAST(m.unread_count, 100)"
            }
        return SQLText(
            """
            SELECT COALESCE(SUM(CASE WHEN \(d.flag("c.is_super")) THEN \(capped) ELSE m.unread_count END), 0)\(d.bigint)
            FROM members m JOIN group_channels c ON c.channel_url = m.channel_url WHERE \(scope)
            """, args)
    }

    static func channelCount(userId: String, customTypes: [String]?, superMode: String?, dialect d: SQLDialect) -> SQLText {
        var args: [SQLValue] = []
        let scope = self.scope(userId: userId, customTypes: customTypes, superMode: superMode, d, &args)
        return SQLText(
            "SELECT COUNT(*) FROM members m JOIN group_channels c ON c.channel_url = m.channel_url WHERE \(scope) AND m.unread_count > 0", args)
    }

    /// `WHERE` conditions for a user's joined channels of some custom types and super mode.
    private static func scope(userId: String, customTypes: [String]?, superMode: String?, _ d: SQLDialect, _ args: inout [SQLValue]) -> String {
        var wheres = ["m.user_id = ?", "m.state = 'joined'"]
        args.append(.text(userId))
        if let types = customTypes, !types.isEmpty { wheres.append(d.isIn("c.custom_type", types, &args)) }
        switch superMode {
        case "super": wheres.append(d.flag("c.is_super"))
        case "nonsuper": wheres.append(d.flag("c.is_super", false))
        default: break
        }
        return wheres.joined(separator: " AND ")
    }
}

// MARK: - Export

/// The statements of the Platform API's export (``PlatformStore/exportMessages(from:to:channelUrls:senderIds:limit:)``,
/// ``PlatformStore/exportChannels(channelUrls:limit:)``).
enum ExportSQL {
    /// Messages created between `from` and `to` (ms, inclusive), oldest first.
    static func messages(from: Int64, to: Int64, channelUrls: [String]?, senderIds: [String]?, limit: Int, dialect d: SQLDialect) -> SQLText {
        var args: [SQLValue] = [.int(from), .int(to)]
        var wheres = ["created_at BETWEEN ? AND ?"]
        if let urls = channelUrls, !urls.isEmpty { wheres.append(d.isIn("channel_url", urls, &args)) }
        if let ids = senderIds, !ids.isEmpty { wheres.append(d.isIn("sender_id", ids, &args)) }
        args.append(.int(Int64(limit)))
        return SQLText("SELECT * FROM messages WHERE \(wheres.joined(separator: " AND ")) ORDER BY created_at, message_id LIMIT ?", args)
    }

    /// Channels (`columns` of them) by URL, of `channelUrls` when given.
    static func channels(_ columns: String, channelUrls: [String]?, limit: Int, dialect d: SQLDialect) -> SQLText {
        var args: [SQLValue] = []
        var sql = "SELECT \(columns) FROM group_channels"
        if let urls = channelUrls, !urls.isEmpty { sql += " WHERE " + d.isIn("channel_url", urls, &args) }
        args.append(.int(Int64(limit)))
        return SQLText(sql + " ORDER BY channel_url LIMIT ?", args)
    }
}

// MARK: - Changelogs

/// The statements of the changelogs (``MessageStore/messageChanges(_:after:limit:)``,
/// ``ChannelStore/channelChanges(userId:after:limit:)``): what changed or was deleted after a
/// cursor, in (time, key) order. The channels' `updated` side stays in each backend: it takes the
/// greatest of several times, which SQLite spells `max(…)` and PostgreSQL `GREATEST(…)`.
enum ChangelogSQL {
    /// A channel's messages changed after the cursor.
    static func updatedMessages(_ channelUrl: String, after c: MessageChangeCursor, limit: Int) -> SQLText {
        SQLText(
            """
            SELECT * FROM messages WHERE channel_url = ? AND changed_at > 0
              AND (changed_at > ? OR (changed_at = ? AND message_id > ?))
            ORDER BY changed_at, message_id LIMIT ?
            """, [.text(channelUrl), .int(c.ts), .int(c.ts), .int(c.messageId), .int(Int64(limit))])
    }

    /// A channel's messages deleted after the cursor (`message_id`, `deleted_at`).
    static func deletedMessages(_ channelUrl: String, after c: MessageChangeCursor, limit: Int) -> SQLText {
        SQLText(
            """
            SELECT message_id, deleted_at FROM message_tombstones WHERE channel_url = ?
              AND (deleted_at > ? OR (deleted_at = ? AND message_id > ?))
            ORDER BY deleted_at, message_id LIMIT ?
            """, [.text(channelUrl), .int(c.ts), .int(c.ts), .int(c.messageId), .int(Int64(limit))])
    }

    /// A user's channels deleted after the cursor (`channel_url`, `deleted_at`), URLs compared byte by byte.
    static func deletedChannels(userId: String, after c: ChannelChangeCursor, limit: Int, dialect d: SQLDialect) -> SQLText {
        let url = d.bytewise("channel_url")
        return SQLText(
            """
            SELECT channel_url, deleted_at FROM channel_tombstones
            WHERE user_id = ? AND (deleted_at > ? OR (deleted_at = ? AND \(url) > ?))
            ORDER BY deleted_at, \(url) LIMIT ?
            """, [.text(userId), .int(c.ts), .int(c.ts), .text(c.url), .int(Int64(limit))])
    }
}
