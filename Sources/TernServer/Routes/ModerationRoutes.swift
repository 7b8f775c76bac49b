import Foundation
import Hummingbird
import TernProtocol

/// `/v3/{group_channels|open_channels}/{url}/{operators,ban,mute}` and `/v3/report…`.
struct ModerationRoutes: Sendable {
    let rest: RESTSupport
    var service: ChatService { rest.service }

    func register(on api: RouterGroup<RESTRequestContext>) {
        for channel in rest.eachChannelType(on: api) {
            channel.post("/operators", use: addOperators)
            channel.get("/operators", use: operators)
            channel.delete("/operators", use: removeOperators)
            channel.post("/ban") { req, ctx in try await restrict(req, ctx, .ban) }
            channel.get("/ban") { req, ctx in try await list(req, ctx, .ban) }
            channel.get("/ban/:user_id") { req, ctx in try await one(req, ctx, .ban) }
            channel.put("/ban/:user_id") { req, ctx in try await restrict(req, ctx, .ban) }
            channel.delete("/ban/:user_id") { req, ctx in try await lift(req, ctx, .ban) }
            channel.post("/mute") { req, ctx in try await restrict(req, ctx, .mute) }
            channel.get("/mute") { req, ctx in try await list(req, ctx, .mute) }
            channel.get("/mute/:user_id") { req, ctx in try await one(req, ctx, .mute) }
            channel.delete("/mute/:user_id") { req, ctx in try await lift(req, ctx, .mute) }
        }
        for channel in rest.eachChannelType(on: api, under: "/v3/report") {
            channel.post { req, ctx in try await report(req, ctx, message: false) }
            channel.post("/messages/:message_id") { req, ctx in try await report(req, ctx, message: true) }
            channel.get { req, ctx in try await reports(req, ctx, .channel) }
            channel.get("/messages/:message_id") { req, ctx in try await reports(req, ctx, .message) }
            channel.get("/profanity_messages/:message_id", use: moderatedMessage)
        }
        api.post("/v3/report/users/:user_id", use: reportUser)
        api.get("/v3/report/users/:user_id") { req, ctx in try await reports(req, ctx, .user) }
        api.get("/v3/report") { req, ctx in try await reports(req, ctx, .all) }
    }

    // MARK: Operators

    struct OperatorPage: Encodable {
        let operators: [UserPayload]
        let next: String
    }

    func addOperators(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let ids = try await req.decode(as: AddOperatorsBody.self, context: ctx).ids
        try await service.addOperators(channelUrl: url, userIds: ids, by: caller.userId)
        return try rest.empty()
    }

    func removeOperators(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let q = QueryParameters(req.uri.query)
        let all = try q.bool("delete_all", default: false)
        var ids = q.list("operator_ids") ?? []
        if ids.isEmpty {
            // A body that cannot be read is no body; one of the wrong shape is still refused.
            do {
                ids = try await req.decode(as: RemoveOperatorsBody.self, context: ctx).ids
            } catch let e as SendbirdError where e.code != .invalidJSON {
                throw e
            } catch {}
        }
        try await service.removeOperators(channelUrl: url, userIds: ids, all: all, by: caller.userId)
        return try rest.empty()
    }

    func operators(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        // A private channel's operators are for its members (and those invited) to see.
        try await service.requireViewer(try await service.requireChannel(try rest.param(ctx, "channel_url")), caller.userId)
        let q = QueryParameters(req.uri.query)
        let page = try await service.operators(
            channelUrl: try rest.param(ctx, "channel_url"), after: try RESTSupport.decodeToken(q.string("token")),
            limit: try q.int("limit", default: 10, range: 1...100))
        return try rest.json(OperatorPage(operators: page.users, next: page.next))
    }

    // MARK: Bans and mutes

