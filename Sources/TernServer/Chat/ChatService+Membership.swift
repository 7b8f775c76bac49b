import Foundation
import TernProtocol

/// Membership and channel-wide changes: invite, accept, decline, join, leave, freeze, update, delete,
/// hide, reset history. Each one changes the store, drops the cached roster, and tells whom it concerns
/// (`SYEV`, plus `MCNT` when the member counts moved).
extension ChatService {
    // MARK: Invitations

    /// Invites users (`inviter` nil: the Platform API). Users whose preference is auto-accept join at once.
    @discardableResult
    public func invite(channelUrl: String, userIds: [String], inviter: String?) async throws -> ChannelRecord {
        let channel = try await requireGroupChannel(channelUrl)
        if let inviter { _ = try await requireMember(channel, inviter, code: .unauthorizedRequest) }
        let ids = Array(NSOrderedSet(array: userIds).array as! [String])
        if ids.isEmpty { throw SendbirdError.missing("user_ids") }
        if ids.count > 100 { throw SendbirdError(.tooManyItems, "At most 100 users can be invited at once.") }
        for id in ids { try Self.checkUserId(id) }
        let known = Set(try await store.users(ids).map(\.userId))
        if let missing = ids.first(where: { !known.contains($0) }) {
            throw SendbirdError(.notFound, "\"User\" not found: \(missing).")
        }
        try await requireNotBanned(channelUrl, ids)
        let present = Set(try await store.members(channelUrl).map(\.userId))
        var newIds = ids.filter { !present.contains($0) }
        if config.excludeBlockedInvitees, let inviter {
            // Seed 003's invitation option: users the inviter blocks, or who block the inviter, are left out.
            let blocked = try await store.blocked(by: inviter, among: newIds).union(try await store.blockers(of: inviter, among: newIds))
            newIds.removeAll { blocked.contains($0) }
        }
        if channel.memberCount + newIds.count > config.maxGroupChannelMembers {
            throw SendbirdError(.tooManyItems, "A group channel can have at most \(config.maxGroupChannelMembers) members.")
        }
        var adds: [MemberAdd] = []
        for id in newIds {
            // Seed 000: the invitation of a user already in the most channels allowed is cancelled.
            if try await store.channelCount(userId: id) >= config.maxChannelsPerUser { continue }
            let auto = try await store.invitationAutoAccept(userId: id)
            adds.append(MemberAdd(userId: id, state: auto ? "joined" : "invited", inviterId: inviter))
        }
        let t = now()
        let added = try await store.addMembers(channelUrl, adds, nowMs: t, chatHistory: config.chatHistoryForNewMembers)
        invalidateChannel(channelUrl)
        let updated = try await requireGroupChannel(channelUrl)
        guard !added.isEmpty else { return updated }
        let members = try await store.members(channelUrl)
        let users = try await usersById(members.map(\.userId) + [inviter].compactMap { $0 })
        var data = MembershipEventData(memberCount: updated.memberCount, joinedMemberCount: updated.joinedMemberCount)
        data.inviter = inviter.map { id in members.first { $0.userId == id }.map { memberPayload($0, users) } ?? bareMember(id, users) }
        data.invitees = added.map { memberPayload($0, users) }
        data.invitedAt = t
        let audience = Self.joinedIds(members).union(added.map(\.userId))
        push(ChannelEventFrame(cat: ChannelEvent.invited, channelUrl: channelUrl, data: data, ts: t), to: audience)
        let joined = added.filter { $0.state == "joined" }
        if !joined.isEmpty {
            var j = MembershipEventData(memberCount: updated.memberCount, joinedMemberCount: updated.joinedMemberCount)
            j.users = joined.map { memberPayload($0, users) }
            push(ChannelEventFrame(cat: ChannelEvent.joined, channelUrl: channelUrl, data: j, ts: t), to: audience)
        }
        pushMemberCount(updated, to: audience)
        await channelEventHappened("invite", updated, users: added.map(\.userId), inviter: inviter)
        if !joined.isEmpty { await channelEventHappened("join", updated, users: joined.map(\.userId)) }
        return updated
    }

    /// An invited user accepts.
    @discardableResult
    public func acceptInvitation(channelUrl: String, userId: String) async throws -> ChannelRecord {
        _ = try await requireGroupChannel(channelUrl)
        let t = now()
        guard try await store.acceptInvitation(channelUrl, userId: userId, nowMs: t) else {
            throw SendbirdError(.unauthorizedRequest, "\(userId) has no invitation to \(channelUrl).")
        }
        return try await announceJoin(channelUrl, userId: userId, at: t)
    }

