import Foundation
import TernTestSupport
import Testing

@testable import TernServer

/// What a client that was away needs to catch up (BRIEF F8, issue 8): `messages_gap`.
@Suite("Catching up: messages_gap")
struct SyncTests {
    /// Creates alice, bob and eve, and a channel of alice and bob (eve stays out): its URL.
    func aliceAndBobWithEve(_ s: TestServer) async throws -> String {
        try await s.createUsers(["alice", "bob", "eve"])
        return try await s.createChannel(["alice", "bob"])
    }

    /// Posts "m0", "m1", … as alice in `url`, each 10 ms after the last on `clock`: the answers.
    func postSpaced(_ s: TestServer, _ clock: StillClock, in url: String, count: Int) async throws -> [[String: Any]] {
        var answers: [[String: Any]] = []
        for i in 0..<count {
            clock.advance(ms: 10)
            let r = try await s.request("POST", "/v3/group_channels/\(url)/messages", body: ["user_id": "alice", "message": "m\(i)"])
            answers.append(r.json)
        }
        return answers
    }

    @Test("messages_gap: the missed messages on each side, bounds included; more than 300 missing is a huge gap")
    func messagesGap() async throws {
        // Every message a millisecond apart, so the bounds are exact.
        let clock = StillClock()
        try await withServer(clock: clock) { s in
            let url = try await aliceAndBobWithEve(s)
            let ts = try await postSpaced(s, clock, in: url, count: 10).map { ($0["created_at"] as? NSNumber)?.int64Value ?? 0 }
            let key = try await s.sessionHeaders("bob")
            let texts = { (list: Any?) in (list as? [[String: Any]])?.map { $0["message"] as? String ?? "" } ?? [] }
            // Bob held m0…m2 and m8…m9: the hole between them is m3…m7 (seen from both ends).
            let gap = try await s.request(
                "GET",
                "/v3/group_channels/\(url)/messages_gap?prev_start_ts=\(ts[2])&prev_end_ts=\(ts[8])&prev_cache_count=2"
                    + "&next_start_ts=\(ts[9])&next_end_ts=9007199254740991&next_cache_count=1&include_reply_type=none&custom_types=*",
                headers: key)
            #expect(gap.status == 200, "\(gap.text)")
            #expect(texts(gap.json["prev_messages"]) == ["m2", "m3", "m4", "m5", "m6", "m7", "m8"])
            #expect(texts(gap.json["next_messages"]) == ["m9"])
            #expect(gap.json["is_huge_gap"] as? Bool == false && gap.json["prev_hasmore"] as? Bool == false)
            let reversed = try await s.request(
                "GET", "/v3/group_channels/\(url)/messages_gap?prev_start_ts=\(ts[2])&prev_end_ts=\(ts[4])&reverse=true", headers: key)
            #expect(texts(reversed.json["prev_messages"]) == ["m4", "m3", "m2"])
            // A non-member may not ask.
            let (eve, eveLogin) = try await s.login("eve")
            await eve.close()
            let refused = try await s.request(
                "GET", "/v3/group_channels/\(url)/messages_gap?next_start_ts=0&next_end_ts=\(ts[9])",
                headers: ["Session-Key": eveLogin["key"] as? String ?? ""])
            #expect(refused.json["code"] as? Int == 400108)
            // 301 more while away: a huge gap, no messages.
            for i in 0..<301 {
                clock.advance(ms: 1)
                _ = try await s.request("POST", "/v3/group_channels/\(url)/messages", body: ["user_id": "alice", "message": "later \(i)"])
            }
            let huge = try await s.request(
                "GET", "/v3/group_channels/\(url)/messages_gap?next_start_ts=\(ts[9] + 1)&next_end_ts=9007199254740991&next_cache_count=0",
                headers: key)
            #expect(huge.json["is_huge_gap"] as? Bool == true)
            #expect((huge.json["next_messages"] as? [Any])?.isEmpty == true)
            // 300 exactly is not huge: it comes in pages of 100.
            let big = try await s.request(
                "GET", "/v3/group_channels/\(url)/messages_gap?next_start_ts=\(ts[9] + 1)&next_end_ts=9007199254740991&next_cache_count=1",
                headers: key)
            #expect(big.json["is_huge_gap"] as? Bool == false && big.json["next_hasmore"] as? Bool == true)
            #expect(texts(big.json["next_messages"]).first == "later 0" && texts(big.json["next_messages"]).count == 100)
        }
    }

