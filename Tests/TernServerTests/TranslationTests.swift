import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

@Suite("Platform API: translation through a pluggable provider")
struct TranslationTests {
    @Test("With --translation-command each target language is asked of the provider; without one, 400111; outsiders refused")
    func translation() async throws {
        try await withServer(
            users: ["alice", "bob", "mallory"],
            {
                $0.linkPreviews = false
                $0.translationCommand = "printf '%s:' \"$TERN_TARGET_LANG\"; tr a-z A-Z"
            }
        ) { s in
            let url = try await s.createChannel(["alice", "bob"])
            let sent = try await s.request(
                "POST", "/v3/group_channels/\(url)/messages", body: ["message_type": "MESG", "user_id": "alice", "message": "good morning"])
            let id = (sent.json["message_id"] as? NSNumber)?.int64Value ?? 0
            let r = try await s.request("POST", "/v3/group_channels/\(url)/messages/\(id)/translation", body: ["target_langs": ["de", "fr"]])
            #expect(r.json["translations"] as? [String: String] == ["de": "de:GOOD MORNING", "fr": "fr:GOOD MORNING"], "\(r.text)")
            #expect(r.json["message"] as? String == "good morning")
            let (sock, login) = try await s.login("mallory")
            await sock.close()
            let outsider = try await s.request(
                "POST", "/v3/group_channels/\(url)/messages/\(id)/translation", body: ["target_langs": ["de"]],
                headers: ["Session-Key": login["key"] as? String ?? ""])
            #expect(outsider.json["code"] as? Int == 400108, "\(outsider.text)")
            let bad = try await s.request("POST", "/v3/group_channels/\(url)/messages/\(id)/translation", body: ["target_langs": ["de; rm -rf /"]])
            #expect(bad.json["code"] as? Int == 400111, "\(bad.text)")
        }
        try await withServer { s in
            let url = try await s.newChannel(of: ["alice"])
            let sent = try await s.request(
                "POST", "/v3/group_channels/\(url)/messages", body: ["message_type": "MESG", "user_id": "alice", "message": "hi"])
            let id = (sent.json["message_id"] as? NSNumber)?.int64Value ?? 0
            let none = try await s.request("POST", "/v3/group_channels/\(url)/messages/\(id)/translation", body: ["target_langs": ["de"]])
            #expect(none.json["code"] as? Int == 400111 && none.text.contains("translation provider"), "\(none.text)")
        }
    }
}
