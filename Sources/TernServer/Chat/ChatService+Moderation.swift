import Foundation
public import TernProtocol

/// Operators, bans, mutes and reports in both channel types (seed 000 / 001, BRIEF F7).
extension ChatService {
    // MARK: Operators

    /// The caller must be an operator (`by` nil: the Platform API may do anything).
    func requireOperator(_ roster: ChannelRoster, _ by: String?) throws {
        guard let by else { return }
        guard roster.isOperator(by) else {
            throw SendbirdError(.unauthorizedRequest, "Only operators can do this in \(roster.channel.channelUrl).")
        }
    }

    func requireRoster(_ url: String) async throws -> ChannelRoster {
        guard let r = try await roster(url) else { throw SendbirdError(.notFound, "\"Channel\" not found: \(url).") }
        return r
    }

    /// Makes users operators. In a group channel they must be members.
    public func addOperators(channelUrl: String, userIds: [String], by: String?) async throws {
        let roster = try await requireRoster(channelUrl)
        try requireOperator(roster, by)
        let ids = try await checkOperators(userIds)
        if ids.isEmpty { throw SendbirdError.missing("operator_ids") }
        if roster.channel.isOpen {
            let all = Array(NSOrderedSet(array: roster.channel.operatorIds + ids).array as! [String])
            if all.count > 100 { throw SendbirdError(.tooManyItems, "At most 100 operators.") }
            try await store.setOpenChannelOperators(channelUrl, all)
        } else {
            if let outsider = ids.first(where: { roster.member($0) == nil }) {
                throw SendbirdError(.notFound, "\"\(outsider)\" is not a member of the channel.")
            }
            _ = try await store.setMemberRole(channelUrl, userIds: ids, role: "operator")
        }
        invalidateChannel(channelUrl)
        try await announceOperators(channelUrl)
    }

    /// Takes the operator role away from users (`all`: from everyone).
    public func removeOperators(channelUrl: String, userIds: [String], all: Bool, by: String?) async throws {
        let roster = try await requireRoster(channelUrl)
        try requireOperator(roster, by)
        if !all && userIds.isEmpty { throw SendbirdError.missing("operator_ids") }
        if roster.channel.isOpen {
            let remove = Set(userIds)
            try await store.setOpenChannelOperators(channelUrl, all ? [] : roster.channel.operatorIds.filter { !remove.contains($0) })
        } else {
            let ids = all ? roster.members.filter { $0.role == "operator" }.map(\.userId) : userIds
            _ = try await store.setMemberRole(channelUrl, userIds: ids, role: "none")
        }
        invalidateChannel(channelUrl)
        try await announceOperators(channelUrl)
    }

    /// The channel's operators by user id after `after`.
    public func operators(channelUrl: String, after: String?, limit: Int) async throws -> (users: [UserPayload], next: String) {
        let roster = try await requireRoster(channelUrl)
        let ids = operatorIds(roster).filter { $0 > (after ?? "") }
        let page = Array(ids.prefix(limit))
        return (try await presentUsers(page), ids.count > limit ? RESTSupport.encodeToken(page.last!) : "")
    }

    func operatorIds(_ roster: ChannelRoster) -> [String] {
        (roster.channel.isOpen ? roster.channel.operatorIds : roster.members.filter { $0.role == "operator" }.map(\.userId)).sorted()
    }

    func presentUsers(_ ids: [String]) async throws -> [UserPayload] {
        let users = try await usersById(ids)
        return ids.map { id in
            users[id].map { Presenter.user($0, online: isOnline(id), accessToken: "") } ?? UserPayload(userId: id)
        }
    }

    /// `SYEV` 10002 with the operators as they are now.
    func announceOperators(_ channelUrl: String) async throws {
        let roster = try await requireRoster(channelUrl)
        let data = OperatorsData(operators: try await presentUsers(operatorIds(roster)))
        pushToFollowers(ChannelEventFrame(cat: ChannelEvent.operatorsChanged, channelUrl: channelUrl, data: data, ts: now()), roster: roster)
    }

