/// Payloads of the WebSocket commands, in both directions.

/// `reconnect` in `LOGI`: the policy a client follows after losing the socket.
public struct ReconnectPolicy: Codable, Sendable, Equatable {
    public var interval: Double
    public var maxInterval: Double
    public var mul: Double
    /// -1 = unlimited.
    public var retryCnt: Int
    public init(interval: Double = 2, maxInterval: Double = 20, mul: Double = 2, retryCnt: Int = -1) {
        self.interval = interval
        self.maxInterval = maxInterval
        self.mul = mul
        self.retryCnt = retryCnt
    }
    enum CodingKeys: String, CodingKey {
        case interval
        case maxInterval = "max_interval"
        case mul
        case retryCnt = "retry_cnt"
    }
}

/// `unread_cnt` carried by `LOGI` and other pushes: the user's totals at `ts` (ms).
public struct UnreadCount: Codable, Sendable, Equatable {
    public var all: Int
    public var customTypes: [String: Int]
    public var ts: Int64
    public init(all: Int, customTypes: [String: Int] = [:], ts: Int64) {
        self.all = all
        self.customTypes = customTypes
        self.ts = ts
    }
    enum CodingKeys: String, CodingKey {
        case all
        case customTypes = "custom_types"
        case ts
    }
}

/// The server's first frame on a new connection (`LOGI`).
public struct LoginPayload: Codable, Sendable, Equatable {
    public var userId: String
    public var nickname: String
    public var profileUrl: String
    public var metadata: [String: String]
    public var key: String
    public var ekey: String
    public var loginTs: Int64
    public var pingInterval: Int
    public var pongTimeout: Int
    public var reconnect: ReconnectPolicy
    public var unreadCnt: UnreadCount
    /// Megabytes.
    public var fileUploadSizeLimit: Int
    public var multipleFileSendMaxSize: Int
    public var maxUnreadCntOnSuperGroup: Int
    public var useReaction: Bool
    public var disableSupergroupMack: Bool
    public var requestDedupIntervalMs: Int
    public var concurrentCallLimit: Int
    public var premiumFeatureList: [String]
    public var applicationAttributes: [String]
    public var services: [String]
    public var emojiHash: String
    public var appId: String
    public var reqId: String?

    public init(user: UserPayload, key: String, loginTs: Int64, unread: UnreadCount, appId: String) {
        userId = user.userId
        nickname = user.nickname
        profileUrl = user.profileUrl
        metadata = user.metadata
        self.key = key
        ekey = ""
        self.loginTs = loginTs
        pingInterval = 15
        pongTimeout = 5
        reconnect = ReconnectPolicy()
        unreadCnt = unread
        fileUploadSizeLimit = 25
        multipleFileSendMaxSize = 30
        maxUnreadCntOnSuperGroup = 100
        useReaction = true
        disableSupergroupMack = true
        requestDedupIntervalMs = 500
        concurrentCallLimit = 0
        premiumFeatureList = []
        applicationAttributes = []
        services = ["chat"]
        emojiHash = ""
        self.appId = appId
        reqId = nil
    }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case nickname
        case profileUrl = "profile_url"
        case metadata, key, ekey
        case loginTs = "login_ts"
        case pingInterval = "ping_interval"
        case pongTimeout = "pong_timeout"
        case reconnect
        case unreadCnt = "unread_cnt"
        case fileUploadSizeLimit = "file_upload_size_limit"
        case multipleFileSendMaxSize = "multiple_file_send_max_size"
        case maxUnreadCntOnSuperGroup = "max_unread_cnt_on_super_group"
        case useReaction = "use_reaction"
        case disableSupergroupMack = "disable_supergroup_mack"
        case requestDedupIntervalMs = "request_dedup_interval_ms"
        case concurrentCallLimit = "concurrent_call_limit"
        case premiumFeatureList = "premium_feature_list"
        case applicationAttributes = "application_attributes"
        case services
        case emojiHash = "emoji_hash"
        case appId = "app_id"
        case reqId = "req_id"
    }
}

/// `{"error":true,"code","message"}` — a refused login, or an `EROR` frame.
public struct ErrorPayload: Codable, Sendable, Equatable {
    public var error: Bool
    public var code: Int
    public var message: String
    public var reqId: String?
    public var channelUrl: String?
    public var ts: Int64?
    public init(code: ErrorCode, message: String, reqId: String? = nil, channelUrl: String? = nil, ts: Int64? = nil) {
        self.error = true
        self.code = code.rawValue
        self.message = message
        self.reqId = reqId
        self.channelUrl = channelUrl
        self.ts = ts
    }
    enum CodingKeys: String, CodingKey {
        case error, code, message
        case reqId = "req_id"
        case channelUrl = "channel_url"
        case ts
    }
}

