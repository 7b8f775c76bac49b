/// Statements whose logic both stores share, built once: the text with `?` placeholders and its
/// arguments. Where SQLite and PostgreSQL spell a thing differently, ``SQLDialect`` says how.

/// An argument of a shared statement (each store binds it its own way).
enum SQLValue: Sendable, Equatable {
    case text(String)
    case int(Int64)
    case bool(Bool)
    /// A list bound as one array (PostgreSQL only: SQLite spells lists as placeholders).
    case texts([String])
}

/// A statement and its arguments, in placeholder order.
struct SQLText: Sendable, Equatable {
    var sql: String
    var args: [SQLValue]

    init(_ sql: String = "", _ args: [SQLValue] = []) {
        self.sql = sql
        self.args = args
    }
}

/// What differs between SQLite's SQL and PostgreSQL's in the shared statements.
enum SQLDialect: Sendable {
    case sqlite
    case postgres

    /// `column` (a boolean) is `value`: SQLite keeps booleans as 0 and 1.
    func flag(_ column: String, _ value: Bool = true) -> String {
        switch self {
        case .sqlite: "\(column) = \(value ? 1 : 0)"
        case .postgres: value ? column : "NOT \(column)"
        }
    }

    /// `column` is one of `values` (not empty).
    func isIn(_ column: String, _ values: [String], _ args: inout [SQLValue]) -> String {
        switch self {
        case .sqlite:
            args += values.map(SQLValue.text)
            return "\(column) IN (\(Array(repeating: "?", count: values.count).joined(separator: ", ")))"
        case .postgres:
            args.append(.texts(values))
            return "\(column) = ANY(?)"
        }
    }

    /// `column` starts with `prefix`.
    func startsWith(_ column: String, _ prefix: String, _ args: inout [SQLValue]) -> String {
        switch self {
        case .sqlite:
            args += [.text(prefix), .text(prefix)]
            return "substr(\(column), 1, length(?)) = ?"
        case .postgres:
            args.append(.text(prefix))
            return "starts_with(\(column), ?)"
        }
    }

    /// `column` contains `needle`, ASCII letters in either case (SQLite's `lower` folds ASCII only;
    /// PostgreSQL's would fold more, so it folds ASCII by hand).
    func contains(_ column: String, _ needle: String, _ args: inout [SQLValue]) -> String {
        args.append(.text(needle))
        switch self {
        case .sqlite: return "instr(lower(\(column)), lower(?)) > 0"
        case .postgres: return "strpos(\(Self.asciiLower(column)), \(Self.asciiLower("?"))) > 0"
        }
    }

    /// `column` contains `needle` as it is (case and all).
    func containsExactly(_ column: String, _ needle: String, _ args: inout [SQLValue]) -> String {
        args.append(.text(needle))
        switch self {
        case .sqlite: return "instr(\(column), ?) > 0"
        case .postgres: return "strpos(\(column), ?) > 0"
        }
    }

    /// A cast of a sum to a 64-bit integer where PostgreSQL would make it `numeric` (SQLite's is one already).
    var bigint: String {
        switch self {
        case .sqlite: ""
        case .postgres: "::bigint"
        }
    }

    /// Text compared byte by byte (SQLite's way; PostgreSQL's "C" collation).
    func bytewise(_ expr: String) -> String {
        switch self {
        case .sqlite: expr
        case .postgres: "\(expr) COLLATE \"C\""
        }
    }

    /// U+10FFFF, above every other character: what sorts last.
    var lastCharacter: String {
        switch self {
        case .sqlite: "char(1114111)"
        case .postgres: "chr(1114111)"
        }
    }

    /// The text value of `key` in the JSON object held in `column` (NULL when absent).
    func jsonField(_ column: String, _ key: String, _ args: inout [SQLValue]) -> String {
        switch self {
        case .sqlite:
            args.append(.text(SQLiteStore.jsonPath(key)))
            return "json_extract(\(column), ?)"
        case .postgres:
            args.append(.text(key))
            return "(\(column)::jsonb ->> ?::text)"
        }
    }

    /// An integer argument where the type cannot be inferred (a function's argument).
    var intParameter: String {
        switch self {
        case .sqlite: "?"
        case .postgres: "?::int"
        }
    }