    /// `POST …/ban {user_id, seconds, description}` (also `banned_list`/`user_ids` for several); `PUT …/ban/{id}` changes one.
    func restrict(_ req: Request, _ ctx: RESTRequestContext, _ kind: RestrictionRecord.Kind) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let ids: [String]
        let terms: RestrictionTermsBody
        if let id = try rest.optionalParam(ctx, "user_id", decode: QueryParameters.decode) {
            ids = [id]
            terms = try await req.decode(as: RestrictionTermsBody.self, context: ctx)
        } else {
            let body = try await req.decode(as: RestrictBody.self, context: ctx)
            (ids, terms) = (body.userIds, body.terms)
        }
        let (seconds, description) = (terms.seconds, terms.description)
        var results: [RestrictionRecord] = []
        for id in ids {
            results.append(
                kind == .ban
                    ? try await service.ban(channelUrl: url, userId: id, seconds: seconds, description: description, by: caller.userId)
                    : try await service.mute(channelUrl: url, userId: id, seconds: seconds, description: description, by: caller.userId))
        }
        if kind == .mute {
            // The Platform API answers a mute with the channel.
            let channel = try await service.requireChannel(url)
            if channel.isOpen { return try rest.json(try await service.presentOpen(channel)) }
            return try rest.json(try await service.present(channel, viewer: caller.userId))
        }
        let users = try await service.presentUsers(results.map(\.userId))
        let answers = zip(results, users).map {
            RestrictedUser(
                RestrictionPayload(user: $1, description: $0.description, startAt: $0.startAt, endAt: $0.endAt), isBan: kind == .ban,
                now: service.now())
        }
        if answers.count == 1 { return try rest.json(answers[0]) }
        return try rest.json(ManyRestrictions(items: answers))
    }

    func lift(_ req: Request, _ ctx: RESTRequestContext, _ kind: RestrictionRecord.Kind) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let user = try rest.param(ctx, "user_id")
        if kind == .ban {
            try await service.unban(channelUrl: url, userId: user, by: caller.userId)
        } else {
            try await service.unmute(channelUrl: url, userId: user, by: caller.userId)
        }
        return try rest.empty()
    }

    func list(_ req: Request, _ ctx: RESTRequestContext, _ kind: RestrictionRecord.Kind) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let q = QueryParameters(req.uri.query)
        let limit = try q.int("limit", default: 10, range: 1...100)
        let page = try await service.restrictions(
            channelUrl: url, kind: kind, after: try RESTSupport.decodeToken(q.string("token")), limit: limit, by: caller.userId)
        let total = try await service.restrictionsNow(channelUrl: url, kind: kind).count
        let now = service.now()
        return try rest.json(
            RestrictionListPage(
                isBan: kind == .ban, items: page.list.map { RestrictedUser($0, isBan: kind == .ban, now: now) }, total: total, next: page.next))
    }

    /// `GET …/mute/{id}` answers `{is_muted, remaining_duration, start_at, end_at, description}` (also for the
    /// user themselves); `GET …/ban/{id}` the ban, or 400201 when there is none.
    func one(_ req: Request, _ ctx: RESTRequestContext, _ kind: RestrictionRecord.Kind) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        let user = try rest.param(ctx, "user_id")
        if let me = caller.userId, me != user, let roster = try await service.roster(url), !roster.isOperator(me) {
            throw SendbirdError(.unauthorizedRequest, "Only operators can see others' restrictions.")
        }
        let r = try await service.restriction(channelUrl: url, userId: user, kind: kind)
        let now = service.now()
        if kind == .mute {
            guard let r else { return try rest.json(MutedInfoPayload(isMuted: false, remainingDuration: 0, startAt: 0, endAt: 0, description: "")) }
            return try rest.json(
                MutedInfoPayload(
                    isMuted: true, remainingDuration: r.endAt < 0 ? -1 : max(0, r.endAt - now), startAt: r.startAt, endAt: r.endAt,
                    description: r.description))
        }
        guard let r else { throw SendbirdError(.notFound, "\"\(user)\" is not banned in the channel.") }
        let u = try await service.presentUsers([user])[0]
        return try rest.json(
            RestrictedUser(RestrictionPayload(user: u, description: r.description, startAt: r.startAt, endAt: r.endAt), isBan: true, now: now))
    }

    /// A message the profanity or domain filter changed, as it was sent (`message`) beside what
    /// was stored (`filtered_message`). Platform API only; 400201 for a message the filter left alone.
    func moderatedMessage(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        try ctx.caller.requirePlatform()
        let url = try rest.param(ctx, "channel_url")
        let raw = try rest.param(ctx, "message_id")
        guard let id = Int64(raw) else { throw SendbirdError(.invalidValue, "Invalid value: \"message_id\".") }
        guard let json = try await service.setting(scope: "moderated_message", key: "\(url)/\(id)"),
            let kept = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: String]
        else { throw SendbirdError(.notFound, "\"Moderated message\" not found: \(id).") }
        let payload = try await service.getMessage(url, id: id, viewer: nil, extras: [])
        var object = (try JSONSerialization.jsonObject(with: try WireCoding.encoder.encode(payload))) as? [String: Any] ?? [:]
        object["message"] = kept["original"] ?? ""
        object["filtered_message"] = kept["filtered"] ?? payload.message
        return try rest.document(object)
    }

    // MARK: Reports

    /// The reporter: the SDK's own user, or the body's `reporting_user_id` for the Platform API.
    func reporter(_ caller: Caller, _ given: String?) throws -> String? {
        if case .user(let me) = caller {
            if let given, given != me { throw SendbirdError(.unauthorizedRequest, "Unauthorized request: reporting as \(given).") }
            return me
        }
        return given
    }

    func report(_ req: Request, _ ctx: RESTRequestContext, message: Bool) async throws -> Response {
        let caller = try ctx.caller
        let url = try rest.param(ctx, "channel_url")
        var messageId: Int64?
        if message {
            guard let id = Int64(try rest.param(ctx, "message_id")) else { throw SendbirdError(.invalidValue, "Invalid value: \"message_id\".") }
            messageId = id
        }
        let b = try await req.decode(as: ReportBody.self, context: ctx)
        let r = try await service.report(
            category: b.category, description: b.description, reporter: try reporter(caller, b.reportingUserId), channelUrl: url,
            messageId: messageId, offendingUserId: b.offendingUserId)
        return try rest.json(try await present([r])[0])
    }

    func reportUser(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        let offender = try rest.param(ctx, "user_id")
        let b = try await req.decode(as: UserReportBody.self, context: ctx).report
        let r = try await service.report(
            category: b.category, description: b.description, reporter: try reporter(caller, b.reportingUserId), channelUrl: b.channelUrl,
            messageId: nil, offendingUserId: offender)
        try await service.requireUser(offender)
        return try rest.json(try await present([r])[0])
    }

    enum ReportScope { case all, channel, message, user }

    struct ReportPage: Encodable {
        let reportLogs: [ReportLog]
        let next: String
        enum CodingKeys: String, CodingKey {
            case reportLogs = "report_logs"
            case next
        }
    }

    struct ManyRestrictions: Encodable {
        let items: [RestrictedUser]
        enum CodingKeys: String, CodingKey { case items = "banned_list" }
    }

    /// Report listings: the Platform API only.
    func reports(_ req: Request, _ ctx: RESTRequestContext, _ scope: ReportScope) async throws -> Response {
        try ctx.caller.requirePlatform()
        let q = QueryParameters(req.uri.query)
        var query = ReportQuery()
        query.limit = try q.int("limit", default: 10, range: 1...100)
        query.beforeId = try RESTSupport.decodeToken(q.string("token")).flatMap { Int64($0) }
        query.startTs = try q.int("start_ts")
        query.endTs = try q.int("end_ts")
        switch scope {
        case .all: break
        case .channel: query.channelUrl = try rest.param(ctx, "channel_url")
        case .message:
            query.channelUrl = try rest.param(ctx, "channel_url")
            query.messageId = Int64(try rest.param(ctx, "message_id"))
        case .user: query.offendingUserId = try rest.param(ctx, "user_id")
        }
        var fetch = query
        fetch.limit = query.limit + 1
        let rows = try await service.reports(fetch)
        let page = Array(rows.prefix(query.limit))
        let next = rows.count > query.limit ? RESTSupport.encodeToken(String(page.last!.reportId)) : ""
        return try rest.json(ReportPage(reportLogs: try await present(page), next: next))
    }

    /// One report as the Platform API lists it.
    struct ReportLog: Encodable {
        let reportId: Int64
        let reportType: String
        let reportCategory: String
        let reportDescription: String
        let reportingUser: UserPayload?
        let offendingUser: UserPayload?
        let channelUrl: String?
        let channelType: String?
        let channel: ChannelSummary?
        let reportedMessage: MessagePayload?
        let createdAt: Int64
        enum CodingKeys: String, CodingKey {
            case reportId = "report_id"
            case reportType = "report_type"
            case reportCategory = "report_category"
            case reportDescription = "report_description"
            case reportingUser = "reporting_user"
            case offendingUser = "offending_user"
            case channelUrl = "channel_url"
            case channelType = "channel_type"
            case reportedMessage = "reported_message"
            case createdAt = "created_at"
            case channel
        }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(reportId, forKey: .reportId)
            try c.encode(reportType, forKey: .reportType)
            try c.encode(reportCategory, forKey: .reportCategory)
            try c.encode(reportDescription, forKey: .reportDescription)
            try c.encodeIfPresent(reportingUser, forKey: .reportingUser)
            try c.encodeIfPresent(offendingUser, forKey: .offendingUser)
            try c.encodeIfPresent(channelUrl, forKey: .channelUrl)
            try c.encodeIfPresent(channelType, forKey: .channelType)
            try c.encodeIfPresent(channel, forKey: .channel)
            try c.encodeIfPresent(reportedMessage, forKey: .reportedMessage)
            try c.encode(createdAt, forKey: .createdAt)
        }
    }

    /// The reported channel, as report logs carry it.
    struct ChannelSummary: Encodable {
        let channelUrl: String
        let name: String
        let customType: String
        let coverUrl: String
        let data: String
        let createdAt: Int64
        let freeze: Bool
        enum CodingKeys: String, CodingKey {
            case channelUrl = "channel_url"
            case name
            case customType = "custom_type"
            case coverUrl = "cover_url"
            case data
            case createdAt = "created_at"
            case freeze
        }
    }

    func present(_ reports: [ReportRecord]) async throws -> [ReportLog] {
        var channels: [String: ChannelSummary] = [:]
        for url in Set(reports.compactMap(\.channelUrl)) {
            if let c = try await service.channel(url) {
                channels[url] = ChannelSummary(
                    channelUrl: c.channelUrl, name: c.name, customType: c.customType, coverUrl: c.coverUrl, data: c.data,
                    createdAt: c.createdAt, freeze: c.freeze)
            }
        }
        let ids = reports.flatMap { [$0.reportingUserId, $0.offendingUserId].compactMap { $0 } }
        let unique = Array(Set(ids))
        let users = Dictionary(zip(unique, try await service.presentUsers(unique)).map { ($0, $1) }, uniquingKeysWith: { a, _ in a })
        return reports.map { r in
            let type = r.messageId != nil ? "message" : (r.channelUrl != nil && r.offendingUserId == nil ? "channel" : "user")
            return ReportLog(
                reportId: r.reportId, reportType: type, reportCategory: r.category, reportDescription: r.description,
                reportingUser: r.reportingUserId.flatMap { users[$0] }, offendingUser: r.offendingUserId.flatMap { users[$0] },
                channelUrl: r.channelUrl, channelType: r.channelType, channel: r.channelUrl.flatMap { channels[$0] },
                reportedMessage: r.reportedMessage.flatMap { try? JSONDecoder().decode(MessagePayload.self, from: Data($0.utf8)) },
                createdAt: r.createdAt)
        }
    }
}
