import Testing

@testable import TernKit

/// Reads of single channels as a value: one fetch of an unknown channel, reads again, stale answers.
@Suite("Channel reads (value type: fetch once, read again, stale after a removal)")
struct ChannelReadsTests {
    @Test func anUnknownChannelIsFetchedOnceAndAnsweredCurrent() {
        var r = ChannelReads()
        #expect(!r.isReading("c1"))
        let v1 = r.startFetch("c1")
        #expect(v1)
        #expect(r.isReading("c1"))
        let v2 = r.fetchAnswered("c1", generation: 0)
        #expect(v2 == .finish(current: true))
        r.fetchFinished("c1")
        #expect(!r.isReading("c1"))
    }

    @Test func anotherEventMeanwhileReadsAgainAFewTimesAtMost() {
        var r = ChannelReads()
        let v3 = r.startFetch("c1")
        #expect(v3)
        // A message names the channel while its read is on its way: no second fetch, but one more read.
        let v4 = r.startFetch("c1")
        #expect(!v4)
        let v5 = r.fetchAnswered("c1", generation: 0)
        #expect(v5 == .readAgain)
        #expect(!r.isReading("c1"))
        // A busy channel: every read is overtaken by another event; after maxRounds more reads it is announced.
        for _ in 1..<ChannelReads.maxRounds {
            let v6 = r.startFetch("c1")
            #expect(v6)
            let v7 = r.startFetch("c1")
            #expect(!v7)
            let v8 = r.fetchAnswered("c1", generation: 0)
            #expect(v8 == .readAgain)
        }
        let v9 = r.startFetch("c1")
        #expect(v9)
        let v10 = r.startFetch("c1")
        #expect(!v10)
        let v11 = r.fetchAnswered("c1", generation: 0)
        #expect(v11 == .finish(current: true))
        r.fetchFinished("c1")
        // The count starts again for the next unknown stretch.
        let v12 = r.startFetch("c1")
        #expect(v12)
        let v13 = r.startFetch("c1")
        #expect(!v13)
        let v14 = r.fetchAnswered("c1", generation: 0)
        #expect(v14 == .readAgain)
    }

    @Test func aRemovalMakesReadsOnTheirWayStale() {
        var r = ChannelReads()
        let v15 = r.startFetch("c1")
        #expect(v15)
        let fetchGeneration = r.generation("c1")
        let refreshGeneration = r.startRefresh("c2")
        #expect(r.isReading("c2"))
        // Both channels leave the list (left, hidden…) before the answers come.
        r.removed("c1")
        r.removed("c2")
        let v16 = r.fetchAnswered("c1", generation: fetchGeneration)
        #expect(v16 == .finish(current: false))
        r.refreshAnswered("c2")
        #expect(r.generation("c2") != refreshGeneration)
        #expect(!r.isReading("c2"))
        // Another channel is untouched.
        #expect(r.generation("c3") == 0)
    }

    @Test func reReadsInFlightAreCounted() {
        var r = ChannelReads()
        _ = r.startRefresh("c1")
        _ = r.startRefresh("c1")
        r.refreshAnswered("c1")
        #expect(r.isReading("c1"))
        r.refreshAnswered("c1")
        #expect(!r.isReading("c1"))
        #expect(r == ChannelReads())
    }
}
