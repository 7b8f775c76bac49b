import Foundation

// Lists and counts that ternd writes and TernKit reads: one type for both sides. Reading is
// lenient (a list or `next` left out reads as empty, the end).

/// `GET /v3/group_channels` and `GET /v3/users/{id}/my_group_channels` → `{channels, next, ts}`.
public struct GroupChannelPage: Codable, Sendable {
    public var channels: [GroupChannelPayload]
    /// The next page's token ("" at the end).
    public var next: String
    public var ts: Int64
    enum CodingKeys: String, CodingKey { case channels, next, ts }

    public init(channels: [GroupChannelPayload], next: String, ts: Int64) {
        self.channels = channels
        self.next = next
        self.ts = ts
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(channels: try c.decode([GroupChannelPayload].self, forKey: .channels), next: c.lenient(.next, ""), ts: c.lenientInt64(.ts))
    }
}

/// `GET …/{url}/messages` (and the thread and search pages built on it) → `{messages[, has_next]}`.
public struct MessageListPage: Codable, Sendable {
    public var messages: [MessagePayload]
    /// Given when asked for (`checking_has_next`).
    public var hasNext: Bool?
    enum CodingKeys: String, CodingKey {
        case messages
        case hasNext = "has_next"
    }

    public init(messages: [MessagePayload], hasNext: Bool? = nil) {
        self.messages = messages
        self.hasNext = hasNext
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(messages: try c.decode([MessagePayload].self, forKey: .messages), hasNext: c.lenient(.hasNext, nil))
    }
}

/// `GET /v3/group_channels/{url}/members` → `{members, next}`.
public struct MemberPage: Codable, Sendable {
    public var members: [MemberPayload]
    public var next: String
    enum CodingKeys: String, CodingKey { case members, next }

    public init(members: [MemberPayload], next: String) {
        self.members = members
        self.next = next
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(members: try c.decode([MemberPayload].self, forKey: .members), next: c.lenient(.next, ""))
    }
}

/// `GET /v3/users/{id}/unread_message_count` and `…/unread_channel_count` → `{unread_count}`.
public struct UnreadCountAnswer: Codable, Sendable {
    public var unreadCount: Int
    enum CodingKeys: String, CodingKey { case unreadCount = "unread_count" }
    public init(unreadCount: Int) { self.unreadCount = unreadCount }
}

/// `GET`/`PUT /v3/users/{id}/count_preference/{url}` → `{count_preference}`.
public struct CountPreferenceAnswer: Codable, Sendable {
    public var countPreference: String
    enum CodingKeys: String, CodingKey { case countPreference = "count_preference" }
    public init(countPreference: String) { self.countPreference = countPreference }
}

/// `GET /v3/search/messages` → `{results, has_next, end_cursor, total_count}`.
public struct MessageSearchPage: Codable, Sendable {
    public var results: [MessagePayload]
    public var hasNext: Bool
    /// Where the next page starts ("" or absent: none).
    public var endCursor: String
    public var totalCount: Int
    enum CodingKeys: String, CodingKey {
        case results
        case hasNext = "has_next"
        case endCursor = "end_cursor"
        case totalCount = "total_count"
    }

    public init(results: [MessagePayload], hasNext: Bool, endCursor: String, totalCount: Int) {
        self.results = results
        self.hasNext = hasNext
        self.endCursor = endCursor
        self.totalCount = totalCount
    }

    /// A server that leaves the count out: the results given.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let results = try c.decode([MessagePayload].self, forKey: .results)
        self.init(
            results: results, hasNext: c.lenient(.hasNext, false), endCursor: c.lenient(.endCursor, ""),
            totalCount: c.lenient(.totalCount, results.count))
    }
}

/// The answer of hiding a channel or resetting its history for a member → `{ts_message_offset}`:
/// history before it is not shown to that member.
public struct MessageOffsetAnswer: Codable, Sendable {
    public var tsMessageOffset: Int64
    enum CodingKeys: String, CodingKey { case tsMessageOffset = "ts_message_offset" }
    public init(tsMessageOffset: Int64) { self.tsMessageOffset = tsMessageOffset }
    public init(from decoder: any Decoder) throws {
        self.init(tsMessageOffset: try decoder.container(keyedBy: CodingKeys.self).lenientInt64(.tsMessageOffset))
    }
}

/// A user's (or the application's default) channel invitation preference → `{auto_accept}`.
public struct InvitationPreferenceAnswer: Codable, Sendable {
    public var autoAccept: Bool
    enum CodingKeys: String, CodingKey { case autoAccept = "auto_accept" }
    public init(autoAccept: Bool) { self.autoAccept = autoAccept }
}
