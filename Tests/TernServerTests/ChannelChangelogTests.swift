import Foundation
import TernTestSupport
import Testing

@testable import TernServer

/// `my_group_channels/changelogs` (BRIEF F8, research/sdk-wire.md §9): what each kind of change does to
/// each member's changelog, paging through changes stamped in one millisecond, the filters, and who may ask.
/// Every test runs on a still clock moved by hand, so change times are exact.
@Suite("Channel changelogs", .serialized)
struct ChannelChangelogTests {
    /// One changelog answer, read.
    struct Log {
        var updated: [String]
        var deleted: [String]
        var hasMore: Bool
        var next: String
        var json: [String: Any]
        /// The updated channel `url` as the asker sees it.
        func channel(_ url: String) -> [String: Any]? {
            (json["updated"] as? [[String: Any]])?.first { $0["channel_url"] as? String == url }
        }
    }

    /// `user`'s changelog with the Platform API token; `query` is `change_ts=…` or `token=…` and more.
    func log(_ s: TestServer, _ user: String, _ query: String) async throws -> Log {
        let r = try await s.request("GET", "/v3/users/\(user)/my_group_channels/changelogs?show_empty=true&" + query)
        #expect(r.status == 200, "\(r.text)")
        return Log(
            updated: (r.json["updated"] as? [[String: Any]] ?? []).compactMap { $0["channel_url"] as? String },
            deleted: r.json["deleted"] as? [String] ?? [], hasMore: r.json["has_more"] as? Bool ?? false,
            next: (r.json["next"] as? String ?? "").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "", json: r.json)
    }

    /// Moves the clock, notes the time, moves it again and makes `change`: the time noted is before the change.
    func mark(_ clock: StillClock, _ change: () async throws -> Void) async rethrows -> Int64 {
        clock.advance(ms: 10)
        let t = clock.nowMs()
        clock.advance(ms: 10)
        try await change()
        return t
    }

    func post(_ s: TestServer, _ path: String, _ body: [String: Any]) async throws {
        let r = try await s.request("POST", path, body: body)
        #expect(r.status == 200, "POST \(path): \(r.text)")
    }

    func put(_ s: TestServer, _ path: String, _ body: [String: Any]) async throws {
        let r = try await s.request("PUT", path, body: body)
        #expect(r.status == 200, "PUT \(path): \(r.text)")
    }

