import Foundation
import TernProtocol

/// Group-channel membership and changes (seeds 000/002): invite, accept, decline, join, leave, freeze,
/// update, delete, hide/archive, unhide, reset history, public channel list, invitation preference.
extension ChatClient {
    func channelPath(_ url: String, _ suffix: String = "") -> String {
        "/v3/group_channels/\(RESTClient.segment(url))" + suffix
    }

    /// Sends a membership call and keeps the channel it answers with.
    func channelCall(_ method: String, _ url: String, _ suffix: String, _ body: [String: Any]) async throws -> GroupChannel {
        let key = try requireSession()
        let payload = try await rest.request(
            method, channelPath(url, suffix), body: RESTClient.json(body), sessionKey: key, as: GroupChannelPayload.self)
        let c = GroupChannel(payload)
        finishFetch(c.url, c)
        return store[c.url] ?? c
    }

    func call(_ method: String, _ path: String, _ body: [String: Any]?) async throws {
        let key = try requireSession()
        _ = try await rest.requestData(method, path, body: body.map { RESTClient.json($0) }, sessionKey: key)
    }

    func removeFromList(_ url: String, _ reason: ChannelRemoval) {
        closeChannel(url)
        // Listed, or about to be (a re-read in flight, which this removal now cancels).
        let listed = store[url] != nil || channelReads.isReading(url)
        channelReads.removed(url)
        store.remove(url, server: serverTotals.removeValue(forKey: url))
        if listed { emit(.channelRemoved(url: url, reason: reason)) }
    }

    /// Invites users; those who auto-accept join at once, the others see an invitation.
    @discardableResult
    public func invite(_ userIds: [String], to url: String) async throws -> GroupChannel {
        guard !userIds.isEmpty else { throw SendbirdError(.invalidParameter, "no user to invite") }
        return try await channelCall("POST", url, "/invite", ["user_ids": userIds])
    }

    @discardableResult
    public func acceptInvitation(_ url: String) async throws -> GroupChannel {
        try await channelCall("PUT", url, "/accept", ["user_id": me])
    }

    public func declineInvitation(_ url: String) async throws {
        try await call("PUT", channelPath(url, "/decline"), ["user_id": me])
        removeFromList(url, .declined)
    }

    /// Joins a public channel.
    @discardableResult
    public func join(_ url: String) async throws -> GroupChannel {
        try await channelCall("PUT", url, "/join", ["user_id": me])
    }

    public func leave(_ url: String) async throws {
        try await call("PUT", channelPath(url, "/leave"), ["user_id": me, "should_remove_operator_status": false])
        removeFromList(url, .left)
    }

    /// Freezes or unfreezes (operators only; then only operators can send).
    @discardableResult
    public func setFrozen(_ url: String, _ frozen: Bool) async throws -> GroupChannel {
        try await channelCall("PUT", url, "/freeze", ["freeze": frozen])
    }

    /// Changes a channel's name, cover, data or custom type (nil leaves it).
    @discardableResult
    public func updateChannel(_ url: String, name: String? = nil, coverUrl: String? = nil, data: String? = nil, customType: String? = nil)
        async throws -> GroupChannel
    {
        var body: [String: Any] = [:]
        if let name { body["name"] = name }
        if let coverUrl { body["cover_url"] = coverUrl }
        if let data { body["data"] = data }
        if let customType { body["custom_type"] = customType }
        return try await channelCall("PUT", url, "", body)
    }

    public func deleteChannel(_ url: String) async throws {
        try await call("DELETE", channelPath(url), nil)
        closeChannel(url)
        if store[url] != nil {
            store.remove(url, server: serverTotals.removeValue(forKey: url))
            emit(.channelDeleted(url: url))
        }
    }

    /// Hides the channel from the list (`allowAutoUnhide` false: archives it until unhidden); with
    /// `hidePreviousMessages` the messages so far vanish from this user's views. Returns `ts_message_offset`.
    @discardableResult
    public func hide(_ url: String, hidePreviousMessages: Bool = false, allowAutoUnhide: Bool = true) async throws -> Millis {
        let key = try requireSession()
        let r = try await rest.request(
            "PUT", channelPath(url, "/hide"),
            body: RESTClient.json(["user_id": me, "hide_previous_messages": hidePreviousMessages, "allow_auto_unhide": allowAutoUnhide]),
            sessionKey: key, as: MessageOffsetAnswer.self)
        removeFromList(url, .hidden)
        return r.tsMessageOffset
    }

    @discardableResult
    public func unhide(_ url: String) async throws -> GroupChannel {
        try await call("DELETE", channelPath(url, "/hide"), nil)
        return try await refreshedChannel(url)
    }

