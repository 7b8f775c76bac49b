import Foundation
import TernProtocol

/// The fields of a bot that `POST /v3/bots` and `PUT /v3/bots/{bot_userid}` read.
private enum BotKeys: String, CodingKey {
    case botUserId = "bot_userid"
    case nickname = "bot_nickname"
    case callbackUrl = "bot_callback_url"
    case type = "bot_type"
    case profileUrl = "bot_profile_url"
    case isPrivacyMode = "is_privacy_mode"
    case enableMarkAsRead = "enable_mark_as_read"
    case showMember = "show_member"
    case channelInvitationPreference = "channel_invitation_preference"
}

/// `POST /v3/bots`: `bot_userid` (not empty), `bot_nickname` and `bot_callback_url` (not empty)
/// are required; `bot_type`, `bot_profile_url`, the switches and `channel_invitation_preference`
/// are optional. Each value is checked as it is read.
struct BotCreateBody: Decodable {
    let botUserId: String
    let nickname: String
    let callbackUrl: String
    let type: String
    let profileUrl: String
    let isPrivacyMode: Bool
    let enableMarkAsRead: Bool
    let showMember: Bool
    let channelInvitationPreference: Int

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: BotKeys.self)
        guard let id = try c.string(.botUserId), !id.isEmpty else { throw SendbirdError.missing("bot_userid") }
        try ChatService.checkUserId(id)
        botUserId = id
        guard let nickname = try c.string(.nickname) else { throw SendbirdError.missing("bot_nickname") }
        try ChatService.checkNickname(nickname)
        self.nickname = nickname
        guard let callback = try c.string(.callbackUrl), !callback.isEmpty else { throw SendbirdError.missing("bot_callback_url") }
        try WebURL.check(callback, field: "bot_callback_url")
        callbackUrl = callback
        type = try c.string(.type) ?? ""
        try TextLimit.customType.check(type)
        profileUrl = try c.string(.profileUrl) ?? ""
        try TextLimit.profileUrl.check(profileUrl)
        isPrivacyMode = try c.bool(.isPrivacyMode) ?? false
        enableMarkAsRead = try c.bool(.enableMarkAsRead) ?? true
        showMember = try c.bool(.showMember) ?? false
        channelInvitationPreference = Int(try c.int(.channelInvitationPreference) ?? 1)
    }
}

/// `PUT /v3/bots/{bot_userid}`: what is given changes (the callback URL, the switches, the
/// invitation preference, the bot user's nickname and profile URL); nothing is required.
struct BotChangesBody: Decodable {
    var callbackUrl: String?
    var isPrivacyMode: Bool?
    var enableMarkAsRead: Bool?
    var showMember: Bool?
    var channelInvitationPreference: Int?
    var nickname: String?
    var profileUrl: String?

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: BotKeys.self)
        callbackUrl = try c.string(.callbackUrl)
        if let callbackUrl { try WebURL.check(callbackUrl, field: "bot_callback_url") }
        isPrivacyMode = try c.bool(.isPrivacyMode)
        enableMarkAsRead = try c.bool(.enableMarkAsRead)
        showMember = try c.bool(.showMember)
        channelInvitationPreference = try c.int(.channelInvitationPreference).map { Int($0) }
        nickname = try c.string(.nickname)
        if let nickname { try ChatService.checkNickname(nickname) }
        profileUrl = try c.string(.profileUrl)
        if let profileUrl { try TextLimit.profileUrl.check(profileUrl) }
    }
}

/// `POST /v3/bots/{bot_userid}/channels`: `channel_urls`, at least one.
struct BotJoinBody: Decodable {
    let channelUrls: [String]
    enum CodingKeys: String, CodingKey { case channelUrls = "channel_urls" }

    init(from decoder: any Decoder) throws {
        let urls = try decoder.container(keyedBy: CodingKeys.self).stringArray(.channelUrls) ?? []
        if urls.isEmpty { throw SendbirdError.missing("channel_urls") }
        try Identifier.check(urls, field: "channel_urls")
        channelUrls = urls
    }
}

/// `POST /v3/bots/{bot_userid}/send` (JSON or a multipart form): `channel_url` (not empty) and
/// `message` are required; `custom_type`, `data`, `mentioned` and `mark_as_read` (default true)
/// are optional.
struct BotSendBody: Decodable {
    let message: OutgoingMessage
    let markAsRead: Bool
    enum CodingKeys: String, CodingKey {
        case channelUrl = "channel_url"
        case message
        case customType = "custom_type"
        case data
        case mentioned
        case markAsRead = "mark_as_read"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard let url = try c.string(.channelUrl), !url.isEmpty else { throw SendbirdError.missing("channel_url") }
        guard let text = try c.string(.message) else { throw SendbirdError.missing("message") }
        var out = OutgoingMessage(channelUrl: url, message: text)
        out.customType = try c.string(.customType) ?? ""
        out.data = try c.string(.data) ?? ""
        out.mentionedUserIds = try c.stringArray(.mentioned) ?? []
        message = out
        markAsRead = try c.bool(.markAsRead) ?? true
    }
}