    @Test("Updated: a message, a rename, a join, a read, a hide, an operator, a mute; deleted: a leave, a ban, a deletion; back again: updated")
    func eachKindOfChange() async throws {
        let clock = StillClock()
        try await withServer(clock: clock) { s in
            try await s.createUsers(["alice", "bob", "carol", "dave"])
            let a = try await s.createChannel(["alice", "bob"], name: "a")
            let pub = try await s.request("POST", "/v3/group_channels", body: ["user_ids": ["alice", "bob"], "is_public": true, "name": "p"])
            let p = pub.json["channel_url"] as? String ?? ""
            let c = try await s.createChannel(["alice", "carol"], name: "c")

            // A new message: every member's channel moved (bob's unread count with it).
            var t = try await mark(clock) { try await post(s, "/v3/group_channels/\(a)/messages", ["user_id": "alice", "message": "hi"]) }
            #expect(try await log(s, "alice", "change_ts=\(t)").updated == [a])
            let bobSees = try await log(s, "bob", "change_ts=\(t)")
            #expect(bobSees.updated == [a] && bobSees.channel(a)?["unread_message_count"] as? Int == 1)
            #expect(try await log(s, "carol", "change_ts=\(t)").updated.isEmpty, "not carol's channel")

            // A rename.
            t = try await mark(clock) { try await put(s, "/v3/group_channels/\(a)", ["name": "renamed"]) }
            let renamed = try await log(s, "bob", "change_ts=\(t)")
            #expect(renamed.updated == [a] && renamed.channel(a)?["name"] as? String == "renamed")

            // Dave joins the public channel: his and every member's (one more member).
            t = try await mark(clock) { try await put(s, "/v3/group_channels/\(p)/join", ["user_id": "dave"]) }
            #expect(try await log(s, "dave", "change_ts=\(t)").updated == [p])
            let joined = try await log(s, "alice", "change_ts=\(t)")
            #expect(joined.updated == [p] && joined.channel(p)?["member_count"] as? Int == 3)

            // Bob reads a: his unread count is 0 now, and alice sees his read receipt move.
            t = try await mark(clock) { try await put(s, "/v3/group_channels/\(a)/messages/mark_as_read", ["user_id": "bob"]) }
            let read = try await log(s, "bob", "change_ts=\(t)")
            #expect(read.updated == [a] && read.channel(a)?["unread_message_count"] as? Int == 0)
            let receipt = try await log(s, "alice", "change_ts=\(t)")
            #expect(receipt.updated == [a] && (receipt.channel(a)?["read_receipt"] as? [String: Any])?["bob"] as? NSNumber == NSNumber(value: t + 10))

            // Alice hides a: her own view only.
            t = try await mark(clock) { try await put(s, "/v3/group_channels/\(a)/hide", ["user_id": "alice"]) }
            let hidden = try await log(s, "alice", "change_ts=\(t)")
            #expect(hidden.updated == [a] && hidden.channel(a)?["hidden_state"] as? String == "hidden_allow_auto_unhide")
            #expect(try await log(s, "bob", "change_ts=\(t)").updated.isEmpty, "bob's view of a did not change")

            // Bob becomes an operator of a, then is muted there: both show in alice's view.
            t = try await mark(clock) { try await post(s, "/v3/group_channels/\(a)/operators", ["operator_ids": ["bob"]]) }
            let op = try await log(s, "alice", "change_ts=\(t)")
            #expect(op.updated == [a] && (op.channel(a)?["operators"] as? [[String: Any]])?.map { $0["user_id"] as? String } == ["bob"])
            t = try await mark(clock) { try await post(s, "/v3/group_channels/\(a)/mute", ["user_id": "bob", "seconds": 600]) }
            let muted = try await log(s, "alice", "change_ts=\(t)")
            let bobInA = (muted.channel(a)?["members"] as? [[String: Any]])?.first { $0["user_id"] as? String == "bob" }
            #expect(muted.updated == [a] && bobInA?["is_muted"] as? Bool == true)
            #expect(try await log(s, "bob", "change_ts=\(t)").channel(a)?["is_muted"] as? Bool == true)

            // Losing channels: bob leaves p, carol is banned from c, a is deleted.
            let lost = try await mark(clock) { try await put(s, "/v3/group_channels/\(p)/leave", ["user_id": "bob"]) }
            clock.advance(ms: 10)
            try await post(s, "/v3/group_channels/\(c)/ban", ["user_id": "carol", "seconds": -1])
            clock.advance(ms: 10)
            #expect(try await s.request("DELETE", "/v3/group_channels/\(a)").status == 200)
            let bobLost = try await log(s, "bob", "change_ts=\(lost)")
            #expect(bobLost.deleted == [p, a] && bobLost.updated.isEmpty, "oldest loss first")
            #expect(try await log(s, "carol", "change_ts=\(lost)").deleted == [c])
            let aliceLost = try await log(s, "alice", "change_ts=\(lost)")
            #expect(aliceLost.updated == [p, c] && aliceLost.deleted == [a], "p and c lost a member; a is gone")

            // Bob joins p again: updated, no longer deleted (also since before he left).
            t = try await mark(clock) { try await put(s, "/v3/group_channels/\(p)/join", ["user_id": "bob"]) }
            let back = try await log(s, "bob", "change_ts=\(lost)")
            #expect(back.updated == [p] && back.deleted == [a])
            #expect(try await log(s, "bob", "change_ts=\(t)").updated == [p])
        }
    }

