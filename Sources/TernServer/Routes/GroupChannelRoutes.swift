import Foundation
import Hummingbird
import TernProtocol

/// `/v3/group_channels…` and `/v3/users/{id}/my_group_channels`: create, read and list channels,
/// membership; and for both channel types, update, delete and freeze.
struct GroupChannelRoutes: Sendable {
    let rest: RESTSupport
    var service: ChatService { rest.service }

    func register(on api: RouterGroup<RESTRequestContext>) {
        api.post("/v3/group_channels", use: create)
        api.get("/v3/group_channels", use: list)
        api.get("/v3/sdk/group_channels/:channel_url", use: get)
        let channel = api.group("/v3/group_channels/:channel_url")
        channel.get(use: get)
        channel.get("/members", use: members)
        channel.post("/invite", use: invite)
        channel.put("/accept", use: accept)
        channel.put("/decline", use: decline)
        channel.put("/join", use: join)
        channel.put("/leave", use: leave)
        channel.put("/hide", use: hide)
        channel.delete("/hide", use: unhide)
        channel.put("/reset_user_history", use: resetHistory)
        let user = api.group("/v3/users/:user_id")
        user.get("/my_group_channels", use: myChannels)
        user.get("/my_group_channels/changelogs", use: changelogs)
        user.get("/channel_invitation_preference", use: invitationPreference)
        user.put("/channel_invitation_preference", use: setInvitationPreference)
        api.get("/v3/sdk/users/:user_id/my_group_channels/changelogs", use: changelogs)
        // What both channel types do, once for each (``RESTSupport/eachChannelType(on:under:)``
        // lists the group channels' routes first).
        for (open, channel) in zip([false, true], rest.eachChannelType(on: api)) {
            channel.put { req, ctx in try await update(req, ctx, open: open) }
            channel.delete { req, ctx in try await delete(req, ctx, open: open) }
            channel.put("/freeze") { req, ctx in try await freeze(req, ctx, open: open) }
        }
    }

    // MARK: Membership and changes

    /// The user a membership call acts for: the SDK's own user (a `user_id` in the body must match it),
    /// or for the Platform API the body's `user_id`.
    func actingUser(_ caller: Caller, _ given: String?) throws -> String {
        switch caller {
        case .user(let me):
            if let given, given != me { throw SendbirdError(.unauthorizedRequest, "Unauthorized request: acting for \(given).") }
            return me
        case .platform:
            guard let given else { throw SendbirdError.missing("user_id") }
            return given
        }
    }

    func presentChannel(_ url: String, viewer: String?) async throws -> Response {
        try rest.json(try await service.present(try await service.requireGroupChannel(url), viewer: viewer))
    }

    func invite(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let body = try await req.decode(as: InviteBody.self, for: caller, context: ctx)
        try await service.invite(channelUrl: url, userIds: body.userIds, inviter: caller.userId ?? body.inviterId)
        return try await presentChannel(url, viewer: caller.userId)
    }

    func accept(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let user = try actingUser(caller, try await req.decode(as: MemberBody.self, context: ctx).userId)
        try await service.acceptInvitation(channelUrl: url, userId: user)
        return try await presentChannel(url, viewer: user)
    }

    func decline(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let user = try actingUser(caller, try await req.decode(as: MemberBody.self, context: ctx).userId)
        try await service.declineInvitation(channelUrl: try rest.param(ctx, "channel_url"), userId: user)
        return try rest.empty()
    }

    func join(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let user = try actingUser(caller, try await req.decode(as: MemberBody.self, context: ctx).userId)
        try await service.join(channelUrl: url, userId: user)
        return try await presentChannel(url, viewer: user)
    }

    func leave(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let body = try await req.decode(as: LeaveBody.self, for: caller, context: ctx)
        if !body.userIds.isEmpty {
            for id in body.userIds { try await service.leave(channelUrl: url, userId: id) }
        } else {
            try await service.leave(channelUrl: url, userId: try actingUser(caller, body.userId))
        }
        return try rest.empty()
    }

    // MARK: Both channel types

