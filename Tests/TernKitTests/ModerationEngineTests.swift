import Foundation
import Testing
import TernProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@testable import TernKit

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
                try await server.platform("POST", "/v3/users", ["user_id": id, "nickname": nick, "profile_url": "", "metadata": ["team": id == "bob" ? "red" : "blue"]])
            }
            let alice = server.client("alice")
            try await alice.connect()
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
            let carol = server.client("carol")
            try await carol.connect()
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

@Suite("Engine: the server's emojis for the reaction palette")
struct EmojiEngineTests {
    @Test func emojiKeysComeFromTheServer() async throws {
        try await withLocalServer { server in
            let alice = server.client("alice")
            try await alice.connect()
            #expect(try await alice.emojiKeys() == [], "no emojis configured")
            var req = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/v3/emoji_categories")!)
            req.httpMethod = "POST"
            req.setValue(server.apiToken, forHTTPHeaderField: "Api-Token")
            req.setValue("application/json", forHTTPHeaderField: "Content-Type")
            req.httpBody = try JSONSerialization.data(withJSONObject: [
                "emoji_categories": [["name": "Faces", "emojis": [["key": "smile", "url": "https://e.example/s.png"], ["key": "party", "url": "https://e.example/p.png"]]]]
            ])
            _ = try await URLSession.shared.data(for: req)
            #expect(try await alice.emojiKeys() == ["smile", "party"])
            await alice.disconnect()
        }
    }
}

@Suite("Engine: push preferences for alerts")
struct PushPreferenceEngineTests {
    @Test func preferencesAndChannelTriggersComeFromTheServer() async throws {
        try await withLocalServer { server in
            let alice = server.client("alice")
            try await alice.connect()
            let url = try await alice.createGroupChannel(name: "mine", userIds: ["alice"]).url
            #expect(try await alice.pushPreferences().pushTriggerOption == "all")
            #expect(try await alice.pushTrigger(in: url) == "default")
            func put(_ path: String, _ body: [String: Any]) async throws {
                var req = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)\(path)")!)
                req.httpMethod = "PUT"
                req.setValue(server.apiToken, forHTTPHeaderField: "Api-Token")
                req.setValue("application/json", forHTTPHeaderField: "Content-Type")
                req.httpBody = try JSONSerialization.data(withJSONObject: body)
                _ = try await URLSession.shared.data(for: req)
            }
            try await put("/v3/users/alice/push_preference", ["do_not_disturb": true, "start_hour": 22, "end_hour": 7, "timezone": "Europe/Paris"])
            try await put("/v3/users/alice/push_preference/\(url)", ["push_trigger_option": "off"])
            let p = try await alice.pushPreferences()
            #expect(p.doNotDisturb == true && p.startHour == 22 && p.timezone == "Europe/Paris")
            #expect(try await alice.pushTrigger(in: url) == "off")
            await alice.disconnect()
        }
    }
}

@Suite("Engine: a channel made elsewhere")
struct UnknownChannelEngineTests {
    @Test func aMessageInAChannelMadeByThePlatformAPIBringsTheChannel() async throws {
        try await withLocalServer { server in
            let (alice, log) = try await server.connected("alice")
            func platform(_ method: String, _ path: String, _ body: [String: Any]) async throws {
                var req = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)\(path)")!)
                req.httpMethod = method
                req.setValue(server.apiToken, forHTTPHeaderField: "Api-Token")
                req.setValue("application/json", forHTTPHeaderField: "Content-Type")
                req.httpBody = try JSONSerialization.data(withJSONObject: body)
                _ = try await URLSession.shared.data(for: req)
            }
            try await platform("POST", "/v3/users", ["user_id": "bob", "nickname": "Bob", "profile_url": ""])
            try await platform("POST", "/v3/group_channels", ["user_ids": ["alice", "bob"], "channel_url": "made-elsewhere", "name": "elsewhere"])
            try await platform("POST", "/v3/group_channels/made-elsewhere/messages", ["message_type": "MESG", "user_id": "bob", "message": "hi"])
            let added: GroupChannel = try await log.wait("the channel", timeout: 10) { e in
                if case .channelAdded(let c) = e, c.url == "made-elsewhere" { return c }
                return nil
            }
            #expect(added.unreadMessageCount == 1)
            await alice.disconnect()
        }
    }
}
