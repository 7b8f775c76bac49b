import Foundation
import Hummingbird
import TernProtocol

/// Push settings: device tokens (FCM `gcm`, `apns`, `apns_voip`, `huawei`), the content template,
/// and push preferences (global: trigger option, do-not-disturb windows, snooze, sound; per
/// channel: trigger option and sound). `ternd` sends no push itself; the settings are stored and
/// answered as Sendbird does, for the tools and SDKs that manage them.
struct PushRoutes: Sendable {
    let rest: RESTSupport
    var service: ChatService { rest.service }

    static let tokenTypes: [String: String] = [
        "gcm": "gcm_reg_token", "apns": "apns_device_token", "apns_voip": "apns_device_token", "huawei": "huawei_device_token",
    ]
    static let triggerOptions: Set<String> = ["all", "mention_only", "off"]
    static let channelTriggerOptions: Set<String> = ["default", "all", "mention_only", "off"]

    func register(on api: RouterGroup<RESTRequestContext>) {
        api.post("/v3/users/:user_id/push/:token_type", use: addToken)
        api.get("/v3/users/:user_id/push/:token_type", use: listTokens)
        api.delete("/v3/users/:user_id/push/:token_type/:token", use: removeToken)
        api.delete("/v3/users/:user_id/push", use: removeAllTokens)
        api.get("/v3/push/device_tokens/:token_type/:token") { req, ctx in try await owners(req, ctx, remove: false) }
        api.delete("/v3/push/device_tokens/:token_type/:token") { req, ctx in try await owners(req, ctx, remove: true) }
        api.put("/v3/users/:user_id/push/template", use: setTemplate)
        api.get("/v3/users/:user_id/push/template", use: getTemplate)
        api.get("/v3/users/:user_id/push_preference", use: preferences)
        api.put("/v3/users/:user_id/push_preference", use: updatePreferences)
        api.delete("/v3/users/:user_id/push_preference", use: resetPreferences)
        api.get("/v3/users/:user_id/push_preference/:channel_url", use: channelPreference)
        api.put("/v3/users/:user_id/push_preference/:channel_url", use: updateChannelPreference)
    }

    // MARK: Plumbing

    func subject(_ req: Request, _ ctx: RESTRequestContext) async throws -> UserRecord { try await rest.pathUser(req, ctx) }

    func tokenType(_ ctx: RESTRequestContext) throws -> String {
        let t = try rest.param(ctx, "token_type").lowercased()
        guard Self.tokenTypes[t] != nil else {
            throw SendbirdError(.invalidValue, "Invalid value: \"token_type\" must be gcm, apns, apns_voip or huawei.")
        }
        return t
    }

    struct BasicUser: Encodable {
        let userId: String
        let nickname: String
        let profileUrl: String
        enum CodingKeys: String, CodingKey {
            case userId = "user_id"
            case nickname
            case profileUrl = "profile_url"
        }
        init(_ u: UserRecord) {
            userId = u.userId
            nickname = u.nickname
            profileUrl = u.profileUrl
        }
        init(id: String) {
            userId = id
            nickname = ""
            profileUrl = ""
        }
    }

    // MARK: Device tokens

    struct TokenAnswer: Encodable {
        let token: String
        let type: String
        let user: BasicUser
    }

    func addToken(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let user = try await subject(req, ctx)
        let type = try tokenType(ctx)
        let b = try await rest.body(req)
        guard let token = try b.string(Self.tokenTypes[type]!), !token.isEmpty else { throw SendbirdError.missing(Self.tokenTypes[type]!) }
        try TextLimit.pathParameter.check(token)
        try await service.addDeviceToken(userId: user.userId, type: type, token: token)
        return try rest.json(TokenAnswer(token: token, type: type.uppercased(), user: BasicUser(user)))
    }