    /// `PUT /v3/{group_channels|open_channels}/{url}`: ``ChannelChangesBody``, and an open
    /// channel's operators (``OpenChannelUpdateBody``).
    func update(_ req: Request, _ ctx: RESTRequestContext, open: Bool) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        if open {
            let body = try await req.decode(as: OpenChannelUpdateBody.self, context: ctx)
            let channel = try await service.updateOpenChannel(channelUrl: url, body.changes, operatorIds: body.operatorIds, by: caller.userId)
            return try rest.json(try await service.presentOpen(channel))
        }
        let body = try await req.decode(as: ChannelChangesBody.self, context: ctx)
        try await service.updateChannel(channelUrl: url, body.changes, by: caller.userId)
        return try await presentChannel(url, viewer: caller.userId)
    }

    /// `DELETE /v3/{group_channels|open_channels}/{url}`.
    func delete(_ req: Request, _ ctx: RESTRequestContext, open: Bool) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        if open {
            try await service.deleteOpenChannel(channelUrl: url, by: caller.userId)
        } else {
            try await service.deleteChannel(channelUrl: url, by: caller.userId)
        }
        return try rest.empty()
    }

    /// `PUT /v3/{group_channels|open_channels}/{url}/freeze` (``FreezeBody``).
    func freeze(_ req: Request, _ ctx: RESTRequestContext, open: Bool) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let frozen = try await req.decode(as: FreezeBody.self, context: ctx).freeze
        if open {
            return try rest.json(try await service.presentOpen(try await service.setOpenFrozen(channelUrl: url, frozen: frozen, by: caller.userId)))
        }
        try await service.setFrozen(channelUrl: url, frozen: frozen, by: caller.userId)
        return try await presentChannel(url, viewer: caller.userId)
    }

    // MARK: One member's view

    func hide(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let body = try await req.decode(as: HideBody.self, for: caller, context: ctx)
        let user = try actingUser(caller, body.userId)
        let offset = try await service.hide(
            channelUrl: try rest.param(ctx, "channel_url"), userId: user, hidePreviousMessages: body.hidePreviousMessages,
            allowAutoUnhide: body.allowAutoUnhide)
        return try rest.json(MessageOffsetAnswer(tsMessageOffset: offset))
    }

    func unhide(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let q = QueryParameters(req.uri.query)
        let user: String
        switch caller {
        case .user(let me): user = me
        case .platform:
            guard let id = q.nonEmpty("user_id") else { throw SendbirdError.missing("user_id") }
            user = id
        }
        try await service.unhide(channelUrl: try rest.param(ctx, "channel_url"), userId: user)
        return try rest.empty()
    }

    func resetHistory(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let user = try actingUser(caller, try await req.decode(as: MemberBody.self, context: ctx).userId)
        let offset = try await service.resetHistory(channelUrl: try rest.param(ctx, "channel_url"), userId: user)
        return try rest.json(MessageOffsetAnswer(tsMessageOffset: offset))
    }

    func invitationPreference(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let id = try rest.param(ctx, "user_id")
        try ctx.caller.require(actingAs: id)
        try await service.requireUser(id)
        return try rest.json(InvitationPreferenceAnswer(autoAccept: try await service.invitationAutoAccept(userId: id)))
    }

    func setInvitationPreference(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let id = try rest.param(ctx, "user_id")
        try ctx.caller.require(actingAs: id)
        try await service.requireUser(id)
        let auto = try await req.decode(as: InvitationPreferenceBody.self, context: ctx).autoAccept
        try await service.setInvitationAutoAccept(userId: id, auto)
        return try rest.json(InvitationPreferenceAnswer(autoAccept: auto))
    }

    func create(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        var r = try await req.decode(as: GroupChannelCreateBody.self, for: caller, context: ctx).request
        if case .user(let me) = caller {
            r.creator = me
            r.honoursAutoAccept = true
        }
        let (channel, created) = try await service.createGroupChannel(r)
        var payload = try await service.present(channel, viewer: caller.userId)
        payload.isCreated = created
        return try rest.json(payload)
    }

    func get(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let channel = try await service.requireGroupChannel(try rest.param(ctx, "channel_url"))
        if let me = caller.userId, !channel.isPublic {
            guard try await service.member(channel.channelUrl, userId: me) != nil else {
                throw SendbirdError(.unauthorizedRequest, "Unauthorized request: not a member of \(channel.channelUrl).")
            }
        }
        return try rest.json(try await service.present(channel, viewer: caller.userId))
    }

    func listQuery(_ q: QueryParameters, memberId: String?) throws -> ChannelListQuery {
        var query = ChannelListQuery(memberId: memberId)
        query.limit = try q.int("limit", default: 10, range: 1...100)
        query.after = try Self.cursor(q.string("token"))
        query.snapshot = service.now()
        query.order = q.nonEmpty("order") ?? (memberId == nil ? "chronological" : "latest_last_message")
        let orders = ["latest_last_message", "chronological", "channel_name_alphabetical", "metadata_value_alphabetical"]
        guard orders.contains(query.order) else {
            throw SendbirdError(.invalidValue, "Invalid value: \"order\" (\(orders.joined(separator: ", "))).")
        }
        query.metadataOrderKey = q.nonEmpty("metadata_order_key")
        if query.order == "metadata_value_alphabetical" && query.metadataOrderKey == nil { throw SendbirdError.missing("metadata_order_key") }
        query.showEmpty = try q.bool("show_empty", default: memberId == nil)
        query.showFrozen = try q.bool("show_frozen", default: true)
        query.channelUrls = q.list("channel_urls")
        query.customTypes = q.list("custom_types")
        query.customTypeStartsWith = q.nonEmpty("custom_type_startswith")
        query.nameContains = q.nonEmpty("name_contains")
        query.memberStateFilter = q.nonEmpty("member_state_filter") ?? "all"
        query.membersExactlyIn = q.list("members_exactly_in")
        query.membersIncludeIn = q.list("members_include_in")
        query.queryType = (q.nonEmpty("query_type") ?? "AND").uppercased()
        query.membersNicknameContains = q.nonEmpty("members_nickname_contains") ?? q.nonEmpty("members_nickname")
        if let search = q.nonEmpty("search_query") {
            let fields = q.list("search_fields") ?? ["channel_name"]
            if fields.contains("member_nickname") { query.membersNicknameContains = search } else { query.nameContains = search }
        }
        query.hiddenMode = q.nonEmpty("hidden_mode") ?? "unhidden_only"
        query.publicMode = q.nonEmpty("public_mode") ?? "all"
        query.superMode = q.nonEmpty("super_mode") ?? "all"
        query.distinctMode = q.nonEmpty("distinct_mode") ?? "all"
        query.unreadFilter = q.nonEmpty("unread_filter") ?? "all"
        query.metadataKey = q.nonEmpty("metadata_key")
        query.metadataValues = q.list("metadata_values")
        query.metadataValueStartsWith = q.nonEmpty("metadata_value_startswith")
        query.createdAfter = try q.int("created_after")
        query.createdBefore = try q.int("created_before")
        query.publicMembershipMode = q.nonEmpty("public_membership_mode") ?? "all"
        return query
    }

    /// Page tokens carry the listing's (or the changelog's) cursor, opaque to clients: base64 of its JSON,
    /// keys sorted, so one place always gets one token.
    static func token(_ c: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(c)).map { $0.base64EncodedString() } ?? ""
    }

    static func cursor(_ token: String?) throws -> ChannelCursor? {
        guard let token, !token.isEmpty else { return nil }
        guard let data = Data(base64Encoded: token), let c = try? JSONDecoder().decode(ChannelCursor.self, from: data) else {
            throw SendbirdError(.invalidValue, "Invalid value: \"token\".")
        }
        return c
    }

    func page(_ query: ChannelListQuery, viewer: String?) async throws -> Response {
        var q = query
        q.limit += 1
        let rows = try await service.listChannels(q)
        let page = Array(rows.prefix(query.limit))
        let next = rows.count > query.limit ? page.last.map { Self.token($0.cursor) } ?? "" : ""
        let channels = try await service.present(page.map(\.channel), viewer: viewer)
        return try rest.json(GroupChannelPage(channels: channels, next: next, ts: service.now()))
    }

    func list(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let q = QueryParameters(req.uri.query)
        var query = try listQuery(q, memberId: nil)
        if let me = caller.userId {
            // SDK users see the public channel list only.
            query.showEmpty = try q.bool("show_empty", default: true)
            query.publicMode = "public"
            query.publicMember = me
        }
        return try await page(query, viewer: caller.userId)
    }

    func myChannels(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let id = try rest.param(ctx, "user_id")
        try ctx.caller.require(actingAs: id)
        try await service.requireUser(id)
        let q = QueryParameters(req.uri.query)
        return try await page(try listQuery(q, memberId: id), viewer: id)
    }

    /// `my_group_channels/changelogs`: the user's channels changed (or lost) since `change_ts` (ms) or a
    /// `token` from an earlier answer, oldest change first, `limit` (100) a page → `{updated, deleted:[url],
    /// has_more, next, ts}`; `custom_types`, `show_empty` (false), `show_frozen` (true) filter what is
    /// shown as updated.
    func changelogs(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let id = try rest.param(ctx, "user_id")
        try ctx.caller.require(actingAs: id)
        try await service.requireUser(id)
        let q = QueryParameters(req.uri.query)
        let cursor: ChannelChangeCursor
        if let token = q.nonEmpty("token") {
            guard let data = Data(base64Encoded: token), let c = try? JSONDecoder().decode(ChannelChangeCursor.self, from: data) else {
                throw SendbirdError(.invalidValue, "Invalid value: \"token\".")
            }
            cursor = c
        } else if let ts = try q.int("change_ts") {
            guard ts >= 0 else { throw SendbirdError(.invalidValue, "Invalid value: \"change_ts\" (a time in ms).") }
            cursor = ChannelChangeCursor(ts: ts)
        } else {
            throw SendbirdError.missing("change_ts")
        }
        let page = try await service.channelChangelog(
            userId: id, after: cursor, limit: try q.int("limit", default: 100, range: 1...100), customTypes: q.list("custom_types"),
            showEmpty: try q.bool("show_empty", default: false), showFrozen: try q.bool("show_frozen", default: true))
        let next = Self.token(page.next)
        return try rest.json(
            GroupChannelChangelog(updated: page.updated, deleted: page.deleted, hasMore: page.hasMore, next: next, ts: service.now()))
    }

    /// The member list query's filters and orders (seed 000): `operator_filter` all / operator / nonoperator,
    /// `member_state_filter`, `muted_member_filter`, `nickname_startswith`; `order` member_nickname_alphabetical
    /// (the default) or operator_then_member_alphabetical.
    static func memberQuery(_ members: [MemberPayload], _ q: QueryParameters) throws -> [MemberPayload] {
        var list = members
        switch q.nonEmpty("operator_filter") ?? "all" {
        case "all": break
        case "operator": list = list.filter { $0.role == "operator" }
        case "nonoperator": list = list.filter { $0.role != "operator" }
        default: throw SendbirdError(.invalidValue, "Invalid value: \"operator_filter\" (all, operator or nonoperator).")
        }
        switch q.nonEmpty("member_state_filter") ?? "all" {
        case "joined_only": list = list.filter { $0.state == "joined" }
        case "invited_only", "invited_by_friend", "invited_by_non_friend": list = list.filter { $0.state == "invited" }
        default: break
        }
        switch q.nonEmpty("muted_member_filter") ?? "all" {
        case "muted": list = list.filter(\.isMuted)
        case "unmuted": list = list.filter { !$0.isMuted }
        default: break
        }
        if let prefix = q.nonEmpty("nickname_startswith") { list = list.filter { $0.nickname.hasPrefix(prefix) } }
        let byName: (MemberPayload, MemberPayload) -> Bool = { a, b in
            let (x, y) = (a.nickname.lowercased(), b.nickname.lowercased())
            return x != y ? x < y : a.userId < b.userId
        }
        switch q.nonEmpty("order") ?? "member_nickname_alphabetical" {
        case "operator_then_member_alphabetical":
            list.sort { a, b in
                let (oa, ob) = (a.role == "operator", b.role == "operator")
                return oa != ob ? oa : byName(a, b)
            }
        case "member_nickname_alphabetical": list.sort(by: byName)
        default: throw SendbirdError(.invalidValue, "Invalid value: \"order\" (member_nickname_alphabetical or operator_then_member_alphabetical).")
        }
        return list
    }

    func members(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let channel = try await service.requireGroupChannel(try rest.param(ctx, "channel_url"))
        try await service.requireViewer(channel, caller.userId)
        let q = QueryParameters(req.uri.query)
        let limit = try q.int("limit", default: 10, range: 1...100)
        let offset = Int(try RESTSupport.decodeToken(q.string("token")) ?? "0") ?? 0
        let presented = try await service.present(channel, viewer: caller.userId)
        let all = try Self.memberQuery(presented.members, q)
        let slice = Array(all.dropFirst(offset).prefix(limit))
        let next = offset + limit < all.count ? RESTSupport.encodeToken(String(offset + limit)) : ""
        return try rest.json(MemberPage(members: slice, next: next))
    }
}
