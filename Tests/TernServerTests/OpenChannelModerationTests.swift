import Foundation
import Synchronization
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// BRIEF §5 F6 (open channels), F7 (moderation) and the user rules of F1 on the server.
@Suite("Open channels, moderation, reports and users", .serialized)
struct OpenChannelModerationTests {
    @Test("Open channels: create with operators, get, list filters, update and delete by operators only, freeze through the Platform API only")
    func openChannelLifecycle() async throws {
        try await withServer(users: ["alice", "bob", "carol"]) { s in
            let created = try await s.request(
                "POST", "/v3/open_channels",
                body: ["name": "Lobby", "channel_url": "lobby_1", "custom_type": "live", "data": "d", "operator_ids": ["alice"]])
            #expect(created.status == 200, "\(created.text)")
            #expect(created.json["channel_type"] as? String == "open" && created.json["participant_count"] as? Int == 0)
            #expect((created.json["operators"] as? [[String: Any]])?.first?["user_id"] as? String == "alice")
            let dup = try await s.request("POST", "/v3/open_channels", body: ["channel_url": "lobby_1"])
            #expect(dup.status == 400 && dup.json["code"] as? Int == 400202)
            // The SDK names operators `operators`.
            let bobKey = try await s.sessionHeaders("bob")
            let mine = try await s.request("POST", "/v3/open_channels", body: ["name": "Bob's", "operators": ["bob"]], headers: bobKey)
            #expect(mine.status == 200 && (mine.json["operators"] as? [[String: Any]])?.first?["user_id"] as? String == "bob")
            let bobUrl = mine.json["channel_url"] as? String ?? ""
            // An open channel is not a group channel, and the other way round.
            #expect(try await s.request("GET", "/v3/group_channels/lobby_1").json["code"] as? Int == 400201)
            let group = try await s.createChannel(["alice", "bob"])
            #expect(try await s.request("GET", "/v3/open_channels/\(group)").json["code"] as? Int == 400201)
            #expect(try await s.request("GET", "/v3/open_channels/lobby_1").json["name"] as? String == "Lobby")
            // Listing: newest first, filters by name, URL and custom type; group channels never appear.
            let all = try await s.request("GET", "/v3/open_channels?limit=1")
            #expect((all.json["channels"] as? [[String: Any]])?.first?["channel_url"] as? String == bobUrl)
            let next = all.json["next"] as? String ?? ""
            #expect(!next.isEmpty)
            let page2 = try await s.request("GET", "/v3/open_channels?limit=1&token=\(next)")
            #expect((page2.json["channels"] as? [[String: Any]])?.map { $0["channel_url"] as? String } == ["lobby_1"])
            #expect(page2.json["next"] as? String == "")
            #expect((try await s.request("GET", "/v3/open_channels?name_contains=lob").json["channels"] as? [Any])?.count == 1)
            #expect((try await s.request("GET", "/v3/open_channels?custom_types=live").json["channels"] as? [Any])?.count == 1)
            #expect((try await s.request("GET", "/v3/open_channels?url_contains=lobby").json["channels"] as? [Any])?.count == 1)
            #expect((try await s.request("GET", "/v3/group_channels?limit=100").json["channels"] as? [[String: Any]])?.count == 1)
            // Update and delete: operators only.
            let carolKey = try await s.sessionHeaders("carol")
            let refused = try await s.request("PUT", "/v3/open_channels/lobby_1", body: ["name": "x"], headers: carolKey)
            #expect(refused.status == 403 && refused.json["code"] as? Int == 400108)
            let aliceKey = try await s.sessionHeaders("alice")
            let renamed = try await s.request("PUT", "/v3/open_channels/lobby_1", body: ["name": "Hall"], headers: aliceKey)
            #expect(renamed.json["name"] as? String == "Hall")
            #expect(try await s.request("DELETE", "/v3/open_channels/lobby_1", headers: carolKey).json["code"] as? Int == 400108)
            // Freezing: not by the SDK, even for operators.
            let sdkFreeze = try await s.request("PUT", "/v3/open_channels/lobby_1/freeze", body: ["freeze": true], headers: aliceKey)
            #expect(sdkFreeze.json["code"] as? Int == 400108)
            let frozen = try await s.request("PUT", "/v3/open_channels/lobby_1/freeze", body: ["freeze": true])
            #expect(frozen.json["freeze"] as? Bool == true)
            #expect(try await s.request("DELETE", "/v3/open_channels/lobby_1", headers: aliceKey).status == 200)
            #expect(try await s.request("GET", "/v3/open_channels/lobby_1").json["code"] as? Int == 400201)
        }
    }

