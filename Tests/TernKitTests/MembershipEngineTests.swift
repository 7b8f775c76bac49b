import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernKit

/// The engine's group-channel API against ternd: invitations and channel events reach the list.
@Suite("Engine: membership and channel events")
struct MembershipEngineTests {
    @Test func inviteAcceptLeaveFreezeHide() async throws {
        try await withLocalServer { server in
            let alice = try await server.connectedClient("alice")
            let (bob, bobLog) = try await server.connected("bob")
            let (bobPhone, phoneLog) = try await server.connected("bob")
            try await bob.setInvitationAutoAccept(false)
            #expect(try await bob.invitationAutoAccept() == false)
            let team = try await alice.createGroupChannel(name: "team", userIds: [])
            let invited = try await alice.invite(["bob"], to: team.url)
            #expect(invited.members.first { $0.userId == "bob" }?.state == "invited")
            // Bob's list gains the channel as an invitation (from the SYEV, with no message).
            let seen = try await bobLog.wait("the invitation") { e -> GroupChannel? in
                if case .channelAdded(let c) = e, c.url == team.url { return c }
                return nil
            }
            #expect(seen.myMemberState == "invited" && seen.name == "team")
            let accepted = try await bob.acceptInvitation(team.url)
            #expect(accepted.myMemberState == "joined" && accepted.joinedMemberCount == 2)
            // Alice freezes; bob's copy follows from the event.
            try await alice.setFrozen(team.url, true)
            _ = try await bobLog.wait("frozen") { e -> Bool? in
                if case .channelUpdated(let c) = e, c.url == team.url, c.isFrozen { return true }
                return nil
            }
            await #expect(throws: SendbirdError(.channelFrozen, "The channel is frozen.")) {
                try await bob.sendMessageAndWait("hi", to: team.url)
            }
            try await alice.setFrozen(team.url, false)
            try await alice.updateChannel(team.url, name: "team two")
            _ = try await bobLog.wait("renamed") { e -> Bool? in
                if case .channelUpdated(let c) = e, c.url == team.url, c.name == "team two" { return true }
                return nil
            }
            // Hiding on one device removes it from the other's list too.
            try await bob.hide(team.url, allowAutoUnhide: false)
            let byUrl = try await bob.refreshedChannel(team.url)
            #expect(byUrl.myMemberState == "joined" && byUrl.hiddenState == "hidden_prevent_auto_unhide", "\(byUrl)")  // still readable by URL
            _ = try await phoneLog.wait("hidden elsewhere") { e -> Bool? in
                if case .channelRemoved(let url, .hidden) = e, url == team.url { return true }
                return nil
            }
            let beforeUnhide = phoneLog.mark
            try await bob.unhide(team.url)
            // Unhidden: back on the other device too.
            _ = try await phoneLog.wait("unhidden elsewhere", after: beforeUnhide) { e -> Bool? in
                if case .channelAdded(let c) = e, c.url == team.url { return true }
                return nil
            }
            // Leaving: gone from both devices' lists; alice's count drops.
            try await bob.leave(team.url)
            _ = try await bobLog.wait("left") { e -> Bool? in
                if case .channelRemoved(let url, .left) = e, url == team.url { return true }
                return nil
            }
            _ = try await phoneLog.wait("left elsewhere") { e -> Bool? in
                if case .channelRemoved(let url, .left) = e, url == team.url { return true }
                return nil
            }
            let after = try await alice.refreshedChannel(team.url)
            #expect(after.memberCount == 1)
            // Public channels: found by name and joined.
            let lobby = try await server.platform("POST", "/v3/group_channels", ["user_ids": ["alice"], "is_public": true, "name": "lobby"])
            let found = try await bob.publicChannels(nameContains: "lob")
            #expect(found.map(\.url) == [lobby["channel_url"] as? String ?? "?"])
            let joined = try await bob.join(found[0].url)
            #expect(joined.myMemberState == "joined" && joined.memberCount == 2)
            for c in [alice, bob, bobPhone] { await c.shutdown() }
        }
    }

    @Test func channelEventsListQueriesAndMetadata() async throws {
        try await withLocalServer { server in
            let alice = try await server.connectedClient("alice")
            let (bob, bobLog) = try await server.connected("bob")
            var params = GroupChannelCreateParams(userIds: ["bob"])
            params.name = "Red"
            params.channelUrl = "red_room"
            params.operatorIds = ["alice"]
            params.isEphemeral = true
            params.data = "{}"
            let red = try await alice.createGroupChannel(params)
            #expect(red.url == "red_room" && red.isEphemeral && red.data == "{}" && red.myRole == "operator")
            params.isPublic = true
            params.isDistinct = true
            params.channelUrl = ""
            await #expect(throws: SendbirdError.self) { try await alice.createGroupChannel(params) }
            let blue = try await alice.createGroupChannel(name: "Blue", userIds: [])
            try await alice.updateChannel(blue.url, customType: "team")
            // Events reach bob's stream by name.
            try await alice.setFrozen(red.url, true)
            let frozen = try await bobLog.wait("frozen event") { e -> Bool? in
                if case .channelEvent(let url, .frozen) = e, url == red.url { return true }
                return nil
            }
            #expect(frozen)
            try await alice.invite(["bob"], to: blue.url)
            let joined = try await bobLog.wait("joined event") { e -> [String]? in
                if case .channelEvent(let url, .joined(let users)) = e, url == blue.url { return users.map(\.userId) }
                return nil
            }
            #expect(joined == ["bob"])
            try await alice.setChannelMetadata(red.url, ["floor": "3"])
            let meta = try await bobLog.wait("metadata event") { e -> [String: String]? in
                if case .channelEvent(let url, .metadataChanged(let created, _, _)) = e, url == red.url { return created }
                return nil
            }
            #expect(meta == ["floor": "3"])
            #expect(try await bob.channelMetadata(red.url) == ["floor": "3"])
            try await alice.deleteChannelMetadata(red.url, key: "floor")
            #expect(try await bob.channelMetadata(red.url).isEmpty)
            #expect(try await alice.changeChannelMetacounters(red.url, ["likes": 2], mode: "increase") == ["likes": 2])
            #expect(try await bob.channelMetacounters(red.url) == ["likes": 2])
            // A list query with filters and an order; paging by token.
            var list = GroupChannelListParams()
            list.order = .channelNameAlphabetical
            #expect(try await bob.myChannels(list).channels.map(\.name) == ["Blue", "Red"])
            list.customTypes = ["team"]
            #expect(try await bob.myChannels(list).channels.map(\.url) == [blue.url])
            list = GroupChannelListParams()
            list.includeFrozen = false
            #expect(try await bob.myChannels(list).channels.map(\.url) == [blue.url])
            list = GroupChannelListParams()
            list.limit = 1
            list.order = .chronological
            let first = try await bob.myChannels(list)
            let second = try await bob.myChannels(list, token: first.next)
            #expect(first.next != nil && second.next == nil)
            #expect(Set((first.channels + second.channels).map(\.url)) == [red.url, blue.url])
            await alice.shutdown()
            await bob.shutdown()
        }
    }
}
