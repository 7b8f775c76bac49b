import Foundation
import Synchronization
import TernKit
import TernProtocol
import TernServer
import TernTestSupport
import Testing

/// The engine in the real world: an offline start from the cache, messages written offline sent
/// once, gap fills after a reconnection, a huge gap, and the cache agreeing with the server.
@Suite(.serialized) struct OfflineEngineTests {
    func cachedClient(_ server: LocalServer, _ user: String, cacheDir: String, port: Int? = nil) -> ChatClient {
        let address = port.map { ServerAddress(apiBase: "http://127.0.0.1:\($0)", webSocketBase: "ws://127.0.0.1:\($0)") } ?? server.address
        var c = ClientConfiguration(server: address, userId: user)
        c.reconnectPolicy = ReconnectPolicy(interval: 0.2, maxInterval: 0.5, mul: 2, retryCnt: -1)
        c.tickInterval = 20
        c.cacheDirectory = cacheDir
        c.resendSpacing = 20
        return ChatClient(configuration: c)
    }

    /// Alice connected (no cache) in a new channel `name` with bob (created, not connected).
    func aliceWithChannel(_ server: LocalServer, _ name: String) async throws -> (ChatClient, GroupChannel) {
        let alice = try await server.connectedClient("alice")
        _ = try await server.platform("POST", "/v3/users", ["user_id": "bob", "nickname": "bob", "profile_url": ""])
        return (alice, try await alice.createGroupChannel(name: name, userIds: ["bob"]))
    }

    /// The server's history of `url` as `user` sees it, oldest first.
    func history(_ server: LocalServer, _ url: String) async throws -> [Int64] {
        let r = try await server.platform("GET", "/v3/group_channels/\(url)/messages?message_ts=9007199254740991&prev_limit=200&next_limit=0")
        let ids = (r["messages"] as? [[String: Any]] ?? []).compactMap { ($0["message_id"] as? NSNumber)?.int64Value }
        return ids.sorted()
    }

    @Test func offlineStartShowsTheCacheAndSendsWhatWasWrittenOnceTheServerIsBack() async throws {
        let cacheDir = makeTempDirectory()
        var server = try await LocalServer.start()
        // Bob's address is a proxy's: the server can come back on another port without him knowing.
        let proxy = FaultProxy(targetPort: server.port)
        let port = try await proxy.start()
        defer { Task { await proxy.stop() } }
        let (alice, channel) = try await aliceWithChannel(server, "crew")
        for i in 1...3 { _ = try await alice.sendMessageAndWait("hello \(i)", to: channel.url) }

        // Bob's first run: connects, opens the channel (its newest page goes into the cache), quits.
        do {
            let bob = cachedClient(server, "bob", cacheDir: cacheDir, port: port)
            try await bob.connect()
            try await eventually("bob has the channel") { await bob.cachedChannel(channel.url) != nil }
            let page = try await bob.latestMessages(in: channel.url)
            #expect(page.messages.map(\.text) == ["hello 1", "hello 2", "hello 3"])
            await bob.shutdown()
        }
        await alice.shutdown()
        await server.stop()

        // The server is down. Bob starts again: the cache is there at once.
        let bob = cachedClient(server, "bob", cacheDir: cacheDir, port: port)
        let log = EventLog(bob)
        #expect(await bob.hasOfflineData)
        #expect(await bob.cachedChannels().map(\.url) == [channel.url])
        #expect(await bob.channels.map(\.url) == [channel.url])
        let cached = try #require(await bob.cachedMessages(in: channel.url))
        #expect(cached.messages.map(\.text) == ["hello 1", "hello 2", "hello 3"])
        let connecting = Task { try await bob.connect() }
        // The first attempt fails (nothing listens): with a cache it keeps trying instead of giving up.
        _ = try await log.wait("reconnecting") { e -> Bool? in
            if case .connectionStateChanged(.reconnecting) = e { return true }
            return nil
        }
        // Written offline: pending, and it stays pending while the server is down.
        let pending = await bob.sendMessage("written offline", to: channel.url)
        #expect(pending.status == .pending)
        try await Task.sleep(for: .milliseconds(500))
        #expect(!log.all.contains { if case .messageFailed = $0 { true } else { false } })
        #expect(await bob.unsentMessages(in: channel.url).map(\.requestId) == [pending.requestId])
        #expect(bob.cache?.unsent(channel.url).map(\.requestId) == [pending.requestId])

        // The server returns: bob connects by himself and the message goes out exactly once.
        server = try await LocalServer.start(dataDirectory: server.dataDirectory, apiToken: server.apiToken)
        proxy.retarget(port: server.port)
        defer { Task { [server] in await server.stop() } }
        _ = try await connecting.value
        let sent = try await log.wait("sent") { e -> Message? in
            if case .messageSent(let m) = e, m.requestId == pending.requestId { return m }
            return nil
        }
        #expect(sent.text == "written offline")
        _ = try await log.wait("caught up") { $0 == .syncing(false) ? true : nil }
        let ids = try await history(server, channel.url)
        #expect(ids.count == 4)
        #expect(ids.last == sent.messageId)
        #expect(await bob.unsentMessages().isEmpty)
        #expect(bob.cache?.unsent().isEmpty == true)
        await bob.shutdown()
        await server.stop()
    }