    @Test("Entering: ack with the count, SYEV 10102/10103 and MCNT to participants, messages only to those inside, 10 at most")
    func enterExitAndMessages() async throws {
        try await withServer(users: ["alice", "bob", "carol"], { $0.participantCountInterval = 50 }) { s in
            _ = try await s.request("POST", "/v3/open_channels", body: ["channel_url": "room_a", "operator_ids": ["alice"]])
            let (alice, _) = try await s.login("alice")
            let (bob, _) = try await s.login("bob")
            let (carol, _) = try await s.login("carol")
            alice.send("ENTR", ["channel_url": "room_a", "req_id": "e1"])
            let a1 = await alice.next("ENTR") { $0["req_id"] as? String == "e1" }
            #expect(a1?["participant_count"] as? Int == 1 && a1?["channel_type"] as? String == "open")
            bob.send("ENTR", ["channel_url": "room_a", "req_id": "e2"])
            #expect(await bob.next("ENTR")?["participant_count"] as? Int == 2)
            let entered = await alice.next("SYEV") { $0["cat"] as? Int == 10102 }
            #expect((entered?["data"] as? [String: Any])?["user_id"] as? String == "bob")
            let mcnt = await alice.next("MCNT") { (($0["open_channels"] as? [[String: Any]])?.first?["participant_count"] as? Int) == 2 }
            #expect(mcnt != nil)
            let participants = try await s.request("GET", "/v3/open_channels/room_a/participants")
            #expect((participants.json["participants"] as? [[String: Any]])?.map { $0["user_id"] as? String } == ["alice", "bob"])
            // A message reaches those inside, marked as an open-channel message; carol is outside.
            bob.send("MESG", ["channel_url": "room_a", "message": "hi room", "req_id": "m1"])
            let got = await alice.next("MESG") { $0["message"] as? String == "hi room" }
            #expect(got?["channel_type"] as? String == "open")
            carol.send("MESG", ["channel_url": "room_a", "message": "from outside", "req_id": "m2"])
            #expect(await carol.next("EROR")?["code"] as? Int == 900020)
            let history = try await s.request("GET", "/v3/open_channels/room_a/messages?message_ts=9999999999999&prev_limit=10&next_limit=0")
            #expect((history.json["messages"] as? [[String: Any]])?.map { $0["message"] as? String } == ["hi room"])
            #expect(carol.all("MESG").isEmpty)
            // Channel metadata of an open channel reaches those inside.
            #expect(try await s.request("POST", "/v3/open_channels/room_a/metadata", body: ["metadata": ["topic": "news"]]).status == 200)
            let meta = await alice.next("SYEV") { $0["cat"] as? Int == 11100 }
            #expect(meta?["channel_type"] as? String == "open")
            // Exit: the others hear it and the count drops.
            bob.send("EXIT", ["channel_url": "room_a", "req_id": "x1"])
            #expect(await bob.next("EXIT")?["participant_count"] as? Int == 1)
            #expect(await alice.next("SYEV") { $0["cat"] as? Int == 10103 } != nil)
            // Ten channels at once, not eleven.
            for i in 0..<11 { _ = try await s.request("POST", "/v3/open_channels", body: ["channel_url": "many_\(i)"]) }
            for i in 0..<10 {
                carol.send("ENTR", ["channel_url": "many_\(i)", "req_id": "c\(i)"])
                #expect(await carol.next("ENTR") { $0["req_id"] as? String == "c\(i)" } != nil)
            }
            carol.send("ENTR", ["channel_url": "many_10", "req_id": "c10"])
            let eleventh = await carol.next("EROR") { $0["req_id"] as? String == "c10" }
            #expect(eleventh?["code"] as? Int == 400203)
            carol.send("ENTR", ["channel_url": "no_such_room", "req_id": "c11"])
            #expect(await carol.next("EROR") { $0["req_id"] as? String == "c11" }?["code"] as? Int == 900500)
            // A closed connection leaves every channel it was in.
            await carol.close()
            try await eventually { try await s.request("GET", "/v3/open_channels/many_0").json["participant_count"] as? Int == 0 }
            for x in [alice, bob] { await x.close() }
        }
    }