    @Test("Message changelogs: edits, reactions, threads and deletions since a time, in order, paged with a token")
    func messageChangelogs() async throws {
        let clock = StillClock()
        try await withServer(clock: clock) { s in
            let url = try await aliceAndBobWithEve(s)
            let ids = try await postSpaced(s, clock, in: url, count: 4).map { $0["message_id"] as? Int ?? 0 }
            clock.advance(ms: 10)
            let since = clock.nowMs()
            let base = "/v3/group_channels/\(url)/messages"
            clock.advance(ms: 10)
            _ = try await s.request("PUT", "\(base)/\(ids[0])", body: ["message": "m0 edited"])
            clock.advance(ms: 10)
            _ = try await s.request("POST", "\(base)/\(ids[1])/reactions", body: ["user_id": "bob", "reaction": "heart"])
            clock.advance(ms: 10)
            _ = try await s.request("DELETE", "\(base)/\(ids[2])")
            clock.advance(ms: 10)
            _ = try await s.request("POST", base, body: ["user_id": "bob", "message": "a reply", "parent_message_id": ids[3]])
            let key = try await s.sessionHeaders("bob")
            let all = try await s.request(
                "GET", "\(base)/changelogs?change_ts=\(since)&include_reactions_summary=true&include_thread_info=true", headers: key)
            #expect(all.status == 200, "\(all.text)")
            let updated = all.json["updated"] as? [[String: Any]] ?? []
            #expect(updated.map { $0["message_id"] as? Int } == [ids[0], ids[1], ids[3]], "edit, reaction, thread, in order")
            #expect(updated.first?["message"] as? String == "m0 edited")
            #expect(((updated.last?["thread_info"] as? [String: Any])?["reply_count"] as? Int) == 1)
            #expect((all.json["deleted"] as? [[String: Any]])?.map { $0["message_id"] as? Int } == [ids[2]])
            #expect(all.json["has_more"] as? Bool == false)
            // Two at a time: the token continues where the page ended.
            let first = try await s.request("GET", "\(base)/changelogs?change_ts=\(since)&limit=2", headers: key)
            #expect((first.json["updated"] as? [[String: Any]])?.map { $0["message_id"] as? Int } == [ids[0], ids[1]])
            #expect(first.json["has_more"] as? Bool == true)
            let token = (first.json["next"] as? String ?? "").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let second = try await s.request("GET", "\(base)/changelogs?token=\(token)&limit=2", headers: key)
            #expect((second.json["deleted"] as? [[String: Any]])?.map { $0["message_id"] as? Int } == [ids[2]])
            #expect((second.json["updated"] as? [[String: Any]])?.map { $0["message_id"] as? Int } == [ids[3]])
            #expect(second.json["has_more"] as? Bool == false)
            // Nothing since now; a non-member and a missing change_ts are refused.
            let none = try await s.request("GET", "\(base)/changelogs?change_ts=\(clock.nowMs() + 1)", headers: key)
            #expect((none.json["updated"] as? [Any])?.isEmpty == true && (none.json["deleted"] as? [Any])?.isEmpty == true)
            let (eve, eveLogin) = try await s.login("eve")
            await eve.close()
            #expect(
                try await s.request("GET", "\(base)/changelogs?change_ts=0", headers: ["Session-Key": eveLogin["key"] as? String ?? ""]).json["code"]
                    as? Int == 400108)
            #expect(try await s.request("GET", "\(base)/changelogs", headers: key).json["code"] as? Int == 400105)
        }
    }

    @Test("Channel changelogs: updated and lost channels since a time, per user, paged with a token, across a restart")
    func channelChangelogs() async throws {
        let clock = StillClock()
        let dir = makeTempDirectory()
        var s = try await TestServer.start(dataDirectory: dir) {
            $0.maxMessagesPerSecond = 0
            $0.clock = clock
        }
        do {
            try await s.createUsers(["alice", "bob", "carol"])
            let a = try await s.createChannel(["alice", "bob"], name: "a")
            let b = try await s.createChannel(["alice", "carol"], name: "b")
            clock.advance(ms: 10)
            let t0 = clock.nowMs()
            func log(_ user: String, _ query: String) async throws -> (
                updated: [String], deleted: [String], more: Bool, next: String, json: [String: Any]
            ) {
                let r = try await s.request("GET", "/v3/users/\(user)/my_group_channels/changelogs?show_empty=true&" + query)
                #expect(r.status == 200, "\(r.text)")
                let updated = (r.json["updated"] as? [[String: Any]] ?? []).compactMap { $0["channel_url"] as? String }
                return (updated, r.json["deleted"] as? [String] ?? [], r.json["has_more"] as? Bool ?? false, r.json["next"] as? String ?? "", r.json)
            }
            let none = try await log("alice", "change_ts=\(t0 + 1)")
            #expect(none.updated.isEmpty && none.deleted.isEmpty && !none.more && !none.next.isEmpty)

            clock.advance(ms: 10)
            _ = try await s.request("PUT", "/v3/group_channels/\(a)", body: ["name": "renamed"])
            clock.advance(ms: 10)
            _ = try await s.request("POST", "/v3/group_channels/\(b)/messages", body: ["user_id": "alice", "message": "hi"])
            clock.advance(ms: 10)
            _ = try await s.request("PUT", "/v3/group_channels/\(b)/leave", body: ["user_id": "carol"])

            // Alice: a (renamed) then b (a message, then a member left); nothing lost.
            let all = try await log("alice", "change_ts=\(t0 + 1)")
            #expect(all.updated == [a, b] && all.deleted.isEmpty && !all.more)
            let names = (all.json["updated"] as? [[String: Any]] ?? []).map { $0["name"] as? String ?? "" }
            #expect(names == ["renamed", "b"])
            // Paged one at a time with the token.
            let p1 = try await log("alice", "change_ts=\(t0 + 1)&limit=1")
            #expect(p1.updated == [a] && p1.more)
            let p2 = try await log("alice", "token=\(p1.next)&limit=1")
            #expect(p2.updated == [b] && !p2.more)
            let p3 = try await log("alice", "token=\(p2.next)")
            #expect(p3.updated.isEmpty && p3.deleted.isEmpty)
            // Bob saw only a change; carol lost b.
            #expect(try await log("bob", "change_ts=\(t0 + 1)").updated == [a])
            let carol = try await log("carol", "change_ts=\(t0 + 1)")
            #expect(carol.updated.isEmpty && carol.deleted == [b])

            // Deleting a channel: every member loses it. Hiding: an update (the channel is hidden now).
            clock.advance(ms: 10)
            let t1 = clock.nowMs()
            _ = try await s.request("DELETE", "/v3/group_channels/\(a)")
            clock.advance(ms: 10)
            _ = try await s.request("PUT", "/v3/group_channels/\(b)/hide", body: ["user_id": "alice"])
            let later = try await log("alice", "change_ts=\(t1)")
            #expect(later.deleted == [a] && later.updated == [b])
            #expect((later.json["updated"] as? [[String: Any]])?.first?["hidden_state"] as? String == "hidden_allow_auto_unhide")
            #expect(try await log("bob", "change_ts=\(t1)").deleted == [a])
            // Carol comes back to b: an update again, no longer lost.
            clock.advance(ms: 10)
            _ = try await s.request("POST", "/v3/group_channels/\(b)/invite", body: ["user_ids": ["carol"]])
            let back = try await log("carol", "change_ts=\(t0 + 1)")
            #expect(back.updated == [b] && back.deleted.isEmpty)

            // Kept in the database: the same token answers the same after a restart.
            await s.stop()
            s = try await TestServer.start(dataDirectory: dir) {
                $0.maxMessagesPerSecond = 0
                $0.clock = clock
            }
            // (After a, the next change is now a's deletion: b moved on since, with the hide.)
            let again = try await log("alice", "token=\(p1.next)&limit=1")
            #expect(again.deleted == [a] && again.updated.isEmpty && again.more)
            let rest = try await log("alice", "token=\(again.next)")
            #expect(rest.updated == [b] && !rest.more)
            // Bad input: no start point, a bad token, another user's changelog with a session key.
            let missing = try await s.request("GET", "/v3/users/alice/my_group_channels/changelogs")
            #expect(missing.status == 400 && missing.json["code"] as? Int == 400105)
            let bad = try await s.request("GET", "/v3/users/alice/my_group_channels/changelogs?token=nope")
            #expect(bad.json["code"] as? Int == 400111)
            let (sock, login) = try await s.login("bob")
            await sock.close()
            let other = try await s.request(
                "GET", "/v3/users/alice/my_group_channels/changelogs?change_ts=0", headers: ["Session-Key": login["key"] as? String ?? ""])
            #expect(other.status != 200)
            let own = try await s.request(
                "GET", "/v3/sdk/users/bob/my_group_channels/changelogs?change_ts=0", headers: ["Session-Key": login["key"] as? String ?? ""])
            #expect(own.status == 200 && (own.json["updated"] as? [Any]) != nil)
        } catch {
            await s.stop()
            throw error
        }
        await s.stop()
    }
}
