import Foundation
import Testing

@testable import TernServer

/// What a client that was away needs to catch up (BRIEF F8, issue 8): `messages_gap`.
@Suite("Catching up: messages_gap")
struct SyncTests {
    @Test("messages_gap: the missed messages on each side, bounds included; more than 300 missing is a huge gap")
    func messagesGap() async throws {
        // Every message a millisecond apart, so the bounds are exact.
        let clock = StillClock()
        try await withServer({
            $0.maxMessagesPerSecond = 0
            $0.clock = clock
        }) { s in
            try await s.createUsers(["alice", "bob", "eve"])
            let url = try await s.createChannel(["alice", "bob"])
            var ts: [Int64] = []
            for i in 0..<10 {
                clock.advance(ms: 10)
                let r = try await s.request("POST", "/v3/group_channels/\(url)/messages", body: ["user_id": "alice", "message": "m\(i)"])
                ts.append((r.json["created_at"] as? NSNumber)?.int64Value ?? 0)
            }
            let (bob, login) = try await s.login("bob")
            await bob.close()
            let key = ["Session-Key": login["key"] as? String ?? ""]
            let texts = { (list: Any?) in (list as? [[String: Any]])?.map { $0["message"] as? String ?? "" } ?? [] }
            // Bob held m0…m2 and m8…m9: the hole between them is m3…m7 (seen from both ends).
            let gap = try await s.request(
                "GET", "/v3/group_channels/\(url)/messages_gap?prev_start_ts=\(ts[2])&prev_end_ts=\(ts[8])&prev_cache_count=2"
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
                "GET", "/v3/group_channels/\(url)/messages_gap?next_start_ts=0&next_end_ts=\(ts[9])", headers: ["Session-Key": eveLogin["key"] as? String ?? ""])
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
}