    static func asciiLower(_ expr: String) -> String {
        "translate(\(expr), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')"
    }
}

/// Adds `condition` (with one `?`) and its value when there is a value.
func whereValue(_ condition: String, _ value: SQLValue?, _ wheres: inout [String], _ args: inout [SQLValue]) {
    guard let value else { return }
    wheres.append(condition)
    args.append(value)
}

// MARK: - Group channel listing

/// The statement of ``ChannelStore/listChannels(_:)``: filters, order and the page's cursor.
struct ChannelListSQL {
    var statement: SQLText
    /// The sort key runs from the newest/largest (true) or the smallest.
    var descending: Bool
    /// The sort key is text (a cursor's `text`), else a number.
    var textKey: Bool

    /// Every page of one listing sorts as of `snapshot` (ms): a channel that gets a new message
    /// or is created meanwhile keeps its place (or stays out), so paging never repeats or skips one.
    init(_ q: ChannelListQuery, snapshot: Int64, dialect d: SQLDialect) {
        var args: [SQLValue] = []
        let sortKey: String
        (sortKey, descending, textKey) = Self.sortKey(q, snapshot: snapshot, d, &args)
        var sql = "SELECT c.*, \(sortKey) AS sort_key FROM group_channels c"
        if let me = q.memberId {
            sql += " JOIN members m ON m.channel_url = c.channel_url AND m.user_id = ?"
            args.append(.text(me))
        }
        var wheres: [String] = ["c.channel_type = 'group'", "c.created_at * 1000 <= ?"]
        args.append(.int(snapshot))
        Self.membershipFilters(q, d, &wheres, &args)
        Self.channelFilters(q, d, &wheres, &args)
        Self.memberFilters(q, d, &wheres, &args)
        Self.metadataFilter(q, d, &wheres, &args)
        sql += " WHERE " + wheres.joined(separator: " AND ")
        sql = "SELECT * FROM (\(sql)) AS listed"
        let url = d.bytewise("channel_url")
        if let cursor = q.after {
            sql += " WHERE (sort_key \(descending ? "<" : ">") ? OR (sort_key = ? AND \(url) > ?))"
            let key: SQLValue = textKey ? .text(cursor.text ?? "") : .int(cursor.number ?? 0)
            args += [key, key, .text(cursor.url)]
        }
        sql += " ORDER BY sort_key \(descending ? "DESC" : "ASC"), \(url) ASC LIMIT ?"
        args.append(.int(Int64(q.limit)))
        statement = SQLText(sql, args)
    }

    /// The sort key of `q.order`, whether it runs from the largest, and whether it is text.
    private static func sortKey(
        _ q: ChannelListQuery, snapshot: Int64, _ d: SQLDialect, _ args: inout [SQLValue]
    ) -> (key: String, descending: Bool, text: Bool) {
        switch q.order {
        case "chronological":
            return ("c.created_at", true, false)
        case "channel_name_alphabetical":
            return (d.bytewise("c.name"), false, true)
        case "metadata_value_alphabetical":
            // Channels without the key sort last.
            args.append(.text(q.metadataOrderKey ?? ""))
            let key = d.bytewise(
                "COALESCE((SELECT md.value FROM channel_metadata md WHERE md.channel_url = c.channel_url AND md.key = ?), \(d.lastCharacter))")
            return (key, false, true)
        default:
            // Seed 003: a blocked user's messages in a 1:1 channel (hidden from the blocker) do not move
            // the blocker's channel up.
            args += [.int(snapshot), .text(q.memberId ?? "")]
            return (
                """
                COALESCE((SELECT MAX(mm.created_at) FROM messages mm WHERE mm.channel_url = c.channel_url AND mm.created_at <= ?
                  AND (mm.hidden_for IS NULL OR mm.hidden_for <> ?)),
                  c.created_at * 1000)
                """, true, false
            )
        }
    }

