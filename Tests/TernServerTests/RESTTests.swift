import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

@Suite("REST: Platform API and SDK paths", .serialized)
struct RESTTests {
    @Test("Platform calls need a valid Api-Token (header names in any case); errors are Sendbird JSON")
    func apiTokenRequired() async throws {
        try await withServer { s in
            let none = try await s.request("GET", "/v3/users", headers: [:])
            #expect(none.status == 403)
            #expect(none.json["code"] as? Int == 400401)
            #expect(none.json["error"] as? Bool == true)
            #expect(none.json["message"] is String)
            let wrong = try await s.request("GET", "/v3/users", headers: ["Api-Token": "nope"])
            #expect(wrong.json["code"] as? Int == 400401)
            let lower = try await s.request("GET", "/v3/users", headers: ["api-token": s.apiToken])
            #expect(lower.status == 200)
            let badKey = try await s.request("GET", "/v3/users", headers: ["Session-Key": "bogus"])
            #expect(badKey.json["code"] as? Int == 400302)
        }
    }

    @Test("Users: create, duplicate, get, update, list with user_ids, delete")
    func users() async throws {
        try await withServer { s in
            let created = try await s.request(
                "POST", "/v3/users", body: ["user_id": "alice", "nickname": "Alice", "profile_url": "", "issue_access_token": true])
            #expect(created.status == 200)
            let token = created.json["access_token"] as? String ?? ""
            #expect(token.count >= 20)
            let dup = try await s.request("POST", "/v3/users", body: ["user_id": "alice", "nickname": "A", "profile_url": ""])
            #expect(dup.json["code"] as? Int == 400202)
            let got = try await s.request("GET", "/v3/users/alice")
            #expect(got.json["nickname"] as? String == "Alice")
            #expect(got.json["access_token"] as? String == "", "the token is shown only when issued")
            let updated = try await s.request("PUT", "/v3/users/alice", body: ["nickname": "Alice B"])
            #expect(updated.json["nickname"] as? String == "Alice B")
            try await s.createUsers(["bob", "carol"])
            let listed = try await s.request("GET", "/v3/users?user_ids=alice,carol&limit=10")
            let ids = (listed.json["users"] as? [[String: Any]] ?? []).compactMap { $0["user_id"] as? String }
            #expect(ids == ["alice", "carol"])
            #expect(listed.json["next"] as? String == "")
            let paged = try await s.request("GET", "/v3/users?limit=2")
            #expect((paged.json["users"] as? [Any])?.count == 2)
            let next = paged.json["next"] as? String ?? ""
            #expect(!next.isEmpty)
            let page2 = try await s.request("GET", "/v3/users?limit=2&token=\(next.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
            #expect((page2.json["users"] as? [[String: Any]])?.first?["user_id"] as? String == "carol")
            let tooMany = (0..<251).map { "u\($0)" }.joined(separator: ",")
            let rejected = try await s.request("GET", "/v3/users?user_ids=\(tooMany)")
            #expect(rejected.status == 414)
            let missing = try await s.request("GET", "/v3/users/nobody")
            #expect(missing.json["code"] as? Int == 400201)
            let deleted = try await s.request("DELETE", "/v3/users/carol")
            #expect(deleted.status == 200 && deleted.text == "{}")
            let tooLong = try await s.request(
                "POST", "/v3/users", body: ["user_id": "x", "nickname": String(repeating: "n", count: 81), "profile_url": ""])
            #expect(tooLong.json["code"] as? Int == 400110)
        }
    }

    @Test("Access tokens are stored hashed: the plain token is nowhere in the database")
    func tokensHashedAtRest() async throws {
        try await withServer(users: ["dave"]) { s in
            let issued = try await s.request("POST", "/v3/users/dave/token", body: [:])
            let token = issued.json["token"] as? String ?? ""
            #expect(!token.isEmpty)
            #expect(issued.json["expires_at"] as? Int == 0)
            let files = try FileManager.default.contentsOfDirectory(atPath: s.dataDirectory)
            for f in files where f.hasPrefix("ternd.sqlite") {
                let data = try Data(contentsOf: URL(fileURLWithPath: s.dataDirectory + "/" + f))
                #expect(data.range(of: Data(token.utf8)) == nil, "plain token found in \(f)")
            }
        }
    }

    @Test("Bad input: malformed JSON is 400403, a wrong type 400100, an unknown route still answers JSON")
    func badInput() async throws {
        try await withServer { s in
            let malformed = try await s.request("POST", "/v3/users", rawBody: "{nope")
            #expect(malformed.status == 400)
            #expect(malformed.json["code"] as? Int == 400403)
            let wrongType = try await s.request("POST", "/v3/users", body: ["user_id": 5, "nickname": "x"])
            #expect(wrongType.json["code"] as? Int == 400100)
            let missing = try await s.request("POST", "/v3/users", body: ["nickname": "x"])
            #expect(missing.json["code"] as? Int == 400105)
            let unknown = try await s.request("GET", "/v3/nothing/here")
            #expect(unknown.json["error"] as? Bool == true)
            let warmup = try await s.request("GET", "/", headers: [:])
            #expect(warmup.status == 200 && warmup.text == "{}")
        }
    }

    @Test("Group channels: distinct reuse, get, list mine with unread counts and receipts, unknown channel 400201")
    func groupChannels() async throws {
        try await withServer(users: ["a", "b", "c"]) { s in
            let first = try await s.request("POST", "/v3/group_channels", body: ["user_ids": ["a", "b"], "is_distinct": true, "users": []])
            let url = first.json["channel_url"] as? String ?? ""
            #expect(first.json["is_created"] as? Bool == true)
            let again = try await s.request("POST", "/v3/group_channels", body: ["user_ids": ["b", "a"], "is_distinct": true])
            #expect(again.json["channel_url"] as? String == url)
            #expect(again.json["is_created"] as? Bool == false)
            let other = try await s.request("POST", "/v3/group_channels", body: ["user_ids": ["a", "b", "c"], "is_distinct": true])
            #expect(other.json["channel_url"] as? String != url)
            let custom = try await s.request(
                "POST", "/v3/group_channels",
                body: ["user_ids": ["a", "c"], "channel_url": "team_room", "name": "Team", "custom_type": "team", "data": "{}"])
            #expect(custom.json["channel_url"] as? String == "team_room")
            #expect(custom.json["name"] as? String == "Team")
            let badUrl = try await s.request("POST", "/v3/group_channels", body: ["user_ids": ["a"], "channel_url": "no"])
            #expect(badUrl.json["code"] as? Int == 400111)
            let unknownUser = try await s.request("POST", "/v3/group_channels", body: ["user_ids": ["a", "ghost"]])
            #expect(unknownUser.json["code"] as? Int == 400201)
            let publicDistinct = try await s.request("POST", "/v3/group_channels", body: ["user_ids": ["a"], "is_public": true, "is_distinct": true])
            #expect(publicDistinct.json["code"] as? Int == 400111)

            let sent = try await s.request(
                "POST", "/v3/group_channels/\(url)/messages", body: ["message_type": "MESG", "user_id": "a", "message": "hi"])
            #expect(sent.json["type"] as? String == "MESG")
            let mine = try await s.request("GET", "/v3/users/b/my_group_channels?show_member=True&show_read_receipt=true")
            let channels = mine.json["channels"] as? [[String: Any]] ?? []
            #expect(channels.map { $0["channel_url"] as? String } == [url], "empty channels are hidden by default")
            #expect(channels.first?["unread_message_count"] as? Int == 1)
            #expect((channels.first?["last_message"] as? [String: Any])?["message"] as? String == "hi")
            #expect((channels.first?["members"] as? [Any])?.count == 2)
            let receipts = channels.first?["read_receipt"] as? [String: Int] ?? [:]
            #expect(receipts["a"] == sent.json["created_at"] as? Int, "the sender's receipt moves to its message")
            #expect(
                (receipts["b"] ?? 0) > 0 && (receipts["b"] ?? 0) < (sent.json["created_at"] as? Int ?? 0),
                "a member's receipt starts just before the channel")
            #expect(channels.first?["member_state"] as? String == "joined")
            let withEmpty = try await s.request("GET", "/v3/users/a/my_group_channels?show_empty=true")
            #expect((withEmpty.json["channels"] as? [Any])?.count == 3)
            let exactly = try await s.request("GET", "/v3/users/a/my_group_channels?show_empty=true&members_exactly_in=b")
            #expect((exactly.json["channels"] as? [[String: Any]])?.map { $0["channel_url"] as? String } == [url])
            let get = try await s.request("GET", "/v3/group_channels/\(url)")
            #expect(get.json["member_count"] as? Int == 2)
            let none = try await s.request("GET", "/v3/group_channels/nope_nope")
            #expect(none.json["code"] as? Int == 400201)
            let all = try await s.request("GET", "/v3/group_channels?limit=2&show_empty=true")
            #expect((all.json["channels"] as? [Any])?.count == 2)
            #expect(!(all.json["next"] as? String ?? "").isEmpty)
        }
    }

