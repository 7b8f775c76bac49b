import Foundation
import TernTestSupport
import Testing

@testable import TernServer

/// My-channel and public-channel list queries: seed 000's example, every filter and order, stable paging,
/// and channel metadata / metacounters.
@Suite("Channel list queries and metadata")
struct ChannelListTests {
    func sdk(_ logi: [String: Any]) -> [String: String] { ["Session-Key": logi["key"] as? String ?? ""] }

    func urls(_ r: TestServer.HTTPResult) -> [String] {
        (r.json["channels"] as? [[String: Any]] ?? []).compactMap { $0["channel_url"] as? String }
    }

    func create(_ s: TestServer, _ body: [String: Any]) async throws -> String {
        let r = try await s.request("POST", "/v3/group_channels", body: body)
        #expect(r.status == 200, "\(r.text)")
        return r.json["channel_url"] as? String ?? ""
    }

    @Test("Seed 000: Harry's channels filtered by exact and included user ids")
    func seedExample() async throws {
        try await withServer(users: ["Harry", "John", "Jay", "Jin"]) { s in
            let a = try await create(s, ["user_ids": ["Harry", "John", "Jay"], "channel_url": "channelA"])
            let b = try await create(s, ["user_ids": ["Harry", "John", "Jay", "Jin"], "channel_url": "channelB"])
            let (harry, logi) = try await s.login("Harry")
            func mine(_ q: String) async throws -> Set<String> {
                Set(urls(try await s.request("GET", "/v3/users/Harry/my_group_channels?show_empty=true&\(q)", headers: sdk(logi))))
            }
            #expect(try await mine("members_exactly_in=John,Jay") == [a])
            // AND: channels that include all of them; OR: any of them (issue 20 §8).
            #expect(try await mine("members_include_in=John,Jay,Jin&query_type=AND") == [b])
            #expect(try await mine("members_include_in=John,Jay,Jin") == [b], "AND is the default")
            #expect(try await mine("members_include_in=John,Jay,Jin&query_type=OR") == [a, b])
            #expect(try await mine("members_include_in=Jin&query_type=OR") == [b])
            #expect(try await mine("members_include_in=John,Jay&query_type=AND") == [a, b])
            #expect(try await mine("members_exactly_in=John,Jay,Jin") == [b])
            await harry.close()
        }
    }

    @Test("Filters: custom types and prefix, name, URLs, super/public/distinct, unread, nicknames, metadata, creation time, frozen")
    func filters() async throws {
        try await withServer(users: ["me", "kim", "lee"]) { s in
            _ = try await s.request("PUT", "/v3/users/lee", body: ["nickname": "Leonard"])
            let (me, logi) = try await s.login("me")
            let red = try await create(s, ["user_ids": ["me", "kim"], "name": "Red Team", "custom_type": "team-red"])
            let blue = try await create(s, ["user_ids": ["me", "lee"], "name": "Blue Team", "custom_type": "team-blue", "is_public": true])
            let sup = try await create(s, ["user_ids": ["me", "kim"], "name": "Everyone", "custom_type": "all", "is_super": true])
            let dm = try await create(s, ["user_ids": ["me", "kim"], "is_distinct": true])
            _ = try await s.request("POST", "/v3/group_channels/\(red)/metadata", body: ["metadata": ["region": "eu", "tier": "gold"]])
            _ = try await s.request("POST", "/v3/group_channels/\(blue)/metadata", body: ["metadata": ["region": "us"]])
            _ = try await s.request("PUT", "/v3/group_channels/\(sup)/freeze", body: ["freeze": true])
            _ = try await s.request(
                "POST", "/v3/group_channels/\(blue)/messages", body: ["message_type": "MESG", "user_id": "lee", "message": "hey"])
            func mine(_ q: String) async throws -> Set<String> {
                let empty = q.contains("show_empty=") ? "" : "show_empty=true&"
                let r = try await s.request("GET", "/v3/users/me/my_group_channels?\(empty)limit=100&\(q)", headers: sdk(logi))
                #expect(r.status == 200, "\(q): \(r.text)")
                return Set(urls(r))
            }
            #expect(try await mine("") == [red, blue, sup, dm])
            #expect(try await mine("custom_types=team-red,all") == [red, sup])
            #expect(try await mine("custom_type_startswith=team-") == [red, blue])
            #expect(try await mine("name_contains=team") == [red, blue])
            #expect(try await mine("search_query=blue&search_fields=channel_name") == [blue])
            #expect(try await mine("channel_urls=\(red),\(dm)") == [red, dm])
            #expect(try await mine("super_mode=super") == [sup])
            #expect(try await mine("super_mode=nonsuper") == [red, blue, dm])
            #expect(try await mine("public_mode=public") == [blue])
            #expect(try await mine("public_mode=private") == [red, sup, dm])
            #expect(try await mine("distinct_mode=distinct") == [dm])
            #expect(try await mine("unread_filter=unread_message") == [blue])
            #expect(try await mine("members_nickname_contains=leon") == [blue])
            #expect(try await mine("search_query=leon&search_fields=member_nickname") == [blue])
            #expect(try await mine("metadata_key=region&metadata_values=eu,asia") == [red])
            #expect(try await mine("metadata_key=region") == [red, blue])
            #expect(try await mine("metadata_key=region&metadata_value_startswith=u") == [blue])
            #expect(try await mine("show_frozen=false") == [red, blue, dm])
            #expect(try await mine("created_after=\(Int(Date().timeIntervalSince1970) + 60)") == [])
            #expect(try await mine("created_before=\(Int(Date().timeIntervalSince1970) + 60)").count == 4)
            #expect(try await mine("show_empty=false") == [blue])
            // Channels show their metadata.
            let one = try await s.request("GET", "/v3/group_channels/\(red)", headers: sdk(logi))
            #expect(one.json["metadata"] as? [String: String] == ["region": "eu", "tier": "gold"])
            // Orders.
            func ordered(_ q: String) async throws -> [String] {
                urls(try await s.request("GET", "/v3/users/me/my_group_channels?show_empty=true&limit=100&\(q)", headers: sdk(logi)))
            }
            #expect(try await ordered("order=channel_name_alphabetical") == [dm, blue, sup, red])  // "", Blue, Everyone, Red
            #expect(try await ordered("order=metadata_value_alphabetical&metadata_order_key=region").prefix(2) == [red, blue])
            #expect(try await ordered("order=latest_last_message").first == blue)
            #expect(try await s.request("GET", "/v3/users/me/my_group_channels?order=sideways", headers: sdk(logi)).json["code"] as? Int == 400111)
            #expect(try await s.request("GET", "/v3/users/me/my_group_channels?token=garbage!", headers: sdk(logi)).json["code"] as? Int == 400111)
            // The public list: public channels only, joined or not.
            let (kim, kimLogi) = try await s.login("kim")
            let pub = try await s.request("GET", "/v3/group_channels?public_mode=public&show_empty=true", headers: sdk(kimLogi))
            #expect(urls(pub) == [blue])
            let joinedOnly = try await s.request("GET", "/v3/group_channels?public_membership_mode=joined&show_empty=true", headers: sdk(kimLogi))
            #expect(urls(joinedOnly) == [])
            await me.close()
            await kim.close()
        }
    }

