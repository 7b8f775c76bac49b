import Foundation
import Synchronization
import TernKit
import TernProtocol
import TernServer
import TernTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The engine behind a TCP fault proxy: drops, stalls, resets and delays between it and a real
/// ternd, and the server itself stopped and started again. After every scripted run, each message
/// any sender had acknowledged is in every member's cache exactly once, in order, with no gap.
@Suite(.serialized) struct FaultProxyTests {
    func client(_ user: String, port: Int, cacheDir: String) -> ChatClient {
        var c = ClientConfiguration(server: ServerAddress(apiBase: "http://127.0.0.1:\(port)", webSocketBase: "ws://127.0.0.1:\(port)"), userId: user)
        c.reconnectPolicy = ReconnectPolicy(interval: 0.2, maxInterval: 0.5, mul: 2, retryCnt: -1)
        c.tickInterval = 20
        c.ackTimeout = 1500
        c.requestTimeout = 10_000
        c.cacheDirectory = cacheDir
        c.resendSpacing = 20
        return ChatClient(configuration: c)
    }

    func get(_ port: Int, _ path: String, token: String) async throws -> Int {
        var req = URLRequest(url: URL(string: "http://127.0.0.1:\(port)" + path)!)
        req.timeoutInterval = 10
        req.setValue(token, forHTTPHeaderField: "Api-Token")
        let (_, response) = try await URLSession.shared.data(for: req)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    @Test func theProxyDropsStallsResetsAndHeals() async throws {
        try await withLocalServerBehindProxy { server, proxy, port in
            #expect(try await get(port, "/v3/users", token: server.apiToken) == 200)
            proxy.drop()
            await #expect(throws: (any Error).self) { _ = try await get(port, "/v3/users", token: server.apiToken) }
            proxy.heal()
            #expect(try await get(port, "/v3/users", token: server.apiToken) == 200)

            // A WebSocket through it: a stall holds a message until it heals; a reset drops the socket.
            let dir = makeTempDirectory()
            let bob = client("bob", port: port, cacheDir: dir)
            let log = EventLog(bob)
            try await bob.connect()
            let alice = try await server.connectedClient("alice")
            let channel = try await alice.createGroupChannel(name: "p", userIds: ["bob"])
            _ = try await bob.refreshedChannel(channel.url)
            proxy.stall()
            let m = try await alice.sendMessageAndWait("held", to: channel.url)
            try await Task.sleep(for: .milliseconds(300))
            #expect(!log.all.contains { if case .messageReceived(let r) = $0 { r.messageId == m.messageId } else { false } })
            proxy.heal()
            _ = try await log.wait("held message delivered") { e -> Bool? in
                if case .messageReceived(let r) = e, r.messageId == m.messageId { return true }
                return nil
            }
            let mark = log.mark
            proxy.reset()
            _ = try await log.wait("reset noticed", after: mark) { $0 == .reconnectStarted ? true : nil }
            _ = try await log.wait("back", after: mark) { $0 == .reconnectSucceeded ? true : nil }
            // A delay keeps the order of what it delays.
            proxy.delay(80)
            for i in 1...5 { _ = try await alice.sendMessageAndWait("d\(i)", to: channel.url) }
            let delayed = try await log.wait("delayed messages", after: mark) { _ -> [String]? in
                let texts = log.all.compactMap { e -> String? in
                    if case .messageReceived(let r) = e, r.text.hasPrefix("d") { return r.text }
                    return nil
                }
                return texts.count == 5 ? texts : nil
            }
            #expect(delayed == (1...5).map { "d\($0)" })
            proxy.heal()
            #expect(proxy.acceptedConnections >= 2)
            await alice.shutdown()
            await bob.shutdown()
        }
    }

    /// The server stores a message but its answers are held (a one-way partition) while the socket stays up: the
    /// send fails with 800180, the engine's own resend fails the same way, and the engine keeps asking — no
    /// reconnection and no later send needed — until an answer comes. It did stop after the second failure, so
    /// the message stayed failed (and the cache unsent) until the next login.
    @Test func anAnswerLostWhileConnectedIsAskedForAgainUntilItComes() async throws {
        try await withLocalServerBehindProxy { server, proxy, port in
            var c = ClientConfiguration(
                server: ServerAddress(apiBase: "http://127.0.0.1:\(port)", webSocketBase: "ws://127.0.0.1:\(port)"), userId: "bob")
            c.ackTimeout = 300
            c.resendSpacing = 20
            c.cacheDirectory = makeTempDirectory()
            let bob = ChatClient(configuration: c)
            let log = EventLog(bob)
            try await bob.connect()
            let alice = try await server.connectedClient("alice")
            let channel = try await alice.createGroupChannel(name: "lost answers", userIds: ["bob"])
            _ = try await bob.refreshedChannel(channel.url)
            await bob.openChannel(channel.url)
            _ = try await bob.latestMessages(in: channel.url)

            let mark = log.mark
            proxy.holdReplies()
            let pending = await bob.sendMessage("answer held", to: channel.url)
            let failures = {
                log.all.dropFirst(mark).filter { if case .messageFailed(let m) = $0 { m.requestId == pending.requestId } else { false } }.count
            }
            try await eventually("the send and the engine's resend both unanswered") { failures() >= 2 }
            // Past the point where it gave up: a third attempt comes (and fails) while the answers are still held.
            try await eventually("a third attempt") { failures() >= 3 }
            proxy.heal()
            let sent = try await log.wait("the message acknowledged", after: mark) { e -> Message? in
                if case .messageSent(let m) = e, m.requestId == pending.requestId { return m }
                return nil
            }
            #expect(sent.text == "answer held")
            #expect(!log.all.dropFirst(mark).contains(.reconnectStarted), "the socket stayed up throughout")
            #expect(await bob.unsentMessages().isEmpty)
            // The answers held for the earlier attempts arrive late, with no one waiting: still one message.
            try await eventually("every held answer delivered") { proxy.heldBytes == 0 }
            try await Task.sleep(for: .milliseconds(200))
            let held = await bob.cachedMessages(in: channel.url)?.messages.filter { $0.text == "answer held" }
            #expect(held?.count == 1 && held?.first?.messageId == sent.messageId, "\(held ?? [])")
            let history = try await alice.latestMessages(in: channel.url)
            #expect(history.messages.filter { $0.text == "answer held" }.count == 1, "stored once, however often asked")
            await alice.shutdown()
            await bob.shutdown()
        }
    }

    @Test func aScriptedRunOfFaultsLeavesEveryCacheExactlyTheServersHistory() async throws {
        var server = try await LocalServer.start { $0.busyRetryAfter = 0.2 }
        let proxy = FaultProxy(targetPort: server.port)
        let port = try await proxy.start()
        let dir = makeTempDirectory()
        let users = ["ann", "ben", "cat"]
        for u in users { _ = try await server.platform("POST", "/v3/users", ["user_id": u, "nickname": u, "profile_url": ""]) }
        let created = try await server.platform("POST", "/v3/group_channels", ["user_ids": users, "name": "chaos"])
        let url = try #require(created["channel_url"] as? String)
        let clients = users.map { client($0, port: port, cacheDir: dir + "/" + $0) }
        let logs = clients.map { EventLog($0) }
        for c in clients {
            try await c.connect()
            await c.openChannel(url)
            _ = try await c.latestMessages(in: url)
        }
        // Every client sends on its own, one message every few ms, while the script runs.
        let acked = Mutex<[String: [Int64]]>([:])
        let senders = zip(users, clients).map { user, c in
            Task {
                for i in 1...40 {
                    if Task.isCancelled { return }
                    let pending = await c.sendMessage("\(user) \(i)", to: url)
                    _ = pending
                    try? await Task.sleep(for: .milliseconds(15))
                }
            }
        }
        // The script: latency, a stall past the ack timeout, resets, a drop, and a server restart.
        proxy.delay(40)
        try await Task.sleep(for: .milliseconds(150))
        proxy.stall()
        try await Task.sleep(for: .milliseconds(1800))
        proxy.heal()
        try await Task.sleep(for: .milliseconds(100))
        proxy.reset()
        try await Task.sleep(for: .milliseconds(150))
        proxy.drop()
        try await Task.sleep(for: .milliseconds(300))
        proxy.heal()
        try await Task.sleep(for: .milliseconds(100))
        // The server stops and starts again with its data (on a new port the proxy now points at).
        await server.stop()
        server = try await LocalServer.start(dataDirectory: server.dataDirectory, apiToken: server.apiToken) { $0.busyRetryAfter = 0.2 }
        proxy.retarget(port: server.port)
        try await Task.sleep(for: .milliseconds(100))
        proxy.reset()
        for s in senders { await s.value }
        proxy.heal()
        defer {
            Task { [server] in
                await proxy.stop()
                await server.stop()
            }
        }

        // Everything goes out in the end: each sender's 40 are acknowledged (some after resends).
        for ((user, log), c) in zip(zip(users, logs), clients) {
            do {
                try await eventually("\(user)'s 40 acknowledged", timeout: 60) {
                    let ids = Set(
                        log.all.compactMap { e -> String? in
                            if case .messageSent(let m) = e, m.text.hasPrefix(user + " ") { return m.text }
                            return nil
                        })
                    return ids.count == 40
                }
            } catch {
                // What the engine still holds, so a failure says where the rest are.
                let unsent = await c.unsentMessages().map { "\($0.text): \($0.status), \($0.error?.code.rawValue ?? 0)" }
                throw TestFailure("\(error); \(user) is \(await c.connectionState), unsent \(unsent)")
            }
            let sent = log.all.compactMap { e -> Int64? in
                if case .messageSent(let m) = e, m.text.hasPrefix(user + " ") { return m.messageId }
                return nil
            }
            acked.withLock { $0[user] = sent }
        }
        // The server holds each message once.
        var history: [(id: Int64, text: String)] = []
        var before: Int64 = 9_007_199_254_740_991
        while true {
            let r = try await server.platform("GET", "/v3/group_channels/\(url)/messages?message_ts=\(before)&prev_limit=200&next_limit=0")
            let page = (r["messages"] as? [[String: Any]] ?? []).map {
                (($0["message_id"] as? NSNumber)?.int64Value ?? 0, $0["message"] as? String ?? "", ($0["created_at"] as? NSNumber)?.int64Value ?? 0)
            }
            history = page.map { ($0.0, $0.1) } + history
            guard page.count == 200, let first = page.first else { break }
            before = first.2
        }
        #expect(history.count == 120, "each of the 120 messages stored once")
        #expect(Set(history.map(\.text)).count == 120)
        let allAcked = Set(acked.withLock { $0.values.flatMap { $0 } })
        #expect(allAcked.isSubset(of: Set(history.map(\.id))))
        // Each member's cache: the server's history, exactly, once each, in order (after its catch-up).
        for (user, c) in zip(users, clients) {
            try await eventually("\(user)'s cache matches the server", timeout: 60) {
                if await c.connectionState != .open { return false }
                _ = try? await c.latestMessages(in: url)
                return c.cache?.allMessages(url).map(\.messageId) == history.map(\.id)
            }
            #expect(await c.unsentMessages().isEmpty)
        }
        // Each sender's own messages are in the order they were written.
        for user in users {
            let mine = history.map(\.text).filter { $0.hasPrefix(user + " ") }
            #expect(mine == (1...40).map { "\(user) \($0)" }, "\(user)'s messages in order")
        }
        for c in clients { await c.shutdown() }
    }
}
