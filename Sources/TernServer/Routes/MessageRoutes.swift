import Foundation
import Hummingbird
import TernProtocol

/// `/v3/group_channels/{url}/messages…`: history, sending through the Platform API, read state.
struct MessageRoutes: Sendable {
    let rest: RESTSupport
    var service: ChatService { rest.service }

    func register(on api: RouterGroup<RESTRequestContext>) {
        api.get("/v3/sdk/group_channels/:channel_url/messages", use: list)
        api.get("/v3/group_channels/:channel_url/messages/unread_count", use: unreadCounts)
        api.put("/v3/group_channels/:channel_url/messages/mark_as_read", use: markRead)
        api.put("/v3/group_channels/:channel_url/messages/mark_as_delivered", use: markDelivered)
        api.get("/v3/sdk/group_channels/:channel_url/messages/:message_id", use: get)
        api.get("/v3/search/messages", use: search)
        api.get("/v3/group_channels/:channel_url/messages_gap", use: gap)
        api.get("/v3/sdk/group_channels/:channel_url/messages_gap", use: gap)
        // Both channel types: a URL of the other type is not found.
        for channel in rest.eachChannelType(on: api) {
            let messages = channel.group("/messages")
            messages.get(use: list)
            messages.post(use: send)
            messages.get("/changelogs", use: changelogs)
            messages.get("/total_count", use: totalCount)
            let message = messages.group("/:message_id")
            message.get(use: get)
            message.put(use: update)
            message.delete(use: delete)
            message.post("/reactions") { req, ctx in try await react(req, ctx, add: true) }
            message.delete("/reactions") { req, ctx in try await react(req, ctx, add: false) }
            message.get("/reactions", use: reactions)
            message.post("/translation", use: translate)
            message.post("/sorted_metaarray", use: addMetaArray)
            message.put("/sorted_metaarray", use: changeMetaArray)
            message.delete("/sorted_metaarray", use: removeMetaKeys)
        }
    }

    /// Message changelogs: what changed (edits, reactions, threads, previews) or went since `change_ts` (ms) or a
    /// `token`, oldest change first, 100 at most per page → `{updated, deleted:[{message_id, deleted_at}], has_more, next}`.
    func changelogs(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        try await service.requireReader(url, caller.userId)
        let q = QueryParameters(req.uri.query)
        let cursor: MessageChangeCursor
        if let token = q.nonEmpty("token") {
            guard let data = Data(base64Encoded: token), let c = try? JSONDecoder().decode(MessageChangeCursor.self, from: data) else {
                throw SendbirdError(.invalidValue, "Invalid value: \"token\".")
            }
            cursor = c
        } else if let ts = try q.int("change_ts") {
            cursor = MessageChangeCursor(ts: ts)
        } else {
            throw SendbirdError.missing("change_ts")
        }
        let replyType = (q.nonEmpty("include_reply_type") ?? "all").lowercased()
        let limit = try q.int("limit", default: 100, range: 1...200)
        let page = try await service.messageChangelog(
            url, after: cursor, limit: limit, viewer: caller.userId, extras: try Self.extras(q), replyType: replyType)
        let next = page.next.flatMap { try? JSONEncoder().encode($0).base64EncodedString() } ?? ""
        return try rest.json(
            MessageChangelog(
                updated: page.updated, deleted: page.deleted.map { .init(messageId: $0.id, deletedAt: $0.at) }, hasMore: page.hasMore,
                next: next))
    }

    /// More missing messages than this on one side of a gap is a huge gap: the client starts over at the newest page.
    static let hugeGap = 300
    /// Messages one side of a gap answers with at most (the client asks again while `…_hasmore`).
    static let gapPage = 100