    /// Older messages vanish from this user's views and unread counts. Returns `ts_message_offset`.
    @discardableResult
    public func resetMyHistory(_ url: String) async throws -> Millis {
        let key = try requireSession()
        let r = try await rest.request(
            "PUT", channelPath(url, "/reset_user_history"), body: RESTClient.json([:]), sessionKey: key, as: MessageOffsetAnswer.self)
        _ = try? await refreshedChannel(url)
        return r.tsMessageOffset
    }

    /// Public group channels (joined or not), optionally by name and custom type.
    public func publicChannels(nameContains: String = "", customType: String = "", limit: Int = 50) async throws -> [GroupChannel] {
        let key = try requireSession()
        var query: [(String, String)] =
            [
                ("limit", String(min(max(limit, 1), 100))), ("order", "chronological"), ("show_empty", "true"), ("public_mode", "public"),
                ("public_membership_mode", "all"),
            ] + Self.channelQuery
        if !nameContains.isEmpty { query.append(("name_contains", nameContains)) }
        if !customType.isEmpty { query.append(("custom_types", customType)) }
        let page = try await rest.request("GET", RESTClient.path("/v3/group_channels", query), sessionKey: key, as: GroupChannelPage.self)
        return page.channels.map(GroupChannel.init)
    }

    /// Whether invitations to the current user are accepted at once.
    public func invitationAutoAccept() async throws -> Bool {
        let key = try requireSession()
        return try await rest.request(
            "GET", "/v3/users/\(RESTClient.segment(me))/channel_invitation_preference", sessionKey: key, as: InvitationPreferenceAnswer.self
        ).autoAccept
    }

    public func setInvitationAutoAccept(_ autoAccept: Bool) async throws {
        try await call("PUT", "/v3/users/\(RESTClient.segment(me))/channel_invitation_preference", ["auto_accept": autoAccept])
    }
}

/// A my-channel list query (seeds 000/002): every filter and order the server knows.
public struct GroupChannelListParams: Sendable, Equatable {
    public enum Order: Sendable, Equatable {
        case latestLastMessage, chronological, channelNameAlphabetical
        case metadataValueAlphabetical(key: String)
    }
    public enum MemberState: String, Sendable {
        case all
        case joinedOnly = "joined_only"
        case invitedOnly = "invited_only"
    }
    public enum Hidden: String, Sendable {
        case unhiddenOnly = "unhidden_only"
        case hiddenOnly = "hidden_only"
        case hiddenAllowAutoUnhide = "hidden_allow_auto_unhide"
        case hiddenPreventAutoUnhide = "hidden_prevent_auto_unhide"
        case all
    }
    public var limit = 20
    public var order: Order = .latestLastMessage
    public var includeEmpty = true
    public var includeFrozen = true
    public var customTypes: [String] = []
    public var customTypeStartsWith = ""
    public var nameContains = ""
    public var channelUrls: [String] = []
    public var memberState: MemberState = .all
    public var hidden: Hidden = .unhiddenOnly
    /// `all`, `super`, `nonsuper`.
    public var superMode = "all"
    /// `all`, `public`, `private`.
    public var publicMode = "all"
    public var unreadOnly = false
    /// Channels with exactly these members (and me).
    public var membersExactlyIn: [String] = []
    /// Channels including any of these members.
    public var membersIncludeIn: [String] = []
    public var nicknameContains = ""
    public var metadataKey = ""
    public var metadataValues: [String] = []
    public var createdAfter: Millis?
    public var createdBefore: Millis?
    public init() {}

    var query: [(String, String)] {
        var q: [(String, String)] = [
            ("limit", String(min(max(limit, 1), 100))), ("show_empty", String(includeEmpty)), ("show_frozen", String(includeFrozen)),
        ]
        switch order {
        case .latestLastMessage: q.append(("order", "latest_last_message"))
        case .chronological: q.append(("order", "chronological"))
        case .channelNameAlphabetical: q.append(("order", "channel_name_alphabetical"))
        case .metadataValueAlphabetical(let key): q += [("order", "metadata_value_alphabetical"), ("metadata_order_key", key)]
        }
        func list(_ name: String, _ values: [String]) {
            if !values.isEmpty { q.append((name, values.joined(separator: ","))) }
        }
        func text(_ name: String, _ value: String) {
            if !value.isEmpty { q.append((name, value)) }
        }
        list("custom_types", customTypes)
        text("custom_type_startswith", customTypeStartsWith)
        text("name_contains", nameContains)
        list("channel_urls", channelUrls)
        q.append(("member_state_filter", memberState.rawValue))
        q.append(("hidden_mode", hidden.rawValue))
        q.append(("super_mode", superMode))
        q.append(("public_mode", publicMode))
        if unreadOnly { q.append(("unread_filter", "unread_message")) }
        list("members_exactly_in", membersExactlyIn)
        if !membersIncludeIn.isEmpty { q += [("members_include_in", membersIncludeIn.joined(separator: ",")), ("query_type", "OR")] }
        text("members_nickname_contains", nicknameContains)
        text("metadata_key", metadataKey)
        list("metadata_values", metadataValues)
        if let createdAfter { q.append(("created_after", String(createdAfter / 1000))) }
        if let createdBefore { q.append(("created_before", String(createdBefore / 1000))) }
        return q
    }
}

