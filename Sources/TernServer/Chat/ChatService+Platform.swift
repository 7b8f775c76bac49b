import Foundation
import TernProtocol

/// What the Platform API keeps beside the chat itself (``PlatformStore``): settings documents,
/// device tokens, statistics, exports and migrations. Mostly plain reads and writes; the rules
/// that go with them (a migration's channel forgotten from the caches) are here, once.
extension ChatService {
    // MARK: - Settings documents

    /// A settings document (JSON text) by scope and key, or nil. Settings that a cache holds
    /// (bots, API tokens, filters, reactions, the allow-list) have their own methods, which keep
    /// the cache right; these are for documents read at each request.
    func setting(scope: String, key: String) async throws -> String? { try await store.setting(scope: scope, key: key) }

    /// Stores a settings document; nil deletes it.
    func setSetting(scope: String, key: String, json: String?) async throws {
        try await store.setSetting(scope: scope, key: key, json: json)
    }

    /// Every document of a scope whose key starts with `keyPrefix`, ordered by key.
    func settings(scope: String, keyPrefix: String) async throws -> [(key: String, json: String)] {
        try await store.settings(scope: scope, keyPrefix: keyPrefix)
    }

    /// Deletes every document of a scope whose key starts with `keyPrefix`. Returns how many.
    @discardableResult
    func deleteSettings(scope: String, keyPrefix: String) async throws -> Int {
        try await store.deleteSettings(scope: scope, keyPrefix: keyPrefix)
    }

    // MARK: - Device tokens

    /// Registers a device token for a user (several users may share one token, as on Sendbird).
    func addDeviceToken(userId: String, type: String, token: String) async throws {
        try await store.addDeviceToken(userId: userId, type: type, token: token, at: now())
    }

    /// A user's tokens of a type, oldest first.
    func deviceTokens(userId: String, type: String) async throws -> [String] {
        try await store.deviceTokens(userId: userId, type: type)
    }

    /// Removes a token from one user (nil: from every owner). Returns the owners it was removed from.
    func removeDeviceToken(type: String, token: String, userId: String?) async throws -> [String] {
        try await store.removeDeviceToken(type: type, token: token, userId: userId)
    }

    /// Removes every token of a user. Returns how many.
    @discardableResult
    func removeDeviceTokens(userId: String) async throws -> Int { try await store.removeDeviceTokens(userId: userId) }

    /// Who holds a token.
    func deviceTokenOwners(type: String, token: String) async throws -> [String] {
        try await store.deviceTokenOwners(type: type, token: token)
    }

    // MARK: - Statistics

    /// How many users were seen on any day from `firstDay` to `lastDay` (UTC day numbers).
    func activeUsers(firstDay: Int64, lastDay: Int64) async throws -> Int {
        try await store.activeUsers(firstDay: firstDay, lastDay: lastDay)
    }

    /// Per UTC day: messages created, distinct senders, distinct channels.
    func dailyMessageStats(firstDay: Int64, lastDay: Int64) async throws -> [Int64: (messages: Int, senders: Int, channels: Int)] {
        try await store.dailyMessageStats(firstDay: firstDay, lastDay: lastDay)
    }

    /// Per UTC day: channels created.
    func dailyCreatedChannels(firstDay: Int64, lastDay: Int64) async throws -> [Int64: Int] {
        try await store.dailyCreatedChannels(firstDay: firstDay, lastDay: lastDay)
    }

    // MARK: - Exports and migrations

    /// Messages created in `[from, to]` (ms), oldest first, at most `limit`, optionally only in
    /// these channels and from these senders.
    func exportMessages(from: Int64, to: Int64, channelUrls: [String]?, senderIds: [String]?, limit: Int) async throws -> [MessageRecord] {
        try await store.exportMessages(from: from, to: to, channelUrls: channelUrls, senderIds: senderIds, limit: limit)
    }

    /// Every channel (group and open), by URL, optionally only these.
    func exportChannels(channelUrls: [String]?, limit: Int) async throws -> [ChannelRecord] {
        try await store.exportChannels(channelUrls: channelUrls, limit: limit)
    }

    /// Stores historical messages with their own times (a migration): nobody is notified and no
    /// unread count changes; the channel's cached roster is forgotten (its last message may have
    /// moved). Returns the new ids.
    func importMessages(_ channelUrl: String, _ messages: [NewMessage]) async throws -> [Int64] {
        let ids = try await store.importMessages(channelUrl, messages)
        invalidateChannel(channelUrl)
        return ids
    }
}
