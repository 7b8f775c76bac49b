import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

@Suite("Platform API: metrics and moderated messages")
struct MetricsTests {
    @Test("Advanced metrics count today's messages, senders and channels; a filtered message's original is kept for the Platform API")
    func metricsAndModeratedMessages() async throws {
        try await withServer({ $0.linkPreviews = false }) { s in
            let a = try await s.newChannel(of: ["alice", "bob"])
            let b = try await s.createChannel(["alice", "bob"])
            _ = try await s.request("PUT", "/v3/applications/settings_global", body: ["profanity_filter": ["keywords": ["darn"], "type": 1]])
            var ids: [Int64] = []
            for (url, user, text) in [(a, "alice", "one"), (a, "bob", "two"), (b, "alice", "darn three")] {
                let r = try await s.request(
                    "POST", "/v3/group_channels/\(url)/messages", body: ["message_type": "MESG", "user_id": user, "message": text])
                ids.append((r.json["message_id"] as? NSNumber)?.int64Value ?? 0)
            }
            // The bucket that holds the messages, not the last one: a run across midnight (UTC) has a new,
            // empty day last (CI failed so once). A fresh server has nothing in any other bucket.
            func busiest(_ r: TestServer.HTTPResult) -> Double {
                ((r.json["statistics"] as? [[String: Any]]) ?? []).compactMap { ($0["value"] as? NSNumber)?.doubleValue }.max() ?? -1
            }
            func value(_ type: String) async throws -> Double {
                busiest(try await s.request("GET", "/v3/statistics/metric?metric_type=\(type)&time_dimension=daily"))
            }
            #expect(try await value("messages") == 3)
            #expect(try await value("message_senders") == 2)
            #expect(try await value("messages_per_user") == 1.5)
            #expect(try await value("active_channels") == 2)
            #expect(try await value("created_channels") == 2)
            let monthly = try await s.request("GET", "/v3/statistics/metric?metric_type=messages&time_dimension=monthly")
            #expect(busiest(monthly) == 3, "\(monthly.text)")
            let bad = try await s.request("GET", "/v3/statistics/metric?metric_type=vibes")
            #expect(bad.json["code"] as? Int == 400111)

            let moderated = try await s.request("GET", "/v3/report/group_channels/\(b)/profanity_messages/\(ids[2])")
            #expect(
                moderated.json["message"] as? String == "darn three" && moderated.json["filtered_message"] as? String == "**** three",
                "\(moderated.text)")
            let untouched = try await s.request("GET", "/v3/report/group_channels/\(a)/profanity_messages/\(ids[0])")
            #expect(untouched.json["code"] as? Int == 400201)
        }
    }
}
