/// One `{key, value[]}` entry of a message's `sorted_metaarray`.
public struct MetaArrayItem: Codable, Sendable, Equatable {
    public var key: String
    public var value: [String]
    public init(key: String, value: [String]) {
        self.key = key
        self.value = value
    }
}

/// A message (user `MESG`, file `FILE` or admin `ADMM`) as REST responses and WebSocket pushes carry it.
///
/// REST clients read `message_id` and `created_at`; the SDKs' real-time parsers read `msg_id` and `ts`.
/// Both spellings are written. `user` is absent for admin messages (the Platform SDK rejects `null`).
public struct MessagePayload: Codable, Sendable, Equatable {
    public var type: String
    public var messageId: Int64
    public var msgId: Int64
    public var message: String
    public var channelUrl: String
    public var channelType: String
    public var createdAt: Int64
    public var ts: Int64
    public var updatedAt: Int64
    public var user: SenderPayload?
    public var customType: String
    public var data: String
    public var sortedMetaarray: [MetaArrayItem]
    public var mentionType: String
    public var mentionedUsers: [SenderPayload]
    public var silent: Bool
    public var isOpMsg: Bool
    public var isRemoved: Bool
    public var messageSurvivalSeconds: Int
    public var parentMessageId: Int64
    public var isReplyToChannel: Bool
    public var reqId: String?

    public init(
        type: String, id: Int64, message: String, channelUrl: String, channelType: String = "group", createdAt: Int64,
        updatedAt: Int64 = 0, user: SenderPayload?, customType: String = "", data: String = "",
        sortedMetaarray: [MetaArrayItem] = [], mentionType: String = "users", mentionedUsers: [SenderPayload] = [],
        silent: Bool = false, isOpMsg: Bool = false, parentMessageId: Int64 = 0, isReplyToChannel: Bool = false,
        reqId: String? = nil
    ) {
        self.type = type
        self.messageId = id
        self.msgId = id
        self.message = message
        self.channelUrl = channelUrl
        self.channelType = channelType
        self.createdAt = createdAt
        self.ts = createdAt
        self.updatedAt = updatedAt
        self.user = user
        self.customType = customType
        self.data = data
        self.sortedMetaarray = sortedMetaarray
        self.mentionType = mentionType
        self.mentionedUsers = mentionedUsers
        self.silent = silent
        self.isOpMsg = isOpMsg
        self.isRemoved = false
        self.messageSurvivalSeconds = -1
        self.parentMessageId = parentMessageId
        self.isReplyToChannel = isReplyToChannel
        self.reqId = reqId
    }

    enum CodingKeys: String, CodingKey {
        case type, messageId = "message_id", msgId = "msg_id", message, channelUrl = "channel_url"
        case channelType = "channel_type", createdAt = "created_at", ts, updatedAt = "updated_at", user
        case customType = "custom_type", data, sortedMetaarray = "sorted_metaarray", mentionType = "mention_type"
        case mentionedUsers = "mentioned_users", silent, isOpMsg = "is_op_msg", isRemoved = "is_removed"
        case messageSurvivalSeconds = "message_survival_seconds", parentMessageId = "parent_message_id"
        case isReplyToChannel = "is_reply_to_channel", reqId = "req_id"
    }
}