    @Test("Messages: user and admin messages, history by timestamp and id, unread counts and mark as read")
    func messages() async throws {
        try await withServer { s in
            let url = try await s.newChannel(of: ["a", "b"])
            var ids: [Int] = []
            for text in ["one", "two", "three"] {
                let r = try await s.request(
                    "POST", "/v3/group_channels/\(url)/messages", body: ["message_type": "MESG", "user_id": "a", "message": text])
                ids.append(r.json["message_id"] as? Int ?? 0)
                try await Task.sleep(for: .milliseconds(3))
            }
            let admin = try await s.request(
                "POST", "/v3/group_channels/\(url)/messages", body: ["message_type": "ADMM", "user_id": "a", "message": "notice"])
            #expect(admin.json["type"] as? String == "ADMM")
            #expect(admin.json["user"] == nil, "admin messages carry no user")
            let nonMember = try await s.request("POST", "/v3/users", body: ["user_id": "z", "nickname": "", "profile_url": ""])
            #expect(nonMember.status == 200)
            let refused = try await s.request(
                "POST", "/v3/group_channels/\(url)/messages", body: ["message_type": "MESG", "user_id": "z", "message": "x"])
            #expect(refused.json["code"] as? Int == 900020)

            let now = Int(Date().timeIntervalSince1970 * 1000) + 1000
            let history = try await s.request("GET", "/v3/group_channels/\(url)/messages?message_ts=\(now)&message_id=0&prev_limit=10&next_limit=0")
            let texts = (history.json["messages"] as? [[String: Any]] ?? []).map { $0["message"] as? String ?? "" }
            #expect(texts == ["one", "two", "three", "notice"])
            let reversed = try await s.request("GET", "/v3/group_channels/\(url)/messages?message_ts=\(now)&prev_limit=2&next_limit=0&reverse=true")
            #expect((reversed.json["messages"] as? [[String: Any]] ?? []).map { $0["message"] as? String ?? "" } == ["notice", "three"])
            let around = try await s.request("GET", "/v3/group_channels/\(url)/messages?message_id=\(ids[1])&prev_limit=1&next_limit=1&include=true")
            #expect((around.json["messages"] as? [[String: Any]] ?? []).map { $0["message"] as? String ?? "" } == ["one", "two", "three"])
            let exclusive = try await s.request(
                "GET", "/v3/group_channels/\(url)/messages?message_id=\(ids[1])&prev_limit=1&next_limit=1&include=false")
            #expect((exclusive.json["messages"] as? [[String: Any]] ?? []).map { $0["message"] as? String ?? "" } == ["one", "three"])
            let onlyAdmin = try await s.request(
                "GET", "/v3/group_channels/\(url)/messages?message_ts=\(now)&prev_limit=10&next_limit=0&message_type=ADMM")
            #expect((onlyAdmin.json["messages"] as? [Any])?.count == 1)
            let badLimit = try await s.request("GET", "/v3/group_channels/\(url)/messages?message_ts=\(now)&prev_limit=500")
            #expect(badLimit.json["code"] as? Int == 400111)
            let one = try await s.request("GET", "/v3/group_channels/\(url)/messages/\(ids[0])")
            #expect(one.json["message"] as? String == "one")

            let unread = try await s.request("GET", "/v3/users/b/unread_message_count")
            #expect(unread.json["unread_count"] as? Int == 4, "three user messages and the admin message")
            let unreadA = try await s.request("GET", "/v3/users/a/unread_message_count")
            #expect(unreadA.json["unread_count"] as? Int == 1, "own messages are read; the admin message is not")
            let channelsWithUnread = try await s.request("GET", "/v3/users/b/unread_channel_count")
            #expect(channelsWithUnread.json["unread_count"] as? Int == 1)
            let perMember = try await s.request("GET", "/v3/group_channels/\(url)/messages/unread_count?user_ids=b")
            #expect((perMember.json["unread"] as? [String: Int]) == ["b": 4])
            let mark = try await s.request("PUT", "/v3/group_channels/\(url)/messages/mark_as_read", body: ["user_id": "b"])
            #expect(mark.status == 200 && mark.text == "{}")
            let after = try await s.request("GET", "/v3/users/b/unread_message_count")
            #expect(after.json["unread_count"] as? Int == 0)
            _ = try await s.request("PUT", "/v3/users/a/mark_as_read_all", body: [:])
            let afterAll = try await s.request("GET", "/v3/users/a/unread_message_count")
            #expect(afterAll.json["unread_count"] as? Int == 0)
        }
    }

