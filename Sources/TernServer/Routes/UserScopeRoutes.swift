import Foundation
import Hummingbird
import TernProtocol

/// The Platform API's calls that span a user's channels or a custom channel type: membership
/// checks and counts, leaving many channels at once, Platform typing indicators, a user's bans
/// and mutes across channels, and bans, mutes and operators by custom channel type.
struct UserScopeRoutes: Sendable {
    let rest: RESTSupport
    var service: ChatService { rest.service }

    func register(on api: RouterGroup<RESTRequestContext>) {
        api.get("/v3/group_channels/:channel_url/members/:user_id", use: checkMember)
        api.post("/v3/group_channels/:channel_url/typing") { req, ctx in try await typing(req, ctx, start: true) }
        api.delete("/v3/group_channels/:channel_url/typing") { req, ctx in try await typing(req, ctx, start: false) }
        api.put("/v3/users/:user_id/my_group_channels/leave", use: leaveMine)
        api.get("/v3/users/:user_id/group_channel_count", use: channelCount)
        api.get("/v3/users/:user_id/ban") { req, ctx in try await restrictedChannels(req, ctx, .ban) }
        api.get("/v3/users/:user_id/mute") { req, ctx in try await restrictedChannels(req, ctx, .mute) }
        api.post("/v3/users/:user_id/banned_channel_custom_types") { req, ctx in try await restrictByTypes(req, ctx, .ban) }
        api.post("/v3/users/:user_id/muted_channel_custom_types") { req, ctx in try await restrictByTypes(req, ctx, .mute) }
        api.post("/v3/users/:user_id/operating_channel_custom_types", use: operateByTypes)
        let byType = api.group("/v3/applications/settings_by_channel_custom_type/:custom_type")
        byType.post("ban") { req, ctx in try await restrictInType(req, ctx, .ban) }
        byType.get("ban") { req, ctx in try await listInType(req, ctx, .ban) }
        byType.delete("ban") { req, ctx in try await liftInType(req, ctx, .ban) }
        byType.post("mute") { req, ctx in try await restrictInType(req, ctx, .mute) }
        byType.get("mute") { req, ctx in try await listInType(req, ctx, .mute) }
        byType.delete("mute") { req, ctx in try await liftInType(req, ctx, .mute) }
    }

    struct MemberCheck: Encodable {
        let isMember: Bool
        let state: String
        enum CodingKeys: String, CodingKey {
            case isMember = "is_member"
            case state
        }
    }

    /// `check_if_member`: `{is_member, state}` (`joined`, `invited`, or `none` for a non-member: the
    /// three values the official SDK's model accepts).
    func checkMember(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let channel = try await service.requireGroupChannel(try rest.param(ctx, "channel_url"))
        try await service.requireViewer(channel, caller.userId)
        let user = try rest.param(ctx, "user_id")
        try await service.requireUser(user)
        let m = try await service.member(channel.channelUrl, userId: user)
        return try rest.json(MemberCheck(isMember: m != nil, state: m?.state ?? "none"))
    }

    /// Platform typing indicators: each listed member starts (or stops) typing, as if from their
    /// client (SYEV 10900 / 10901 to the other members).
    func typing(_ req: Request, _ ctx: RESTRequestContext, start: Bool) async throws -> Response {
        try ctx.caller.requirePlatform()
        let url = try rest.param(ctx, "channel_url")
        _ = try await service.requireGroupChannel(url)
        let users = try await req.decode(as: TypingUsersBody.self, context: ctx).userIds
        for id in users { try await service.typing(userId: id, channelUrl: url, start: start) }
        return try rest.empty()
    }

    /// `leave_my_group_channels`: the user leaves every group channel they are in or invited to
    /// (only those of `custom_type` when given).
    func leaveMine(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let id = try await rest.pathUser(req, ctx).userId
        let type = try await req.decode(as: LeaveMyChannelsBody.self, context: ctx).customType
        for m in try await service.memberships(userId: id) where type == nil || m.customType == type {
            try await service.leave(channelUrl: m.channelUrl, userId: id)
        }
        return try rest.empty()
    }

    struct Count: Encodable {
        let groupChannelCount: Int
        enum CodingKeys: String, CodingKey { case groupChannelCount = "group_channel_count" }
    }