    /// An invited user declines: they are no longer in the channel.
    public func declineInvitation(channelUrl: String, userId: String) async throws {
        _ = try await requireGroupChannel(channelUrl)
        guard let me = try await store.member(channelUrl, userId: userId), me.state == "invited" else {
            throw SendbirdError(.unauthorizedRequest, "\(userId) has no invitation to \(channelUrl).")
        }
        _ = try await store.removeMember(channelUrl, userId: userId, turnOffDistinct: false)
        invalidateChannel(channelUrl)
        let updated = try await requireGroupChannel(channelUrl)
        let members = try await store.members(channelUrl)
        let users = try await usersById(members.map(\.userId) + [userId] + [me.inviterId].compactMap { $0 })
        var data = MembershipEventData(memberCount: updated.memberCount, joinedMemberCount: updated.joinedMemberCount)
        data.invitee = memberPayload(me, users)
        data.inviter = me.inviterId.map { id in members.first { $0.userId == id }.map { memberPayload($0, users) } ?? bareMember(id, users) }
        let audience = Self.joinedIds(members).union([userId])
        let t = now()
        push(ChannelEventFrame(cat: ChannelEvent.declined, channelUrl: channelUrl, data: data, ts: t), to: audience)
        pushMemberCount(updated, to: audience)
    }

    /// Joins a public channel (an invited user joining accepts the invitation).
    @discardableResult
    public func join(channelUrl: String, userId: String) async throws -> ChannelRecord {
        let channel = try await requireGroupChannel(channelUrl)
        guard channel.isPublic else {
            throw SendbirdError(.unauthorizedRequest, "Only public channels can be joined without an invitation: \(channelUrl).")
        }
        let t = now()
        try await requireNotBanned(channelUrl, [userId])
        if let me = try await store.member(channelUrl, userId: userId) {
            if me.state == "joined" { return channel }
            _ = try await store.acceptInvitation(channelUrl, userId: userId, nowMs: t)
            return try await announceJoin(channelUrl, userId: userId, at: t)
        }
        if channel.memberCount + 1 > config.maxGroupChannelMembers {
            throw SendbirdError(.tooManyItems, "A group channel can have at most \(config.maxGroupChannelMembers) members.")
        }
        try await requireRoomForChannel(userId)
        _ = try await store.addMembers(
            channelUrl, [MemberAdd(userId: userId, state: "joined", inviterId: nil)], nowMs: t, chatHistory: config.chatHistoryForNewMembers)
        return try await announceJoin(channelUrl, userId: userId, at: t)
    }

    func announceJoin(_ channelUrl: String, userId: String, at t: Int64) async throws -> ChannelRecord {
        invalidateChannel(channelUrl)
        let updated = try await requireGroupChannel(channelUrl)
        let members = try await store.members(channelUrl)
        let users = try await usersById(members.map(\.userId))
        var data = MembershipEventData(memberCount: updated.memberCount, joinedMemberCount: updated.joinedMemberCount)
        data.users = members.filter { $0.userId == userId }.map { memberPayload($0, users) }
        let audience = Self.joinedIds(members)
        push(ChannelEventFrame(cat: ChannelEvent.joined, channelUrl: channelUrl, data: data, ts: t), to: audience)
        pushMemberCount(updated, to: audience)
        await channelEventHappened("join", updated, users: [userId])
        return updated
    }

    /// A member leaves (a distinct channel stops being distinct).
    public func leave(channelUrl: String, userId: String) async throws {
        _ = try await requireGroupChannel(channelUrl)
        guard let me = try await store.member(channelUrl, userId: userId) else {
            throw SendbirdError(.unauthorizedRequest, "Not a member of the channel: \(channelUrl).")
        }
        _ = try await store.removeMember(channelUrl, userId: userId, turnOffDistinct: true)
        invalidateChannel(channelUrl)
        let updated = try await requireGroupChannel(channelUrl)
        let members = try await store.members(channelUrl)
        let users = try await usersById([userId])
        let data = LeaveEventData(
            member: memberPayload(me, users), memberCount: updated.memberCount, joinedMemberCount: updated.joinedMemberCount)
        let event = ChannelEventFrame(cat: ChannelEvent.left, channelUrl: channelUrl, data: data, ts: now())
        push(event, to: Self.joinedIds(members).subtracting([userId]))
        // The leaver's devices: with their unread totals, which lost this channel's count.
        try await pushOwn(event, to: userId)
        pushMemberCount(updated, to: Self.joinedIds(members))
        await channelEventHappened("leave", updated, users: [userId])
    }

    // MARK: Channel-wide changes

    struct FreezeData: Encodable, Sendable { let freeze: Bool }
    struct Empty: Encodable, Sendable {}

