import Testing

@testable import TernKit

/// The channels on screen as a value: open ones are read, shown ones only kept current.
@Suite("Channels on screen (value type: open, shown, closed)")
struct ChannelsOnScreenTests {
    @Test func openShownAndClosed() {
        var s = ChannelsOnScreen()
        s.open("c1")
        s.show("c2")
        #expect(s.isViewing("c1") && !s.isViewing("c2"))
        #expect(s.all == ["c1", "c2"])
        // The terminal loses focus: the open channel is only shown; it comes back: open again.
        s.show("c1")
        #expect(!s.isViewing("c1") && s.all == ["c1", "c2"])
        s.open("c1")
        #expect(s.isViewing("c1"))
        s.close("c1")
        s.close("c2")
        #expect(s.all.isEmpty && s == ChannelsOnScreen())
    }
}
