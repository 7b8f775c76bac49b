import Foundation
import Hummingbird
import TernProtocol

/// `/v3/group_channels/{url}/metadata…` and `…/metacounter…`. Metadata answers `{metadata, ts}` (what the SDK
/// reads); metacounters answer the bare map, as Sendbird does.
struct MetadataRoutes: Sendable {
    let rest: RESTSupport
    var service: ChatService { rest.service }

    func register(on api: RouterGroup<RESTRequestContext>) {
        for channel in rest.eachChannelType(on: api) {
            channel.post("/metadata", use: createMetadata)
            channel.get("/metadata") { req, ctx in try await getMetadata(req, ctx, key: nil) }
            channel.put("/metadata") { req, ctx in try await updateMetadata(req, ctx, key: nil) }
            channel.delete("/metadata") { req, ctx in try await deleteMetadata(req, ctx, key: nil) }
            channel.get("/metadata/:key") { req, ctx in try await getMetadata(req, ctx, key: try rest.param(ctx, "key")) }
            channel.put("/metadata/:key") { req, ctx in try await updateMetadata(req, ctx, key: try rest.param(ctx, "key")) }
            channel.delete("/metadata/:key") { req, ctx in try await deleteMetadata(req, ctx, key: try rest.param(ctx, "key")) }
            channel.post("/metacounter", use: createCounters)
            channel.get("/metacounter") { req, ctx in try await getCounters(req, ctx, key: nil) }
            channel.put("/metacounter") { req, ctx in try await updateCounters(req, ctx, key: nil) }
            channel.delete("/metacounter") { req, ctx in try await deleteCounters(req, ctx, key: nil) }
            channel.get("/metacounter/:key") { req, ctx in try await getCounters(req, ctx, key: try rest.param(ctx, "key")) }
            channel.put("/metacounter/:key") { req, ctx in try await updateCounters(req, ctx, key: try rest.param(ctx, "key")) }
            channel.delete("/metacounter/:key") { req, ctx in try await deleteCounters(req, ctx, key: try rest.param(ctx, "key")) }
        }
    }

    struct TimeAnswer: Encodable { let ts: Int64 }

    func answer(_ url: String, _ metadata: [String: String]) throws -> Response {
        try rest.json(MetadataAnswer(channelUrl: url, metadata: metadata, ts: service.now()))
    }

    /// A read or an update of several keys: with `include_ts` (what the Chat SDKs ask for, and
    /// read) the items under `metadata` with the time; without it the bare map, as Sendbird's
    /// Platform API pages show and the official Platform SDK's models read.
    func answer(_ url: String, _ metadata: [String: String], includeTs: Bool) throws -> Response {
        includeTs ? try answer(url, metadata) : try rest.json(metadata)
    }

    func createMetadata(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let items = try await req.decode(as: MetadataBody.self, context: ctx).metadata
        try await service.changeChannelMetadata(url, .create(items), by: caller.userId)
        return try answer(url, items)
    }

    func getMetadata(_ req: Request, _ ctx: RESTRequestContext, key: String?) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let q = QueryParameters(req.uri.query)
        if let key {
            let found = try await service.channelMetadata(url, keys: [key], by: caller.userId)
            guard let value = found[key] else { throw SendbirdError(.notFound, "\"Metadata\" not found: \(key).") }
            return try rest.json([key: value])
        }
        let keys = (q.list("keys") ?? []) + (q.nonEmpty("key").map { [$0] } ?? [])
        let found = try await service.channelMetadata(url, keys: keys.isEmpty ? nil : keys, by: caller.userId)
        return try answer(url, found, includeTs: try q.bool("include_ts", default: false))
    }

    func updateMetadata(_ req: Request, _ ctx: RESTRequestContext, key: String?) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        if let key {
            let body = try await req.decode(as: MetadataValueBody.self, context: ctx)
            try await service.changeChannelMetadata(url, .update([key: body.value], upsert: body.upsert), by: caller.userId)
            return try rest.json([key: body.value])
        }
        let body = try await req.decode(as: MetadataUpdateBody.self, context: ctx)
        try await service.changeChannelMetadata(url, .update(body.metadata, upsert: body.upsert), by: caller.userId)
        return try answer(url, body.metadata, includeTs: body.includeTs)
    }

    func deleteMetadata(_ req: Request, _ ctx: RESTRequestContext, key: String?) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let one = key ?? QueryParameters(req.uri.query).nonEmpty("key")
        try await service.changeChannelMetadata(url, .delete(one.map { [$0] }), by: caller.userId)
        return try rest.json(TimeAnswer(ts: service.now()))
    }

    func createCounters(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let items = try await req.decode(as: MetacounterBody.self, context: ctx).metacounter
        let r = try await service.changeChannelMetacounters(url, .create(items), by: caller.userId)
        return try rest.json(r.created)
    }

    func getCounters(_ req: Request, _ ctx: RESTRequestContext, key: String?) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let q = QueryParameters(req.uri.query)
        let keys = key.map { [$0] } ?? q.list("keys")
        let found = try await service.channelMetacounters(url, keys: keys?.isEmpty == true ? nil : keys, by: caller.userId)
        if let key, found[key] == nil { throw SendbirdError(.notFound, "\"Metacounter\" not found: \(key).") }
        return try rest.json(found)
    }

    func updateCounters(_ req: Request, _ ctx: RESTRequestContext, key: String?) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let change: MetacounterChange
        if let key {
            let body = try await req.decode(as: MetacounterValueBody.self, context: ctx)
            change = .update([key: body.value], mode: body.mode, upsert: body.upsert)
        } else {
            let body = try await req.decode(as: MetacounterUpdateBody.self, context: ctx)
            change = .update(body.metacounter, mode: body.mode, upsert: body.upsert)
        }
        let r = try await service.changeChannelMetacounters(url, change, by: caller.userId)
        return try rest.json(r.created.merging(r.updated) { a, _ in a })
    }

    func deleteCounters(_ req: Request, _ ctx: RESTRequestContext, key: String?) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let one = key ?? QueryParameters(req.uri.query).nonEmpty("key")
        try await service.changeChannelMetacounters(url, .delete(one.map { [$0] }), by: caller.userId)
        return try rest.empty()
    }
}
