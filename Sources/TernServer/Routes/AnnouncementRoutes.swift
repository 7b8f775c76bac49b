import Foundation
import Hummingbird
import NIOCore
import TernProtocol

/// `/v3/announcements…`, `/v3/announcement_*` (Platform API only): schedule, list, view, change
/// (or pause, resume, cancel, stop) announcements, and their open statistics.
struct AnnouncementRoutes: Sendable {
    let rest: RESTSupport
    var service: ChatService { rest.service }

    func register(on api: RouterGroup<RESTRequestContext>) {
        let announcements = api.group("/v3/announcements")
        announcements.post(use: create)
        announcements.get(use: list)
        announcements.get(":unique_id", use: view)
        announcements.put(":unique_id", use: update)
        api.get("/v3/announcement_open_status/:unique_id", use: openStatus)
        api.get("/v3/announcement_open_rate/:unique_id") { req, ctx in try await openRate(req, ctx, group: false) }
        api.get("/v3/announcement_open_rate_by_group/:announcement_group") { req, ctx in try await openRate(req, ctx, group: true) }
        api.get("/v3/announcement_group", use: groups)
        for period in ["daily", "weekly", "monthly"] {
            api.get("/v3/announcement_stats/\(period)") { req, ctx in try await stats(req, ctx, period) }
        }
    }

    /// The stored announcement with its counts as they are now.
    func present(_ a: [String: Any]) async throws -> [String: Any] {
        var out = a
        out["sent"] = nil
        let rows = try await service.openStatus(a)
        let opened = rows.filter(\.opened).count
        out["sent_user_count"] = rows.count
        out["target_user_count"] = rows.count
        out["open_count"] = opened
        out["open_rate"] = rows.isEmpty ? 0.0 : (Double(opened) / Double(rows.count) * 10_000).rounded() / 10_000
        return out
    }

    func requireAnnouncement(_ ctx: RESTRequestContext) async throws -> [String: Any] {
        let id = try rest.param(ctx, "unique_id")
        guard let a = try await service.announcement(id) else { throw SendbirdError(.notFound, "\"Announcement\" not found: \(id).") }
        return a
    }

    /// Checks the message and targets of a body, over what `a` has, into `a`.
    func apply(_ b: AnnouncementBody, to a: inout [String: Any]) async throws {
        var message = a["message"] as? [String: Any] ?? ["type": "MESG"]
        message.merge(b.message) { _, given in given }
        if let t = b.messageType { message["type"] = t }
        if let u = b.userId { message["user_id"] = u }
        if let c = b.content { message["content"] = c }
        let type = (message["type"] as? String ?? "MESG").uppercased()
        guard ["MESG", "ADMM"].contains(type) else { throw SendbirdError(.invalidValue, "Invalid value: \"message.type\" must be MESG or ADMM.") }
        message["type"] = type
        guard let content = message["content"] as? String, !content.isEmpty else { throw SendbirdError.missing("message.content") }
        try TextLimit.message(service.config.maxMessageLength).check(content)
        if type == "MESG" {
            guard let sender = message["user_id"] as? String, !sender.isEmpty else { throw SendbirdError.missing("message.user_id") }
            try Identifier.check(sender, field: "user_id")
            try await service.requireUser(sender)
        }
        a["message"] = message
        if let t = b.targetAt { a["target_at"] = t }
        let target = a["target_at"] as? String ?? "target_channels"
        guard ChatService.announcementTargets.contains(target) else {
            throw SendbirdError(.invalidValue, "Invalid value: \"target_at\" must be target_channels or sender_all_channels.")
        }
        if target == "sender_all_channels" && type != "MESG" {
            throw SendbirdError(.invalidValue, "Invalid value: sender_all_channels needs a MESG with a sender.")
        }
        a["target_at"] = target
        if let list = b.targetList {
            if list.count > 10_000 { throw SendbirdError(.tooManyItems, "At most 10,000 targets.") }
            try Identifier.check(list, field: "target_list")
            a["target_list"] = list
        }
        if target == "target_channels" && (a["target_list"] as? [String] ?? []).isEmpty { throw SendbirdError.missing("target_list") }
        a["target_channel_type"] = b.targetChannelType ?? a["target_channel_type"] ?? "all"
        if let g = b.announcementGroup {
            try TextLimit.customType.check(g)
            a["announcement_group"] = g
        }
        for (key, value, limit) in [
            ("message_custom_type", b.messageCustomType, TextLimit.customType), ("message_data", b.messageData, TextLimit.data),
        ] {
            if let v = value {
                try limit.check(v)
                a[key] = v
            }
        }
        for (key, value) in [("enable_push", b.enablePush), ("mark_as_read", b.markAsRead), ("create_channel", b.createChannel)] {
            if let v = value { a[key] = v }
        }
        if let at = b.scheduledAt { a["scheduled_at"] = at }
        if let end = b.endAt { a["end_at"] = end }
    }