    /// `messages_gap` (what a client that was away missed, research/sendbird.md §3): the messages between
    /// `prev_start_ts` and `prev_end_ts` (newest `gapPage` of them) and between `next_start_ts` and `next_end_ts`
    /// (oldest `gapPage`), bounds included; `…_cache_count` is how many of them the client already holds. More than
    /// `hugeGap` missing on either side answers `is_huge_gap` with no messages.
    func gap(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        try await service.requireReader(url, caller.userId)
        let q = QueryParameters(req.uri.query)
        let extras = try Self.extras(q)
        let replyType = (q.nonEmpty("include_reply_type") ?? "none").lowercased()
        guard ["none", "all", "only_reply_to_channel"].contains(replyType) else {
            throw SendbirdError(.invalidValue, "Invalid value: \"include_reply_type\" must be none, all or only_reply_to_channel.")
        }
        let customTypes = q.list("custom_types").flatMap { $0 == ["*"] ? nil : $0 }
        func side(_ start: Int64?, _ end: Int64?, cache: Int64?, forward: Bool) async throws -> (messages: [MessagePayload], more: Bool, huge: Bool) {
            guard let start, let end, start <= end else { return ([], false, false) }
            let cached = Int(min(max(cache ?? 0, 0), 1699))
            var query = MessageQuery(
                anchor: .timestamp(forward ? start : end), prevLimit: forward ? 0 : cached + Self.hugeGap + 1,
                nextLimit: forward ? cached + Self.hugeGap + 1 : 0, inclusive: true, reverse: false)
            query.customTypes = customTypes
            query.replyType = replyType
            let found = try await service.listMessages(url, query: query, viewer: caller.userId, extras: extras)
                .filter { $0.createdAt >= start && $0.createdAt <= end }
            if found.count - cached > Self.hugeGap { return ([], false, true) }
            let page = forward ? Array(found.prefix(Self.gapPage)) : Array(found.suffix(Self.gapPage))
            return (page, found.count > Self.gapPage, false)
        }
        let prev = try await side(try q.int("prev_start_ts"), try q.int("prev_end_ts"), cache: try q.int("prev_cache_count"), forward: false)
        let next = try await side(try q.int("next_start_ts"), try q.int("next_end_ts"), cache: try q.int("next_cache_count"), forward: true)
        if prev.huge || next.huge {
            return try rest.json(MessageGap(prevMessages: [], prevHasmore: false, nextMessages: [], nextHasmore: false, isHugeGap: true))
        }
        let reverse = try q.bool("reverse", default: false)
        return try rest.json(
            MessageGap(
                prevMessages: reverse ? prev.messages.reversed() : prev.messages, prevHasmore: prev.more,
                nextMessages: reverse ? next.messages.reversed() : next.messages, nextHasmore: next.more, isHugeGap: false))
    }

    struct MetaArrayAnswer: Encodable {
        let sortedMetaarray: [MetaArrayItem]
        enum CodingKeys: String, CodingKey { case sortedMetaarray = "sorted_metaarray" }
    }

    /// `POST …/sorted_metaarray` adds keys and values (``MetaArrayAddBody``), upserting.
    func addMetaArray(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let items = try await req.decode(as: MetaArrayAddBody.self, context: ctx).items
        return try await changeMetaArray(ctx, MetaArrayChange(items: items, mode: .add, upsert: true))
    }

    /// `PUT …/sorted_metaarray` adds or removes (``MetaArrayChangeBody``).
    func changeMetaArray(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let body = try await req.decode(as: MetaArrayChangeBody.self, context: ctx)
        return try await changeMetaArray(ctx, MetaArrayChange(items: body.items, mode: body.mode, upsert: body.upsert))
    }

    func changeMetaArray(_ ctx: RESTRequestContext, _ change: MetaArrayChange) async throws -> Response {
        let caller = try ctx.caller
        var u = MessageUpdate()
        u.metaarray = change
        let m = try await service.updateMessage(
            channelUrl: try rest.param(ctx, "channel_url"), id: try messageId(ctx), u, by: caller.userId, origin: caller.origin)
        return try rest.json(MetaArrayAnswer(sortedMetaarray: m.sortedMetaarray))
    }