    struct TokenList: Encodable {
        let tokens: [String]
        let type: String
        let user: BasicUser
        enum CodingKeys: String, CodingKey { case tokens, token, type, user }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(tokens, forKey: .tokens)
            try c.encode(tokens, forKey: .token)  // the legacy SDK's key
            try c.encode(type, forKey: .type)
            try c.encode(user, forKey: .user)
        }
    }

    func listTokens(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let user = try await subject(req, ctx)
        let type = try tokenType(ctx)
        let tokens = try await service.deviceTokens(userId: user.userId, type: type)
        return try rest.json(TokenList(tokens: tokens, type: type.uppercased(), user: BasicUser(user)))
    }

    struct Removed: Encodable {
        let token: String
        let user: BasicUser
    }

    func removeToken(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let user = try await subject(req, ctx)
        let type = try tokenType(ctx)
        let token = try rest.param(ctx, "token")
        let removed = try await service.removeDeviceToken(type: type, token: token, userId: user.userId)
        if removed.isEmpty { throw SendbirdError(.notFound, "\"Token\" not found: \(token).") }
        return try rest.json(Removed(token: token, user: BasicUser(user)))
    }

    struct RemovedAll: Encodable {
        let token: [String]
        let user: BasicUser
    }

    func removeAllTokens(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let user = try await subject(req, ctx)
        var all: [String] = []
        for type in Self.tokenTypes.keys.sorted() { all += try await service.deviceTokens(userId: user.userId, type: type) }
        try await service.removeDeviceTokens(userId: user.userId)
        return try rest.json(RemovedAll(token: all, user: BasicUser(user)))
    }

    /// Who holds a token, or (`remove`) takes it from every owner: a list of users either way.
    func owners(_ req: Request, _ ctx: RESTRequestContext, remove: Bool) async throws -> Response {
        try ctx.caller.requirePlatform()
        let type = try tokenType(ctx)
        let token = try rest.param(ctx, "token")
        let ids =
            remove
            ? try await service.removeDeviceToken(type: type, token: token, userId: nil)
            : try await service.deviceTokenOwners(type: type, token: token)
        let users = try await service.users(ids)
        let byId = Dictionary(users.map { ($0.userId, $0) }, uniquingKeysWith: { a, _ in a })
        return try rest.json(ids.map { byId[$0].map(BasicUser.init) ?? BasicUser(id: $0) })
    }

    // MARK: Template

    struct Template: Encodable { let name: String }

    func setTemplate(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let user = try await subject(req, ctx)
        guard let name = try await rest.body(req).string("name"), ["default", "alternative"].contains(name) else {
            throw SendbirdError(.invalidValue, "Invalid value: \"name\" must be default or alternative.")
        }
        try await rest.saveDocument("push_template", user.userId, ["name": name])
        return try rest.json(Template(name: name))
    }

    func getTemplate(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let user = try await subject(req, ctx)
        let stored = try await rest.loadDocument("push_template", user.userId)
        return try rest.json(Template(name: stored?["name"] as? String ?? "default"))
    }

    // MARK: Preferences

    static var defaults: [String: Any] {
        [
            "push_trigger_option": "all", "do_not_disturb": false, "start_hour": 0, "start_min": 0, "end_hour": 0, "end_min": 0,
            "snooze_enabled": false, "snooze_start_ts": 0, "snooze_end_ts": 0, "timezone": "UTC", "push_sound": "default",
            "block_push_from_bots": false, "push_blocked_bot_ids": [String](), "enable_push_for_replies": false,
            "dnd_schedules": [Any](),
        ]
    }

    func preferences(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let user = try await subject(req, ctx)
        return try rest.document(try await rest.loadDocument("push_preference", user.userId) ?? Self.defaults)
    }

    /// Checks each given preference and merges it into the stored ones (400111 for a bad value).
    static func merge(_ b: JSONBody, into current: [String: Any]) throws -> [String: Any] {
        var p = current
        if let t = try b.string("push_trigger_option") {
            guard triggerOptions.contains(t) else {
                throw SendbirdError(.invalidValue, "Invalid value: \"push_trigger_option\" must be all, mention_only or off.")
            }
            p["push_trigger_option"] = t
        }
        for key in ["do_not_disturb", "snooze_enabled", "block_push_from_bots", "enable_push_for_replies"] {
            if let v = try b.bool(key) { p[key] = v }
        }
        for (key, range) in [("start_hour", 0...23), ("end_hour", 0...23), ("start_min", 0...59), ("end_min", 0...59)] {
            if let v = try b.int(key) {
                guard range.contains(Int(v)) else { throw SendbirdErrorFactory.outOfRange(key, range) }
                p[key] = v
            }
        }
        for key in ["snooze_start_ts", "snooze_end_ts"] {
            if let v = try b.int(key) {
                guard v >= 0 else { throw SendbirdError(.invalidValue, "Invalid value: \"\(key)\".") }
                p[key] = v
            }
        }
        if (p["snooze_enabled"] as? Bool) == true, let s = p["snooze_start_ts"] as? Int64 ?? (p["snooze_start_ts"] as? NSNumber)?.int64Value,
            let e = p["snooze_end_ts"] as? Int64 ?? (p["snooze_end_ts"] as? NSNumber)?.int64Value, e < s
        {
            throw SendbirdError(.invalidValue, "Invalid value: \"snooze_end_ts\" must not be before \"snooze_start_ts\".")
        }
        if let tz = try b.string("timezone") {
            guard TimeZone(identifier: tz) != nil else { throw SendbirdError(.invalidValue, "Invalid value: \"timezone\" (an IANA time zone).") }
            p["timezone"] = tz
        }
        if let sound = try b.string("push_sound") {
            try TextLimit.customType.check(sound)
            p["push_sound"] = sound
        }
        if let bots = try b.stringArray("push_blocked_bot_ids") {
            try Identifier.check(bots, field: "push_blocked_bot_ids")
            p["push_blocked_bot_ids"] = bots
        }
        if let schedules = b.object["dnd_schedules"], !(schedules is NSNull) {
            guard let list = schedules as? [[String: Any]], list.count <= 7 else {
                throw SendbirdErrorFactory.wrongType("dnd_schedules", "list of at most 7 objects")
            }
            for day in list {
                let d = JSONBody(object: day)
                guard let name = try d.string("day_of_week"), ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"].contains(name.uppercased()) else {
                    throw SendbirdError(.invalidValue, "Invalid value: \"day_of_week\" must be MON … SUN.")
                }
                for window in day["time_windows"] as? [[String: Any]] ?? [] {
                    let w = JSONBody(object: window)
                    for (key, range) in [("start_hour", 0...23), ("end_hour", 0...23), ("start_min", 0...59), ("end_min", 0...59)] {
                        guard let v = try w.int(key), range.contains(Int(v)) else { throw SendbirdErrorFactory.outOfRange(key, range) }
                    }
                }
            }
            p["dnd_schedules"] = list
        }
        return p
    }

    func updatePreferences(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let user = try await subject(req, ctx)
        let current = try await rest.loadDocument("push_preference", user.userId) ?? Self.defaults
        let merged = try Self.merge(try await rest.body(req), into: current)
        try await rest.saveDocument("push_preference", user.userId, merged)
        return try rest.document(merged)
    }

    func resetPreferences(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let user = try await subject(req, ctx)
        try await service.setSetting(scope: "push_preference", key: user.userId, json: nil)
        try await service.deleteSettings(scope: "push_preference_channel", keyPrefix: user.userId + "\u{1F}")
        return try rest.document(Self.defaults)
    }

    /// The per-channel preference of a member: `{enable, push_trigger_option, push_sound}`.
    func channelKey(_ req: Request, _ ctx: RESTRequestContext) async throws -> (user: UserRecord, key: String) {
        let user = try await subject(req, ctx)
        let url = try rest.param(ctx, "channel_url")
        let channel = try await service.requireGroupChannel(url)
        guard try await service.member(channel.channelUrl, userId: user.userId) != nil else {
            throw SendbirdError(.unauthorizedRequest, "\(user.userId) is not a member of the channel.")
        }
        return (user, user.userId + "\u{1F}" + url)
    }

    func channelPreference(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let (_, key) = try await channelKey(req, ctx)
        var p = try await rest.loadDocument("push_preference_channel", key) ?? ["push_trigger_option": "default", "push_sound": "default"]
        p["enable"] = (p["push_trigger_option"] as? String) != "off"
        return try rest.document(p)
    }

    func updateChannelPreference(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let (_, key) = try await channelKey(req, ctx)
        let b = try await rest.body(req)
        var p = try await rest.loadDocument("push_preference_channel", key) ?? ["push_trigger_option": "default", "push_sound": "default"]
        if let t = try b.string("push_trigger_option") {
            guard Self.channelTriggerOptions.contains(t) else {
                throw SendbirdError(.invalidValue, "Invalid value: \"push_trigger_option\" must be default, all, mention_only or off.")
            }
            p["push_trigger_option"] = t
        }
        if let enable = try b.bool("enable") {
            p["push_trigger_option"] = enable ? (p["push_trigger_option"] as? String == "off" ? "default" : p["push_trigger_option"]) : "off"
        }
        if let sound = try b.string("push_sound") {
            try TextLimit.customType.check(sound)
            p["push_sound"] = sound
        }
        try await rest.saveDocument("push_preference_channel", key, p)
        p["enable"] = (p["push_trigger_option"] as? String) != "off"
        return try rest.document(p)
    }
}
