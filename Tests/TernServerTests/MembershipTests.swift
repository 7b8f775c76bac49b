import Foundation
import TernTestSupport
import Testing

@testable import TernServer

/// Invitations, join/leave, freeze, update/delete, hide/archive and reset history: the rules and the events.
@Suite("Group channel membership and changes")
struct MembershipTests {
    func sdk(_ logi: [String: Any]) -> [String: String] { ["Session-Key": logi["key"] as? String ?? ""] }

    func event(_ sock: TestSocket, _ cat: Int) async -> [String: Any]? {
        await sock.next("SYEV") { $0["cat"] as? Int == cat }
    }

    @Test("Invite with auto-accept on and off; accept, decline; distinct turns off; only members invite; limits")
    func invitations() async throws {
        try await withServer(users: ["ann", "ben", "cat", "dan", "eve"], { $0.maxGroupChannelMembers = 4 }) { s in
            let (ann, annLogi) = try await s.login("ann")
            let (ben, _) = try await s.login("ben")
            let (cat, catLogi) = try await s.login("cat")
            let (dan, danLogi) = try await s.login("dan")
            let url = try await s.createChannel(["ann", "eve"], distinct: true)
            // cat turns auto-accept off (as the SDK does) and reads it back.
            let pref = try await s.request("PUT", "/v3/users/cat/channel_invitation_preference", body: ["auto_accept": false], headers: sdk(catLogi))
            #expect(pref.json["auto_accept"] as? Bool == false)
            #expect(try await s.request("GET", "/v3/users/cat/channel_invitation_preference").json["auto_accept"] as? Bool == false)
            // Someone else's preference is not cat's to set.
            #expect(
                try await s.request("PUT", "/v3/users/ben/channel_invitation_preference", body: ["auto_accept": false], headers: sdk(catLogi)).status
                    == 403)

            // Only members invite.
            let outsider = try await s.request("POST", "/v3/group_channels/\(url)/invite", body: ["user_ids": ["dan"]], headers: sdk(danLogi))
            #expect(outsider.json["code"] as? Int == 400108)
            let r = try await s.request("POST", "/v3/group_channels/\(url)/invite", body: ["user_ids": ["ben", "cat"]], headers: sdk(annLogi))
            #expect(r.status == 200, "\(r.text)")
            #expect(r.json["is_distinct"] as? Bool == false)  // inviting turns distinct off
            #expect(r.json["member_count"] as? Int == 4 && r.json["joined_member_count"] as? Int == 3)
            let states = Dictionary(
                uniqueKeysWithValues: (r.json["members"] as? [[String: Any]] ?? []).map { ($0["user_id"] as! String, $0["state"] as! String) })
            #expect(states == ["ann": "joined", "eve": "joined", "ben": "joined", "cat": "invited"])
            // Events: the invitation to everyone concerned, then ben's join, then the counts.
            for sock in [ann, ben, cat] {
                let inv = await event(sock, 10020)
                let data = inv?["data"] as? [String: Any]
                #expect((data?["inviter"] as? [String: Any])?["user_id"] as? String == "ann")
                #expect(Set((data?["invitees"] as? [[String: Any]] ?? []).compactMap { $0["user_id"] as? String }) == ["ben", "cat"])
            }
            let joinedEvent = await event(ann, 10000)
            #expect(((joinedEvent?["data"] as? [String: Any])?["users"] as? [[String: Any]])?.first?["user_id"] as? String == "ben")
            #expect(await ann.next("MCNT")?["group_channels"] != nil)
            // cat sees the channel as invited.
            let catView = try await s.request("GET", "/v3/group_channels/\(url)", headers: sdk(catLogi))
            #expect(catView.json["member_state"] as? String == "invited")
            #expect((catView.json["inviter"] as? [String: Any])?["user_id"] as? String == "ann")
            #expect(catView.json["invited_at"] as? Int64 ?? 0 > 0)
            let invitedList = try await s.request(
                "GET", "/v3/users/cat/my_group_channels?member_state_filter=invited_only&show_empty=true", headers: sdk(catLogi))
            #expect((invitedList.json["channels"] as? [[String: Any]])?.count == 1)
            // Over the member limit (4): refused, nothing changes.
            let over = try await s.request("POST", "/v3/group_channels/\(url)/invite", body: ["user_ids": ["dan"]], headers: sdk(annLogi))
            #expect(over.json["code"] as? Int == 400203 && over.status == 400)
            #expect(try await s.request("GET", "/v3/group_channels/\(url)").json["member_count"] as? Int == 4)
            // cat declines: gone from the channel; everyone hears 10022.
            let declined = try await s.request("PUT", "/v3/group_channels/\(url)/decline", body: ["user_id": "cat"], headers: sdk(catLogi))
            #expect(declined.status == 200 && declined.text == "{}")
            let dec = await event(ann, 10022)
            #expect(((dec?["data"] as? [String: Any])?["invitee"] as? [String: Any])?["user_id"] as? String == "cat")
            #expect(try await s.request("GET", "/v3/group_channels/\(url)").json["member_count"] as? Int == 3)
            // A second decline, or accepting without an invitation, is refused.
            #expect(
                try await s.request("PUT", "/v3/group_channels/\(url)/decline", body: ["user_id": "cat"], headers: sdk(catLogi)).json["code"] as? Int
                    == 400108)
            #expect(
                try await s.request("PUT", "/v3/group_channels/\(url)/accept", body: ["user_id": "cat"], headers: sdk(catLogi)).json["code"] as? Int
                    == 400108)
            // Invited again, cat accepts: joined, 10000 to the members.
            _ = try await s.request("POST", "/v3/group_channels/\(url)/invite", body: ["user_ids": ["cat"]], headers: sdk(annLogi))
            let accepted = try await s.request("PUT", "/v3/group_channels/\(url)/accept", body: ["user_id": "cat"], headers: sdk(catLogi))
            #expect(accepted.json["member_state"] as? String == "joined")
            let catJoined = await ann.next("SYEV") {
                $0["cat"] as? Int == 10000 && ((($0["data"] as? [String: Any])?["users"] as? [[String: Any]])?.first?["user_id"] as? String) == "cat"
            }
            #expect(catJoined != nil)
            // cat can send now.
            cat.send("MESG", ["channel_url": url, "message": "hi", "req_id": "c1"])
            #expect(await cat.next("MESG")?["req_id"] as? String == "c1")
            for sock in [ann, ben, cat, dan] { await sock.close() }
        }
    }

    @Test("Join is for public channels only; leave tells the others and counts; a member leaving ends distinct")
    func joinAndLeave() async throws {
        try await withServer(users: ["amy", "bob", "cy"]) { s in
            let (amy, _) = try await s.login("amy")
            let (cy, cyLogi) = try await s.login("cy")
            let priv = try await s.createChannel(["amy", "bob"], distinct: true)
            #expect(
                try await s.request("PUT", "/v3/group_channels/\(priv)/join", body: ["user_id": "cy"], headers: sdk(cyLogi)).json["code"] as? Int
                    == 400108)
            let pub = try await s.request("POST", "/v3/group_channels", body: ["user_ids": ["amy"], "is_public": true, "name": "lobby"])
            let pubUrl = pub.json["channel_url"] as? String ?? ""
            // Public channels are listed for SDK users; cy joins one.
            let listed = try await s.request("GET", "/v3/group_channels?public_mode=public&show_empty=true&name_contains=lob", headers: sdk(cyLogi))
            #expect((listed.json["channels"] as? [[String: Any]])?.compactMap { $0["channel_url"] as? String } == [pubUrl])
            let joined = try await s.request("PUT", "/v3/group_channels/\(pubUrl)/join", body: ["user_id": "cy"], headers: sdk(cyLogi))
            #expect(joined.json["member_state"] as? String == "joined" && joined.json["member_count"] as? Int == 2)
            #expect(await event(amy, 10000) != nil)
            let mcnt = await amy.next("MCNT")
            #expect((mcnt?["group_channels"] as? [[String: Any]])?.first?["joined_member_count"] as? Int == 2)
            // Joining twice changes nothing.
            #expect(
                try await s.request("PUT", "/v3/group_channels/\(pubUrl)/join", body: ["user_id": "cy"], headers: sdk(cyLogi)).json["member_count"]
                    as? Int == 2)
            // cy leaves: amy hears 10001 with cy and the new counts; cy's socket hears it too.
            let left = try await s.request(
                "PUT", "/v3/group_channels/\(pubUrl)/leave", body: ["user_id": "cy", "should_remove_operator_status": false], headers: sdk(cyLogi))
            #expect(left.status == 200 && left.text == "{}")
            let leaveEvent = await event(amy, 10001)
            #expect((leaveEvent?["data"] as? [String: Any])?["user_id"] as? String == "cy")
            #expect((leaveEvent?["data"] as? [String: Any])?["member_count"] as? Int == 1)
            #expect(await event(cy, 10001) != nil)
            #expect(
                try await s.request("PUT", "/v3/group_channels/\(pubUrl)/leave", body: ["user_id": "cy"], headers: sdk(cyLogi)).json["code"] as? Int
                    == 400108)
            // bob leaves the distinct 1:1: no longer distinct, so a new distinct create makes another channel.
            _ = try await s.request("PUT", "/v3/group_channels/\(priv)/leave", body: ["user_id": "bob"])
            #expect(try await s.request("GET", "/v3/group_channels/\(priv)").json["is_distinct"] as? Bool == false)
            let again = try await s.createChannel(["amy", "bob"], distinct: true)
            #expect(again != priv)
            await amy.close()
            await cy.close()
        }
    }

    @Test("Freeze: operators only; in a frozen channel only operators send (900050); update 11000; delete 12000")
    func freezeUpdateDelete() async throws {
        try await withServer(users: ["op", "mem"]) { s in
            let (op, opLogi) = try await s.login("op")
            let (mem, memLogi) = try await s.login("mem")
            let c = try await s.request("POST", "/v3/group_channels", body: ["user_ids": ["op", "mem"], "operator_ids": ["op"], "name": "ops"])
            let url = c.json["channel_url"] as? String ?? ""
            #expect(
                try await s.request("PUT", "/v3/group_channels/\(url)/freeze", body: ["freeze": true], headers: sdk(memLogi)).json["code"] as? Int
                    == 400108)
            let frozen = try await s.request("PUT", "/v3/group_channels/\(url)/freeze", body: ["freeze": true], headers: sdk(opLogi))
            #expect(frozen.json["freeze"] as? Bool == true)
            #expect((await event(mem, 10701)?["data"] as? [String: Any])?["freeze"] as? Bool == true)
            mem.send("MESG", ["channel_url": url, "message": "let me talk", "req_id": "m1"])
            let refused = await mem.next("EROR")
            #expect(refused?["code"] as? Int == 900050 && refused?["req_id"] as? String == "m1")
            op.send("MESG", ["channel_url": url, "message": "operators may", "req_id": "o1"])
            #expect(await op.next("MESG")?["req_id"] as? String == "o1")
            _ = try await s.request("PUT", "/v3/group_channels/\(url)/freeze", body: ["freeze": false], headers: sdk(opLogi))
            #expect(await event(mem, 10700) != nil)
            mem.send("MESG", ["channel_url": url, "message": "thanks", "req_id": "m2"])
            #expect(await mem.next("MESG") { $0["req_id"] as? String == "m2" } != nil)
            // Update: with an operator present only operators may; members hear 11000.
            #expect(
                try await s.request("PUT", "/v3/group_channels/\(url)", body: ["name": "mine"], headers: sdk(memLogi)).json["code"] as? Int == 400108)
            let renamed = try await s.request(
                "PUT", "/v3/group_channels/\(url)", body: ["name": "ops room", "custom_type": "team"], headers: sdk(opLogi))
            #expect(renamed.json["name"] as? String == "ops room" && renamed.json["custom_type"] as? String == "team")
            #expect(await event(mem, 11000) != nil)
            // Delete: members hear 12000; the channel is gone.
            #expect(try await s.request("DELETE", "/v3/group_channels/\(url)", headers: sdk(memLogi)).json["code"] as? Int == 400108)
            #expect(try await s.request("DELETE", "/v3/group_channels/\(url)", headers: sdk(opLogi)).status == 200)
            #expect(await event(mem, 12000) != nil)
            #expect(try await s.request("GET", "/v3/group_channels/\(url)").json["code"] as? Int == 400201)
            await op.close()
            await mem.close()
        }
    }

    @Test("Hide, archive, auto-unhide and reset history change one member's view only")
    func hideAndReset() async throws {
        try await withServer(users: ["hal", "ivy"]) { s in
            let (hal, halLogi) = try await s.login("hal")
            let (ivy, _) = try await s.login("ivy")
            let url = try await s.createChannel(["hal", "ivy"])
            ivy.send("MESG", ["channel_url": url, "message": "old news", "req_id": "i1"])
            _ = await ivy.next("MESG")
            _ = await hal.next("MESG")
            func mine(_ q: String = "") async throws -> [String] {
                let r = try await s.request("GET", "/v3/users/hal/my_group_channels?show_empty=true\(q)", headers: sdk(halLogi))
                return (r.json["channels"] as? [[String: Any]] ?? []).compactMap { $0["channel_url"] as? String }
            }
            func history(_ headers: [String: String]? = nil) async throws -> [String] {
                let ts = Int64(Date().timeIntervalSince1970 * 1000) + 60_000
                let r = try await s.request("GET", "/v3/group_channels/\(url)/messages?message_ts=\(ts)&prev_limit=20&next_limit=0", headers: headers)
                return (r.json["messages"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
            }
            // Hide with previous messages, auto-unhide allowed.
            let hidden = try await s.request(
                "PUT", "/v3/group_channels/\(url)/hide", body: ["user_id": "hal", "hide_previous_messages": true, "allow_auto_unhide": true],
                headers: sdk(halLogi))
            let offset = hidden.json["ts_message_offset"] as? Int64 ?? 0
            #expect(offset > 0)
            #expect(await event(hal, 13000) != nil)
            #expect(try await mine() == [])
            #expect(try await mine("&hidden_mode=hidden_only") == [url])
            #expect(try await history(sdk(halLogi)) == [])  // hal's view lost the old message
            #expect(try await history() == ["old news"])  // nobody else's did
            let halView = try await s.request("GET", "/v3/group_channels/\(url)", headers: sdk(halLogi))
            #expect(halView.json["hidden_state"] as? String == "hidden_allow_auto_unhide" && halView.json["unread_message_count"] as? Int == 0)
            // A new message from ivy brings it back.
            ivy.send("MESG", ["channel_url": url, "message": "news", "req_id": "i2"])
            _ = await hal.next("MESG")
            #expect(try await mine() == [url])
            #expect(try await history(sdk(halLogi)) == ["news"])
            // Archived (no auto-unhide): stays hidden through new messages until unhidden.
            _ = try await s.request(
                "PUT", "/v3/group_channels/\(url)/hide", body: ["user_id": "hal", "hide_previous_messages": false, "allow_auto_unhide": false],
                headers: sdk(halLogi))
            ivy.send("MESG", ["channel_url": url, "message": "more", "req_id": "i3"])
            _ = await hal.next("MESG") { $0["message"] as? String == "more" }
            #expect(try await mine() == [])
            #expect(try await mine("&hidden_mode=hidden_prevent_auto_unhide") == [url])
            #expect(try await s.request("DELETE", "/v3/group_channels/\(url)/hide", headers: sdk(halLogi)).status == 200)
            #expect(await event(hal, 13001) != nil)
            #expect(try await mine() == [url])
            // Reset my history: hal's views empty, unread 0; ivy's unchanged.
            let reset = try await s.request("PUT", "/v3/group_channels/\(url)/reset_user_history", body: [:], headers: sdk(halLogi))
            #expect((reset.json["ts_message_offset"] as? Int64 ?? 0) >= offset)
            #expect(try await history(sdk(halLogi)) == [])
            #expect(try await history() == ["old news", "news", "more"])
            await hal.close()
            await ivy.close()
        }
    }

    @Test("Chat history on and off: what a new member sees and where their read receipt starts (seed 002)")
    func chatHistoryOption() async throws {
        for history in [true, false] {
            try await withServer(users: ["old", "new"], { $0.chatHistoryForNewMembers = history }) { s in
                let (old, _) = try await s.login("old")
                let (_, newLogi) = try await s.login("new")
                let url = try await s.createChannel(["old"])
                old.send("MESG", ["channel_url": url, "message": "before", "req_id": "b"])
                let sent = await old.next("MESG")
                let sentAt = sent?["created_at"] as? Int64 ?? -1
                _ = try await s.request("POST", "/v3/group_channels/\(url)/invite", body: ["user_ids": ["new"], "inviter_id": "old"])
                let view = try await s.request("GET", "/v3/group_channels/\(url)?show_read_receipt=true", headers: sdk(newLogi))
                let receipts = view.json["read_receipt"] as? [String: Int64] ?? [:]
                #expect(receipts["new"] == (history ? sentAt : 0), "history \(history)")
                #expect(view.json["unread_message_count"] as? Int == 0)
                let ts = Int64(Date().timeIntervalSince1970 * 1000) + 60_000
                let seen = try await s.request(
                    "GET", "/v3/group_channels/\(url)/messages?message_ts=\(ts)&prev_limit=10&next_limit=0", headers: sdk(newLogi))
                let texts = (seen.json["messages"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
                #expect(texts == (history ? ["before"] : []), "history \(history)")
                await old.close()
            }
        }
    }

    @Test("A user in the most channels allowed: create and join fail with 400203, an invitation is cancelled")
    func channelsPerUserLimit() async throws {
        try await withServer(users: ["busy", "free"], { $0.maxChannelsPerUser = 2 }) { s in
            _ = try await s.createChannel(["busy"])
            _ = try await s.createChannel(["busy"])
            let third = try await s.request("POST", "/v3/group_channels", body: ["user_ids": ["busy", "free"]])
            #expect(third.json["code"] as? Int == 400203)
            let url = try await s.createChannel(["free"])
            let invited = try await s.request("POST", "/v3/group_channels/\(url)/invite", body: ["user_ids": ["busy"], "inviter_id": "free"])
            #expect(invited.status == 200)
            #expect(invited.json["member_count"] as? Int == 1)  // busy's invitation was cancelled
            let pub = try await s.request("POST", "/v3/group_channels", body: ["user_ids": ["free"], "is_public": true])
            let joined = try await s.request("PUT", "/v3/group_channels/\(pub.json["channel_url"] as? String ?? "")/join", body: ["user_id": "busy"])
            #expect(joined.json["code"] as? Int == 400203)
        }
    }
}