    @Test("At most N messages a second are broadcast in an open channel; the rest are stored and reach operators only")
    func broadcastLimit() async throws {
        let clock = StillClock()
        try await withServer(clock: clock, { $0.openChannelMessagesPerSecond = 2 }) { s in
            try await s.createUsers(["op", "viewer", "talker"])
            _ = try await s.request("POST", "/v3/open_channels", body: ["channel_url": "stream", "operator_ids": ["op"]])
            var socks: [TestSocket] = []
            for u in ["op", "viewer", "talker"] {
                let (x, _) = try await s.login(u)
                x.send("ENTR", ["channel_url": "stream", "req_id": "e"])
                _ = await x.next("ENTR")
                socks.append(x)
            }
            let (op, viewer, talker) = (socks[0], socks[1], socks[2])
            for i in 0..<5 {
                talker.send("MESG", ["channel_url": "stream", "message": "m\(i)", "req_id": "r\(i)"])
                #expect(await talker.next("MESG") { $0["req_id"] as? String == "r\(i)" } != nil, "every message is acknowledged")
            }
            #expect(await op.next("MESG") { $0["message"] as? String == "m4" } != nil, "operators see everything")
            #expect(op.all("MESG").count == 5)
            // The viewer's connection may sit on another event loop than the operator's: wait for its own frames.
            #expect(await viewer.next("MESG") { $0["message"] as? String == "m1" } != nil)
            // A second later the channel may broadcast again.
            clock.advance(ms: 1000)
            talker.send("MESG", ["channel_url": "stream", "message": "later", "req_id": "r5"])
            #expect(await viewer.next("MESG") { $0["message"] as? String == "later" } != nil)
            // One connection's frames keep their order, so m2...m4 would have come before "later".
            #expect(viewer.all("MESG").map { $0["message"] as? String } == ["m0", "m1", "later"])
            let stored = try await s.request("GET", "/v3/open_channels/stream/messages/total_count")
            #expect(stored.json["total"] as? Int == 6)
            for x in socks { await x.close() }
        }
    }

