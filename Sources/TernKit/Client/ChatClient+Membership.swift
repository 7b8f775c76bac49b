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
        guard store[url] != nil else { return }
        store.remove(url)
        hub.emit(.channelRemoved(url: url, reason: reason))
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
            store.remove(url)
            hub.emit(.channelDeleted(url: url))
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
            sessionKey: key, as: MessageOffset.self)
        removeFromList(url, .hidden)
        return r.tsMessageOffset ?? 0
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
        let r = try await rest.request("PUT", channelPath(url, "/reset_user_history"), body: RESTClient.json([:]), sessionKey: key, as: MessageOffset.self)
        _ = try? await refreshedChannel(url)
        return r.tsMessageOffset ?? 0
    }

    /// Public group channels (joined or not), optionally by name and custom type.
    public func publicChannels(nameContains: String = "", customType: String = "", limit: Int = 50) async throws -> [GroupChannel] {
        let key = try requireSession()
        var query: [(String, String)] = [
            ("limit", String(min(max(limit, 1), 100))), ("order", "chronological"), ("show_empty", "true"), ("public_mode", "public"),
            ("public_membership_mode", "all"),
        ] + Self.channelQuery
        if !nameContains.isEmpty { query.append(("name_contains", nameContains)) }
        if !customType.isEmpty { query.append(("custom_types", customType)) }
        let page = try await rest.request("GET", RESTClient.path("/v3/group_channels", query), sessionKey: key, as: ChannelListResponse.self)
        return page.channels.map(GroupChannel.init)
    }

    /// Whether invitations to the current user are accepted at once.
    public func invitationAutoAccept() async throws -> Bool {
        let key = try requireSession()
        return try await rest.request(
            "GET", "/v3/users/\(RESTClient.segment(me))/channel_invitation_preference", sessionKey: key, as: InvitationPreference.self
        ).autoAccept
    }

    public func setInvitationAutoAccept(_ autoAccept: Bool) async throws {
        try await call("PUT", "/v3/users/\(RESTClient.segment(me))/channel_invitation_preference", ["auto_accept": autoAccept])
    }
}

struct MessageOffset: Decodable {
    var tsMessageOffset: Int64?
    enum CodingKeys: String, CodingKey { case tsMessageOffset = "ts_message_offset" }
}

struct InvitationPreference: Decodable {
    var autoAccept: Bool
    enum CodingKeys: String, CodingKey { case autoAccept = "auto_accept" }
}
