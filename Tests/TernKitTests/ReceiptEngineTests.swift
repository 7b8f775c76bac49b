import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernKit

/// Receipts, unread counts and blocking through the engine against ternd: after every step the
/// engine's figures agree with what the server says over REST.
@Suite("Engine: receipts, unread counts, blocking")
struct ReceiptEngineTests {

    /// The server's totals for `user`: unread messages and channels with unread messages.
    func serverTotals(_ server: LocalServer, _ user: String) async throws -> (messages: Int, channels: Int) {
        let m = try await server.platform("GET", "/v3/users/\(user)/unread_message_count")
        let c = try await server.platform("GET", "/v3/users/\(user)/unread_channel_count")
        return (m["unread_count"] as? Int ?? -1, c["unread_count"] as? Int ?? -1)
    }

    /// Waits until the engine's totals are the server's.
    func agree(_ client: ChatClient, _ server: LocalServer, _ user: String, _ step: String) async throws {
        try await eventually("\(user) agrees with the server after \(step)") {
            let s = try await serverTotals(server, user)
            let total = await client.totalUnreadCount
            let channels = await client.unreadChannelCount
            return s.messages == total && s.channels == channels
        }
    }

    @Test func threeUsersWithMixedReadStates() async throws {
        try await withLocalServer { server in
            let alice = server.client("alice")
            let bob = server.client("bob")
            let carol = server.client("carol")
            for c in [alice, bob, carol] { try await c.connect() }
            let trio = try await alice.createGroupChannel(name: "trio", userIds: ["bob", "carol"])
            for c in [bob, carol] { _ = try await c.loadAllChannels() }
            let m = try await alice.sendMessageAndWait("hello both", to: trio.url)
            // Carol is online, so her device acknowledges delivery; bob reads.
            try await eventually("bob and carol count it") {
                let b = await bob.unreadCount(in: trio.url)
                let c = await carol.unreadCount(in: trio.url)
                return b == 1 && c == 1
            }
            try await agree(bob, server, "bob", "the first message")
            try await bob.markAsRead(trio.url)
            try await agree(bob, server, "bob", "reading")
            try await eventually("alice sees bob's receipt") { await alice.readMembers(of: m).map(\.userId) == ["bob"] }
            #expect(await alice.unreadMembers(of: m).map(\.userId) == ["carol"])
            #expect(await alice.unreadMemberCount(of: m) == 1)
            try await eventually("delivered to everyone") { await alice.undeliveredMemberCount(of: m) == 0 }
            // A mention of carol (Platform API): her mention count, not bob's.
            try await server.platform(
                "POST", "/v3/group_channels/\(trio.url)/messages",
                ["message_type": "MESG", "user_id": "alice", "message": "@carol look", "mentioned_user_ids": ["carol"]])
            try await eventually("carol's mention") {
                let c = await carol.cachedChannel(trio.url)
                return c?.unreadMentionCount == 1 && c?.unreadMessageCount == 2
            }
            #expect(await bob.cachedChannel(trio.url)?.unreadMentionCount == 0)
            try await agree(carol, server, "carol", "the mention")
            try await agree(bob, server, "bob", "the mention")
            // An admin message counts for everyone.
            try await server.platform("POST", "/v3/group_channels/\(trio.url)/messages", ["message_type": "ADMM", "message": "maintenance at noon"])
            try await eventually("admin message counted") { await carol.unreadCount(in: trio.url) == 3 }
            try await agree(carol, server, "carol", "the admin message")
            // Mark all as read: carol's counts go to zero, and alice sees her receipt.
            try await carol.markAllAsRead()
            try await agree(carol, server, "carol", "mark all as read")
            #expect(await carol.unreadCount(in: trio.url) == 0)
            try await eventually("alice sees everyone read") { await alice.unreadMemberCount(of: m) == 0 }
            #expect(try await carol.totalUnreadMessageCount() == 0)
            for c in [alice, bob, carol] { await c.shutdown() }
        }
    }

    @Test func aBurstIsAcknowledgedUpToItsLastMessageInFewReceipts() async throws {
        try await withLocalServer { server in
            let alice = server.client("alice")
            let bob = server.client("bob")
            for c in [alice, bob] { try await c.connect() }
            let pair = try await alice.createGroupChannel(name: "pair", userIds: ["bob"])
            _ = try await bob.loadAllChannels()
            let first = try await alice.sendMessageAndWait("burst 0", to: pair.url)
            try await eventually("the first message is delivered at once") { await alice.undeliveredMemberCount(of: first) == 0 }
            var last = first
            let start = ContinuousClock.now
            for i in 1..<8 { last = try await alice.sendMessageAndWait("burst \(i)", to: pair.url) }
            try await eventually("bob has the whole burst") { await bob.unreadCount(in: pair.url) == 8 }
            let spent = ContinuousClock.now - start
            // The rest of the burst: one trailing receipt (or a few, as the burst spans the interval), dated after the last message.
            try await eventually("the burst's last message is delivered") { await alice.undeliveredMemberCount(of: last) == 0 }
            let sent = await bob.deliveryAcksSent
            // The first message's receipt, then at most one per interval begun while the burst came in, then the
            // trailing one (a burst that takes seconds on a loaded machine saves fewer; a quick one sends 2 or 3).
            let intervals = Int(spent / .milliseconds(Int(ChatClient.deliveryAckInterval)))
            let allowed = min(8, 3 + intervals)
            #expect(sent >= 2 && sent <= allowed, "delivery receipts for 8 messages over \(spent): \(sent), at most \(allowed)")
            for c in [alice, bob] { await c.shutdown() }
        }
    }

