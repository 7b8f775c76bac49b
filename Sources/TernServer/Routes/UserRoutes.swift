import Foundation
import Hummingbird
import TernProtocol

/// `/v3/users…`: create, read, list, update, delete users; access tokens; per-user counters.
struct UserRoutes: Sendable {
    let rest: RESTSupport
    var service: ChatService { rest.service }

    func register(on api: RouterGroup<RESTRequestContext>) {
        let users = api.group("/v3/users")
        users.post(use: create)
        users.get(use: list)
        users.get(":user_id", use: get)
        users.put(":user_id", use: update)
        users.delete(":user_id", use: delete)
        users.post(":user_id/token", use: issueToken)
        users.get(":user_id/unread_message_count", use: unreadMessages)
        users.get(":user_id/unread_channel_count", use: unreadChannels)
        users.put(":user_id/mark_as_read_all", use: markAllRead)
        users.get(":user_id/unread_item_count", use: unreadItems)
        users.post(":user_id/block", use: block)
        users.get(":user_id/block", use: blockedList)
        users.delete(":user_id/block/:target_id", use: unblock)
        users.get(":user_id/count_preference/:channel_url", use: countPreference)
        users.put(":user_id/count_preference/:channel_url", use: setCountPreference)
        users.post(":user_id/metadata") { req, ctx in try await changeMetadata(req, ctx, .create) }
        users.get(":user_id/metadata", use: getMetadata)
        users.get(":user_id/metadata/:key", use: getMetadata)
        users.put(":user_id/metadata") { req, ctx in try await changeMetadata(req, ctx, .update) }
        users.put(":user_id/metadata/:key") { req, ctx in try await changeMetadata(req, ctx, .update) }
        users.delete(":user_id/metadata") { req, ctx in try await changeMetadata(req, ctx, .delete) }
        users.delete(":user_id/metadata/:key") { req, ctx in try await changeMetadata(req, ctx, .delete) }
    }

    enum MetadataOperation { case create, update, delete }

    /// `GET …/metadata` (all keys, or `?keys=a,b`) and `GET …/metadata/{key}`: `{key: value}`.
    func getMetadata(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        _ = try ctx.caller
        let u = try await service.requireUser(try rest.param(ctx, "user_id"))
        if let key = try rest.optionalParam(ctx, "key", decode: QueryParameters.decode) {
            guard let v = u.metadata[key] else { throw SendbirdError(.notFound, "\"Metadata\" not found: \(key).") }
            return try rest.json([key: v])
        }
        if let keys = QueryParameters(req.uri.query).list("keys"), !keys.isEmpty {
            return try rest.json(u.metadata.filter { keys.contains($0.key) })
        }
        return try rest.json(u.metadata)
    }

    /// User metadata (BRIEF F1): create (400202 on an existing key), update (400201 on a missing one unless
    /// `upsert`), delete one key or all. Answers the changed keys (`{}` for deletes).
    func changeMetadata(_ req: Request, _ ctx: RESTRequestContext, _ op: MetadataOperation) async throws -> Response {
        let caller = try ctx.caller
        let id = try rest.param(ctx, "user_id")
        try caller.require(actingAs: id)
        let key = try rest.optionalParam(ctx, "key", decode: QueryParameters.decode)
        // What the body gives (a delete reads none); checked against the user in the queue.
        let given: [String: String]
        let upsert: Bool
        switch (op, key) {
        case (.create, _): (given, upsert) = (try await req.decode(as: NewUserMetadataBody.self, context: ctx).metadata, false)
        case (.update, let key?):
            let b = try await req.decode(as: MetadataValueBody.self, context: ctx)
            (given, upsert) = ([key: b.value], b.upsert)
        case (.update, nil):
            let b = try await req.decode(as: UserMetadataChangesBody.self, context: ctx)
            (given, upsert) = (b.metadata, b.upsert)
        case (.delete, _): (given, upsert) = ([:], false)
        }
        return try await service.sendQueue.run("user-metadata:" + id) {
            var u = try await service.requireUser(id)
            var changed: [String: String] = [:]
            switch op {
            case .create:
                try Self.checkMetadata(given)
                if let k = given.keys.first(where: { u.metadata[$0] != nil }) {
                    throw SendbirdError(.alreadyExists, "\"Metadata\" already exists: \(k).")
                }
                u.metadata.merge(given) { _, new in new }
                changed = given
            case .update:
                try Self.checkMetadata(given)
                if !upsert, let k = given.keys.first(where: { u.metadata[$0] == nil }) {
                    throw SendbirdError(.notFound, "\"Metadata\" not found: \(k).")
                }
                u.metadata.merge(given) { _, new in new }
                changed = given
            case .delete:
                if let key {
                    guard u.metadata.removeValue(forKey: key) != nil else { throw SendbirdError(.notFound, "\"Metadata\" not found: \(key).") }
                } else {
                    u.metadata = [:]
                }
            }
            if u.metadata.count > 100 { throw SendbirdError(.tooManyItems, "A user keeps at most 100 metadata keys.") }
            try await service.updateUser(u)
            return try rest.json(changed)
        }
    }

