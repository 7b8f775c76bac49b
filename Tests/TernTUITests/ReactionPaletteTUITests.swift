import Foundation
import TernKit
import TernProtocol
import Testing

@testable import TernTUI

@Suite("The reaction palette")
struct ReactionPaletteTUITests {
    @Test func reactWithoutAKeyListsTheServersEmojis() {
        let t = ModerationTUITests()
        var s = t.state()
        // Alone: the server's emojis in an overlay, read again from the server (issue 30).
        #expect(t.submit("/react", &s) == [.loadEmojis])
        #expect(s.sheet == .emojis)
        _ = t.reducer.reduce(&s, .emojisLoaded(["smile", "party"]))
        #expect(Screen().overlayLines(s).lines.prefix(2).map(\.0) == [":smile:", ":party:"])
        _ = t.reducer.reduce(&s, .key(.escape))
        #expect(s.sheet == nil)
        #expect(t.submit("/react party", &s) == [.react(s.messages["c1"]![0], key: "party", add: true)])
    }
}
