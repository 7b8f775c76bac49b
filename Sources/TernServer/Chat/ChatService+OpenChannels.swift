import Foundation
public import TernProtocol

/// What a caller asks when creating an open channel.
public struct CreateOpenChannelRequest: Sendable {
    public var channelUrl: String?
    public var name = ""
    public var coverUrl = ""
    public var customType = ""
    public var data = ""
    public var operatorIds: [String] = []
    public var isEphemeral = false
    public var creator: String?
    public init() {}
}

/// Open channels (seed 001, BRIEF F6): Twitch-style rooms anyone may enter. Who is in one lives in
/// memory (``OpenRooms``); the channel, its operators and its messages are stored like a group channel's.
extension ChatService {
    static func checkChannelUrl(_ url: String) throws {
        if url.count < 4 || url.count > 100
            || !url.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-") })
        {
            throw SendbirdError(.invalidValue, "Invalid value: \"channel_url\" (4–100 characters of A–Z, a–z, 0–9, _ and -).")
        }
    }

    static func checkChannelProperties(name: String?, coverUrl: String?, customType: String?, data: String?) throws {
        try TextLimit.channelName.check(name)
        try TextLimit.coverUrl.check(coverUrl)
        try TextLimit.customType.check(customType)
        try TextLimit.data.check(data)
    }

    /// Operators named in a request must exist; at most 100.
    func checkOperators(_ ids: [String]) async throws -> [String] {
        let unique = Array(NSOrderedSet(array: ids).array as! [String]).filter { !$0.isEmpty }
        if unique.count > 100 { throw SendbirdError(.tooManyItems, "At most 100 operators.") }
        let known = Set(try await store.users(unique).map(\.userId))
        if let missing = unique.first(where: { !known.contains($0) }) {
            throw SendbirdError(.notFound, "\"User\" not found: \(missing).")
        }
        return unique
    }

    public func createOpenChannel(_ r: CreateOpenChannelRequest) async throws -> ChannelRecord {
        if let url = r.channelUrl { try Self.checkChannelUrl(url) }
        try Self.checkChannelProperties(name: r.name, coverUrl: r.coverUrl, customType: r.customType, data: r.data)
        let operators = try await checkOperators(r.operatorIds)
        let t = now()
        let record = ChannelRecord(
            channelUrl: r.channelUrl ?? "sendbird_open_channel_\(Credentials.randomToken(bytes: 16))", name: r.name,
            coverUrl: r.coverUrl, customType: r.customType, data: r.data, createdAt: t / 1000, createdBy: r.creator,
            isDistinct: false, isPublic: true, isSuper: false, isEphemeral: r.isEphemeral, freeze: false, lastMessageId: nil,
            memberCount: 0, joinedMemberCount: 0, channelType: "open", operatorIds: operators)
        let created = try await store.createOpenChannel(record)
        await channelEventHappened("create", created)
        return created
    }

    /// A page of open channels, newest first.
    func listOpenChannels(_ query: OpenChannelListQuery) async throws -> [ChannelRecord] { try await store.listOpenChannels(query) }

    /// An open channel, or 400201 (900500 on the WebSocket).
    public func requireOpenChannel(_ url: String, origin: RequestOrigin = .rest) async throws -> ChannelRecord {
        guard let c = try await store.channel(url), c.isOpen else {
            throw SendbirdError(origin.channelNotFound, "\"Channel\" not found: \(url).")
        }
        return c
    }

    public func presentOpen(_ channels: [ChannelRecord]) async throws -> [OpenChannelPayload] {
        let users = try await usersById(channels.flatMap(\.operatorIds))
        let metadata = try await store.channelMetadata(channels.map(\.channelUrl))
        return channels.map { c in
            OpenChannelPayload(
                channelUrl: c.channelUrl, name: c.name, coverUrl: c.coverUrl, customType: c.customType, data: c.data,
                createdAt: c.createdAt,
                operators: c.operatorIds.map { id in
                    users[id].map { Presenter.user($0, online: isOnline(id), accessToken: "") } ?? UserPayload(userId: id)
                },
                participantCount: participantCount(c.channelUrl), freeze: c.freeze, isEphemeral: c.isEphemeral,
                maxLengthMessage: config.maxMessageLength, metadata: metadata[c.channelUrl] ?? [:])
        }
    }

    public func presentOpen(_ channel: ChannelRecord) async throws -> OpenChannelPayload {
        try await presentOpen([channel])[0]
    }

