import Foundation
import TernProtocol

/// How a member list is ordered and filtered (seed 000's member list query).
public struct MemberListParams: Sendable, Equatable {
    public enum Order: String, Sendable {
        case nicknameAlphabetical = "member_nickname_alphabetical"
        case operatorsFirst = "operator_then_member_alphabetical"
    }
    public enum OperatorFilter: String, Sendable {
        case all
        case operators = "operator"
        case nonOperators = "nonoperator"
    }
    public var order: Order = .nicknameAlphabetical
    public var operatorFilter: OperatorFilter = .all
    public var nicknameStartsWith = ""
    public var mutedOnly = false
    public var limit = 100
    public init() {}
}

/// The application's user list query (BRIEF F1).
public struct UserListParams: Sendable, Equatable {
    /// At most 250 (the server answers HTTP 414 beyond).
    public var userIds: [String] = []
    public var nicknameStartsWith = ""
    public var metadataKey = ""
    public var metadataValues: [String] = []
    public var limit = 20
    public init() {}
}

/// What a report is about.
public enum ReportCategory: String, Sendable, CaseIterable {
    case suspicious, harassing, inappropriate, spam
}

/// Operators, bans, mutes, reports, members and users (seeds 000/001, BRIEF F1 and F7). Every call works on
/// group and open channels alike.
extension ChatClient {
    // MARK: Operators

    public func addOperators(_ userIds: [String], in url: String) async throws {
        try await call("POST", channelBase(url) + "/operators", ["operator_ids": userIds])
    }

    public func removeOperators(_ userIds: [String], in url: String) async throws {
        try await call("DELETE", RESTClient.path(channelBase(url) + "/operators", [("operator_ids", userIds.joined(separator: ","))]), nil)
    }

    public func removeAllOperators(in url: String) async throws {
        try await call("DELETE", RESTClient.path(channelBase(url) + "/operators", [("delete_all", "true")]), nil)
    }

    public func operators(in url: String, limit: Int = 100) async throws -> [User] {
        let page = try await rest.request(
            "GET", RESTClient.path(channelBase(url) + "/operators", [("limit", String(limit))]), sessionKey: try requireSession(),
            as: UserListPage.self)
        return page.users.map(User.init)
    }

    // MARK: Emojis

    /// The application's emoji keys (`GET /v3/emoji_categories`), in category order: what the
    /// reaction palette offers.
    public func emojiKeys() async throws -> [String] {
        let catalog = try await rest.request("GET", "/v3/emoji_categories", sessionKey: try requireSession(), as: EmojiCategoryList.self)
        return catalog.emojiCategories.flatMap { $0.emojis.map(\.key) }
    }

    // MARK: Push preferences

    public struct PushPreferences: Sendable, Equatable, Decodable {
        public var pushTriggerOption: String?
        public var doNotDisturb: Bool?
        public var startHour: Int?
        public var startMin: Int?
        public var endHour: Int?
        public var endMin: Int?
        public var timezone: String?
        public var snoozeEnabled: Bool?
        public var snoozeStartTs: Int64?
        public var snoozeEndTs: Int64?
        enum CodingKeys: String, CodingKey {
            case pushTriggerOption = "push_trigger_option"
            case doNotDisturb = "do_not_disturb"
            case startHour = "start_hour"
            case startMin = "start_min"
            case endHour = "end_hour"
            case endMin = "end_min"
            case timezone
            case snoozeEnabled = "snooze_enabled"
            case snoozeStartTs = "snooze_start_ts"
            case snoozeEndTs = "snooze_end_ts"
        }
    }

    /// The signed-in user's push preferences (`GET /v3/users/{me}/push_preference`).
    public func pushPreferences() async throws -> PushPreferences {
        let key = try requireSession()
        return try await rest.request("GET", "/v3/users/\(RESTClient.segment(me))/push_preference", sessionKey: key, as: PushPreferences.self)
    }

    /// A channel's push trigger option for the signed-in user (`default`, `all`, `mention_only`, `off`).
    public func pushTrigger(in url: String) async throws -> String {
        let key = try requireSession()
        let p = try await rest.request(
            "GET", "/v3/users/\(RESTClient.segment(me))/push_preference/\(RESTClient.segment(url))", sessionKey: key,
            as: ChannelPushPreferenceAnswer.self)
        return p.pushTriggerOption
    }

    // MARK: Bans and mutes

    /// Bans a user (operators only): out of the channel at once, refused until `seconds` pass (-1: for ever).
    public func ban(_ userId: String, in url: String, seconds: Int = -1, description: String = "") async throws {
        try await call("POST", channelBase(url) + "/ban", ["user_id": userId, "seconds": seconds, "description": description])
    }

    public func unban(_ userId: String, in url: String) async throws {
        try await call("DELETE", channelBase(url) + "/ban/\(RESTClient.segment(userId))", nil)
    }

    /// Mutes a user (operators only): they stay and read; what they send is refused (900041) until `seconds` pass.
    public func mute(_ userId: String, in url: String, seconds: Int = -1, description: String = "") async throws {
        try await call("POST", channelBase(url) + "/mute", ["user_id": userId, "seconds": seconds, "description": description])
    }

