import Foundation
import Synchronization
import Testing

@testable import TernServer

@Suite("Outbox, per-channel ordering, flood limit, query parsing")
struct ConcurrencyPartsTests {
    @Test("An outbox hands over everything queued at once, and cuts off a reader past its byte limit")
    func outbox() async {
        let o = Outbox(limit: 100)
        #expect(o.enqueue("MESG{}\n"))
        #expect(o.enqueue("READ{}\n"))
        let batch = await o.next()
        #expect(batch == ["MESG{}\n", "READ{}\n"])
        #expect(o.enqueue(String(repeating: "x", count: 60)))
        #expect(!o.enqueue(String(repeating: "y", count: 60)), "past 100 queued bytes the outbox overflows")
        #expect(o.closeReason == .overflow)
        #expect(await o.next() == nil, "nothing more is handed out after an overflow")
        #expect(!o.enqueue("late"))
    }

    @Test("A normal close still hands out what was queued, then ends; a waiting writer wakes")
    func outboxClose() async {
        let o = Outbox(limit: 1 << 20)
        let waiter = Task { await o.next() }
        try? await Task.sleep(for: .milliseconds(20))
        o.enqueue("A")
        #expect(await waiter.value == ["A"])
        o.enqueue("B")
        o.close()
        #expect(await o.next() == ["B"])
        #expect(await o.next() == nil)
    }

    @Test("Jobs with one key run one at a time in arrival order; other keys do not wait")
    func serialQueue() async {
        let q = KeyedSerialQueue()
        final class Log: Sendable { let entries = Mutex<[Int]>([]) }
        let log = Log()
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<50 {
                group.addTask {
                    await q.run("chan") {
                        log.entries.withLock { $0.append(i) }
                        await Task.yield()
                        log.entries.withLock { $0.append(i) }
                    }
                }
                // Let job i register before job i+1 so arrival order is defined.
                await Task.yield()
            }
        }
        let entries = log.entries.withLock { $0 }
        #expect(entries.count == 100)
        // Never interleaved: each job's two entries are adjacent.
        for pair in stride(from: 0, to: entries.count, by: 2) { #expect(entries[pair] == entries[pair + 1]) }
        let other = await q.run("another") { 42 }
        #expect(other == 42)
    }

    @Test("The flood limiter allows its rate with a burst of the same size, per user, with injected time")
    func rateLimiter() {
        let r = RateLimiter(perSecond: 5)
        let allowed = (0..<8).filter { _ in r.allow("u", nowMs: 1000) }.count
        #expect(allowed == 5)
        #expect(r.allow("other", nowMs: 1000), "users do not share a bucket")
        #expect(!r.allow("u", nowMs: 1100))
        #expect(r.allow("u", nowMs: 1200), "one token back after 200 ms at 5/s")
        #expect(RateLimiter(perSecond: 0).allow("u", nowMs: 0), "0 turns the limit off")
    }

    @Test("Query lists: JS-style (elements encoded, literal commas) and Python-style (commas encoded too); booleans in any case")
    func query() throws {
        let js = QueryParameters("custom_types=a%2Cb,c%20d&show_empty=True&limit=5")
        #expect(js.list("custom_types") == ["a,b", "c d"])
        #expect(try js.bool("show_empty", default: false))
        #expect(try js.int("limit", default: 10, range: 1...100) == 5)
        let py = QueryParameters("user_ids=alice%2Cbob&reverse=False")
        #expect(py.list("user_ids") == ["alice", "bob"])
        #expect(try !py.bool("reverse", default: true))
        #expect(throws: (any Error).self) { try QueryParameters("limit=500").int("limit", default: 10, range: 1...100) }
        #expect(throws: (any Error).self) { try QueryParameters("include=maybe").bool("include", default: false) }
        #expect(QueryParameters("name=a+b").string("name") == "a b")
    }
}
