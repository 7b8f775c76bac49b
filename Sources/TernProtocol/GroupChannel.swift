/// The `channel` object nested in a group channel (the Platform API's detail view).
public struct ChannelSummary: Codable, Sendable, Equatable {
    public var channelUrl: String
    public var name: String
    public var coverUrl: String
    public var customType: String
    public var data: String
    public var createdAt: Int64
    public var maxLengthMessage: Int
    public var memberCount: Int
    enum CodingKeys: String, CodingKey {
        case channelUrl = "channel_url"
        case name
        case coverUrl = "cover_url"
        case customType = "custom_type"
        case data
        case createdAt = "created_at"
        case maxLengthMessage = "max_length_message"
        case memberCount = "member_count"
    }
}

/// A group channel as seen by one user (the REST "group channel" object).
public struct GroupChannelPayload: Codable, Sendable, Equatable {
    public var channelUrl: String
    public var channelType: String
    public var name: String
    public var coverUrl: String
    public var customType: String
    public var data: String
    /// Unix seconds (Sendbird's unit for channels).
    public var createdAt: Int64
    public var createdBy: SenderPayload?
    public var isDistinct: Bool
    public var isPublic: Bool
    public var isSuper: Bool
    public var isEphemeral: Bool
    public var isBroadcast: Bool
    public var isExclusive: Bool
    public var isDiscoverable: Bool
    public var isAccessCodeRequired: Bool
    public var freeze: Bool
    public var maxLengthMessage: Int
    public var memberCount: Int
    public var joinedMemberCount: Int
    public var members: [MemberPayload]
    public var operators: [SenderPayload]
    /// `joined`, `invited` or `none` for the viewing user.
    public var memberState: String
    /// `operator` or `none`.
    public var myRole: String
    public var isMuted: Bool
    public var isHidden: Bool
    public var hiddenState: String
    public var isPushEnabled: Bool
    public var pushTriggerOption: String
    public var countPreference: String
    public var tsMessageOffset: Int64
    public var messageSurvivalSeconds: Int
    public var unreadMessageCount: Int
    public var unreadMentionCount: Int
    public var userLastRead: Int64
    public var invitedAt: Int64
    /// Who invited the viewer (null when they were not invited).
    public var inviter: SenderPayload?
    public var joinedTs: Int64
    public var readReceipt: [String: Int64]?
    public var deliveryReceipt: [String: Int64]?
    public var lastMessage: MessagePayload?
    public var metadata: [String: String]
    /// Only in the response to a create call: whether a new channel was made (false when a distinct one was reused).
    public var isCreated: Bool?
    /// The channel's own fields again, as the Platform API nests them.
    public var channel: ChannelSummary {
        get {
            ChannelSummary(
                channelUrl: channelUrl, name: name, coverUrl: coverUrl, customType: customType, data: data, createdAt: createdAt,
                maxLengthMessage: maxLengthMessage, memberCount: memberCount)
        }
        set {}
    }

    public init(channelUrl: String) {
        self.channelUrl = channelUrl
        channelType = "group"
        name = ""
        coverUrl = ""
        customType = ""
        data = ""
        createdAt = 0
        createdBy = nil
        isDistinct = false
        isPublic = false
        isSuper = false
        isEphemeral = false
        isBroadcast = false
        isExclusive = false
        isDiscoverable = false
        isAccessCodeRequired = false
        freeze = false
        maxLengthMessage = 5000
        memberCount = 0
        joinedMemberCount = 0
        members = []
        operators = []
        memberState = "none"
        myRole = "none"
        isMuted = false
        isHidden = false
        hiddenState = "unhidden"
        isPushEnabled = true
        pushTriggerOption = "all"
        countPreference = "all"
        tsMessageOffset = 0
        messageSurvivalSeconds = -1
        unreadMessageCount = 0
        unreadMentionCount = 0
        userLastRead = 0
        invitedAt = 0
        joinedTs = 0
        readReceipt = nil
        deliveryReceipt = nil
        lastMessage = nil
        metadata = [:]
        isCreated = nil
    }

