import Foundation
import TernKit
import Testing

@testable import TernTUI

/// The channel list's order after each change: the reducer puts a changed channel back in its place
/// rather than sorting the whole list (a message moves one channel on every incoming line), and the
/// result must be the list sorted whole, whatever order it was in.
@Suite("Channel list order: a channel put back in its place equals the list sorted whole")
struct ChannelOrderTests: TUIFixture {
    let reducer = Reducer()

    func channel(_ n: Int, at seconds: Int64, invited: Bool) -> GroupChannel {
        var c = GroupChannel(url: "c\(n)", name: "c\(n)", members: [])
        c.createdAt = seconds
        c.myMemberState = invited ? "invited" : "joined"
        return c
    }

    func sortedWhole(_ channels: [GroupChannel]) -> [String] {
        channels.sorted { a, b in
            let ai = a.myMemberState == "invited"
            let bi = b.myMemberState == "invited"
            if ai != bi { return ai }
            return a.lastActivity != b.lastActivity ? a.lastActivity > b.lastActivity : a.url < b.url
        }.map(\.url)
    }

    @Test func randomChangesFromSortedAndUnsortedLists() {
        var rng = SystemRandomNumberGenerator()
        for round in 0..<200 {
            var state = aliceAtTheKeyboard()
            var latest: [String: GroupChannel] = [:]
            // Half the rounds start from a list assigned out of order (as tests and restores may).
            if round % 2 == 0 {
                let start = (0..<Int.random(in: 0...8, using: &rng)).map {
                    channel($0, at: Int64.random(in: 0...5, using: &rng), invited: Bool.random(using: &rng))
                }
                state.channels = start.shuffled(using: &rng)
                for c in start { latest[c.url] = c }
            }
            for _ in 0..<30 {
                // Few distinct times, so that ties (broken by URL) are common.
                let c = channel(
                    Int.random(in: 0..<12, using: &rng), at: Int64.random(in: 0...5, using: &rng), invited: Int.random(in: 0..<5, using: &rng) == 0)
                reducer.upsert(c, &state)
                latest[c.url] = c
                #expect(state.channels.map(\.url) == sortedWhole(Array(latest.values)))
                #expect(Set(state.channels.map(\.url)).count == state.channels.count, "each channel once")
            }
        }
    }

    @Test func aNewMessageMovesItsChannelToTheTop() {
        var state = aliceAtTheKeyboard()
        for n in 0..<5 { reducer.upsert(channel(n, at: Int64(n), invited: false), &state) }
        reducer.upsert(channel(9, at: 1, invited: true), &state)
        #expect(state.channels.map(\.url) == ["c9", "c4", "c3", "c2", "c1", "c0"])
        reducer.upsert(channel(1, at: 10, invited: false), &state)
        #expect(state.channels.map(\.url) == ["c9", "c1", "c4", "c3", "c2", "c0"], "below the invitation, above the rest")
    }
}