    func create(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let body = try await req.decode(as: AnnouncementCreateBody.self, context: ctx)
        let id = body.uniqueId ?? Credentials.randomToken(bytes: 12)
        if try await service.announcement(id) != nil {
            throw SendbirdError(.alreadyExists, "\"unique_id\" violates a unique constraint: \(id) already exists.")
        }
        var a: [String: Any] = [
            "unique_id": id, "status": "scheduled", "created_at": service.now(), "announcement_group": "", "enable_push": true,
            "mark_as_read": false, "message_custom_type": "", "message_data": "", "scheduled_at": service.now(),
        ]
        try await apply(body.fields, to: &a)
        try await service.saveAnnouncement(a)
        try await service.schedule(id)
        return try rest.document(try await present(try await service.announcement(id) ?? a))
    }

    func list(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let q = QueryParameters(req.uri.query)
        let limit = try q.int("limit", default: 10, range: 1...100)
        let offset = Int(try RESTSupport.decodeToken(q.string("token")) ?? "0") ?? 0
        var all = try await service.allAnnouncements()
        if let g = q.nonEmpty("announcement_group") { all = all.filter { $0["announcement_group"] as? String == g } }
        if let st = q.nonEmpty("status") { all = all.filter { $0["status"] as? String == st } }
        all.sort { (($0["created_at"] as? NSNumber)?.int64Value ?? 0) > (($1["created_at"] as? NSNumber)?.int64Value ?? 0) }
        var page: [[String: Any]] = []
        for a in all.dropFirst(offset).prefix(limit) { page.append(try await present(a)) }
        let next = offset + limit < all.count ? RESTSupport.encodeToken(String(offset + limit)) : ""
        return try rest.document(["announcements": page, "next": next])
    }

    func view(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        return try rest.document(try await present(try await requireAnnouncement(ctx)))
    }

    /// `action`: pause / resume (scheduled ones), cancel (before it is sent), stop (while it is
    /// sent); or new values for one still scheduled.
    func update(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        var a = try await requireAnnouncement(ctx)
        let id = a["unique_id"] as? String ?? ""
        let body = try await req.decode(as: AnnouncementUpdateBody.self, context: ctx)
        let status = a["status"] as? String ?? ""
        if let action = body.action {
            switch (action, status) {
            case ("pause", "scheduled"): a["status"] = "paused"
            case ("resume", "paused"): a["status"] = "scheduled"
            case ("cancel", "scheduled"), ("cancel", "paused"): a["status"] = "canceled"
            case ("stop", "running"): a["status"] = "stopped"
            default:
                throw SendbirdError(.invalidValue, "Invalid value: \"\(action)\" cannot be done to an announcement that is \(status).")
            }
        } else if let fields = body.fields {
            guard status == "scheduled" || status == "paused" else {
                throw SendbirdError(.invalidValue, "Only a scheduled or paused announcement can be changed (this one is \(status)).")
            }
            try await apply(fields, to: &a)
        }
        try await service.saveAnnouncement(a)
        if a["status"] as? String == "scheduled" { try await service.schedule(id) }
        return try rest.document(try await present(try await service.announcement(id) ?? a))
    }

