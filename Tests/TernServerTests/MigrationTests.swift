import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

@Suite("Platform API: message migration")
struct MigrationTests {
    @Test("Migrated messages keep their times and appear in history in order; no unread count moves; the last message only moves forward")
    func migration() async throws {
        try await withServer({ $0.linkPreviews = false }) { s in
            let url = try await s.newChannel(of: ["alice", "bob"])
            let live = try await s.request(
                "POST", "/v3/group_channels/\(url)/messages", body: ["message_type": "MESG", "user_id": "alice", "message": "live now"])
            #expect(live.status == 200)
            let unreadBefore = try await s.request("GET", "/v3/users/bob/unread_message_count")
            let t0: Int64 = 1_600_000_000_000
            let r = try await s.request(
                "POST", "/v3/migration/\(url)",
                body: [
                    "messages": [
                        ["message_type": "MESG", "user_id": "bob", "message": "from the old days", "timestamp": t0 + 2_000],
                        ["message_type": "ADMM", "message": "channel imported", "timestamp": t0],
                        [
                            "message_type": "FILE", "user_id": "alice", "url": "https://files.example/a.png", "file_name": "a.png", "file_size": 3,
                            "timestamp": t0 + 1_000,
                        ],
                    ]
                ])
            #expect((r.json["message_ids"] as? [Any])?.count == 3, "\(r.text)")
            let history = try await s.request("GET", "/v3/group_channels/\(url)/messages?message_ts=\(t0 + 10_000)&prev_limit=10&next_limit=0")
            let texts = (history.json["messages"] as? [[String: Any]] ?? []).map {
                ($0["type"] as? String ?? "") + ":" + ($0["message"] as? String ?? "")
            }
            #expect(texts == ["ADMM:channel imported", "FILE:", "MESG:from the old days"], "\(history.text)")
            let unreadAfter = try await s.request("GET", "/v3/users/bob/unread_message_count")
            #expect(unreadAfter.json["unread_count"] as? Int == unreadBefore.json["unread_count"] as? Int, "\(unreadAfter.text)")
            let channel = try await s.request("GET", "/v3/group_channels/\(url)")
            #expect((channel.json["last_message"] as? [String: Any])?["message"] as? String == "live now", "\(channel.text)")
            let future = try await s.request(
                "POST", "/v3/migration/\(url)",
                body: ["messages": [["message_type": "MESG", "user_id": "bob", "message": "x", "timestamp": 9_999_999_999_999]]])
            #expect(future.json["code"] as? Int == 400111, "\(future.text)")
            let nobody = try await s.request(
                "POST", "/v3/migration/\(url)", body: ["messages": [["message_type": "MESG", "user_id": "ghost", "message": "x", "timestamp": t0]]])
            #expect(nobody.json["code"] as? Int == 400201)
            let missing = try await s.request(
                "POST", "/v3/migration/no-such-channel", body: ["messages": [["message_type": "ADMM", "message": "x", "timestamp": t0]]])
            #expect(missing.json["code"] as? Int == 400201)
        }
    }
}