/// An integer that may arrive as a JSON number or a numeric string (clients differ).
public struct FlexibleInt64: Codable, Sendable, Equatable {
    public var value: Int64
    public init(_ value: Int64) { self.value = value }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let v = try? c.decode(Int64.self) {
            value = v
        } else if let d = try? c.decode(Double.self), d.isFinite, d == d.rounded(), abs(d) < 9.3e18 {
            value = Int64(d)
        } else if let s = try? c.decode(String.self), let v = Int64(s) {
            value = v
        } else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "expected an integer")
        }
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(value)
    }
}

/// C→S `MESG`: send a user message.
public struct SendMessageRequest: Codable, Sendable, Equatable {
    public var channelUrl: String?
    public var message: String?
    public var data: String?
    public var customType: String?
    public var mentionType: String?
    public var mentionedUserIds: [String]?
    public var metaarray: FlexibleMetaArray?
    public var parentMessageId: FlexibleInt64?
    public var replyToChannel: Bool?
    public var silent: Bool?
    public var reqId: String?
    /// Nothing given (what a payload of `{}` reads as).
    package init() {}
    public init(channelUrl: String, message: String, reqId: String?) {
        self.channelUrl = channelUrl
        self.message = message
        self.reqId = reqId
    }
    enum CodingKeys: String, CodingKey {
        case channelUrl = "channel_url"
        case message, data
        case customType = "custom_type"
        case mentionType = "mention_type"
        case mentionedUserIds = "mentioned_user_ids"
        case metaarray
        case parentMessageId = "parent_message_id"
        case replyToChannel = "reply_to_channel"
        case silent
        case reqId = "req_id"
    }
}

/// A metaarray as clients send it: `[{key, value}]`, or the older `{key: [values]}`.
public struct FlexibleMetaArray: Codable, Sendable, Equatable {
    public var items: [MetaArrayItem]
    public init(_ items: [MetaArrayItem]) { self.items = items }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let list = try? c.decode([MetaArrayItem].self) {
            items = list
        } else {
            let map = try c.decode([String: [String]].self)
            items = map.keys.sorted().map { MetaArrayItem(key: $0, value: map[$0] ?? []) }
        }
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(items)
    }
}

/// C→S `FILE`: a file message (one file flat, or `files`).
public struct FileMessageRequest: Codable, Sendable {
    public var channelUrl: String?
    public var url: String?
    public var name: String?
    public var type: String?
    public var size: FlexibleInt64?
    public var thumbnails: [ThumbnailPayload]?
    public var files: [FilePayload]?
    /// The JS SDK sends the message's `data` as `custom`.
    public var custom: String?
    public var data: String?
    public var customType: String?
    public var requireAuth: Bool?
    public var mentionType: String?
    public var mentionedUserIds: [String]?
    public var metaarray: FlexibleMetaArray?
    public var parentMessageId: FlexibleInt64?
    public var replyToChannel: Bool?
    public var reqId: String?
    public init(channelUrl: String, reqId: String?) {
        self.channelUrl = channelUrl
        self.reqId = reqId
    }
    enum CodingKeys: String, CodingKey {
        case channelUrl = "channel_url"
        case url, name, type, size, thumbnails, files, custom, data
        case customType = "custom_type"
        case requireAuth = "require_auth"
        case mentionType = "mention_type"
        case mentionedUserIds = "mentioned_user_ids"
        case metaarray
        case parentMessageId = "parent_message_id"
        case replyToChannel = "reply_to_channel"
        case reqId = "req_id"
    }
}

/// C→S `MEDI`/`FEDI`: change a message.
public struct UpdateMessageRequest: Codable, Sendable {
    public struct MetaArrayParams: Codable, Sendable {
        public var array: [MetaArrayItem]
        public var mode: String?
        public var upsert: Bool?
        public init(array: [MetaArrayItem], mode: String, upsert: Bool) {
            self.array = array
            self.mode = mode
            self.upsert = upsert
        }
    }
    public var channelUrl: String?
    public var msgId: FlexibleInt64?
    public var message: String?
    public var data: String?
    public var customType: String?
    public var mentionType: String?
    public var mentionedUserIds: [String]?
    public var metaarray: MetaArrayParams?
    public var reqId: String?
    public init(channelUrl: String, msgId: Int64, reqId: String?) {
        self.channelUrl = channelUrl
        self.msgId = FlexibleInt64(msgId)
        self.reqId = reqId
    }
    enum CodingKeys: String, CodingKey {
        case channelUrl = "channel_url"
        case msgId = "msg_id"
        case message, data
        case customType = "custom_type"
        case mentionType = "mention_type"
        case mentionedUserIds = "mentioned_user_ids"
        case metaarray
        case reqId = "req_id"
    }
}

