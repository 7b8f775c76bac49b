import Foundation
import TernProtocol
import TernServer
import TernTestSupport
import Testing

@testable import TernKit

/// The engine against a real in-process `ternd` on a loopback port.
@Suite("Engine against a real ternd")
struct EngineTests {
    @Test func sendReceiveUnreadAndReadReceipts() async throws {
        try await withLocalServer { server in
            let (alice, aliceLog) = try await server.connected("alice")
            let (bob, bobLog) = try await server.connected("bob")
            let channel = try await alice.directChannel(with: "bob")
            #expect(channel.isDistinct && channel.members.count == 2)
            // The same distinct channel comes back on a second call.
            #expect(try await alice.directChannel(with: "bob").url == channel.url)

            let sent = await alice.sendMessage("hello bob", to: channel.url)
            #expect(sent.status == .pending && sent.requestId != nil)
            let stored = try await aliceLog.wait("messageSent") { e -> Message? in
                if case .messageSent(let m) = e { return m }
                return nil
            }
            #expect(stored.requestId == sent.requestId && stored.status == .succeeded && stored.messageId > 0)
            #expect(aliceLog.all.contains(.messagePending(sent)))

            // Bob receives it; his unread counts move; the channel, unknown to him, is fetched.
            let got = try await bobLog.wait("messageReceived") { e -> Message? in
                if case .messageReceived(let m) = e { return m }
                return nil
            }
            #expect(got.text == "hello bob" && got.sender?.userId == "alice" && got.messageId == stored.messageId)
            _ = try await bobLog.wait("channelAdded") { e -> Bool? in
                if case .channelAdded(let c) = e, c.url == channel.url { return true }
                return nil
            }
            #expect(await bob.unreadCount(in: channel.url) == 1)
            #expect(await bob.totalUnreadCount == 1)

            // Before bob reads, one member has not read alice's message; after, none.
            _ = try await alice.refreshedChannel(channel.url)
            #expect(await alice.unreadMemberCount(of: stored) == 1)
            try await bob.markAsRead(channel.url)
            let reader = try await aliceLog.wait("readReceiptUpdated") { e -> String? in
                if case .readReceiptUpdated(let url, let user, _) = e, url == channel.url { return user }
                return nil
            }
            #expect(reader == "bob")
            #expect(await alice.unreadMemberCount(of: stored) == 0)
            #expect(await alice.readMembers(of: stored).map(\.userId) == ["bob"])
            #expect(await bob.unreadCount(in: channel.url) == 0)
            #expect(await bob.totalUnreadCount == 0)

            // History by timestamp, previous page.
            for i in 1...4 { _ = try await alice.sendMessageAndWait("m\(i)", to: channel.url) }
            let page = try await bob.previousMessages(in: channel.url, limit: 3)
            #expect(page.messages.map(\.text) == ["m2", "m3", "m4"] && page.hasPrevious)
            let older = try await bob.previousMessages(in: channel.url, before: page.messages[0].createdAt, limit: 3)
            #expect(older.messages.map(\.text) == ["hello bob", "m1"] && !older.hasPrevious)

            // The channel list, paged.
            try await server.platform("POST", "/v3/users", ["user_id": "carol", "nickname": "Carol", "profile_url": ""])
            let other = try await bob.createGroupChannel(name: "ops", userIds: ["alice", "carol"])
            #expect(other.name == "ops" && other.members.count == 3)
            let firstPage = try await bob.loadChannels(limit: 1, reset: true)
            let more = await bob.hasMoreChannels
            #expect(firstPage.count == 1 && more)
            let all = try await bob.loadAllChannels()
            #expect(Set(all.map(\.url)) == [channel.url, other.url])
            await alice.shutdown()
            await bob.shutdown()
        }
    }