    func removeMetaKeys(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        guard let keys = QueryParameters(req.uri.query).list("keys"), !keys.isEmpty else { throw SendbirdError.missing("keys") }
        var u = MessageUpdate()
        u.metaarray = MetaArrayChange(items: keys.map { MetaArrayItem(key: $0, value: []) }, mode: .remove)
        _ = try await service.updateMessage(
            channelUrl: try rest.param(ctx, "channel_url"), id: try messageId(ctx), u, by: caller.userId, origin: caller.origin)
        return try rest.empty()
    }

    struct Total: Encodable { let total: Int }

    func totalCount(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let channel = try await service.requireChannel(url)
        if let me = caller.userId { _ = try await service.requireMember(channel, me, code: .unauthorizedRequest) }
        return try rest.json(Total(total: try await service.messageCount(url)))
    }

    func search(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let q = QueryParameters(req.uri.query)
        guard let keyword = q.string("query") else { throw SendbirdError.missing("query") }
        var r = MessageSearchRequest(keyword: keyword)
        r.advanced = try q.bool("advanced_query", default: false)
        r.exactMatch = try q.bool("exact_match", default: false)
        r.channelUrl = q.nonEmpty("channel_url")
        r.channelCustomType = q.nonEmpty("custom_type") ?? q.nonEmpty("channel_custom_type")
        if let from = try q.int("message_ts_from"), from > 0 { r.from = from }
        if let to = try q.int("message_ts_to"), to > 0 { r.to = to }
        r.sortField = q.nonEmpty("sort_field") ?? "score"
        r.reverse = try q.bool("reverse", default: false)
        r.limit = try q.int("limit", default: 20, range: 1...100)
        r.after = q.nonEmpty("after")
        // The Platform API may search as a user.
        var viewer = caller.userId
        if viewer == nil, let given = q.nonEmpty("user_id") { viewer = given }
        return try rest.json(try await service.searchMessages(r, viewer: viewer))
    }

    func messageId(_ ctx: RESTRequestContext) throws -> Int64 {
        let raw = try rest.param(ctx, "message_id")
        guard let id = Int64(raw) else { throw SendbirdErrorFactory.wrongType("message_id", "integer") }
        return id
    }

    /// What a list asks to add: `include_thread_info`, `include_parent_message_info`, `include_reactions`.
    static func extras(_ q: QueryParameters) throws -> MessageExtras {
        var e: MessageExtras = []
        if try q.bool("include_thread_info", default: false) { e.insert(.threadInfo) }
        if try q.bool("include_parent_message_info", default: false) { e.insert(.parentInfo) }
        if try q.bool("include_reactions", default: false) || (try q.bool("include_reactions_summary", default: false)) { e.insert(.reactions) }
        return e
    }

    struct Delivered: Encodable { let ts: Int64 }
    struct Counts: Encodable { let unread: [String: Int] }

    func list(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        // Who may read comes before what was asked: a non-member learns nothing from the checks.
        try await service.requireReader(url, caller.userId)
        let q = QueryParameters(req.uri.query)
        let anchor: MessageQuery.Anchor
        // The Python SDK always sends both, with 0 for the one it does not mean.
        let ts = try q.int("message_ts")
        let mid = try q.int("message_id")
        if let ts, ts != 0 || (mid ?? 0) == 0 {
            anchor = .timestamp(ts)
        } else if let id = mid, id != 0 {
            anchor = .messageId(id)
        } else {
            throw SendbirdError(.missingParameter, "\"message_ts\" or \"message_id\" must be required.")
        }
        let prev = try q.int("prev_limit", default: 15, range: 0...200)
        let next = try q.int("next_limit", default: 15, range: 0...200)
        var query = MessageQuery(
            anchor: anchor, prevLimit: prev, nextLimit: next, inclusive: try q.bool("include", default: true),
            reverse: try q.bool("reverse", default: false))
        query.messageType = q.nonEmpty("message_type")
        if let t = query.messageType, !["MESG", "FILE", "ADMM"].contains(t) {
            throw SendbirdError(.invalidValue, "Invalid value: \"message_type\" must be MESG, FILE or ADMM.")
        }
        query.customTypes = q.list("custom_types") ?? q.list("custom_type")
        query.senderIds = q.list("sender_ids") ?? q.list("sender_id")
        let legacyReplies = try q.bool("include_replies", default: false)
        let replyType = (q.nonEmpty("include_reply_type") ?? (legacyReplies ? "all" : "none")).lowercased()
        guard ["none", "all", "only_reply_to_channel"].contains(replyType) else {
            throw SendbirdError(.invalidValue, "Invalid value: \"include_reply_type\" must be none, all or only_reply_to_channel.")
        }
        query.replyType = replyType
        if let parent = try q.int("parent_message_id"), parent != 0 { query.parentMessageId = parent }
        var checking = query
        if try q.bool("checking_has_next", default: false) { checking.nextLimit += 1 }
        var messages = try await service.listMessages(url, query: checking, viewer: caller.userId, extras: try Self.extras(q))
        var hasNext: Bool? = nil
        if checking.nextLimit > query.nextLimit {
            // One extra newer message was asked for only to learn whether more exist.
            let newer = messages.filter { m in
                switch anchor {
                case .timestamp(let ts): return m.createdAt > ts
                case .messageId(let id): return m.messageId > id
                }
            }
            hasNext = newer.count > query.nextLimit
            if hasNext == true, let extra = newer.max(by: { ($0.createdAt, $0.messageId) < ($1.createdAt, $1.messageId) }) {
                messages.removeAll { $0.messageId == extra.messageId }
            }
        }
        return try rest.json(MessageListPage(messages: messages, hasNext: hasNext))
    }

