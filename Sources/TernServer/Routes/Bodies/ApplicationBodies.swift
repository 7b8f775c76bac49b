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

/// `PUT /v3/applications/settings_global[/{custom_type}]`: `profanity_filter` {keywords,
/// regex_filters, type, should_check_global} and `domain_filter` {domains, type,
/// should_check_global}, each optional; a part that is given must be an object, and what it gives
/// replaces what is stored (what it does not give stays). A value of the wrong type (`null`
/// among them) is 400100; the ranges are ``ContentFilter/validate()``'s.
struct FilterChangesBody: Decodable {
    let profanity: Words?
    let domains: Domains?
    enum CodingKeys: String, CodingKey {
        case profanity = "profanity_filter"
        case domains = "domain_filter"
    }

    static let wrongType = SendbirdError(.invalidValueType, "Invalid value type in the filter settings.")

    struct Words: Decodable {
        let keywords: [String]?
        let regexFilters: [ContentFilter.Words.Regex]?
        let type: Int?
        let shouldCheckGlobal: Bool?

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: ContentFilter.Words.CodingKeys.self)
            keywords = try c.exactly([String].self, .keywords, else: FilterChangesBody.wrongType)
            regexFilters = try c.exactly([ContentFilter.Words.Regex].self, .regexFilters, else: FilterChangesBody.wrongType)
            type = try c.exactly(Int.self, .type, else: FilterChangesBody.wrongType)
            shouldCheckGlobal = try c.exactly(Bool.self, .shouldCheckGlobal, else: FilterChangesBody.wrongType)
        }

        func apply(to w: inout ContentFilter.Words) {
            if let keywords { w.keywords = keywords }
            if let regexFilters { w.regexFilters = regexFilters }
            if let type { w.type = type }
            if let shouldCheckGlobal { w.shouldCheckGlobal = shouldCheckGlobal }
        }
    }

    struct Domains: Decodable {
        let domains: [String]?
        let type: Int?
        let shouldCheckGlobal: Bool?

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: ContentFilter.Domains.CodingKeys.self)
            domains = try c.exactly([String].self, .domains, else: FilterChangesBody.wrongType)
            type = try c.exactly(Int.self, .type, else: FilterChangesBody.wrongType)
            shouldCheckGlobal = try c.exactly(Bool.self, .shouldCheckGlobal, else: FilterChangesBody.wrongType)
        }

        func apply(to d: inout ContentFilter.Domains) {
            if let domains { d.domains = domains }
            if let type { d.type = type }
            if let shouldCheckGlobal { d.shouldCheckGlobal = shouldCheckGlobal }
        }
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        profanity = try c.nested(Words.self, .profanity)
        domains = try c.nested(Domains.self, .domains)
    }
}
