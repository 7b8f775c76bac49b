import Foundation
import TernProtocol

/// The fields of an announcement that `POST /v3/announcements` and
/// `PUT /v3/announcements/{unique_id}` (without `action`) set, read by type only: none is required
/// here, since what the message and the targets need depends on the announcement they change
/// (``AnnouncementRoutes/apply(_:to:)`` checks the values, in the order it always has).
struct AnnouncementBody: Decodable {
    /// `message`'s `type`, `user_id` and `content` as given (any JSON value); none when `message`
    /// is not an object.
    var message: [String: Any] = [:]
    var messageType: String?
    var userId: String?
    var content: String?
    var targetAt: String?
    var targetList: [String]?
    var targetChannelType: String?
    var announcementGroup: String?
    var messageCustomType: String?
    var messageData: String?
    var enablePush: Bool?
    var markAsRead: Bool?
    var createChannel: Bool?
    var scheduledAt: Int64?
    var endAt: Int64?

    enum CodingKeys: String, CodingKey {
        case message
        case messageType = "message_type"
        case userId = "user_id"
        case content
        case targetAt = "target_at"
        case targetList = "target_list"
        case targetChannelType = "target_channel_type"
        case announcementGroup = "announcement_group"
        case messageCustomType = "message_custom_type"
        case messageData = "message_data"
        case enablePush = "enable_push"
        case markAsRead = "mark_as_read"
        case createChannel = "create_channel"
        case scheduledAt = "scheduled_at"
        case endAt = "end_at"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let m = c.raw(.message) as? [String: Any] { message = m.filter { ["type", "user_id", "content"].contains($0.key) } }
        messageType = try c.string(.messageType)
        userId = try c.string(.userId)
        content = try c.string(.content)
        targetAt = try c.string(.targetAt)
        targetList = try c.stringArray(.targetList)
        targetChannelType = try c.string(.targetChannelType)
        announcementGroup = try c.string(.announcementGroup)
        messageCustomType = try c.string(.messageCustomType)
        messageData = try c.string(.messageData)
        enablePush = try c.bool(.enablePush)
        markAsRead = try c.bool(.markAsRead)
        createChannel = try c.bool(.createChannel)
        scheduledAt = try c.int(.scheduledAt)
        endAt = try c.int(.endAt)
    }
}

/// `POST /v3/announcements`: an optional `unique_id` (empty means none: one is made up; at most
/// 128 characters, one spelling) and the announcement's fields (``AnnouncementBody``).
struct AnnouncementCreateBody: Decodable {
    let uniqueId: String?
    let fields: AnnouncementBody
    enum CodingKeys: String, CodingKey { case uniqueId = "unique_id" }

    init(from decoder: any Decoder) throws {
        uniqueId = try decoder.container(keyedBy: CodingKeys.self).string(.uniqueId).flatMap { $0.isEmpty ? nil : $0 }
        if let id = uniqueId {
            try TextLimit.customType.check(id)
            try Identifier.check(id, field: "unique_id")
        }
        fields = try AnnouncementBody(from: decoder)
    }
}

/// `PUT /v3/announcements/{unique_id}`: an `action` (pause, resume, cancel, stop), or without one
/// new values for the announcement (``AnnouncementBody``, not read when there is an action).
struct AnnouncementUpdateBody: Decodable {
    let action: String?
    let fields: AnnouncementBody?
    enum CodingKeys: String, CodingKey { case action }

    init(from decoder: any Decoder) throws {
        action = try decoder.container(keyedBy: CodingKeys.self).string(.action)
        fields = action == nil ? try AnnouncementBody(from: decoder) : nil
    }
}
