import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

@Suite("Platform API: profanity and domain filters")
struct ContentFilterTests {
    @Test("Filters replace or refuse: keywords with wildcards, regular expressions, domains; by custom type and globally")
    func filters() async throws {
        try await withServer({ $0.linkPreviews = false }) { s in
            let plain = try await s.newChannel(of: ["alice", "bob"])
            let kids = try await s.request("POST", "/v3/group_channels", body: ["user_ids": ["alice", "bob"], "custom_type": "kids"])
            let kidsUrl = kids.json["channel_url"] as? String ?? ""
            func send(_ url: String, _ text: String) async throws -> TestServer.HTTPResult {
                try await s.request(
                    "POST", "/v3/group_channels/\(url)/messages", body: ["message_type": "MESG", "user_id": "alice", "message": text])
            }
            let global = try await s.request(
                "PUT", "/v3/applications/settings_global",
                body: ["profanity_filter": ["keywords": ["darn", "heck*"], "regex_filters": [["regex": "b[a4]+d"]], "type": 1]])
            #expect(global.status == 200, "\(global.text)")
            let replaced = try await send(plain, "Darn it, heckin' baad day")
            #expect(replaced.json["message"] as? String == "**** it, ******' **** day", "\(replaced.text)")
            let clean = try await send(plain, "a fine day")
            #expect(clean.json["message"] as? String == "a fine day")
            // Channels of type "kids": words refused, a domain refused; the global list is checked too.
            let typed = try await s.request(
                "PUT", "/v3/applications/settings_global/kids",
                body: [
                    "profanity_filter": ["keywords": ["stupid"], "type": 2, "should_check_global": true],
                    "domain_filter": ["domains": ["example.com"], "type": 2],
                ])
            #expect(typed.json["custom_type"] as? String == "kids", "\(typed.text)")
            for text in ["you are stupid", "see www.example.com/x", "darn"] {
                let r = try await send(kidsUrl, text)
                if text == "darn" {
                    #expect(r.json["message"] as? String == "****", "the global replace still applies: \(r.text)")
                } else {
                    #expect(r.status == 400 && r.json["code"] as? Int == 900060, "\(text): \(r.text)")
                }
            }
            let nearMiss = try await send(kidsUrl, "notexample.com is fine")
            #expect(nearMiss.status == 200, "\(nearMiss.text)")
            // Over the WebSocket the refusal is an EROR with the same code; an edit is filtered too.
            let (alice, _) = try await s.login("alice")
            alice.send("MESG", ["channel_url": kidsUrl, "message": "so stupid", "req_id": "p1"])
            let eror = await alice.next("EROR")
            #expect(eror?["code"] as? Int == 900060, "\(String(describing: eror))")
            await alice.close()
            let id = (clean.json["message_id"] as? NSNumber)?.int64Value ?? 0
            let edit = try await s.request("PUT", "/v3/group_channels/\(plain)/messages/\(id)", body: ["message_type": "MESG", "message": "darn"])
            #expect(edit.json["message"] as? String == "****", "\(edit.text)")
            let bad = try await s.request(
                "PUT", "/v3/applications/settings_global", body: ["profanity_filter": ["regex_filters": [["regex": "(unclosed"]]]])
            #expect(bad.json["code"] as? Int == 400111, "\(bad.text)")
            let badType = try await s.request("PUT", "/v3/applications/settings_global", body: ["domain_filter": ["type": 7]])
            #expect(badType.json["code"] as? Int == 400111, "\(badType.text)")
        }
    }
}
