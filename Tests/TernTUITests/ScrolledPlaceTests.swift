import TernKit
import TernProtocol
import TernTestSupport
import Testing

@testable import TernTUI

/// Reading back while messages arrive: what is on screen stays put, and only the lines from the first
/// message an event can touch are laid out again (``Reducer/untouchedPrefix(_:by:)``).
@Suite struct ScrolledPlaceTests: TUIFixture {
    let reducer = Reducer()

    /// A random message event in c1: a stored message, new or late (older than the newest), with a short
    /// or a wrapping text, maybe on another day; ours pending, then stored at a later time, or refused;
    /// a message seen again.
    func randomEvent(_ s: AppState, _ rng: inout SeededGenerator, next: inout Int64) -> ClientEvent {
        let shown = s.messages["c1"] ?? []
        let newest = shown.map(\.createdAt).max() ?? t
        let text =
            Bool.random(using: &rng) ? "short \(next)" : String(repeating: "wrapping words \(next) ", count: Int.random(in: 3...12, using: &rng))
        let late = Millis.random(in: 0...3, using: &rng) == 0
        let at =
            late
            ? newest - Millis.random(in: 0...20_000, using: &rng)
            : newest + Millis.random(in: 0...(Bool.random(using: &rng) ? 1_000 : 90_000_000), using: &rng)
        let pending = shown.filter { $0.status == .pending }
        switch Int.random(in: 0..<10, using: &rng) {
        case 0..<5:
            next += 1
            return .messageReceived(Message(messageId: next, channelUrl: "c1", text: text, sender: bob, createdAt: at))
        case 5, 6:
            next += 1
            return .messagePending(
                Message(messageId: 0, requestId: "r\(next)", channelUrl: "c1", text: text, sender: alice, createdAt: at, status: .pending))
        case 7, 8:
            guard var m = pending.randomElement(using: &rng) else { return randomEvent(s, &rng, next: &next) }
            next += 1
            m.messageId = next
            m.createdAt = newest + Millis.random(in: 0...5_000, using: &rng)
            m.status = .succeeded
            return .messageSent(m)
        default:
            if var m = pending.randomElement(using: &rng), Bool.random(using: &rng) {
                m.status = .failed
                return .messageFailed(m)
            }
            guard let seen = shown.randomElement(using: &rng), seen.status == .succeeded else { return randomEvent(s, &rng, next: &next) }
            return .messageReceived(seen)
        }
    }

    @Test("600 random message events while reading back: the scroll moves by exactly the lines added below, as a whole layout counts them")
    func theScrollFollowsTheWholeLayout() {
        for seed in 1...3 {
            var rng = SeededGenerator(seed: UInt64(seed))
            var s = teamChannel((0..<30).map { i in (i % 3 == 0 ? alice : bob, "line \(i)") })
            s.pane = PaneSize(width: 60, height: 12)
            s.scroll = 7
            var next: Int64 = 1_000
            for step in 0..<200 {
                let event = randomEvent(s, &rng, next: &next)
                var whole = s
                let before = reducer.layout.lineCount(whole, width: 60)
                _ = reducer.reduceAction(&whole, .event(event))
                let expected = max(0, s.scroll + reducer.layout.lineCount(whole, width: 60) - before)
                _ = reducer.reduce(&s, .event(event))
                #expect(s.scroll == expected, "seed \(seed), step \(step): \(event)")
                #expect(s.messages["c1"] == whole.messages["c1"])
                if s.scroll == 0 { s.scroll = 7 }
            }
        }
    }

    @Test("A reply counts under its parent, and a thread on screen: the whole layout is counted")
    func repliesAndThreadsAreCountedWhole() {
        var s = teamChannel([(bob, "parent"), (bob, "after")])
        var reply = Message(messageId: 50, channelUrl: "c1", text: "a reply", sender: bob, createdAt: t + 5_000)
        reply.parentMessageId = 1
        #expect(Reducer.untouchedPrefix(s, by: reply) == nil)
        let plain = Message(messageId: 51, channelUrl: "c1", text: "new", sender: bob, createdAt: t + 5_000)
        #expect(Reducer.untouchedPrefix(s, by: plain)?.prefix == 2)
        let late = Message(messageId: 52, channelUrl: "c1", text: "late", sender: bob, createdAt: t + 500)
        #expect(Reducer.untouchedPrefix(s, by: late)?.prefix == 1)
        s.messages["c1"]!.append(
            Message(messageId: 0, requestId: "r1", channelUrl: "c1", text: "mine", sender: alice, createdAt: t - 10, status: .pending))
        // Ours not yet stored stay last whatever their time: a stored one goes before them.
        #expect(Reducer.untouchedPrefix(s, by: plain)?.prefix == 2)
    }
}
