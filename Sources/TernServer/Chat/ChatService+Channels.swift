import Foundation
public import TernProtocol

/// What a caller asks when creating a group channel.
public struct CreateGroupChannelRequest: Sendable {
    public var userIds: [String]
    public var operatorIds: [String] = []
    public var name: String = ""
    public var channelUrl: String?
    public var coverUrl: String = ""
    public var customType: String = ""
    public var data: String = ""
    public var isDistinct = false
    public var isPublic = false
    public var isSuper = false
    public var isEphemeral = false
    public var creator: String?
    /// Whether invitees who turned automatic acceptance off (`auto_accept: false`) are only
    /// invited, as for an SDK user's new channel; the Platform API adds everyone as joined.
    public var honoursAutoAccept = false
    public init(userIds: [String]) { self.userIds = userIds }
}

extension ChatService {
    /// Creates a group channel (or returns the distinct channel with the same members).
    public func createGroupChannel(_ r: CreateGroupChannelRequest) async throws -> (ChannelRecord, created: Bool) {
        var ids = r.userIds
        if let creator = r.creator, !ids.contains(creator) { ids.insert(creator, at: 0) }
        ids = Array(NSOrderedSet(array: ids).array as! [String])
        if config.excludeBlockedInvitees, let creator = r.creator {
            // Seed 003's invitation option: users the creator blocks, or who block the creator, are left out.
            let others = ids.filter { $0 != creator }
            let blocked = try await store.blocked(by: creator, among: others).union(try await store.blockers(of: creator, among: others))
            ids.removeAll { blocked.contains($0) }
        }
        if ids.isEmpty { throw SendbirdError.missing("user_ids") }
        if ids.count > config.maxGroupChannelMembers {
            throw SendbirdError(.tooManyItems, "A group channel can have at most \(config.maxGroupChannelMembers) members.")
        }
        for id in ids { try Self.checkUserId(id) }
        try TextLimit.channelName.check(r.name)
        try TextLimit.customType.check(r.customType)
        try TextLimit.coverUrl.check(r.coverUrl)
        if r.data.utf8.count > 65_535 { throw SendbirdError.tooLong("data", max: 65_535) }
        if r.isDistinct && r.isSuper { throw SendbirdError(.invalidValue, "A supergroup channel cannot be distinct.") }
        if r.isDistinct && r.isPublic { throw SendbirdError(.invalidValue, "A public channel cannot be distinct.") }
        if let url = r.channelUrl {
            if url.count < 4 || url.count > 100
                || !url.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-") })
            {
                throw SendbirdError(.invalidValue, "Invalid value: \"channel_url\" (4–100 characters of A–Z, a–z, 0–9, _ and -).")
            }
        }
        let known = Set(try await store.users(ids).map(\.userId))
        if let missing = ids.first(where: { !known.contains($0) }) {
            throw SendbirdError(.notFound, "\"User\" not found: \(missing).")
        }
        for id in ids { try await requireRoomForChannel(id) }
        var invited: [String] = []
        if r.honoursAutoAccept {
            for id in ids where id != r.creator {
                if try await !store.invitationAutoAccept(userId: id) { invited.append(id) }
            }
        }
        let t = now()
        let new = NewGroupChannel(
            channelUrl: r.channelUrl ?? "sendbird_group_channel_\(Credentials.randomToken(bytes: 16))", name: r.name,
            coverUrl: r.coverUrl, customType: r.customType, data: r.data, creator: r.creator, userIds: ids,
            operatorIds: r.operatorIds.filter { ids.contains($0) }, isDistinct: r.isDistinct, isPublic: r.isPublic,
            isSuper: r.isSuper, isEphemeral: r.isEphemeral, createdAt: t / 1000, nowMs: t, invitedIds: invited)
        let (channel, created) = try await store.createGroupChannel(new)
        if created {
            if let creator = r.creator { await announceNewChannel(channel, creator: creator) }
            await channelEventHappened("create", channel, users: ids, inviter: r.creator)
        }
        return (channel, created)
    }

