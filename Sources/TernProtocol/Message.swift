/// One `{key, value[]}` entry of a message's `sorted_metaarray`.
public struct MetaArrayItem: Codable, Sendable, Equatable {
    public var key: String
    public var value: [String]
    public init(key: String, value: [String]) {
        self.key = key
        self.value = value
    }
}

/// A parent message's thread: how many replies, by whom lately, when (`thread_info`).
public struct ThreadInfo: Codable, Sendable, Equatable {
    public var replyCount: Int
    /// The most recent repliers, newest first (at most 10).
    public var mostReplies: [SenderPayload]
    public var lastRepliedAt: Int64
    public var updatedAt: Int64
    public init(replyCount: Int = 0, mostReplies: [SenderPayload] = [], lastRepliedAt: Int64 = 0, updatedAt: Int64 = 0) {
        self.replyCount = replyCount
        self.mostReplies = mostReplies
        self.lastRepliedAt = lastRepliedAt
        self.updatedAt = updatedAt
    }
    enum CodingKeys: String, CodingKey {
        case replyCount = "reply_count"
        case mostReplies = "most_replies"
        case lastRepliedAt = "last_replied_at"
        case updatedAt = "updated_at"
    }
}

/// One reaction key on a message with who reacted (`reactions[]`).
public struct ReactionPayload: Codable, Sendable, Equatable {
    public var key: String
    public var userIds: [String]
    public var updatedAt: Int64
    public init(key: String, userIds: [String], updatedAt: Int64) {
        self.key = key
        self.userIds = userIds
        self.updatedAt = updatedAt
    }
    enum CodingKeys: String, CodingKey {
        case key
        case userIds = "user_ids"
        case updatedAt = "updated_at"
    }
}

/// `og:image` of a link preview.
public struct OGImage: Codable, Sendable, Equatable {
    public var url: String
    public var secureUrl: String?
    public var type: String?
    public var width: Int?
    public var height: Int?
    public var alt: String?
    public init(url: String, secureUrl: String? = nil, type: String? = nil, width: Int? = nil, height: Int? = nil, alt: String? = nil) {
        self.url = url
        self.secureUrl = secureUrl
        self.type = type
        self.width = width
        self.height = height
        self.alt = alt
    }
    enum CodingKeys: String, CodingKey {
        case url
        case secureUrl = "secure_url"
        case type, width, height, alt
    }
}

/// A link preview read from the page a message links to (`og_tag`).
public struct OGMetaData: Codable, Sendable, Equatable {
    public var title: String?
    public var url: String?
    public var description: String?
    public var image: OGImage?
    public init(title: String? = nil, url: String? = nil, description: String? = nil, image: OGImage? = nil) {
        self.title = title
        self.url = url
        self.description = description
        self.image = image
    }
    enum CodingKeys: String, CodingKey {
        case title = "og:title"
        case url = "og:url"
        case description = "og:description"
        case image = "og:image"
    }
}

/// A thumbnail of an image file.
public struct ThumbnailPayload: Codable, Sendable, Equatable {
    public var url: String
    public var width: Int
    public var height: Int
    public var realWidth: Int
    public var realHeight: Int
    public init(url: String, width: Int, height: Int, realWidth: Int, realHeight: Int) {
        self.url = url
        self.width = width
        self.height = height
        self.realWidth = realWidth
        self.realHeight = realHeight
    }
    enum CodingKeys: String, CodingKey {
        case url, width, height
        case realWidth = "real_width"
        case realHeight = "real_height"
    }
}

/// One file of a file message.
public struct FilePayload: Codable, Sendable, Equatable {
    public var url: String
    public var name: String
    public var size: Int
    public var type: String
    public var data: String
    public var thumbnails: [ThumbnailPayload]
    public init(url: String, name: String, size: Int, type: String, data: String = "", thumbnails: [ThumbnailPayload] = []) {
        self.url = url
        self.name = name
        self.size = size
        self.type = type
        self.data = data
        self.thumbnails = thumbnails
    }
    /// The SDKs spell the items of a multiple-file message `file_name`, `file_type`, `file_size`; both
    /// spellings are read and written.
    enum CodingKeys: String, CodingKey {
        case url, name, size, type, data, thumbnails
        case fileName = "file_name"
        case fileType = "file_type"
        case fileSize = "file_size"
        case requireAuth = "require_auth"
    }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        url = c.lenient(.url, "")
        name = c.lenient(.fileName, c.lenient(.name, ""))
        size = Int(c.lenientInt64(.fileSize, c.lenientInt64(.size)))
        type = c.lenient(.fileType, c.lenient(.type, ""))
        data = c.lenient(.data, "")
        thumbnails = c.lenient(.thumbnails, [])
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(url, forKey: .url)
        try c.encode(name, forKey: .name)
        try c.encode(name, forKey: .fileName)
        try c.encode(size, forKey: .size)
        try c.encode(size, forKey: .fileSize)
        try c.encode(type, forKey: .type)
        try c.encode(type, forKey: .fileType)
        try c.encode(data, forKey: .data)
        try c.encode(thumbnails, forKey: .thumbnails)
    }
}