    @Test func aReconnectionFillsTheGapAndTheCacheMatchesTheServer() async throws {
        let cacheDir = makeTempDirectory()
        // Bob reaches the server through a fault proxy: cut off, he cannot come back until it heals.
        try await withLocalServerBehindProxy { server, proxy, proxyPort in
            let alice = server.client("alice")
            let bob = cachedClient(server, "bob", cacheDir: cacheDir, port: proxyPort)
            let log = EventLog(bob)
            try await alice.connect()
            try await bob.connect()
            let channel = try await alice.createGroupChannel(name: "crew", userIds: ["bob"])
            _ = try await alice.sendMessageAndWait("before", to: channel.url)
            try await eventually("bob has the channel") { await bob.cachedChannel(channel.url) != nil }
            await bob.openChannel(channel.url)
            _ = try await bob.latestMessages(in: channel.url)
            let edited = try await alice.sendMessageAndWait("to be edited", to: channel.url)
            let doomed = try await alice.sendMessageAndWait("to be deleted", to: channel.url)
            try await eventually("bob received them") { bob.cache?.allMessages(channel.url).count == 3 }

            // Bob's network goes away while alice goes on.
            proxy.drop()
            _ = try await log.wait("bob reconnecting") { $0 == .reconnectStarted ? true : nil }
            let mark = log.mark
            for i in 1...5 {
                _ = try await server.platform("POST", "/v3/group_channels/\(channel.url)/messages", ["user_id": "alice", "message": "missed \(i)"])
            }
            _ = try await server.platform("PUT", "/v3/group_channels/\(channel.url)/messages/\(edited.messageId)", ["message": "edited while away"])
            _ = try await server.platform("DELETE", "/v3/group_channels/\(channel.url)/messages/\(doomed.messageId)")
            proxy.heal()
            let filled = try await log.wait("gap filled", after: mark) { e -> [Message]? in
                if case .messagesFilled(let url, let ms) = e, url == channel.url { return ms }
                return nil
            }
            #expect(filled.map(\.text).filter { $0.hasPrefix("missed") } == (1...5).map { "missed \($0)" })
            _ = try await log.wait("caught up", after: mark) { $0 == .syncing(false) ? true : nil }
            let held = try #require(bob.cache).allMessages(channel.url)
            #expect(held.map(\.messageId) == (try await history(server, channel.url)))
            #expect(held.first { $0.messageId == edited.messageId }?.text == "edited while away")
            #expect(!held.contains { $0.messageId == doomed.messageId })
            let changelog = log.all[mark...].compactMap { e -> ([Message], [Int64])? in
                if case .messageChangelog(let url, let u, let d) = e, url == channel.url { return (u, d) }
                return nil
            }
            #expect(changelog.flatMap(\.1) == [doomed.messageId])
            #expect(changelog.flatMap(\.0).map(\.text) == ["edited while away"])
            // Live again: the next message extends the run.
            let live = try await server.platform("POST", "/v3/group_channels/\(channel.url)/messages", ["user_id": "alice", "message": "live"])
            let liveId = (live["message_id"] as? NSNumber)?.int64Value
            try await eventually("live message cached") { bob.cache?.allMessages(channel.url).last?.messageId == liveId }
            await alice.shutdown()
            await bob.shutdown()
        }
    }