    /// The caller's own membership: joined or invited, hidden or not, unread; public channels joined.
    private static func membershipFilters(_ q: ChannelListQuery, _ d: SQLDialect, _ wheres: inout [String], _ args: inout [SQLValue]) {
        if q.memberId != nil {
            switch q.memberStateFilter {
            case "joined_only": wheres.append("m.state = 'joined'")
            case "invited_only", "invited_by_friend", "invited_by_non_friend": wheres.append("m.state = 'invited'")
            default: break
            }
            switch q.hiddenMode {
            case "all": break
            case "hidden_only": wheres.append("m.hidden_state <> 'unhidden'")
            case "hidden_allow_auto_unhide", "hidden_prevent_auto_unhide":
                wheres.append("m.hidden_state = ?")
                args.append(.text(q.hiddenMode))
            default: wheres.append("m.hidden_state = 'unhidden'")
            }
            if q.unreadFilter == "unread_message" { wheres.append("m.unread_count > 0") }
        }
        if q.publicMembershipMode == "joined", let me = q.publicMember {
            wheres.append("EXISTS (SELECT 1 FROM members pm WHERE pm.channel_url = c.channel_url AND pm.user_id = ? AND pm.state = 'joined')")
            args.append(.text(me))
        }
    }

    /// The channel's own columns: empty, frozen, public, super, distinct, urls, custom types, name, creation time.
    private static func channelFilters(_ q: ChannelListQuery, _ d: SQLDialect, _ wheres: inout [String], _ args: inout [SQLValue]) {
        if !q.showEmpty { wheres.append("c.last_message_id IS NOT NULL") }
        if !q.showFrozen { wheres.append(d.flag("c.freeze", false)) }
        for (mode, column, yes, no) in [
            (q.publicMode, "c.is_public", "public", "private"), (q.superMode, "c.is_super", "super", "nonsuper"),
            (q.distinctMode, "c.is_distinct", "distinct", "nondistinct"),
        ] where mode == yes || mode == no {
            wheres.append(d.flag(column, mode == yes))
        }
        if let urls = q.channelUrls, !urls.isEmpty { wheres.append(d.isIn("c.channel_url", urls, &args)) }
        if let types = q.customTypes, !types.isEmpty { wheres.append(d.isIn("c.custom_type", types, &args)) }
        if let prefix = q.customTypeStartsWith, !prefix.isEmpty { wheres.append(d.startsWith("c.custom_type", prefix, &args)) }
        if let name = q.nameContains, !name.isEmpty { wheres.append(d.contains("c.name", name, &args)) }
        whereValue("c.created_at > ?", q.createdAfter.map(SQLValue.int), &wheres, &args)
        whereValue("c.created_at < ?", q.createdBefore.map(SQLValue.int), &wheres, &args)
    }

    /// Who the members are: exactly, including some or all, by nickname.
    private static func memberFilters(_ q: ChannelListQuery, _ d: SQLDialect, _ wheres: inout [String], _ args: inout [SQLValue]) {
        if let exact = q.membersExactlyIn, !exact.isEmpty {
            var ids = Set(exact)
            if let me = q.memberId { ids.insert(me) }
            args.append(.int(Int64(ids.count)))
            let among = d.isIn("x.user_id", ids.sorted(), &args)
            wheres.append("c.member_count = ? AND (SELECT COUNT(*) FROM members x WHERE x.channel_url = c.channel_url AND \(among)) = ?")
            args.append(.int(Int64(ids.count)))
        }
        if let include = q.membersIncludeIn, !include.isEmpty {
            // Seed 000 (Harry, John, Jay, Jin): AND matches the channels that include all of the
            // users, OR those that include any (the seed's line that both give A and B is a slip;
            // Sendbird and its SDK docs agree on "all").
            let ids = Set(include).sorted()
            let among = d.isIn("x.user_id", ids, &args)
            if q.queryType.uppercased() == "OR" {
                wheres.append("EXISTS (SELECT 1 FROM members x WHERE x.channel_url = c.channel_url AND \(among))")
            } else {
                wheres.append("(SELECT COUNT(*) FROM members x WHERE x.channel_url = c.channel_url AND \(among)) = ?")
                args.append(.int(Int64(ids.count)))
            }
        }
        if let nick = q.membersNicknameContains, !nick.isEmpty {
            let cond = d.contains("u.nickname", nick, &args)
            wheres.append("EXISTS (SELECT 1 FROM members x JOIN users u ON u.user_id = x.user_id WHERE x.channel_url = c.channel_url AND \(cond))")
        }
    }

