import Foundation
import Testing
import TernProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@testable import TernKit

@Suite("Engine: the server's emojis for the reaction palette")
struct EmojiEngineTests {
    @Test func emojiKeysComeFromTheServer() async throws {
        try await withLocalServer { server in
            let alice = server.client("alice")
            try await alice.connect()
            #expect(try await alice.emojiKeys() == [], "no emojis configured")
            var req = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/v3/emoji_categories")!)
            req.httpMethod = "POST"
            req.setValue(server.apiToken, forHTTPHeaderField: "Api-Token")
            req.setValue("application/json", forHTTPHeaderField: "Content-Type")
            req.httpBody = try JSONSerialization.data(withJSONObject: [
                "emoji_categories": [["name": "Faces", "emojis": [["key": "smile", "url": "https://e.example/s.png"], ["key": "party", "url": "https://e.example/p.png"]]]]
            ])
            _ = try await URLSession.shared.data(for: req)
            #expect(try await alice.emojiKeys() == ["smile", "party"])
            await alice.disconnect()
        }
    }
}
