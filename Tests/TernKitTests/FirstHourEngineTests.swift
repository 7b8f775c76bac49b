import Foundation
import Synchronization
import TernProtocol
import TernTestSupport
import Testing

@testable import TernKit

/// What a newcomer's first hour showed the engine getting wrong (issue 30): a server that comes back on
/// another port, a cache keyed by the port, a delivery tick one message behind, a new channel its
/// invitee does not see, a wrong address given up on.
@Suite("Engine: the first hour")
struct FirstHourEngineTests {
    /// The texts of a channel's messages on the server, oldest first.
    func history(_ server: LocalServer, _ url: String) async throws -> [String] {
        let r = try await server.platform("GET", "/v3/group_channels/\(url)/messages?message_ts=9007199254740991&prev_limit=200&next_limit=0")
        return (r["messages"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
    }

    @Test func theDeliveryTickComesWithItsReceiptNotWithTheNextMessage() async throws {
        try await withLocalServer { server in
            let alice = server.client("alice")
            let bob = server.client("bob")
            for c in [alice, bob] { try await c.connect() }
            let crew = try await alice.createGroupChannel(name: "crew", userIds: ["bob"])
            _ = try await bob.loadAllChannels()
            let log = EventLog(alice)
            let m = try await alice.sendMessageAndWait("one", to: crew.url)
            // Bob's engine acknowledges delivery; the channel alice's screen draws ticks from says so then,
            // without waiting for a later message.
            let delivered = try await log.wait("the channel with bob's delivery receipt") { e -> Bool? in
                guard case .channelUpdated(let c) = e, c.url == crew.url, c.undeliveredMemberCount(of: m, me: "alice") == 0 else { return nil }
                return true
            }
            #expect(delivered)
            #expect(await alice.undeliveredMemberCount(of: m) == 0)
            for c in [alice, bob] { await c.shutdown() }
        }
    }

    @Test func aChannelMadeWithSomeoneReachesThemBeforeAnyMessage() async throws {
        try await withLocalServer { server in
            let alice = server.client("alice")
            let bob = server.client("bob")
            for c in [alice, bob] { try await c.connect() }
            _ = try await bob.loadAllChannels()
            let log = EventLog(bob)
            let crew = try await alice.createGroupChannel(name: "crew", userIds: ["bob"])
            let added = try await log.wait("crew in bob's list") { e -> GroupChannel? in
                if case .channelAdded(let c) = e, c.url == crew.url { return c }
                return nil
            }
            #expect(added.name == "crew")
            #expect(await bob.channels.contains { $0.url == crew.url })
            #expect(try await history(server, crew.url).isEmpty, "nobody posted")
            for c in [alice, bob] { await c.shutdown() }
        }
    }

    @Test func followsAServerThatCameBackOnAnotherPortAndSendsWhatWasWrittenMeanwhileOnce() async throws {
        let first = try await LocalServer.start()
        let dir = makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Where the server is now, as the embedded server's record says.
        let record = Mutex<ServerAddress?>(first.address)
        var config = ClientConfiguration(server: first.address, userId: "alice")
        config.reconnectPolicy = ReconnectPolicy(interval: 0.2, maxInterval: 1, mul: 2, retryCnt: -1)
        config.tickInterval = 20
        config.cacheDirectory = dir
        config.cacheName = "embedded"
        config.locateServer = { record.withLock { $0 } }
        let alice = ChatClient(configuration: config)
        try await alice.connect()
        try await first.platform("POST", "/v3/users", ["user_id": "bob", "nickname": "bob", "profile_url": ""])
        let crew = try await alice.createGroupChannel(name: "crew", userIds: ["bob"])
        _ = try await alice.sendMessageAndWait("before", to: crew.url)

        // Stopped; written while it is away (it waits); back on another port with the same data.
        await first.stop()
        try await eventually("alice notices") {
            if case .open = await alice.connectionState { return false }
            return true
        }
        record.withLock { $0 = nil }
        let queued = Task { try await alice.sendMessageAndWait("while away", to: crew.url) }
        try await eventually("the line waits in the outbox") { await alice.unsentMessages(in: crew.url).map(\.text) == ["while away"] }
        let second = try await LocalServer.start(dataDirectory: first.dataDirectory, apiToken: first.apiToken)
        #expect(second.port != first.port)
        record.withLock { $0 = second.address }
        let sent = try await queued.value
        #expect(sent.status == .succeeded)
        #expect(try await history(second, crew.url) == ["before", "while away"])
        #expect(alice.rest.baseURL == second.address.apiBase)
        // One cache file, named for the server, not its port.
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".sqlite") }
        #expect(files == ["embedded-LOCAL-alice.sqlite"])
        await alice.shutdown()
        await second.stop()
    }

    @Test func theInteractiveClientWaitsForAServerThatIsNotThereYet() async throws {
        let server = try await LocalServer.start()
        await server.stop()  // its port refuses until it starts again
        var config = ClientConfiguration(server: server.address, userId: "alice")
        config.reconnectPolicy = ReconnectPolicy(interval: 0.2, maxInterval: 1, mul: 2, retryCnt: -1)
        config.tickInterval = 20
        config.waitForServer = true
        let alice = ChatClient(configuration: config)
        let connecting = Task { try await alice.connect() }
        try await eventually("alice waits, counting down") {
            if case .reconnecting = await alice.connectionState { return true }
            return false
        }
        let again = try await server.startAgain()
        let user = try await connecting.value
        #expect(user.userId == "alice")
        await alice.shutdown()
        await again.stop()
    }

    @Test func aScriptWithoutACacheStillFailsFast() async throws {
        let server = try await LocalServer.start()
        await server.stop()
        var config = ClientConfiguration(server: server.address, userId: "alice")
        config.tickInterval = 20
        let alice = ChatClient(configuration: config)
        await #expect(throws: SendbirdError.self) { try await alice.connect() }
        await alice.shutdown()
        _ = try await server.startAgain().stop()
    }

    @Test func cacheFilesAreNamedForTheServerWhenItHasAName() {
        let address = ServerAddress(apiBase: "http://127.0.0.1:45307", webSocketBase: "ws://127.0.0.1:45307")
        #expect(LocalCache.fileName(server: address, appId: "LOCAL", userId: "bob", name: "embedded") == "embedded-LOCAL-bob.sqlite")
        #expect(LocalCache.fileName(server: address, appId: "LOCAL", userId: "bob") == "127.0.0.1%3A45307-LOCAL-bob.sqlite")
    }
}