    /// A metadata key, with one of some values or a value's prefix.
    private static func metadataFilter(_ q: ChannelListQuery, _ d: SQLDialect, _ wheres: inout [String], _ args: inout [SQLValue]) {
        guard let key = q.metadataKey, !key.isEmpty else { return }
        args.append(.text(key))
        var cond = "md2.key = ?"
        if let values = q.metadataValues, !values.isEmpty {
            cond += " AND " + d.isIn("md2.value", values, &args)
        } else if let prefix = q.metadataValueStartsWith, !prefix.isEmpty {
            cond += " AND " + d.startsWith("md2.value", prefix, &args)
        }
        wheres.append("EXISTS (SELECT 1 FROM channel_metadata md2 WHERE md2.channel_url = c.channel_url AND \(cond))")
    }
}

// MARK: - A page of history

/// The statements of ``MessageStore/messages(_:query:)``: the messages before, at and after an
/// anchor, with the filters; at a page's edge, the messages that share its timestamp come too
/// (rather more than some dropped). A store runs them in this order:
/// ``prev``, then ``prevTies(edge:)`` when the page is full; ``anchor``; ``next``, then ``nextTies(edge:)``;
/// and ``assemble(prev:anchor:next:)``.
struct MessagePageSQL {
    let query: MessageQuery
    let channelUrl: String
    let anchorTs: Int64
    let anchorId: Int64?
    private var filter = ""
    private var filterArgs: [SQLValue] = []
    private let before: String
    private let after: String
    private let positionArgs: [SQLValue]

    /// `anchorTs`: the anchor's time (a message anchor's own `created_at`, with `anchorId` its id).
    init(_ q: MessageQuery, channelUrl: String, anchorTs: Int64, anchorId: Int64?, dialect d: SQLDialect) {
        query = q
        self.channelUrl = channelUrl
        self.anchorTs = anchorTs
        self.anchorId = anchorId
        if let t = q.messageType, !t.isEmpty {
            filter += " AND type = ?"
            filterArgs.append(.text(t))
        }
        if let types = q.customTypes, !types.isEmpty, !types.contains("*") {
            filter += " AND " + d.isIn("custom_type", types, &filterArgs)
        }
        if let senders = q.senderIds, !senders.isEmpty {
            filter += " AND " + d.isIn("sender_id", senders, &filterArgs)
        }
        if q.createdAfter > 0 {
            filter += " AND created_at > ?"
            filterArgs.append(.int(q.createdAfter))
        }
        if let viewer = q.viewer {
            filter += " AND (hidden_for IS NULL OR hidden_for <> ?)"
            filterArgs.append(.text(viewer))
        }
        if let parent = q.parentMessageId {
            filter += " AND parent_message_id = ?"
            filterArgs.append(.int(parent))
        } else {
            switch q.replyType {
            case "all": break
            case "only_reply_to_channel": filter += " AND (parent_message_id = 0 OR \(d.flag("reply_to_channel")))"
            default: filter += " AND parent_message_id = 0"
            }
        }
        // Positions strictly before and strictly after the anchor, as (created_at, message_id).
        if let id = anchorId {
            before = "(created_at < ? OR (created_at = ? AND message_id < ?))"
            after = "(created_at > ? OR (created_at = ? AND message_id > ?))"
            positionArgs = [.int(anchorTs), .int(anchorTs), .int(id)]
        } else {
            before = "created_at < ?"
            after = "created_at > ?"
            positionArgs = [.int(anchorTs)]
        }
    }

    /// The statement that finds a message anchor's time.
    static func anchorTime(channelUrl: String, messageId: Int64) -> SQLText {
        SQLText("SELECT created_at FROM messages WHERE channel_url = ? AND message_id = ?", [.text(channelUrl), .int(messageId)])
    }

    var prev: SQLText? { side(before, limit: query.prevLimit, order: "DESC") }

    /// What shares the time of the oldest message of a full `prev` page (`rows`, newest first).
    func prevTies(_ rows: [MessageRecord]) -> SQLText? { ties(rows, before, limit: query.prevLimit, beyond: "<") }