/// One page of a channel list; `next` continues it (nil: the last page).
public struct ChannelPage: Sendable, Equatable {
    public var channels: [GroupChannel]
    public var next: String?
}

extension ChatClient {
    /// One page of the current user's channels matching `params` (pass the previous page's `next` as `token`).
    /// The channels are not added to the engine's own list: this is a search.
    public func myChannels(_ params: GroupChannelListParams, token: String? = nil) async throws -> ChannelPage {
        let key = try requireSession()
        let q = params.query + [("token", token ?? "")] + Self.channelQuery
        let page = try await rest.request(
            "GET", RESTClient.path("/v3/users/\(RESTClient.segment(me))/my_group_channels", q), sessionKey: key, as: GroupChannelPage.self)
        let next = page.next.isEmpty ? nil : page.next
        return ChannelPage(channels: page.channels.map(GroupChannel.init), next: next)
    }

    // MARK: Channel metadata

    /// The channel's metadata (only `keys` when given).
    public func channelMetadata(_ url: String, keys: [String] = []) async throws -> [String: String] {
        let key = try requireSession()
        let r = try await rest.request(
            "GET", RESTClient.path(channelPath(url, "/metadata"), [("keys", keys.joined(separator: ",")), ("include_ts", "true")]),
            sessionKey: key, as: MetadataAnswer.self)
        return r.metadata
    }

    /// Creates or updates metadata items (members hear 11100).
    public func setChannelMetadata(_ url: String, _ items: [String: String]) async throws {
        try await call("PUT", channelPath(url, "/metadata"), ["metadata": items, "upsert": true, "include_ts": true])
    }

    /// Deletes one item, or every item when `key` is nil.
    public func deleteChannelMetadata(_ url: String, key: String? = nil) async throws {
        try await call("DELETE", channelPath(url, key.map { "/metadata/\(RESTClient.segment($0))" } ?? "/metadata"), nil)
    }

    public func channelMetacounters(_ url: String, keys: [String] = []) async throws -> [String: Int64] {
        let key = try requireSession()
        return try await rest.request(
            "GET", RESTClient.path(channelPath(url, "/metacounter"), [("keys", keys.joined(separator: ","))]), sessionKey: key,
            as: [String: Int64].self)
    }

    /// Sets (`mode` "set"), increases or decreases counters, creating missing ones. Returns the new values.
    @discardableResult
    public func changeChannelMetacounters(_ url: String, _ items: [String: Int64], mode: String = "set") async throws -> [String: Int64] {
        let key = try requireSession()
        return try await rest.request(
            "PUT", channelPath(url, "/metacounter"), body: RESTClient.json(["metacounter": items, "mode": mode, "upsert": true]),
            sessionKey: key, as: [String: Int64].self)
    }
}

/// Everything a new group channel can be created with (seed 000).
public struct GroupChannelCreateParams: Sendable, Equatable {
    /// Members besides the current user (who is always one).
    public var userIds: [String] = []
    public var operatorIds: [String] = []
    public var name = ""
    /// A custom URL: 4–100 characters of A–Z, a–z, 0–9, `_` and `-`; empty lets the server choose.
    public var channelUrl = ""
    public var coverUrl = ""
    public var data = ""
    public var customType = ""
    public var isDistinct = false
    public var isPublic = false
    public var isSuper = false
    public var isEphemeral = false
    public init(userIds: [String] = []) { self.userIds = userIds }
}

extension ChatClient {
    /// Creates a group channel with every parameter (a distinct one returns the existing channel with the same members).
    public func createGroupChannel(_ p: GroupChannelCreateParams) async throws -> GroupChannel {
        var ids = [me]
        for id in p.userIds where !ids.contains(id) { ids.append(id) }
        var body: [String: Any] = [
            "user_ids": ids, "name": p.name, "cover_url": p.coverUrl, "data": p.data, "custom_type": p.customType,
            "is_distinct": p.isDistinct, "is_public": p.isPublic, "is_super": p.isSuper, "is_ephemeral": p.isEphemeral,
        ]
        if !p.operatorIds.isEmpty { body["operator_ids"] = p.operatorIds }
        if !p.channelUrl.isEmpty { body["channel_url"] = p.channelUrl }
        return try await createChannel(body: RESTClient.json(body))
    }
}
