import Testing

@testable import TernKit

@Suite struct ChangeOutletTests {
    /// Nothing is kept before a listener asks for the stream; everything after, in order.
    @Test func changesAreKeptOnlyOnceSomeoneListens() async {
        let outlet = ChangeOutlet<Int>()
        for i in 0..<1_000 { outlet.yield(i) }
        #expect(!outlet.isListened)
        let stream = outlet.stream
        #expect(outlet.isListened)
        for i in 1_000..<1_005 { outlet.yield(i) }
        outlet.finish()
        #expect(!outlet.isListened)
        var seen: [Int] = []
        for await i in stream { seen.append(i) }
        #expect(seen == Array(1_000..<1_005))
    }

    /// One stream: asking again gives the same one, so no change is split between two readers.
    @Test func theStreamIsMadeOnce() async {
        let outlet = ChangeOutlet<Int>()
        let a = outlet.stream
        outlet.yield(1)
        let b = outlet.stream
        outlet.yield(2)
        outlet.finish()
        var seen: [Int] = []
        for await i in a { seen.append(i) }
        #expect(seen == [1, 2])
        var rest: [Int] = []
        for await i in b { rest.append(i) }
        #expect(rest.isEmpty)
    }

    /// A stream asked for after the collection was disposed ends at once.
    @Test func finishedBeforeListening() async {
        let outlet = ChangeOutlet<Int>()
        outlet.yield(1)
        outlet.finish()
        outlet.yield(2)
        var seen: [Int] = []
        for await i in outlet.stream { seen.append(i) }
        #expect(seen.isEmpty)
    }
}