    public func unmute(_ userId: String, in url: String) async throws {
        try await call("DELETE", channelBase(url) + "/mute/\(RESTClient.segment(userId))", nil)
    }

    public func bannedUsers(in url: String, limit: Int = 100) async throws -> [Restriction] {
        try await restrictions("ban", url, limit)
    }

    public func mutedUsers(in url: String, limit: Int = 100) async throws -> [Restriction] {
        try await restrictions("mute", url, limit)
    }

    func restrictions(_ kind: String, _ url: String, _ limit: Int) async throws -> [Restriction] {
        let page = try await rest.request(
            "GET", RESTClient.path(channelBase(url) + "/" + kind, [("limit", String(limit))]), sessionKey: try requireSession(),
            as: RestrictionListPage.self)
        return page.items.map(\.restriction).map {
            Restriction(user: User($0.user), description: $0.description, startAt: $0.startAt, endAt: $0.endAt)
        }
    }

    /// Whether the current user is muted in the channel, and until when (nil: not muted).
    public func myMute(in url: String) async throws -> Restriction? {
        let info = try await rest.request(
            "GET", channelBase(url) + "/mute/\(RESTClient.segment(me))", sessionKey: try requireSession(), as: MutedInfoPayload.self)
        guard info.isMuted else { return nil }
        return Restriction(user: currentUser ?? User(userId: me), description: info.description, startAt: info.startAt, endAt: info.endAt)
    }

    // MARK: Reports

    func reportBase(_ url: String) -> String {
        (isOpenChannel(url) ? "/v3/report/open_channels/" : "/v3/report/group_channels/") + RESTClient.segment(url)
    }

    public func report(message: Message, category: ReportCategory, description: String = "") async throws {
        var body: [String: Any] = ["report_category": category.rawValue, "reporting_user_id": me, "report_description": description]
        if let s = message.sender?.userId { body["offending_user_id"] = s }
        try await call("POST", reportBase(message.channelUrl) + "/messages/\(message.messageId)", body)
    }

    public func report(userId: String, in url: String, category: ReportCategory, description: String = "") async throws {
        try await call(
            "POST", "/v3/report/users/\(RESTClient.segment(userId))",
            [
                "channel_url": url, "channel_type": isOpenChannel(url) ? "open_channels" : "group_channels",
                "report_category": category.rawValue, "reporting_user_id": me, "report_description": description,
            ])
    }

    public func report(channel url: String, category: ReportCategory, description: String = "") async throws {
        try await call(
            "POST", reportBase(url), ["report_category": category.rawValue, "reporting_user_id": me, "report_description": description])
    }

    // MARK: Members and users

    /// A group channel's members as the member list query orders and filters them.
    public func members(in url: String, _ params: MemberListParams = MemberListParams()) async throws -> [Member] {
        var query: [(String, String)] = [
            ("limit", String(min(max(params.limit, 1), 100))), ("order", params.order.rawValue),
            ("operator_filter", params.operatorFilter.rawValue), ("member_state_filter", "all"),
            ("muted_member_filter", params.mutedOnly ? "muted" : "all"), ("show_member_is_muted", "true"),
        ]
        if !params.nicknameStartsWith.isEmpty { query.append(("nickname_startswith", params.nicknameStartsWith)) }
        let page = try await rest.request(
            "GET", RESTClient.path(channelBase(url) + "/members", query), sessionKey: try requireSession(), as: MemberPage.self)
        return page.members.map(Member.init)
    }

    /// The application's users (one page; `next` continues).
    public func users(_ params: UserListParams = UserListParams(), token: String? = nil) async throws -> (users: [UserProfile], next: String) {
        var query: [(String, String)] = [("limit", String(min(max(params.limit, 1), 100))), ("token", token ?? "")]
        if !params.userIds.isEmpty { query.append(("user_ids", params.userIds.joined(separator: ","))) }
        if !params.nicknameStartsWith.isEmpty { query.append(("nickname_startswith", params.nicknameStartsWith)) }
        if !params.metadataKey.isEmpty {
            query.append(("metadatakey", params.metadataKey))
            if !params.metadataValues.isEmpty { query.append(("metadatavalues_in", params.metadataValues.joined(separator: ","))) }
        }
        let page = try await rest.request("GET", RESTClient.path("/v3/users", query), sessionKey: try requireSession(), as: UserListPage.self)
        return (page.users.map(UserProfile.init), page.next)
    }

    /// One user's profile.
    public func user(_ userId: String) async throws -> UserProfile {
        UserProfile(try await rest.request("GET", "/v3/users/\(RESTClient.segment(userId))", sessionKey: try requireSession(), as: UserPayload.self))
    }

    /// Changes the current user's nickname (at most 80 characters) or profile URL.
    @discardableResult
    public func updateMe(nickname: String? = nil, profileUrl: String? = nil) async throws -> UserProfile {
        var body: [String: Any] = [:]
        if let nickname { body["nickname"] = nickname }
        if let profileUrl { body["profile_url"] = profileUrl }
        let p = try await rest.request(
            "PUT", "/v3/users/\(RESTClient.segment(me))", body: RESTClient.json(body), sessionKey: try requireSession(), as: UserPayload.self)
        let profile = UserProfile(p)
        currentUser = profile.user
        return profile
    }
}