    /// A channel event to everyone who follows the channel (members or participants), plus `also`.
    func pushToFollowers<Payload: Encodable & Sendable>(_ event: ChannelEventFrame<Payload>, roster: ChannelRoster, also: [String] = []) {
        var e = event
        e.channelType = roster.channel.channelType
        let frame = Self.frameText(.systemEvent, e)
        broadcast(frame, in: roster)
        let followers: Set<String> =
            roster.channel.isOpen
            ? Set(allParticipants(roster.channel.channelUrl)) : Self.joinedIds(roster.members)
        for id in also where !followers.contains(id) {
            send(frame, toUser: id)
        }
    }

    // MARK: Bans and mutes

    static func checkRestriction(seconds: Int64?, description: String) throws -> Int64 {
        let s = seconds ?? -1
        if s == 0 || s < -1 { throw SendbirdError(.invalidValue, "Invalid value: \"seconds\" (-1 for ever, or more than 0).") }
        try TextLimit.description.check(description)
        return s
    }

    /// Bans a user: out of the channel at once (a group member is removed, a participant expelled), and
    /// refused until it ends (`seconds` -1: for ever).
    @discardableResult
    public func ban(channelUrl: String, userId: String, seconds: Int64?, description: String, by: String?) async throws -> RestrictionRecord {
        let roster = try await requireRoster(channelUrl)
        try requireOperator(roster, by)
        let s = try Self.checkRestriction(seconds: seconds, description: description)
        if userId == by { throw SendbirdError(.invalidValue, "Operators cannot ban themselves.") }
        guard let user = try await store.user(userId) else { throw SendbirdError(.notFound, "\"User\" not found: \(userId).") }
        let t = now()
        let r = RestrictionRecord(
            channelUrl: channelUrl, userId: userId, kind: .ban, startAt: t, endAt: s < 0 ? -1 : t + s * 1000, description: description)
        try await store.restrict(r)
        var data = RestrictionEventData(user: Presenter.user(user, online: isOnline(userId), accessToken: ""), restriction: r, now: t)
        // A group member is taken out first, so the event carries the new counts; everyone hears it, the banned
        // user too (an open channel's participant before being put out).
        var updated: ChannelRecord?
        if !roster.channel.isOpen, roster.member(userId) != nil {
            _ = try await store.removeMember(channelUrl, userId: userId, turnOffDistinct: true)
            invalidateChannel(channelUrl)
            updated = try await requireGroupChannel(channelUrl)
            data.memberCount = updated?.memberCount
            data.joinedMemberCount = updated?.joinedMemberCount
        }
        // Other nodes drop their copy of the roster before they hear of the ban, so a send that
        // follows the event is refused there too.
        invalidateChannel(channelUrl)
        pushToFollowers(ChannelEventFrame(cat: ChannelEvent.banned, channelUrl: channelUrl, data: data, ts: t), roster: roster, also: [userId])
        if roster.channel.isOpen {
            if openChannels.rooms.expel(userId, from: channelUrl) != nil { participantCountChanged(channelUrl) }
            publish(ClusterEvent(.expel, user: userId, channel: channelUrl))
            clusterState.apply(ClusterEvent(.expel, user: userId, channel: channelUrl), from: "")
        } else if let updated {
            pushMemberCount(updated, to: Self.joinedIds(roster.members))
        }
        invalidateChannel(channelUrl)
        return r
    }

    public func unban(channelUrl: String, userId: String, by: String?) async throws {
        try await lift(.ban, channelUrl: channelUrl, userId: userId, by: by)
    }

    /// Mutes a user: they stay and read, and what they send is refused (900041) until it ends.
    @discardableResult
    public func mute(channelUrl: String, userId: String, seconds: Int64?, description: String, by: String?) async throws -> RestrictionRecord {
        let roster = try await requireRoster(channelUrl)
        try requireOperator(roster, by)
        let s = try Self.checkRestriction(seconds: seconds, description: description)
        guard let user = try await store.user(userId) else { throw SendbirdError(.notFound, "\"User\" not found: \(userId).") }
        if !roster.channel.isOpen && roster.member(userId) == nil {
            throw SendbirdError(.notFound, "\"\(userId)\" is not a member of the channel.")
        }
        let t = now()
        let r = RestrictionRecord(
            channelUrl: channelUrl, userId: userId, kind: .mute, startAt: t, endAt: s < 0 ? -1 : t + s * 1000, description: description)
        try await store.restrict(r)
        invalidateChannel(channelUrl)
        let data = RestrictionEventData(user: Presenter.user(user, online: isOnline(userId), accessToken: ""), restriction: r, now: t)
        pushToFollowers(ChannelEventFrame(cat: ChannelEvent.muted, channelUrl: channelUrl, data: data, ts: t), roster: roster, also: [userId])
        return r
    }

