import Foundation
import Hummingbird
import TernProtocol

/// `/v3/bots…` (Platform API only): create, list, view, update and delete bots; join and leave
/// group channels; send as the bot. A bot is a user (its id is taken among users).
struct BotRoutes: Sendable {
    let rest: RESTSupport
    var service: ChatService { rest.service }

    func register(on api: RouterGroup<RESTRequestContext>) {
        let bots = api.group("/v3/bots")
        bots.post(use: create)
        bots.get(use: list)
        bots.get(":bot_userid", use: view)
        bots.put(":bot_userid", use: update)
        bots.delete(":bot_userid", use: delete)
        bots.post(":bot_userid/channels", use: join)
        bots.delete(":bot_userid/channels") { req, ctx in try await leave(req, ctx, one: false) }
        bots.delete(":bot_userid/channels/:channel_url") { req, ctx in try await leave(req, ctx, one: true) }
        bots.post(":bot_userid/send", use: send)
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
        let b = try await req.decode(as: BotCreateBody.self, context: ctx)
        let t = service.now()
        let user = UserRecord(
            userId: b.botUserId, nickname: b.nickname, profileUrl: b.profileUrl, metadata: [:], createdAt: t / 1000, lastSeenAt: 0,
            hasEverLoggedIn: false, isActive: true)
        let bot = BotRecord(
            botUserId: b.botUserId, botType: b.type, callbackUrl: b.callbackUrl, isPrivacyMode: b.isPrivacyMode,
            enableMarkAsRead: b.enableMarkAsRead, showMember: b.showMember, channelInvitationPreference: b.channelInvitationPreference,
            createdAt: t)
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
        let b = try await req.decode(as: BotChangesBody.self, context: ctx)
        if let callback = b.callbackUrl { bot.callbackUrl = callback }
        if let v = b.isPrivacyMode { bot.isPrivacyMode = v }
        if let v = b.enableMarkAsRead { bot.enableMarkAsRead = v }
        if let v = b.showMember { bot.showMember = v }
        if let v = b.channelInvitationPreference { bot.channelInvitationPreference = v }
        if var user = try await service.user(bot.botUserId) {
            if let n = b.nickname { user.nickname = n }
            if let p = b.profileUrl { user.profileUrl = p }
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
        let urls = try await req.decode(as: BotJoinBody.self, context: ctx).channelUrls
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
        let b = try await rest.decodeBodyOrForm(BotSendBody.self, req, ctx)
        let payload = try await service.sendUserMessage(from: bot.botUserId, b.message, connection: nil, origin: .rest)
        if bot.enableMarkAsRead, b.markAsRead {
            let url = b.message.channelUrl
            _ = try? await service.markRead(userId: bot.botUserId, channelUrl: url, connection: nil, reqId: nil, origin: .rest)
        }
        return try rest.json(payload)
    }
}
