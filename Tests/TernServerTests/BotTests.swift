import Foundation
import TernTestSupport
import Testing

@testable import TernServer

/// Issue 20 §2: bots, end to end: a callback on loopback hears the channel, the bot answers.
@Suite("Bots: callbacks on loopback, replies, privacy mode", .serialized)
struct BotTests {
    @Test("A bot joins a channel, hears a member's message at its callback (signed), and its reply reaches the member")
    func botRepliesThroughItsCallback() async throws {
        try await running(try await HookReceiver()) { receiver in
            try await withServer({ $0.linkPreviews = false }) { s in
                let url = try await s.newChannel(of: ["alice", "bob"])
                let made = try await s.request(
                    "POST", "/v3/bots",
                    body: ["bot_userid": "helper", "bot_nickname": "Helper", "bot_callback_url": receiver.url, "bot_type": "assistant"])
                #expect(made.status == 200, "\(made.text)")
                #expect(((made.json["bot"] as? [String: Any])?["bot_token"] as? String)?.isEmpty == false, "\(made.text)")
                let taken = try await s.request(
                    "POST", "/v3/bots", body: ["bot_userid": "alice", "bot_nickname": "A", "bot_callback_url": receiver.url])
                #expect(taken.json["code"] as? Int == 400202, "a bot id is a user id: \(taken.text)")
                let badURL = try await s.request(
                    "POST", "/v3/bots", body: ["bot_userid": "b2", "bot_nickname": "B", "bot_callback_url": "gopher://x"])
                #expect(badURL.json["code"] as? Int == 400111, "\(badURL.text)")
                let joined = try await s.request("POST", "/v3/bots/helper/channels", body: ["channel_urls": [url]])
                #expect((joined.json["channels"] as? [[String: Any]])?.first?["channel_url"] as? String == url, "\(joined.text)")
                let listed = try await s.request("GET", "/v3/bots")
                #expect((listed.json["bots"] as? [[String: Any]])?.count == 1, "\(listed.text)")

                let (alice, _) = try await s.login("alice")
                alice.send("MESG", ["channel_url": url, "message": "what time is it?", "req_id": "q"])
                let hits = await receiver.wait(for: 1)
                #expect(hits.count == 1)
                let hit = hits.first
                #expect(hit?.signature == WebhookDispatcher.signature(hit?.body ?? Data(), key: s.apiToken))
                let event = hit?.json ?? [:]
                #expect(event["category"] as? String == "bot_message_notification", "\(event)")
                #expect((event["message"] as? [String: Any])?["text"] as? String == "what time is it?")
                #expect((event["bot"] as? [String: Any])?["bot_userid"] as? String == "helper")
                #expect((event["sender"] as? [String: Any])?["user_id"] as? String == "alice")
                // The bot answers through the Platform API; Alice's socket gets it from the bot.
                let reply = try await s.request("POST", "/v3/bots/helper/send", body: ["channel_url": url, "message": "tea time"])
                #expect(reply.status == 200, "\(reply.text)")
                let got = await alice.next("MESG", where: { $0["message"] as? String == "tea time" })
                #expect((got?["user"] as? [String: Any])?["user_id"] as? String == "helper", "\(String(describing: got))")
                // Its own message does not come back to it.
                try await Task.sleep(for: .milliseconds(300))
                #expect(receiver.hitCount == 1)
                await alice.close()

                // Privacy mode: only commands and mentions.
                let priv = try await s.request("PUT", "/v3/bots/helper", body: ["is_privacy_mode": true])
                #expect(priv.json["is_privacy_mode"] as? Bool == true, "\(priv.text)")
                for text in ["just chatting", "/weather"] {
                    _ = try await s.request(
                        "POST", "/v3/group_channels/\(url)/messages", body: ["message_type": "MESG", "user_id": "bob", "message": text])
                }
                let after = await receiver.wait(for: 2)
                #expect(after.count == 2)
                #expect((after.last?.json["message"] as? [String: Any])?["text"] as? String == "/weather")

                let left = try await s.request("DELETE", "/v3/bots/helper/channels/\(url)")
                #expect(left.status == 200, "\(left.text)")
                let member = try await s.request("GET", "/v3/group_channels/\(url)/members/helper")
                #expect(member.json["is_member"] as? Bool == false, "\(member.text)")
                let gone = try await s.request("DELETE", "/v3/bots/helper")
                #expect(gone.status == 200)
                #expect((try await s.request("GET", "/v3/bots/helper")).json["code"] as? Int == 400201)
                #expect((try await s.request("GET", "/v3/users/helper")).json["code"] as? Int == 400201)
            }
        }
    }
}