    func create(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        try ctx.caller.requirePlatform()
        let b = try await req.decode(as: NewUserBody.self, context: ctx)
        let user = try await service.createUser(
            UserRecord(
                userId: b.userId, nickname: b.nickname, profileUrl: b.profileUrl, metadata: b.metadata, createdAt: service.now() / 1000,
                lastSeenAt: 0, hasEverLoggedIn: false, isActive: true))
        let token = b.issueAccessToken ? try await service.issueAccessToken(userId: b.userId) : ""
        return try rest.json(Presenter.user(user, online: false, accessToken: token))
    }

    /// A list query's `user_ids` holds at most 250 ids; more is refused with HTTP 414, as Sendbird does.
    static func tooManyUserIds(_ ids: [String]?) -> Response? {
        guard let ids, ids.count > 250 else { return nil }
        return SendbirdErrorMiddleware<BasicRequestContext>.response(.tooManyItems, "Too many user ids (at most 250).", status: .uriTooLong)
    }

    static func checkMetadata(_ m: [String: String]) throws {
        if m.count > 5 { throw SendbirdError(.tooManyItems, "At most 5 metadata items per call.") }
        for (k, v) in m {
            try TextLimit.metadataKey.check(k)
            try Identifier.check(k, field: "metadata key")
            try TextLimit.metadataValue.check(v)
        }
    }

    func list(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        _ = try ctx.caller
        let q = QueryParameters(req.uri.query)
        let limit = try q.int("limit", default: 10, range: 1...100)
        let after = try RESTSupport.decodeToken(q.string("token"))
        let ids = q.list("user_ids")
        if let refusal = Self.tooManyUserIds(ids) { return refusal }
        var query = UserListQuery()
        query.afterUserId = after
        query.limit = limit + 1
        query.userIds = ids
        query.nicknameStartsWith = q.nonEmpty("nickname_startswith")
        query.nickname = q.nonEmpty("nickname")
        query.metadataKey = q.nonEmpty("metadatakey")
        query.metadataValues = q.list("metadatavalues_in")
        if query.metadataValues != nil && query.metadataKey == nil { throw SendbirdError.missing("metadatakey") }
        if let mode = q.nonEmpty("active_mode") {
            guard ["activated", "deactivated", "all"].contains(mode) else {
                throw SendbirdError(.invalidValue, "Invalid value: \"active_mode\" (activated, deactivated or all).")
            }
            query.activeMode = mode
        }
        let users = try await service.listUsers(query)
        let page = Array(users.prefix(limit))
        let next = users.count > limit ? RESTSupport.encodeToken(page.last!.userId) : ""
        return try rest.json(UserListPage(users: page.map { Presenter.user($0, online: service.isOnline($0.userId), accessToken: "") }, next: next))
    }

    func get(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        _ = try ctx.caller
        let u = try await service.requireUser(try rest.param(ctx, "user_id"))
        return try rest.json(Presenter.user(u, online: service.isOnline(u.userId), accessToken: ""))
    }