/// C→S commands that name one channel: `READ`, `ENTR`, `EXIT`, `TPST`, `TPEN`, `MACK`.
public struct ChannelRequest: Codable, Sendable, Equatable {
    public var channelUrl: String?
    public var reqId: String?
    public var time: FlexibleInt64?
    public var msgId: FlexibleInt64?
    /// Nothing given (what a payload of `{}` reads as).
    package init() {}
    public init(channelUrl: String, reqId: String? = nil, time: Int64? = nil, msgId: Int64? = nil) {
        self.channelUrl = channelUrl
        self.reqId = reqId
        self.time = time.map(FlexibleInt64.init)
        self.msgId = msgId.map(FlexibleInt64.init)
    }
    enum CodingKeys: String, CodingKey {
        case channelUrl = "channel_url"
        case reqId = "req_id"
        case time
        case msgId = "msg_id"
    }
}

/// C→S `PING` and S→C `PONG`.
public struct PingPayload: Codable, Sendable, Equatable {
    public var id: FlexibleInt64?
    public var ts: Int64?
    public var reqId: String?
    public init(id: Int64?, ts: Int64?, reqId: String? = nil) {
        self.id = id.map(FlexibleInt64.init)
        self.ts = ts
        self.reqId = reqId
    }
    enum CodingKeys: String, CodingKey {
        case id, ts
        case reqId = "req_id"
    }
}

/// S→C `READ`: a member read a channel up to `ts`.
public struct ReadEvent: Codable, Sendable, Equatable {
    public var channelUrl: String
    public var channelType: String
    public var user: SenderPayload
    public var ts: Int64
    public var reqId: String?
    /// The reader's totals after the read (only on the frames to the reader's own connections).
    public var unreadCnt: UnreadCount?
    public init(channelUrl: String, user: SenderPayload, ts: Int64, reqId: String? = nil, unreadCnt: UnreadCount? = nil) {
        self.channelUrl = channelUrl
        self.channelType = "group"
        self.user = user
        self.ts = ts
        self.reqId = reqId
        self.unreadCnt = unreadCnt
    }
    enum CodingKeys: String, CodingKey {
        case channelUrl = "channel_url"
        case channelType = "channel_type"
        case user, ts
        case reqId = "req_id"
        case unreadCnt = "unread_cnt"
    }
}

/// S→C `DLVR`: delivery receipts that moved.
public struct DeliveryEvent: Codable, Sendable, Equatable {
    public var channelUrl: String
    public var channelType: String
    public var updated: [String: Int64]
    public init(channelUrl: String, updated: [String: Int64]) {
        self.channelUrl = channelUrl
        self.channelType = "group"
        self.updated = updated
    }
    enum CodingKeys: String, CodingKey {
        case channelUrl = "channel_url"
        case channelType = "channel_type"
        case updated
    }
}

/// The categories (`cat`) of S→C `SYEV` channel events; the frames are ``ChannelEventFrame``.
public enum ChannelEvent {
    public static let typingStart = 10900
    public static let typingEnd = 10901
}

extension ChannelEvent {
    public static let joined = 10000
    public static let left = 10001
    public static let invited = 10020
    public static let declined = 10022
    public static let operatorsChanged = 10002
    public static let entered = 10102
    public static let exited = 10103
    public static let unmuted = 10200
    public static let muted = 10201
    public static let unbanned = 10600
    public static let banned = 10601
    public static let unfrozen = 10700
    public static let frozen = 10701
    public static let changed = 11000
    public static let metadataChanged = 11100
    public static let metacountersChanged = 11200
    public static let deleted = 12000
    public static let hidden = 13000
    public static let unhidden = 13001
}