    enum CodingKeys: String, CodingKey {
        case channelUrl = "channel_url"
        case channelType = "channel_type"
        case name
        case coverUrl = "cover_url"
        case customType = "custom_type"
        case data
        case createdAt = "created_at"
        case createdBy = "created_by"
        case isDistinct = "is_distinct"
        case isPublic = "is_public"
        case isSuper = "is_super"
        case isEphemeral = "is_ephemeral"
        case isBroadcast = "is_broadcast"
        case isExclusive = "is_exclusive"
        case isDiscoverable = "is_discoverable"
        case isAccessCodeRequired = "is_access_code_required"
        case freeze
        case maxLengthMessage = "max_length_message"
        case memberCount = "member_count"
        case joinedMemberCount = "joined_member_count"
        case members, operators
        case memberState = "member_state"
        case myRole = "my_role"
        case isMuted = "is_muted"
        case isHidden = "is_hidden"
        case hiddenState = "hidden_state"
        case isPushEnabled = "is_push_enabled"
        case pushTriggerOption = "push_trigger_option"
        case countPreference = "count_preference"
        case tsMessageOffset = "ts_message_offset"
        case messageSurvivalSeconds = "message_survival_seconds"
        case unreadMessageCount = "unread_message_count"
        case unreadMentionCount = "unread_mention_count"
        case userLastRead = "user_last_read"
        case invitedAt = "invited_at"
        case inviter
        case joinedTs = "joined_ts"
        case readReceipt = "read_receipt"
        case deliveryReceipt = "delivery_receipt"
        case lastMessage = "last_message"
        case metadata
        case isCreated = "is_created"
        case channel
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(channelUrl: try c.decode(String.self, forKey: .channelUrl))
        channelType = try c.decodeIfPresent(String.self, forKey: .channelType) ?? "group"
        name = try c.decodeIfPresent(String.self, forKey: .name) ?? ""
        coverUrl = try c.decodeIfPresent(String.self, forKey: .coverUrl) ?? ""
        customType = try c.decodeIfPresent(String.self, forKey: .customType) ?? ""
        data = try c.decodeIfPresent(String.self, forKey: .data) ?? ""
        createdAt = try c.decodeIfPresent(Int64.self, forKey: .createdAt) ?? 0
        createdBy = try c.decodeIfPresent(SenderPayload.self, forKey: .createdBy)
        isDistinct = try c.decodeIfPresent(Bool.self, forKey: .isDistinct) ?? false
        isPublic = try c.decodeIfPresent(Bool.self, forKey: .isPublic) ?? false
        isSuper = try c.decodeIfPresent(Bool.self, forKey: .isSuper) ?? false
        isEphemeral = try c.decodeIfPresent(Bool.self, forKey: .isEphemeral) ?? false
        freeze = try c.decodeIfPresent(Bool.self, forKey: .freeze) ?? false
        memberCount = try c.decodeIfPresent(Int.self, forKey: .memberCount) ?? 0
        joinedMemberCount = try c.decodeIfPresent(Int.self, forKey: .joinedMemberCount) ?? 0
        members = try c.decodeIfPresent([MemberPayload].self, forKey: .members) ?? []
        operators = try c.decodeIfPresent([SenderPayload].self, forKey: .operators) ?? []
        memberState = try c.decodeIfPresent(String.self, forKey: .memberState) ?? "none"
        myRole = try c.decodeIfPresent(String.self, forKey: .myRole) ?? "none"
        hiddenState = try c.decodeIfPresent(String.self, forKey: .hiddenState) ?? "unhidden"
        isHidden = try c.decodeIfPresent(Bool.self, forKey: .isHidden) ?? (hiddenState != "unhidden")
        tsMessageOffset = try c.decodeIfPresent(Int64.self, forKey: .tsMessageOffset) ?? 0
        invitedAt = try c.decodeIfPresent(Int64.self, forKey: .invitedAt) ?? 0
        inviter = try? c.decodeIfPresent(SenderPayload.self, forKey: .inviter)
        joinedTs = try c.decodeIfPresent(Int64.self, forKey: .joinedTs) ?? 0
        unreadMessageCount = try c.decodeIfPresent(Int.self, forKey: .unreadMessageCount) ?? 0
        unreadMentionCount = try c.decodeIfPresent(Int.self, forKey: .unreadMentionCount) ?? 0
        userLastRead = try c.decodeIfPresent(Int64.self, forKey: .userLastRead) ?? 0
        readReceipt = try c.decodeIfPresent([String: Int64].self, forKey: .readReceipt)
        deliveryReceipt = try c.decodeIfPresent([String: Int64].self, forKey: .deliveryReceipt)
        lastMessage = try c.decodeIfPresent(MessagePayload.self, forKey: .lastMessage)
        metadata = try c.decodeIfPresent([String: String].self, forKey: .metadata) ?? [:]
        isCreated = try c.decodeIfPresent(Bool.self, forKey: .isCreated)
        // A string, or `false` (off) from some servers.
        if let s = try? c.decodeIfPresent(String.self, forKey: .countPreference) {
            countPreference = s
        } else if (try? c.decodeIfPresent(Bool.self, forKey: .countPreference)) == false {
            countPreference = "off"
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(channelUrl, forKey: .channelUrl)
        try c.encode(channelType, forKey: .channelType)
        try c.encode(name, forKey: .name)
        try c.encode(coverUrl, forKey: .coverUrl)
        try c.encode(customType, forKey: .customType)
        try c.encode(data, forKey: .data)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encodeIfPresent(createdBy, forKey: .createdBy)
        try c.encode(isDistinct, forKey: .isDistinct)
        try c.encode(isPublic, forKey: .isPublic)
        try c.encode(isSuper, forKey: .isSuper)
        try c.encode(isEphemeral, forKey: .isEphemeral)
        try c.encode(isBroadcast, forKey: .isBroadcast)
        try c.encode(isExclusive, forKey: .isExclusive)
        try c.encode(isDiscoverable, forKey: .isDiscoverable)
        try c.encode(isAccessCodeRequired, forKey: .isAccessCodeRequired)
        try c.encode(freeze, forKey: .freeze)
        try c.encode(maxLengthMessage, forKey: .maxLengthMessage)
        try c.encode(memberCount, forKey: .memberCount)
        try c.encode(joinedMemberCount, forKey: .joinedMemberCount)
        try c.encode(members, forKey: .members)
        try c.encode(operators, forKey: .operators)
        try c.encode(memberState, forKey: .memberState)
        try c.encode(myRole, forKey: .myRole)
        try c.encode(isMuted, forKey: .isMuted)
        try c.encode(isHidden, forKey: .isHidden)
        try c.encode(hiddenState, forKey: .hiddenState)
        try c.encode(isPushEnabled, forKey: .isPushEnabled)
        try c.encode(pushTriggerOption, forKey: .pushTriggerOption)
        try c.encode(countPreference, forKey: .countPreference)
        try c.encode(tsMessageOffset, forKey: .tsMessageOffset)
        try c.encode(messageSurvivalSeconds, forKey: .messageSurvivalSeconds)
        try c.encode(unreadMessageCount, forKey: .unreadMessageCount)
        try c.encode(unreadMentionCount, forKey: .unreadMentionCount)
        try c.encode(userLastRead, forKey: .userLastRead)
        try c.encode(invitedAt, forKey: .invitedAt)
        try c.encode(inviter, forKey: .inviter)
        try c.encode(joinedTs, forKey: .joinedTs)
        try c.encodeIfPresent(readReceipt, forKey: .readReceipt)
        try c.encodeIfPresent(deliveryReceipt, forKey: .deliveryReceipt)
        if let lastMessage { try c.encode(lastMessage, forKey: .lastMessage) } else { try c.encodeNil(forKey: .lastMessage) }
        try c.encode(metadata, forKey: .metadata)
        try c.encodeIfPresent(isCreated, forKey: .isCreated)
        try c.encode(channel, forKey: .channel)
    }
}
