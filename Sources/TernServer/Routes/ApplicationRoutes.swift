import Foundation
import Hummingbird
import TernProtocol

/// `/v3/applications/…`: the application's settings (Platform API only).
struct ApplicationRoutes: Sendable {
    let rest: RESTSupport
    var service: ChatService { rest.service }

    func register(on router: Router<some RequestContext>) {
        router.get("/v3/applications/settings/webhook") { req, ctx in try await webhook(req, ctx) }
        router.put("/v3/applications/settings/webhook") { req, ctx in try await updateWebhook(req, ctx) }
    }

    struct WebhookAnswer: Encodable {
        let webhook: Body
        struct Body: Encodable {
            let settings: WebhookDispatcher.Settings
            let allCategories: [String]?
            enum CodingKeys: String, CodingKey { case allWebhookCategories = "all_webhook_categories" }
            func encode(to encoder: any Encoder) throws {
                try settings.encode(to: encoder)
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encodeIfPresent(allCategories, forKey: .allWebhookCategories)
            }
        }
    }

    /// The webhook settings; `display_all_webhook_categories=true` adds every category ternd sends.
    func webhook(_ req: Request, _ ctx: some RequestContext) async throws -> Response {
        try await rest.caller(req).requirePlatform()
        let all = try QueryParameters(req.uri.query).bool("display_all_webhook_categories", default: false)
        let s = try await service.webhooks.settings(service.store)
        return try rest.json(WebhookAnswer(webhook: .init(settings: s, allCategories: all ? WebhookDispatcher.categories : nil)))
    }

    /// Changes the webhook settings: `enabled`, `url` (http or https), `include_members`,
    /// `include_unread_count`, `enabled_events` (categories, or `*` for all).
    func updateWebhook(_ req: Request, _ ctx: some RequestContext) async throws -> Response {
        try await rest.caller(req).requirePlatform()
        let b = try await rest.body(req)
        var s = try await service.webhooks.settings(service.store)
        if let enabled = try b.bool("enabled") { s.enabled = enabled }
        if let url = try b.string("url") {
            try TextLimit.fileUrl.check(url)
            if !url.isEmpty {
                guard let u = URL(string: url), let scheme = u.scheme?.lowercased(), ["http", "https"].contains(scheme), u.host != nil else {
                    throw SendbirdError(.invalidValue, "Invalid value: \"url\" must be an http(s) URL.")
                }
            }
            s.url = url
        }
        if let members = try b.bool("include_members") { s.includeMembers = members }
        if let unread = try b.bool("include_unread_count") { s.includeUnreadCount = unread }
        if let events = try b.stringArray("enabled_events") {
            let known = Set(WebhookDispatcher.categories + ["*"])
            if let bad = events.first(where: { !known.contains($0) }) {
                throw SendbirdError(.invalidValue, "Invalid value: \"enabled_events\": unknown category \(bad).")
            }
            s.enabledEvents = events
        }
        if s.enabled && s.url.isEmpty { throw SendbirdError.missing("url") }
        try await service.webhooks.save(s, service.store)
        return try rest.json(WebhookAnswer(webhook: .init(settings: s, allCategories: nil)))
    }
}
