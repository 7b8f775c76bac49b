import Foundation
import Hummingbird
import TernProtocol

/// `/v3/open_channels…`: create, read, list, update, delete, freeze, participants.
struct OpenChannelRoutes: Sendable {
    let rest: RESTSupport
    var service: ChatService { rest.service }

    func register(on api: RouterGroup<RESTRequestContext>) {
        api.post("/v3/open_channels", use: create)
        api.get("/v3/open_channels", use: list)
        api.get("/v3/open_channels/:channel_url", use: get)
        api.get("/v3/sdk/open_channels/:channel_url", use: get)
        api.put("/v3/open_channels/:channel_url", use: update)
        api.delete("/v3/open_channels/:channel_url", use: delete)
        api.put("/v3/open_channels/:channel_url/freeze", use: freeze)
        api.get("/v3/open_channels/:channel_url/participants", use: participants)
    }

    func present(_ channel: ChannelRecord) async throws -> Response {
        try rest.json(try await service.presentOpen(channel))
    }

    /// Operators arrive as `operators` from the SDK and as `operator_ids` from the Platform API.
    static func operatorIds(_ c: KeyedDecodingContainer<CreateBody.CodingKeys>) throws -> [String]? {
        if let ids = try c.stringArray(.operatorIds) { return ids }
        return try c.stringArray(.operators)
    }

    /// `POST /v3/open_channels`.
    struct CreateBody: Decodable {
        var request = CreateOpenChannelRequest()
        enum CodingKeys: String, CodingKey {
            case channelUrl = "channel_url"
            case name
            case coverUrl = "cover_url"
            case customType = "custom_type"
            case data
            case isEphemeral = "is_ephemeral"
            case operatorIds = "operator_ids"
            case operators
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            request.channelUrl = try c.string(.channelUrl).flatMap { $0.isEmpty ? nil : $0 }
            request.name = try c.string(.name) ?? ""
            request.coverUrl = try c.string(.coverUrl) ?? ""
            request.customType = try c.string(.customType) ?? ""
            request.data = try c.string(.data) ?? ""
            request.isEphemeral = try c.bool(.isEphemeral) ?? false
            request.operatorIds = try OpenChannelRoutes.operatorIds(c) ?? []
        }
    }

    /// `PUT /v3/open_channels/{url}`: what both channel types change, and the operators.
    struct UpdateBody: Decodable {
        let changes: ChatService.ChannelChanges
        let operatorIds: [String]?

        init(from decoder: any Decoder) throws {
            changes = try ChannelChangesBody(from: decoder).changes
            operatorIds = try OpenChannelRoutes.operatorIds(try decoder.container(keyedBy: CreateBody.CodingKeys.self))
        }
    }

    func create(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        var r = try await req.decode(as: CreateBody.self, context: ctx).request
        r.creator = caller.userId
        return try await present(try await service.createOpenChannel(r))
    }

    func get(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        _ = try ctx.caller
        return try await present(try await service.requireOpenChannel(try rest.param(ctx, "channel_url")))
    }

    func list(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        _ = try ctx.caller
        let q = QueryParameters(req.uri.query)
        var query = OpenChannelListQuery()
        query.limit = try q.int("limit", default: 10, range: 1...100)
        query.offset = Int(try RESTSupport.decodeToken(q.string("token")) ?? "0") ?? 0
        query.nameContains = q.nonEmpty("name_contains")
        query.urlContains = q.nonEmpty("url_contains")
        query.customTypes = q.list("custom_types") ?? q.nonEmpty("custom_type").map { [$0] }
        query.showFrozen = try q.bool("show_frozen", default: true)
        query.channelUrls = q.list("channel_urls")
        var fetch = query
        fetch.limit = query.limit + 1
        let rows = try await service.listOpenChannels(fetch)
        let page = Array(rows.prefix(query.limit))
        let next = rows.count > query.limit ? RESTSupport.encodeToken(String(query.offset + query.limit)) : ""
        return try rest.json(OpenChannelPage(channels: try await service.presentOpen(page), next: next))
    }

    func update(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let body = try await req.decode(as: UpdateBody.self, context: ctx)
        let channel = try await service.updateOpenChannel(channelUrl: url, body.changes, operatorIds: body.operatorIds, by: caller.userId)
        return try await present(channel)
    }

    func delete(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        try await service.deleteOpenChannel(channelUrl: try rest.param(ctx, "channel_url"), by: caller.userId)
        return try rest.empty()
    }

    func freeze(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let frozen = try await req.decode(as: FreezeBody.self, context: ctx).freeze
        return try await present(try await service.setOpenFrozen(channelUrl: try rest.param(ctx, "channel_url"), frozen: frozen, by: caller.userId))
    }

    struct ParticipantPage: Encodable {
        let participants: [UserPayload]
        let next: String
    }

    func participants(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        // Who is in the room is for those who may be in it (not the banned).
        try await service.requireReader(try rest.param(ctx, "channel_url"), caller.userId)
        let q = QueryParameters(req.uri.query)
        let limit = try q.int("limit", default: 10, range: 1...100)
        let page = try await service.participants(
            channelUrl: try rest.param(ctx, "channel_url"), after: try RESTSupport.decodeToken(q.string("token")), limit: limit)
        return try rest.json(ParticipantPage(participants: page.users, next: page.next))
    }
}
