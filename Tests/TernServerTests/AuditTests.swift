import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// Issue 17's audit, after the reported holes were closed: what a second look at the
/// authorization seams found, each as a regression test.
@Suite("Audit: what outsiders and late joiners can learn", .serialized)
struct AuditTests {
    func send(_ s: TestServer, _ channel: String, from user: String, _ text: String, parent: Int64 = 0) async throws -> Int64 {
        var body: [String: Any] = ["message_type": "MESG", "user_id": user, "message": text]
        if parent != 0 { body["parent_message_id"] = parent }
        let r = try await s.request("POST", "/v3/group_channels/\(channel)/messages", body: body)
        #expect(r.status == 200, "\(r.text)")
        return (r.json["message_id"] as? NSNumber)?.int64Value ?? 0
    }

    @Test("An anonymous request learns nothing about which channels exist: the same 403 for a real, a wrong-type and a missing channel")
    func anonymousLearnsNothing() async throws {
        try await withServer { s in
            let channel = try await s.newChannel(of: ["alice"])
            var answers: [String] = []
            for path in [
                "/v3/group_channels/\(channel)/operators", "/v3/open_channels/\(channel)/operators", "/v3/group_channels/nope_nope/operators",
                "/v3/group_channels/\(channel)/metadata", "/v3/open_channels/\(channel)/messages?message_ts=0",
            ] {
                for headers in [[:], ["Session-Key": "forged"]] {
                    let r = try await s.request("GET", path, headers: headers)
                    #expect(r.status == 403, "\(path): \(r.status) \(r.text)")
                    #expect([400401, 400302].contains(r.json["code"] as? Int ?? 0), "\(path): \(r.text)")
                    answers.append("\(headers.isEmpty) \(r.status) \(r.json["code"] ?? "")")
                }
            }
            // Every anonymous answer is alike, and so is every forged one.
            #expect(Set(answers).count == 2, "\(answers)")
        }
    }

    @Test("A late joiner without chat history sees no older thread parent: not in the thread, not as the parent of their reply, not in a report")
    func historyOffsetCoversParents() async throws {
        try await withServer(
            users: ["alice", "bob", "carol"],
            {
                $0.chatHistoryForNewMembers = false
                $0.linkPreviews = false
            }
        ) { s in
            let channel = try await s.createChannel(["alice", "bob"])
            let parent = try await send(s, channel, from: "alice", "the secret plan")
            try await Task.sleep(for: .milliseconds(5))
            let invite = try await s.request("POST", "/v3/group_channels/\(channel)/invite", body: ["user_ids": ["carol"]])
            #expect(invite.status == 200, "\(invite.text)")
            try await Task.sleep(for: .milliseconds(5))
            _ = try await send(s, channel, from: "bob", "agreed", parent: parent)
            let carol = try await s.sessionHeaders("carol")
            let alice = try await s.sessionHeaders("alice")
            let thread = "/v3/group_channels/\(channel)/messages?message_ts=0&next_limit=50&prev_limit=0&parent_message_id=\(parent)"
            // Alice, there from the start, gets the parent first.
            let forAlice = try await s.request("GET", thread, headers: alice)
            let aliceTexts = (forAlice.json["messages"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
            #expect(aliceTexts.contains("the secret plan"), "\(forAlice.text)")
            // Carol gets the reply she may read, never the parent.
            let forCarol = try await s.request("GET", thread, headers: carol)
            #expect(forCarol.status == 200, "\(forCarol.text)")
            #expect(!forCarol.text.contains("the secret plan"), "\(forCarol.text)")
            // Replying to it would hand her its text as `parent_message_info`: refused.
            let reply = try await s.request(
                "POST", "/v3/group_channels/\(channel)/messages",
                body: ["message_type": "MESG", "user_id": "carol", "message": "me too", "parent_message_id": parent], headers: carol)
            #expect(reply.status == 400, "\(reply.text)")
            #expect(reply.json["code"] as? Int == 400201, "\(reply.text)")
            #expect(!reply.text.contains("the secret plan"))
            // Reporting it would keep a copy of it for her: refused too; Alice may report it.
            let report = try await s.request(
                "POST", "/v3/report/group_channels/\(channel)/messages/\(parent)", body: ["report_category": "spam"], headers: carol)
            #expect(report.status == 400 && report.json["code"] as? Int == 400201, "\(report.text)")
            #expect(!report.text.contains("the secret plan"))
            let aliceReport = try await s.request(
                "POST", "/v3/report/group_channels/\(channel)/messages/\(parent)", body: ["report_category": "spam"], headers: alice)
            #expect(aliceReport.status == 200, "\(aliceReport.text)")
        }
    }

    @Test("A non-member learns nothing about message ids from an edit or a delete: the same refusal for a real and a missing message")
    func nonMemberEditsLearnNothing() async throws {
        try await withServer(users: ["alice", "bob", "mallory"], { $0.linkPreviews = false }) { s in
            let channel = try await s.createChannel(["alice", "bob"])
            let real = try await send(s, channel, from: "alice", "hello")
            let mallory = try await s.sessionHeaders("mallory")
            for id in [real, real + 1000] {
                let edit = try await s.request(
                    "PUT", "/v3/group_channels/\(channel)/messages/\(id)", body: ["message_type": "MESG", "message": "pwned"], headers: mallory)
                #expect(edit.json["code"] as? Int == 400108, "edit \(id): \(edit.text)")
                let delete = try await s.request("DELETE", "/v3/group_channels/\(channel)/messages/\(id)", headers: mallory)
                #expect(delete.json["code"] as? Int == 400108, "delete \(id): \(delete.text)")
            }
            let still = try await s.request("GET", "/v3/group_channels/\(channel)/messages/\(real)")
            #expect(still.json["message"] as? String == "hello")
        }
    }

    @Test("A channel an SDK user creates only invites those who turned auto-accept off; the Platform API joins everyone")
    func creationHonoursAutoAccept() async throws {
        try await withServer(users: ["alice", "bob", "carol"]) { s in
            let pref = try await s.request("PUT", "/v3/users/bob/channel_invitation_preference", body: ["auto_accept": false])
            #expect(pref.status == 200, "\(pref.text)")
            let alice = try await s.sessionHeaders("alice")
            let made = try await s.request("POST", "/v3/group_channels", body: ["user_ids": ["alice", "bob", "carol"]], headers: alice)
            #expect(made.status == 200, "\(made.text)")
            let url = made.json["channel_url"] as? String ?? ""
            func states(_ url: String) async throws -> [String: String] {
                let r = try await s.request("GET", "/v3/group_channels/\(url)/members?limit=10")
                var out: [String: String] = [:]
                for m in r.json["members"] as? [[String: Any]] ?? [] {
                    out[m["user_id"] as? String ?? ""] = m["state"] as? String ?? ""
                }
                return out
            }
            #expect(try await states(url) == ["alice": "joined", "bob": "invited", "carol": "joined"])
            let channel = try await s.request("GET", "/v3/group_channels/\(url)")
            #expect(channel.json["joined_member_count"] as? Int == 2, "\(channel.text)")
            // Bob accepts and is in.
            let bob = try await s.sessionHeaders("bob")
            let accept = try await s.request("PUT", "/v3/group_channels/\(url)/accept", body: ["user_id": "bob"], headers: bob)
            #expect(accept.status == 200, "\(accept.text)")
            #expect(try await states(url)["bob"] == "joined")
            // The Platform API adds members as joined, whatever their preference.
            let platform = try await s.createChannel(["alice", "bob"])
            #expect(try await states(platform) == ["alice": "joined", "bob": "joined"])
        }
    }
}
