import Foundation
import TernProtocol

/// `POST /v3/users/{user_id}/push/{token_type}`: the device token, required and not empty, under
/// the field its type names (``PushRoutes/tokenTypes``: `gcm_reg_token`, `apns_device_token`,
/// `huawei_device_token`). Only the path's type counts: another type's field that is not a string
/// is no error, so each field is kept as read until ``token(_:)`` asks for one.
struct DeviceTokenBody: Decodable {
    private var read: [String: Result<String?, any Error>] = [:]

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        for field in Set(PushRoutes.tokenTypes.values) { read[field] = Result { try c.string(AnyKey(field)) } }
    }

    /// The token under `field`: 400104 when absent or empty, 400100 when not a string.
    func token(_ field: String) throws -> String {
        guard let token = try read[field]?.get(), !token.isEmpty else { throw SendbirdError.missing(field) }
        try TextLimit.pathParameter.check(token)
        return token
    }
}

/// `PUT /v3/users/{user_id}/push/template`: `name`, required: default or alternative.
struct PushTemplateBody: Decodable {
    let name: String
    enum CodingKeys: String, CodingKey { case name }

    init(from decoder: any Decoder) throws {
        guard let name = try decoder.container(keyedBy: CodingKeys.self).string(.name), ["default", "alternative"].contains(name) else {
            throw SendbirdError(.invalidValue, "Invalid value: \"name\" must be default or alternative.")
        }
        self.name = name
    }
}

/// `PUT /v3/users/{user_id}/push_preference`: the preferences to change, none required, read by
/// type only; ``PushRoutes/merge(_:into:)`` checks their values (in the order it always has) as
/// it merges them into the stored ones.
struct PushPreferenceBody: Decodable {
    var pushTriggerOption: String?
    /// `do_not_disturb`, `snooze_enabled`, `block_push_from_bots`, `enable_push_for_replies`.
    var switches: [String: Bool] = [:]
    /// `start_hour`, `end_hour`, `start_min`, `end_min`, `snooze_start_ts`, `snooze_end_ts`.
    var numbers: [String: Int64] = [:]
    var timezone: String?
    var pushSound: String?
    var pushBlockedBotIds: [String]?
    /// `dnd_schedules` as given (kept so), and read.
    var dndSchedules: (given: [[String: Any]], days: [DndDay])?

    static let switchKeys = ["do_not_disturb", "snooze_enabled", "block_push_from_bots", "enable_push_for_replies"]
    static let clockKeys: [(String, ClosedRange<Int>)] = [("start_hour", 0...23), ("end_hour", 0...23), ("start_min", 0...59), ("end_min", 0...59)]
    static let snoozeKeys = ["snooze_start_ts", "snooze_end_ts"]

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        pushTriggerOption = try c.string(AnyKey("push_trigger_option"))
        for key in Self.switchKeys { switches[key] = try c.bool(AnyKey(key)) }
        for key in Self.clockKeys.map(\.0) + Self.snoozeKeys { numbers[key] = try c.int(AnyKey(key)) }
        timezone = try c.string(AnyKey("timezone"))
        pushSound = try c.string(AnyKey("push_sound"))
        pushBlockedBotIds = try c.stringArray(AnyKey("push_blocked_bot_ids"))
        if let given = c.raw(AnyKey("dnd_schedules")) {
            guard let list = given as? [[String: Any]], list.count <= 7 else {
                throw SendbirdErrorFactory.wrongType("dnd_schedules", "list of at most 7 objects")
            }
            dndSchedules = (list, try c.decode([DndDay].self, forKey: AnyKey("dnd_schedules")))
        }
    }

    /// A day of `dnd_schedules`: `day_of_week`, and the clock fields of each of its `time_windows`
    /// (a value that is not a list of objects is none).
    struct DndDay: Decodable {
        let dayOfWeek: String?
        let timeWindows: [[String: Int64]]

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: AnyKey.self)
            dayOfWeek = try c.string(AnyKey("day_of_week"))
            guard c.raw(AnyKey("time_windows")) is [[String: Any]] else {
                timeWindows = []
                return
            }
            var windows: [[String: Int64]] = []
            var list = try c.nestedUnkeyedContainer(forKey: AnyKey("time_windows"))
            while !list.isAtEnd {
                let w = try list.nestedContainer(keyedBy: AnyKey.self)
                var window: [String: Int64] = [:]
                for key in PushPreferenceBody.clockKeys.map(\.0) { window[key] = try w.int(AnyKey(key)) }
                windows.append(window)
            }
            timeWindows = windows
        }
    }
}

/// `PUT /v3/users/{user_id}/push_preference/{channel_url}`: `push_trigger_option` (default, all,
/// mention_only or off), `enable`, `push_sound` (at most 128 characters); none required.
struct ChannelPushPreferenceBody: Decodable {
    let pushTriggerOption: String?
    let enable: Bool?
    let pushSound: String?

    enum CodingKeys: String, CodingKey {
        case pushTriggerOption = "push_trigger_option"
        case enable
        case pushSound = "push_sound"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // `false` is `off`: the official Platform SDK 2.1.5 offers only that spelling of it.
        pushTriggerOption = try c.string(.pushTriggerOption).map { $0 == "false" ? "off" : $0 }
        if let t = pushTriggerOption, !PushRoutes.channelTriggerOptions.contains(t) {
            throw SendbirdError(.invalidValue, "Invalid value: \"push_trigger_option\" must be default, all, mention_only or off (or false).")
        }
        enable = try c.bool(.enable)
        pushSound = try c.string(.pushSound)
        if let sound = pushSound { try TextLimit.customType.check(sound) }
    }
}
