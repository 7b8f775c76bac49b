import TernTestSupport
import Testing

@testable import TernKit

@Suite("Engine: the server's emojis for the reaction palette")
struct EmojiEngineTests {
    @Test func emojiKeysComeFromTheServer() async throws {
        try await withLocalServer { server in
            let alice = try await server.connectedClient("alice")
            #expect(try await alice.emojiKeys() == [], "no emojis configured")
            _ = try await server.platform(
                "POST", "/v3/emoji_categories",
                [
                    "emoji_categories": [
                        [
                            "name": "Faces",
                            "emojis": [["key": "smile", "url": "https://e.example/s.png"], ["key": "party", "url": "https://e.example/p.png"]],
                        ]
                    ]
                ])
            #expect(try await alice.emojiKeys() == ["smile", "party"])
            await alice.disconnect()
        }
    }
}
