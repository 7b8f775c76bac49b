import Foundation

// The REST answers that ternd writes and TernKit reads: one type for both sides, so the two
// cannot drift apart. Reading is lenient where Sendbird's own JSON varies (a field left out, a
// deleted message as a bare id).

/// `GET /v3/{group_channels|open_channels}/{url}/messages/changelogs`: what changed or went since
/// a time or a token, oldest change first → `{updated, deleted: [{message_id, deleted_at}],
/// has_more, next}`.
public struct MessageChangelog: Codable, Sendable {
    /// A message that went, and when (ms).
    public struct Deleted: Codable, Sendable {
        public var messageId: Int64
        public var deletedAt: Int64
        enum CodingKeys: String, CodingKey {
            case messageId = "message_id"
            case deletedAt = "deleted_at"
        }

        public init(messageId: Int64, deletedAt: Int64) {
            self.messageId = messageId
            self.deletedAt = deletedAt
        }

        /// `{message_id, deleted_at}`, or (older servers) the bare id.
        public init(from decoder: any Decoder) throws {
            if let id = try? decoder.singleValueContainer().decode(FlexibleInt64.self) {
                self.init(messageId: id.value, deletedAt: 0)
                return
            }
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.init(messageId: try c.decode(FlexibleInt64.self, forKey: .messageId).value, deletedAt: c.lenientInt64(.deletedAt))
        }
    }

    public var updated: [MessagePayload]
    public var deleted: [Deleted]
    public var hasMore: Bool
    /// The token of the next page ("" at the end).
    public var next: String
    enum CodingKeys: String, CodingKey {
        case updated, deleted
        case hasMore = "has_more"
        case next
    }

    public init(updated: [MessagePayload], deleted: [Deleted], hasMore: Bool, next: String) {
        self.updated = updated
        self.deleted = deleted
        self.hasMore = hasMore
        self.next = next
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            updated: try c.decode([MessagePayload].self, forKey: .updated), deleted: try c.decode([Deleted].self, forKey: .deleted),
            hasMore: c.lenient(.hasMore, false), next: c.lenient(.next, ""))
    }
}

/// `GET /v3/users/{id}/my_group_channels/changelogs`: the user's channels changed (or lost) since
/// a time or a token → `{updated, deleted: [url], has_more, next, ts}`.
public struct GroupChannelChangelog: Codable, Sendable {
    public var updated: [GroupChannelPayload]
    /// The urls of the channels the user lost.
    public var deleted: [String]
    public var hasMore: Bool
    /// The token of the next page.
    public var next: String
    /// The server's time of the answer (ms).
    public var ts: Int64
    enum CodingKeys: String, CodingKey {
        case updated, deleted
        case hasMore = "has_more"
        case next, ts
    }

    public init(updated: [GroupChannelPayload], deleted: [String], hasMore: Bool, next: String, ts: Int64) {
        self.updated = updated
        self.deleted = deleted
        self.hasMore = hasMore
        self.next = next
        self.ts = ts
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            updated: try c.decode([GroupChannelPayload].self, forKey: .updated), deleted: try c.decode([String].self, forKey: .deleted),
            hasMore: c.lenient(.hasMore, false), next: c.lenient(.next, ""), ts: c.lenientInt64(.ts))
    }
}

/// `GET /v3/group_channels/{url}/messages_gap`: the messages a client that was away missed on
/// each side of what it holds, or `is_huge_gap` (start over at the newest page).
public struct MessageGap: Codable, Sendable {
    public var prevMessages: [MessagePayload]
    public var prevHasmore: Bool
    public var nextMessages: [MessagePayload]
    public var nextHasmore: Bool
    public var isHugeGap: Bool
    enum CodingKeys: String, CodingKey {
        case prevMessages = "prev_messages"
        case prevHasmore = "prev_hasmore"
        case nextMessages = "next_messages"
        case nextHasmore = "next_hasmore"
        case isHugeGap = "is_huge_gap"
    }

    public init(prevMessages: [MessagePayload], prevHasmore: Bool, nextMessages: [MessagePayload], nextHasmore: Bool, isHugeGap: Bool) {
        self.prevMessages = prevMessages
        self.prevHasmore = prevHasmore
        self.nextMessages = nextMessages
        self.nextHasmore = nextHasmore
        self.isHugeGap = isHugeGap
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            prevMessages: try c.decodeIfPresent([MessagePayload].self, forKey: .prevMessages) ?? [], prevHasmore: c.lenient(.prevHasmore, false),
            nextMessages: try c.decodeIfPresent([MessagePayload].self, forKey: .nextMessages) ?? [], nextHasmore: c.lenient(.nextHasmore, false),
            isHugeGap: c.lenient(.isHugeGap, false))
    }
}