    @Test func twoDevicesOfOneUser() async throws {
        try await withLocalServer { server in
            let alice = server.client("alice")
            let phone = server.client("bob")
            let laptop = server.client("bob")
            let phoneLog = EventLog(phone)
            let laptopLog = EventLog(laptop)
            try await alice.connect()
            try await phone.connect()
            try await laptop.connect()
            let channel = try await alice.directChannel(with: "bob")
            _ = try await phone.channel(channel.url)
            _ = try await laptop.channel(channel.url)
            let m = try await alice.sendMessageAndWait("to both", to: channel.url)
            for log in [phoneLog, laptopLog] {
                _ = try await log.wait("message on each device") { e -> Bool? in
                    if case .messageReceived(let r) = e, r.messageId == m.messageId { return true }
                    return nil
                }
            }
            #expect(await laptop.unreadCount(in: channel.url) == 1)
            // Reading on the phone clears the laptop's count too.
            try await phone.markAsRead(channel.url)
            _ = try await laptopLog.wait("unread cleared on the other device") { e -> Bool? in
                if case .unreadCountChanged(let url, 0, _, 0) = e, url == channel.url { return true }
                return nil
            }
            // A message bob sends from the phone reaches the laptop as bob's, and is not unread there.
            let own = try await phone.sendMessageAndWait("from my phone", to: channel.url)
            let echoed = try await laptopLog.wait("own message on the other device") { e -> Message? in
                if case .messageReceived(let r) = e, r.messageId == own.messageId { return r }
                return nil
            }
            #expect(echoed.sender?.userId == "bob")
            #expect(await laptop.unreadCount(in: channel.url) == 0)
            for c in [alice, phone, laptop] { await c.shutdown() }
        }
    }

    @Test func typingStartEndAndExpiry() async throws {
        try await withLocalServer { server in
            let clock = AdjustableClock()
            let alice = server.client("alice")
            let bob = server.client("bob", clock: clock)
            let bobLog = EventLog(bob)
            try await alice.connect()
            try await bob.connect()
            let channel = try await alice.directChannel(with: "bob")
            _ = try await bob.channel(channel.url)

            await alice.startTyping(channel.url)
            _ = try await bobLog.wait("typingStarted") { e -> Bool? in
                if case .typingStarted(channel.url, let u) = e, u.userId == "alice" { return true }
                return nil
            }
            #expect(await bob.typers(in: channel.url).map(\.userId) == ["alice"])
            await alice.endTyping(channel.url)
            let expired = try await bobLog.wait("typingEnded") { e -> Bool? in
                if case .typingEnded(channel.url, _, let expired) = e { return expired }
                return nil
            }
            #expect(!expired)
            #expect(await bob.typers(in: channel.url).isEmpty)

            // A start with no end: the typer expires 10 s later (the test moves bob's clock).
            try await Task.sleep(for: .milliseconds(1100))  // past the sender's 1 s throttle
            await alice.startTyping(channel.url)
            _ = try await bobLog.wait("second typingStarted") { e -> Bool? in
                if case .typingStarted = e, bobLog.all.filter({ if case .typingStarted = $0 { true } else { false } }).count == 2 { return true }
                return nil
            }
            clock.advance(9_000)
            await bob.tick()
            #expect(await bob.typers(in: channel.url).map(\.userId) == ["alice"])
            clock.advance(1_100)
            await bob.tick()
            #expect(await bob.typers(in: channel.url).isEmpty)
            _ = try await bobLog.wait("typer expired") { e -> Bool? in
                e == .typingEnded(channelUrl: channel.url, user: User(userId: "alice"), expired: true) ? true : nil
            }
            await alice.shutdown()
            await bob.shutdown()
        }
    }

    @Test func errorsCarryTheSendbirdCode() async throws {
        try await withLocalServer({ $0.requireAccessToken = true }) { server in
            try await server.platform("POST", "/v3/users", ["user_id": "alice", "nickname": "", "profile_url": ""])
            try await server.platform("POST", "/v3/users", ["user_id": "bob", "nickname": "", "profile_url": ""])
            try await server.platform("POST", "/v3/users", ["user_id": "eve", "nickname": "", "profile_url": ""])
            let aliceToken = try await server.platform("POST", "/v3/users/alice/token", [:])["token"] as? String ?? ""
            let eveToken = try await server.platform("POST", "/v3/users/eve/token", [:])["token"] as? String ?? ""

            // A wrong token is refused with 400302, and no retry follows.
            let intruder = server.client("alice", token: "wrong")
            let error = await #expect(throws: SendbirdError.self) { try await intruder.connect() }
            #expect(error?.code == .invalidAccessToken)
            #expect(await intruder.connectionState == .closed)

            let alice = server.client("alice", token: aliceToken)
            try await alice.connect()
            let channel = try await alice.directChannel(with: "bob")
            let eve = server.client("eve", token: eveToken)
            try await eve.connect()
            // Unknown channel, then a channel eve is not a member of.
            let unknown = await #expect(throws: SendbirdError.self) { try await eve.sendMessageAndWait("x", to: "no_such_channel") }
            #expect(unknown?.code == .channelNotFound)
            let notMember = await #expect(throws: SendbirdError.self) { try await eve.sendMessageAndWait("x", to: channel.url) }
            #expect(notMember?.code == .notAMember)
            let eveLog = EventLog(eve)
            await eve.sendMessage("y", to: channel.url)
            let failed = try await eveLog.wait("messageFailed") { e -> Message? in
                if case .messageFailed(let m) = e { return m }
                return nil
            }
            #expect(failed.status == .failed && failed.error?.code == .notAMember)
            // REST errors too.
            let restError = await #expect(throws: SendbirdError.self) { try await eve.refreshedChannel(channel.url) }
            #expect(restError?.code == .unauthorizedRequest)
            await alice.shutdown()
            await eve.shutdown()
        }
    }

