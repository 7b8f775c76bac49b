import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

@Suite("Platform API: announcements")
struct AnnouncementTests {
    @Test("An announcement goes to its channels now or when scheduled; opens follow read receipts; pause, resume, cancel; statistics")
    func announcements() async throws {
        try await withServer(users: ["alice", "bob", "carol"], { $0.linkPreviews = false }) { s in
            let a = try await s.createChannel(["alice", "bob"])
            let b = try await s.createChannel(["alice", "carol"])
            let (bob, _) = try await s.login("bob")
            let now = try await s.request(
                "POST", "/v3/announcements",
                body: [
                    "message": ["type": "MESG", "user_id": "alice", "content": "release today"], "target_at": "sender_all_channels",
                    "unique_id": "rel-1", "announcement_group": "releases",
                ])
            #expect(now.json["status"] as? String == "completed" && now.json["sent_channel_count"] as? Int == 2, "\(now.text)")
            #expect(await bob.next("MESG", where: { $0["message"] as? String == "release today" }) != nil)
            await bob.close()
            let dup = try await s.request(
                "POST", "/v3/announcements", body: ["message": ["type": "ADMM", "content": "x"], "target_list": [a], "unique_id": "rel-1"])
            #expect(dup.json["code"] as? Int == 400202, "\(dup.text)")
            // Bob reads: one of two recipients opened it.
            _ = try await s.request("PUT", "/v3/group_channels/\(a)/messages/mark_as_read", body: ["user_id": "bob"])
            let viewed = try await s.request("GET", "/v3/announcements/rel-1")
            #expect(viewed.json["open_count"] as? Int == 1 && viewed.json["open_rate"] as? Double == 0.5, "\(viewed.text)")
            let status = try await s.request("GET", "/v3/announcement_open_status/rel-1?has_opened=true")
            #expect((status.json["open_status"] as? [[String: Any]])?.compactMap { $0["user_id"] as? String } == ["bob"], "\(status.text)")
            let rate = try await s.request("GET", "/v3/announcement_open_rate/rel-1")
            #expect((rate.json["cumulative_open_counts"] as? [Int])?.last == 1, "\(rate.text)")
            let byGroup = try await s.request("GET", "/v3/announcement_open_rate_by_group/releases")
            #expect((byGroup.json["open_counts"] as? [Int])?.first == 1, "\(byGroup.text)")
            #expect((try await s.request("GET", "/v3/announcement_group")).json["announcement_groups"] as? [String] == ["releases"])

            // Scheduled a moment ahead: it waits, then goes out by itself.
            let soon = Int64(Date().timeIntervalSince1970 * 1000) + 1_500
            let later = try await s.request(
                "POST", "/v3/announcements",
                body: [
                    "message": ["type": "ADMM", "content": "maintenance tonight"], "target_list": [a, b], "scheduled_at": soon, "unique_id": "maint",
                ])
            #expect(later.json["status"] as? String == "scheduled", "\(later.text)")
            var done = ""
            for _ in 0..<100 where done != "completed" {
                try await Task.sleep(for: .milliseconds(100))
                done = (try await s.request("GET", "/v3/announcements/maint")).json["status"] as? String ?? ""
            }
            #expect(done == "completed")
            let history = try await s.request("GET", "/v3/group_channels/\(b)/messages?message_ts=9999999999999&prev_limit=10&next_limit=0")
            #expect(history.text.contains("maintenance tonight"), "\(history.text)")

            // Far ahead: pause, resume, cancel; a cancelled one cannot be resumed.
            let far = Int64(Date().timeIntervalSince1970 * 1000) + 86_400_000
            _ = try await s.request(
                "POST", "/v3/announcements",
                body: ["message": ["type": "ADMM", "content": "later"], "target_list": [a], "scheduled_at": far, "unique_id": "far"])
            #expect((try await s.request("PUT", "/v3/announcements/far", body: ["action": "pause"])).json["status"] as? String == "paused")
            #expect((try await s.request("PUT", "/v3/announcements/far", body: ["action": "resume"])).json["status"] as? String == "scheduled")
            let edited = try await s.request("PUT", "/v3/announcements/far", body: ["message": ["content": "later, edited"]])
            #expect((edited.json["message"] as? [String: Any])?["content"] as? String == "later, edited", "\(edited.text)")
            #expect((try await s.request("PUT", "/v3/announcements/far", body: ["action": "cancel"])).json["status"] as? String == "canceled")
            let again = try await s.request("PUT", "/v3/announcements/far", body: ["action": "resume"])
            #expect(again.json["code"] as? Int == 400111, "\(again.text)")
            let list = try await s.request("GET", "/v3/announcements?status=completed")
            #expect((list.json["announcements"] as? [[String: Any]])?.count == 2, "\(list.text)")
            let stats = try await s.request("GET", "/v3/announcement_stats/daily")
            #expect(((stats.json["statistics"] as? [[String: Any]])?.last?["value"] as? Int) == 4, "\(stats.text)")
            let bad = try await s.request("POST", "/v3/announcements", body: ["message": ["type": "MESG", "content": "x"], "target_list": [a]])
            #expect(bad.json["code"] as? Int == 400105, "a MESG needs its sender: \(bad.text)")
        }
    }
}