    @Test("Operators: add/remove/remove all by operators only, SYEV 10002, list; the member list query's orders and filters")
    func operatorsAndMemberList() async throws {
        try await withServer(users: ["alice", "bob", "carol", "dave"]) { s in
            let r = try await s.request(
                "POST", "/v3/group_channels", body: ["user_ids": ["alice", "bob", "carol"], "operator_ids": ["alice"], "name": "ops"])
            let url = r.json["channel_url"] as? String ?? ""
            let (bob, login) = try await s.login("bob")
            let bobKey = ["Session-Key": login["key"] as? String ?? ""]
            let aliceKey = try await s.sessionHeaders("alice")
            let refused = try await s.request("POST", "/v3/group_channels/\(url)/operators", body: ["operator_ids": ["bob"]], headers: bobKey)
            #expect(refused.json["code"] as? Int == 400108)
            let outsider = try await s.request("POST", "/v3/group_channels/\(url)/operators", body: ["operator_ids": ["dave"]], headers: aliceKey)
            #expect(outsider.json["code"] as? Int == 400201)
            #expect(
                try await s.request("POST", "/v3/group_channels/\(url)/operators", body: ["operator_ids": ["carol"]], headers: aliceKey).status == 200
            )
            let event = await bob.next("SYEV") { $0["cat"] as? Int == 10002 }
            let ops = ((event?["data"] as? [String: Any])?["operators"] as? [[String: Any]])?.map { $0["user_id"] as? String }
            #expect(ops == ["alice", "carol"])
            let listed = try await s.request("GET", "/v3/group_channels/\(url)/operators")
            #expect((listed.json["operators"] as? [[String: Any]])?.map { $0["user_id"] as? String } == ["alice", "carol"])
            // Member list: operators first, then by nickname; the operator filter.
            let ordered = try await s.request("GET", "/v3/group_channels/\(url)/members?order=operator_then_member_alphabetical")
            #expect((ordered.json["members"] as? [[String: Any]])?.map { $0["user_id"] as? String } == ["alice", "carol", "bob"])
            let nonOps = try await s.request("GET", "/v3/group_channels/\(url)/members?operator_filter=nonoperator")
            #expect((nonOps.json["members"] as? [[String: Any]])?.map { $0["user_id"] as? String } == ["bob"])
            let named = try await s.request("GET", "/v3/group_channels/\(url)/members?nickname_startswith=Ca")
            #expect((named.json["members"] as? [[String: Any]])?.map { $0["user_id"] as? String } == ["carol"])
            #expect(try await s.request("GET", "/v3/group_channels/\(url)/members?operator_filter=nope").status == 400)
            // Removing: one, then all.
            #expect(try await s.request("DELETE", "/v3/group_channels/\(url)/operators?operator_ids=carol", headers: aliceKey).status == 200)
            #expect(try await s.request("GET", "/v3/group_channels/\(url)").json["operators"] == nil || true)
            #expect(try await s.request("DELETE", "/v3/group_channels/\(url)/operators?delete_all=true").status == 200)
            let none = try await s.request("GET", "/v3/group_channels/\(url)/operators")
            #expect((none.json["operators"] as? [Any])?.isEmpty == true)
            await bob.close()
        }
    }

    @Test("Ban in a group channel: removed at once, refused (900100 / 400750) until it ends, listed for operators; unban")
    func groupBan() async throws {
        let clock = AdjustableClock()
        try await withServer(users: ["alice", "bob", "carol"], { $0.clock = clock }) { s in
            let r = try await s.request(
                "POST", "/v3/group_channels",
                body: ["user_ids": ["alice", "bob", "carol"], "operator_ids": ["alice"], "is_public": true, "name": "pub"])
            let url = r.json["channel_url"] as? String ?? ""
            let (bob, _) = try await s.login("bob")
            let (carol, carolLogin) = try await s.login("carol")
            let carolKey = ["Session-Key": carolLogin["key"] as? String ?? ""]
            let aliceKey = try await s.sessionHeaders("alice")
            #expect(
                try await s.request("POST", "/v3/group_channels/\(url)/ban", body: ["user_id": "bob", "seconds": 60], headers: carolKey)
                    .json["code"] as? Int == 400108)
            let ban = try await s.request(
                "POST", "/v3/group_channels/\(url)/ban", body: ["user_id": "bob", "seconds": 60, "description": "spam"], headers: aliceKey)
            #expect(ban.status == 200 && (ban.json["user"] as? [String: Any])?["user_id"] as? String == "bob", "\(ban.text)")
            #expect(ban.json["description"] as? String == "spam")
            let heard = await carol.next("SYEV") { $0["cat"] as? Int == 10601 }
            #expect((heard?["data"] as? [String: Any])?["user_id"] as? String == "bob")
            #expect(await bob.next("SYEV") { $0["cat"] as? Int == 10601 } != nil, "the banned user hears it too")
            let channel = try await s.request("GET", "/v3/group_channels/\(url)?show_member=true")
            #expect(channel.json["member_count"] as? Int == 2)
            bob.send("MESG", ["channel_url": url, "message": "let me in", "req_id": "b1"])
            #expect(await bob.next("EROR")?["code"] as? Int == 900100)
            let join = try await s.request("PUT", "/v3/group_channels/\(url)/join", body: ["user_id": "bob"])
            #expect(join.json["code"] as? Int == 400750)
            let invite = try await s.request("POST", "/v3/group_channels/\(url)/invite", body: ["user_ids": ["bob"]])
            #expect(invite.json["code"] as? Int == 400750)
            // The banned list: operators and the Platform API; others 400108.
            #expect(try await s.request("GET", "/v3/group_channels/\(url)/ban", headers: carolKey).json["code"] as? Int == 400108)
            let list = try await s.request("GET", "/v3/group_channels/\(url)/ban", headers: aliceKey)
            let item = (list.json["banned_list"] as? [[String: Any]])?.first
            #expect((item?["user"] as? [String: Any])?["user_id"] as? String == "bob" && item?["description"] as? String == "spam")
            // It ends by itself.
            clock.advance(seconds: 61)
            #expect(try await s.request("PUT", "/v3/group_channels/\(url)/join", body: ["user_id": "bob"]).status == 200)
            #expect((try await s.request("GET", "/v3/group_channels/\(url)/ban").json["banned_list"] as? [Any])?.isEmpty == true)
            // For ever (-1), then lifted.
            _ = try await s.request("POST", "/v3/group_channels/\(url)/ban", body: ["user_id": "bob", "seconds": -1])
            clock.advance(seconds: 86_400 * 365)
            #expect(try await s.request("PUT", "/v3/group_channels/\(url)/join", body: ["user_id": "bob"]).json["code"] as? Int == 400750)
            // (a year on, alice's session key has expired: she signs in again)
            let aliceAgain = try await s.sessionHeaders("alice")
            #expect(try await s.request("DELETE", "/v3/group_channels/\(url)/ban/bob", headers: aliceAgain).status == 200)
            #expect(await carol.next("SYEV") { $0["cat"] as? Int == 10600 } != nil)
            #expect(try await s.request("PUT", "/v3/group_channels/\(url)/join", body: ["user_id": "bob"]).status == 200)
            #expect(
                try await s.request("POST", "/v3/group_channels/\(url)/ban", body: ["user_id": "bob", "seconds": 0]).json["code"] as? Int == 400111)
            for x in [bob, carol] { await x.close() }
        }
    }

    @Test("Mute: the user stays and reads, sends are refused (900041) until it ends; my muted info; unmute")
    func groupMute() async throws {
        let clock = AdjustableClock()
        try await withServer(users: ["alice", "bob"], { $0.clock = clock }) { s in
            let r = try await s.request("POST", "/v3/group_channels", body: ["user_ids": ["alice", "bob"], "operator_ids": ["alice"]])
            let url = r.json["channel_url"] as? String ?? ""
            let (alice, _) = try await s.login("alice")
            let (bob, bobLogin) = try await s.login("bob")
            let bobKey = ["Session-Key": bobLogin["key"] as? String ?? ""]
            let mute = try await s.request("POST", "/v3/group_channels/\(url)/mute", body: ["user_id": "bob", "seconds": 30, "description": "calm"])
            #expect(mute.status == 200 && mute.json["channel_url"] as? String == url, "the Platform API answers with the channel: \(mute.text)")
            #expect(await bob.next("SYEV") { $0["cat"] as? Int == 10201 } != nil)
            bob.send("MESG", ["channel_url": url, "message": "can I?", "req_id": "b1"])
            #expect(await bob.next("EROR")?["code"] as? Int == 900041)
            alice.send("MESG", ["channel_url": url, "message": "you still hear me", "req_id": "a1"])
            #expect(await bob.next("MESG") { $0["message"] as? String == "you still hear me" } != nil)
            let info = try await s.request("GET", "/v3/group_channels/\(url)/mute/bob", headers: bobKey)
            #expect(info.json["is_muted"] as? Bool == true && info.json["description"] as? String == "calm")
            #expect((info.json["remaining_duration"] as? Int ?? 0) > 0)
            let list = try await s.request("GET", "/v3/group_channels/\(url)/mute")
            #expect((list.json["muted_list"] as? [[String: Any]])?.first?["user_id"] as? String == "bob")
            let members = try await s.request("GET", "/v3/group_channels/\(url)/members?muted_member_filter=muted")
            #expect((members.json["members"] as? [[String: Any]])?.map { $0["is_muted"] as? Bool } == [true])
            clock.advance(seconds: 31)
            bob.send("MESG", ["channel_url": url, "message": "free again", "req_id": "b2"])
            #expect(await bob.next("MESG") { $0["req_id"] as? String == "b2" } != nil)
            _ = try await s.request("POST", "/v3/group_channels/\(url)/mute", body: ["user_id": "bob"])
            #expect(try await s.request("DELETE", "/v3/group_channels/\(url)/mute/bob").status == 200)
            #expect(await alice.next("SYEV") { $0["cat"] as? Int == 10200 } != nil)
            #expect(try await s.request("GET", "/v3/group_channels/\(url)/mute/bob").json["is_muted"] as? Bool == false)
            for x in [alice, bob] { await x.close() }
        }
    }

    @Test("Ban and mute in an open channel: the banned participant is put out and cannot enter; the muted one stays silent")
    func openChannelModeration() async throws {
        try await withServer(users: ["op", "bob", "carol"], { $0.participantCountInterval = 50 }) { s in
            _ = try await s.request("POST", "/v3/open_channels", body: ["channel_url": "arena", "operators": ["op"]])
            var socks: [String: TestSocket] = [:]
            for u in ["op", "bob", "carol"] {
                let (x, _) = try await s.login(u)
                x.send("ENTR", ["channel_url": "arena", "req_id": "e"])
                _ = await x.next("ENTR")
                socks[u] = x
            }
            let opKey = try await s.sessionHeaders("op")
            #expect(
                try await s.request("POST", "/v3/open_channels/arena/ban", body: ["user_id": "bob", "seconds": -1], headers: opKey).status == 200)
            #expect(await socks["bob"]!.next("SYEV") { $0["cat"] as? Int == 10601 } != nil)
            try await eventually { try await s.request("GET", "/v3/open_channels/arena").json["participant_count"] as? Int == 2 }
            socks["bob"]!.send("ENTR", ["channel_url": "arena", "req_id": "again"])
            #expect(await socks["bob"]!.next("EROR") { $0["req_id"] as? String == "again" }?["code"] as? Int == 900100)
            #expect(try await s.request("POST", "/v3/open_channels/arena/mute", body: ["user_id": "carol"], headers: opKey).status == 200)
            socks["carol"]!.send("MESG", ["channel_url": "arena", "message": "hello?", "req_id": "c1"])
            #expect(await socks["carol"]!.next("EROR")?["code"] as? Int == 900041)
            let muted = try await s.request("GET", "/v3/open_channels/arena/mute", headers: opKey)
            #expect((muted.json["muted_list"] as? [[String: Any]])?.count == 1)
            for x in socks.values { await x.close() }
        }
    }

    @Test("Reports of a message, a user and a channel: categories checked, stored with the message as it was, listed by the Platform API")
    func reports() async throws {
        try await withServer { s in
            let url = try await s.newChannel(of: ["alice", "bob"])
            let sent = try await s.request("POST", "/v3/group_channels/\(url)/messages", body: ["user_id": "bob", "message": "buy now"])
            let id = sent.json["message_id"] as? Int ?? 0
            let aliceKey = try await s.sessionHeaders("alice")
            let bad = try await s.request(
                "POST", "/v3/report/group_channels/\(url)/messages/\(id)", body: ["report_category": "rude"], headers: aliceKey)
            #expect(bad.json["code"] as? Int == 400111)
            let r1 = try await s.request(
                "POST", "/v3/report/group_channels/\(url)/messages/\(id)",
                body: ["report_category": "spam", "report_description": "ads", "reporting_user_id": "alice", "offending_user_id": "bob"],
                headers: aliceKey)
            #expect(r1.status == 200, "\(r1.text)")
            _ = try await s.request(
                "POST", "/v3/report/users/bob",
                body: ["report_category": "harassing", "channel_url": url, "channel_type": "group_channels"], headers: aliceKey)
            _ = try await s.request("POST", "/v3/report/group_channels/\(url)", body: ["report_category": "inappropriate"], headers: aliceKey)
            // The message changes afterwards; the report keeps it as it was.
            _ = try await s.request("PUT", "/v3/group_channels/\(url)/messages/\(id)", body: ["message": "nothing to see"])
            #expect(try await s.request("GET", "/v3/report", headers: aliceKey).json["code"] as? Int == 400108)
            let all = try await s.request("GET", "/v3/report")
            let logs = all.json["report_logs"] as? [[String: Any]] ?? []
            #expect(logs.map { $0["report_type"] as? String } == ["channel", "user", "message"])
            let message = logs.last
            #expect((message?["reported_message"] as? [String: Any])?["message"] as? String == "buy now")
            #expect((message?["offending_user"] as? [String: Any])?["user_id"] as? String == "bob")
            #expect((message?["reporting_user"] as? [String: Any])?["user_id"] as? String == "alice")
            let aboutBob = try await s.request("GET", "/v3/report/users/bob")
            #expect((aboutBob.json["report_logs"] as? [Any])?.count == 2)
            let paged = try await s.request("GET", "/v3/report?limit=2")
            let next = paged.json["next"] as? String ?? ""
            #expect(!next.isEmpty)
            #expect((try await s.request("GET", "/v3/report?limit=2&token=\(next)").json["report_logs"] as? [Any])?.count == 1)
        }
    }

    @Test("User list query: nickname and metadata filters, deactivated users, 414 past 250 ids; 400500 past the connection limit")
    func userQueries() async throws {
        try await withServer({ $0.maxConnectionsPerUser = 2 }) { s in
            for (id, nick, team) in [("u1", "Cara", "red"), ("u2", "Carl", "green"), ("u3", "Dora", "red"), ("u4", "Cato", "blue")] {
                _ = try await s.request("POST", "/v3/users", body: ["user_id": id, "nickname": nick, "profile_url": "", "metadata": ["team": team]])
            }
            let ids = { (r: TestServer.HTTPResult) in (r.json["users"] as? [[String: Any]])?.map { $0["user_id"] as? String } }
            #expect(ids(try await s.request("GET", "/v3/users?nickname_startswith=Ca")) == ["u1", "u2", "u4"])
            #expect(ids(try await s.request("GET", "/v3/users?metadatakey=team&metadatavalues_in=red,green")) == ["u1", "u2", "u3"])
            #expect(ids(try await s.request("GET", "/v3/users?nickname_startswith=Ca&metadatakey=team&metadatavalues_in=red")) == ["u1"])
            _ = try await s.request("PUT", "/v3/users/u2", body: ["is_active": false])
            #expect(ids(try await s.request("GET", "/v3/users?nickname_startswith=Ca")) == ["u1", "u4"])
            #expect(ids(try await s.request("GET", "/v3/users?active_mode=deactivated")) == ["u2"])
            let many = (0..<251).map { "x\($0)" }.joined(separator: ",")
            #expect(try await s.request("GET", "/v3/users?user_ids=\(many)").status == 414)
            // A deactivated user cannot connect.
            let refused = s.connect("u2")
            #expect(await refused.next("LOGI")?["code"] as? Int == 400300)
            // The connection limit.
            let (a, _) = try await s.login("u1")
            let (b, _) = try await s.login("u1")
            let third = s.connect("u1")
            #expect(await third.next("LOGI")?["code"] as? Int == 400500)
            for x in [refused, a, b, third] { await x.close() }
        }
    }

    @Test("Seed 003 invitation option: with it on, blocked users are left out of new channels and invitations")
    func blockedInvitees() async throws {
        try await withServer(users: ["alice", "bob", "carol", "dave"], { $0.excludeBlockedInvitees = true }) { s in
            _ = try await s.request("POST", "/v3/users/alice/block", body: ["target_id": "bob"])
            _ = try await s.request("POST", "/v3/users/dave/block", body: ["target_id": "alice"])
            let aliceKey = try await s.sessionHeaders("alice")
            let r = try await s.request("POST", "/v3/group_channels", body: ["user_ids": ["alice", "bob", "carol", "dave"]], headers: aliceKey)
            let members = (r.json["members"] as? [[String: Any]])?.compactMap { $0["user_id"] as? String }.sorted()
            #expect(members == ["alice", "carol"])
            let url = r.json["channel_url"] as? String ?? ""
            _ = try await s.request("POST", "/v3/group_channels/\(url)/invite", body: ["user_ids": ["bob"]], headers: aliceKey)
            #expect(try await s.request("GET", "/v3/group_channels/\(url)").json["member_count"] as? Int == 2)
        }
    }

    @Test("Open channels notify at most 10 mentioned users; user metadata CRUD with its errors")
    func mentionsAndUserMetadata() async throws {
        try await withServer { s in
            let ids = (0..<12).map { "m\($0)" }
            try await s.createUsers(ids)
            _ = try await s.request("POST", "/v3/open_channels", body: ["channel_url": "talk"])
            let sent = try await s.request(
                "POST", "/v3/open_channels/talk/messages", body: ["user_id": "m0", "message": "hey all", "mentioned_user_ids": ids])
            #expect(sent.status == 200, "\(sent.text)")
            #expect((sent.json["mentioned_users"] as? [[String: Any]])?.count == 10)
            let path = "/v3/users/m1/metadata"
            #expect(try await s.request("POST", path, body: ["metadata": ["team": "red", "role": "dev"]]).json["team"] as? String == "red")
            #expect(try await s.request("POST", path, body: ["metadata": ["team": "blue"]]).json["code"] as? Int == 400202)
            #expect(try await s.request("PUT", path, body: ["metadata": ["city": "x"]]).json["code"] as? Int == 400201)
            #expect(try await s.request("PUT", path, body: ["metadata": ["city": "x"], "upsert": true]).json["city"] as? String == "x")
            #expect(try await s.request("PUT", path + "/team", body: ["value": "green"]).json["team"] as? String == "green")
            #expect(try await s.request("GET", path + "/team").json["team"] as? String == "green")
            #expect(try await s.request("DELETE", path + "/role").status == 200)
            #expect(try await s.request("GET", path + "/role").json["code"] as? Int == 400201)
            let all = try await s.request("GET", path)
            #expect(all.json as NSDictionary == ["team": "green", "city": "x"] as NSDictionary)
            #expect((try await s.request("GET", "/v3/users/m1").json["metadata"] as? [String: String]) == ["team": "green", "city": "x"])
            let other = try await s.sessionHeaders("m2")
            #expect(try await s.request("POST", path, body: ["metadata": ["k": "v"]], headers: other).json["code"] as? Int == 400108)
            #expect(try await s.request("DELETE", path).status == 200)
            #expect((try await s.request("GET", path).json as NSDictionary).count == 0)
        }
    }

    @Test("Seed 003 in 1:1: the blocked user's new messages do not move the blocker's channel up")
    func blockerChannelOrder() async throws {
        try await withServer(users: ["alice", "bob", "carol"]) { s in
            let withBob = try await s.createChannel(["alice", "bob"], distinct: true)
            let withCarol = try await s.createChannel(["alice", "carol"], distinct: true)
            _ = try await s.request("POST", "/v3/group_channels/\(withBob)/messages", body: ["user_id": "bob", "message": "one"])
            _ = try await s.request("POST", "/v3/group_channels/\(withCarol)/messages", body: ["user_id": "carol", "message": "two"])
            _ = try await s.request("POST", "/v3/users/alice/block", body: ["target_id": "bob"])
            _ = try await s.request("POST", "/v3/group_channels/\(withBob)/messages", body: ["user_id": "bob", "message": "three"])
            let order = { (user: String) in
                (try await s.request("GET", "/v3/users/\(user)/my_group_channels?order=latest_last_message").json["channels"] as? [[String: Any]])?
                    .map { $0["channel_url"] as? String }
            }
            #expect(try await order("alice") == [withCarol, withBob], "the blocker's list does not move")
            #expect(try await order("bob") == [withBob], "the blocked user sees their own message")
        }
    }
}

