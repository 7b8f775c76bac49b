import GRDB
import PostgresNIO
import TernProtocol

/// Row mapping shared by both stores: a record is read from a row of either (GRDB's `Row`, a
/// ``PGRow``) by the same code; each store only says how to read one column.

/// A value a record reads from a column.
protocol RecordColumn {
    static func read(_ row: Row, _ column: String) -> Self
    static func read(_ row: PGRow, _ column: String) throws -> Self
}

extension RecordColumn where Self: DatabaseValueConvertible & PostgresDecodable {
    static func read(_ row: Row, _ column: String) -> Self { row[column] }
    static func read(_ row: PGRow, _ column: String) throws -> Self { try row[column] }
}

extension String: RecordColumn {}
extension Int64: RecordColumn {}
extension Int: RecordColumn {}
extension Bool: RecordColumn {}

/// NULL, or a column the statement did not select: nil.
extension Optional: RecordColumn where Wrapped: RecordColumn & DatabaseValueConvertible & PostgresDecodable {
    static func read(_ row: Row, _ column: String) -> Self { row[column] as Wrapped? }
    static func read(_ row: PGRow, _ column: String) throws -> Self {
        guard row.has(column) else { return nil }
        let cell = row.row[column]
        return cell.bytes == nil ? nil : try cell.decode(Wrapped.self)
    }
}

/// A row of either store.
protocol RecordRow {
    func column<T: RecordColumn>(_ name: String) throws -> T
}

extension Row: RecordRow {
    func column<T: RecordColumn>(_ name: String) -> T { T.read(self, name) }
}

extension PGRow: RecordRow {
    func column<T: RecordColumn>(_ name: String) throws -> T { try T.read(self, name) }
}

/// The records, read from a row of either store.
enum Records {
    static func json<T: Decodable>(_ text: String?, as type: T.Type, default value: T) -> T {
        SQLiteStore.decodeJSON(text ?? "", as: type, default: value)
    }

    static func user(_ row: some RecordRow) throws -> UserRecord {
        UserRecord(
            userId: try row.column("user_id"), nickname: try row.column("nickname"), profileUrl: try row.column("profile_url"),
            metadata: json(try row.column("metadata"), as: [String: String].self, default: [:]), createdAt: try row.column("created_at"),
            lastSeenAt: try row.column("last_seen_at"), hasEverLoggedIn: try row.column("has_ever_logged_in"),
            isActive: try row.column("is_active"))
    }

    static func channel(_ row: some RecordRow) throws -> ChannelRecord {
        ChannelRecord(
            channelUrl: try row.column("channel_url"), name: try row.column("name"), coverUrl: try row.column("cover_url"),
            customType: try row.column("custom_type"), data: try row.column("data"), createdAt: try row.column("created_at"),
            createdBy: try row.column("created_by"), isDistinct: try row.column("is_distinct"), isPublic: try row.column("is_public"),
            isSuper: try row.column("is_super"), isEphemeral: try row.column("is_ephemeral"), freeze: try row.column("freeze"),
            lastMessageId: try row.column("last_message_id"), memberCount: try row.column("member_count"),
            joinedMemberCount: try row.column("joined_member_count"), channelType: try row.column("channel_type") ?? "group",
            operatorIds: json(try row.column("operator_ids"), as: [String].self, default: []))
    }

    static func member(_ row: some RecordRow) throws -> MemberRecord {
        MemberRecord(
            channelUrl: try row.column("channel_url"), userId: try row.column("user_id"), state: try row.column("state"),
            role: try row.column("role"), joinedTs: try row.column("joined_ts"), invitedAt: try row.column("invited_at"),
            readTs: try row.column("read_ts"), deliveredTs: try row.column("delivered_ts"), unreadCount: try row.column("unread_count"),
            unreadMentionCount: try row.column("unread_mention_count"), inviterId: try row.column("inviter_id"),
            hiddenState: try row.column("hidden_state"), tsMessageOffset: try row.column("ts_message_offset"),
            countPreference: try row.column("count_preference") ?? "all")
    }

    static func message(_ row: some RecordRow) throws -> MessageRecord {
        MessageRecord(
            messageId: try row.column("message_id"), channelUrl: try row.column("channel_url"), type: try row.column("type"),
            senderId: try row.column("sender_id"), message: try row.column("message"), customType: try row.column("custom_type"),
            data: try row.column("data"), mentionType: try row.column("mention_type"),
            mentionedUserIds: json(try row.column("mentioned_user_ids"), as: [String].self, default: []),
            silent: try row.column("silent"), isOpMsg: try row.column("is_op_msg"), createdAt: try row.column("created_at"),
            updatedAt: try row.column("updated_at"), parentMessageId: try row.column("parent_message_id"),
            reqId: try row.column("req_id"), hiddenFor: try row.column("hidden_for"),
            sortedMetaarray: json(try row.column("sorted_metaarray"), as: [MetaArrayItem].self, default: []),
            replyToChannel: try row.column("reply_to_channel") ?? false, replyCount: try row.column("reply_count") ?? 0,
            lastRepliedAt: try row.column("last_replied_at") ?? 0,
            mostReplies: json(try row.column("most_replies"), as: [String].self, default: []),
            ogTag: try row.column("og_tag"), changedAt: try row.column("changed_at") ?? 0, files: try row.column("files"))
    }

    static func restriction(_ row: some RecordRow) throws -> RestrictionRecord {
        RestrictionRecord(
            channelUrl: try row.column("channel_url"), userId: try row.column("user_id"),
            kind: RestrictionRecord.Kind(rawValue: try row.column("kind")) ?? .ban,
            startAt: try row.column("start_at"), endAt: try row.column("end_at"), description: try row.column("description"))
    }

    static func report(_ row: some RecordRow) throws -> ReportRecord {
        var r = ReportRecord(
            category: try row.column("category"), description: try row.column("description"),
            reportingUserId: try row.column("reporting_user_id"), offendingUserId: try row.column("offending_user_id"),
            channelUrl: try row.column("channel_url"), channelType: try row.column("channel_type"),
            messageId: try row.column("message_id"), reportedMessage: try row.column("reported_message"),
            createdAt: try row.column("created_at"))
        r.reportId = try row.column("report_id")
        return r
    }

    /// Unread items from rows grouped by `s` (the channels are supergroups) with sums `msgs`, `mentions`, `invites`.
    static func unreadItems(_ rows: [some RecordRow]) throws -> UnreadItems {
        var items = UnreadItems()
        for row in rows {
            let isSuper: Bool = try row.column("s")
            let msgs = Int((try row.column("msgs") as Int64?) ?? 0)
            let mentions = Int((try row.column("mentions") as Int64?) ?? 0)
            let invites = Int((try row.column("invites") as Int64?) ?? 0)
            if isSuper {
                (items.superMessages, items.superMentions, items.superInvitations) = (msgs, mentions, invites)
            } else {
                (items.nonSuperMessages, items.nonSuperMentions, items.nonSuperInvitations) = (msgs, mentions, invites)
            }
        }
        return items
    }
}
