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

    struct MetadataAnswer: Encodable {
        let channelUrl: String
        let metadata: [String: String]
        let ts: Int64
        enum CodingKeys: String, CodingKey {
            case channelUrl = "channel_url"
            case metadata, ts
        }
    }

    struct TimeAnswer: Encodable { let ts: Int64 }

    func answer(_ url: String, _ metadata: [String: String]) throws -> Response {
        try rest.json(MetadataAnswer(channelUrl: url, metadata: metadata, ts: service.now()))
    }

    func createMetadata(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        guard let items = try await rest.body(req).stringMap("metadata") else { throw SendbirdError.missing("metadata") }
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
        return try answer(url, try await service.channelMetadata(url, keys: keys.isEmpty ? nil : keys, by: caller.userId))
    }

    func updateMetadata(_ req: Request, _ ctx: RESTRequestContext, key: String?) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let b = try await rest.body(req)
        let upsert = try b.bool("upsert") ?? false
        if let key {
            guard let value = try b.string("value") else { throw SendbirdError.missing("value") }
            try await service.changeChannelMetadata(url, .update([key: value], upsert: upsert), by: caller.userId)
            return try rest.json([key: value])
        }
        guard let items = try b.stringMap("metadata") else { throw SendbirdError.missing("metadata") }
        try await service.changeChannelMetadata(url, .update(items, upsert: upsert), by: caller.userId)
        return try answer(url, items)
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
        guard let items = try await rest.body(req).intMap("metacounter") else { throw SendbirdError.missing("metacounter") }
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
        let b = try await rest.body(req)
        let mode = try b.string("mode") ?? "set"
        let upsert = try b.bool("upsert") ?? false
        let items: [String: Int64]
        if let key {
            guard let v = try b.int("value") else { throw SendbirdError.missing("value") }
            items = [key: v]
        } else {
            guard let m = try b.intMap("metacounter") else { throw SendbirdError.missing("metacounter") }
            items = m
        }
        let r = try await service.changeChannelMetacounters(url, .update(items, mode: mode, upsert: upsert), by: caller.userId)
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