@Suite("Open channel rooms (in memory)")
struct OpenRoomsTests {
    func conn(_ id: Int, _ user: String) -> ClientConnection { ClientConnection(id: id, userId: user, outbox: Outbox(limit: 1 << 20)) }

    @Test("Participants are users: two devices count once; limits per connection and per channel; a closed socket leaves all")
    func counting() {
        let rooms = OpenRooms()
        let a1 = conn(1, "a")
        let a2 = conn(2, "a")
        let b = conn(3, "b")
        let c = conn(4, "c")
        #expect(rooms.enter(a1, "r", maxChannels: 2, maxParticipants: 2) == .entered(count: 1, newUser: true))
        #expect(rooms.enter(a2, "r", maxChannels: 2, maxParticipants: 2) == .entered(count: 1, newUser: false))
        #expect(rooms.enter(a1, "r", maxChannels: 2, maxParticipants: 2) == .alreadyIn(count: 1))
        #expect(rooms.enter(b, "r", maxChannels: 2, maxParticipants: 2) == .entered(count: 2, newUser: true))
        #expect(rooms.enter(c, "r", maxChannels: 2, maxParticipants: 2) == .full)
        #expect(rooms.enter(a1, "s", maxChannels: 2, maxParticipants: 2) == .entered(count: 1, newUser: true))
        #expect(rooms.enter(a1, "t", maxChannels: 2, maxParticipants: 2) == .tooManyChannels)
        #expect(rooms.participants("r") == ["a", "b"] && rooms.connections(in: "r").count == 3)
        // One of a's devices leaves: a is still in.
        #expect(rooms.exit(a2, "r")! == (count: 2, userLeft: false))
        #expect(rooms.exit(a2, "r") == nil)
        let gone = rooms.drop(a1)
        #expect(gone.map(\.url) == ["r", "s"] && gone.allSatisfy(\.userLeft))
        #expect(rooms.participantCount("r") == 1 && rooms.participantCount("s") == 0)
        #expect(rooms.expel("b", from: "r") == 0 && !rooms.isParticipant("r", "b"))
        #expect(rooms.close("r").isEmpty)
    }
}

/// Polls until `check` holds (at most 10 s).
func eventually(_ check: () async throws -> Bool) async throws {
    for _ in 0..<200 {
        if try await check() { return }
        try await Task.sleep(for: .milliseconds(50))
    }
    #expect(Bool(false), "condition never held")
}
