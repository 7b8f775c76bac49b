import TernKit
import Testing

@testable import TernTUI

/// A channel that stays open keeps its newest messages in memory; older ones are read back when scrolled to.
@Suite struct ScrollbackTests: TUIFixture {
    let reducer: Reducer = {
        var r = Reducer()
        r.scrollback = 40
        return r
    }()
    var limit: Int { reducer.scrollback }

    func message(_ id: Int, in url: String = "c1") -> Message {
        Message(messageId: Int64(id), channelUrl: url, text: "m\(id)", sender: bob, createdAt: t + Millis(id))
    }

    func receive(_ ids: ClosedRange<Int>, in url: String = "c1", _ s: inout AppState) {
        for id in ids { _ = reducer.reduce(&s, .event(.messageReceived(message(id, in: url)))) }
    }

    @Test func theNewestAreKeptAndTheRestReadBackWhenScrolledTo() {
        var s = teamChannel([(bob, "first")])
        receive(2...300, &s)
        let kept = s.messages["c1"]!
        #expect(kept.count >= limit && kept.count <= limit + limit / 4)
        #expect(kept.last?.messageId == 300)
        #expect(kept.map(\.messageId) == Array(Int64(300 - kept.count + 1)...300))
        #expect(s.hasPrevious["c1"] == true)
        // Scrolling to the top asks for what is before the oldest kept.
        s.pane = PaneSize(width: 80, height: 20)
        var effects: [Effect] = []
        for _ in 0..<500 where effects.isEmpty { effects = reducer.reduce(&s, .key(.pageUp)) }
        #expect(effects.contains(.loadHistory(channelUrl: "c1", before: kept.first!.createdAt)))
    }

    @Test func nothingLeavesWhileTheUserReadsBackOrHasPickedAMessage() {
        var s = teamChannel([(bob, "first")])
        s.pane = PaneSize(width: 80, height: 20)
        s.scroll = 5
        receive(2...200, &s)
        #expect(s.messages["c1"]!.count == 200)
        s.scroll = 0
        s.picker = MessagePicker()
        receive(201...210, &s)
        #expect(s.messages["c1"]!.count == 210)
        // Back at the bottom with nothing picked: the next message trims.
        s.picker = nil
        receive(211...211, &s)
        #expect(s.messages["c1"]!.count == limit && s.messages["c1"]!.last?.messageId == 211)
    }

    @Test func channelsNotOnScreenAreTrimmedAndOursNotSentStay() {
        var s = teamChannel([(bob, "first")])
        s.channels.append(GroupChannel(url: "c2", name: "other", members: [Member(user: alice), Member(user: bob)]))
        let pending = Message(messageId: 0, requestId: "r1", channelUrl: "c2", text: "mine", sender: alice, createdAt: t, status: .pending)
        s.messages["c2"] = [message(1, in: "c2"), pending]
        s.scroll = 3  // reading back in c1 does not keep c2's
        receive(2...150, in: "c2", &s)
        let list = s.messages["c2"]!
        #expect(list.count <= limit + limit / 4)
        #expect(list.last == pending)
        #expect(list.dropLast().last?.messageId == 150)
        #expect(s.hasPrevious["c2"] == true)
    }
}
