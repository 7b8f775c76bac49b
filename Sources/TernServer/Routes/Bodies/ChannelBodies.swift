import Foundation
import Hummingbird
import TernProtocol

/// A body read one way for the Platform API and another for an SDK user: fields only the
/// Platform API's requests read (`inviter_id`, a list of `user_ids`; an SDK user's wrong value
/// there is no error), or that only it must give (`user_id`; an SDK user's is checked against
/// the caller first, by the handler). `init(from:)` is the Platform API's reading;
/// ``Request/decode(as:for:context:)`` picks one.
protocol PlatformFieldsBody: Decodable {
    init(from decoder: any Decoder, platform: Bool) throws
}

/// A ``PlatformFieldsBody`` read as an SDK user sends it.
struct SDKUserBody<Body: PlatformFieldsBody>: Decodable {
    let body: Body
    init(from decoder: any Decoder) throws { body = try Body(from: decoder, platform: false) }
}

extension Request {
    /// The body read as `caller` sends it (``PlatformFieldsBody``).
    func decode<Body: PlatformFieldsBody>(as type: Body.Type, for caller: Caller, context: RESTRequestContext) async throws -> Body {
        if caller.userId == nil { return try await decode(as: Body.self, context: context) }
        return try await decode(as: SDKUserBody<Body>.self, context: context).body
    }
}

/// An id that may be given as `""` for "not given".
private func nonEmpty(_ s: String?) -> String? { s.flatMap { $0.isEmpty ? nil : $0 } }

/// `POST /v3/group_channels`: the members (`user_ids`/`users`), the channel's properties, all
/// optional; the Platform API may name the creator in `inviter_id`.
struct GroupChannelCreateBody: PlatformFieldsBody {
    var request = CreateGroupChannelRequest(userIds: [])
    enum CodingKeys: String, CodingKey {
        case name
        case channelUrl = "channel_url"
        case coverUrl = "cover_url"
        case customType = "custom_type"
        case data
        case isDistinct = "is_distinct"
        case isPublic = "is_public"
        case isSuper = "is_super"
        case isEphemeral = "is_ephemeral"
        case operatorIds = "operator_ids"
        case inviterId = "inviter_id"
    }

    init(from decoder: any Decoder) throws { try self.init(from: decoder, platform: true) }

    init(from decoder: any Decoder, platform: Bool) throws {
        request.userIds = try UserIdsBody(from: decoder).ids
        let c = try decoder.container(keyedBy: CodingKeys.self)
        request.name = try c.string(.name) ?? ""
        request.channelUrl = nonEmpty(try c.string(.channelUrl))
        request.coverUrl = try c.string(.coverUrl) ?? ""
        request.customType = try c.string(.customType) ?? ""
        request.data = try c.string(.data) ?? ""
        request.isDistinct = try c.bool(.isDistinct) ?? false
        request.isPublic = try c.bool(.isPublic) ?? false
        request.isSuper = try c.bool(.isSuper) ?? false
        request.isEphemeral = try c.bool(.isEphemeral) ?? false
        request.operatorIds = try c.stringArray(.operatorIds) ?? []
        if platform { request.creator = nonEmpty(try c.string(.inviterId)) }
    }
}

/// `POST /v3/group_channels/{url}/invite`: who is invited (`user_ids`/`users`); the Platform API
/// may name the inviter in `inviter_id` (read first).
struct InviteBody: PlatformFieldsBody {
    var inviterId: String?
    var userIds: [String]
    enum CodingKeys: String, CodingKey { case inviterId = "inviter_id" }

    init(from decoder: any Decoder) throws { try self.init(from: decoder, platform: true) }

    init(from decoder: any Decoder, platform: Bool) throws {
        if platform { inviterId = nonEmpty(try decoder.container(keyedBy: CodingKeys.self).string(.inviterId)) }
        userIds = try UserIdsBody(from: decoder).ids
    }
}

/// `PUT /v3/group_channels/{url}/{accept,decline,join,reset_user_history}`: the member acting,
/// `user_id` (`""` is not given): required of the Platform API, the caller's own id from an SDK.
struct MemberBody: Decodable {
    let userId: String?
    enum CodingKeys: String, CodingKey { case userId = "user_id" }

    init(from decoder: any Decoder) throws {
        userId = nonEmpty(try decoder.container(keyedBy: CodingKeys.self).string(.userId))
    }
}

