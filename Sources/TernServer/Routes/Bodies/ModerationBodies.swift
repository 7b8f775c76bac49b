import Foundation
import TernProtocol

/// `POST /v3/{group_channels|open_channels}/{url}/operators`: ``OperatorIdsBody``, required
/// (400104 names `operator_ids`).
struct AddOperatorsBody: Decodable {
    let ids: [String]

    init(from decoder: any Decoder) throws {
        guard let ids = try OperatorIdsBody(from: decoder).ids else { throw SendbirdError.missing("operator_ids") }
        self.ids = ids
    }
}

/// `DELETE …/{url}/operators`, when the query names none: `operator_ids` in the body, optional.
struct RemoveOperatorsBody: Decodable {
    let ids: [String]
    enum CodingKeys: String, CodingKey { case operatorIds = "operator_ids" }

    init(from decoder: any Decoder) throws {
        ids = try decoder.container(keyedBy: CodingKeys.self).stringArray(.operatorIds) ?? []
    }
}

/// `PUT …/{url}/ban/{user_id}` (and what ``RestrictBody`` reads after the users): `seconds`,
/// how long (optional), and `description` (`""`).
struct RestrictionTermsBody: Decodable {
    let seconds: Int64?
    let description: String
    enum CodingKeys: String, CodingKey { case seconds, description }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        seconds = try c.int(.seconds)
        description = try c.string(.description) ?? ""
    }
}

/// `POST …/{url}/ban` and `POST …/{url}/mute`: who, required: `user_id`, else several in
/// `user_ids`, `banned_list` or `muted_list` (the first given; `""` and `[]` are not given);
/// then ``RestrictionTermsBody``.
struct RestrictBody: Decodable {
    let userIds: [String]
    let terms: RestrictionTermsBody
    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case userIds = "user_ids"
        case bannedList = "banned_list"
        case mutedList = "muted_list"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let one = try c.string(.userId), !one.isEmpty {
            userIds = [one]
        } else {
            userIds = try c.stringArray(.userIds) ?? c.stringArray(.bannedList) ?? c.stringArray(.mutedList) ?? []
        }
        if userIds.isEmpty { throw SendbirdError.missing("user_id") }
        terms = try RestrictionTermsBody(from: decoder)
    }
}

/// `POST /v3/report/{group_channels|open_channels}/{url}[/messages/{id}]`: `report_category`
/// and `report_description` (`""`), `reporting_user_id` and `offending_user_id` (`""` is not
/// given), all optional. `POST /v3/report/users/{id}` reads ``UserReportBody``.
struct ReportBody: Decodable {
    var channelUrl: String?
    var category = ""
    var description = ""
    var reportingUserId: String?
    var offendingUserId: String?
    enum CodingKeys: String, CodingKey {
        case channelUrl = "channel_url"
        case category = "report_category"
        case description = "report_description"
        case reportingUserId = "reporting_user_id"
        case offendingUserId = "offending_user_id"
    }

    init(from decoder: any Decoder) throws { try self.init(from: decoder, ofUser: false) }

    /// A user report reads `channel_url` first and no `offending_user_id` (the path names them).
    init(from decoder: any Decoder, ofUser: Bool) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if ofUser { channelUrl = try c.string(.channelUrl).flatMap { $0.isEmpty ? nil : $0 } }
        category = try c.string(.category) ?? ""
        description = try c.string(.description) ?? ""
        reportingUserId = try c.string(.reportingUserId).flatMap { $0.isEmpty ? nil : $0 }
        if !ofUser { offendingUserId = try c.string(.offendingUserId).flatMap { $0.isEmpty ? nil : $0 } }
    }
}

/// `POST /v3/report/users/{id}`: `channel_url` (optional, `""` is not given), then
/// ``ReportBody``'s fields but `offending_user_id`.
struct UserReportBody: Decodable {
    let report: ReportBody
    init(from decoder: any Decoder) throws { report = try ReportBody(from: decoder, ofUser: true) }
}