    @Test("Pages: oldest change first, changes of one millisecond in URL order, each once; change_ts and token agree")
    func pagingThroughTies() async throws {
        let clock = StillClock()
        try await withServer(clock: clock) { s in
            try await s.createUsers(["alice", "bob"])
            let left = try await s.createChannel(["alice", "bob"], name: "left")
            clock.advance(ms: 10)
            let t = clock.nowMs()
            let earlier = try await s.createChannel(["alice", "bob"], name: "earlier")
            // Five new channels and a lost one, all in one millisecond.
            clock.advance(ms: 10)
            var same: [String] = []
            for i in 0..<5 { same.append(try await s.createChannel(["alice", "bob"], name: "same \(i)")) }
            try await put(s, "/v3/group_channels/\(left)/leave", ["user_id": "alice"])
            let expected = [earlier] + (same + [left]).sorted()

            // Each page holds the next changes in (time, url) order (a page's updated and deleted are two
            // lists, so the order inside one page is checked as a set).
            var seen = 0
            var lost: [String] = []
            func check(_ page: Log) {
                let got = page.updated + page.deleted
                lost += page.deleted
                #expect(got.count <= 2 && seen + got.count <= expected.count)
                #expect(Set(got) == Set(expected[seen..<min(seen + got.count, expected.count)]), "page after \(seen)")
                seen += got.count
            }
            var page = try await log(s, "alice", "change_ts=\(t)&limit=2")
            #expect(page.updated.count + page.deleted.count == 2 && page.hasMore)
            check(page)
            // change_ts again answers the same first page and the same token; the token goes on after it.
            let again = try await log(s, "alice", "change_ts=\(t)&limit=2")
            #expect(again.updated == page.updated && again.next == page.next)
            while page.hasMore {
                page = try await log(s, "alice", "token=\(page.next)&limit=2")
                check(page)
            }
            #expect(seen == expected.count, "every change once")
            #expect(lost == [left], "the channel alice left is a deletion, not an update")

            // Nothing after the last page: empty, and its token still sees what comes later (only that).
            let quiet = try await log(s, "alice", "token=\(page.next)")
            #expect(quiet.updated.isEmpty && quiet.deleted.isEmpty && !quiet.hasMore && !quiet.next.isEmpty)
            #expect(quiet.json["ts"] as? NSNumber == NSNumber(value: clock.nowMs()))
            clock.advance(ms: 10)
            try await put(s, "/v3/group_channels/\(earlier)", ["name": "later"])
            let later = try await log(s, "alice", "token=\(quiet.next)")
            #expect(later.updated == [earlier] && later.deleted.isEmpty)

            // A change_ts in the future (a client clock ahead) answers nothing and resumes from now.
            clock.advance(ms: 10)
            let ahead = try await log(s, "alice", "change_ts=\(clock.nowMs() + 60_000)")
            #expect(ahead.updated.isEmpty)
            clock.advance(ms: 10)
            try await put(s, "/v3/group_channels/\(same[0])", ["name": "moved"])
            #expect(try await log(s, "alice", "token=\(ahead.next)").updated == [same[0]])
        }
    }

