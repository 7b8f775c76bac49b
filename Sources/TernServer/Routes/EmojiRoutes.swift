import Foundation
import Hummingbird
import TernProtocol

/// Emoji categories and emojis (`/v3/emoji_categories`, `/v3/emojis`), and the application's
/// reaction switches (`use_default_emoji`, `reactions`). Reading the emojis is open to any user
/// (the SDKs fetch them for their reaction pickers); changing them is for the Platform API.
/// Kept as one settings document, so a change is one atomic write.
struct EmojiRoutes: Sendable {
    let rest: RESTSupport
    var service: ChatService { rest.service }

    func register(on api: RouterGroup<RESTRequestContext>) {
        let categories = api.group("/v3/emoji_categories")
        categories.get(use: listCategories)
        categories.post(use: addCategories)
        categories.get(":emoji_category_id", use: category)
        categories.put(":emoji_category_id", use: updateCategory)
        categories.delete(":emoji_category_id", use: deleteCategory)
        let emojis = api.group("/v3/emojis")
        emojis.get(use: listEmojis)
        emojis.post(use: addEmojis)
        emojis.get(":emoji_key", use: emoji)
        emojis.put(":emoji_key", use: updateEmoji)
        emojis.delete(":emoji_key", use: deleteEmoji)
        api.put("/v3/applications/settings/use_default_emoji", use: useDefault)
        api.put("/v3/applications/settings/reactions", use: enableReactions)
    }

    struct Catalog: Codable, Sendable {
        var nextId = 1
        var categories: [EmojiCategoryPayload] = []
        var useDefaultEmoji = true
        enum CodingKeys: String, CodingKey {
            case nextId = "next_id"
            case categories
            case useDefaultEmoji = "use_default_emoji"
        }
        mutating func takeId() -> Int {
            defer { nextId += 1 }
            return nextId
        }
        /// A hash of the contents: the SDKs refetch the emojis when it changes.
        var hash: String {
            let text = categories.map { c in "\(c.id):\(c.name):\(c.url):" + c.emojis.map { "\($0.id)=\($0.key)=\($0.url)" }.joined(separator: ",") }
                .joined(separator: ";")
            return Credentials.hash(text).prefix(32).description
        }
    }

    func load() async throws -> Catalog {
        guard let json = try await service.setting(scope: "application", key: "emojis") else { return Catalog() }
        return (try? JSONDecoder().decode(Catalog.self, from: Data(json.utf8))) ?? Catalog()
    }

    func save(_ c: Catalog) async throws {
        try await service.setSetting(
            scope: "application", key: "emojis", json: String(decoding: try JSONEncoder().encode(c), as: UTF8.self))
    }

    /// The emojis of a body in the catalog, each with a new id; a key the catalog (or the body)
    /// already has is refused.
    func newEmojis(_ given: [NewEmojiBody], _ catalog: inout Catalog) throws -> [EmojiPayload] {
        var taken = Set(catalog.categories.flatMap { $0.emojis.map(\.key) })
        var out: [EmojiPayload] = []
        for e in given {
            guard taken.insert(e.key).inserted else {
                throw SendbirdError(.alreadyExists, "\"key\" violates a unique constraint: \(e.key) already exists.")
            }
            out.append(EmojiPayload(id: catalog.takeId(), key: e.key, url: e.url))
        }
        return out
    }

    func listCategories(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let c = try await load()
        return try rest.json(EmojiCategoryList(emojiHash: c.hash, emojiCategories: c.categories))
    }

    struct AddedCategories: Encodable {
        let emojiCategories: [EmojiCategoryPayload]
        enum CodingKeys: String, CodingKey { case emojiCategories = "emoji_categories" }
    }

    func addCategories(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        try ctx.caller.requirePlatform()
        let given = try await req.decode(as: NewEmojiCategoriesBody.self, context: ctx).categories
        var catalog = try await load()
        var added: [EmojiCategoryPayload] = []
        for c in given {
            let id = catalog.takeId()
            let category = EmojiCategoryPayload(id: id, name: c.name, url: c.url, emojis: try newEmojis(c.emojis, &catalog))
            catalog.categories.append(category)
            added.append(category)
        }
        try await save(catalog)
        return try rest.json(AddedCategories(emojiCategories: added))
    }

