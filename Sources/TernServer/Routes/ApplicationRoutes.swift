import Foundation
import Hummingbird
import TernProtocol

/// `/v3/applications/…`: the application's settings (Platform API only).
struct ApplicationRoutes: Sendable {
    let rest: RESTSupport
    var service: ChatService { rest.service }

    func register(on api: RouterGroup<RESTRequestContext>) {
        let app = api.group("/v3/applications")
        app.get("settings/webhook", use: webhook)
        app.put("settings/webhook", use: updateWebhook)
        registerMore(on: app)
        api.get("/v3/statistics/metric", use: metric)
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
    func webhook(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let all = try QueryParameters(req.uri.query).bool("display_all_webhook_categories", default: false)
        let s = try await service.webhookSettings()
        return try rest.json(WebhookAnswer(webhook: .init(settings: s, allCategories: all ? WebhookDispatcher.categories : nil)))
    }

    /// Changes the webhook settings: `enabled`, `url` (http or https), `include_members`,
    /// `include_unread_count`, `enabled_events` (categories, or `*` for all).
    func updateWebhook(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let b = try await req.decode(as: WebhookChangesBody.self, context: ctx)
        var s = try await service.webhookSettings()
        if let enabled = b.enabled { s.enabled = enabled }
        if let url = b.url { s.url = url }
        if let members = b.includeMembers { s.includeMembers = members }
        if let unread = b.includeUnreadCount { s.includeUnreadCount = unread }
        if let events = b.enabledEvents { s.enabledEvents = events }
        if s.enabled && s.url.isEmpty { throw SendbirdError.missing("url") }
        try await service.saveWebhookSettings(s)
        return try rest.json(WebhookAnswer(webhook: .init(settings: s, allCategories: nil)))
    }
}

/// Secondary API tokens, statistics and the default invitation preference.
extension ApplicationRoutes {
    /// The routes under `/v3/applications` (`app`) besides the webhook's.
    func registerMore(on app: RouterGroup<RESTRequestContext>) {
        app.post("api_tokens", use: issueToken)
        app.get("api_tokens", use: listTokens)
        app.get("api_tokens/:api_token", use: viewToken)
        app.delete("api_tokens/:api_token", use: revokeToken)
        app.get("ccu", use: ccu)
        app.get("dau") { req, ctx in try await activeUsers(req, ctx, monthly: false) }
        app.get("mau") { req, ctx in try await activeUsers(req, ctx, monthly: true) }
        app.get("peak_connections", use: peakConnections)
        app.get("default_channel_invitation_preference", use: defaultInvitation)
        app.put("default_channel_invitation_preference", use: setDefaultInvitation)
    }

    struct TokenInfo: Encodable {
        let token: String
        let createdAt: Int64
        enum CodingKeys: String, CodingKey {
            case token
            case createdAt = "created_at"
        }
    }
    struct TokenList: Encodable {
        let apiTokens: [TokenInfo]
        enum CodingKeys: String, CodingKey { case apiTokens = "api_tokens" }
    }

    /// A token as listed: only its hash is stored, so it shows as `****` and its last four characters.
    static func listed(_ fields: [String: Any]) -> TokenInfo {
        TokenInfo(token: "****" + (fields["hint"] as? String ?? ""), createdAt: (fields["created_at"] as? NSNumber)?.int64Value ?? 0)
    }

    func issueToken(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let (token, t) = try await service.issueAPIToken()
        return try rest.json(TokenInfo(token: token, createdAt: t))
    }

    func listTokens(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let out = try await service.apiTokenDocuments().map { Self.listed($0.fields) }
        return try rest.json(TokenList(apiTokens: out.sorted { $0.createdAt < $1.createdAt }))
    }

    func viewToken(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let token = try rest.param(ctx, "api_token")
        guard let fields = try await service.apiTokenDocument(token) else { throw SendbirdError(.notFound, "\"API token\" not found.") }
        // The caller named the token: it may be answered back.
        return try rest.json(TokenInfo(token: token, createdAt: (fields["created_at"] as? NSNumber)?.int64Value ?? 0))
    }

    func revokeToken(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        try await service.revokeAPIToken(try rest.param(ctx, "api_token"))
        return try rest.empty()
    }

    struct CCU: Encodable { let ccu: Int }

    func ccu(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        return try rest.json(CCU(ccu: service.registry.connectionCount))
    }

    /// A `YYYY-MM-DD` date (UTC) as a day number; today when absent.
    static func day(_ text: String?, field: String, now: Int64) throws -> Int64 {
        guard let text, !text.isEmpty else { return now / 86_400_000 }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd"
        guard let d = f.date(from: text) else { throw SendbirdError(.invalidValue, "Invalid value: \"\(field)\" must be YYYY-MM-DD.") }
        return Int64(d.timeIntervalSince1970) / 86_400
    }

    static func dateText(_ day: Int64) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd"
        return f.string(from: Date(timeIntervalSince1970: TimeInterval(day * 86_400)))
    }

    /// The days (UTC day numbers) from `start_year/start_month[/start_day]` to
    /// `end_year/end_month[/end_day]`, inclusive; the last 30 days by default; at most ten years.
    func dayRange(_ q: QueryParameters) throws -> (first: Int64, last: Int64) {
        func date(_ prefix: String, _ fallback: Int64) throws -> Int64 {
            guard let y = try q.int("\(prefix)_year"), let m = try q.int("\(prefix)_month") else { return fallback }
            let d = try q.int("\(prefix)_day") ?? (prefix == "start" ? 1 : 28)
            return try Self.day(String(format: "%04d-%02d-%02d", y, m, d), field: "\(prefix)_year/_month/_day", now: 0)
        }
        let today = service.now() / 86_400_000
        let first = try date("start", today - 30)
        let last = try date("end", today)
        if last < first || last - first > 3_660 { throw SendbirdError(.invalidValue, "Invalid value: the range (at most ten years, start first).") }
        return (first, last)
    }

