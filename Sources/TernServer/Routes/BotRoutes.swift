import Foundation
import Hummingbird
import TernProtocol

/// `/v3/bots…` (Platform API only): create, list, view, update and delete bots; join and leave
/// group channels; send as the bot. A bot is a user (its id is taken among users).
struct BotRoutes: Sendable {
    let rest: RESTSupport
    var service: ChatService { rest.service }

    func register(on api: RouterGroup<RESTRequestContext>) {
        api.post("/v3/bots", use: create)
        api.get("/v3/bots", use: list)
        api.get("/v3/bots/:bot_userid", use: view)
        api.put("/v3/bots/:bot_userid", use: update)
        api.delete("/v3/bots/:bot_userid", use: delete)
        api.post("/v3/bots/:bot_userid/channels", use: join)
        api.delete("/v3/bots/:bot_userid/channels") { req, ctx in try await leave(req, ctx, one: false) }
        api.delete("/v3/bots/:bot_userid/channels/:channel_url") { req, ctx in try await leave(req, ctx, one: true) }
        api.post("/v3/bots/:bot_userid/send", use: send)
    }

    struct BotAnswer: Encodable {
        let bot: Identity
        let record: BotRecord
        struct Identity: Encodable {
            let botUserId: String
            let botNickname: String
            let botProfileUrl: String
            let botType: String
            let botToken: String?
            let botMetadata: [String: String]
            enum CodingKeys: String, CodingKey {
                case botUserId = "bot_userid"
                case botNickname = "bot_nickname"
                case botProfileUrl = "bot_profile_url"
                case botType = "bot_type"
                case botToken = "bot_token"
                case botMetadata = "bot_metadata"
            }
        }
        enum CodingKeys: String, CodingKey { case bot }
        func encode(to encoder: any Encoder) throws {
            try record.encode(to: encoder)
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(bot, forKey: .bot)
        }
    }

    func answer(_ bot: BotRecord, token: String? = nil) async throws -> BotAnswer {
        let u = try await service.user(bot.botUserId)
        return BotAnswer(
            bot: .init(
                botUserId: bot.botUserId, botNickname: u?.nickname ?? "", botProfileUrl: u?.profileUrl ?? "", botType: bot.botType,
                botToken: token, botMetadata: u?.metadata ?? [:]),
            record: bot)
    }

    func requireBot(_ ctx: RESTRequestContext) async throws -> BotRecord {
        let id = try rest.param(ctx, "bot_userid")
        guard let bot = try await service.allBots()[id] else { throw SendbirdError(.notFound, "\"Bot\" not found: \(id).") }
        return bot
    }

    func create(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let b = try await rest.body(req)
        guard let id = try b.string("bot_userid"), !id.isEmpty else { throw SendbirdError.missing("bot_userid") }
        try ChatService.checkUserId(id)
        guard let nickname = try b.string("bot_nickname") else { throw SendbirdError.missing("bot_nickname") }
        try ChatService.checkNickname(nickname)
        guard let callback = try b.string("bot_callback_url"), !callback.isEmpty else { throw SendbirdError.missing("bot_callback_url") }
        try WebURL.check(callback, field: "bot_callback_url")
        let type = try b.string("bot_type") ?? ""
        try TextLimit.customType.check(type)
        let profile = try b.string("bot_profile_url") ?? ""
        try TextLimit.profileUrl.check(profile)
        let t = service.now()
        let user = UserRecord(
            userId: id, nickname: nickname, profileUrl: profile, metadata: [:], createdAt: t / 1000, lastSeenAt: 0,
            hasEverLoggedIn: false, isActive: true)
        let bot = BotRecord(
            botUserId: id, botType: type, callbackUrl: callback, isPrivacyMode: try b.bool("is_privacy_mode") ?? false,
            enableMarkAsRead: try b.bool("enable_mark_as_read") ?? true, showMember: try b.bool("show_member") ?? false,
            channelInvitationPreference: Int(try b.int("channel_invitation_preference") ?? 1), createdAt: t)
        let token = try await service.createBot(bot, user: user)
        return try rest.json(try await answer(bot, token: token))
    }

    struct Page: Encodable {
        let bots: [BotAnswer]
        let next: String
    }