    @Test("Filters: custom_types, show_empty, show_frozen; open channels never; empty arrays always present")
    func filters() async throws {
        let clock = StillClock()
        try await withServer(clock: clock) { s in
            try await s.createUsers(["alice", "bob"])
            clock.advance(ms: 10)
            let t = clock.nowMs()
            let empty = try await s.createChannel(["alice", "bob"], name: "empty")
            let typed = try await s.request("POST", "/v3/group_channels", body: ["user_ids": ["alice", "bob"], "custom_type": "team"])
            let team = typed.json["channel_url"] as? String ?? ""
            let frozen = try await s.createChannel(["alice", "bob"], name: "frozen")
            for url in [team, frozen] { try await post(s, "/v3/group_channels/\(url)/messages", ["user_id": "bob", "message": "x"]) }
            try await put(s, "/v3/group_channels/\(frozen)/freeze", ["freeze": true])
            // An open channel alice operates and talks in: never in a group channel changelog.
            try await post(s, "/v3/open_channels", ["channel_url": "open_1", "operator_ids": ["alice"]])
            try await post(s, "/v3/open_channels/open_1/messages", ["user_id": "alice", "message": "hello open"])
            #expect(try await s.request("PUT", "/v3/open_channels/open_1", body: ["name": "renamed"]).status == 200)

            let all = try await log(s, "alice", "change_ts=\(t)")
            #expect(Set(all.updated) == [empty, team, frozen])
            let base = "/v3/users/alice/my_group_channels/changelogs?change_ts=\(t)"
            func urls(_ query: String) async throws -> Set<String> {
                Set((try await s.request("GET", base + query).json["updated"] as? [[String: Any]] ?? []).compactMap { $0["channel_url"] as? String })
            }
            #expect(try await urls("") == [team, frozen], "show_empty is false unless asked")
            #expect(try await urls("&custom_types=team") == [team])
            #expect(try await urls("&show_frozen=false&show_empty=true") == [empty, team])
            // Deleting the open channel loses alice nothing either.
            clock.advance(ms: 10)
            let t2 = clock.nowMs()
            #expect(try await s.request("DELETE", "/v3/open_channels/open_1").status == 200)
            let none = try await s.request("GET", "/v3/users/alice/my_group_channels/changelogs?change_ts=\(t2)")
            #expect(none.json["updated"] as? [Any] != nil && (none.json["updated"] as? [Any])?.isEmpty == true)
            #expect(none.json["deleted"] as? [Any] != nil && (none.json["deleted"] as? [Any])?.isEmpty == true)
            #expect(none.json["has_more"] as? Bool == false && (none.json["next"] as? String)?.isEmpty == false)
        }
    }

    @Test("Who may ask: the user (session key) or the Platform API; another user's as my_group_channels refuses it; bad input")
    func accessAndInput() async throws {
        try await withServer(users: ["alice", "bob"]) { s in
            _ = try await s.createChannel(["alice", "bob"])
            let bob = try await s.sessionHeaders("bob")
            let path = "/v3/users/alice/my_group_channels/changelogs?change_ts=0"
            let list = try await s.request("GET", "/v3/users/alice/my_group_channels", headers: bob)
            let other = try await s.request("GET", path, headers: bob)
            #expect(other.status == list.status && other.status != 200)
            #expect(other.json["code"] as? Int == list.json["code"] as? Int && other.json["code"] as? Int == 400108)
            let sdkOther = try await s.request("GET", "/v3/sdk/users/alice/my_group_channels/changelogs?change_ts=0", headers: bob)
            #expect(sdkOther.json["code"] as? Int == 400108)
            #expect(try await s.request("GET", path).status == 200, "the Platform API may read anyone's")
            let own = try await s.request("GET", "/v3/users/bob/my_group_channels/changelogs?change_ts=0&show_empty=true", headers: bob)
            #expect(own.status == 200 && (own.json["updated"] as? [Any])?.count == 1)
            #expect(try await s.request("GET", "/v3/users/alice/my_group_channels/changelogs?change_ts=0", headers: [:]).status != 200)

            let codes: [(String, Int)] = [
                ("", 400105), ("token=nope", 400111), ("token=e30%3D", 400111), ("change_ts=soon", 400100), ("change_ts=-5", 400111),
                ("change_ts=0&limit=101", 400111),
            ]
            for (query, code) in codes {
                let r = try await s.request("GET", "/v3/users/alice/my_group_channels/changelogs?" + query)
                #expect(r.status == 400 && r.json["code"] as? Int == code, "\(query): \(r.text)")
            }
            #expect(try await s.request("GET", "/v3/users/nobody/my_group_channels/changelogs?change_ts=0").json["code"] as? Int == 400201)
        }
    }
}