    /// `group_channel_count` by join status (`state`: all, joined, invited, invited_by_friend,
    /// invited_by_non_friend — there are no friends here, so every invitation is by a non-friend),
    /// optionally of some custom types.
    func channelCount(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let id = try await rest.pathUser(req, ctx).userId
        let q = QueryParameters(req.uri.query)
        let state = (q.nonEmpty("state") ?? "all").lowercased()
        let types = q.list("custom_types").map(Set.init)
        let wanted: Set<String>
        switch state {
        case "all": wanted = ["joined", "invited"]
        case "joined": wanted = ["joined"]
        case "invited", "invited_by_non_friend": wanted = ["invited"]
        case "invited_by_friend": wanted = []
        default:
            throw SendbirdError(.invalidValue, "Invalid value: \"state\" must be all, joined, invited, invited_by_friend or invited_by_non_friend.")
        }
        let n = try await service.memberships(userId: id).filter { wanted.contains($0.state) && (types == nil || types!.contains($0.customType)) }
            .count
        return try rest.json(Count(groupChannelCount: n))
    }

    struct RestrictedChannel: Encodable {
        let startAt: Int64
        let endAt: Int64
        let description: String
        let channel: ModerationRoutes.ChannelSummary
        enum CodingKeys: String, CodingKey {
            case startAt = "start_at"
            case endAt = "end_at"
            case description, channel
        }
    }

