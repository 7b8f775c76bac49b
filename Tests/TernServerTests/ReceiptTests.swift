import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// BRIEF §5 F5 on the server: unread totals pushed with each message, count preferences, blocking
/// (seed 003), supergroups, the unread endpoints.
@Suite("Receipts, unread counts and blocking", .serialized)
struct ReceiptTests {
    func unreadCnt(_ frame: [String: Any]?) -> (all: Int, ts: Int64)? {
        guard let u = frame?["unread_cnt"] as? [String: Any], let all = u["all"] as? Int, let ts = (u["ts"] as? NSNumber)?.int64Value else {
            return nil
        }
        return (all, ts)
    }

    @Test("unread_cnt written by hand reads back as the same value, odd custom types included")
    func unreadJSON() throws {
        let u = UnreadCount(all: 7, customTypes: ["team": 3, "q\"uote\\ \n\u{1}é": 4], ts: 1_795_000_000_123)
        let text = ChatService.unreadJSON(u)
        #expect(try JSONDecoder().decode(UnreadCount.self, from: Data(text.utf8)) == u)
        #expect(ChatService.unreadJSON(UnreadCount(all: 0, ts: 5)) == #"{"all":0,"custom_types":{},"ts":5}"#)
    }

    @Test("Each recipient's MESG carries their own totals (ts always later); READ, hide and leave carry the reader's")
    func totalsTravelWithEvents() async throws {
        try await withServer(users: ["alice", "bob", "carol"]) { s in
            let trio = try await s.createChannel(["alice", "bob", "carol"], name: "trio")
            let other = try await s.createChannel(["alice", "bob"], name: "other")
            let (alice, _) = try await s.login("alice")
            let (bob, _) = try await s.login("bob")
            let (bobPhone, _) = try await s.login("bob")
            let (carol, _) = try await s.login("carol")
            alice.send("MESG", ["channel_url": other, "message": "first", "req_id": "r1"])
            _ = await bob.next("MESG")
            alice.send("MESG", ["channel_url": trio, "message": "second", "req_id": "r2"])
            let ack = await alice.next("MESG") { $0["req_id"] as? String == "r2" }
            #expect(ack?["unread_cnt"] == nil, "the sender's ack has no totals")
            let b = unreadCnt(await bob.next("MESG") { $0["message"] as? String == "second" })
            let c = unreadCnt(await carol.next("MESG") { $0["message"] as? String == "second" })
            #expect(b?.all == 2 && c?.all == 1, "each recipient gets their own totals: \(String(describing: b)) \(String(describing: c))")
            // Bob reads one channel: his READ ack and his phone's copy carry the new totals, later than before.
            bob.send("READ", ["channel_url": other, "req_id": "rd"])
            let readAck = unreadCnt(await bob.next("READ") { $0["req_id"] as? String == "rd" })
            let readPhone = unreadCnt(await bobPhone.next("READ"))
            #expect(readAck?.all == 1 && readPhone?.all == 1)
            #expect((readAck?.ts ?? 0) > (b?.ts ?? .max))
            // Alice's copy of bob's READ has no totals (they are bob's).
            let aliceCopy = await alice.next("READ")
            #expect(aliceCopy != nil && aliceCopy?["unread_cnt"] == nil)
            // Hiding with the previous messages clears the count: the SYEV to bob's devices says so.
            let hide = try await s.request("PUT", "/v3/group_channels/\(trio)/hide", body: ["user_id": "bob", "hide_previous_messages": true])
            #expect(hide.status == 200)
            let hidden = unreadCnt(await bobPhone.next("SYEV") { $0["cat"] as? Int == 13000 })
            #expect(hidden?.all == 0 && (hidden?.ts ?? 0) > (readPhone?.ts ?? .max))
            // Carol leaves with an unread message: her leave event says her total is 0 now.
            let leave = try await s.request("PUT", "/v3/group_channels/\(trio)/leave", body: ["user_ids": ["carol"]])
            #expect(leave.status == 200)
            #expect(unreadCnt(await carol.next("SYEV") { $0["cat"] as? Int == 10001 })?.all == 0)
            #expect(await alice.next("SYEV") { $0["cat"] as? Int == 10001 }?["unread_cnt"] == nil)
            for x in [alice, bob, bobPhone, carol] { await x.close() }
        }
    }

