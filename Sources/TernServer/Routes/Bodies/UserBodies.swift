import Foundation
import TernProtocol

/// `POST /v3/users`: `user_id` is required; `nickname`, `profile_url`, `metadata` (at most 5
/// items) and `issue_access_token` are optional. Each value is checked as it is read.
struct NewUserBody: Decodable {
    let userId: String
    let nickname: String
    let profileUrl: String
    let metadata: [String: String]
    let issueAccessToken: Bool
    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case nickname
        case profileUrl = "profile_url"
        case metadata
        case issueAccessToken = "issue_access_token"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        userId = try c.requiredString(.userId)
        try ChatService.checkUserId(userId)
        nickname = try c.string(.nickname) ?? ""
        try ChatService.checkNickname(nickname)
        profileUrl = try c.string(.profileUrl) ?? ""
        try TextLimit.profileUrl.check(profileUrl)
        metadata = try c.stringMap(.metadata) ?? [:]
        try UserRoutes.checkMetadata(metadata)
        issueAccessToken = try c.bool(.issueAccessToken) == true
    }
}

/// `PUT /v3/users/{user_id}`: what is given changes (`nickname`, `profile_url`, `metadata`,
/// `is_active`); `issue_access_token` replaces the user's tokens. Nothing is required; that
/// `is_active` and `issue_access_token` are for the Platform API is the handler's check.
struct UserChangesBody: Decodable {
    let nickname: String?
    let profileUrl: String?
    let metadata: [String: String]?
    let isActive: Bool?
    let issueAccessToken: Bool
    enum CodingKeys: String, CodingKey {
        case nickname
        case profileUrl = "profile_url"
        case metadata
        case isActive = "is_active"
        case issueAccessToken = "issue_access_token"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        nickname = try c.string(.nickname)
        if let nickname { try ChatService.checkNickname(nickname) }
        profileUrl = try c.string(.profileUrl)
        if let profileUrl { try TextLimit.profileUrl.check(profileUrl) }
        metadata = try c.stringMap(.metadata)
        if let metadata { try UserRoutes.checkMetadata(metadata) }
        isActive = try c.bool(.isActive)
        issueAccessToken = try c.bool(.issueAccessToken) == true
    }
}

/// `POST /v3/users/{user_id}/token`: `expires_at` (ms; 0 or absent: never) is optional. That it is
/// in the future is the handler's check.
struct AccessTokenBody: Decodable {
    let expiresAt: Int64
    enum CodingKeys: String, CodingKey { case expiresAt = "expires_at" }

    init(from decoder: any Decoder) throws {
        expiresAt = try decoder.container(keyedBy: CodingKeys.self).int(.expiresAt) ?? 0
    }
}

/// `POST /v3/users/{user_id}/metadata`: `metadata`, a non-empty object of strings, is required.
struct NewUserMetadataBody: Decodable {
    let metadata: [String: String]
    enum CodingKeys: String, CodingKey { case metadata }

    init(from decoder: any Decoder) throws {
        guard let m = try decoder.container(keyedBy: CodingKeys.self).stringMap(.metadata), !m.isEmpty else {
            throw SendbirdError.missing("metadata")
        }
        metadata = m
    }
}

/// `PUT /v3/users/{user_id}/metadata`: `metadata` (a non-empty object of strings) is required;
/// `upsert` adds the keys that are missing.
struct UserMetadataChangesBody: Decodable {
    let upsert: Bool
    let metadata: [String: String]
    enum CodingKeys: String, CodingKey { case upsert, metadata }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        upsert = try c.bool(.upsert) ?? false
        guard let m = try c.stringMap(.metadata), !m.isEmpty else { throw SendbirdError.missing("metadata") }
        metadata = m
    }
}

/// `POST /v3/users/{user_id}/block`: `user_ids` (several at once) or, when that is not given,
/// `target_id` (required then).
struct BlockBody: Decodable {
    /// The ids of `user_ids`, or nil when it is not given.
    let userIds: [String]?
    let targetId: String
    enum CodingKeys: String, CodingKey {
        case userIds = "user_ids"
        case targetId = "target_id"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // An empty list beside a `target_id` is "not given" (the legacy Platform SDK always sends
        // `user_ids: []` with its `target_id`).
        let list = try c.stringArray(.userIds)
        let target = try c.string(.targetId).flatMap { $0.isEmpty ? nil : $0 }
        userIds = list?.isEmpty == true && target != nil ? nil : list
        targetId = userIds == nil ? try target ?? c.requiredString(.targetId) : ""
    }
}

/// `PUT /v3/users/{user_id}/count_preference/{channel_url}`: `count_preference` is required, a
/// string, or `false` for off (as Sendbird also accepts).
struct CountPreferenceChangeBody: Decodable {
    let countPreference: String
    enum CodingKeys: String, CodingKey { case countPreference = "count_preference" }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let s = try? c.string(.countPreference) {
            countPreference = s
        } else if try c.bool(.countPreference) == false {
            countPreference = "off"
        } else {
            throw SendbirdError.missing("count_preference")
        }
    }
}

/// `PUT /v3/users/{user_id}/mark_as_read_all`: `channel_urls` (only those channels) is optional.
struct MarkAllReadBody: Decodable {
    let channelUrls: [String]?
    enum CodingKeys: String, CodingKey { case channelUrls = "channel_urls" }

    init(from decoder: any Decoder) throws {
        channelUrls = try decoder.container(keyedBy: CodingKeys.self).stringArray(.channelUrls)
    }
}
