import Foundation
import TernProtocol

/// `POST` and `DELETE /v3/group_channels/{url}/typing`: `user_ids`, at least one.
struct TypingUsersBody: Decodable {
    let userIds: [String]
    enum CodingKeys: String, CodingKey { case userIds = "user_ids" }

    init(from decoder: any Decoder) throws {
        let users = try decoder.container(keyedBy: CodingKeys.self).stringArray(.userIds) ?? []
        if users.isEmpty { throw SendbirdError.missing("user_ids") }
        try Identifier.check(users, field: "user_ids")
        userIds = users
    }
}

/// `PUT /v3/users/{user_id}/my_group_channels/leave`: `custom_type` (or `channel_custom_type`),
/// optional; absent or empty is every channel.
struct LeaveMyChannelsBody: Decodable {
    let customType: String?
    enum CodingKeys: String, CodingKey {
        case customType = "custom_type"
        case channelCustomType = "channel_custom_type"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let type = try c.string(.customType) ?? c.string(.channelCustomType)
        customType = type?.isEmpty == false ? type : nil
    }
}

/// `POST /v3/users/{user_id}/operating_channel_custom_types`: `channel_custom_types`, at least
/// one (each a custom type's length at most).
struct ChannelCustomTypesBody: Decodable {
    let types: [String]
    enum CodingKeys: String, CodingKey { case types = "channel_custom_types" }

    init(from decoder: any Decoder) throws {
        let types = try decoder.container(keyedBy: CodingKeys.self).stringArray(.types) ?? []
        if types.isEmpty { throw SendbirdError.missing("channel_custom_types") }
        for t in types { try TextLimit.customType.check(t) }
        self.types = types
    }
}

/// `POST /v3/users/{user_id}/banned_channel_custom_types` and `…/muted_channel_custom_types`:
/// `channel_custom_types` (``ChannelCustomTypesBody``) is required; `seconds` (-1: for ever, the
/// default) and `description` are optional.
struct RestrictByTypesBody: Decodable {
    let types: [String]
    let seconds: Int64?
    let description: String
    enum CodingKeys: String, CodingKey { case seconds, description }

    init(from decoder: any Decoder) throws {
        types = try ChannelCustomTypesBody(from: decoder).types
        let c = try decoder.container(keyedBy: CodingKeys.self)
        seconds = try c.int(.seconds)
        description = try c.string(.description) ?? ""
        _ = try ChatService.checkRestriction(seconds: seconds, description: description)
    }
}

/// One user to ban or mute in the channels of a custom type: `user_id` (required, not empty),
/// `seconds` and `description`.
struct TypeRestrictionEntry: Decodable {
    var userId: String
    var seconds: Int64?
    var description: String
    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case seconds, description
    }

    init(userId: String, seconds: Int64?, description: String) {
        (self.userId, self.seconds, self.description) = (userId, seconds, description)
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard let user = try c.string(.userId), !user.isEmpty else { throw SendbirdError.missing("user_id") }
        userId = user
        seconds = try c.int(.seconds)
        description = try c.string(.description) ?? ""
    }

    /// The entries of `POST /v3/applications/settings_by_channel_custom_type/{type}/ban` or
    /// `…/mute`: the list under `listKey` (``TypeRestrictionEntry`` items), or when it is absent
    /// `user_ids` with one `seconds` and `description` for all. At least one entry.
    static func entries(_ decoder: any Decoder, listKey: String) throws -> [TypeRestrictionEntry] {
        let c = try decoder.container(keyedBy: AnyKey.self)
        var entries: [TypeRestrictionEntry]
        if let list = try c.objectList(TypeRestrictionEntry.self, AnyKey(listKey)) {
            entries = list
        } else {
            let seconds = try c.int(AnyKey("seconds"))
            let description = try c.string(AnyKey("description")) ?? ""
            entries = (try c.stringArray(AnyKey("user_ids")) ?? []).map { .init(userId: $0, seconds: seconds, description: description) }
        }
        if entries.isEmpty { throw SendbirdError.missing(listKey) }
        return entries
    }
}

/// `POST /v3/applications/settings_by_channel_custom_type/{type}/ban`: `banned_list` or
/// `user_ids` (``TypeRestrictionEntry/entries(_:listKey:)``).
struct BanInTypeBody: Decodable {
    let entries: [TypeRestrictionEntry]
    init(from decoder: any Decoder) throws { entries = try TypeRestrictionEntry.entries(decoder, listKey: "banned_list") }
}

/// `POST /v3/applications/settings_by_channel_custom_type/{type}/mute`: `muted_list` or
/// `user_ids` (``TypeRestrictionEntry/entries(_:listKey:)``).
struct MuteInTypeBody: Decodable {
    let entries: [TypeRestrictionEntry]
    init(from decoder: any Decoder) throws { entries = try TypeRestrictionEntry.entries(decoder, listKey: "muted_list") }
}

/// `DELETE /v3/applications/settings_by_channel_custom_type/{type}/ban` and `…/mute`: `user_ids`,
/// read only when the query names none (one of the two must).
struct LiftInTypeBody: Decodable {
    let userIds: [String]
    enum CodingKeys: String, CodingKey { case userIds = "user_ids" }

    init(from decoder: any Decoder) throws {
        userIds = try decoder.container(keyedBy: CodingKeys.self).stringArray(.userIds) ?? []
    }
}