    /// Updates an open channel (operators; `by` nil: the Platform API). Participants hear 11000.
    @discardableResult
    public func updateOpenChannel(channelUrl: String, _ changes: ChannelChanges, operatorIds: [String]?, by: String?) async throws
        -> ChannelRecord
    {
        var channel = try await requireOpenChannel(channelUrl)
        if let by, !channel.operatorIds.contains(by) {
            throw SendbirdError(.unauthorizedRequest, "Only operators can change this channel.")
        }
        try Self.checkChannelProperties(name: changes.name, coverUrl: changes.coverUrl, customType: changes.customType, data: changes.data)
        if let n = changes.name { channel.name = n }
        if let c = changes.coverUrl { channel.coverUrl = c }
        if let d = changes.data { channel.data = d }
        if let t = changes.customType { channel.customType = t }
        try await store.updateChannel(channel)
        if let ids = operatorIds {
            let operators = try await checkOperators(ids)
            try await store.setOpenChannelOperators(channelUrl, operators)
            channel.operatorIds = operators
        }
        invalidateChannel(channelUrl)
        pushToParticipants(ChannelEventFrame(cat: ChannelEvent.changed, channelUrl: channelUrl, data: Empty(), ts: now()))
        return channel
    }

    /// Deletes an open channel (operators; `by` nil: the Platform API); others get 400108.
    public func deleteOpenChannel(channelUrl: String, by: String?) async throws {
        let channel = try await requireOpenChannel(channelUrl)
        if let by, !channel.operatorIds.contains(by) {
            throw SendbirdError(.unauthorizedRequest, "Only operators can delete this channel.")
        }
        let event = ChannelEventFrame(cat: ChannelEvent.deleted, channelUrl: channelUrl, data: Empty(), ts: now())
        pushToParticipants(event)
        _ = openChannels.rooms.close(channelUrl)
        publish(ClusterEvent(.closeRoom, channel: channelUrl))
        clusterState.apply(ClusterEvent(.closeRoom, channel: channelUrl), from: "")
        _ = try await store.deleteChannel(channelUrl)
        invalidateChannel(channelUrl)
    }

    /// Freezes or unfreezes an open channel: only through the Platform API (seed 001).
    @discardableResult
    public func setOpenFrozen(channelUrl: String, frozen: Bool, by: String?) async throws -> ChannelRecord {
        var channel = try await requireOpenChannel(channelUrl)
        if by != nil { throw SendbirdError(.unauthorizedRequest, "Open channels are frozen through the Platform API only.") }
        if channel.freeze != frozen {
            channel.freeze = frozen
            try await store.updateChannel(channel)
            invalidateChannel(channelUrl)
            pushToParticipants(
                ChannelEventFrame(
                    cat: frozen ? ChannelEvent.frozen : ChannelEvent.unfrozen, channelUrl: channelUrl, data: FreezeData(freeze: frozen),
                    ts: now()))
        }
        return channel
    }

    // MARK: Entering

    /// `ENTR`: the connection enters (banned 900100, more than the allowed channels or a full channel 400203).
    public func enter(_ conn: ClientConnection, channelUrl: String, reqId: String?) async throws -> EnterExitAck {
        guard var roster = try await roster(channelUrl), roster.channel.isOpen else {
            throw SendbirdError(.channelNotFound, "\"Channel\" not found: \(channelUrl).")
        }
        if cluster != nil, roster.isBanned(conn.userId, at: now()) {
            // The ban may have been lifted on another node a moment ago: ask the store.
            rosters.remove(channelUrl)
            guard let fresh = try await self.roster(channelUrl), fresh.channel.isOpen else {
                throw SendbirdError(.channelNotFound, "\"Channel\" not found: \(channelUrl).")
            }
            roster = fresh
        }
        if let end = roster.banned[conn.userId], roster.isBanned(conn.userId, at: now()) {
            throw Self.banned(end, webSocket: true)
        }
        let me = try await sender(conn.userId) ?? SenderPayload(userId: conn.userId)
        let elsewhere = clusterState.participantsElsewhere(channelUrl)
        switch openChannels.rooms.enter(
            conn, channelUrl, maxChannels: config.maxEnteredOpenChannels, maxParticipants: config.maxOpenChannelParticipants, elsewhere: elsewhere)
        {
        case .tooManyChannels:
            throw SendbirdError(.tooManyItems, "A connection can be in at most \(config.maxEnteredOpenChannels) open channels at once.")
        case .full:
            throw SendbirdError(.tooManyItems, "The channel is full (at most \(config.maxOpenChannelParticipants) participants).")
        case .alreadyIn:
            return EnterExitAck(channelUrl: channelUrl, participantCount: participantCount(channelUrl), user: me, ts: now(), reqId: reqId)
        case .entered(_, let newUser):
            if newUser, let cluster {
                // The other nodes know of this participant before the ack, and the count includes
                // whoever entered on another node before now.
                await cluster.publishAndWait([ClusterEvent(.participant, user: conn.userId, channel: channelUrl, flag: true)])
                await cluster.catchUp()
            }
            let count = participantCount(channelUrl)
            if newUser {
                pushToParticipants(
                    ChannelEventFrame(
                        cat: ChannelEvent.entered, channelUrl: channelUrl, data: ParticipantEventData(me, count: count, ts: now()), ts: now()),
                    exceptUser: conn.userId)
                participantCountChanged(channelUrl)
            }
            return EnterExitAck(channelUrl: channelUrl, participantCount: count, user: me, ts: now(), reqId: reqId)
        }
    }