    /// A new channel a user made (an SDK's `createChannel`, or the Platform API with `inviter_id`) reaches
    /// the members it was made with at once: an invitation event (`SYEV` 10020, the creator as inviter)
    /// to every member but the creator, as an invitation to an existing channel does, so
    /// their clients list it (the SDKs fetch a channel they do not know from its event) before anyone posts.
    func announceNewChannel(_ channel: ChannelRecord, creator: String) async {
        guard let members = try? await store.members(channel.channelUrl) else { return }
        let others = members.filter { $0.userId != creator }
        guard !others.isEmpty, let users = try? await usersById(members.map(\.userId)) else { return }
        var data = MembershipEventData(memberCount: channel.memberCount, joinedMemberCount: channel.joinedMemberCount)
        data.inviter = members.first { $0.userId == creator }.map { memberPayload($0, users) } ?? bareMember(creator, users)
        data.invitees = others.map { memberPayload($0, users) }
        data.invitedAt = now()
        push(ChannelEventFrame(cat: ChannelEvent.invited, channelUrl: channel.channelUrl, data: data, ts: now()), to: Set(others.map(\.userId)))
    }

    /// A channel of either type, or nil.
    public func channel(_ url: String) async throws -> ChannelRecord? { try await store.channel(url) }

    /// A channel's members (joined and invited).
    func members(_ url: String) async throws -> [MemberRecord] { try await store.members(url) }

    /// One member of a group channel (joined or invited), or nil.
    func member(_ url: String, userId: String) async throws -> MemberRecord? { try await store.member(url, userId: userId) }

    /// A page of group channels in the query's order, each with the cursor that continues after it.
    func listChannels(_ query: ChannelListQuery) async throws -> [(channel: ChannelRecord, cursor: ChannelCursor)] {
        try await store.listChannels(query)
    }

    /// The group channels a user is in or invited to.
    func memberships(userId: String) async throws -> [(channelUrl: String, state: String, customType: String)] {
        try await store.memberships(userId: userId)
    }

    /// URLs of the channels (group, or open when `open`) whose custom type is one of these.
    func channelUrls(customTypes: [String], open: Bool) async throws -> [String] {
        try await store.channelUrls(customTypes: customTypes, open: open)
    }

    /// A channel of either type, or 400201.
    public func requireChannel(_ url: String) async throws -> ChannelRecord {
        guard let c = try await store.channel(url) else { throw SendbirdError(.notFound, "\"Channel\" not found: \(url).") }
        return c
    }

    /// A channel whose messages (and their reactions, threads and changes) `caller` may read: a
    /// joined member of a group channel, anyone not banned from an open channel, the Platform API
    /// (nil). 400201 for an unknown channel, 400108 (or the ban) for a caller who may not.
    @discardableResult
    func requireReader(_ channelUrl: String, _ caller: String?) async throws -> ChannelRecord {
        let channel = try await requireChannel(channelUrl)
        if let caller { _ = try await requireMember(channel, caller, code: .unauthorizedRequest) }
        return channel
    }

    /// Whether `caller` may see the channel itself (its properties, members and operators): anyone
    /// for an open or a public group channel, a joined or invited member of a private one, the
    /// Platform API (nil). Throws 400108 otherwise. (An unknown channel is 400201 and a hidden one
    /// 400108: the SDKs act on the difference; auto-generated URLs carry 128 random bits.)
    func requireViewer(_ channel: ChannelRecord, _ caller: String?) async throws {
        guard let caller, !channel.isOpen, !channel.isPublic else { return }
        guard let m = try await store.member(channel.channelUrl, userId: caller), m.state == "joined" || m.state == "invited" else {
            throw SendbirdError(.unauthorizedRequest, "Not a member of the channel: \(channel.channelUrl).")
        }
    }

    /// The refusal of a banned user: 900100 on the WebSocket, 400750 over REST.
    static func banned(_ endAt: Int64, webSocket: Bool) -> SendbirdError {
        SendbirdError(webSocket ? .bannedFromChannel : .bannedUser, "Banned from the channel" + (endAt < 0 ? "." : " until \(endAt) ms."))
    }

    /// A group channel, or 400201 (an open channel is not one).
    public func requireGroupChannel(_ url: String) async throws -> ChannelRecord {
        guard let c = try await store.channel(url), !c.isOpen else { throw SendbirdError(.notFound, "\"Channel\" not found: \(url).") }
        return c
    }