    @Test func unreachableServer() async throws {
        var config = ClientConfiguration(server: ServerAddress(apiBase: "http://127.0.0.1:1", webSocketBase: "ws://127.0.0.1:1"), userId: "x")
        config.tickInterval = 20
        let client = ChatClient(configuration: config)
        let error = await #expect(throws: SendbirdError.self) { try await client.connect() }
        #expect(error?.code == .webSocketConnectionFailed)
        #expect(error?.message.contains("connection refused") == true)
    }

    @Test func reconnectsAfterTheSocketDrops() async throws {
        try await withLocalServer { server in
            let (bob, log) = try await server.connected("bob")
            await bob.simulateNetworkLoss()
            _ = try await log.wait("reconnectStarted") { $0 == .reconnectStarted ? true : nil }
            _ = try await log.wait("reconnectSucceeded") { $0 == .reconnectSucceeded ? true : nil }
            #expect(await bob.connectionState == .open)
            await bob.shutdown()
        }
    }

    @Test func reconnectsAfterTheServerRestarts() async throws {
        var server = try await LocalServer.start()
        let alice = server.client("alice")
        let bob = server.client("bob")
        let bobLog = EventLog(bob)
        do {
            try await alice.connect()
            try await bob.connect()
            let channel = try await alice.directChannel(with: "bob")
            _ = try await bob.channel(channel.url)

            server = try await server.restart()
            _ = try await bobLog.wait("reconnectStarted") { $0 == .reconnectStarted ? true : nil }
            let states = bobLog.all.compactMap { e -> ConnectionState? in
                if case .connectionStateChanged(let s) = e { return s }
                return nil
            }
            #expect(states.contains { if case .reconnecting = $0 { true } else { false } })
            _ = try await bobLog.wait("bob reconnected") { $0 == .reconnectSucceeded ? true : nil }
            let aliceLog = EventLog(alice)
            if await alice.connectionState != .open {
                _ = try await aliceLog.wait("alice reconnected") { $0 == .reconnectSucceeded ? true : nil }
            }
            let m = try await alice.sendMessageAndWait("after the restart", to: channel.url)
            _ = try await bobLog.wait("message after restart") { e -> Bool? in
                if case .messageReceived(let r) = e, r.messageId == m.messageId { return true }
                return nil
            }
            // The session key from before the restart still works (sessions are stored).
            #expect(await bob.connectionState == .open)
        } catch {
            await alice.shutdown()
            await bob.shutdown()
            await server.stop()
            throw error
        }
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    @Test func openChannelIsMarkedReadAsMessagesArrive() async throws {
        try await withLocalServer { server in
            let (alice, aliceLog) = try await server.connected("alice")
            let bob = try await server.connectedClient("bob")
            let channel = try await alice.directChannel(with: "bob")
            _ = try await bob.channel(channel.url)
            await bob.openChannel(channel.url)
            let m = try await alice.sendMessageAndWait("seen at once", to: channel.url)
            _ = try await aliceLog.wait("bob's read receipt") { e -> Bool? in
                if case .readReceiptUpdated(channel.url, "bob", let ts) = e, ts >= m.createdAt { return true }
                return nil
            }
            #expect(await bob.unreadCount(in: channel.url) == 0)
            await alice.shutdown()
            await bob.shutdown()
        }
    }
}