    /// `EXIT`: the connection leaves the channel.
    public func exit(_ conn: ClientConnection, channelUrl: String, reqId: String?) async throws -> EnterExitAck {
        guard try await store.channel(channelUrl)?.isOpen == true else {
            throw SendbirdError(.channelNotFound, "\"Channel\" not found: \(channelUrl).")
        }
        let me = try await sender(conn.userId) ?? SenderPayload(userId: conn.userId)
        guard let (_, left) = openChannels.rooms.exit(conn, channelUrl) else {
            return EnterExitAck(channelUrl: channelUrl, participantCount: participantCount(channelUrl), user: me, ts: now(), reqId: reqId)
        }
        let count = participantCount(channelUrl)
        if left { announceExit(channelUrl, me, count: count) }
        return EnterExitAck(channelUrl: channelUrl, participantCount: count, user: me, ts: now(), reqId: reqId)
    }

    /// A connection closed: it leaves every open channel it was in.
    func connectionClosed(_ conn: ClientConnection) {
        let gone = openChannels.rooms.drop(conn)
        guard !gone.isEmpty else { return }
        let me = senders[conn.userId] ?? SenderPayload(userId: conn.userId)
        for g in gone where g.userLeft { announceExit(g.url, me, count: participantCount(g.url)) }
    }

    func announceExit(_ channelUrl: String, _ user: SenderPayload, count: Int) {
        publish(ClusterEvent(.participant, user: user.userId, channel: channelUrl, flag: false))
        pushToParticipants(
            ChannelEventFrame(cat: ChannelEvent.exited, channelUrl: channelUrl, data: ParticipantEventData(user, count: count, ts: now()), ts: now()))
        participantCountChanged(channelUrl)
    }

    /// Participants (online, in the channel now) by user id, one page; the token is the last user id.
    public func participants(channelUrl: String, after: String?, limit: Int) async throws -> (users: [UserPayload], next: String) {
        _ = try await requireOpenChannel(channelUrl)
        let ids = allParticipants(channelUrl).filter { $0 > (after ?? "") }
        let page = Array(ids.prefix(limit))
        let users = try await usersById(page)
        let payloads = page.map { id in users[id].map { Presenter.user($0, online: true, accessToken: "") } ?? UserPayload(userId: id, isOnline: true)
        }
        return (payloads, ids.count > limit ? RESTSupport.encodeToken(page.last!) : "")
    }

    // MARK: Pushing

    /// Sends an event to every connection that entered the channel.
    func pushToParticipants<Payload: Encodable & Sendable>(_ event: ChannelEventFrame<Payload>, exceptUser: String? = nil) {
        var e = event
        e.channelType = "open"
        let frame = Self.frameText(.systemEvent, e)
        for c in openChannels.rooms.connections(in: event.channelUrl) where c.userId != exceptUser { _ = c.send(frame) }
        relay(frame, toRoom: event.channelUrl, exceptUser: exceptUser)
    }

    /// Participant counts go out as `MCNT` at most once a second per channel: a crowd entering at once costs
    /// one frame per participant per second, not one per arrival.
    func participantCountChanged(_ channelUrl: String) {
        let first = openChannels.countChanged(channelUrl)
        guard first else { return }
        Task {
            try? await Task.sleep(for: .milliseconds(config.participantCountInterval))
            openChannels.countPushed(channelUrl)
            let count = participantCount(channelUrl)
            let t = now()
            var frame = MemberCountFrame(groupChannels: [], ts: t)
            frame.openChannels = [.init(channelUrl: channelUrl, participantCount: count, ts: t)]
            let text = Self.frameText(.memberCount, frame)
            for c in openChannels.rooms.connections(in: channelUrl) { _ = c.send(text) }
        }
    }
}

/// `SYEV` 10102 / 10103: a user entered or left an open channel.
struct ParticipantEventData: Encodable, Sendable {
    let user: SenderPayload
    let participantCount: Int
    let edgeTs: Int64
    init(_ user: SenderPayload, count: Int, ts: Int64) {
        self.user = user
        self.participantCount = count
        self.edgeTs = ts
    }
    enum CodingKeys: String, CodingKey {
        case participantCount = "participant_count"
        case edgeTs = "edge_ts"
    }
    /// The user's keys at the top of `data`, with the new count (and `edge_ts`, which orders counts) beside them.
    func encode(to encoder: any Encoder) throws {
        try user.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(participantCount, forKey: .participantCount)
        try c.encode(edgeTs, forKey: .edgeTs)
    }
}