    public func unmute(channelUrl: String, userId: String, by: String?) async throws {
        try await lift(.mute, channelUrl: channelUrl, userId: userId, by: by)
    }

    /// Ends a ban or a mute early (400201 when there is none); the channel and the user hear 10600 / 10200.
    func lift(_ kind: RestrictionRecord.Kind, channelUrl: String, userId: String, by: String?) async throws {
        let roster = try await requireRoster(channelUrl)
        try requireOperator(roster, by)
        guard try await store.lift(channelUrl, userId: userId, kind: kind) else {
            throw SendbirdError(.notFound, "\"\(userId)\" is not \(kind == .ban ? "banned" : "muted") in the channel.")
        }
        invalidateChannel(channelUrl)
        let user = try await store.user(userId)
        let data = RestrictionEventData(
            user: user.map { Presenter.user($0, online: isOnline(userId), accessToken: "") } ?? UserPayload(userId: userId),
            restriction: nil)
        let cat = kind == .ban ? ChannelEvent.unbanned : ChannelEvent.unmuted
        pushToFollowers(ChannelEventFrame(cat: cat, channelUrl: channelUrl, data: data, ts: now()), roster: roster, also: [userId])
    }

    /// Banned or muted users, one page (operators only for SDK callers).
    public func restrictions(
        channelUrl: String, kind: RestrictionRecord.Kind, after: String?, limit: Int, by: String?
    ) async throws -> (list: [RestrictionPayload], next: String) {
        let roster = try await requireRoster(channelUrl)
        try requireOperator(roster, by)
        let rows = try await store.restrictions(channelUrl, kind: kind, now: now(), afterUserId: after, limit: limit + 1)
        let page = Array(rows.prefix(limit))
        let users = try await presentUsers(page.map(\.userId))
        let list = zip(page, users).map { RestrictionPayload(user: $1, description: $0.description, startAt: $0.startAt, endAt: $0.endAt) }
        return (list, rows.count > limit ? RESTSupport.encodeToken(page.last!.userId) : "")
    }

    /// Every ban or mute of a kind that holds now in a channel.
    func restrictionsNow(channelUrl: String, kind: RestrictionRecord.Kind) async throws -> [RestrictionRecord] {
        try await store.restrictions(channelUrl, kind: kind, now: now(), afterUserId: nil, limit: nil)
    }

    /// A user's restrictions of a kind that hold now, by channel URL after `afterChannelUrl`.
    func restrictions(ofUser userId: String, kind: RestrictionRecord.Kind, afterChannelUrl: String?, limit: Int) async throws -> [RestrictionRecord] {
        try await store.restrictions(ofUser: userId, kind: kind, now: now(), afterChannelUrl: afterChannelUrl, limit: limit)
    }

    /// Bans a user from a channel, or mutes them there when they are a member (a mute of a
    /// non-member is skipped): what the Platform API's restrictions by custom type do in each channel.
    func banOrMuteMember(
        _ kind: RestrictionRecord.Kind, channelUrl: String, userId: String, seconds: Int64?, description: String
    ) async throws {
        if kind == .ban {
            try await ban(channelUrl: channelUrl, userId: userId, seconds: seconds, description: description, by: nil)
        } else if try await store.member(channelUrl, userId: userId) != nil {
            try await mute(channelUrl: channelUrl, userId: userId, seconds: seconds, description: description, by: nil)
        }
    }