    func list(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let q = QueryParameters(req.uri.query)
        let limit = try q.int("limit", default: 10, range: 1...100)
        let after = try RESTSupport.decodeToken(q.string("token")) ?? ""
        let all = try await service.allBots().values.sorted { $0.botUserId < $1.botUserId }.filter { $0.botUserId > after }
        var page: [BotAnswer] = []
        for b in all.prefix(limit) { page.append(try await answer(b)) }
        let next = all.count > limit ? RESTSupport.encodeToken(all[limit - 1].botUserId) : ""
        return try rest.json(Page(bots: page, next: next))
    }

    func view(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        return try rest.json(try await answer(try await requireBot(ctx)))
    }

    func update(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        var bot = try await requireBot(ctx)
        let b = try await rest.body(req)
        if let callback = try b.string("bot_callback_url") {
            try WebURL.check(callback, field: "bot_callback_url")
            bot.callbackUrl = callback
        }
        if let v = try b.bool("is_privacy_mode") { bot.isPrivacyMode = v }
        if let v = try b.bool("enable_mark_as_read") { bot.enableMarkAsRead = v }
        if let v = try b.bool("show_member") { bot.showMember = v }
        if let v = try b.int("channel_invitation_preference") { bot.channelInvitationPreference = Int(v) }
        if var user = try await service.user(bot.botUserId) {
            if let n = try b.string("bot_nickname") {
                try ChatService.checkNickname(n)
                user.nickname = n
            }
            if let p = try b.string("bot_profile_url") {
                try TextLimit.profileUrl.check(p)
                user.profileUrl = p
            }
            try await service.updateUser(user)
            // The bot's name shows in the cached rosters of its channels.
            service.invalidateAll()
        }
        try await service.saveBot(bot)
        return try rest.json(try await answer(bot))
    }

    func delete(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let bot = try await requireBot(ctx)
        try await service.deleteBot(bot.botUserId)
        return try rest.empty()
    }

    /// Joins group channels (`channel_urls`); answers them as the bot sees them: `channels`, as
    /// Sendbird's page says, and the first channel's own fields beside it, which is what the official
    /// Python SDK (2.1.5) reads the answer as (one `SendbirdGroupChannelDetail`).
    func join(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let bot = try await requireBot(ctx)
        let urls = try await rest.body(req).stringArray("channel_urls") ?? []
        if urls.isEmpty { throw SendbirdError.missing("channel_urls") }
        try Identifier.check(urls, field: "channel_urls")
        var out: [GroupChannelPayload] = []
        for url in urls {
            let channel = try await service.invite(channelUrl: url, userIds: [bot.botUserId], inviter: nil)
            out.append(try await service.present(channel, viewer: bot.botUserId))
        }
        let channels = try out.map { try JSONSerialization.jsonObject(with: WireCoding.encoder.encode($0)) }
        var answer = (channels.first as? [String: Any]) ?? [:]
        answer["channels"] = channels
        return try rest.document(answer)
    }

    /// Leaves one channel, the channels in `channel_urls` (query), or every group channel.
    func leave(_ req: Request, _ ctx: RESTRequestContext, one: Bool) async throws -> Response {
        let bot = try await requireBot(ctx)
        var urls: [String]
        if one {
            urls = [try rest.param(ctx, "channel_url")]
        } else {
            urls = QueryParameters(req.uri.query).list("channel_urls") ?? []
            if urls.isEmpty { urls = try await service.memberships(userId: bot.botUserId).map(\.channelUrl) }
        }
        for url in urls { try await service.leave(channelUrl: url, userId: bot.botUserId) }
        return try rest.empty()
    }

    /// Sends a message as the bot in a channel it is a member of.
    func send(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let bot = try await requireBot(ctx)
        // The official Platform SDK (2.1.5) always sends this one as multipart/form-data.
        let b = try await rest.bodyOrForm(req)
        guard let url = try b.string("channel_url"), !url.isEmpty else { throw SendbirdError.missing("channel_url") }
        guard let text = try b.string("message") else { throw SendbirdError.missing("message") }
        var out = OutgoingMessage(channelUrl: url, message: text)
        out.customType = try b.string("custom_type") ?? ""
        out.data = try b.string("data") ?? ""
        out.mentionedUserIds = try b.stringArray("mentioned") ?? []
        let payload = try await service.sendUserMessage(from: bot.botUserId, out, connection: nil, origin: .rest)
        if bot.enableMarkAsRead, try b.bool("mark_as_read") ?? true {
            _ = try? await service.markRead(userId: bot.botUserId, channelUrl: url, connection: nil, reqId: nil, origin: .rest)
        }
        return try rest.json(payload)
    }
}