/// What a reply carries of its parent (`parent_message_info`).
public struct ParentMessageInfo: Codable, Sendable, Equatable {
    public var messageId: Int64
    public var message: String
    public var ts: Int64
    public var type: String
    public var user: SenderPayload?
    public var customType: String
    public init(messageId: Int64, message: String, ts: Int64, type: String, user: SenderPayload?, customType: String) {
        self.messageId = messageId
        self.message = message
        self.ts = ts
        self.type = type
        self.user = user
        self.customType = customType
    }
    enum CodingKeys: String, CodingKey {
        case messageId = "message_id"
        case message, ts, type, user
        case customType = "custom_type"
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
    /// A parent's thread (nil when not asked for, or not a parent).
    public var threadInfo: ThreadInfo?
    /// A reply's parent (when asked for).
    public var parentMessageInfo: ParentMessageInfo?
    /// Reactions (when asked for).
    public var reactions: [ReactionPayload]?
    /// A link preview of the first URL in the text, once the server has read it.
    public var ogTag: OGMetaData?
    /// `FILE`: the first file (`url`, `name`, `size`, `type`) also flat, as the SDKs read it.
    public var file: FilePayload?
    /// `FILE` with several files.
    public var files: [FilePayload]?
    /// `FILE`: whether downloading needs the per-user `auth` parameter.
    public var requireAuth: Bool?
    /// Values an update replaced (`MEDI` pushes).
    public var oldValues: [String: String]?
    /// The message translated, by language (the Platform API's translation call).
    public var translations: [String: String]?

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
        case type
        case messageId = "message_id"
        case msgId = "msg_id"
        case message
        case channelUrl = "channel_url"
        case channelType = "channel_type"
        case createdAt = "created_at"
        case ts
        case updatedAt = "updated_at"
        case user
        case customType = "custom_type"
        case data
        case sortedMetaarray = "sorted_metaarray"
        case mentionType = "mention_type"
        case mentionedUsers = "mentioned_users"
        case silent
        case isOpMsg = "is_op_msg"
        case isRemoved = "is_removed"
        case messageSurvivalSeconds = "message_survival_seconds"
        case parentMessageId = "parent_message_id"
        case isReplyToChannel = "is_reply_to_channel"
        case reqId = "req_id"
        case threadInfo = "thread_info"
        case parentMessageInfo = "parent_message_info"
        case reactions
        case ogTag = "og_tag"
        case file, files
        case requireAuth = "require_auth"
        case oldValues = "old_values"
        case url, name, size, thumbnails
        case translations
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(type, forKey: .type)
        try c.encode(messageId, forKey: .messageId)
        try c.encode(msgId, forKey: .msgId)
        try c.encode(message, forKey: .message)
        try c.encode(channelUrl, forKey: .channelUrl)
        try c.encode(channelType, forKey: .channelType)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(ts, forKey: .ts)
        try c.encode(updatedAt, forKey: .updatedAt)
        try c.encodeIfPresent(user, forKey: .user)
        try c.encode(customType, forKey: .customType)
        try c.encode(data, forKey: .data)
        try c.encode(sortedMetaarray, forKey: .sortedMetaarray)
        try c.encode(mentionType, forKey: .mentionType)
        try c.encode(mentionedUsers, forKey: .mentionedUsers)
        try c.encode(silent, forKey: .silent)
        try c.encode(isOpMsg, forKey: .isOpMsg)
        try c.encode(isRemoved, forKey: .isRemoved)
        try c.encode(messageSurvivalSeconds, forKey: .messageSurvivalSeconds)
        try c.encode(parentMessageId, forKey: .parentMessageId)
        try c.encode(isReplyToChannel, forKey: .isReplyToChannel)
        try c.encodeIfPresent(reqId, forKey: .reqId)
        try c.encodeIfPresent(threadInfo, forKey: .threadInfo)
        try c.encodeIfPresent(parentMessageInfo, forKey: .parentMessageInfo)
        try c.encodeIfPresent(reactions, forKey: .reactions)
        try c.encodeIfPresent(ogTag, forKey: .ogTag)
        try c.encodeIfPresent(oldValues, forKey: .oldValues)
        try c.encodeIfPresent(translations, forKey: .translations)
        if let file {
            try c.encode(file, forKey: .file)
            try c.encode(file.url, forKey: .url)
            try c.encode(file.name, forKey: .name)
            try c.encode(file.size, forKey: .size)
            try c.encode(file.thumbnails, forKey: .thumbnails)
        }
        try c.encodeIfPresent(files, forKey: .files)
        try c.encodeIfPresent(requireAuth, forKey: .requireAuth)
    }
}