    @Test("SDK users (Session-Key) act only as themselves and see only their channels")
    func sessionKeyScope() async throws {
        try await withServer(users: ["a", "b", "c"]) { s in
            let url = try await s.createChannel(["a", "b"])
            let (socket, logi) = try await s.login("c")
            let key = logi["key"] as? String ?? ""
            #expect(!key.isEmpty)
            let other = try await s.request("GET", "/v3/users/a/my_group_channels", headers: ["Session-Key": key])
            #expect(other.json["code"] as? Int == 400108)
            let mine = try await s.request("GET", "/v3/users/c/my_group_channels", headers: ["Session-key": key])
            #expect(mine.status == 200)
            let foreign = try await s.request("GET", "/v3/sdk/group_channels/\(url)", headers: ["Session-Key": key])
            #expect(foreign.json["code"] as? Int == 400108)
            let create = try await s.request("POST", "/v3/users", body: ["user_id": "x", "nickname": ""], headers: ["Session-Key": key])
            #expect(create.json["code"] as? Int == 400108)
            let created = try await s.request(
                "POST", "/v3/group_channels", body: ["user_ids": ["c", "a"], "is_distinct": true], headers: ["Session-Key": key])
            #expect(created.status == 200)
            #expect(created.json["member_state"] as? String == "joined")
            await socket.close()
        }
    }
}