    func update(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let id = try rest.param(ctx, "user_id")
        try caller.require(actingAs: id)
        var u = try await service.requireUser(id)
        let b = try await req.decode(as: UserChangesBody.self, context: ctx)
        if let n = b.nickname { u.nickname = n }
        if let p = b.profileUrl { u.profileUrl = p }
        if let m = b.metadata { u.metadata = m }
        if let active = b.isActive {
            try caller.requirePlatform()
            u.isActive = active
        }
        let reissue = b.issueAccessToken
        if reissue { try caller.requirePlatform() }
        // A deactivated user is signed out everywhere at once (``ChatService/updateUser(_:)``).
        try await service.updateUser(u)
        let token = reissue ? try await service.replaceAccessTokens(userId: id) : ""
        return try rest.json(Presenter.user(u, online: service.isOnline(id), accessToken: token))
    }

    func delete(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        try ctx.caller.requirePlatform()
        let id = try rest.param(ctx, "user_id")
        guard try await service.deleteUser(id) else { throw SendbirdError(.notFound, "\"User\" not found: \(id).") }
        return try rest.empty()
    }

    func issueToken(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        try ctx.caller.requirePlatform()
        let id = try rest.param(ctx, "user_id")
        _ = try await service.requireUser(id)
        let expiresAt = try await req.decode(as: AccessTokenBody.self, context: ctx).expiresAt
        if expiresAt != 0 && expiresAt <= service.now() {
            throw SendbirdError(.invalidValue, "Invalid value: \"expires_at\" must be in the future (ms).")
        }
        let token = try await service.issueAccessToken(userId: id, expiresAt: expiresAt)
        return try rest.json(Issued(token: token, expiresAt: expiresAt, userId: id))
    }

    struct Issued: Encodable {
        let token: String, expiresAt: Int64, userId: String
        enum CodingKeys: String, CodingKey {
            case token
            case expiresAt = "expires_at"
            case userId = "user_id"
        }
    }

    func unreadMessages(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        try await unreadCount(req, ctx) { service, id, types, mode in
            try await service.unreadMessageTotal(userId: id, customTypes: types, superMode: mode)
        }
    }

    func unreadChannels(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        try await unreadCount(req, ctx) { service, id, types, mode in
            try await service.unreadChannelCount(userId: id, customTypes: types, superMode: mode)
        }
    }

    /// `{unread_count}` for the user in the path, optionally only channels of some custom types and
    /// `super_mode` (`all`, `super`, `nonsuper`).
    func unreadCount(
        _ req: Request, _ ctx: RESTRequestContext, _ count: (ChatService, String, [String]?, String?) async throws -> Int
    ) async throws -> Response {
        let id = try rest.param(ctx, "user_id")
        try ctx.caller.require(actingAs: id)
        _ = try await service.requireUser(id)
        let q = QueryParameters(req.uri.query)
        let mode = q.string("super_mode")
        if let mode, !["all", "super", "nonsuper"].contains(mode) {
            throw SendbirdError(.invalidValue, "Invalid value: \"super_mode\" must be all, super or nonsuper.")
        }
        let n = try await count(service, id, q.list("custom_types"), mode)
        return try rest.json(UnreadCountAnswer(unreadCount: n))
    }

    /// `unread_item_count`: the asked `item_keys` (all of them when none are named).
    func unreadItems(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let id = try rest.param(ctx, "user_id")
        try ctx.caller.require(actingAs: id)
        _ = try await service.requireUser(id)
        let q = QueryParameters(req.uri.query)
        let i = try await service.unreadItems(userId: id, customTypes: q.list("custom_types"))
        let all: [String: Int] = [
            "group_channel_unread_message_count": i.nonSuperMessages + i.superMessages,
            "non_super_group_channel_unread_message_count": i.nonSuperMessages,
            "super_group_channel_unread_message_count": i.superMessages,
            "group_channel_unread_mention_count": i.nonSuperMentions + i.superMentions,
            "non_super_group_channel_unread_mention_count": i.nonSuperMentions,
            "super_group_channel_unread_mention_count": i.superMentions,
            "group_channel_invitation_count": i.nonSuperInvitations + i.superInvitations,
            "non_super_group_channel_invitation_count": i.nonSuperInvitations,
            "super_group_channel_invitation_count": i.superInvitations,
        ]
        let keys = q.list("item_keys") ?? Array(all.keys)
        var out: [String: Int] = [:]
        for k in keys {
            guard let v = all[k] else { throw SendbirdError(.invalidValue, "Invalid value: \"item_keys\" has an unknown key \(k).") }
            out[k] = v
        }
        return try rest.json(out)
    }

