import Foundation
import TernProtocol

/// `PUT /v3/applications/settings/webhook`: what is given changes: `enabled`, `url` (http or
/// https; empty turns it off), `include_members`, `include_unread_count`, `enabled_events` (known
/// categories, or `*`). That an enabled webhook has a URL is the handler's check.
struct WebhookChangesBody: Decodable {
    let enabled: Bool?
    let url: String?
    let includeMembers: Bool?
    let includeUnreadCount: Bool?
    let enabledEvents: [String]?
    enum CodingKeys: String, CodingKey {
        case enabled, url
        case includeMembers = "include_members"
        case includeUnreadCount = "include_unread_count"
        case enabledEvents = "enabled_events"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        enabled = try c.bool(.enabled)
        url = try c.string(.url)
        if let url, !url.isEmpty { try WebURL.check(url, field: "url") }
        includeMembers = try c.bool(.includeMembers)
        includeUnreadCount = try c.bool(.includeUnreadCount)
        enabledEvents = try c.stringArray(.enabledEvents)
        let known = Set(WebhookDispatcher.categories + ["*"])
        if let bad = enabledEvents?.first(where: { !known.contains($0) }) {
            throw SendbirdError(.invalidValue, "Invalid value: \"enabled_events\": unknown category \(bad).")
        }
    }
}

/// `PUT /v3/applications/default_channel_invitation_preference`: `auto_accept`, required.
struct InvitationDefaultBody: Decodable {
    let autoAccept: Bool
    enum CodingKeys: String, CodingKey { case autoAccept = "auto_accept" }

    init(from decoder: any Decoder) throws {
        guard let auto = try decoder.container(keyedBy: CodingKeys.self).bool(.autoAccept) else { throw SendbirdError.missing("auto_accept") }
        autoAccept = auto
    }
}

/// `PUT /v3/applications/push/message_templates/{name}`: `mesg`, `file` and `admm`, each optional
/// (a custom type's length at most); what is given changes.
struct PushTemplateChangesBody: Decodable {
    /// The given texts by key, in the order read.
    let texts: [(key: String, text: String)]
    enum CodingKeys: String, CodingKey, CaseIterable { case mesg, file, admm }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        var texts: [(key: String, text: String)] = []
        for key in CodingKeys.allCases {
            if let v = try c.string(key) {
                try TextLimit.customType.check(v)
                texts.append((key.rawValue, v))
            }
        }
        self.texts = texts
    }
}

/// `PUT` and `DELETE /v3/applications/settings/ip_whitelist`: `ip_whitelist_addresses` (a list,
/// or comma-separated). Adding needs at least one; removing reads the body only when the query
/// names none.
struct IPAllowListBody: Decodable {
    let addresses: [String]
    enum CodingKeys: String, CodingKey { case addresses = "ip_whitelist_addresses" }

    init(from decoder: any Decoder) throws {
        addresses = try decoder.container(keyedBy: CodingKeys.self).stringArray(.addresses) ?? []
    }
}