    /// Presents one channel for a viewer.
    public func present(_ channel: ChannelRecord, viewer: String?) async throws -> GroupChannelPayload {
        try await present([channel], viewer: viewer)[0]
    }

    /// Presents channels with their members, last messages and the viewer's counters, fetching
    /// what they need in a few batched reads.
    public func present(_ channels: [ChannelRecord], viewer: String?) async throws -> [GroupChannelPayload] {
        let urls = channels.map(\.channelUrl)
        let membersByChannel = try await store.members(ofChannels: urls)
        var lastMessages = try await store.messages(ids: channels.compactMap(\.lastMessageId))
        var lastById = Dictionary(uniqueKeysWithValues: lastMessages.map { ($0.messageId, $0) })
        // The viewer's last message: not one hidden from them (a 1:1 block) or gone with their history.
        var lastForViewer: [String: MessageRecord?] = [:]
        if let viewer {
            for c in channels {
                guard let id = c.lastMessageId, let last = lastById[id],
                    let me = membersByChannel[c.channelUrl]?.first(where: { $0.userId == viewer }),
                    last.hiddenFor == viewer || last.createdAt <= me.tsMessageOffset
                else { continue }
                let visible = try await store.lastVisibleMessage(c.channelUrl, viewer: viewer, after: me.tsMessageOffset)
                lastForViewer[c.channelUrl] = .some(visible)
                if let v = visible {
                    lastMessages.append(v)
                    lastById[v.messageId] = v
                }
            }
        }
        var blockedByViewer = Set<String>()
        var blockingViewer = Set<String>()
        if let viewer {
            let ids = Array(Set(membersByChannel.values.flatMap { $0.map(\.userId) }).subtracting([viewer]))
            blockedByViewer = try await store.blocked(by: viewer, among: ids)
            blockingViewer = try await store.blockers(of: viewer, among: ids)
        }
        var userIds = Set<String>()
        for ms in membersByChannel.values {
            for m in ms {
                userIds.insert(m.userId)
                if let i = m.inviterId { userIds.insert(i) }
            }
        }
        for c in channels { if let b = c.createdBy { userIds.insert(b) } }
        for m in lastMessages {
            if let s = m.senderId { userIds.insert(s) }
            userIds.formUnion(m.mentionedUserIds)
        }
        let users = Dictionary(uniqueKeysWithValues: try await store.users(Array(userIds)).map { ($0.userId, $0) })
        let metadata = try await store.channelMetadata(urls)
        let muted = try await store.mutedUsers(ofChannels: urls, now: now())
        return channels.map { c in
            let last: MessageRecord? = lastForViewer[c.channelUrl] ?? c.lastMessageId.flatMap { lastById[$0] }
            var p = Presenter.groupChannel(
                c, members: membersByChannel[c.channelUrl] ?? [], users: users,
                lastMessage: last, viewer: viewer, online: { isOnline($0) })
            p.metadata = metadata[c.channelUrl] ?? [:]
            let mutedHere = muted[c.channelUrl] ?? []
            if let viewer { p.isMuted = mutedHere.contains(viewer) }
            for i in p.members.indices {
                p.members[i].isMuted = mutedHere.contains(p.members[i].userId)
                p.members[i].isBlockedByMe = blockedByViewer.contains(p.members[i].userId)
                p.members[i].isBlockingMe = blockingViewer.contains(p.members[i].userId)
            }
            return p
        }
    }

    /// Whether `userId` may read the channel: a member, or anyone for a public channel.
    /// In an open channel everyone may read: the user is presented as a participant.
    func requireMember(_ channel: ChannelRecord, _ userId: String, code: ErrorCode) async throws -> MemberRecord {
        if channel.isOpen {
            if let end = try await store.restrictions(channel.channelUrl, kind: .ban, now: now(), afterUserId: nil, limit: nil)
                .first(where: { $0.userId == userId })?.endAt
            {
                throw Self.banned(end, webSocket: code.rawValue >= 900_000)
            }
            return MemberRecord.participant(channel, userId)
        }
        guard let m = try await store.member(channel.channelUrl, userId: userId), m.state == "joined" else {
            throw SendbirdError(code, "Not a member of the channel: \(channel.channelUrl).")
        }
        return m
    }
}