    // MARK: Blocking

    struct BlockedUser: Encodable {
        let user: UserPayload
        func encode(to encoder: any Encoder) throws {
            try user.encode(to: encoder)
            var c = encoder.container(keyedBy: Key.self)
            try c.encode([user], forKey: .users)
        }
        enum Key: String, CodingKey { case users }
    }

    func block(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let id = try rest.param(ctx, "user_id")
        try ctx.caller.require(actingAs: id)
        let body = try await req.decode(as: BlockBody.self, context: ctx)
        if let many = body.userIds {
            let users = try await service.block(id, targets: many)
            return try rest.json(UserListPage(users: users.map { present($0) }, next: ""))
        }
        let users = try await service.block(id, targets: [body.targetId])
        // The Chat SDKs read the blocked user; the Platform API's clients read `users`: both are there.
        return try rest.json(BlockedUser(user: present(users[0])))
    }

    func unblock(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let id = try rest.param(ctx, "user_id")
        try ctx.caller.require(actingAs: id)
        try await service.unblock(id, target: try rest.param(ctx, "target_id"))
        return try rest.empty()
    }

    func blockedList(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let id = try rest.param(ctx, "user_id")
        try ctx.caller.require(actingAs: id)
        _ = try await service.requireUser(id)
        let q = QueryParameters(req.uri.query)
        let limit = try q.int("limit", default: 10, range: 1...100)
        let after = try RESTSupport.decodeToken(q.string("token"))
        let ids = q.list("user_ids")
        if let refusal = Self.tooManyUserIds(ids) { return refusal }
        let direction = q.string("list") ?? "blocked_by_me"
        guard direction == "blocked_by_me" || direction == "blocking_me" else {
            throw SendbirdError(.invalidValue, "Invalid value: \"list\" must be blocked_by_me or blocking_me.")
        }
        let users = try await service.blockedUsers(
            id, blockingMe: direction == "blocking_me", afterUserId: after, limit: limit + 1, userIds: ids)
        let page = Array(users.prefix(limit))
        let next = users.count > limit ? RESTSupport.encodeToken(page.last!.userId) : ""
        return try rest.json(UserListPage(users: page.map { present($0) }, next: next))
    }

    func present(_ u: UserRecord) -> UserPayload {
        Presenter.user(u, online: service.isOnline(u.userId), accessToken: "")
    }

    // MARK: Count preference

    func countPreference(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let id = try rest.param(ctx, "user_id")
        try ctx.caller.require(actingAs: id)
        let value = try await service.countPreference(channelUrl: try rest.param(ctx, "channel_url"), userId: id)
        return try rest.json(CountPreferenceAnswer(countPreference: CountPreference.spelled(value)))
    }

    func setCountPreference(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let id = try rest.param(ctx, "user_id")
        try ctx.caller.require(actingAs: id)
        let raw = try await req.decode(as: CountPreferenceChangeBody.self, context: ctx).countPreference
        let value = try await service.setCountPreference(channelUrl: try rest.param(ctx, "channel_url"), userId: id, raw)
        return try rest.json(CountPreferenceAnswer(countPreference: CountPreference.spelled(value)))
    }

    func markAllRead(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let id = try rest.param(ctx, "user_id")
        try ctx.caller.require(actingAs: id)
        _ = try await service.requireUser(id)
        let channelUrls = try await req.decode(as: MarkAllReadBody.self, context: ctx).channelUrls
        try await service.markAllRead(userId: id, channelUrls: channelUrls)
        return try rest.empty()
    }
}