    func openStatus(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let a = try await requireAnnouncement(ctx)
        let q = QueryParameters(req.uri.query)
        let limit = try q.int("limit", default: 20, range: 1...100)
        let offset = Int(try RESTSupport.decodeToken(q.string("token")) ?? "0") ?? 0
        var rows = try await service.openStatus(a)
        if let h = q.nonEmpty("has_opened") { rows = rows.filter { $0.opened == (h.lowercased() == "true") } }
        let page = rows.dropFirst(offset).prefix(limit).map {
            ["user_id": $0.user, "channel_url": $0.channel, "has_opened": $0.opened, "sent_at": $0.sentAt, "open_at": $0.openAt] as [String: Any]
        }
        let next = offset + limit < rows.count ? RESTSupport.encodeToken(String(offset + limit)) : ""
        return try rest.document(["open_status": Array(page), "next": next])
    }

    /// Opens per day over the seven days after sending (and cumulative), for one announcement or a group.
    func openRate(_ req: Request, _ ctx: RESTRequestContext, group: Bool) async throws -> Response {
        var list: [[String: Any]]
        var answer: [String: Any] = [:]
        if group {
            let g = try rest.param(ctx, "announcement_group")
            list = try await service.allAnnouncements().filter { $0["announcement_group"] as? String == g }
            answer["announcement_group"] = g
            if list.isEmpty { throw SendbirdError(.notFound, "\"Announcement group\" not found: \(g).") }
        } else {
            let a = try await requireAnnouncement(ctx)
            list = [a]
            answer["unique_id"] = a["unique_id"]
        }
        var counts = [Int](repeating: 0, count: 7)
        var total = 0
        for a in list {
            for row in try await service.openStatus(a) {
                total += 1
                guard row.opened else { continue }
                let day = Int(max(0, row.openAt - row.sentAt) / 86_400_000)
                if day < 7 { counts[day] += 1 }
            }
        }
        var cumulative: [Int] = []
        for c in counts { cumulative.append((cumulative.last ?? 0) + c) }
        func rate(_ n: Int) -> Double { total == 0 ? 0 : (Double(n) / Double(total) * 10_000).rounded() / 10_000 }
        answer["open_counts"] = counts
        answer["open_rates"] = counts.map(rate)
        answer["cumulative_open_counts"] = cumulative
        answer["cumulative_open_rates"] = cumulative.map(rate)
        return try rest.document(answer)
    }

    func groups(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let names = Set(try await service.allAnnouncements().compactMap { $0["announcement_group"] as? String }.filter { !$0.isEmpty })
        return try rest.document(["announcement_groups": names.sorted(), "next": ""])
    }

    /// Messages sent by announcements per day, week (Monday first) or month, between `start_date`
    /// and `end_date` (YYYY-MM-DD or YYYYMMDD; the last 30 days by default).
    func stats(_ req: Request, _ ctx: RESTRequestContext, _ period: String) async throws -> Response {
        let q = QueryParameters(req.uri.query)
        func day(_ key: String, _ fallback: Int64) throws -> Int64 {
            guard var text = q.nonEmpty(key) else { return fallback }
            if text.count == 8, text.allSatisfy(\.isNumber) {
                text = "\(text.prefix(4))-\(text.dropFirst(4).prefix(2))-\(text.suffix(2))"
            }
            return try ApplicationRoutes.day(text, field: key, now: 0)
        }
        let today = service.now() / 86_400_000
        let first = try day("start_date", today - 30)
        let last = try day("end_date", today)
        if last < first || last - first > 3_660 { throw SendbirdError(.invalidValue, "Invalid value: the range (at most ten years, start first).") }
        var perDay: [Int64: Int] = [:]
        for a in try await service.allAnnouncements() {
            for (_, info) in a["sent"] as? [String: Any] ?? [:] {
                let at = ((info as? [String: Any])?["sent_at"] as? NSNumber)?.int64Value ?? 0
                perDay[at / 86_400_000, default: 0] += 1
            }
        }
        var buckets: [Int64: Int] = [:]
        for d in first...last {
            let key: Int64 = period == "weekly" ? d - ((d + 3) % 7) : period == "monthly" ? ApplicationRoutes.monthStart(d) : d
            buckets[key, default: 0] += perDay[d] ?? 0
        }
        let list = buckets.keys.sorted().map { ["date": ApplicationRoutes.dateText($0), "value": buckets[$0]!] as [String: Any] }
        return try rest.document(["statistics": list])
    }
}
