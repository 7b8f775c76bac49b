import Foundation
import TernProtocol

/// `POST /v3/export/{data_type}`: `start_ts` and `end_ts` (ms) required, the end not before the
/// start; `format` json (the default) or csv; `csv_delimiter` one character (`,`); `timezone` an
/// IANA zone (`UTC`); and the filters `channel_urls`, `sender_ids` (messages) and `user_ids`
/// (users), kept in the record as given.
struct ExportBody: Decodable {
    let from: Int64
    let to: Int64
    let format: String
    let delimiter: String
    let timezone: String
    let channelUrls: [String]?
    let senderIds: [String]?
    let userIds: [String]?

    enum CodingKeys: String, CodingKey {
        case startTs = "start_ts"
        case endTs = "end_ts"
        case format
        case csvDelimiter = "csv_delimiter"
        case timezone
        case channelUrls = "channel_urls"
        case senderIds = "sender_ids"
        case userIds = "user_ids"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard let from = try c.int(.startTs) else { throw SendbirdError.missing("start_ts") }
        guard let to = try c.int(.endTs) else { throw SendbirdError.missing("end_ts") }
        if to < from { throw SendbirdError(.invalidValue, "Invalid value: \"end_ts\" is before \"start_ts\".") }
        (self.from, self.to) = (from, to)
        format = (try c.string(.format) ?? "json").lowercased()
        guard ["json", "csv"].contains(format) else { throw SendbirdError(.invalidValue, "Invalid value: \"format\" must be json or csv.") }
        delimiter = try c.string(.csvDelimiter) ?? ","
        guard delimiter.count == 1, delimiter != "\"", delimiter != "\n" else {
            throw SendbirdError(.invalidValue, "Invalid value: \"csv_delimiter\" is one character.")
        }
        timezone = try c.string(.timezone) ?? "UTC"
        guard TimeZone(identifier: timezone) != nil else { throw SendbirdError(.invalidValue, "Invalid value: \"timezone\".") }
        channelUrls = try c.stringArray(.channelUrls)
        senderIds = try c.stringArray(.senderIds)
        userIds = try c.stringArray(.userIds)
    }
}

/// `POST /v3/migration/{target_channel_url}`: `messages`, required, a list of 1 to 100 objects
/// (``MigratedMessageBody``).
struct MigrationBody: Decodable {
    let messages: [MigratedMessageBody]
    enum CodingKeys: String, CodingKey { case messages }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // `null` is a value of the wrong type here, not "not given".
        guard c.contains(.messages) else { throw SendbirdError.missing("messages") }
        guard let items = c.raw(.messages) as? [[String: Any]], !items.isEmpty else {
            throw SendbirdErrorFactory.wrongType("messages", "non-empty list of objects")
        }
        if items.count > 100 { throw SendbirdError(.tooManyItems, "At most 100 messages a call.") }
        messages = try c.decode([MigratedMessageBody].self, forKey: .messages)
    }
}

/// One message of a migration, read by type only (the import checks the values, item by item,
/// in the order it always has): `message_type` MESG (the default), ADMM or FILE; `timestamp`;
/// `user_id` (not read for ADMM); `message`, `custom_type`, `data`, `mention_type`,
/// `mentioned_user_ids`; for FILE `url`, `file_name`, `file_size`, `file_type`. A `message_type`
/// of another kind stops the reading: the import refuses it first.
struct MigratedMessageBody: Decodable {
    var type = "MESG"
    var timestamp: Int64?
    var userId: String?
    var message: String?
    var customType: String?
    var data: String?
    var mentionedUserIds: [String]?
    var url: String?
    var fileName: String?
    var fileSize: Int64?
    var fileType: String?
    var mentionType: String?

    static let types: Set<String> = ["MESG", "ADMM", "FILE"]

    enum CodingKeys: String, CodingKey {
        case messageType = "message_type"
        case timestamp
        case userId = "user_id"
        case message
        case customType = "custom_type"
        case data
        case mentionedUserIds = "mentioned_user_ids"
        case url
        case fileName = "file_name"
        case fileSize = "file_size"
        case fileType = "file_type"
        case mentionType = "mention_type"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        type = (try c.string(.messageType) ?? "MESG").uppercased()
        guard Self.types.contains(type) else { return }
        timestamp = try c.int(.timestamp)
        if type != "ADMM" { userId = try c.string(.userId) }
        message = try c.string(.message)
        customType = try c.string(.customType)
        data = try c.string(.data)
        mentionedUserIds = try c.stringArray(.mentionedUserIds)
        if type == "FILE" {
            url = try c.string(.url)
            fileName = try c.string(.fileName)
            fileSize = try c.int(.fileSize)
            fileType = try c.string(.fileType)
        }
        mentionType = try c.string(.mentionType)
    }
}

/// `POST /v3/privacy/gdpr`: `action` access or delete and `user_id` (not empty), required;
/// `channel_delete_option` do_not_delete (the default), 1_on_1_only or all.
struct GDPRRequestBody: Decodable {
    let action: String
    let userId: String
    let channelDeleteOption: String

    enum CodingKeys: String, CodingKey {
        case action
        case userId = "user_id"
        case channelDeleteOption = "channel_delete_option"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard let action = try c.string(.action), ["access", "delete"].contains(action) else {
            throw SendbirdError(.invalidValue, "Invalid value: \"action\" must be access or delete.")
        }
        self.action = action
        guard let user = try c.string(.userId), !user.isEmpty else { throw SendbirdError.missing("user_id") }
        try Identifier.check(user, field: "user_id")
        userId = user
        channelDeleteOption = try c.string(.channelDeleteOption) ?? "do_not_delete"
        guard ["do_not_delete", "1_on_1_only", "all"].contains(channelDeleteOption) else {
            throw SendbirdError(.invalidValue, "Invalid value: \"channel_delete_option\" must be do_not_delete, 1_on_1_only or all.")
        }
    }
}
