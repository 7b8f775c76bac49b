import Foundation
import TernProtocol

/// Sendbird's count preferences for one channel.
public enum CountPreference: String, Sendable, CaseIterable {
    case all
    case messagesOnly = "unread_message_count_only"
    case mentionsOnly = "unread_mention_count_only"
    case off
}

/// The user's unread counters by kind (`unread_item_count`).
public struct UnreadItemCount: Sendable, Equatable, Decodable {
    public var groupChannelUnreadMessageCount: Int
    public var nonSuperGroupChannelUnreadMessageCount: Int
    public var superGroupChannelUnreadMessageCount: Int
    public var groupChannelUnreadMentionCount: Int
    public var groupChannelInvitationCount: Int
    enum CodingKeys: String, CodingKey {
        case groupChannelUnreadMessageCount = "group_channel_unread_message_count"
        case nonSuperGroupChannelUnreadMessageCount = "non_super_group_channel_unread_message_count"
        case superGroupChannelUnreadMessageCount = "super_group_channel_unread_message_count"
        case groupChannelUnreadMentionCount = "group_channel_unread_mention_count"
        case groupChannelInvitationCount = "group_channel_invitation_count"
    }
}

extension ChatClient {
    // MARK: - Server counters

    var mePath: String { "/v3/users/\(RESTClient.segment(me))" }

    /// The user's unread messages as the server counts them now, optionally only in channels of some
    /// custom types and only super (`super`) or other (`nonsuper`) channels.
    public func totalUnreadMessageCount(customTypes: [String] = [], superMode: String = "all") async throws -> Int {
        var q: [(String, String)] = [("super_mode", superMode)]
        if !customTypes.isEmpty { q.append(("custom_types", customTypes.joined(separator: ","))) }
        return try await rest.request(
            "GET", RESTClient.path(mePath + "/unread_message_count", q), sessionKey: try requireSession(), as: UnreadCountAnswer.self
        ).unreadCount
    }

    /// How many of the user's channels have unread messages, as the server counts them now.
    public func totalUnreadChannelCount(customTypes: [String] = []) async throws -> Int {
        let q: [(String, String)] = customTypes.isEmpty ? [] : [("custom_types", customTypes.joined(separator: ","))]
        return try await rest.request(
            "GET", RESTClient.path(mePath + "/unread_channel_count", q), sessionKey: try requireSession(), as: UnreadCountAnswer.self
        ).unreadCount
    }

    /// Unread messages, mentions and invitations by kind.
    public func unreadItemCount() async throws -> UnreadItemCount {
        try await rest.request("GET", mePath + "/unread_item_count", sessionKey: try requireSession(), as: UnreadItemCount.self)
    }

    /// Marks every channel (or only `channelUrls`) read: the server tells the other members and
    /// this user's devices (`READ`, with the new totals).
    public func markAllAsRead(channelUrls: [String]? = nil) async throws {
        var body: [String: Any] = [:]
        if let channelUrls { body["channel_urls"] = channelUrls }
        try await call("PUT", mePath + "/mark_as_read_all", body)
    }

    // MARK: - Count preference

    /// What the user's unread counts count in `url`.
    public func countPreference(in url: String) async throws -> CountPreference {
        let r = try await rest.request(
            "GET", mePath + "/count_preference/\(RESTClient.segment(url))", sessionKey: try requireSession(), as: CountPreferenceAnswer.self)
        return CountPreference(rawValue: r.countPreference) ?? .all
    }

    /// Sets what the user's unread counts count in `url`; every device of the user follows.
    @discardableResult
    public func setCountPreference(_ preference: CountPreference, in url: String) async throws -> GroupChannel {
        _ = try await rest.request(
            "PUT", mePath + "/count_preference/\(RESTClient.segment(url))",
            body: RESTClient.json(["count_preference": preference.rawValue]), sessionKey: try requireSession(), as: CountPreferenceAnswer.self)
        return try await refreshedChannel(url)
    }

    // MARK: - Blocking

    /// Users the current user blocks (as last read from the server and kept current by events).
    public var blockedUserIds: Set<String> { store.blocked }

    /// Blocks `userId` (seed 003): in 1:1 channels their new messages no longer reach this user; in
    /// every channel they no longer count as unread.
    @discardableResult
    public func blockUser(_ userId: String) async throws -> User {
        let u = try await rest.request(
            "POST", mePath + "/block", body: RESTClient.json(["target_id": userId]), sessionKey: try requireSession(), as: UserPayload.self)
        let user = User(userId: u.userId, nickname: u.nickname, profileUrl: u.profileUrl)
        if store.blocked.insert(userId).inserted { emit(.userBlocked(user)) }
        return user
    }

    public func unblockUser(_ userId: String) async throws {
        try await call("DELETE", mePath + "/block/\(RESTClient.segment(userId))", nil)
        if store.blocked.remove(userId) != nil { emit(.userUnblocked(User(userId: userId))) }
    }

    /// One page of the users the current user blocks, optionally only among `userIds`.
    public func blockedUsers(userIds: [String] = [], limit: Int = 100, token: String? = nil) async throws -> (users: [User], next: String?) {
        var q: [(String, String)] = [("limit", String(min(max(limit, 1), 100))), ("token", token ?? "")]
        if !userIds.isEmpty { q.append(("user_ids", userIds.joined(separator: ","))) }
        let page = try await rest.request("GET", RESTClient.path(mePath + "/block", q), sessionKey: try requireSession(), as: UserListPage.self)
        let users = page.users.map { User(userId: $0.userId, nickname: $0.nickname, profileUrl: $0.profileUrl) }
        return (users, page.next.isEmpty ? nil : page.next)
    }

    /// Reads the whole blocked list after a login (messages from blocked users must not count).
    func loadBlockedUsers() {
        Task {
            var all = Set<String>()
            var token: String?
            repeat {
                guard let page = try? await self.blockedUsers(token: token) else { return }
                all.formUnion(page.users.map(\.userId))
                token = page.next
            } while token != nil
            self.store.blocked = all
            self.blockedLoaded = true
        }
    }

    func handleUserEvent(_ frame: Frame) {
        guard let e = try? frame.decode(UserEventFrame<BlockEventData>.self), e.data.blocker.userId == me else { return }
        let user = User(e.data.blockee)
        switch e.cat {
        case UserEvent.blocked:
            if store.blocked.insert(user.userId).inserted { emit(.userBlocked(user)) }
        case UserEvent.unblocked:
            if store.blocked.remove(user.userId) != nil { emit(.userUnblocked(user)) }
        default:
            break
        }
    }
}