    @Test("Paging by token never repeats or skips a channel while channels change")
    func stablePaging() async throws {
        try await withServer(users: ["pat", "sam"]) { s in
            let (pat, logi) = try await s.login("pat")
            var all: [String] = []
            for i in 0..<9 {
                let url = try await create(s, ["user_ids": ["pat", "sam"], "name": "c\(i)", "channel_url": "chan_\(i)"])
                _ = try await s.request(
                    "POST", "/v3/group_channels/\(url)/messages", body: ["message_type": "MESG", "user_id": "sam", "message": "m\(i)"])
                all.append(url)
            }
            for order in ["latest_last_message", "chronological", "channel_name_alphabetical"] {
                var seen: [String] = []
                var token = ""
                var page = 0
                repeat {
                    let r = try await s.request(
                        "GET",
                        "/v3/users/pat/my_group_channels?limit=2&order=\(order)&token=\(token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")",
                        headers: sdk(logi))
                    seen += urls(r)
                    token = r.json["next"] as? String ?? ""
                    if page == 0 {
                        // Meanwhile: the oldest channel gets a new message (it would jump to the top), and a new channel appears.
                        _ = try await s.request(
                            "POST", "/v3/group_channels/chan_0/messages", body: ["message_type": "MESG", "user_id": "sam", "message": "bump"])
                        _ = try await create(s, ["user_ids": ["pat", "sam"], "name": "new", "channel_url": "chan_new_\(order)"])
                    }
                    page += 1
                } while !token.isEmpty && page < 20
                #expect(seen.count == Set(seen).count, "\(order): repeated \(seen)")
                #expect(Set(seen).isSuperset(of: all), "\(order): skipped \(Set(all).subtracting(seen))")
            }
            await pat.close()
        }
    }

    @Test("Channel metadata and metacounters: create, read, update, upsert, delete, with events to members")
    func metadata() async throws {
        try await withServer(users: ["mo", "ned"]) { s in
            let (mo, logi) = try await s.login("mo")
            let (ned, nedLogi) = try await s.login("ned")
            let url = try await create(s, ["user_ids": ["mo"]])
            let created = try await s.request(
                "POST", "/v3/group_channels/\(url)/metadata", body: ["metadata": ["k1": "v1", "k2": "v2"], "include_ts": true], headers: sdk(logi))
            #expect(created.json["metadata"] as? [String: String] == ["k1": "v1", "k2": "v2"] && created.json["ts"] != nil)
            let event = await mo.next("SYEV") { $0["cat"] as? Int == 11100 }
            #expect(((event?["data"] as? [String: Any])?["created"] as? [String: String]) == ["k1": "v1", "k2": "v2"])
            // A non-member may not; an existing key cannot be created again; nothing changed.
            #expect(try await s.request("GET", "/v3/group_channels/\(url)/metadata?keys=", headers: sdk(nedLogi)).json["code"] as? Int == 400108)
            #expect(
                try await s.request("POST", "/v3/group_channels/\(url)/metadata", body: ["metadata": ["k1": "again", "k9": "x"]], headers: sdk(logi))
                    .json["code"] as? Int == 400202)
            let read = try await s.request("GET", "/v3/group_channels/\(url)/metadata?keys=k1&include_ts=true", headers: sdk(logi))
            #expect(read.json["metadata"] as? [String: String] == ["k1": "v1"])
            // Without include_ts (the Platform API's way) the answer is the bare map.
            #expect(
                try await s.request("GET", "/v3/group_channels/\(url)/metadata?keys=", headers: sdk(logi)).json as? [String: String] == [
                    "k1": "v1", "k2": "v2",
                ])
            // Update needs existing keys unless upsert.
            #expect(
                try await s.request("PUT", "/v3/group_channels/\(url)/metadata", body: ["metadata": ["k3": "v3"]], headers: sdk(logi)).json["code"]
                    as? Int == 400201)
            let up = try await s.request(
                "PUT", "/v3/group_channels/\(url)/metadata", body: ["metadata": ["k1": "new", "k3": "v3"], "upsert": true, "include_ts": true],
                headers: sdk(logi))
            #expect(up.json["metadata"] as? [String: String] == ["k1": "new", "k3": "v3"])
            let upEvent = await mo.next("SYEV") { $0["cat"] as? Int == 11100 }
            #expect(((upEvent?["data"] as? [String: Any])?["updated"] as? [String: String]) == ["k1": "new"])
            #expect(((upEvent?["data"] as? [String: Any])?["created"] as? [String: String]) == ["k3": "v3"])
            // Too long a value: 400110.
            #expect(
                try await s.request("PUT", "/v3/group_channels/\(url)/metadata/k1", body: ["value": String(repeating: "x", count: 191)]).json["code"]
                    as? Int == 400110)
            // Delete one, then all.
            #expect(try await s.request("DELETE", "/v3/group_channels/\(url)/metadata/k2?include_ts=true", headers: sdk(logi)).json["ts"] != nil)
            #expect(try await s.request("GET", "/v3/group_channels/\(url)/metadata/k2").json["code"] as? Int == 400201)
            _ = try await s.request("DELETE", "/v3/group_channels/\(url)/metadata?include_ts=true", headers: sdk(logi))
            #expect(
                try await s.request("GET", "/v3/group_channels/\(url)/metadata?keys=&include_ts=true").json["metadata"] as? [String: String] == [:])
            #expect(try await s.request("GET", "/v3/group_channels/\(url)/metadata").json as? [String: String] == [:])
            // Metacounters: bare maps; increase / decrease / set.
            let mc = try await s.request(
                "POST", "/v3/group_channels/\(url)/metacounter", body: ["metacounter": ["likes": 1, "views": 10]], headers: sdk(logi))
            #expect(mc.json as? [String: Int] == ["likes": 1, "views": 10])
            let inc = try await s.request(
                "PUT", "/v3/group_channels/\(url)/metacounter", body: ["metacounter": ["likes": 4], "mode": "increase"], headers: sdk(logi))
            #expect(inc.json as? [String: Int] == ["likes": 5])
            let dec = try await s.request("PUT", "/v3/group_channels/\(url)/metacounter/views", body: ["value": 3, "mode": "decrease"])
            #expect(dec.json as? [String: Int] == ["views": 7])
            #expect(
                try await s.request("PUT", "/v3/group_channels/\(url)/metacounter", body: ["metacounter": ["likes": 1], "mode": "double"]).json[
                    "code"] as? Int == 400111)
            #expect(
                try await s.request("POST", "/v3/group_channels/\(url)/metacounter", body: ["metacounter": ["likes": "many"]]).json["code"] as? Int
                    == 400100)
            #expect(await mo.next("SYEV") { $0["cat"] as? Int == 11200 } != nil)
            #expect(
                try await s.request("GET", "/v3/group_channels/\(url)/metacounter?keys=likes,views").json as? [String: Int] == [
                    "likes": 5, "views": 7,
                ])
            #expect(try await s.request("DELETE", "/v3/group_channels/\(url)/metacounter/likes").text == "{}")
            #expect(try await s.request("GET", "/v3/group_channels/\(url)/metacounter").json as? [String: Int] == ["views": 7])
            await mo.close()
            await ned.close()
        }
    }
}
