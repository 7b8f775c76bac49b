import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// BRIEF §5 F3 on the server: update and delete with their permissions and events, threads,
/// reactions, metaarrays, the last message after each change.
@Suite("Messages: update, delete, threads, reactions", .serialized)
struct MessageChangeTests {
    @Test("Update: own or as operator; MEDI with old_values to everyone, ack with req_id; others refused 400108/900020")
    func update() async throws {
        try await withServer(users: ["alice", "bob", "carol"]) { s in
            let r = try await s.request("POST", "/v3/group_channels", body: ["user_ids": ["alice", "bob", "carol"], "operator_ids": ["carol"]])
            let url = r.json["channel_url"] as? String ?? ""
            let (alice, _) = try await s.login("alice")
            let (bob, _) = try await s.login("bob")
            let (carol, _) = try await s.login("carol")
            alice.send("MESG", ["channel_url": url, "message": "helo", "req_id": "m1", "metaarray": [["key": "tags", "value": ["a"]]]])
            let sent = await alice.next("MESG") { $0["req_id"] as? String == "m1" }
            let id = sent?["msg_id"] as? Int ?? 0
            #expect(((sent?["sorted_metaarray"] as? [[String: Any]])?.first?["value"] as? [String]) == ["a"])
            // Bob may not edit alice's message.
            bob.send("MEDI", ["channel_url": url, "msg_id": id, "message": "hacked", "req_id": "e0"])
            let refused = await bob.next("EROR") { $0["req_id"] as? String == "e0" }
            #expect(refused?["code"] as? Int == 400108)
            // Alice edits: her ack carries req_id; bob and carol get MEDI with old_values.
            alice.send(
                "MEDI",
                [
                    "channel_url": url, "msg_id": id, "message": "hello", "req_id": "e1",
                    "metaarray": ["array": [["key": "tags", "value": ["b"]]], "mode": "add", "upsert": true],
                ])
            let ack = await alice.next("MEDI") { $0["req_id"] as? String == "e1" }
            #expect(ack?["message"] as? String == "hello" && (ack?["updated_at"] as? Int ?? 0) > 0)
            #expect(((ack?["sorted_metaarray"] as? [[String: Any]])?.first?["value"] as? [String]) == ["a", "b"])
            let seen = await bob.next("MEDI")
            #expect(seen?["message"] as? String == "hello" && (seen?["old_values"] as? [String: Any])?["message"] as? String == "helo")
            #expect(seen?["req_id"] == nil)
            // The operator may edit anyone's message (REST as carol's session is not needed: Platform may too).
            carol.send(
                "MEDI",
                [
                    "channel_url": url, "msg_id": id, "custom_type": "note", "req_id": "e2",
                    "metaarray": ["array": [["key": "tags", "value": ["a"]]], "mode": "remove"],
                ])
            let byOp = await carol.next("MEDI") { $0["req_id"] as? String == "e2" }
            #expect(byOp?["custom_type"] as? String == "note")
            #expect(((byOp?["sorted_metaarray"] as? [[String: Any]])?.first?["value"] as? [String]) == ["b"])
            // Unknown message.
            alice.send("MEDI", ["channel_url": url, "msg_id": 999_999, "message": "x", "req_id": "e3"])
            #expect(await alice.next("EROR") { $0["req_id"] as? String == "e3" }?["code"] as? Int == 900300)
            // The channel's last message shows the edit.
            let view = try await s.request("GET", "/v3/group_channels/\(url)")
            #expect((view.json["last_message"] as? [String: Any])?["message"] as? String == "hello")
            for x in [alice, bob, carol] { await x.close() }
        }
    }

    @Test("Delete: DELM to every member, the deleter included; the last message moves back; others refused")
    func delete() async throws {
        try await withServer { s in
            let url = try await s.newChannel(of: ["alice", "bob"])
            let (alice, logi) = try await s.login("alice")
            let (bob, _) = try await s.login("bob")
            let key = logi["key"] as? String ?? ""
            var ids: [Int] = []
            for (i, text) in ["one", "two"].enumerated() {
                alice.send("MESG", ["channel_url": url, "message": text, "req_id": "d\(i)"])
                ids.append(await alice.next("MESG") { $0["req_id"] as? String == "d\(i)" }?["msg_id"] as? Int ?? 0)
            }
            let bobKey = try await s.login("bob").1["key"] as? String ?? ""
            let denied = try await s.request("DELETE", "/v3/group_channels/\(url)/messages/\(ids[1])", headers: ["Session-Key": bobKey])
            #expect(denied.status == 403 && denied.json["code"] as? Int == 400108)
            let ok = try await s.request("DELETE", "/v3/group_channels/\(url)/messages/\(ids[1])", headers: ["Session-Key": key])
            #expect(ok.status == 200 && ok.text == "{}")
            #expect(await alice.next("DELM")?["msg_id"] as? Int == ids[1])
            #expect(await bob.next("DELM")?["msg_id"] as? Int == ids[1])
            let view = try await s.request("GET", "/v3/group_channels/\(url)")
            #expect((view.json["last_message"] as? [String: Any])?["message"] as? String == "one")
            let gone = try await s.request("GET", "/v3/group_channels/\(url)/messages/\(ids[1])")
            #expect(gone.json["code"] as? Int == 400201)
            for x in [alice, bob] { await x.close() }
        }
    }