    /// Freezes or unfreezes (operators; `by` nil: the Platform API).
    @discardableResult
    public func setFrozen(channelUrl: String, frozen: Bool, by: String?) async throws -> ChannelRecord {
        var channel = try await requireGroupChannel(channelUrl)
        if let by { try await requireOperator(channel, by) }
        if channel.freeze != frozen {
            channel.freeze = frozen
            try await store.updateChannel(channel)
            invalidateChannel(channelUrl)
            let members = try await store.members(channelUrl)
            push(
                ChannelEventFrame(
                    cat: frozen ? ChannelEvent.frozen : ChannelEvent.unfrozen, channelUrl: channelUrl, data: FreezeData(freeze: frozen), ts: now()),
                to: Self.joinedIds(members))
        }
        return channel
    }

    /// What an update may change; nil leaves a property as it is.
    public struct ChannelChanges: Sendable {
        public var name: String?
        public var coverUrl: String?
        public var data: String?
        public var customType: String?
        public init() {}
    }

    /// Updates a channel's properties (a member, or an operator when the channel has operators).
    @discardableResult
    public func updateChannel(channelUrl: String, _ changes: ChannelChanges, by: String?) async throws -> ChannelRecord {
        var channel = try await requireGroupChannel(channelUrl)
        let members = try await store.members(channelUrl)
        if let by {
            _ = try await requireMember(channel, by, code: .unauthorizedRequest)
            if members.contains(where: { $0.role == "operator" }), members.first(where: { $0.userId == by })?.role != "operator" {
                throw SendbirdError(.unauthorizedRequest, "Only operators can change this channel.")
            }
        }
        if let n = changes.name {
            try TextLimit.channelName.check(n)
            channel.name = n
        }
        if let c = changes.coverUrl {
            try TextLimit.coverUrl.check(c)
            channel.coverUrl = c
        }
        if let d = changes.data {
            if d.utf8.count > 65_535 { throw SendbirdError.tooLong("data", max: 65_535) }
            channel.data = d
        }
        if let t = changes.customType {
            try TextLimit.customType.check(t)
            channel.customType = t
        }
        try await store.updateChannel(channel)
        invalidateChannel(channelUrl)
        push(
            ChannelEventFrame(cat: ChannelEvent.changed, channelUrl: channelUrl, data: Empty(), ts: now()),
            to: Self.joinedIds(members))
        await channelEventHappened("changed", channel)
        return channel
    }

    /// Deletes a channel (operators; `by` nil: the Platform API). Members hear 12000 first.
    public func deleteChannel(channelUrl: String, by: String?) async throws {
        let channel = try await requireGroupChannel(channelUrl)
        if let by { try await requireOperator(channel, by) }
        let members = try await store.members(channelUrl)
        _ = try await store.deleteChannel(channelUrl)
        invalidateChannel(channelUrl)
        // Each member's devices get their totals without the channel's unread.
        let event = ChannelEventFrame(cat: ChannelEvent.deleted, channelUrl: channelUrl, data: Empty(), ts: now())
        for id in Set(members.map(\.userId)) { try await pushOwn(event, to: id) }
        await channelEventHappened("remove", channel)
    }

    // MARK: One member's view

    struct HideData: Encodable, Sendable {
        let hidePreviousMessages: Bool
        let allowAutoUnhide: Bool
        enum CodingKeys: String, CodingKey {
            case hidePreviousMessages = "hide_previous_messages"
            case allowAutoUnhide = "allow_auto_unhide"
        }
    }

    /// Whether invitations to the user are accepted at once (default true).
    func invitationAutoAccept(userId: String) async throws -> Bool { try await store.invitationAutoAccept(userId: userId) }

    func setInvitationAutoAccept(userId: String, _ autoAccept: Bool) async throws {
        try await store.setInvitationAutoAccept(userId: userId, autoAccept)
    }

    /// Hides (archives, when `allowAutoUnhide` is false) the channel from one member's list. Returns the
    /// member's `ts_message_offset`.
    public func hide(channelUrl: String, userId: String, hidePreviousMessages: Bool, allowAutoUnhide: Bool) async throws -> Int64 {
        let channel = try await requireGroupChannel(channelUrl)
        let me = try await requireMember(channel, userId, code: .unauthorizedRequest)
        let t = now()
        let state = allowAutoUnhide ? "hidden_allow_auto_unhide" : "hidden_prevent_auto_unhide"
        try await store.setHidden(channelUrl, userId: userId, state: state, messageOffset: hidePreviousMessages ? t : nil)
        invalidateChannel(channelUrl)
        try await pushOwn(
            ChannelEventFrame(
                cat: ChannelEvent.hidden, channelUrl: channelUrl,
                data: HideData(hidePreviousMessages: hidePreviousMessages, allowAutoUnhide: allowAutoUnhide), ts: t),
            to: userId)
        return hidePreviousMessages ? max(me.tsMessageOffset, t) : me.tsMessageOffset
    }

