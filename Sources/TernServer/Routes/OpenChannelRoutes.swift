import Foundation
import Hummingbird
import TernProtocol

/// `/v3/open_channels…`: create, read, list, participants (update, delete and freeze serve both
/// channel types in ``GroupChannelRoutes``).
struct OpenChannelRoutes: Sendable {
    let rest: RESTSupport
    var service: ChatService { rest.service }

    func register(on api: RouterGroup<RESTRequestContext>) {
        api.post("/v3/open_channels", use: create)
        api.get("/v3/open_channels", use: list)
        api.get("/v3/open_channels/:channel_url", use: get)
        api.get("/v3/sdk/open_channels/:channel_url", use: get)
        api.get("/v3/open_channels/:channel_url/participants", use: participants)
    }

    func present(_ channel: ChannelRecord) async throws -> Response {
        try rest.json(try await service.presentOpen(channel))
    }

    func create(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        var r = try await req.decode(as: OpenChannelCreateBody.self, context: ctx).request
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