    var anchor: SQLText? {
        guard query.inclusive else { return nil }
        if let id = anchorId {
            return SQLText("SELECT * FROM messages WHERE channel_url = ? AND message_id = ?\(filter)", [.text(channelUrl), .int(id)] + filterArgs)
        }
        return SQLText(
            "SELECT * FROM messages WHERE channel_url = ? AND created_at = ?\(filter) ORDER BY message_id",
            [.text(channelUrl), .int(anchorTs)] + filterArgs)
    }

    var next: SQLText? { side(after, limit: query.nextLimit, order: "ASC") }

    /// What shares the time of the newest message of a full `next` page.
    func nextTies(_ rows: [MessageRecord]) -> SQLText? { ties(rows, after, limit: query.nextLimit, beyond: ">") }

    /// One side of the anchor (`position`: ``before`` or ``after``), nearest first.
    private func side(_ position: String, limit: Int, order: String) -> SQLText? {
        guard limit > 0 else { return nil }
        return SQLText(
            "SELECT * FROM messages WHERE channel_url = ? AND \(position)\(filter) ORDER BY created_at \(order), message_id \(order) LIMIT ?",
            [.text(channelUrl)] + positionArgs + filterArgs + [.int(Int64(limit))])
    }

    /// The messages past a full side's last row (`beyond`: `<` before the anchor, `>` after) with its time.
    private func ties(_ rows: [MessageRecord], _ position: String, limit: Int, beyond: String) -> SQLText? {
        guard rows.count == limit, let edge = rows.last else { return nil }
        return SQLText(
            "SELECT * FROM messages WHERE channel_url = ? AND created_at = ? AND message_id \(beyond) ? AND \(position)\(filter) ORDER BY message_id",
            [.text(channelUrl), .int(edge.createdAt), .int(edge.messageId)] + positionArgs + filterArgs)
    }

    /// The page, oldest first (newest first for `reverse`), from what the statements returned
    /// (`prev` and its ties as read: newest first, then oldest first).
    func assemble(prev: [MessageRecord], prevTies: [MessageRecord], anchor: [MessageRecord], next: [MessageRecord], nextTies: [MessageRecord])
        -> [MessageRecord]
    {
        let all = prevTies + prev.reversed() + anchor + next + nextTies
        return query.reverse ? all.reversed() : all
    }
}

// MARK: - Message search

/// The filters of ``SearchStore/searchMessages(_:)`` around the store's own text match: the
/// searcher's memberships (and history offset), the channel's custom type, the channel and the
/// time range. `match` is the store's condition on `m` (FTS5 or `tsvector`) with its argument.
struct MessageSearchSQL {
    /// `FROM … WHERE …` over messages `m` (after `source`, the store's FROM items).
    var base: SQLText
    var order: String

    init(_ q: MessageSearch, source: String, match: String, matchArg: SQLValue) {
        var joins = ""
        var args: [SQLValue] = []
        var wheres = [match, "m.type <> 'EPHM'"]
        if let user = q.userId {
            joins +=
                " JOIN members mb ON mb.channel_url = m.channel_url AND mb.user_id = ? AND mb.state = 'joined' AND m.created_at > mb.ts_message_offset"
            args.append(.text(user))
            wheres.append("(m.hidden_for IS NULL OR m.hidden_for <> ?)")
        }
        if let type = q.channelCustomType {
            joins += " JOIN group_channels c ON c.channel_url = m.channel_url AND c.custom_type = ?"
            args.append(.text(type))
        }
        args.append(matchArg)
        if let user = q.userId { args.append(.text(user)) }
        whereValue("m.channel_url = ?", q.channelUrl.map(SQLValue.text), &wheres, &args)
        whereValue("m.created_at >= ?", q.from.map(SQLValue.int), &wheres, &args)
        whereValue("m.created_at <= ?", q.to.map(SQLValue.int), &wheres, &args)
        base = SQLText("FROM \(source)\(joins) WHERE \(wheres.joined(separator: " AND "))", args)
        order = q.newestFirst ? "m.created_at DESC, m.message_id DESC" : "m.created_at, m.message_id"
    }
}

// MARK: - User listing and reports