    /// The first day of the month that holds `day`.
    static func monthStart(_ day: Int64) -> Int64 {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = TimeZone(identifier: "UTC")!
        let date = Date(timeIntervalSince1970: TimeInterval(day * 86_400))
        let start = cal.date(from: cal.dateComponents([.year, .month], from: date))!
        return Int64(start.timeIntervalSince1970) / 86_400
    }

    /// `dau` (users seen on `date`) or `mau` (seen in `date`'s month up to that day).
    func activeUsers(_ req: Request, _ ctx: RESTRequestContext, monthly: Bool) async throws -> Response {
        let day = try Self.day(QueryParameters(req.uri.query).nonEmpty("date"), field: "date", now: service.now())
        let n = try await service.activeUsers(firstDay: monthly ? Self.monthStart(day) : day, lastDay: day)
        return try rest.json([monthly ? "mau" : "dau": n])
    }

    struct Peak: Encodable {
        let date: String
        let peakConnections: Int
        enum CodingKeys: String, CodingKey {
            case date
            case peakConnections = "peak_connections"
        }
    }

    /// `peak_connections` per day, week (Monday first) or month between two dates (inclusive;
    /// `start_year/start_month/start_day` … `end_…`), as `{peak_connections: [{date, peak_connections}]}`.
    func peakConnections(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let q = QueryParameters(req.uri.query)
        let dimension = (q.nonEmpty("time_dimension") ?? "daily").lowercased()
        guard ["daily", "weekly", "monthly"].contains(dimension) else {
            throw SendbirdError(.invalidValue, "Invalid value: \"time_dimension\" must be daily, weekly or monthly.")
        }
        let (first, last) = try dayRange(q)
        let daily = try await service.dailyPeaks(firstDay: first, lastDay: last)
        var buckets: [Int64: Int] = [:]
        for d in first...last {
            let key: Int64
            switch dimension {
            case "weekly": key = d - ((d + 3) % 7)  // day 0 (1970-01-01) was a Thursday
            case "monthly": key = Self.monthStart(d)
            default: key = d
            }
            buckets[key] = max(buckets[key] ?? 0, daily[d] ?? 0)
        }
        let list = buckets.keys.sorted().map { Peak(date: Self.dateText($0), peakConnections: buckets[$0]!) }
        return try rest.json(["peak_connections": list])
    }

    static let metricTypes: Set<String> = ["messages", "message_senders", "messages_per_user", "active_channels", "created_channels"]

    /// Advanced metrics from the server's own data, per day or month between two dates:
    /// `messages`, `message_senders`, `messages_per_user`, `active_channels` (with messages),
    /// `created_channels` → `{statistics: [{date, value}], metric_type, time_dimension}`.
    func metric(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let q = QueryParameters(req.uri.query)
        let type = q.nonEmpty("metric_type") ?? "messages"
        guard Self.metricTypes.contains(type) else {
            throw SendbirdError(.invalidValue, "Invalid value: \"metric_type\" (\(Self.metricTypes.sorted().joined(separator: ", "))).")
        }
        let dimension = (q.nonEmpty("time_dimension") ?? "daily").lowercased()
        guard ["daily", "monthly"].contains(dimension) else {
            throw SendbirdError(.invalidValue, "Invalid value: \"time_dimension\" must be daily or monthly.")
        }
        let (first, last) = try dayRange(q)
        let stats = try await service.dailyMessageStats(firstDay: first, lastDay: last)
        let created = try await service.dailyCreatedChannels(firstDay: first, lastDay: last)
        // Sum per bucket; senders and channels are counted per day, then summed per month.
        var buckets: [Int64: (messages: Int, senders: Int, channels: Int, created: Int)] = [:]
        for d in first...last {
            let key = dimension == "monthly" ? Self.monthStart(d) : d
            var b = buckets[key] ?? (0, 0, 0, 0)
            let s = stats[d] ?? (0, 0, 0)
            b.messages += s.messages
            b.senders += s.senders
            b.channels += s.channels
            b.created += created[d] ?? 0
            buckets[key] = b
        }
        let list: [[String: Any]] = buckets.keys.sorted().map { key in
            let b = buckets[key]!
            let value: Double
            switch type {
            case "message_senders": value = Double(b.senders)
            case "messages_per_user": value = b.senders == 0 ? 0 : (Double(b.messages) / Double(b.senders) * 100).rounded() / 100
            case "active_channels": value = Double(b.channels)
            case "created_channels": value = Double(b.created)
            default: value = Double(b.messages)
            }
            return ["date": Self.dateText(key), "value": value]
        }
        return try rest.document(["statistics": list, "metric_type": type, "time_dimension": dimension])
    }

    func defaultInvitation(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let json = try await service.setting(scope: "application", key: "default_channel_invitation_preference")
        let obj = json.flatMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
        return try rest.json(InvitationPreferenceAnswer(autoAccept: obj?["auto_accept"] as? Bool ?? true))
    }

    /// The invitation preference new users start with (existing users keep theirs).
    func setDefaultInvitation(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let auto = try await req.decode(as: InvitationDefaultBody.self, context: ctx).autoAccept
        try await service.setSetting(
            scope: "application", key: "default_channel_invitation_preference", json: auto ? "{\"auto_accept\":true}" : "{\"auto_accept\":false}")
        return try rest.json(InvitationPreferenceAnswer(autoAccept: auto))
    }
}
