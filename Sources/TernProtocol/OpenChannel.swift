/// An open channel as the REST API and events present it (research/sdk-wire.md §A).
public struct OpenChannelPayload: Codable, Sendable, Equatable {
    public var channelUrl: String
    public var channelType = "open"
    public var name: String
    public var coverUrl: String
    public var customType: String
    public var data: String
    /// Unix seconds.
    public var createdAt: Int64
    public var operators: [UserPayload]
    public var participantCount: Int
    public var freeze: Bool
    public var isEphemeral: Bool
    public var isDynamicPartitioned = false
    public var maxLengthMessage: Int
    public var metadata: [String: String]

    public init(
        channelUrl: String, name: String = "", coverUrl: String = "", customType: String = "", data: String = "",
        createdAt: Int64 = 0, operators: [UserPayload] = [], participantCount: Int = 0, freeze: Bool = false,
        isEphemeral: Bool = false, maxLengthMessage: Int = 5000, metadata: [String: String] = [:]
    ) {
        self.channelUrl = channelUrl
        self.name = name
        self.coverUrl = coverUrl
        self.customType = customType
        self.data = data
        self.createdAt = createdAt
        self.operators = operators
        self.participantCount = participantCount
        self.freeze = freeze
        self.isEphemeral = isEphemeral
        self.maxLengthMessage = maxLengthMessage
        self.metadata = metadata
    }

    enum CodingKeys: String, CodingKey {
        case channelUrl = "channel_url"
        case channelType = "channel_type"
        case name
        case coverUrl = "cover_url"
        case customType = "custom_type"
        case data
        case createdAt = "created_at"
        case operators
        case participantCount = "participant_count"
        case freeze
        case isEphemeral = "is_ephemeral"
        case isDynamicPartitioned = "is_dynamic_partitioned"
        case maxLengthMessage = "max_length_message"
        case metadata
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            channelUrl: try c.decode(String.self, forKey: .channelUrl), name: c.lenient(.name, ""), coverUrl: c.lenient(.coverUrl, ""),
            customType: c.lenient(.customType, ""), data: c.lenient(.data, ""), createdAt: c.lenientInt64(.createdAt),
            operators: c.lenient(.operators, []), participantCount: Int(c.lenientInt64(.participantCount)),
            freeze: c.lenient(.freeze, false), isEphemeral: c.lenient(.isEphemeral, false),
            maxLengthMessage: Int(c.lenientInt64(.maxLengthMessage, 5000)), metadata: c.lenient(.metadata, [:]))
        channelType = c.lenient(.channelType, "open")
        isDynamicPartitioned = c.lenient(.isDynamicPartitioned, false)
    }
}

/// `GET /v3/open_channels`.
public struct OpenChannelPage: Codable, Sendable {
    public var channels: [OpenChannelPayload]
    public var next: String
    public init(channels: [OpenChannelPayload], next: String) {
        self.channels = channels
        self.next = next
    }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        channels = c.lenient(.channels, [])
        next = c.lenient(.next, "")
    }
    enum CodingKeys: String, CodingKey { case channels, next }
}

/// A page of users under a named key: `participants`, `operators`, `users`.
public struct UserListPage: Codable, Sendable {
    public var users: [UserPayload]
    public var next: String
    public init(users: [UserPayload], next: String) {
        self.users = users
        self.next = next
    }
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        var found: [UserPayload] = []
        for k in ["participants", "operators", "users"] {
            if let list = c.lenient(Key(stringValue: k), [UserPayload]?.none) {
                found = list
                break
            }
        }
        users = found
        next = c.lenient(Key(stringValue: "next"), "")
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(users, forKey: Key(stringValue: "users"))
        try c.encode(next, forKey: Key(stringValue: "next"))
    }
}

