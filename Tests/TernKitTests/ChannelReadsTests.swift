import Testing

@testable import TernKit

/// Reads of single channels as a value: one fetch of an unknown channel, reads again, stale answers.
@Suite("Channel reads (value type: fetch once, read again, stale after a removal)")
struct ChannelReadsTests {
    /// A fetch of `url` that another event overtakes before it answers (the second event starts no fetch of its
    /// own): what the answer says.
    func overtakenFetch(_ r: inout ChannelReads, _ url: String = "c1") -> ChannelReads.FetchAnswer {
        let started = r.startFetch(url)
        let second = r.startFetch(url)
        #expect(started && !second, "one fetch at a time")
        return r.fetchAnswered(url, generation: r.generation(url))
    }

    @Test func anUnknownChannelIsFetchedOnceAndAnsweredCurrent() {
        var r = ChannelReads()
        #expect(!r.isReading("c1"))
        let started = r.startFetch("c1")
        #expect(started && r.isReading("c1"))
        let answer = r.fetchAnswered("c1", generation: 0)
        #expect(answer == .finish(current: true))
        r.fetchFinished("c1")
        #expect(!r.isReading("c1"))
    }

    @Test func anotherEventMeanwhileReadsAgainAFewTimesAtMost() {
        var r = ChannelReads()
        // A message names the channel while its read is on its way: no second fetch, but one more read; a busy
        // channel is read again maxRounds times at most, then announced.
        for _ in 0..<ChannelReads.maxRounds {
            let fetch = overtakenFetch(&r)
            #expect(fetch == .readAgain)
            #expect(!r.isReading("c1"))
        }
        let last = overtakenFetch(&r)
        #expect(last == .finish(current: true))
        r.fetchFinished("c1")
        // The count starts again for the next unknown stretch.
        let next = overtakenFetch(&r)
        #expect(next == .readAgain)
    }

    @Test func aRemovalMakesReadsOnTheirWayStale() {
        var r = ChannelReads()
        let started = r.startFetch("c1")
        let fetchGeneration = r.generation("c1")
        let refreshGeneration = r.startRefresh("c2")
        #expect(started && r.isReading("c2"))
        // Both channels leave the list (left, hidden…) before the answers come.
        r.removed("c1")
        r.removed("c2")
        let answer = r.fetchAnswered("c1", generation: fetchGeneration)
        #expect(answer == .finish(current: false))
        r.refreshAnswered("c2")
        #expect(r.generation("c2") != refreshGeneration && !r.isReading("c2"))
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
        #expect(!r.isReading("c1") && r == ChannelReads())
    }
}