    @Test("Count preference: GET/PUT, off / mentions only, in the channel object; bad values and non-members refused")
    func countPreference() async throws {
        try await withServer(users: ["alice", "bob", "eve"]) { s in
            let url = try await s.createChannel(["alice", "bob"])
            let path = "/v3/users/bob/count_preference/\(url)"
            #expect(try await s.request("GET", path).json["count_preference"] as? String == "all")
            // The Platform API's spelling in and out (the SDKs' spelling is accepted too).
            let set = try await s.request("PUT", path, body: ["count_preference": "unread_mentioned_count_only"])
            #expect(set.status == 200 && set.json["count_preference"] as? String == "unread_mentioned_count_only")
            let send = { (text: String, mentions: [String]) in
                try await s.request(
                    "POST", "/v3/group_channels/\(url)/messages",
                    body: ["message_type": "MESG", "user_id": "alice", "message": text, "mentioned_user_ids": mentions])
            }
            _ = try await send("plain", [])
            _ = try await send("@bob", ["bob"])
            let view = try await s.request("GET", "/v3/users/bob/my_group_channels?show_member=true")
            let channel = (view.json["channels"] as? [[String: Any]])?.first
            #expect(channel?["count_preference"] as? String == "unread_mentioned_count_only")
            #expect(channel?["unread_message_count"] as? Int == 0 && channel?["unread_mention_count"] as? Int == 1)
            let items = try await s.request(
                "GET", "/v3/users/bob/unread_item_count?item_keys=group_channel_unread_mention_count,non_super_group_channel_unread_message_count")
            #expect(items.json["group_channel_unread_mention_count"] as? Int == 1)
            #expect(items.json["non_super_group_channel_unread_message_count"] as? Int == 0)
            #expect(items.json.count == 2)
            // `false` means off, and off clears the counts it leaves out.
            let off = try await s.request("PUT", path, body: ["count_preference": false])
            #expect(off.json["count_preference"] as? String == "false")
            // A Chat SDK user gets the SDK's spelling.
            let (bob, logi) = try await s.login("bob")
            let key = logi["key"] as? String ?? ""
            let mine = try await s.request("GET", path, headers: ["Session-Key": key])
            #expect(mine.json["count_preference"] as? String == "off")
            await bob.close()
            _ = try await send("@bob again", ["bob"])
            #expect(try await s.request("GET", "/v3/users/bob/unread_item_count").json["group_channel_unread_mention_count"] as? Int == 0)
            let bad = try await s.request("PUT", path, body: ["count_preference": "some"])
            #expect(bad.status == 400 && bad.json["code"] as? Int == 400111)
            let stranger = try await s.request("PUT", "/v3/users/eve/count_preference/\(url)", body: ["count_preference": "off"])
            #expect(stranger.status == 403 && stranger.json["code"] as? Int == 400108)
            let badItem = try await s.request("GET", "/v3/users/bob/unread_item_count?item_keys=nope")
            #expect(badItem.json["code"] as? Int == 400111)
        }
    }