/// `PUT /v3/group_channels/{url}/leave`: ``MemberBody``'s `user_id`, or for the Platform API
/// several members in `user_ids` (read first; when it names some, `user_id` is not read).
struct LeaveBody: PlatformFieldsBody {
    var userIds: [String] = []
    var userId: String?
    enum CodingKeys: String, CodingKey { case userIds = "user_ids" }

    init(from decoder: any Decoder) throws { try self.init(from: decoder, platform: true) }

    init(from decoder: any Decoder, platform: Bool) throws {
        if platform { userIds = try decoder.container(keyedBy: CodingKeys.self).stringArray(.userIds) ?? [] }
        if userIds.isEmpty { userId = try MemberBody(from: decoder).userId }
    }
}

/// `PUT /v3/group_channels/{url}/hide`: ``MemberBody``'s `user_id` (required of the Platform
/// API), then `hide_previous_messages` (false) and `allow_auto_unhide` (true).
struct HideBody: PlatformFieldsBody {
    let userId: String?
    let hidePreviousMessages: Bool
    let allowAutoUnhide: Bool
    enum CodingKeys: String, CodingKey {
        case hidePreviousMessages = "hide_previous_messages"
        case allowAutoUnhide = "allow_auto_unhide"
    }

    init(from decoder: any Decoder) throws { try self.init(from: decoder, platform: true) }

    init(from decoder: any Decoder, platform: Bool) throws {
        userId = try MemberBody(from: decoder).userId
        if platform && userId == nil { throw SendbirdError.missing("user_id") }
        let c = try decoder.container(keyedBy: CodingKeys.self)
        hidePreviousMessages = try c.bool(.hidePreviousMessages) ?? false
        allowAutoUnhide = try c.bool(.allowAutoUnhide) ?? true
    }
}

/// `PUT /v3/users/{id}/channel_invitation_preference`: `auto_accept`, required.
struct InvitationPreferenceBody: Decodable {
    let autoAccept: Bool
    enum CodingKeys: String, CodingKey { case autoAccept = "auto_accept" }

    init(from decoder: any Decoder) throws {
        guard let auto = try decoder.container(keyedBy: CodingKeys.self).bool(.autoAccept) else { throw SendbirdError.missing("auto_accept") }
        autoAccept = auto
    }
}

/// The operators of an open channel: `operator_ids` from the Platform API, else `operators`
/// from the SDK (read only when `operator_ids` is not given).
struct OperatorIdsBody: Decodable {
    let ids: [String]?
    enum CodingKeys: String, CodingKey {
        case operatorIds = "operator_ids"
        case operators
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        ids = try c.stringArray(.operatorIds) ?? c.stringArray(.operators)
    }
}

/// `POST /v3/open_channels`: the channel's properties and operators (``OperatorIdsBody``), all
/// optional.
struct OpenChannelCreateBody: Decodable {
    var request = CreateOpenChannelRequest()
    enum CodingKeys: String, CodingKey {
        case channelUrl = "channel_url"
        case name
        case coverUrl = "cover_url"
        case customType = "custom_type"
        case data
        case isEphemeral = "is_ephemeral"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        request.channelUrl = nonEmpty(try c.string(.channelUrl))
        request.name = try c.string(.name) ?? ""
        request.coverUrl = try c.string(.coverUrl) ?? ""
        request.customType = try c.string(.customType) ?? ""
        request.data = try c.string(.data) ?? ""
        request.isEphemeral = try c.bool(.isEphemeral) ?? false
        request.operatorIds = try OperatorIdsBody(from: decoder).ids ?? []
    }
}

/// `PUT /v3/open_channels/{url}`: what both channel types change (``ChannelChangesBody``), and
/// the operators (``OperatorIdsBody``; not given leaves them).
struct OpenChannelUpdateBody: Decodable {
    let changes: ChatService.ChannelChanges
    let operatorIds: [String]?

    init(from decoder: any Decoder) throws {
        changes = try ChannelChangesBody(from: decoder).changes
        operatorIds = try OperatorIdsBody(from: decoder).ids
    }
}

/// The properties an update of either channel type may change (`PUT /v3/group_channels/{url}`
/// and `PUT /v3/open_channels/{url}` read the same fields).
struct ChannelChangesBody: Decodable {
    var changes = ChatService.ChannelChanges()
    enum CodingKeys: String, CodingKey {
        case name
        case coverUrl = "cover_url"
        case data
        case customType = "custom_type"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        changes.name = try c.string(.name)
        changes.coverUrl = try c.string(.coverUrl)
        changes.data = try c.string(.data)
        changes.customType = try c.string(.customType)
    }
}
