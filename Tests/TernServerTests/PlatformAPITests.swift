import Foundation
import TernProtocol
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
        try await withServer { s in
            try await s.createUsers(["alice", "bob", "carol"])
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
                #expect(await sock.next("SYEV", where: { $0["cat"] as? Int == 10001 && $0["channel_url"] as? String == url }) != nil, "leave event for \(url)")
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
            try await s.createUsers(["alice", "bob"])
            let url = try await s.createChannel(["alice", "bob"])
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
        try await withServer { s in
            try await s.createUsers(["alice", "bob", "mallory"])
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
            #expect(((page2.json["banned_channels"] as? [[String: Any]])?.first?["channel"] as? [String: Any])?["channel_url"] as? String == b, "\(page2.text)")
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
            try await s.createUsers(["alice", "bob"])
            let url = try await s.createChannel(["alice", "bob"])
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
                body: ["do_not_disturb": true, "start_hour": 22, "start_min": 30, "end_hour": 7, "end_min": 0, "timezone": "Europe/Paris",
                       "push_trigger_option": "mention_only"])
            #expect(dnd.status == 200 && dnd.json["start_hour"] as? Int == 22, "\(dnd.text)")
            for bad: [String: Any] in [["start_hour": 24], ["timezone": "Mars/Olympus"], ["push_trigger_option": "sometimes"], ["do_not_disturb": "yes"]] {
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

@Suite("Platform API: application tokens, statistics, defaults", .serialized)
struct ApplicationAPITests {
    @Test("A secondary API token works at once and stops at once when revoked; the master token cannot be revoked")
    func secondaryTokens() async throws {
        try await withServer { s in
            let issued = try await s.request("POST", "/v3/applications/api_tokens", body: [:])
            let token = issued.json["token"] as? String ?? ""
            #expect(issued.status == 200 && token.count >= 20, "\(issued.text)")
            let asSecondary = try await s.request("POST", "/v3/users", body: ["user_id": "made-by-2nd", "nickname": "n", "profile_url": ""], headers: ["Api-Token": token])
            #expect(asSecondary.status == 200, "\(asSecondary.text)")
            let list = try await s.request("GET", "/v3/applications/api_tokens")
            // Only the hash is stored: the list shows the token masked, with its last four characters.
            #expect((list.json["api_tokens"] as? [[String: Any]])?.compactMap { $0["token"] as? String } == ["****" + token.suffix(4)], "\(list.text)")
            let master = try await s.request("DELETE", "/v3/applications/api_tokens/\(s.apiToken)")
            #expect(master.status == 400, "\(master.text)")
            let revoke = try await s.request("DELETE", "/v3/applications/api_tokens/\(token)")
            #expect(revoke.status == 200, "\(revoke.text)")
            let after = try await s.request("GET", "/v3/users", headers: ["Api-Token": token])
            #expect(after.status == 403 && after.json["code"] as? Int == 400401, "\(after.text)")
        }
    }

    @Test("ccu, dau, mau and peak connections come from the server's own connections and logins")
    func statistics() async throws {
        try await withServer { s in
            try await s.createUsers(["alice", "bob", "carol"])
            let (a, _) = try await s.login("alice")
            let (b, _) = try await s.login("bob")
            let ccu = try await s.request("GET", "/v3/applications/ccu")
            #expect(ccu.json["ccu"] as? Int == 2, "\(ccu.text)")
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.timeZone = TimeZone(identifier: "UTC")
            f.dateFormat = "yyyy-MM-dd"
            let today = f.string(from: Date())
            let dau = try await s.request("GET", "/v3/applications/dau?date=\(today)")
            #expect(dau.json["dau"] as? Int == 2, "\(dau.text)")
            let mau = try await s.request("GET", "/v3/applications/mau?date=\(today)")
            #expect(mau.json["mau"] as? Int == 2, "\(mau.text)")
            let longAgo = try await s.request("GET", "/v3/applications/dau?date=2001-01-01")
            #expect(longAgo.json["dau"] as? Int == 0, "\(longAgo.text)")
            let bad = try await s.request("GET", "/v3/applications/dau?date=yesterday")
            #expect(bad.json["code"] as? Int == 400111, "\(bad.text)")
            await a.close()
            await b.close()
            let peaks = try await s.request("GET", "/v3/applications/peak_connections?time_dimension=daily")
            let list = peaks.json["peak_connections"] as? [[String: Any]] ?? []
            #expect(list.last?["date"] as? String == today && list.last?["peak_connections"] as? Int == 2, "\(peaks.text)")
            let monthly = try await s.request("GET", "/v3/applications/peak_connections?time_dimension=monthly")
            #expect((monthly.json["peak_connections"] as? [[String: Any]])?.last?["peak_connections"] as? Int == 2, "\(monthly.text)")
        }
    }

    @Test("The default invitation preference applies to users created after it; existing users keep theirs")
    func defaultInvitationPreference() async throws {
        try await withServer { s in
            try await s.createUsers(["before"])
            let set = try await s.request("PUT", "/v3/applications/default_channel_invitation_preference", body: ["auto_accept": false])
            #expect(set.json["auto_accept"] as? Bool == false, "\(set.text)")
            #expect((try await s.request("GET", "/v3/applications/default_channel_invitation_preference")).json["auto_accept"] as? Bool == false)
            try await s.createUsers(["after"])
            let (sock, _) = try await s.login("connected-later")
            await sock.close()
            for (user, expected) in [("before", true), ("after", false), ("connected-later", false)] {
                let r = try await s.request("GET", "/v3/users/\(user)/channel_invitation_preference")
                #expect(r.json["auto_accept"] as? Bool == expected, "\(user): \(r.text)")
            }
        }
    }
}

@Suite("Platform API: emojis and reaction switches", .serialized)
struct EmojiAPITests {
    @Test("Emoji categories and emojis: add, read (any user), update, delete, unique keys, a hash that changes; reactions off refuses new ones")
    func emojis() async throws {
        try await withServer { s in
            try await s.createUsers(["alice", "bob"])
            let add = try await s.request(
                "POST", "/v3/emoji_categories",
                body: ["emoji_categories": [["name": "Faces", "url": "https://e.example/faces.png",
                                             "emojis": [["key": "smile", "url": "https://e.example/smile.png"], ["key": "cry", "url": "https://e.example/cry.png"]]]]])
            #expect(add.status == 200, "\(add.text)")
            let category = (add.json["emoji_categories"] as? [[String: Any]])?.first ?? [:]
            let categoryId = category["id"] as? Int ?? 0
            #expect((category["emojis"] as? [[String: Any]])?.count == 2)
            let (sock, login) = try await s.login("alice")
            await sock.close()
            let key = ["Session-Key": login["key"] as? String ?? ""]
            let list = try await s.request("GET", "/v3/emoji_categories", headers: key)
            let hash1 = list.json["emoji_hash"] as? String ?? ""
            #expect((list.json["emoji_categories"] as? [[String: Any]])?.count == 1 && !hash1.isEmpty, "\(list.text)")
            let dup = try await s.request("POST", "/v3/emojis", body: ["emoji_category_id": categoryId, "emojis": [["key": "smile", "url": "https://e.example/x.png"]]])
            #expect(dup.json["code"] as? Int == 400202, "\(dup.text)")
            let more = try await s.request("POST", "/v3/emojis", body: ["emoji_category_id": categoryId, "emojis": [["key": "wink", "url": "https://e.example/wink.png"]]])
            #expect((more.json["emojis"] as? [[String: Any]])?.first?["key"] as? String == "wink", "\(more.text)")
            let moved = try await s.request("PUT", "/v3/emojis/wink", body: ["url": "https://e.example/wink2.png"])
            #expect(moved.json["url"] as? String == "https://e.example/wink2.png", "\(moved.text)")
            let one = try await s.request("GET", "/v3/emojis/wink", headers: key)
            #expect(one.json["url"] as? String == "https://e.example/wink2.png")
            let bad = try await s.request("PUT", "/v3/emojis/wink", body: ["url": "javascript:alert(1)"])
            #expect(bad.json["code"] as? Int == 400111, "\(bad.text)")
            let notMine = try await s.request("POST", "/v3/emojis", body: ["emoji_category_id": categoryId, "emojis": [["key": "x", "url": "https://e.example/x.png"]]], headers: key)
            #expect(notMine.status == 403, "\(notMine.text)")
            _ = try await s.request("DELETE", "/v3/emojis/cry")
            let all = try await s.request("GET", "/v3/emojis")
            #expect((all.json["emojis"] as? [[String: Any]])?.compactMap { $0["key"] as? String } == ["smile", "wink"], "\(all.text)")
            #expect((try await s.request("GET", "/v3/emoji_categories")).json["emoji_hash"] as? String != hash1)
            let use = try await s.request("PUT", "/v3/applications/settings/use_default_emoji", body: ["use_default_emoji": false])
            #expect(use.json["use_default_emoji"] as? Bool == false, "\(use.text)")

            // Reactions off: adding one is refused, removing still works; on again: accepted.
            let url = try await s.createChannel(["alice", "bob"])
            let sent = try await s.request("POST", "/v3/group_channels/\(url)/messages", body: ["message_type": "MESG", "user_id": "alice", "message": "hi"])
            let id = (sent.json["message_id"] as? NSNumber)?.int64Value ?? 0
            let off = try await s.request("PUT", "/v3/applications/settings/reactions", body: ["enabled": false])
            #expect(off.json["reactions"] as? Bool == false, "\(off.text)")
            let refused = try await s.request("POST", "/v3/group_channels/\(url)/messages/\(id)/reactions", body: ["user_id": "bob", "reaction": "smile"])
            #expect(refused.json["code"] as? Int == 400111, "\(refused.text)")
            _ = try await s.request("PUT", "/v3/applications/settings/reactions", body: ["enabled": true])
            let accepted = try await s.request("POST", "/v3/group_channels/\(url)/messages/\(id)/reactions", body: ["user_id": "bob", "reaction": "smile"])
            #expect(accepted.status == 200, "\(accepted.text)")
            _ = try await s.request("DELETE", "/v3/emoji_categories/\(categoryId)")
            #expect((try await s.request("GET", "/v3/emoji_categories/\(categoryId)")).json["code"] as? Int == 400201)
        }
    }
}

@Suite("Platform API: application settings", .serialized)
struct ApplicationSettingsTests {
    @Test("The IP allow-list refuses Platform calls from other addresses (SDK users are not affected); loopback may still edit it")
    func ipAllowList() async throws {
        try await withServer { s in
            try await s.createUsers(["alice"])
            let (sock, login) = try await s.login("alice")
            await sock.close()
            let key = ["Session-Key": login["key"] as? String ?? ""]
            let bad = try await s.request("PUT", "/v3/applications/settings/ip_whitelist", body: ["ip_whitelist_addresses": ["10.0.0.300"]])
            #expect(bad.json["code"] as? Int == 400111, "\(bad.text)")
            let set = try await s.request("PUT", "/v3/applications/settings/ip_whitelist", body: ["ip_whitelist_addresses": ["10.0.0.0/8", "2001:db8::/32"]])
            #expect(set.json["ip_whitelist_addresses"] as? [String] == ["10.0.0.0/8", "2001:db8::/32"], "\(set.text)")
            let refused = try await s.request("GET", "/v3/users")
            #expect(refused.status == 403 && refused.json["code"] as? Int == 400108, "\(refused.text)")
            let user = try await s.request("GET", "/v3/users/alice", headers: key)
            #expect(user.status == 200, "an SDK user is not a Platform call: \(user.text)")
            let listed = try await s.request("GET", "/v3/applications/settings/ip_whitelist")
            #expect((listed.json["ip_whitelist_addresses"] as? [String])?.count == 2, "loopback may read and edit the list: \(listed.text)")
            _ = try await s.request("PUT", "/v3/applications/settings/ip_whitelist", body: ["ip_whitelist_addresses": ["127.0.0.0/8"]])
            #expect((try await s.request("GET", "/v3/users")).status == 200, "127.0.0.1 is in 127.0.0.0/8")
            let cleared = try await s.request("DELETE", "/v3/applications/settings/ip_whitelist?ip_whitelist_addresses=10.0.0.0/8,2001:db8::/32,127.0.0.0/8")
            #expect(cleared.json["ip_whitelist_addresses"] as? [String] == [], "\(cleared.text)")
        }
    }

    @Test("IP ranges match by prefix, IPv4 and IPv6, IPv4-mapped addresses as IPv4")
    func ipRanges() {
        #expect(IPRange("10.0.0.0/8")!.contains("10.200.3.4"))
        #expect(!IPRange("10.0.0.0/8")!.contains("11.0.0.1"))
        #expect(IPRange("192.168.1.0/25")!.contains("192.168.1.127"))
        #expect(!IPRange("192.168.1.0/25")!.contains("192.168.1.128"))
        #expect(IPRange("203.0.113.7")!.contains("::ffff:203.0.113.7"))
        #expect(IPRange("2001:db8::/32")!.contains("2001:db8:1::5"))
        #expect(!IPRange("2001:db8::/32")!.contains("2001:db9::1"))
        #expect(IPRange("not an ip") == nil && IPRange("10.0.0.0/33") == nil)
        #expect(IPRange.isLoopback("127.0.0.1") && IPRange.isLoopback("::1") && !IPRange.isLoopback("10.0.0.1"))
    }

    @Test("Push provider configurations keep no secret (masked, fingerprinted); templates and auto event messages are stored")
    func pushConfigurationsAndTemplates() async throws {
        try await withServer { s in
            let fcm = try await s.request("POST", "/v3/applications/push/fcm", body: ["api_key": "AAAA-very-secret-1234", "push_sound": "ding"])
            let config = (fcm.json["push_configurations"] as? [[String: Any]])?.first ?? [:]
            let id = config["id"] as? String ?? ""
            #expect(config["api_key"] as? String == "****1234" && !fcm.text.contains("very-secret"), "\(fcm.text)")
            #expect(!(try await s.storedText()).contains("very-secret"))
            let list = try await s.request("GET", "/v3/applications/push/fcm")
            #expect((list.json["push_configurations"] as? [[String: Any]])?.count == 1, "\(list.text)")
            let updated = try await s.request("PUT", "/v3/applications/push/fcm/\(id)", body: ["push_sound": "chime"])
            #expect(updated.json["push_configurations"] as? String == id, "an update answers the provider id: \(updated.text)")
            let viewed = try await s.request("GET", "/v3/applications/push/fcm/\(id)")
            #expect((viewed.json["push_configurations"] as? [[String: Any]])?.first?["push_sound"] as? String == "chime", "\(viewed.text)")
            let missing = try await s.request("POST", "/v3/applications/push/hms", body: [:])
            #expect(missing.json["code"] as? Int == 400105, "\(missing.text)")
            _ = try await s.request("DELETE", "/v3/applications/push/fcm/\(id)")
            #expect((try await s.request("GET", "/v3/applications/push/fcm/\(id)")).json["code"] as? Int == 400201)

            let template = try await s.request("PUT", "/v3/applications/push/message_templates/alternative", body: ["mesg": "Psst: {message}"])
            let t = ((template.json["push_message_templates"] as? [[String: Any]])?.first?["template"] as? [String: Any]) ?? [:]
            #expect(t["mesg"] as? String == "Psst: {message}" && t["file"] as? String == "New file arrived", "\(template.text)")
            #expect((try await s.request("GET", "/v3/applications/push/message_templates/fancy")).json["code"] as? Int == 400201)

            let auto = try await s.request("PUT", "/v3/applications/settings/auto_event_message", body: ["auto_event_message": ["user_join": ["enabled": true]]])
            #expect(((auto.json["auto_event_message"] as? [String: Any])?["user_join"] as? [String: Any])?["enabled"] as? Bool == true, "\(auto.text)")
            let wrong = try await s.request("PUT", "/v3/applications/settings/auto_event_message", body: ["auto_event_message": ["user_dance": ["enabled": true]]])
            #expect(wrong.json["code"] as? Int == 400111, "\(wrong.text)")
        }
    }
}

@Suite("Platform API: profanity and domain filters")
struct ContentFilterTests {
    @Test("Filters replace or refuse: keywords with wildcards, regular expressions, domains; by custom type and globally")
    func filters() async throws {
        try await withServer({ $0.linkPreviews = false }) { s in
            try await s.createUsers(["alice", "bob"])
            let plain = try await s.createChannel(["alice", "bob"])
            let kids = try await s.request("POST", "/v3/group_channels", body: ["user_ids": ["alice", "bob"], "custom_type": "kids"])
            let kidsUrl = kids.json["channel_url"] as? String ?? ""
            func send(_ url: String, _ text: String) async throws -> TestServer.HTTPResult {
                try await s.request("POST", "/v3/group_channels/\(url)/messages", body: ["message_type": "MESG", "user_id": "alice", "message": text])
            }
            let global = try await s.request(
                "PUT", "/v3/applications/settings_global",
                body: ["profanity_filter": ["keywords": ["darn", "heck*"], "regex_filters": [["regex": "b[a4]+d"]], "type": 1]])
            #expect(global.status == 200, "\(global.text)")
            let replaced = try await send(plain, "Darn it, heckin' baad day")
            #expect(replaced.json["message"] as? String == "**** it, ******' **** day", "\(replaced.text)")
            let clean = try await send(plain, "a fine day")
            #expect(clean.json["message"] as? String == "a fine day")
            // Channels of type "kids": words refused, a domain refused; the global list is checked too.
            let typed = try await s.request(
                "PUT", "/v3/applications/settings_global/kids",
                body: ["profanity_filter": ["keywords": ["stupid"], "type": 2, "should_check_global": true],
                       "domain_filter": ["domains": ["example.com"], "type": 2]])
            #expect(typed.json["custom_type"] as? String == "kids", "\(typed.text)")
            for text in ["you are stupid", "see www.example.com/x", "darn"] {
                let r = try await send(kidsUrl, text)
                if text == "darn" {
                    #expect(r.json["message"] as? String == "****", "the global replace still applies: \(r.text)")
                } else {
                    #expect(r.status == 400 && r.json["code"] as? Int == 900060, "\(text): \(r.text)")
                }
            }
            let nearMiss = try await send(kidsUrl, "notexample.com is fine")
            #expect(nearMiss.status == 200, "\(nearMiss.text)")
            // Over the WebSocket the refusal is an EROR with the same code; an edit is filtered too.
            let (alice, _) = try await s.login("alice")
            alice.send("MESG", ["channel_url": kidsUrl, "message": "so stupid", "req_id": "p1"])
            let eror = await alice.next("EROR")
            #expect(eror?["code"] as? Int == 900060, "\(String(describing: eror))")
            await alice.close()
            let id = (clean.json["message_id"] as? NSNumber)?.int64Value ?? 0
            let edit = try await s.request("PUT", "/v3/group_channels/\(plain)/messages/\(id)", body: ["message_type": "MESG", "message": "darn"])
            #expect(edit.json["message"] as? String == "****", "\(edit.text)")
            let bad = try await s.request("PUT", "/v3/applications/settings_global", body: ["profanity_filter": ["regex_filters": [["regex": "(unclosed"]]]])
            #expect(bad.json["code"] as? Int == 400111, "\(bad.text)")
            let badType = try await s.request("PUT", "/v3/applications/settings_global", body: ["domain_filter": ["type": 7]])
            #expect(badType.json["code"] as? Int == 400111, "\(badType.text)")
        }
    }
}

@Suite("Platform API: data exports and GDPR requests")
struct ExportTests {
    @Test("Exports write real files (JSON and CSV) under the data directory, downloadable with the Api-Token; GDPR access and delete")
    func exportsAndGDPR() async throws {
        try await withServer({ $0.linkPreviews = false; $0.gdprDelaySeconds = 0 }) { s in
            try await s.createUsers(["alice", "bob", "carol"])
            let url = try await s.createChannel(["alice", "bob"])
            let dm = try await s.createChannel(["carol", "bob"])
            for (user, text) in [("alice", "hello, \"bob\""), ("bob", "hi alice"), ("carol", "psst")] {
                _ = try await s.request("POST", "/v3/group_channels/\(user == "carol" ? dm : url)/messages", body: ["message_type": "MESG", "user_id": user, "message": text])
            }
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let json = try await s.request("POST", "/v3/export/messages", body: ["start_ts": now - 60_000, "end_ts": now + 60_000, "channel_urls": [url]])
            #expect(json.json["status"] as? String == "done" && json.json["rows"] as? Int == 2, "\(json.text)")
            let file = (json.json["file"] as? [String: Any])?["url"] as? String ?? ""
            let path = String(file.drop(while: { $0 != "/" }).dropFirst(2).drop(while: { $0 != "/" }))
            let fetched = try await s.request("GET", path)
            #expect(fetched.status == 200 && fetched.text.contains("hello, \\\"bob\\\""), "\(path): \(fetched.text)")
            let (sock, login) = try await s.login("alice")
            await sock.close()
            let asUser = try await s.request("GET", path, headers: ["Session-Key": login["key"] as? String ?? ""])
            #expect(asUser.status == 403, "only the Platform API downloads exports")
            if ProcessInfo.processInfo.environment["TERN_TEST_DATABASE"] != "postgres" {
                let exportsDir = s.dataDirectory + "/exports"
                let mode = ((try? FileManager.default.attributesOfItem(atPath: exportsDir))?[.posixPermissions] as? NSNumber)?.intValue
                #expect(mode == 0o700, "exports/ is the owner's only")
            } else {
                // On PostgreSQL the export is in the database (every node serves it), sealed.
                #expect(!FileManager.default.fileExists(atPath: s.dataDirectory + "/exports"))
                #expect(try await s.app.service.files?.storedBytes().isEmpty == false)
            }

            let csv = try await s.request("POST", "/v3/export/users", body: ["start_ts": 0, "end_ts": now + 60_000, "format": "csv", "csv_delimiter": ";"])
            let csvURL = (csv.json["file"] as? [String: Any])?["url"] as? String ?? ""
            let csvText = try await s.request("GET", String(csvURL.drop(while: { $0 != "/" }).dropFirst(2).drop(while: { $0 != "/" })))
            #expect(csvText.text.hasPrefix("created_at;is_active;last_seen_at;metadata;nickname;profile_url;user_id\n"), "\(csvText.text)")
            #expect(csvText.text.split(separator: "\n").count == 4)
            let listed = try await s.request("GET", "/v3/export/users")
            #expect((listed.json["exported_data"] as? [[String: Any]])?.count == 1, "\(listed.text)")
            let badRange = try await s.request("POST", "/v3/export/messages", body: ["start_ts": 10, "end_ts": 5])
            #expect(badRange.json["code"] as? Int == 400111)
            let badType = try await s.request("POST", "/v3/export/secrets", body: ["start_ts": 0, "end_ts": 5])
            #expect(badType.json["code"] as? Int == 400111)

            // GDPR: access writes the user's data; delete removes the user and, as asked, their 1-on-1 channels.
            let access = try await s.request("POST", "/v3/privacy/gdpr", body: ["action": "access", "user_id": "carol"])
            let accessURL = (access.json["files"] as? [String: Any])?["url"] as? String ?? ""
            let data = try await s.request("GET", String(accessURL.drop(while: { $0 != "/" }).dropFirst(2).drop(while: { $0 != "/" })))
            #expect(data.text.contains("psst") && data.text.contains("\"user_id\":\"carol\""), "\(data.text)")
            let delete = try await s.request("POST", "/v3/privacy/gdpr", body: ["action": "delete", "user_id": "carol", "channel_delete_option": "1_on_1_only"])
            #expect(delete.json["status"] as? String == "done", "\(delete.text)")
            #expect((try await s.request("GET", "/v3/users/carol")).json["code"] as? Int == 400201)
            #expect((try await s.request("GET", "/v3/group_channels/\(dm)")).json["code"] as? Int == 400201, "the 1-on-1 channel went with her")
            #expect((try await s.request("GET", "/v3/group_channels/\(url)")).status == 200, "other channels stay")
            let requests = try await s.request("GET", "/v3/privacy/gdpr")
            #expect((requests.json["requests"] as? [[String: Any]])?.count == 2, "\(requests.text)")
            let id = delete.json["request_id"] as? String ?? ""
            let cancel = try await s.request("DELETE", "/v3/privacy/gdpr/\(id)")
            #expect(cancel.json["code"] as? Int == 400111, "a request carried out cannot be cancelled: \(cancel.text)")
        }
    }

    @Test("A GDPR request is scheduled, as on Sendbird: cancelled before its time it is never carried out; one left alone is, after a restart too")
    func gdprScheduled() async throws {
        let dir = makeTempDirectory()
        let s = try await TestServer.start(dataDirectory: dir) { $0.gdprDelaySeconds = 3600 }
        try await s.createUsers(["dave", "erin"])
        let first = try await s.request("POST", "/v3/privacy/gdpr", body: ["action": "delete", "user_id": "dave"])
        #expect(first.json["status"] as? String == "scheduled", "\(first.text)")
        #expect(first.json["file_url"] == nil && first.json["node"] == nil, "only what Sendbird answers: \(first.text)")
        let id = first.json["request_id"] as? String ?? ""
        let cancel = try await s.request("DELETE", "/v3/privacy/gdpr/\(id)")
        #expect(cancel.status == 200, "a scheduled request may be cancelled: \(cancel.text)")
        #expect((try await s.request("GET", "/v3/privacy/gdpr/\(id)")).json["code"] as? Int == 400201)
        #expect((try await s.request("GET", "/v3/users/dave")).status == 200, "dave stays")
        // Erin's request waits for its time; the server restarts meanwhile and carries it out when due.
        let second = try await s.request("POST", "/v3/privacy/gdpr", body: ["action": "delete", "user_id": "erin"])
        let id2 = second.json["request_id"] as? String ?? ""
        await s.stop()
        let again = try await TestServer.start(dataDirectory: dir) { $0.gdprDelaySeconds = 3600 }
        do {
            #expect((try await again.request("GET", "/v3/privacy/gdpr/\(id2)")).json["status"] as? String == "scheduled")
            // Due now: moved forward by hand, then picked up by the next start.
            var record = try await again.app.service.settings(scope: "gdpr", keyPrefix: id2).first?.json ?? ""
            record = record.replacingOccurrences(of: "\"scheduled_at\":", with: "\"scheduled_at\":0,\"was\":")
            try await again.app.service.setSetting(scope: "gdpr", key: id2, json: record)
            await again.stop()
            let third = try await TestServer.start(dataDirectory: dir) { $0.gdprDelaySeconds = 3600 }
            var status = ""
            for _ in 0..<200 {
                status = (try await third.request("GET", "/v3/privacy/gdpr/\(id2)")).json["status"] as? String ?? ""
                if status == "done" { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(status == "done", "carried out after the restart")
            #expect((try await third.request("GET", "/v3/users/erin")).json["code"] as? Int == 400201, "erin is gone")
            await third.stop()
        } catch {
            await again.stop()
            throw error
        }
    }
}

@Suite("Platform API: translation through a pluggable provider")
struct TranslationTests {
    @Test("With --translation-command each target language is asked of the provider; without one, 400111; outsiders refused")
    func translation() async throws {
        try await withServer({ $0.linkPreviews = false; $0.translationCommand = "printf '%s:' \"$TERN_TARGET_LANG\"; tr a-z A-Z" }) { s in
            try await s.createUsers(["alice", "bob", "mallory"])
            let url = try await s.createChannel(["alice", "bob"])
            let sent = try await s.request("POST", "/v3/group_channels/\(url)/messages", body: ["message_type": "MESG", "user_id": "alice", "message": "good morning"])
            let id = (sent.json["message_id"] as? NSNumber)?.int64Value ?? 0
            let r = try await s.request("POST", "/v3/group_channels/\(url)/messages/\(id)/translation", body: ["target_langs": ["de", "fr"]])
            #expect(r.json["translations"] as? [String: String] == ["de": "de:GOOD MORNING", "fr": "fr:GOOD MORNING"], "\(r.text)")
            #expect(r.json["message"] as? String == "good morning")
            let (sock, login) = try await s.login("mallory")
            await sock.close()
            let outsider = try await s.request(
                "POST", "/v3/group_channels/\(url)/messages/\(id)/translation", body: ["target_langs": ["de"]],
                headers: ["Session-Key": login["key"] as? String ?? ""])
            #expect(outsider.json["code"] as? Int == 400108, "\(outsider.text)")
            let bad = try await s.request("POST", "/v3/group_channels/\(url)/messages/\(id)/translation", body: ["target_langs": ["de; rm -rf /"]])
            #expect(bad.json["code"] as? Int == 400111, "\(bad.text)")
        }
        try await withServer { s in
            try await s.createUsers(["alice"])
            let url = try await s.createChannel(["alice"])
            let sent = try await s.request("POST", "/v3/group_channels/\(url)/messages", body: ["message_type": "MESG", "user_id": "alice", "message": "hi"])
            let id = (sent.json["message_id"] as? NSNumber)?.int64Value ?? 0
            let none = try await s.request("POST", "/v3/group_channels/\(url)/messages/\(id)/translation", body: ["target_langs": ["de"]])
            #expect(none.json["code"] as? Int == 400111 && none.text.contains("translation provider"), "\(none.text)")
        }
    }
}

@Suite("Platform API: metrics and moderated messages")
struct MetricsTests {
    @Test("Advanced metrics count today's messages, senders and channels; a filtered message's original is kept for the Platform API")
    func metricsAndModeratedMessages() async throws {
        try await withServer({ $0.linkPreviews = false }) { s in
            try await s.createUsers(["alice", "bob"])
            let a = try await s.createChannel(["alice", "bob"])
            let b = try await s.createChannel(["alice", "bob"])
            _ = try await s.request("PUT", "/v3/applications/settings_global", body: ["profanity_filter": ["keywords": ["darn"], "type": 1]])
            var ids: [Int64] = []
            for (url, user, text) in [(a, "alice", "one"), (a, "bob", "two"), (b, "alice", "darn three")] {
                let r = try await s.request("POST", "/v3/group_channels/\(url)/messages", body: ["message_type": "MESG", "user_id": user, "message": text])
                ids.append((r.json["message_id"] as? NSNumber)?.int64Value ?? 0)
            }
            func value(_ type: String) async throws -> Double {
                let r = try await s.request("GET", "/v3/statistics/metric?metric_type=\(type)&time_dimension=daily")
                return ((r.json["statistics"] as? [[String: Any]])?.last?["value"] as? NSNumber)?.doubleValue ?? -1
            }
            #expect(try await value("messages") == 3)
            #expect(try await value("message_senders") == 2)
            #expect(try await value("messages_per_user") == 1.5)
            #expect(try await value("active_channels") == 2)
            #expect(try await value("created_channels") == 2)
            let monthly = try await s.request("GET", "/v3/statistics/metric?metric_type=messages&time_dimension=monthly")
            #expect(((monthly.json["statistics"] as? [[String: Any]])?.last?["value"] as? NSNumber)?.intValue == 3, "\(monthly.text)")
            let bad = try await s.request("GET", "/v3/statistics/metric?metric_type=vibes")
            #expect(bad.json["code"] as? Int == 400111)

            let moderated = try await s.request("GET", "/v3/report/group_channels/\(b)/profanity_messages/\(ids[2])")
            #expect(moderated.json["message"] as? String == "darn three" && moderated.json["filtered_message"] as? String == "**** three", "\(moderated.text)")
            let untouched = try await s.request("GET", "/v3/report/group_channels/\(a)/profanity_messages/\(ids[0])")
            #expect(untouched.json["code"] as? Int == 400201)
        }
    }
}

@Suite("Platform API: announcements")
struct AnnouncementTests {
    @Test("An announcement goes to its channels now or when scheduled; opens follow read receipts; pause, resume, cancel; statistics")
    func announcements() async throws {
        try await withServer({ $0.linkPreviews = false }) { s in
            try await s.createUsers(["alice", "bob", "carol"])
            let a = try await s.createChannel(["alice", "bob"])
            let b = try await s.createChannel(["alice", "carol"])
            let (bob, _) = try await s.login("bob")
            let now = try await s.request(
                "POST", "/v3/announcements",
                body: ["message": ["type": "MESG", "user_id": "alice", "content": "release today"], "target_at": "sender_all_channels",
                       "unique_id": "rel-1", "announcement_group": "releases"])
            #expect(now.json["status"] as? String == "completed" && now.json["sent_channel_count"] as? Int == 2, "\(now.text)")
            #expect(await bob.next("MESG", where: { $0["message"] as? String == "release today" }) != nil)
            await bob.close()
            let dup = try await s.request("POST", "/v3/announcements", body: ["message": ["type": "ADMM", "content": "x"], "target_list": [a], "unique_id": "rel-1"])
            #expect(dup.json["code"] as? Int == 400202, "\(dup.text)")
            // Bob reads: one of two recipients opened it.
            _ = try await s.request("PUT", "/v3/group_channels/\(a)/messages/mark_as_read", body: ["user_id": "bob"])
            let viewed = try await s.request("GET", "/v3/announcements/rel-1")
            #expect(viewed.json["open_count"] as? Int == 1 && viewed.json["open_rate"] as? Double == 0.5, "\(viewed.text)")
            let status = try await s.request("GET", "/v3/announcement_open_status/rel-1?has_opened=true")
            #expect((status.json["open_status"] as? [[String: Any]])?.compactMap { $0["user_id"] as? String } == ["bob"], "\(status.text)")
            let rate = try await s.request("GET", "/v3/announcement_open_rate/rel-1")
            #expect((rate.json["cumulative_open_counts"] as? [Int])?.last == 1, "\(rate.text)")
            let byGroup = try await s.request("GET", "/v3/announcement_open_rate_by_group/releases")
            #expect((byGroup.json["open_counts"] as? [Int])?.first == 1, "\(byGroup.text)")
            #expect((try await s.request("GET", "/v3/announcement_group")).json["announcement_groups"] as? [String] == ["releases"])

            // Scheduled a moment ahead: it waits, then goes out by itself.
            let soon = Int64(Date().timeIntervalSince1970 * 1000) + 1_500
            let later = try await s.request(
                "POST", "/v3/announcements",
                body: ["message": ["type": "ADMM", "content": "maintenance tonight"], "target_list": [a, b], "scheduled_at": soon, "unique_id": "maint"])
            #expect(later.json["status"] as? String == "scheduled", "\(later.text)")
            var done = ""
            for _ in 0..<100 where done != "completed" {
                try await Task.sleep(for: .milliseconds(100))
                done = (try await s.request("GET", "/v3/announcements/maint")).json["status"] as? String ?? ""
            }
            #expect(done == "completed")
            let history = try await s.request("GET", "/v3/group_channels/\(b)/messages?message_ts=9999999999999&prev_limit=10&next_limit=0")
            #expect(history.text.contains("maintenance tonight"), "\(history.text)")

            // Far ahead: pause, resume, cancel; a cancelled one cannot be resumed.
            let far = Int64(Date().timeIntervalSince1970 * 1000) + 86_400_000
            _ = try await s.request("POST", "/v3/announcements", body: ["message": ["type": "ADMM", "content": "later"], "target_list": [a], "scheduled_at": far, "unique_id": "far"])
            #expect((try await s.request("PUT", "/v3/announcements/far", body: ["action": "pause"])).json["status"] as? String == "paused")
            #expect((try await s.request("PUT", "/v3/announcements/far", body: ["action": "resume"])).json["status"] as? String == "scheduled")
            let edited = try await s.request("PUT", "/v3/announcements/far", body: ["message": ["content": "later, edited"]])
            #expect((edited.json["message"] as? [String: Any])?["content"] as? String == "later, edited", "\(edited.text)")
            #expect((try await s.request("PUT", "/v3/announcements/far", body: ["action": "cancel"])).json["status"] as? String == "canceled")
            let again = try await s.request("PUT", "/v3/announcements/far", body: ["action": "resume"])
            #expect(again.json["code"] as? Int == 400111, "\(again.text)")
            let list = try await s.request("GET", "/v3/announcements?status=completed")
            #expect((list.json["announcements"] as? [[String: Any]])?.count == 2, "\(list.text)")
            let stats = try await s.request("GET", "/v3/announcement_stats/daily")
            #expect(((stats.json["statistics"] as? [[String: Any]])?.last?["value"] as? Int) == 4, "\(stats.text)")
            let bad = try await s.request("POST", "/v3/announcements", body: ["message": ["type": "MESG", "content": "x"], "target_list": [a]])
            #expect(bad.json["code"] as? Int == 400105, "a MESG needs its sender: \(bad.text)")
        }
    }
}

@Suite("Platform API: message migration")
struct MigrationTests {
    @Test("Migrated messages keep their times and appear in history in order; no unread count moves; the last message only moves forward")
    func migration() async throws {
        try await withServer({ $0.linkPreviews = false }) { s in
            try await s.createUsers(["alice", "bob"])
            let url = try await s.createChannel(["alice", "bob"])
            let live = try await s.request("POST", "/v3/group_channels/\(url)/messages", body: ["message_type": "MESG", "user_id": "alice", "message": "live now"])
            #expect(live.status == 200)
            let unreadBefore = try await s.request("GET", "/v3/users/bob/unread_message_count")
            let t0: Int64 = 1_600_000_000_000
            let r = try await s.request(
                "POST", "/v3/migration/\(url)",
                body: ["messages": [
                    ["message_type": "MESG", "user_id": "bob", "message": "from the old days", "timestamp": t0 + 2_000],
                    ["message_type": "ADMM", "message": "channel imported", "timestamp": t0],
                    ["message_type": "FILE", "user_id": "alice", "url": "https://files.example/a.png", "file_name": "a.png", "file_size": 3, "timestamp": t0 + 1_000],
                ]])
            #expect((r.json["message_ids"] as? [Any])?.count == 3, "\(r.text)")
            let history = try await s.request("GET", "/v3/group_channels/\(url)/messages?message_ts=\(t0 + 10_000)&prev_limit=10&next_limit=0")
            let texts = (history.json["messages"] as? [[String: Any]] ?? []).map { ($0["type"] as? String ?? "") + ":" + ($0["message"] as? String ?? "") }
            #expect(texts == ["ADMM:channel imported", "FILE:", "MESG:from the old days"], "\(history.text)")
            let unreadAfter = try await s.request("GET", "/v3/users/bob/unread_message_count")
            #expect(unreadAfter.json["unread_count"] as? Int == unreadBefore.json["unread_count"] as? Int, "\(unreadAfter.text)")
            let channel = try await s.request("GET", "/v3/group_channels/\(url)")
            #expect((channel.json["last_message"] as? [String: Any])?["message"] as? String == "live now", "\(channel.text)")
            let future = try await s.request("POST", "/v3/migration/\(url)", body: ["messages": [["message_type": "MESG", "user_id": "bob", "message": "x", "timestamp": 9_999_999_999_999]]])
            #expect(future.json["code"] as? Int == 400111, "\(future.text)")
            let nobody = try await s.request("POST", "/v3/migration/\(url)", body: ["messages": [["message_type": "MESG", "user_id": "ghost", "message": "x", "timestamp": t0]]])
            #expect(nobody.json["code"] as? Int == 400201)
            let missing = try await s.request("POST", "/v3/migration/no-such-channel", body: ["messages": [["message_type": "ADMM", "message": "x", "timestamp": t0]]])
            #expect(missing.json["code"] as? Int == 400201)
        }
    }
}

@Suite("Platform API: auto event messages")
struct AutoEventMessageTests {
    @Test("With user_join and user_leave on, joining and leaving post admin messages; channel_change off posts nothing")
    func autoEvents() async throws {
        try await withServer({ $0.linkPreviews = false }) { s in
            try await s.createUsers(["alice", "bob", "carol"])
            let url = try await s.createChannel(["alice", "bob"])
            _ = try await s.request(
                "PUT", "/v3/applications/settings/auto_event_message",
                body: ["auto_event_message": ["user_join": ["enabled": true], "user_leave": ["enabled": true]]])
            let (bob, _) = try await s.login("bob")
            _ = try await s.request("POST", "/v3/group_channels/\(url)/invite", body: ["user_ids": ["carol"]])
            let joined = await bob.next("ADMM", where: { $0["message"] as? String == "Carol joined." })
            #expect(joined?["custom_type"] as? String == "SENDBIRD:AUTO_EVENT_MESSAGE", "\(String(describing: joined))")
            _ = try await s.request("PUT", "/v3/group_channels/\(url)/leave", body: ["user_ids": ["carol"]])
            #expect(await bob.next("ADMM", where: { $0["message"] as? String == "Carol left." }) != nil)
            _ = try await s.request("PUT", "/v3/group_channels/\(url)", body: ["name": "renamed"])
            await bob.close()
            let history = try await s.request("GET", "/v3/group_channels/\(url)/messages?message_ts=9999999999999&prev_limit=20&next_limit=0")
            let admin = (history.json["messages"] as? [[String: Any]] ?? []).filter { $0["type"] as? String == "ADMM" }.compactMap { $0["message"] as? String }
            #expect(admin == ["Carol joined.", "Carol left."], "\(history.text)")
        }
    }
}