/// S→C `SYEV` with any `data` (membership, freeze, hide… events).
public struct ChannelEventFrame<Payload: Encodable & Sendable>: Encodable, Sendable {
    public var cat: Int
    public var channelUrl: String
    public var channelType = "group"
    public var data: Payload
    public var ts: Int64
    /// The receiver's unread totals, when the event changed them (sent to that user's own devices only).
    public var unreadCnt: UnreadCount?
    public init(cat: Int, channelUrl: String, data: Payload, ts: Int64, unreadCnt: UnreadCount? = nil) {
        self.cat = cat
        self.channelUrl = channelUrl
        self.data = data
        self.ts = ts
        self.unreadCnt = unreadCnt
    }
    enum CodingKeys: String, CodingKey {
        case cat
        case channelUrl = "channel_url"
        case channelType = "channel_type"
        case data, ts
        case unreadCnt = "unread_cnt"
    }
}

/// `data` of the membership events: 10000 `users`; 10020 `inviter`, `invitees`, `invited_at`; 10022 `inviter`,
/// `invitee`; every one with the channel's member counts after the change.
public struct MembershipEventData: Codable, Sendable, Equatable {
    public var users: [MemberPayload]?
    public var inviter: MemberPayload?
    public var invitees: [MemberPayload]?
    public var invitee: MemberPayload?
    public var invitedAt: Int64?
    public var memberCount: Int
    public var joinedMemberCount: Int
    public init(memberCount: Int, joinedMemberCount: Int) {
        self.memberCount = memberCount
        self.joinedMemberCount = joinedMemberCount
    }
    enum CodingKeys: String, CodingKey {
        case users, inviter, invitees, invitee
        case invitedAt = "invited_at"
        case memberCount = "member_count"
        case joinedMemberCount = "joined_member_count"
    }
}

/// `data` of 10001 (leave): the member who left, with the member counts after it.
public struct LeaveEventData: Encodable, Sendable {
    public var member: MemberPayload
    public var memberCount: Int
    public var joinedMemberCount: Int
    public init(member: MemberPayload, memberCount: Int, joinedMemberCount: Int) {
        self.member = member
        self.memberCount = memberCount
        self.joinedMemberCount = joinedMemberCount
    }
    enum CodingKeys: String, CodingKey {
        case memberCount = "member_count"
        case joinedMemberCount = "joined_member_count"
    }
    public func encode(to encoder: any Encoder) throws {
        try member.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(memberCount, forKey: .memberCount)
        try c.encode(joinedMemberCount, forKey: .joinedMemberCount)
    }
}

/// S→C `MCNT`: member counts of channels that changed.
public struct MemberCountFrame: Codable, Sendable, Equatable {
    /// A group channel's counts; a client keeps the count it has where one is left out.
    public struct Group: Codable, Sendable, Equatable {
        public var channelUrl: String
        public var memberCount: Int?
        public var joinedMemberCount: Int?
        public init(channelUrl: String, memberCount: Int?, joinedMemberCount: Int?) {
            self.channelUrl = channelUrl
            self.memberCount = memberCount
            self.joinedMemberCount = joinedMemberCount
        }
        enum CodingKeys: String, CodingKey {
            case channelUrl = "channel_url"
            case memberCount = "member_count"
            case joinedMemberCount = "joined_member_count"
        }
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                channelUrl: try c.decode(String.self, forKey: .channelUrl), memberCount: c.lenient(.memberCount, nil),
                joinedMemberCount: c.lenient(.joinedMemberCount, nil))
        }
    }
    /// An open channel's participant count.
    public struct Open: Codable, Sendable, Equatable {
        public var channelUrl: String
        public var participantCount: Int?
        /// When the count was taken (the SDKs keep only a count newer than the one they hold).
        public var ts: Int64?
        public init(channelUrl: String, participantCount: Int?, ts: Int64? = nil) {
            self.channelUrl = channelUrl
            self.participantCount = participantCount
            self.ts = ts
        }
        enum CodingKeys: String, CodingKey {
            case channelUrl = "channel_url"
            case participantCount = "participant_count"
            case ts
        }
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                channelUrl: try c.decode(String.self, forKey: .channelUrl), participantCount: c.lenient(.participantCount, nil),
                ts: c.lenient(.ts, nil))
        }
    }
    public var groupChannels: [Group]
    /// Always present (the JS SDK maps over both lists).
    public var openChannels: [Open] = []
    public var ts: Int64
    public init(groupChannels: [Group], ts: Int64) {
        self.groupChannels = groupChannels
        self.ts = ts
    }
    enum CodingKeys: String, CodingKey {
        case groupChannels = "group_channels"
        case openChannels = "open_channels"
        case ts
    }
    /// Either list may be left out.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(groupChannels: c.lenient(.groupChannels, []), ts: c.lenientInt64(.ts))
        openChannels = c.lenient(.openChannels, [])
    }
}
