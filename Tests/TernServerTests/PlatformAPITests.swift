import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// Issue 20: the Platform API calls beyond chat itself — membership checks and counts, leaving
/// many channels, Platform typing, restrictions across channels and by custom type, push settings.
@Suite("Platform API: user scopes, custom types, push settings", .serialized)
struct PlatformAPITests {
    func channel(_ s: TestServer, _ users: [String], type: String = "", url: String) async throws -> String {
        let r = try await s.request("POST", "/v3/group_channels", body: ["user_ids": users, "custom_type": type, "channel_url": url])
        #expect(r.status == 200, "\(r.text)")
        return r.json["channel_url"] as? String ?? ""
    }

    @Test("check_if_member, group_channel_count by state, leave_my_group_channels by custom type")
    func membershipAcrossChannels() async throws {
        try await withServer(users: ["alice", "bob", "carol"]) { s in
            let a = try await channel(s, ["alice", "bob"], type: "team", url: "team-a")
            let b = try await channel(s, ["alice", "bob"], type: "team", url: "team-b")
            let c = try await channel(s, ["alice", "bob"], type: "social", url: "social-c")
            _ = try await s.request("PUT", "/v3/users/carol/channel_invitation_preference", body: ["auto_accept": false])
            _ = try await s.request("POST", "/v3/group_channels/\(c)/invite", body: ["user_ids": ["carol"]])

            let joined = try await s.request("GET", "/v3/group_channels/\(a)/members/bob")
            #expect(joined.json["is_member"] as? Bool == true && joined.json["state"] as? String == "joined", "\(joined.text)")
            let invited = try await s.request("GET", "/v3/group_channels/\(c)/members/carol")
            #expect(invited.json["is_member"] as? Bool == true && invited.json["state"] as? String == "invited", "\(invited.text)")
            let outside = try await s.request("GET", "/v3/group_channels/\(a)/members/carol")
            #expect(outside.json["is_member"] as? Bool == false && outside.json["state"] as? String == "none", "\(outside.text)")
            let nobody = try await s.request("GET", "/v3/group_channels/\(a)/members/nobody")
            #expect(nobody.json["code"] as? Int == 400201, "\(nobody.text)")

            func count(_ user: String, _ query: String) async throws -> Int {
                let r = try await s.request("GET", "/v3/users/\(user)/group_channel_count\(query)")
                #expect(r.status == 200, "\(r.text)")
                return r.json["group_channel_count"] as? Int ?? -1
            }
            #expect(try await count("bob", "") == 3)
            #expect(try await count("bob", "?state=joined&custom_types=team") == 2)
            #expect(try await count("carol", "?state=joined") == 0)
            #expect(try await count("carol", "?state=invited") == 1)
            #expect(try await count("carol", "?state=invited_by_non_friend") == 1)
            let bad = try await s.request("GET", "/v3/users/bob/group_channel_count?state=sideways")
            #expect(bad.status == 400 && bad.json["code"] as? Int == 400111, "\(bad.text)")

            // Bob leaves his "team" channels, and only those; his own socket hears each.
            let (sock, login) = try await s.login("bob")
            let key = ["Session-Key": login["key"] as? String ?? ""]
            let left = try await s.request("PUT", "/v3/users/bob/my_group_channels/leave", body: ["custom_type": "team"], headers: key)
            #expect(left.status == 200, "\(left.text)")
            for url in [a, b] {
                #expect(
                    await sock.next("SYEV", where: { $0["cat"] as? Int == 10001 && $0["channel_url"] as? String == url }) != nil,
                    "leave event for \(url)")
            }
            await sock.close()
            #expect(try await count("bob", "") == 1)
            let others = try await s.request("PUT", "/v3/users/alice/my_group_channels/leave", body: [:], headers: key)
            #expect(others.json["code"] as? Int == 400108, "acting for someone else: \(others.text)")
        }
    }

    @Test("Platform typing indicators reach the other members as SYEV 10900 / 10901 from the typer")
    func platformTyping() async throws {
        try await withServer { s in
            let url = try await s.newChannel(of: ["alice", "bob"])
            let (bob, _) = try await s.login("bob")
            let start = try await s.request("POST", "/v3/group_channels/\(url)/typing", body: ["user_ids": ["alice"]])
            #expect(start.status == 200 && start.text.hasPrefix("{"), "\(start.text)")
            let typing = await bob.next("SYEV", where: { $0["cat"] as? Int == 10900 })
            #expect((typing?["data"] as? [String: Any])?["user_id"] as? String == "alice", "\(String(describing: typing))")
            #expect((typing?["ts"] as? NSNumber)?.int64Value ?? 0 > 0)
            let stop = try await s.request("DELETE", "/v3/group_channels/\(url)/typing", body: ["user_ids": ["alice"]])
            #expect(stop.status == 200, "\(stop.text)")
            #expect(await bob.next("SYEV", where: { $0["cat"] as? Int == 10901 }) != nil)
            await bob.close()
            let stranger = try await s.request("POST", "/v3/group_channels/\(url)/typing", body: ["user_ids": ["nobody"]])
            #expect(stranger.status >= 400, "\(stranger.text)")
            let empty = try await s.request("POST", "/v3/group_channels/\(url)/typing", body: [:])
            #expect(empty.json["code"] as? Int == 400105, "\(empty.text)")
        }
    }

    @Test("Bans, mutes and operators by custom channel type; a user's bans and mutes across channels")
    func restrictionsByCustomType() async throws {
        try await withServer(users: ["alice", "bob", "mallory"]) { s in
            let a = try await channel(s, ["alice", "bob", "mallory"], type: "games", url: "games-a")
            let b = try await channel(s, ["alice", "bob", "mallory"], type: "games", url: "games-b")
            let c = try await channel(s, ["alice", "bob", "mallory"], type: "work", url: "work-c")
            // Mallory is banned from every "games" channel for an hour.
            let ban = try await s.request(
                "POST", "/v3/users/mallory/banned_channel_custom_types",
                body: ["channel_custom_types": ["games"], "seconds": 3600, "description": "cheating"])
            #expect(ban.status == 200, "\(ban.text)")
            let banned = try await s.request("GET", "/v3/users/mallory/ban?limit=1")
            let first = banned.json["banned_channels"] as? [[String: Any]] ?? []
            #expect(first.count == 1 && (first.first?["channel"] as? [String: Any])?["channel_url"] as? String == a, "\(banned.text)")
            #expect(first.first?["description"] as? String == "cheating")
            let next = banned.json["next"] as? String ?? ""
            #expect(!next.isEmpty)
            let page2 = try await s.request("GET", "/v3/users/mallory/ban?limit=1&token=\(next)")
            #expect(
                ((page2.json["banned_channels"] as? [[String: Any]])?.first?["channel"] as? [String: Any])?["channel_url"] as? String == b,
                "\(page2.text)")
            let still = try await s.request("GET", "/v3/group_channels/\(c)/members/mallory")
            #expect(still.json["state"] as? String == "joined", "the work channel keeps her: \(still.text)")
            // Bob is muted in "work" channels by the application-wide list, then unmuted.
            let mute = try await s.request(
                "POST", "/v3/applications/settings_by_channel_custom_type/work/mute", body: ["muted_list": [["user_id": "bob", "seconds": 600]]])
            #expect(mute.status == 200, "\(mute.text)")
            let mutes = try await s.request("GET", "/v3/users/bob/mute")
            #expect((mutes.json["muted_channels"] as? [[String: Any]])?.count == 1, "\(mutes.text)")
            let listed = try await s.request("GET", "/v3/applications/settings_by_channel_custom_type/work/mute")
            let rows = listed.json["muted_list"] as? [[String: Any]] ?? []
            #expect(rows.count == 1 && (rows.first?["user"] as? [String: Any])?["user_id"] as? String == "bob", "\(listed.text)")
            let send = try await s.request(
                "POST", "/v3/group_channels/\(c)/messages", body: ["message_type": "MESG", "user_id": "bob", "message": "hi"])
            #expect(send.json["code"] as? Int == 900041, "muted: \(send.text)")
            let unmute = try await s.request("DELETE", "/v3/applications/settings_by_channel_custom_type/work/mute?user_ids=bob")
            #expect(unmute.status == 200, "\(unmute.text)")
            let again = try await s.request(
                "POST", "/v3/group_channels/\(c)/messages", body: ["message_type": "MESG", "user_id": "bob", "message": "hi"])
            #expect(again.status == 200, "\(again.text)")
            // Alice becomes an operator of every "work" channel she is in.
            let op = try await s.request("POST", "/v3/users/alice/operating_channel_custom_types", body: ["channel_custom_types": ["work"]])
            #expect(op.status == 200, "\(op.text)")
            let ops = try await s.request("GET", "/v3/group_channels/\(c)/operators")
            #expect(ops.text.contains("\"alice\""), "\(ops.text)")
            let missing = try await s.request("POST", "/v3/users/alice/operating_channel_custom_types", body: [:])
            #expect(missing.json["code"] as? Int == 400105, "\(missing.text)")
        }
    }

    @Test("Push settings: device tokens (add, list, owners, remove), template, preferences checked and kept, per channel")
    func pushSettings() async throws {
        let dir = makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await withServer({ $0.dataDirectory = dir }) { s in
            let url = try await s.newChannel(of: ["alice", "bob"])
            for (user, token) in [("alice", "t1"), ("alice", "t2"), ("bob", "t1")] {
                let r = try await s.request("POST", "/v3/users/\(user)/push/gcm", body: ["gcm_reg_token": token])
                #expect(r.status == 200 && r.json["token"] as? String == token, "\(r.text)")
            }
            let list = try await s.request("GET", "/v3/users/alice/push/gcm")
            #expect(list.json["tokens"] as? [String] == ["t1", "t2"], "\(list.text)")
            let owners = try await s.request("GET", "/v3/push/device_tokens/gcm/t1")
            let ids = (try? JSONSerialization.jsonObject(with: Data(owners.text.utf8))) as? [[String: Any]] ?? []
            #expect(ids.compactMap { $0["user_id"] as? String } == ["alice", "bob"], "\(owners.text)")
            let removed = try await s.request("DELETE", "/v3/users/alice/push/gcm/t2")
            #expect(removed.status == 200, "\(removed.text)")
            let gone = try await s.request("DELETE", "/v3/users/alice/push/gcm/t2")
            #expect(gone.json["code"] as? Int == 400201, "\(gone.text)")
            let badType = try await s.request("POST", "/v3/users/alice/push/pager", body: ["gcm_reg_token": "x"])
            #expect(badType.json["code"] as? Int == 400111, "\(badType.text)")
            let fromAll = try await s.request("DELETE", "/v3/push/device_tokens/gcm/t1")
            #expect(fromAll.status == 200, "\(fromAll.text)")
            #expect((try await s.request("GET", "/v3/users/bob/push/gcm")).json["tokens"] as? [String] == [])

            let template = try await s.request("PUT", "/v3/users/alice/push/template", body: ["name": "alternative"])
            #expect(template.json["name"] as? String == "alternative", "\(template.text)")

            let defaults = try await s.request("GET", "/v3/users/alice/push_preference")
            #expect(defaults.json["push_trigger_option"] as? String == "all" && defaults.json["do_not_disturb"] as? Bool == false, "\(defaults.text)")
            let dnd = try await s.request(
                "PUT", "/v3/users/alice/push_preference",
                body: [
                    "do_not_disturb": true, "start_hour": 22, "start_min": 30, "end_hour": 7, "end_min": 0, "timezone": "Europe/Paris",
                    "push_trigger_option": "mention_only",
                ])
            #expect(dnd.status == 200 && dnd.json["start_hour"] as? Int == 22, "\(dnd.text)")
            for bad: [String: Any] in [
                ["start_hour": 24], ["timezone": "Mars/Olympus"], ["push_trigger_option": "sometimes"], ["do_not_disturb": "yes"],
            ] {
                let r = try await s.request("PUT", "/v3/users/alice/push_preference", body: bad)
                #expect(r.status == 400, "\(bad): \(r.text)")
            }
            let channelPref = try await s.request("PUT", "/v3/users/bob/push_preference/\(url)", body: ["push_trigger_option": "off"])
            #expect(channelPref.json["enable"] as? Bool == false, "\(channelPref.text)")
            let outsider = try await s.request("GET", "/v3/users/alice/push_preference/no-such-channel")
            #expect(outsider.json["code"] as? Int == 400201, "\(outsider.text)")
        }
        // Kept across a restart.
        try await withServer({ $0.dataDirectory = dir }) { s in
            let kept = try await s.request("GET", "/v3/users/alice/push_preference")
            #expect(kept.json["do_not_disturb"] as? Bool == true && kept.json["timezone"] as? String == "Europe/Paris", "\(kept.text)")
            #expect(kept.json["push_trigger_option"] as? String == "mention_only")
            let reset = try await s.request("DELETE", "/v3/users/alice/push_preference")
            #expect(reset.json["do_not_disturb"] as? Bool == false, "\(reset.text)")
        }
    }
}
