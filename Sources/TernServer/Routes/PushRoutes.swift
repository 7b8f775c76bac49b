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
        let push = api.group("/v3/users/:user_id/push")
        push.post(":token_type", use: addToken)
        push.get(":token_type", use: listTokens)
        push.delete(":token_type/:token", use: removeToken)
        push.delete(use: removeAllTokens)
        push.put("template", use: setTemplate)
        push.get("template", use: getTemplate)
        api.get("/v3/push/device_tokens/:token_type/:token") { req, ctx in try await owners(req, ctx, remove: false) }
        api.delete("/v3/push/device_tokens/:token_type/:token") { req, ctx in try await owners(req, ctx, remove: true) }
        let preference = api.group("/v3/users/:user_id/push_preference")
        preference.get(use: preferences)
        preference.put(use: updatePreferences)
        preference.delete(use: resetPreferences)
        preference.get(":channel_url", use: channelPreference)
        preference.put(":channel_url", use: updateChannelPreference)
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
        let token = try await req.decode(as: DeviceTokenBody.self, context: ctx).token(Self.tokenTypes[type]!)
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
        let name = try await req.decode(as: PushTemplateBody.self, context: ctx).name
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
    static func merge(_ b: PushPreferenceBody, into current: [String: Any]) throws -> [String: Any] {
        var p = current
        if let t = b.pushTriggerOption {
            guard triggerOptions.contains(t) else {
                throw SendbirdError(.invalidValue, "Invalid value: \"push_trigger_option\" must be all, mention_only or off.")
            }
            p["push_trigger_option"] = t
        }
        for key in PushPreferenceBody.switchKeys { if let v = b.switches[key] { p[key] = v } }
        for (key, range) in PushPreferenceBody.clockKeys {
            if let v = b.numbers[key] {
                guard range.contains(Int(v)) else { throw SendbirdErrorFactory.outOfRange(key, range) }
                p[key] = v
            }
        }
        for key in PushPreferenceBody.snoozeKeys {
            if let v = b.numbers[key] {
                guard v >= 0 else { throw SendbirdError(.invalidValue, "Invalid value: \"\(key)\".") }
                p[key] = v
            }
        }
        if (p["snooze_enabled"] as? Bool) == true, let s = p["snooze_start_ts"] as? Int64 ?? (p["snooze_start_ts"] as? NSNumber)?.int64Value,
            let e = p["snooze_end_ts"] as? Int64 ?? (p["snooze_end_ts"] as? NSNumber)?.int64Value, e < s
        {
            throw SendbirdError(.invalidValue, "Invalid value: \"snooze_end_ts\" must not be before \"snooze_start_ts\".")
        }
        if let tz = b.timezone {
            guard TimeZone(identifier: tz) != nil else { throw SendbirdError(.invalidValue, "Invalid value: \"timezone\" (an IANA time zone).") }
            p["timezone"] = tz
        }
        if let sound = b.pushSound {
            try TextLimit.customType.check(sound)
            p["push_sound"] = sound
        }
        if let bots = b.pushBlockedBotIds {
            try Identifier.check(bots, field: "push_blocked_bot_ids")
            p["push_blocked_bot_ids"] = bots
        }
        if let schedules = b.dndSchedules {
            for day in schedules.days {
                guard let name = day.dayOfWeek, ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"].contains(name.uppercased()) else {
                    throw SendbirdError(.invalidValue, "Invalid value: \"day_of_week\" must be MON … SUN.")
                }
                for window in day.timeWindows {
                    for (key, range) in PushPreferenceBody.clockKeys {
                        guard let v = window[key], range.contains(Int(v)) else { throw SendbirdErrorFactory.outOfRange(key, range) }
                    }
                }
            }
            p["dnd_schedules"] = schedules.given
        }
        return p
    }

    func updatePreferences(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let user = try await subject(req, ctx)
        let current = try await rest.loadDocument("push_preference", user.userId) ?? Self.defaults
        let merged = try Self.merge(try await req.decode(as: PushPreferenceBody.self, context: ctx), into: current)
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
        return try channelAnswer(try await rest.loadDocument("push_preference_channel", key) ?? Self.channelDefaults)
    }

    static var channelDefaults: [String: Any] { ["push_trigger_option": "default", "push_sound": "default"] }

    /// `{enable, push_sound, push_trigger_option}` of a stored channel preference.
    func channelAnswer(_ p: [String: Any]) throws -> Response {
        try rest.document(
            encoding: ChannelPushPreferenceAnswer(
                pushTriggerOption: p["push_trigger_option"] as? String ?? "default", pushSound: p["push_sound"] as? String ?? "default"))
    }

    func updateChannelPreference(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let (_, key) = try await channelKey(req, ctx)
        let b = try await req.decode(as: ChannelPushPreferenceBody.self, context: ctx)
        var p = try await rest.loadDocument("push_preference_channel", key) ?? Self.channelDefaults
        if let t = b.pushTriggerOption { p["push_trigger_option"] = t }
        if let enable = b.enable {
            p["push_trigger_option"] = enable ? (p["push_trigger_option"] as? String == "off" ? "default" : p["push_trigger_option"]) : "off"
        }
        if let sound = b.pushSound { p["push_sound"] = sound }
        try await rest.saveDocument("push_preference_channel", key, p)
        return try channelAnswer(p)
    }
}