    public func unhide(channelUrl: String, userId: String) async throws {
        let channel = try await requireGroupChannel(channelUrl)
        _ = try await requireMember(channel, userId, code: .unauthorizedRequest)
        try await store.setHidden(channelUrl, userId: userId, state: "unhidden", messageOffset: nil)
        invalidateChannel(channelUrl)
        push(ChannelEventFrame(cat: ChannelEvent.unhidden, channelUrl: channelUrl, data: Empty(), ts: now()), to: [userId])
    }

    /// Resets one member's history: older messages vanish from their views and unread counts only.
    public func resetHistory(channelUrl: String, userId: String) async throws -> Int64 {
        let channel = try await requireGroupChannel(channelUrl)
        let me = try await requireMember(channel, userId, code: .unauthorizedRequest)
        let t = now()
        try await store.setHidden(channelUrl, userId: userId, state: me.hiddenState, messageOffset: t)
        invalidateChannel(channelUrl)
        // The user's other devices read the channel again (11000) and get the totals without its old unread.
        try await pushOwn(ChannelEventFrame(cat: ChannelEvent.changed, channelUrl: channelUrl, data: Empty(), ts: t), to: userId)
        return max(me.tsMessageOffset, t)
    }

    // MARK: Helpers

    /// The users of `members` who have joined (who hear the channel's events).
    static func joinedIds(_ members: [MemberRecord]) -> Set<String> {
        Set(members.filter { $0.state == "joined" }.map(\.userId))
    }

    /// 400750 when one of the users is banned from the channel.
    func requireNotBanned(_ channelUrl: String, _ userIds: [String]) async throws {
        let bans = try await store.restrictions(channelUrl, kind: .ban, now: now(), afterUserId: nil, limit: nil)
        if let b = bans.first(where: { userIds.contains($0.userId) }) {
            throw SendbirdError(.bannedUser, "\(b.userId) is banned from the channel" + (b.endAt < 0 ? "." : " until \(b.endAt) ms."))
        }
    }

    /// 400203 when the user already belongs to the most group channels allowed.
    func requireRoomForChannel(_ userId: String) async throws {
        if try await store.channelCount(userId: userId) >= config.maxChannelsPerUser {
            throw SendbirdError(.tooManyItems, "\(userId) already belongs to \(config.maxChannelsPerUser) group channels, the most allowed.")
        }
    }

    func requireOperator(_ channel: ChannelRecord, _ userId: String) async throws {
        let me = try await requireMember(channel, userId, code: .unauthorizedRequest)
        guard me.role == "operator" else {
            throw SendbirdError(.unauthorizedRequest, "Only operators can do this in \(channel.channelUrl).")
        }
    }

    func usersById(_ ids: [String]) async throws -> [String: UserRecord] {
        Dictionary(try await store.users(Array(Set(ids))).map { ($0.userId, $0) }, uniquingKeysWith: { a, _ in a })
    }

    func memberPayload(_ m: MemberRecord, _ users: [String: UserRecord]) -> MemberPayload {
        let u = users[m.userId]
        let online = isOnline(m.userId)
        return MemberPayload(
            userId: m.userId, nickname: u?.nickname ?? "", profileUrl: u?.profileUrl ?? "", metadata: u?.metadata ?? [:],
            isOnline: online, lastSeenAt: online ? 0 : (u?.lastSeenAt ?? 0), state: m.state, role: m.role, readTs: nil,
            deliveredTs: nil)
    }

    /// A user who is not (or no longer) a member, as a member object.
    func bareMember(_ id: String, _ users: [String: UserRecord]) -> MemberPayload {
        let u = users[id]
        return MemberPayload(
            userId: id, nickname: u?.nickname ?? "", profileUrl: u?.profileUrl ?? "", metadata: u?.metadata ?? [:],
            isOnline: isOnline(id), lastSeenAt: u?.lastSeenAt ?? 0, state: "", role: "none", readTs: nil, deliveredTs: nil)
    }

    /// Sends an event to one user's devices with their unread totals as they are now.
    func pushOwn<Payload: Encodable & Sendable>(_ event: ChannelEventFrame<Payload>, to userId: String) async throws {
        guard isOnline(userId) else { return }
        var e = event
        e.unreadCnt = try await unreadCount(userId: userId)
        push(e, to: [userId])
    }

    /// Sends one frame to every connection of these users.
    func push<Payload: Encodable & Sendable>(_ event: ChannelEventFrame<Payload>, to userIds: Set<String>) {
        let frame = Self.frameText(.systemEvent, event)
        for id in userIds { send(frame, toUser: id) }
    }

    func pushMemberCount(_ channel: ChannelRecord, to userIds: Set<String>) {
        let frame = Self.frameText(
            .memberCount,
            MemberCountFrame(
                groupChannels: [
                    .init(channelUrl: channel.channelUrl, memberCount: channel.memberCount, joinedMemberCount: channel.joinedMemberCount)
                ],
                ts: now()))
        for id in userIds { send(frame, toUser: id) }
    }
}
