import Foundation
import Synchronization
import TernProtocol

/// A bot (`/v3/bots`): a user with a callback URL. Every message sent in a channel the bot is a
/// member of (by anyone but the bot) is POSTed to its callback URL as `bot_message_notification`
/// — in privacy mode only messages that start with `/` or mention the bot — through the same
/// bounded, ordered, retrying queue as webhooks.
public struct BotRecord: Codable, Sendable, Equatable {
    public var botUserId: String
    public var botType: String
    public var callbackUrl: String
    public var isPrivacyMode: Bool
    public var enableMarkAsRead: Bool
    public var showMember: Bool
    public var channelInvitationPreference: Int
    public var createdAt: Int64
    enum CodingKeys: String, CodingKey {
        case botUserId = "bot_userid"
        case botType = "bot_type"
        case callbackUrl = "bot_callback_url"
        case isPrivacyMode = "is_privacy_mode"
        case enableMarkAsRead = "enable_mark_as_read"
        case showMember = "show_member"
        case channelInvitationPreference = "channel_invitation_preference"
        case createdAt = "created_at"
    }
}

extension ChatService {
    /// Every bot, by user id (loaded from the store once, then kept in memory).
    func allBots() async throws -> [String: BotRecord] { try await settingsCache.allBots() }

    func saveBot(_ bot: BotRecord) async throws {
        let json = String(decoding: try JSONEncoder().encode(bot), as: UTF8.self)
        try await settingsCache.change([.init(scope: ApplicationSettingsCache.Scope.bots, key: bot.botUserId, json: json)])
    }

    func forgetBot(_ id: String) async throws {
        try await settingsCache.change([.init(scope: ApplicationSettingsCache.Scope.bots, key: id, json: nil)])
    }

    /// Creates a bot: its user (who accepts invitations at once) and its settings. Returns the
    /// bot's token, an access token of the bot user shown once.
    func createBot(_ bot: BotRecord, user: UserRecord) async throws -> String {
        try await createUser(user)
        try await store.setInvitationAutoAccept(userId: user.userId, true)
        try await saveBot(bot)
        return try await issueAccessToken(userId: user.userId)
    }

    /// Deletes a bot and its user (``deleteUser(_:reason:)``).
    func deleteBot(_ id: String) async throws {
        try await forgetBot(id)
        try await deleteUser(id, reason: "The bot was deleted.")
    }

    /// Tells the bots among a channel's members about a message (not their own).
    func notifyBots(_ m: MessageRecord, roster: ChannelRoster) async {
        guard m.type != "ADMM", !roster.channel.isOpen else { return }
        guard let known = try? await allBots(), !known.isEmpty else { return }
        for member in roster.members where member.state == "joined" && member.userId != m.senderId {
            guard let bot = known[member.userId] else { continue }
            if bot.isPrivacyMode && !m.message.hasPrefix("/") && !m.mentionedUserIds.contains(bot.botUserId) { continue }
            var body: [String: Any] = [
                "category": "bot_message_notification", "app_id": config.appId, "channel": webhookChannel(roster.channel),
                "sender": await webhookUser(m.senderId),
                "message": [
                    "message_id": m.messageId, "type": m.type, "text": m.message, "custom_type": m.customType, "data": m.data,
                    "created_at": m.createdAt, "mentioned_users": m.mentionedUserIds,
                ] as [String: Any],
            ]
            var botInfo = await webhookUser(bot.botUserId)
            botInfo["bot_userid"] = bot.botUserId
            botInfo["bot_type"] = bot.botType
            body["bot"] = botInfo
            if bot.showMember {
                var members: [[String: Any]] = []
                for x in roster.members where x.state == "joined" { members.append(await webhookUser(x.userId)) }
                body["members"] = members
            }
            webhooks.emit(body, to: bot.callbackUrl)
        }
    }
}