    @Test("Blocking (seed 003): 1:1 messages kept but never delivered or counted, hidden after unblocking; groups deliver without counting")
    func blocking() async throws {
        try await withServer(users: ["alice", "bob", "carol"]) { s in
            let dm = try await s.createChannel(["alice", "bob"], distinct: true)
            let group = try await s.createChannel(["alice", "bob", "carol"])
            let (alice, _) = try await s.login("alice")
            let (bob, _) = try await s.login("bob")
            let (bobPhone, _) = try await s.login("bob")
            alice.send("MESG", ["channel_url": dm, "message": "before", "req_id": "a0"])
            _ = await bob.next("MESG") { $0["message"] as? String == "before" }
            bob.send("READ", ["channel_url": dm, "req_id": "read-before"])
            _ = await bob.next("READ") { $0["req_id"] as? String == "read-before" }
            // Block: the blocker's devices hear USEV 20001; alice does not.
            let blocked = try await s.request("POST", "/v3/users/bob/block", body: ["target_id": "alice"])
            #expect(blocked.status == 200 && blocked.json["user_id"] as? String == "alice")
            let usev = await bobPhone.next("USEV")
            #expect(usev?["cat"] as? Int == 20001)
            #expect(((usev?["data"] as? [String: Any])?["blockee"] as? [String: Any])?["user_id"] as? String == "alice")
            // 1:1 while blocked: stored (alice's ack), not delivered to bob, not counted.
            alice.send("MESG", ["channel_url": dm, "message": "during", "req_id": "a1"])
            #expect(await alice.next("MESG") { $0["req_id"] as? String == "a1" } != nil)
            // Group: delivered to bob, not counted.
            alice.send("MESG", ["channel_url": group, "message": "group", "req_id": "a2"])
            let g = await bob.next("MESG") { $0["message"] as? String == "group" }
            #expect(g != nil && unreadCnt(g)?.all == 0)
            #expect(try await s.request("GET", "/v3/users/bob/unread_message_count").json["unread_count"] as? Int == 0)
            // The list and its filter; the member objects say who blocks whom.
            #expect((blocked.json["users"] as? [[String: Any]])?.first?["user_id"] as? String == "alice", "Platform clients read `users`")
            let list = try await s.request("GET", "/v3/users/bob/block?user_ids=alice,carol")
            #expect((list.json["users"] as? [[String: Any]])?.map { $0["user_id"] as? String } == ["alice"])
            let blocking = try await s.request("GET", "/v3/users/alice/block?list=blocking_me")
            #expect((blocking.json["users"] as? [[String: Any]])?.map { $0["user_id"] as? String } == ["bob"])
            let view = try await s.request("GET", "/v3/group_channels/\(dm)?show_member=true", headers: ["Api-Token": s.apiToken])
            #expect(view.status == 200)
            let mine = try await s.request("GET", "/v3/users/bob/my_group_channels?show_member=true")
            let dmView = (mine.json["channels"] as? [[String: Any]])?.first { $0["channel_url"] as? String == dm }
            let aliceMember = (dmView?["members"] as? [[String: Any]])?.first { $0["user_id"] as? String == "alice" }
            #expect(aliceMember?["is_blocked_by_me"] as? Bool == true)
            // Bob's last message in the 1:1 is still "before".
            #expect((dmView?["last_message"] as? [String: Any])?["message"] as? String == "before")
            // Unblock; later messages arrive; the one sent during the block stays hidden from bob only.
            let unblocked = try await s.request("DELETE", "/v3/users/bob/block/alice")
            #expect(unblocked.status == 200)
            #expect(await bobPhone.next("USEV")?["cat"] as? Int == 20000)
            let again = try await s.request("DELETE", "/v3/users/bob/block/alice")
            #expect(again.status == 400 && again.json["code"] as? Int == 400201)
            alice.send("MESG", ["channel_url": dm, "message": "after", "req_id": "a3"])
            _ = await bob.next("MESG") { $0["message"] as? String == "after" }
            #expect(bob.all("MESG").allSatisfy { $0["message"] as? String != "during" })
            let history = "/v3/group_channels/\(dm)/messages?message_ts=9999999999999&prev_limit=10&next_limit=0"
            let platform = try await s.request("GET", history)
            #expect((platform.json["messages"] as? [[String: Any]])?.count == 3, "the Platform API sees everything")
            alice.send("PING", ["id": 1])
            // Bad requests.
            let selfBlock = try await s.request("POST", "/v3/users/bob/block", body: ["target_id": "bob"])
            #expect(selfBlock.status == 400 && selfBlock.json["code"] as? Int == 400111)
            let ghost = try await s.request("POST", "/v3/users/bob/block", body: ["target_id": "ghost"])
            #expect(ghost.json["code"] as? Int == 400201)
            let many = (0..<251).map { "u\($0)" }.joined(separator: ",")
            #expect(try await s.request("GET", "/v3/users/bob/block?user_ids=\(many)").status == 414)
            for x in [alice, bob, bobPhone] { await x.close() }
        }
    }

    @Test("Supergroups: no receipts in the channel, READ only to the reader, unread capped at 100 in totals; super_mode filters")
    func supergroups() async throws {
        try await withServer(users: ["alice", "bob", "carol"]) { s in
            let r = try await s.request("POST", "/v3/group_channels", body: ["user_ids": ["alice", "bob", "carol"], "is_super": true])
            let url = r.json["channel_url"] as? String ?? ""
            #expect(r.json["read_receipt"] == nil && r.json["delivery_receipt"] == nil)
            for i in 0..<102 {
                _ = try await s.request(
                    "POST", "/v3/group_channels/\(url)/messages", body: ["message_type": "MESG", "user_id": "alice", "message": "m\(i)"])
            }
            #expect(try await s.request("GET", "/v3/users/bob/unread_message_count?super_mode=super").json["unread_count"] as? Int == 100)
            #expect(try await s.request("GET", "/v3/users/bob/unread_message_count?super_mode=nonsuper").json["unread_count"] as? Int == 0)
            #expect(try await s.request("GET", "/v3/users/bob/unread_message_count?super_mode=weird").json["code"] as? Int == 400111)
            let mine = try await s.request("GET", "/v3/users/bob/my_group_channels")
            #expect((mine.json["channels"] as? [[String: Any]])?.first?["unread_message_count"] as? Int == 100)
            let (bob, _) = try await s.login("bob")
            let (carol, _) = try await s.login("carol")
            bob.send("READ", ["channel_url": url, "req_id": "r"])
            #expect(unreadCnt(await bob.next("READ"))?.all == 0)
            carol.send("PING", ["id": 7])
            _ = await carol.next("PONG")
            #expect(carol.all("READ").isEmpty, "no read receipts in supergroups")
            for x in [bob, carol] { await x.close() }
        }
    }
}