    @Test("Threads: replies update thread_info (MTHD), list by parent with the parent first, reply types filter history")
    func threads() async throws {
        try await withServer { s in
            let url = try await s.newChannel(of: ["alice", "bob"])
            let (alice, _) = try await s.login("alice")
            let (bob, _) = try await s.login("bob")
            alice.send("MESG", ["channel_url": url, "message": "parent", "req_id": "p"])
            let parent = await alice.next("MESG") { $0["req_id"] as? String == "p" }?["msg_id"] as? Int ?? 0
            bob.send("MESG", ["channel_url": url, "message": "reply 1", "parent_message_id": parent, "req_id": "r1"])
            let reply = await bob.next("MESG") { $0["req_id"] as? String == "r1" }
            #expect(reply?["parent_message_id"] as? Int == parent)
            #expect((reply?["parent_message_info"] as? [String: Any])?["message"] as? String == "parent")
            let mthd = await alice.next("MTHD")
            let info = mthd?["thread_info"] as? [String: Any]
            #expect(mthd?["parent_message_id"] as? Int == parent && info?["reply_count"] as? Int == 1)
            #expect((info?["most_replies"] as? [[String: Any]])?.first?["user_id"] as? String == "bob")
            alice.send("MESG", ["channel_url": url, "message": "reply 2", "parent_message_id": parent, "reply_to_channel": true, "req_id": "r2"])
            _ = await alice.next("MESG") { $0["req_id"] as? String == "r2" }
            // A reply to a reply is refused.
            let replyId = reply?["msg_id"] as? Int ?? 0
            alice.send("MESG", ["channel_url": url, "message": "nested", "parent_message_id": replyId, "req_id": "r3"])
            #expect(await alice.next("EROR") { $0["req_id"] as? String == "r3" }?["code"] as? Int == 400111)
            let base = "/v3/group_channels/\(url)/messages?message_ts=9999999999999&prev_limit=10&next_limit=0"
            let none = try await s.request("GET", base)
            #expect((none.json["messages"] as? [[String: Any]])?.map { $0["message"] as? String } == ["parent"])
            let toChannel = try await s.request("GET", base + "&include_reply_type=only_reply_to_channel")
            #expect((toChannel.json["messages"] as? [[String: Any]])?.map { $0["message"] as? String } == ["parent", "reply 2"])
            let all = try await s.request("GET", base + "&include_reply_type=all&include_thread_info=true&include_parent_message_info=true")
            let msgs = all.json["messages"] as? [[String: Any]] ?? []
            #expect(msgs.count == 3)
            #expect((msgs.first?["thread_info"] as? [String: Any])?["reply_count"] as? Int == 2)
            let thread = try await s.request(
                "GET", "/v3/group_channels/\(url)/messages?message_ts=0&prev_limit=0&next_limit=10&include_reply_type=all&parent_message_id=\(parent)"
            )
            #expect((thread.json["messages"] as? [[String: Any]])?.map { $0["message"] as? String } == ["parent", "reply 1", "reply 2"])
            // Deleting a reply recounts the thread.
            _ = try await s.request("DELETE", "/v3/group_channels/\(url)/messages/\(replyId)")
            let recount = await alice.next("MTHD") { ($0["thread_info"] as? [String: Any])?["reply_count"] as? Int == 1 }
            #expect(recount != nil)
            for x in [alice, bob] { await x.close() }
        }
    }

    @Test("Reactions: add/delete over REST, MRCT to everyone (the reactor too), listed with include_reactions")
    func reactions() async throws {
        try await withServer(users: ["alice", "bob", "eve"]) { s in
            let url = try await s.createChannel(["alice", "bob"])
            let (alice, _) = try await s.login("alice")
            let (bob, _) = try await s.login("bob")
            let sent = try await s.request(
                "POST", "/v3/group_channels/\(url)/messages", body: ["message_type": "MESG", "user_id": "alice", "message": "react to me"])
            let id = sent.json["message_id"] as? Int ?? 0
            let add = try await s.request(
                "POST", "/v3/group_channels/\(url)/messages/\(id)/reactions", body: ["user_id": "bob", "reaction": "thumbsup"])
            #expect(add.json["operation"] as? String == "ADD" && add.json["success"] as? Bool == true)
            for sock in [alice, bob] {
                let e = await sock.next("MRCT")
                #expect(e?["reaction"] as? String == "thumbsup" && e?["user_id"] as? String == "bob" && e?["operation"] as? String == "ADD")
            }
            _ = try await s.request("POST", "/v3/group_channels/\(url)/messages/\(id)/reactions", body: ["user_id": "alice", "reaction": "thumbsup"])
            let listed = try await s.request("GET", "/v3/group_channels/\(url)/messages/\(id)/reactions")
            #expect((listed.json["reactions"] as? [String: [String]])?["thumbsup"] == ["bob", "alice"])
            let history = try await s.request(
                "GET", "/v3/group_channels/\(url)/messages?message_ts=9999999999999&prev_limit=5&next_limit=0&include_reactions=true")
            let r = ((history.json["messages"] as? [[String: Any]])?.first?["reactions"] as? [[String: Any]])?.first
            #expect(r?["key"] as? String == "thumbsup" && r?["user_ids"] as? [String] == ["bob", "alice"])
            let del = try await s.request("DELETE", "/v3/group_channels/\(url)/messages/\(id)/reactions?user_id=bob&reaction=thumbsup")
            #expect(del.json["operation"] as? String == "DELETE")
            let outsider = try await s.request(
                "POST", "/v3/group_channels/\(url)/messages/\(id)/reactions", body: ["user_id": "eve", "reaction": "x"])
            #expect(outsider.json["code"] as? Int == 400108)
            for x in [alice, bob] { await x.close() }
        }
    }
}
