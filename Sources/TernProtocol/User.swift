/// A user as Sendbird's REST API and `LOGI` present it.
public struct UserPayload: Codable, Sendable, Equatable {
    public var userId: String
    public var nickname: String
    public var profileUrl: String
    public var metadata: [String: String]
    public var isOnline: Bool
    public var lastSeenAt: Int64
    public var isActive: Bool
    public var hasEverLoggedIn: Bool
    public var requireAuthForProfileImage: Bool
    public var createdAt: Int64
    public var role: String
    public var preferredLanguages: [String]
    /// Present only in the response that issued it; `""` afterwards.
    public var accessToken: String?

    public init(
        userId: String, nickname: String = "", profileUrl: String = "", metadata: [String: String] = [:],
        isOnline: Bool = false, lastSeenAt: Int64 = 0, isActive: Bool = true, hasEverLoggedIn: Bool = false,
        createdAt: Int64 = 0, role: String = "", accessToken: String? = nil
    ) {
        self.userId = userId
        self.nickname = nickname
        self.profileUrl = profileUrl
        self.metadata = metadata
        self.isOnline = isOnline
        self.lastSeenAt = lastSeenAt
        self.isActive = isActive
        self.hasEverLoggedIn = hasEverLoggedIn
        self.requireAuthForProfileImage = false
        self.createdAt = createdAt
        self.role = role
        self.preferredLanguages = []
        self.accessToken = accessToken
    }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case nickname
        case profileUrl = "profile_url"
        case metadata
        case isOnline = "is_online"
        case lastSeenAt = "last_seen_at"
        case isActive = "is_active"
        case hasEverLoggedIn = "has_ever_logged_in"
        case requireAuthForProfileImage = "require_auth_for_profile_image"
        case createdAt = "created_at"
        case role
        case preferredLanguages = "preferred_languages"
        case accessToken = "access_token"
    }
}

/// The short user object carried inside messages and events.
public struct SenderPayload: Codable, Sendable, Equatable {
    public var userId: String
    public var nickname: String
    public var profileUrl: String
    public var metadata: [String: String]
    public var role: String
    public var isActive: Bool
    public var requireAuthForProfileImage: Bool

    public init(userId: String, nickname: String = "", profileUrl: String = "", metadata: [String: String] = [:], role: String = "") {
        self.userId = userId
        self.nickname = nickname
        self.profileUrl = profileUrl
        self.metadata = metadata
        self.role = role
        self.isActive = true
        self.requireAuthForProfileImage = false
    }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case nickname
        case profileUrl = "profile_url"
        case metadata, role
        case isActive = "is_active"
        case requireAuthForProfileImage = "require_auth_for_profile_image"
    }
}

/// A channel member: a user plus their state in one channel.
public struct MemberPayload: Codable, Sendable, Equatable {
    public var userId: String
    public var nickname: String
    public var profileUrl: String
    public var metadata: [String: String]
    public var isOnline: Bool
    public var lastSeenAt: Int64
    public var isActive: Bool
    public var requireAuthForProfileImage: Bool
    /// `joined` or `invited`.
    public var state: String
    /// `operator` or `none`.
    public var role: String
    public var isMuted: Bool
    public var isBlockedByMe: Bool
    public var isBlockingMe: Bool
    public var readTs: Int64?
    public var deliveredTs: Int64?

    public init(
        userId: String, nickname: String, profileUrl: String, metadata: [String: String], isOnline: Bool,
        lastSeenAt: Int64, state: String, role: String, readTs: Int64?, deliveredTs: Int64?
    ) {
        self.userId = userId
        self.nickname = nickname
        self.profileUrl = profileUrl
        self.metadata = metadata
        self.isOnline = isOnline
        self.lastSeenAt = lastSeenAt
        self.isActive = true
        self.requireAuthForProfileImage = false
        self.state = state
        self.role = role
        self.isMuted = false
        self.isBlockedByMe = false
        self.isBlockingMe = false
        self.readTs = readTs
        self.deliveredTs = deliveredTs
    }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case nickname
        case profileUrl = "profile_url"
        case metadata
        case isOnline = "is_online"
        case lastSeenAt = "last_seen_at"
        case isActive = "is_active"
        case requireAuthForProfileImage = "require_auth_for_profile_image"
        case state, role
        case isMuted = "is_muted"
        case isBlockedByMe = "is_blocked_by_me"
        case isBlockingMe = "is_blocking_me"
        case readTs = "read_ts"
        case deliveredTs = "delivered_ts"
    }
}