    @Test func moreThan300MissedIsAHugeGapThenPagingBackHasNoHoles() async throws {
        let cacheDir = makeTempDirectory()
        try await withLocalServer { server in
            let (alice, channel) = try await aliceWithChannel(server, "busy")
            _ = try await alice.sendMessageAndWait("first", to: channel.url)
            do {
                let bob = cachedClient(server, "bob", cacheDir: cacheDir)
                try await bob.connect()
                try await eventually("bob has the channel") { await bob.cachedChannel(channel.url) != nil }
                _ = try await bob.latestMessages(in: channel.url)
                await bob.shutdown()
            }
            // 320 messages while bob is away.
            for i in 1...320 {
                _ = try await server.platform("POST", "/v3/group_channels/\(channel.url)/messages", ["user_id": "alice", "message": "n\(i)"])
            }
            let bob = cachedClient(server, "bob", cacheDir: cacheDir)
            let log = EventLog(bob)
            try await bob.connect()
            let page = try await bob.latestMessages(in: channel.url, limit: 50)
            _ = try await log.wait("huge gap") { e -> Bool? in
                if case .hugeGap(let url) = e, url == channel.url { return true }
                return nil
            }
            #expect(page.messages.map(\.text) == (271...320).map { "n\($0)" })
            #expect(page.hasPrevious)
            // Paging back from the newest page reaches the start with every message once, in order.
            var all = page.messages
            var before = page.messages.first?.createdAt
            while let b = before {
                let older = try await bob.previousMessages(in: channel.url, before: b, limit: 100)
                all = older.messages + all
                before = older.hasPrevious ? older.messages.first?.createdAt : nil
            }
            #expect(all.count == 321)
            #expect(all.map(\.messageId) == all.map(\.messageId).sorted())
            #expect(all.map(\.messageId).suffix(200) == (try await history(server, channel.url)).suffix(200))
            #expect(Set(all.map(\.messageId)).count == all.count)
            #expect(all.first?.text == "first")
            // The cache now holds the whole run, continuous.
            #expect(bob.cache?.allMessages(channel.url).map(\.messageId) == all.map(\.messageId))
            #expect(bob.cache?.range(channel.url)?.reachesStart == true)
            await alice.shutdown()
            await bob.shutdown()
        }
    }

    @Test func collectionsShowTheCacheThenTheServerThenLiveChanges() async throws {
        let cacheDir = makeTempDirectory()
        try await withLocalServer { server in
            let (alice, channel) = try await aliceWithChannel(server, "crew")
            for i in 1...40 { _ = try await alice.sendMessageAndWait("m\(i)", to: channel.url) }
            do {
                let bob = cachedClient(server, "bob", cacheDir: cacheDir)
                try await bob.connect()
                let channels = await bob.groupChannelCollection()
                try await channels.loadMore()
                #expect(await channels.channels.map(\.url) == [channel.url])
                let first = await bob.messageCollection(channel.url, limit: 30)
                try await first.start()
                await first.dispose()
                await bob.shutdown()
            }
            _ = try await alice.sendMessageAndWait("m41", to: channel.url)

            let bob = cachedClient(server, "bob", cacheDir: cacheDir)
            try await bob.connect()
            let collection = await bob.messageCollection(channel.url, limit: 30)
            let seen = CollectionLog(collection.events)
            let api = try await collection.start()
            // The cache's 30 first (m11…m40), then the server's page adds m41 and drops m11.
            try await eventually("first change") { !seen.changes.isEmpty }
            let cachedTexts = seen.changes.first.flatMap { c -> [String]? in
                if case .messages(.added(let ms, .cache)) = c { return ms.map(\.text) }
                return nil
            }
            #expect(cachedTexts == (11...40).map { "m\($0)" })
            #expect(api.map(\.text) == (12...41).map { "m\($0)" })
            // m41 came by the gap fill after the held run (the cache was not current) or with the page; m11 left the window.
            try await eventually("m41 reported") {
                seen.changes.contains(.messages(.added([api.last!], .messageFill))) || seen.changes.contains(.messages(.added([api.last!], .api)))
            }
            try await eventually("m11 reported gone") {
                seen.changes.contains { if case .messages(.deleted(let ms, .api)) = $0 { ms.map(\.text) == ["m11"] } else { false } }
            }
            let bounds = (await collection.hasPrevious, await collection.hasNext)
            #expect(bounds.0 && !bounds.1)
            // Live: a new message joins with its source; our own goes pending then sent.
            _ = try await alice.sendMessageAndWait("live", to: channel.url)
            try await eventually("live message") { await collection.succeededMessages.last?.text == "live" }
            try await eventually("live reported") {
                seen.changes.contains { if case .messages(.added(let ms, .eventMessageReceived)) = $0 { ms.map(\.text) == ["live"] } else { false } }
            }
            _ = try await bob.sendMessageAndWait("mine", to: channel.url)
            try await eventually("own message") { await collection.succeededMessages.last?.text == "mine" }
            try await eventually("pending then sent reported") {
                seen.changes.contains { if case .messages(.added(_, .localMessagePendingCreated)) = $0 { true } else { false } }
                    && seen.changes.contains {
                        if case .messages(.updated(let ms, .eventMessageSent)) = $0 { ms.map(\.text) == ["mine"] } else { false }
                    }
            }
            // Paging back: the rest, no holes, then nothing more.
            try await collection.loadPrevious()
            #expect(await collection.succeededMessages.count == 43)
            let more = await collection.hasPrevious
            #expect(!more)
            #expect(await collection.succeededMessages.map(\.text).prefix(41) == ArraySlice((1...41).map { "m\($0)" }))
            // A window in the past: loadNext walks forward to the present.
            let past = try #require(await collection.succeededMessages.first { $0.text == "m5" })
            let window = await bob.messageCollection(channel.url, startingPoint: past.createdAt, limit: 10)
            try await window.start()
            #expect(await window.hasNext)
            while await window.hasNext { try await window.loadNext() }
            #expect(await window.succeededMessages.last?.text == "mine")
            await window.dispose()
            await collection.dispose()
            await alice.shutdown()
            await bob.shutdown()
        }
    }
}

