import Foundation

// The frames that tell a channel's members a message changed, which ternd writes and TernKit
// reads: one type for both sides. Reading is lenient where Sendbird's JSON varies (an id as a
// string, `channel_type` left out).

/// `DELM`: a message was deleted → `{channel_url, channel_type, msg_id, message_id}`.
public struct DeleteMessageEvent: Codable, Sendable, Equatable {
    public var channelUrl: String
    public var channelType: String
    public var msgId: Int64
    enum CodingKeys: String, CodingKey {
        case channelUrl = "channel_url"
        case channelType = "channel_type"
        case msgId = "msg_id"
        case messageId = "message_id"
    }

    public init(channelUrl: String, channelType: String = "group", msgId: Int64) {
        self.channelUrl = channelUrl
        self.channelType = channelType
        self.msgId = msgId
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let id = try c.decodeIfPresent(FlexibleInt64.self, forKey: .msgId) ?? c.decode(FlexibleInt64.self, forKey: .messageId)
        self.init(channelUrl: try c.decode(String.self, forKey: .channelUrl), channelType: c.lenient(.channelType, "group"), msgId: id.value)
    }

    /// The id twice: `msg_id` as the SDK reads it, `message_id` as the Platform API names it.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(channelUrl, forKey: .channelUrl)
        try c.encode(channelType, forKey: .channelType)
        try c.encode(msgId, forKey: .msgId)
        try c.encode(msgId, forKey: .messageId)
    }
}

/// `MTHD`: a parent's thread changed → `{channel_url, channel_type, parent_message_id, thread_info}`.
public struct ThreadInfoEvent: Codable, Sendable, Equatable {
    public var channelUrl: String
    public var channelType: String
    public var parentMessageId: Int64
    public var threadInfo: ThreadInfo
    enum CodingKeys: String, CodingKey {
        case channelUrl = "channel_url"
        case channelType = "channel_type"
        case parentMessageId = "parent_message_id"
        case threadInfo = "thread_info"
    }

    public init(channelUrl: String, channelType: String = "group", parentMessageId: Int64, threadInfo: ThreadInfo) {
        self.channelUrl = channelUrl
        self.channelType = channelType
        self.parentMessageId = parentMessageId
        self.threadInfo = threadInfo
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            channelUrl: try c.decode(String.self, forKey: .channelUrl), channelType: c.lenient(.channelType, "group"),
            parentMessageId: try c.decode(FlexibleInt64.self, forKey: .parentMessageId).value,
            threadInfo: try c.decode(ThreadInfo.self, forKey: .threadInfo))
    }
}

/// `MRCT`, and the REST answer of a reaction change → `{channel_url, channel_type, msg_id,
/// reaction, user_id, operation: "ADD"|"DELETE", success, updated_at}`.
public struct ReactionEvent: Codable, Sendable, Equatable {
    public var channelUrl: String
    public var channelType: String
    public var msgId: Int64
    public var reaction: String
    public var userId: String
    public var operation: String
    public var success: Bool
    public var updatedAt: Int64
    enum CodingKeys: String, CodingKey {
        case channelUrl = "channel_url"
        case channelType = "channel_type"
        case msgId = "msg_id"
        case reaction
        case userId = "user_id"
        case operation
        case success
        case updatedAt = "updated_at"
    }

    public init(
        channelUrl: String, channelType: String = "group", msgId: Int64, reaction: String, userId: String, operation: String,
        success: Bool = true, updatedAt: Int64
    ) {
        self.channelUrl = channelUrl
        self.channelType = channelType
        self.msgId = msgId
        self.reaction = reaction
        self.userId = userId
        self.operation = operation
        self.success = success
        self.updatedAt = updatedAt
    }

    /// Whether the reaction was added (`ADD`, in any case) rather than taken away.
    public var added: Bool { operation.uppercased() == "ADD" }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            channelUrl: try c.decode(String.self, forKey: .channelUrl), channelType: c.lenient(.channelType, "group"),
            msgId: try c.decode(FlexibleInt64.self, forKey: .msgId).value, reaction: try c.decode(String.self, forKey: .reaction),
            userId: try c.decode(String.self, forKey: .userId), operation: try c.decode(String.self, forKey: .operation),
            success: c.lenient(.success, true), updatedAt: c.lenientInt64(.updatedAt))
    }
}
