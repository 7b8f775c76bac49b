import Testing

@testable import TernKit

/// The catch-up after each login as a value: runs that supersede each other, channels current or not.
@Suite("Catch-up (value type: runs, channels current on this connection)")
struct CatchUpTests {
    @Test func aNewerRunSupersedesAnOlderOne() {
        var c = CatchUp()
        let first = c.startRun()
        #expect(c.isCurrent(first))
        let second = c.startRun()
        #expect(!c.isCurrent(first) && c.isCurrent(second))
    }

    @Test func channelsAreCurrentUntilTheConnectionGoesOrTheyLeave() {
        var c = CatchUp()
        _ = c.startRun()
        c.markSynced("c1")
        c.markSynced("c2")
        #expect(c.isSynced("c1") && c.isSynced("c2") && !c.isSynced("c3"))
        c.forget("c2")
        #expect(!c.isSynced("c2"))
        c.connectionLost()
        #expect(!c.isSynced("c1"))
        // A new login starts with none current either.
        c.markSynced("c1")
        _ = c.startRun()
        #expect(!c.isSynced("c1"))
    }

    @Test func theLoginTimeAndTokenAreKept() {
        var c = CatchUp()
        c.loginTs = 1_795_300_000_000
        c.channelChangelogToken = "t-1"
        _ = c.startRun()
        c.connectionLost()
        #expect(c.loginTs == 1_795_300_000_000 && c.channelChangelogToken == "t-1")
    }
}