/// The statement of ``UserStore/listUsers(_:)`` (nil: an empty id list, which lists no one).
func userListSQL(_ q: UserListQuery, dialect d: SQLDialect) -> SQLText? {
    var t = SQLText("SELECT * FROM users WHERE user_id > ?", [.text(q.afterUserId ?? "")])
    if let ids = q.userIds {
        if ids.isEmpty { return nil }
        t.sql += " AND " + d.isIn("user_id", ids, &t.args)
    }
    if let p = q.nicknameStartsWith, !p.isEmpty {
        // The first `p.count` characters (code points) of the nickname equal `p`.
        t.sql += " AND substr(nickname, 1, \(d.intParameter)) = ?"
        t.args += [.int(Int64(p.count)), .text(p)]
    }
    if let n = q.nickname {
        t.sql += " AND nickname = ?"
        t.args.append(.text(n))
    }
    if let key = q.metadataKey, !key.isEmpty {
        let field = d.jsonField("metadata", key, &t.args)
        if let values = q.metadataValues, !values.isEmpty {
            t.sql += " AND " + d.isIn(field, values, &t.args)
        } else {
            t.sql += " AND \(field) IS NOT NULL"
        }
    }
    switch q.activeMode {
    case "all": break
    case "deactivated": t.sql += " AND " + d.flag("is_active", false)
    default: t.sql += " AND " + d.flag("is_active")
    }
    t.sql += " ORDER BY user_id LIMIT ?"
    t.args.append(.int(Int64(q.limit)))
    return t
}

/// The statement of ``ModerationStore/reports(_:)``: newest first.
func reportListSQL(_ q: ReportQuery) -> SQLText {
    var wheres: [String] = []
    var args: [SQLValue] = []
    let filters: [(String, SQLValue?)] = [
        ("channel_url = ?", q.channelUrl.map(SQLValue.text)),
        ("message_id = ?", q.messageId.map { .int(Int64($0)) }),
        ("offending_user_id = ?", q.offendingUserId.map(SQLValue.text)),
        ("created_at >= ?", q.startTs.map { .int(Int64($0)) }),
        ("created_at < ?", q.endTs.map { .int(Int64($0)) }),
        ("report_id < ?", q.beforeId.map { .int(Int64($0)) }),
    ]
    for (condition, value) in filters {
        guard let value else { continue }
        wheres.append(condition)
        args.append(value)
    }
    var sql = "SELECT * FROM reports"
    if !wheres.isEmpty { sql += " WHERE " + wheres.joined(separator: " AND ") }
    sql += " ORDER BY report_id DESC LIMIT ?"
    args.append(.int(Int64(q.limit)))
    return SQLText(sql, args)
}

/// The statement of ``UserStore/blockedUsers(_:blockingMe:afterUserId:limit:userIds:)``: the users
/// `userId` blocks (or who block them), by user id.
func blockedUsersSQL(_ userId: String, blockingMe: Bool, afterUserId: String?, limit: Int, userIds: [String]?, dialect d: SQLDialect) -> SQLText {
    var t = SQLText(
        blockingMe
            ? "SELECT u.* FROM blocks b JOIN users u ON u.user_id = b.blocker_id WHERE b.blocked_id = ?"
            : "SELECT u.* FROM blocks b JOIN users u ON u.user_id = b.blocked_id WHERE b.blocker_id = ?",
        [.text(userId)])
    if let after = afterUserId {
        t.sql += " AND u.user_id > ?"
        t.args.append(.text(after))
    }
    if let ids = userIds, !ids.isEmpty { t.sql += " AND " + d.isIn("u.user_id", ids, &t.args) }
    t.sql += " ORDER BY u.user_id LIMIT ?"
    t.args.append(.int(Int64(limit)))
    return t
}

/// The statement of ``UserStore/session(keyHash:)``: a session with what decides whether it still
/// holds (its user, and the access token it was made from). One parameter: the key's hash.
let sessionSQL = """
    SELECT s.user_id, s.expires_at, s.token_hash, u.is_active, u.user_id IS NOT NULL AS user_exists,
           t.token_hash IS NOT NULL AS token_exists, t.expires_at AS token_expires_at
    FROM sessions s
    LEFT JOIN users u ON u.user_id = s.user_id
    LEFT JOIN access_tokens t ON t.token_hash = s.token_hash AND t.user_id = s.user_id
    WHERE s.key_hash = ?
    """