    struct RestrictedChannels: Encodable {
        let items: [RestrictedChannel]
        let next: String
        let key: String
        struct K: CodingKey {
            var stringValue: String
            init(_ s: String) { stringValue = s }
            init?(stringValue: String) { self.stringValue = stringValue }
            var intValue: Int? { nil }
            init?(intValue: Int) { nil }
        }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: K.self)
            try c.encode(items, forKey: K(key))
            try c.encode(next, forKey: K("next"))
        }
    }

    /// A user's bans (`banned_channels`) or mutes (`muted_channels`) across channels, one page.
    func restrictedChannels(_ req: Request, _ ctx: RESTRequestContext, _ kind: RestrictionRecord.Kind) async throws -> Response {
        let id = try await rest.pathUser(req, ctx).userId
        let q = QueryParameters(req.uri.query)
        let limit = try q.int("limit", default: 10, range: 1...100)
        let after = try RESTSupport.decodeToken(q.string("token"))
        let rows = try await service.restrictions(ofUser: id, kind: kind, afterChannelUrl: after, limit: limit + 1)
        let page = Array(rows.prefix(limit))
        var items: [RestrictedChannel] = []
        for r in page {
            guard let c = try await service.channel(r.channelUrl) else { continue }
            items.append(
                RestrictedChannel(
                    startAt: r.startAt, endAt: r.endAt, description: r.description,
                    channel: .init(
                        channelUrl: c.channelUrl, name: c.name, customType: c.customType, coverUrl: c.coverUrl, data: c.data,
                        createdAt: c.createdAt, freeze: c.freeze)))
        }
        let next = rows.count > limit ? RESTSupport.encodeToken(page.last!.channelUrl) : ""
        return try rest.json(RestrictedChannels(items: items, next: next, key: kind == .ban ? "banned_channels" : "muted_channels"))
    }

    /// Bans or mutes one user in every group channel of these custom types.
    func restrictByTypes(_ req: Request, _ ctx: RESTRequestContext, _ kind: RestrictionRecord.Kind) async throws -> Response {
        try ctx.caller.requirePlatform()
        let id = try rest.param(ctx, "user_id")
        try await service.requireUser(id)
        let b = try await req.decode(as: RestrictByTypesBody.self, context: ctx)
        for url in try await service.channelUrls(customTypes: b.types, open: false) {
            try await service.banOrMuteMember(kind, channelUrl: url, userId: id, seconds: b.seconds, description: b.description)
        }
        return try rest.empty()
    }

    /// Makes a user an operator of every group channel of these custom types they are a member of.
    func operateByTypes(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        try ctx.caller.requirePlatform()
        let id = try rest.param(ctx, "user_id")
        try await service.requireUser(id)
        let types = try await req.decode(as: ChannelCustomTypesBody.self, context: ctx).types
        for m in try await service.memberships(userId: id) where types.contains(m.customType) && m.state == "joined" {
            try await service.addOperators(channelUrl: m.channelUrl, userIds: [id], by: nil)
        }
        return try rest.empty()
    }

    /// Bans or mutes users in every group channel of one custom type:
    /// `{banned_list | muted_list: [{user_id, seconds, description}]}` (or `user_ids` with one
    /// `seconds` and `description` for all).
    func restrictInType(_ req: Request, _ ctx: RESTRequestContext, _ kind: RestrictionRecord.Kind) async throws -> Response {
        try ctx.caller.requirePlatform()
        let type = try rest.param(ctx, "custom_type")
        let entries =
            kind == .ban
            ? try await req.decode(as: BanInTypeBody.self, context: ctx).entries : try await req.decode(as: MuteInTypeBody.self, context: ctx).entries
        for e in entries {
            try Identifier.check(e.userId, field: "user_id")
            _ = try ChatService.checkRestriction(seconds: e.seconds, description: e.description)
            try await service.requireUser(e.userId)
        }
        for url in try await service.channelUrls(customTypes: [type], open: false) {
            for e in entries {
                try await service.banOrMuteMember(kind, channelUrl: url, userId: e.userId, seconds: e.seconds, description: e.description)
            }
        }
        return try rest.empty()
    }

    struct TypeRestriction: Encodable {
        let user: UserPayload
        let description: String
        let startAt: Int64
        let endAt: Int64
        let channelUrl: String
        enum CodingKeys: String, CodingKey {
            case user, description
            case startAt = "start_at"
            case endAt = "end_at"
            case channelUrl = "channel_url"
        }
    }

    struct TypeRestrictions: Encodable {
        let items: [TypeRestriction]
        let next: String
        let key: String
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: RestrictedChannels.K.self)
            try c.encode(items, forKey: .init(key))
            try c.encode(next, forKey: .init("next"))
        }
    }

    /// Who is banned or muted in the channels of one custom type (one row per user and channel).
    func listInType(_ req: Request, _ ctx: RESTRequestContext, _ kind: RestrictionRecord.Kind) async throws -> Response {
        try ctx.caller.requirePlatform()
        let type = try rest.param(ctx, "custom_type")
        let q = QueryParameters(req.uri.query)
        let limit = try q.int("limit", default: 10, range: 1...100)
        let offset = Int(try RESTSupport.decodeToken(q.string("token")) ?? "0") ?? 0
        var all: [RestrictionRecord] = []
        for url in try await service.channelUrls(customTypes: [type], open: false) {
            all += try await service.restrictionsNow(channelUrl: url, kind: kind)
        }
        let page = Array(all.dropFirst(offset).prefix(limit))
        let users = try await service.presentUsers(page.map(\.userId))
        let items = zip(page, users).map {
            TypeRestriction(user: $1, description: $0.description, startAt: $0.startAt, endAt: $0.endAt, channelUrl: $0.channelUrl)
        }
        let next = offset + limit < all.count ? RESTSupport.encodeToken(String(offset + limit)) : ""
        return try rest.json(TypeRestrictions(items: items, next: next, key: kind == .ban ? "banned_list" : "muted_list"))
    }

    /// Lifts bans or mutes of users (`user_ids`, in the query or the body) in every channel of one custom type.
    func liftInType(_ req: Request, _ ctx: RESTRequestContext, _ kind: RestrictionRecord.Kind) async throws -> Response {
        try ctx.caller.requirePlatform()
        let type = try rest.param(ctx, "custom_type")
        let q = QueryParameters(req.uri.query)
        var users = q.list("user_ids") ?? []
        if users.isEmpty { users = try await req.decode(as: LiftInTypeBody.self, context: ctx).userIds }
        if users.isEmpty { throw SendbirdError.missing("user_ids") }
        try Identifier.check(users, field: "user_ids")
        for url in try await service.channelUrls(customTypes: [type], open: false) {
            for user in users where try await service.restriction(channelUrl: url, userId: user, kind: kind) != nil {
                if kind == .ban {
                    try await service.unban(channelUrl: url, userId: user, by: nil)
                } else {
                    try await service.unmute(channelUrl: url, userId: user, by: nil)
                }
            }
        }
        return try rest.empty()
    }
}