    @Test func blockedSendersAndCountPreferences() async throws {
        try await withLocalServer { server in
            let alice = server.client("alice")
            let bob = server.client("bob")
            let bobPhone = server.client("bob")
            let carol = server.client("carol")
            let bobLog = EventLog(bob)
            let phoneLog = EventLog(bobPhone)
            for c in [alice, bob, bobPhone, carol] { try await c.connect() }
            let group = try await alice.createGroupChannel(name: "group", userIds: ["bob", "carol"])
            let dm = try await alice.directChannel(with: "bob")
            for c in [bob, bobPhone, carol] { _ = try await c.loadAllChannels() }
            let before = try await alice.sendMessageAndWait("before the block", to: dm.url)
            try await bob.markAsRead(dm.url)
            // Bob blocks alice: his other device learns it too.
            try await bob.blockUser("alice")
            _ = try await phoneLog.wait("block on the other device") { e -> Bool? in
                if case .userBlocked(let u) = e, u.userId == "alice" { return true }
                return nil
            }
            #expect(await bob.blockedUserIds == ["alice"])
            #expect(try await bob.blockedUsers(userIds: ["alice", "carol"]).users.map(\.userId) == ["alice"])
            // In a group her messages arrive but do not count.
            let mark = bobLog.mark
            let inGroup = try await alice.sendMessageAndWait("in the group", to: group.url)
            _ = try await bobLog.wait("group message delivered", after: mark) { e -> Bool? in
                if case .messageReceived(let r) = e, r.messageId == inGroup.messageId { return true }
                return nil
            }
            #expect(await bob.unreadCount(in: group.url) == 0)
            try await agree(bob, server, "bob", "a blocked sender's group message")
            // In the 1:1 channel they are stored but never reach bob, and do not count.
            let hidden = try await alice.sendMessageAndWait("while blocked", to: dm.url)
            try await bob.unblockUser("alice")
            let after = try await alice.sendMessageAndWait("after unblocking", to: dm.url)
            _ = try await bobLog.wait("message after unblocking", after: mark) { e -> Bool? in
                if case .messageReceived(let r) = e, r.messageId == after.messageId { return true }
                return nil
            }
            #expect(
                !bobLog.all.contains { e in
                    if case .messageReceived(let r) = e { return r.messageId == hidden.messageId }
                    return false
                })
            #expect(await bob.unreadCount(in: dm.url) == 1)
            try await agree(bob, server, "bob", "unblocking")
            // What alice sent during the block stays out of bob's history; alice sees all three.
            #expect(try await bob.previousMessages(in: dm.url).messages.map(\.messageId) == [before.messageId, after.messageId])
            #expect(try await alice.previousMessages(in: dm.url).messages.count == 3)
            // Count preference off: carol's group count stays at zero, and her total follows.
            try await carol.setCountPreference(.off, in: group.url)
            #expect(try await carol.countPreference(in: group.url) == .off)
            _ = try await carol.refreshedChannel(group.url)
            #expect(await carol.unreadCount(in: group.url) == 0)
            try await agree(carol, server, "carol", "count preference off")
            _ = try await alice.sendMessageAndWait("not counted for carol", to: group.url)
            try await eventually("bob counts it") { await bob.unreadCount(in: group.url) == 1 }
            #expect(await carol.unreadCount(in: group.url) == 0)
            try await agree(carol, server, "carol", "a message with the preference off")
            for c in [alice, bob, bobPhone, carol] { await c.shutdown() }
        }
    }

    @Test func supergroupsCapUnreadAndKeepNoReceipts() async throws {
        try await withLocalServer { server in
            let bob = try await server.connectedClient("bob")
            try await server.platform("POST", "/v3/users", ["user_id": "alice", "nickname": "Alice"])
            let created = try await server.platform(
                "POST", "/v3/group_channels", ["user_ids": ["alice", "bob"], "is_super": true, "name": "town hall"])
            let url = try #require(created["channel_url"] as? String)
            _ = try await bob.loadAllChannels()
            for i in 0..<103 {
                try await server.platform(
                    "POST", "/v3/group_channels/\(url)/messages", ["message_type": "MESG", "user_id": "alice", "message": "m\(i)"])
            }
            try await eventually("bob's count stops at 100") {
                let n = await bob.unreadCount(in: url)
                let total = await bob.totalUnreadCount
                return n == 100 && total == 100
            }
            try await agree(bob, server, "bob", "103 supergroup messages")
            let channel = try await bob.refreshedChannel(url)
            #expect(channel.isSuper && channel.unreadMessageCount == 100 && channel.readReceipt.isEmpty && channel.deliveryReceipt.isEmpty)
            #expect(try await bob.totalUnreadMessageCount(superMode: "nonsuper") == 0)
            try await bob.markAsRead(url)
            try await agree(bob, server, "bob", "reading the supergroup")
            await bob.shutdown()
        }
    }
}
