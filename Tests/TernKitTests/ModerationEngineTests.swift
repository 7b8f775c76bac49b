import Foundation
import TernProtocol
import TernServer
import TernTestSupport
import Testing

@testable import TernKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The engine's open-channel, moderation and user APIs against ternd (seeds 000, 001, 003).
@Suite("Engine: open channels, moderation and users")
struct ModerationEngineTests {
    @Test func openChannelEnterTalkReenterBanDelete() async throws {
        try await withLocalServer({ $0.participantCountInterval = 50 }) { server in
            let (alice, aliceLog) = try await server.connected("alice")
            let (bob, bobLog) = try await server.connected("bob")
            let lobby = try await alice.createOpenChannel(name: "Lobby", customType: "live")
            #expect(lobby.isOperator("alice") && lobby.participantCount == 0)
            let listed = try await bob.openChannelList(nameContains: "lob")
            #expect(listed.channels.map(\.url) == [lobby.url] && listed.next.isEmpty)
            #expect(try await alice.enterOpenChannel(lobby.url).participantCount == 1)
            #expect(try await bob.enterOpenChannel(lobby.url).participantCount == 2)
            _ = try await aliceLog.wait("bob entered") { e -> Bool? in
                if case .channelEvent(let url, .entered(let u, let n)) = e, url == lobby.url, u.userId == "bob", n == 2 { return true }
                return nil
            }
            try await eventually("alice's copy counts 2") { await alice.enteredOpenChannels.first?.participantCount == 2 }
            // Messages: live and in the history (the open-channel path).
            _ = try await bob.sendMessageAndWait("hello room", to: lobby.url)
            let got = try await aliceLog.wait("bob's message") { e -> Message? in
                if case .messageReceived(let m) = e, m.channelUrl == lobby.url { return m }
                return nil
            }
            #expect(got.text == "hello room" && got.sender?.userId == "bob")
            #expect(try await alice.previousMessages(in: lobby.url).messages.map(\.text) == ["hello room"])
            #expect(try await alice.participants(in: lobby.url).users.map(\.userId) == ["alice", "bob"])
            // A reconnection enters again by itself: bob still gets the room's messages.
            let beforeDrop = bobLog.mark
            await bob.simulateNetworkLoss()
            _ = try await bobLog.wait("re-entered", after: beforeDrop) { e -> Bool? in
                if case .openChannelEntered(let c) = e, c.url == lobby.url { return true }
                return nil
            }
            _ = try await alice.sendMessageAndWait("still there?", to: lobby.url)
            _ = try await bobLog.wait("the message after the reconnection", after: beforeDrop) { e -> Bool? in
                if case .messageReceived(let m) = e, m.text == "still there?" { return true }
                return nil
            }
            // Bob may not delete it; a ban puts him out and keeps him out.
            await #expect(throws: SendbirdError.self) { try await bob.deleteOpenChannel(lobby.url) }
            try await alice.ban("bob", in: lobby.url, seconds: 60, description: "spam")
            _ = try await bobLog.wait("banned out") { e -> Bool? in
                if case .openChannelExited(let url, .banned) = e, url == lobby.url { return true }
                return nil
            }
            do {
                try await bob.enterOpenChannel(lobby.url)
                Issue.record("a banned user entered")
            } catch let e as SendbirdError {
                #expect(e.code == .bannedFromChannel)
            }
            #expect(try await alice.bannedUsers(in: lobby.url).map { $0.user.userId } == ["bob"])
            try await alice.unban("bob", in: lobby.url)
            try await bob.enterOpenChannel(lobby.url)
            try await alice.deleteOpenChannel(lobby.url)
            _ = try await bobLog.wait("deleted") { e -> Bool? in
                if case .openChannelExited(let url, .deleted) = e, url == lobby.url { return true }
                return nil
            }
            let bobIn = await bob.enteredOpenChannels
            try await eventually("alice is out too") { await alice.enteredOpenChannels.isEmpty }
            #expect(bobIn.isEmpty)
        }
    }

    @Test func groupModerationMembersUsersAndReports() async throws {
        try await withLocalServer { server in
            for (id, nick) in [("alice", "Alice"), ("bob", "Bob"), ("carol", "Carol")] {
                try await server.platform(
                    "POST", "/v3/users", ["user_id": id, "nickname": nick, "profile_url": "", "metadata": ["team": id == "bob" ? "red" : "blue"]])
            }
            let alice = try await server.connectedClient("alice")
            let (bob, bobLog) = try await server.connected("bob")
            let team = try await alice.createGroupChannel(name: "team", userIds: ["bob", "carol"])
            try await alice.addOperators(["alice"], in: team.url)  // already one? the creator is not by default
            let ops = try await alice.operators(in: team.url)
            #expect(ops.map(\.userId) == ["alice"])
            // Mute: bob hears it, his sends fail with 900041, his own mute info says so.
            try await alice.mute("bob", in: team.url, seconds: 30, description: "calm")
            _ = try await bobLog.wait("muted") { e -> Bool? in
                if case .channelEvent(_, .muted(let u, let end)) = e, u.userId == "bob", end > 0 { return true }
                return nil
            }
            await #expect(throws: SendbirdError.self) { try await bob.sendMessageAndWait("can I?", to: team.url) }
            #expect(try await bob.myMute(in: team.url)?.description == "calm")
            #expect(try await alice.mutedUsers(in: team.url).map { $0.user.userId } == ["bob"])
            var mutedOnly = MemberListParams()
            mutedOnly.mutedOnly = true
            #expect(try await alice.members(in: team.url, mutedOnly).map(\.userId) == ["bob"])
            try await alice.unmute("bob", in: team.url)
            #expect(try await bob.myMute(in: team.url) == nil)
            // Operators first, then by nickname.
            var ordered = MemberListParams()
            ordered.order = .operatorsFirst
            #expect(try await alice.members(in: team.url, ordered).map(\.userId) == ["alice", "bob", "carol"])
            var nonOps = MemberListParams()
            nonOps.operatorFilter = .nonOperators
            nonOps.nicknameStartsWith = "C"
            #expect(try await alice.members(in: team.url, nonOps).map(\.userId) == ["carol"])
            // A ban takes the channel out of bob's list.
            try await alice.ban("bob", in: team.url, seconds: -1, description: "")
            _ = try await bobLog.wait("removed as banned") { e -> Bool? in
                if case .channelRemoved(let url, .banned) = e, url == team.url { return true }
                return nil
            }
            // Reports of each kind are accepted; a bad one is not sent at all (categories are typed).
            let msg = try await alice.sendMessageAndWait("note", to: team.url)
            let carol = try await server.connectedClient("carol")
            try await carol.report(message: msg, category: .spam, description: "ads")
            try await carol.report(userId: "alice", in: team.url, category: .harassing)
            try await carol.report(channel: team.url, category: .inappropriate)
            let logs = try await server.platform("GET", "/v3/report/group_channels/\(team.url)")
            #expect((logs["report_logs"] as? [Any])?.count == 3)
            // Users: filters, one profile, the user's own nickname.
            var filter = UserListParams()
            filter.metadataKey = "team"
            filter.metadataValues = ["blue"]
            #expect(try await carol.users(filter).users.map(\.user.userId) == ["alice", "carol"])
            let profile = try await carol.user("alice")
            #expect(profile.isOnline && profile.user.nickname == "Alice")
            try await carol.updateMe(nickname: "Caro")
            #expect(try await alice.user("carol").user.nickname == "Caro")
            await carol.shutdown()
        }
    }
}
