import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

@Suite("Platform API: auto event messages")
struct AutoEventMessageTests {
    @Test("With user_join and user_leave on, joining and leaving post admin messages; channel_change off posts nothing")
    func autoEvents() async throws {
        try await withServer(users: ["alice", "bob", "carol"], { $0.linkPreviews = false }) { s in
            let url = try await s.createChannel(["alice", "bob"])
            _ = try await s.request(
                "PUT", "/v3/applications/settings/auto_event_message",
                body: ["auto_event_message": ["user_join": ["enabled": true], "user_leave": ["enabled": true]]])
            let (bob, _) = try await s.login("bob")
            _ = try await s.request("POST", "/v3/group_channels/\(url)/invite", body: ["user_ids": ["carol"]])
            let joined = await bob.next("ADMM", where: { $0["message"] as? String == "Carol joined." })
            #expect(joined?["custom_type"] as? String == "SENDBIRD:AUTO_EVENT_MESSAGE", "\(String(describing: joined))")
            _ = try await s.request("PUT", "/v3/group_channels/\(url)/leave", body: ["user_ids": ["carol"]])
            #expect(await bob.next("ADMM", where: { $0["message"] as? String == "Carol left." }) != nil)
            _ = try await s.request("PUT", "/v3/group_channels/\(url)", body: ["name": "renamed"])
            await bob.close()
            let history = try await s.request("GET", "/v3/group_channels/\(url)/messages?message_ts=9999999999999&prev_limit=20&next_limit=0")
            let admin = (history.json["messages"] as? [[String: Any]] ?? []).filter { $0["type"] as? String == "ADMM" }.compactMap {
                $0["message"] as? String
            }
            #expect(admin == ["Carol joined.", "Carol left."], "\(history.text)")
        }
    }
}