    func categoryIndex(_ ctx: RESTRequestContext, _ catalog: Catalog) throws -> Int {
        let raw = try rest.param(ctx, "emoji_category_id")
        guard let id = Int(raw), let i = catalog.categories.firstIndex(where: { $0.id == id }) else {
            throw SendbirdError(.notFound, "\"Emoji category\" not found: \(raw).")
        }
        return i
    }

    func category(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let catalog = try await load()
        return try rest.json(catalog.categories[try categoryIndex(ctx, catalog)])
    }

    func updateCategory(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        try ctx.caller.requirePlatform()
        var catalog = try await load()
        let i = try categoryIndex(ctx, catalog)
        let b = try await req.decode(as: EmojiCategoryChangesBody.self, context: ctx)
        catalog.categories[i].url = b.url
        if let name = b.name { catalog.categories[i].name = name }
        try await save(catalog)
        return try rest.json(catalog.categories[i])
    }

    func deleteCategory(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        try ctx.caller.requirePlatform()
        var catalog = try await load()
        catalog.categories.remove(at: try categoryIndex(ctx, catalog))
        try await save(catalog)
        return try rest.empty()
    }

    struct EmojiList: Encodable { let emojis: [EmojiPayload] }

    func listEmojis(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        return try rest.json(EmojiList(emojis: try await load().categories.flatMap(\.emojis)))
    }

    /// Adds emojis to a category (`emoji_category_id`).
    func addEmojis(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        try ctx.caller.requirePlatform()
        let b = try await req.decode(as: NewEmojisBody.self, context: ctx)
        let id = b.categoryId
        var catalog = try await load()
        guard let i = catalog.categories.firstIndex(where: { $0.id == Int(id) }) else {
            throw SendbirdError(.notFound, "\"Emoji category\" not found: \(id).")
        }
        let emojis = try newEmojis(b.emojis, &catalog)
        catalog.categories[i].emojis += emojis
        try await save(catalog)
        return try rest.json(EmojiList(emojis: emojis))
    }

    func emojiIndex(_ ctx: RESTRequestContext, _ catalog: Catalog) throws -> (Int, Int) {
        let key = try rest.param(ctx, "emoji_key")
        for (ci, c) in catalog.categories.enumerated() {
            if let ei = c.emojis.firstIndex(where: { Identifier.sameBytes($0.key, key) }) { return (ci, ei) }
        }
        throw SendbirdError(.notFound, "\"Emoji\" not found: \(key).")
    }

    func emoji(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let catalog = try await load()
        let (ci, ei) = try emojiIndex(ctx, catalog)
        return try rest.json(catalog.categories[ci].emojis[ei])
    }

    func updateEmoji(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        try ctx.caller.requirePlatform()
        var catalog = try await load()
        let (ci, ei) = try emojiIndex(ctx, catalog)
        catalog.categories[ci].emojis[ei].url = try await req.decode(as: EmojiChangesBody.self, context: ctx).url
        try await save(catalog)
        return try rest.json(catalog.categories[ci].emojis[ei])
    }

    func deleteEmoji(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        try ctx.caller.requirePlatform()
        var catalog = try await load()
        let (ci, ei) = try emojiIndex(ctx, catalog)
        catalog.categories[ci].emojis.remove(at: ei)
        try await save(catalog)
        return try rest.empty()
    }

    struct UseDefault: Encodable {
        let useDefaultEmoji: Bool
        enum CodingKeys: String, CodingKey { case useDefaultEmoji = "use_default_emoji" }
    }

    func useDefault(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        try ctx.caller.requirePlatform()
        let on = try await req.decode(as: UseDefaultEmojiBody.self, context: ctx).on
        var catalog = try await load()
        catalog.useDefaultEmoji = on
        try await save(catalog)
        return try rest.json(UseDefault(useDefaultEmoji: on))
    }

    struct Reactions: Encodable { let reactions: Bool }

    /// Turns reactions on or off for the application: while off, adding one is refused (400111).
    func enableReactions(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        try ctx.caller.requirePlatform()
        let on = try await req.decode(as: ReactionsSwitchBody.self, context: ctx).enabled
        try await service.setReactionsEnabled(on)
        return try rest.json(Reactions(reactions: on))
    }
}