    /// Translates a message into `target_langs` (at most 10) through the configured provider
    /// (`ternd serve --translation-command`); without one, 400111. Readers of the channel only.
    func translate(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        var message = try await service.getMessage(url, id: try messageId(ctx), viewer: caller.userId, extras: [])
        let langs = try await req.decode(as: TranslateBody.self, context: ctx).targetLangs
        if langs.isEmpty { throw SendbirdError.missing("target_langs") }
        if langs.count > 10 { throw SendbirdError(.tooManyItems, "At most 10 target languages.") }
        for l in langs {
            guard !l.isEmpty, l.count <= 16, l.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-" || $0 == "_") }) else {
                throw SendbirdError(.invalidValue, "Invalid value: \"\(l)\" is not a language code.")
            }
        }
        guard let command = service.config.translationCommand, !command.isEmpty else {
            throw SendbirdError(
                .invalidValue, "Translation is not available: no translation provider is configured (ternd serve --translation-command).")
        }
        var out: [String: String] = [:]
        for l in langs { out[l] = try await Translator.translate(message.message, to: l, command: command) }
        message.translations = out
        return try rest.json(message)
    }

    func get(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        return try rest.json(try await service.getMessage(url, id: try messageId(ctx), viewer: caller.userId))
    }

    func update(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let u = try await req.decode(as: MessageUpdateBody.self, context: ctx).update
        return try rest.json(try await service.updateMessage(channelUrl: url, id: try messageId(ctx), u, by: caller.userId, origin: caller.origin))
    }

    func delete(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        try await service.deleteMessage(
            channelUrl: try rest.param(ctx, "channel_url"), id: try messageId(ctx), by: caller.userId, origin: caller.origin)
        return try rest.empty()
    }

    func react(_ req: Request, _ ctx: RESTRequestContext, add: Bool) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let userId: String
        let key: String
        if add {
            let body = try await req.decode(as: ReactionBody.self, for: caller, context: ctx)
            userId = try actingUser(caller, body.userId)
            guard let reaction = body.reaction else { throw SendbirdError.missing("reaction") }
            key = reaction
        } else {
            let q = QueryParameters(req.uri.query)
            if let me = caller.userId {
                if let given = q.nonEmpty("user_id") { try caller.require(actingAs: given) }
                userId = me
            } else {
                guard let given = q.nonEmpty("user_id") else { throw SendbirdError.missing("user_id") }
                userId = given
            }
            guard let r = q.nonEmpty("reaction") else { throw SendbirdError.missing("reaction") }
            key = r
        }
        return try rest.json(
            try await service.react(channelUrl: url, id: try messageId(ctx), key: key, userId: userId, add: add, origin: caller.origin))
    }

    struct ReactionList: Encodable { let reactions: [String: [String]] }

    func reactions(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let m = try await service.getMessage(url, id: try messageId(ctx), viewer: caller.userId, extras: .reactions)
        var out: [String: [String]] = [:]
        for r in m.reactions ?? [] { out[r.key] = r.userIds }
        return try rest.json(ReactionList(reactions: out))
    }

    func send(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        // Read once: a file message reads the body again as its own fields.
        var req = req
        _ = try await req.collectBody(upTo: 1 << 20)
        let b = try await req.decode(as: SendMessageBody.self, for: caller, context: ctx)
        switch b.messageType {
        case "ADMM":
            try caller.requirePlatform()
            guard let message = b.message else { throw SendbirdError.missing("message") }
            let payload = try await service.sendAdminMessage(
                channelUrl: url, message: message, customType: b.fields.customType, data: b.fields.data)
            return try rest.json(payload)
        case "MESG":
            let userId = try actingUser(caller, b.userId)
            guard let message = b.message else { throw SendbirdError.missing("message") }
            var out = OutgoingMessage(channelUrl: url, message: message)
            b.fields.apply(to: &out)
            try await service.requireUser(userId)
            var payload = try await service.sendUserMessage(from: userId, out, connection: nil, origin: caller.origin)
            payload.reqId = nil
            return try rest.json(payload)
        case "FILE":
            return try await sendFile(req, ctx, channelUrl: url)
        default:
            throw SendbirdError(.invalidValue, "Invalid value: \"message_type\" must be MESG, FILE or ADMM.")
        }
    }

    /// A file message by URL (``FileMessageBody``): stored and delivered as the SDK's `FILE`.
    func sendFile(_ req: Request, _ ctx: RESTRequestContext, channelUrl: String) async throws -> Response {
        let caller = try ctx.caller
        let b = try await req.decode(as: FileMessageBody.self, for: caller, context: ctx)
        let userId = try actingUser(caller, b.userId)
        var out = OutgoingFileMessage(channelUrl: channelUrl, files: [b.file])
        b.fields.apply(to: &out)
        try await service.requireUser(userId)
        var payload = try await service.sendFileMessage(from: userId, out, connection: nil, origin: caller.origin)
        payload.reqId = nil
        return try rest.json(payload)
    }

    /// The user a call acts for: the SDK's own user (a `user_id` given must be theirs), or the
    /// Platform API's `user_id`, required.
    func actingUser(_ caller: Caller, _ given: String?) throws -> String {
        if let me = caller.userId {
            if let given { try caller.require(actingAs: given) }
            return me
        }
        guard let given else { throw SendbirdError.missing("user_id") }
        return given
    }

    func markRead(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let userId = try actingUser(caller, try await req.decode(as: ActingUserBody.self, context: ctx).userId)
        _ = try await service.requireChannel(url)
        try await service.markRead(userId: userId, channelUrl: url, connection: nil, reqId: nil, origin: caller.origin)
        return try rest.empty()
    }

    func markDelivered(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let userId = try actingUser(caller, try await req.decode(as: ActingUserBody.self, context: ctx).userId)
        let channel = try await service.requireChannel(url)
        _ = try await service.requireMember(channel, userId, code: .notAMember)
        let ts = service.now()
        _ = service.deliveries.add(channelUrl: url, userId: userId, ts: ts)
        await service.flushDeliveries(url)
        return try rest.json(Delivered(ts: ts))
    }

    func unreadCounts(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let channel = try await service.requireChannel(url)
        if let me = caller.userId { _ = try await service.requireMember(channel, me, code: .unauthorizedRequest) }
        let q = QueryParameters(req.uri.query)
        let wanted = q.list("user_ids").map(Set.init)
        var unread: [String: Int] = [:]
        for m in try await service.members(url) where m.state == "joined" {
            if wanted == nil || wanted!.contains(m.userId) { unread[m.userId] = m.unreadCount }
        }
        return try rest.json(Counts(unread: unread))
    }
}