/// Collects a message collection's events.
final class CollectionLog: Sendable {
    let box = EventLogBox<MessageCollectionEvent>()
    let task: Task<Void, Never>
    init(_ stream: AsyncStream<MessageCollectionEvent>) {
        let box = self.box
        task = Task { for await e in stream { box.append(e) } }
    }
    var changes: [MessageCollectionEvent] { box.items }
}

final class EventLogBox<T: Sendable>: Sendable {
    let storage = Mutex<[T]>([])
    func append(_ e: T) { storage.withLock { $0.append(e) } }
    var items: [T] { storage.withLock { $0 } }
}

extension OfflineEngineTests {
    @Test func messagesCutOffByALostConnectionGoAgainOnceEach() async throws {
        let cacheDir = makeTempDirectory()
        try await withLocalServer { server in
            let alice = cachedClient(server, "alice", cacheDir: cacheDir)
            let log = EventLog(alice)
            try await alice.connect()
            _ = try await server.platform("POST", "/v3/users", ["user_id": "bob", "nickname": "bob", "profile_url": ""])
            let channel = try await alice.createGroupChannel(name: "crew", userIds: ["bob"])
            await alice.openChannel(channel.url)
            _ = try await alice.latestMessages(in: channel.url)
            // 30 sends in flight, and the socket drops among them: some were stored and their answers lost,
            // some never left. Each fails with a connection code, then goes again under its req_id.
            var ids: [String] = []
            for i in 1...30 { ids.append(await alice.sendMessage("n\(i)", to: channel.url).requestId ?? "") }
            await alice.simulateNetworkLoss()
            for id in ids {
                _ = try await log.wait("n sent", timeout: 30) { e -> Bool? in
                    if case .messageSent(let m) = e, m.requestId == id { return true }
                    return nil
                }
            }
            let texts = try await history(server, channel.url)
            #expect(texts.count == 30, "each message stored exactly once")
            let stored = try await server.platform(
                "GET", "/v3/group_channels/\(channel.url)/messages?message_ts=9007199254740991&prev_limit=100&next_limit=0")
            let bodies = (stored["messages"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
            #expect(Set(bodies) == Set((1...30).map { "n\($0)" }) && bodies.count == 30)
            #expect(await alice.unsentMessages().isEmpty)
            // The cache agrees with the server: the same 30, in the server's order.
            try await eventually("cache caught up") { alice.cache?.allMessages(channel.url).map(\.text) == bodies }
            await alice.shutdown()
        }
    }
}

extension OfflineEngineTests {
    @Test func anExpiredSessionKeyLogsInAgainAndAShutdownSaysBusy() async throws {
        var server = try await LocalServer.start {
            $0.sessionLifetime = 1
            $0.busyRetryAfter = 1
        }
        let proxy = FaultProxy(targetPort: server.port)
        let proxyPort = try await proxy.start()
        defer { Task { await proxy.stop() } }
        var config = ClientConfiguration(
            server: ServerAddress(apiBase: "http://127.0.0.1:\(proxyPort)", webSocketBase: "ws://127.0.0.1:\(proxyPort)"), userId: "bob")
        config.reconnectPolicy = ReconnectPolicy(interval: 0.2, maxInterval: 1, mul: 2, retryCnt: -1)
        config.tickInterval = 20
        let bob = ChatClient(configuration: config)
        let log = EventLog(bob)
        try await bob.connect()
        // EXPR after a second: the engine drops the key and logs in again with its credentials.
        _ = try await log.wait("reconnect after EXPR") { $0 == .reconnectSucceeded ? true : nil }
        #expect(await bob.connectionState == .open)
        // A graceful shutdown: BUSY with retry_after 1 s, so the next attempt is scheduled (not at once).
        let mark = log.mark
        await server.stop()
        let first = try await log.wait("reconnecting after BUSY", after: mark) { e -> ConnectionState? in
            if case .connectionStateChanged(let s) = e, case .reconnecting = s { return s }
            return nil
        }
        guard case .reconnecting(0, .some) = first else {
            Issue.record("expected a scheduled first attempt after BUSY, got \(first)")
            await bob.shutdown()
            return
        }
        server = try await LocalServer.start(dataDirectory: server.dataDirectory, apiToken: server.apiToken)
        proxy.retarget(port: server.port)
        _ = try await log.wait("back", after: mark) { $0 == .reconnectSucceeded ? true : nil }
        await bob.shutdown()
        await server.stop()
    }
}

extension OfflineEngineTests {
    @Test func channelChangesWhileAwayArriveAsAChangelog() async throws {
        let cacheDir = makeTempDirectory()
        try await withLocalServerBehindProxy { server, proxy, proxyPort in
            let alice = try await server.connectedClient("alice")
            _ = try await server.platform("POST", "/v3/users", ["user_id": "bob", "nickname": "bob", "profile_url": ""])
            let keep = try await alice.createGroupChannel(name: "keep", userIds: ["bob"])
            let doomed = try await alice.createGroupChannel(name: "doomed", userIds: ["bob"])
            let bob = cachedClient(server, "bob", cacheDir: cacheDir, port: proxyPort)
            let log = EventLog(bob)
            try await bob.connect()
            _ = try await log.wait("first catch-up") { $0 == .syncing(false) ? true : nil }
            #expect(Set(await bob.channels.map(\.url)) == [keep.url, doomed.url])
            // Bob is away: one channel renamed, one deleted, a new one made.
            proxy.drop()
            _ = try await log.wait("bob reconnecting") { $0 == .reconnectStarted ? true : nil }
            let mark = log.mark
            _ = try await server.platform("PUT", "/v3/group_channels/\(keep.url)", ["name": "kept"])
            _ = try await server.platform("DELETE", "/v3/group_channels/\(doomed.url)")
            let fresh = try await server.platform("POST", "/v3/group_channels", ["user_ids": ["alice", "bob"], "name": "fresh"])
            let freshUrl = try #require(fresh["channel_url"] as? String)
            proxy.heal()
            let change = try await log.wait("channel changelog", after: mark) { e -> ([GroupChannel], [String])? in
                if case .channelChangelog(let u, let d) = e { return (u, d) }
                return nil
            }
            #expect(Set(change.0.map(\.url)) == [keep.url, freshUrl])
            #expect(change.0.first { $0.url == keep.url }?.name == "kept")
            #expect(change.1 == [doomed.url])
            _ = try await log.wait("caught up", after: mark) { $0 == .syncing(false) ? true : nil }
            #expect(Set(await bob.channels.map(\.url)) == [keep.url, freshUrl])
            #expect(Set(bob.cache?.channels().map(\.url) ?? []) == [keep.url, freshUrl])
            #expect(bob.cache?.value("channel_changelog_token")?.isEmpty == false)
            await alice.shutdown()
            await bob.shutdown()
        }
    }
}