    /// One user's ban or mute, if it holds now.
    public func restriction(channelUrl: String, userId: String, kind: RestrictionRecord.Kind) async throws -> RestrictionRecord? {
        _ = try await requireRoster(channelUrl)
        return try await store.restrictions(channelUrl, kind: kind, now: now(), afterUserId: nil, limit: nil).first { $0.userId == userId }
    }

    // MARK: Reports

    /// Reports, newest first, with the query's filters.
    func reports(_ query: ReportQuery) async throws -> [ReportRecord] { try await store.reports(query) }

    static let reportCategories: Set<String> = ["suspicious", "harassing", "inappropriate", "spam"]

    /// Stores a report of a channel, a message (`messageId`) or a user (`offendingUserId` without a message).
    @discardableResult
    public func report(
        category: String, description: String, reporter: String?, channelUrl: String?, messageId: Int64?, offendingUserId: String?
    ) async throws -> ReportRecord {
        guard Self.reportCategories.contains(category) else {
            throw SendbirdError(.invalidValue, "Invalid value: \"report_category\" (suspicious, harassing, inappropriate or spam).")
        }
        try TextLimit.reportDescription.check(description)
        if let reporter, try await store.user(reporter) == nil { throw SendbirdError(.notFound, "\"User\" not found: \(reporter).") }
        var channel: ChannelRecord?
        var reporterMember: MemberRecord?
        if let url = channelUrl {
            channel = try await requireChannel(url)
            if let reporter, !channel!.isOpen { reporterMember = try await requireMember(channel!, reporter, code: .unauthorizedRequest) }
        }
        var offender = offendingUserId
        var snapshot: String?
        if let id = messageId, let url = channelUrl {
            // A member reports only what they can read: not a message hidden from them or older
            // than their history (the report keeps a copy of it).
            guard let m = try await store.message(url, id: id),
                reporterMember == nil || (m.hiddenFor != reporter && m.createdAt > reporterMember!.tsMessageOffset)
            else { throw SendbirdError(.notFound, "\"Message\" not found: \(id).") }
            offender = m.senderId ?? offender
            let payload = try await presentMessages([m], extras: [])[0]
            snapshot = String(decoding: try WireCoding.encoder.encode(payload), as: UTF8.self)
        }
        if let o = offender, try await store.user(o) == nil { throw SendbirdError(.notFound, "\"User\" not found: \(o).") }
        return try await store.addReport(
            ReportRecord(
                category: category, description: description, reportingUserId: reporter, offendingUserId: offender,
                channelUrl: channel?.channelUrl, channelType: channel.map { $0.isOpen ? "open_channels" : "group_channels" },
                messageId: messageId, reportedMessage: snapshot, createdAt: now()))
    }
}

/// `SYEV` 10002.
struct OperatorsData: Encodable, Sendable {
    let operators: [UserPayload]
}

/// `SYEV` 10601 / 10600 / 10201 / 10200: the user's keys flat in `data` with the restriction's beside them
/// (`restriction_type`, `description`, `end_at`, `remaining_duration` in ms), as both SDKs read a restricted user;
/// a ban also carries the channel's member counts.
struct RestrictionEventData: Encodable, Sendable {
    let user: UserPayload
    let restriction: RestrictionRecord?
    var now: Int64 = 0
    var memberCount: Int?
    var joinedMemberCount: Int?

    enum CodingKeys: String, CodingKey {
        case description
        case startAt = "start_at"
        case endAt = "end_at"
        case restrictionType = "restriction_type"
        case remainingDuration = "remaining_duration"
        case memberCount = "member_count"
        case joinedMemberCount = "joined_member_count"
    }
    func encode(to encoder: any Encoder) throws {
        try user.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(memberCount, forKey: .memberCount)
        try c.encodeIfPresent(joinedMemberCount, forKey: .joinedMemberCount)
        guard let r = restriction else { return }
        try c.encode(r.kind == .ban ? "banned" : "muted", forKey: .restrictionType)
        try c.encode(r.description, forKey: .description)
        try c.encode(r.startAt, forKey: .startAt)
        try c.encode(r.endAt, forKey: .endAt)
        try c.encode(r.endAt < 0 ? -1 : max(0, r.endAt - now), forKey: .remainingDuration)
    }
}
