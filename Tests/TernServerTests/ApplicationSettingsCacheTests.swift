import Foundation
import Synchronization
import TernTestSupport
import Testing

@testable import TernServer

/// ``ApplicationSettingsCache`` on a real SQLite store: read once, every change forgets every
/// setting, a load that overlaps a change is not kept.
@Suite("Application settings cache")
struct ApplicationSettingsCacheTests {
    func makeStore() throws -> SQLiteStore {
        try SQLiteStore(path: makeTempDirectory() + "/settings.sqlite")
    }

    @Test("A setting is read from the store once, then from memory, until it is forgotten")
    func readOnce() async throws {
        let store = try makeStore()
        let cache = ApplicationSettingsCache(store: store)
        #expect(try await cache.reactionsEnabled(), "reactions are on unless turned off")
        // Written behind the cache's back: the cached value stays.
        try await store.setSetting(scope: "application", key: "reactions", json: "false")
        #expect(try await cache.reactionsEnabled())
        cache.forgetAll()
        #expect(try await !cache.reactionsEnabled())
    }

    @Test("A change writes, forgets every cached setting and tells the other nodes once")
    func changeForgetsAll() async throws {
        let store = try makeStore()
        let told = Atomic<Int>(0)
        let cache = ApplicationSettingsCache(store: store) { told.add(1, ordering: .relaxed) }
        #expect(try await cache.ipAllowList().isEmpty)
        #expect(try await cache.allBots().isEmpty)
        try await store.setSetting(
            scope: "application", key: "auto_event_message", json: #"{"user_join":{"enabled":true},"user_leave":{"enabled":false}}"#)
        #expect(try await cache.autoEventKinds() == ["user_join"])
        try await store.setSetting(scope: "application", key: "auto_event_message", json: "{}")
        #expect(try await cache.autoEventKinds() == ["user_join"], "kept until a change")
        try await cache.change([.init(scope: ApplicationSettingsCache.Scope.ipAllowList, key: "10.0.0.0/8", json: "{}")])
        #expect(told.load(ordering: .relaxed) == 1)
        #expect(try await cache.ipAllowList().map(\.text) == ["10.0.0.0/8"])
        #expect(try await cache.autoEventKinds().isEmpty, "forgotten by the allow-list's change too")
        #expect(cache.allowList.cached != nil && cache.bots.cached == nil)
    }

    @Test("Bots and content filters are decoded by key; documents that do not decode are left out")
    func decoded() async throws {
        let store = try makeStore()
        let cache = ApplicationSettingsCache(store: store)
        let bot = BotRecord(
            botUserId: "helper", botType: "assistant", callbackUrl: "https://example.com/hook", isPrivacyMode: false,
            enableMarkAsRead: true, showMember: false, channelInvitationPreference: 1, createdAt: 1)
        try await cache.change([
            .init(scope: ApplicationSettingsCache.Scope.bots, key: "helper", json: String(decoding: try JSONEncoder().encode(bot), as: UTF8.self)),
            .init(scope: ApplicationSettingsCache.Scope.bots, key: "broken", json: "{}"),
            .init(
                scope: ApplicationSettingsCache.Scope.contentFilters, key: "global",
                json: String(decoding: try JSONEncoder().encode(ContentFilter()), as: UTF8.self)),
        ])
        #expect(try await cache.allBots() == ["helper": bot])
        #expect(try await Array(cache.contentFilters().keys) == ["global"])
        try await cache.change([.init(scope: ApplicationSettingsCache.Scope.bots, key: "helper", json: nil)])
        #expect(try await cache.allBots().isEmpty)
    }

    @Test("API token hashes: the keys of their scope")
    func apiTokens() async throws {
        let store = try makeStore()
        let cache = ApplicationSettingsCache(store: store)
        #expect(try await cache.apiTokens().isEmpty)
        try await cache.change([.init(scope: ApplicationSettingsCache.Scope.apiTokens, key: "abc", json: #"{"created_at":1}"#)])
        #expect(try await cache.apiTokens() == ["abc"])
    }

    @Test("A load that a forget overtakes returns what it read but does not keep it")
    func loadOvertakenByForget() async throws {
        let slot = SettingSlot<Int>()
        let first = try await slot.value {
            slot.forget()  // a change arrives while the store is being read
            return 1
        }
        #expect(first == 1)
        #expect(slot.cached == nil)
        #expect(try await slot.value { 2 } == 2)
        #expect(try await slot.value { 3 } == 2, "kept once loaded undisturbed")
    }
}