/// The acknowledgement of `ENTR` and `EXIT`.
public struct EnterExitAck: Codable, Sendable, Equatable {
    public var channelUrl: String
    public var channelType = "open"
    public var participantCount: Int
    public var user: SenderPayload?
    public var ts: Int64
    public var reqId: String?
    public init(channelUrl: String, participantCount: Int, user: SenderPayload?, ts: Int64, reqId: String?) {
        self.channelUrl = channelUrl
        self.participantCount = participantCount
        self.user = user
        self.ts = ts
        self.reqId = reqId
    }
    enum CodingKeys: String, CodingKey {
        case channelUrl = "channel_url"
        case channelType = "channel_type"
        case participantCount = "participant_count"
        case user, ts
        case reqId = "req_id"
        case data
    }
    /// The SDKs read the count from `data` (with the user's keys and `edge_ts`, which orders counts).
    struct Data: Codable {
        var participantCount: Int
        var edgeTs: Int64
        enum CodingKeys: String, CodingKey {
            case participantCount = "participant_count"
            case edgeTs = "edge_ts"
        }
    }
    struct UserKeys: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(channelUrl, forKey: .channelUrl)
        try c.encode(channelType, forKey: .channelType)
        try c.encode(participantCount, forKey: .participantCount)
        try c.encodeIfPresent(user, forKey: .user)
        try c.encode(ts, forKey: .ts)
        try c.encodeIfPresent(reqId, forKey: .reqId)
        let d = c.superEncoder(forKey: .data)
        try user?.encode(to: d)
        var dc = d.container(keyedBy: Data.CodingKeys.self)
        try dc.encode(participantCount, forKey: .participantCount)
        try dc.encode(ts, forKey: .edgeTs)
    }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        channelUrl = c.lenient(.channelUrl, "")
        channelType = c.lenient(.channelType, "open")
        participantCount = c.lenient(.data, Data?.none)?.participantCount ?? Int(c.lenientInt64(.participantCount))
        user = c.lenient(.user, SenderPayload?.none)
        ts = c.lenientInt64(.ts)
        reqId = c.lenient(.reqId, String?.none)
    }
}

/// A ban or mute as the lists and events show it.
public struct RestrictionPayload: Codable, Sendable, Equatable {
    public var user: UserPayload
    public var description: String
    /// ms.
    public var startAt: Int64
    /// ms; -1 forever.
    public var endAt: Int64
    public init(user: UserPayload, description: String, startAt: Int64, endAt: Int64) {
        self.user = user
        self.description = description
        self.startAt = startAt
        self.endAt = endAt
    }
    enum CodingKeys: String, CodingKey {
        case user, description
        case startAt = "start_at"
        case endAt = "end_at"
    }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        user = try c.decode(UserPayload.self, forKey: .user)
        description = c.lenient(.description, "")
        startAt = c.lenientInt64(.startAt)
        endAt = c.lenientInt64(.endAt, -1)
    }
}

/// `GET …/mute/{user_id}`: whether a user is muted and for how long.
public struct MutedInfoPayload: Codable, Sendable, Equatable {
    public var isMuted: Bool
    /// ms; -1 forever, 0 when not muted.
    public var remainingDuration: Int64
    public var startAt: Int64
    public var endAt: Int64
    public var description: String
    public init(isMuted: Bool, remainingDuration: Int64, startAt: Int64, endAt: Int64, description: String) {
        self.isMuted = isMuted
        self.remainingDuration = remainingDuration
        self.startAt = startAt
        self.endAt = endAt
        self.description = description
    }
    enum CodingKeys: String, CodingKey {
        case isMuted = "is_muted"
        case remainingDuration = "remaining_duration"
        case startAt = "start_at"
        case endAt = "end_at"
        case description
    }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        isMuted = c.lenient(.isMuted, false)
        remainingDuration = c.lenientInt64(.remainingDuration)
        startAt = c.lenientInt64(.startAt)
        endAt = c.lenientInt64(.endAt)
        description = c.lenient(.description, "")
    }
}
