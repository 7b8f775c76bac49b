import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

@Suite("Platform API: emojis and reaction switches", .serialized)
struct EmojiAPITests {
    @Test("Emoji categories and emojis: add, read (any user), update, delete, unique keys, a hash that changes; reactions off refuses new ones")
    func emojis() async throws {
        try await withServer(users: ["alice", "bob"]) { s in
            let add = try await s.request(
                "POST", "/v3/emoji_categories",
                body: [
                    "emoji_categories": [
                        [
                            "name": "Faces", "url": "https://e.example/faces.png",
                            "emojis": [["key": "smile", "url": "https://e.example/smile.png"], ["key": "cry", "url": "https://e.example/cry.png"]],
                        ]
                    ]
                ])
            #expect(add.status == 200, "\(add.text)")
            let category = (add.json["emoji_categories"] as? [[String: Any]])?.first ?? [:]
            let categoryId = category["id"] as? Int ?? 0
            #expect((category["emojis"] as? [[String: Any]])?.count == 2)
            let key = try await s.sessionHeaders("alice")
            let list = try await s.request("GET", "/v3/emoji_categories", headers: key)
            let hash1 = list.json["emoji_hash"] as? String ?? ""
            #expect((list.json["emoji_categories"] as? [[String: Any]])?.count == 1 && !hash1.isEmpty, "\(list.text)")
            let dup = try await s.request(
                "POST", "/v3/emojis", body: ["emoji_category_id": categoryId, "emojis": [["key": "smile", "url": "https://e.example/x.png"]]])
            #expect(dup.json["code"] as? Int == 400202, "\(dup.text)")
            let more = try await s.request(
                "POST", "/v3/emojis", body: ["emoji_category_id": categoryId, "emojis": [["key": "wink", "url": "https://e.example/wink.png"]]])
            #expect((more.json["emojis"] as? [[String: Any]])?.first?["key"] as? String == "wink", "\(more.text)")
            let moved = try await s.request("PUT", "/v3/emojis/wink", body: ["url": "https://e.example/wink2.png"])
            #expect(moved.json["url"] as? String == "https://e.example/wink2.png", "\(moved.text)")
            let one = try await s.request("GET", "/v3/emojis/wink", headers: key)
            #expect(one.json["url"] as? String == "https://e.example/wink2.png")
            let bad = try await s.request("PUT", "/v3/emojis/wink", body: ["url": "javascript:alert(1)"])
            #expect(bad.json["code"] as? Int == 400111, "\(bad.text)")
            let notMine = try await s.request(
                "POST", "/v3/emojis", body: ["emoji_category_id": categoryId, "emojis": [["key": "x", "url": "https://e.example/x.png"]]],
                headers: key)
            #expect(notMine.status == 403, "\(notMine.text)")
            _ = try await s.request("DELETE", "/v3/emojis/cry")
            let all = try await s.request("GET", "/v3/emojis")
            #expect((all.json["emojis"] as? [[String: Any]])?.compactMap { $0["key"] as? String } == ["smile", "wink"], "\(all.text)")
            #expect((try await s.request("GET", "/v3/emoji_categories")).json["emoji_hash"] as? String != hash1)
            let use = try await s.request("PUT", "/v3/applications/settings/use_default_emoji", body: ["use_default_emoji": false])
            #expect(use.json["use_default_emoji"] as? Bool == false, "\(use.text)")

            // Reactions off: adding one is refused, removing still works; on again: accepted.
            let url = try await s.createChannel(["alice", "bob"])
            let sent = try await s.request(
                "POST", "/v3/group_channels/\(url)/messages", body: ["message_type": "MESG", "user_id": "alice", "message": "hi"])
            let id = (sent.json["message_id"] as? NSNumber)?.int64Value ?? 0
            let off = try await s.request("PUT", "/v3/applications/settings/reactions", body: ["enabled": false])
            #expect(off.json["reactions"] as? Bool == false, "\(off.text)")
            let refused = try await s.request(
                "POST", "/v3/group_channels/\(url)/messages/\(id)/reactions", body: ["user_id": "bob", "reaction": "smile"])
            #expect(refused.json["code"] as? Int == 400111, "\(refused.text)")
            _ = try await s.request("PUT", "/v3/applications/settings/reactions", body: ["enabled": true])
            let accepted = try await s.request(
                "POST", "/v3/group_channels/\(url)/messages/\(id)/reactions", body: ["user_id": "bob", "reaction": "smile"])
            #expect(accepted.status == 200, "\(accepted.text)")
            _ = try await s.request("DELETE", "/v3/emoji_categories/\(categoryId)")
            #expect((try await s.request("GET", "/v3/emoji_categories/\(categoryId)")).json["code"] as? Int == 400201)
        }
    }
}
