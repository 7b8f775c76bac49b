import Testing

@testable import TernServer

@Suite("Open channel state")
struct OpenChannelStateTests {
    @Test("A count push is scheduled once per channel until it goes")
    func countPushes() {
        let state = OpenChannelState(messagesPerSecond: 5)
        #expect(state.countChanged("lobby"))
        #expect(!state.countChanged("lobby"), "one push pending already")
        #expect(state.countChanged("den"))
        state.countPushed("lobby")
        #expect(state.countChanged("lobby"))
    }

    @Test("The broadcast limit is per channel")
    func broadcast() {
        let state = OpenChannelState(messagesPerSecond: 1)
        #expect(state.mayBroadcast("lobby", nowMs: 0))
        #expect(!state.mayBroadcast("lobby", nowMs: 0))
        #expect(state.mayBroadcast("den", nowMs: 0))
        #expect(state.mayBroadcast("lobby", nowMs: 1000))
    }
}
