import Foundation
import Synchronization

/// The application settings ternd reads on hot paths, kept in memory: the secondary API tokens'
/// hashes, the bots, whether reactions are on, the Platform API's IP allow-list, the profanity
/// and domain filters, and the auto event kinds turned on.
///
/// One rule for all of them: a setting is read from the store the first time it is asked for and
/// kept; any change of any of them (``change(_:)`` here, or another node's change, which arrives
/// as ``forgetAll()``) forgets every one, and the next read loads again. A read that was loading
/// while a change happened does not keep what it loaded (it may predate the change).
///
/// For example:
/// ```swift
/// let cache = ApplicationSettingsCache(store: store) { cluster?.publish([ClusterEvent(.settings)]) }
/// let on = try await cache.reactionsEnabled()          // reads the store
/// try await cache.change([.init(scope: "application", key: "reactions", json: "false")])
/// let off = try await cache.reactionsEnabled()         // reads it again: false
/// ```
final class ApplicationSettingsCache: Sendable {
    /// One write of ``change(_:)``: a setting's new JSON document, or nil to remove it.
    struct Write: Sendable {
        var scope: String
        var key: String
        var json: String?
    }

    /// Where each setting is kept in the store (``PlatformStore/setting(scope:key:)``).
    enum Scope {
        /// Secondary API tokens: their SHA-256 (hex) as the key; the token itself is never stored.
        static let apiTokens = "api_token_sha256"
        static let bots = "bot"
        static let application = "application"
        static let ipAllowList = "ip_allow_list"
        static let contentFilters = "content_filter"
    }

    private let store: any PlatformStore
    /// Called after every change made here (the cluster tells the other nodes to forget theirs).
    private let changed: @Sendable () -> Void

    let apiTokenHashes = SettingSlot<[String]>()
    let bots = SettingSlot<[String: BotRecord]>()
    let reactionsOn = SettingSlot<Bool>()
    let allowList = SettingSlot<[IPRange]>()
    let filters = SettingSlot<[String: ContentFilter]>()
    let autoEventsOn = SettingSlot<Set<String>>()

    init(store: any PlatformStore, changed: @escaping @Sendable () -> Void = {}) {
        self.store = store
        self.changed = changed
    }

    // MARK: - Reads

    /// The hashes of the secondary API tokens.
    func apiTokens() async throws -> [String] {
        try await apiTokenHashes.value { try await self.store.settings(scope: Scope.apiTokens, keyPrefix: "").map(\.key) }
    }

    /// Every bot, by user id.
    func allBots() async throws -> [String: BotRecord] {
        try await bots.value { try await self.decoded(BotRecord.self, scope: Scope.bots) }
    }

    /// Whether reactions are on for the application (on unless turned off).
    func reactionsEnabled() async throws -> Bool {
        try await reactionsOn.value { try await self.store.setting(scope: Scope.application, key: "reactions") != "false" }
    }

    /// The IP allow-list of Platform API calls (empty: every address may call).
    func ipAllowList() async throws -> [IPRange] {
        try await allowList.value { try await self.store.settings(scope: Scope.ipAllowList, keyPrefix: "").map(\.key).compactMap(IPRange.init) }
    }

    /// Profanity and domain filters by key (`global`, `type:<custom type>`).
    func contentFilters() async throws -> [String: ContentFilter] {
        try await filters.value { try await self.decoded(ContentFilter.self, scope: Scope.contentFilters) }
    }

    /// The auto event message kinds turned on (`user_join`, `channel_create`, …).
    func autoEventKinds() async throws -> Set<String> {
        try await autoEventsOn.value {
            var on: Set<String> = []
            if let json = try await self.store.setting(scope: Scope.application, key: "auto_event_message"),
                let settings = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
            {
                for (kind, value) in settings where (value as? [String: Any])?["enabled"] as? Bool == true { on.insert(kind) }
            }
            return on
        }
    }

    // MARK: - Changes

    /// Writes settings to the store, then forgets every cached one and tells the other nodes.
    func change(_ writes: [Write]) async throws {
        defer { settingsChanged() }
        for w in writes { try await store.setSetting(scope: w.scope, key: w.key, json: w.json) }
    }

    /// A setting changed elsewhere (a route wrote it, or another node): forget, and tell the other nodes.
    func settingsChanged() {
        forgetAll()
        changed()
    }

    /// Forgets every cached setting (another node changed one).
    func forgetAll() {
        apiTokenHashes.forget()
        bots.forget()
        reactionsOn.forget()
        allowList.forget()
        filters.forget()
        autoEventsOn.forget()
    }

    /// The documents of one scope decoded as `T`, by key (those that do not decode are left out).
    private func decoded<T: Decodable>(_: T.Type, scope: String) async throws -> [String: T] {
        var out: [String: T] = [:]
        for (key, json) in try await store.settings(scope: scope, keyPrefix: "") {
            if let v = try? JSONDecoder().decode(T.self, from: Data(json.utf8)) { out[key] = v }
        }
        return out
    }
}

/// One cached value: nil until loaded, forgotten by ``forget()``. A load that started before a
/// ``forget()`` returns what it read but does not keep it.
final class SettingSlot<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        /// Counts ``forget()`` calls: a load keeps its value only if none came while it ran.
        var generation = 0
    }

    private let state = Mutex(State())

    /// The value kept, or what `load` reads (kept unless forgotten meanwhile).
    func value(load: () async throws -> Value) async throws -> Value {
        let (known, generation) = state.withLock { ($0.value, $0.generation) }
        if let known { return known }
        let loaded = try await load()
        state.withLock { s in if s.generation == generation { s.value = loaded } }
        return loaded
    }

    /// The value kept now, if any (nothing is read).
    var cached: Value? { state.withLock { $0.value } }

    func forget() {
        state.withLock { s in
            s.value = nil
            s.generation &+= 1
        }
    }
}
