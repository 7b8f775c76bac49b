import Foundation
import Synchronization
import TernProtocol

/// Application-wide state the Platform API manages: secondary API tokens and connection peaks.
extension ChatService {
    /// Where secondary API tokens are kept: their SHA-256 (hex) as the key, `created_at` and a
    /// `hint` (the last four characters) as the document. The token itself is never stored.
    static let apiTokenScope = ApplicationSettingsCache.Scope.apiTokens

    /// Whether `token` is the master API token or a secondary one (compared in constant time).
    func isAPIToken(_ token: String) async throws -> Bool {
        if Credentials.constantTimeEqual(token, config.apiToken) { return true }
        let hash = Array(Credentials.hash(token).utf8)
        var matched = false
        for stored in try await secondaryAPITokens() {
            let s = Array(stored.utf8)
            guard s.count == hash.count else { continue }
            var diff: UInt8 = 0
            for i in 0..<s.count { diff |= s[i] ^ hash[i] }
            if diff == 0 { matched = true }
        }
        return matched
    }

    /// The hashes of the secondary API tokens (loaded from the store once, then kept in memory).
    func secondaryAPITokens() async throws -> [String] { try await settingsCache.apiTokens() }

    /// Issues a secondary API token (at most 10, as Sendbird allows); only its hash is stored.
    func issueAPIToken() async throws -> (token: String, createdAt: Int64) {
        let existing = try await secondaryAPITokens()
        if existing.count >= 10 { throw SendbirdError(.tooManyItems, "At most 10 secondary API tokens.") }
        let token = Credentials.randomToken(bytes: 20)
        let t = now()
        let hash = Credentials.hash(token)
        try await settingsCache.change([.init(scope: Self.apiTokenScope, key: hash, json: "{\"created_at\":\(t),\"hint\":\"\(token.suffix(4))\"}")])
        return (token, t)
    }

    /// A secondary token's stored document (`created_at`, `hint`), found by the token itself.
    func apiTokenDocument(_ token: String) async throws -> [String: Any]? {
        guard let json = try await store.setting(scope: Self.apiTokenScope, key: Credentials.hash(token)) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] ?? [:]
    }

    /// Every secondary token's document, by hash.
    func apiTokenDocuments() async throws -> [(hash: String, fields: [String: Any])] {
        try await store.settings(scope: Self.apiTokenScope, keyPrefix: "").map {
            ($0.key, (try? JSONSerialization.jsonObject(with: Data($0.json.utf8))) as? [String: Any] ?? [:])
        }
    }

    /// Revokes a secondary token (the master token cannot be revoked: 400111). It stops working at once.
    func revokeAPIToken(_ token: String) async throws {
        if Credentials.constantTimeEqual(token, config.apiToken) {
            throw SendbirdError(.invalidValue, "The master API token cannot be revoked.")
        }
        let hash = Credentials.hash(token)
        guard try await store.setting(scope: Self.apiTokenScope, key: hash) != nil else {
            throw SendbirdError(.notFound, "\"API token\" not found.")
        }
        try await settingsCache.change([.init(scope: Self.apiTokenScope, key: hash, json: nil)])
    }

    /// Records the number of open connections for today's peak; written to the store when it
    /// rises, at most every 10 s (a later peak of the same day is written by the next rise).
    func noteConnections() {
        guard let write = peaks.note(registry.connectionCount, at: now()) else { return }
        let store = self.store
        Task { try? await store.setSetting(scope: "peak_connections", key: String(write.day), json: "{\"peak\":\(write.peak)}") }
    }

    /// Daily peaks from `firstDay` to `lastDay` (UTC day numbers), today's from memory.
    func dailyPeaks(firstDay: Int64, lastDay: Int64) async throws -> [Int64: Int] {
        var out: [Int64: Int] = [:]
        for (key, json) in try await store.settings(scope: "peak_connections", keyPrefix: "") {
            guard let day = Int64(key), day >= firstDay, day <= lastDay else { continue }
            let obj = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
            out[day] = (obj?["peak"] as? NSNumber)?.intValue ?? 0
        }
        let today = peaks.today
        if today.day >= firstDay && today.day <= lastDay { out[today.day] = max(out[today.day] ?? 0, today.peak) }
        return out
    }
}

extension ChatService {
    /// Whether reactions are on for the application (`PUT /v3/applications/settings/reactions`).
    func reactionsEnabled() async throws -> Bool { try await settingsCache.reactionsEnabled() }

    func setReactionsEnabled(_ on: Bool) async throws {
        try await settingsCache.change([.init(scope: ApplicationSettingsCache.Scope.application, key: "reactions", json: on ? "true" : "false")])
    }
}

extension ChatService {
    /// The IP allow-list of Platform API calls (empty: every address may call).
    func ipAllowList() async throws -> [IPRange] { try await settingsCache.ipAllowList() }

    func changeIPAllowList(add: [String], remove: [String]) async throws -> [IPRange] {
        let scope = ApplicationSettingsCache.Scope.ipAllowList
        var writes: [ApplicationSettingsCache.Write] = []
        for a in add {
            guard let r = IPRange(a) else { throw SendbirdError(.invalidValue, "Invalid value: \"\(a)\" is not an IP address or a CIDR range.") }
            writes.append(.init(scope: scope, key: r.text, json: "{}"))
        }
        for r in remove { writes.append(.init(scope: scope, key: r.trimmingCharacters(in: .whitespaces), json: nil)) }
        try await settingsCache.change(writes)
        return try await ipAllowList()
    }
}
