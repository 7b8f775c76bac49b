import Foundation
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Synchronization
import Testing

@testable import TernServer

@Suite("Outbox, per-channel ordering, flood limit, query parsing")
struct ConcurrencyPartsTests {
    /// An outbox on a real NIO channel (an embedded one: its event loop runs when told).
    func embeddedOutbox(limit: Int, maxMessage: Int = 1 << 20) throws -> (Outbox, EmbeddedChannel) {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        let flusher = LoopFlusher(loop: channel.embeddedEventLoop, coalescing: .zero)
        return (Outbox(limit: limit, maxMessage: maxMessage, channel: channel, flusher: flusher), channel)
    }

    func texts(_ channel: EmbeddedChannel) throws -> [String] {
        var out: [String] = []
        while let frame = try channel.readOutbound(as: WebSocketFrame.self) {
            #expect(frame.opcode == .text && frame.fin)
            out.append(String(buffer: frame.data))
        }
        return out
    }

    @Test("An outbox writes everything queued before its loop's turn as one WebSocket message, flushed once")
    func outbox() throws {
        let (o, channel) = try embeddedOutbox(limit: 100)
        #expect(o.enqueue("MESG{}\n"))
        #expect(o.enqueue { $0.writeString("READ{}\n") })
        #expect(try texts(channel).isEmpty, "nothing is written before the event loop runs")
        channel.embeddedEventLoop.run()
        #expect(try texts(channel) == ["MESG{}\nREAD{}\n"])
        #expect(o.queuedBytes == 0)
        o.enqueue("PONG{}\n")
        channel.embeddedEventLoop.run()
        #expect(try texts(channel) == ["PONG{}\n"])
    }

    @Test("A peer that stops reading keeps frames queued until writable again; past the byte limit it is cut off")
    func outboxBackpressure() throws {
        let (o, channel) = try embeddedOutbox(limit: 100)
        channel.isWritable = false
        #expect(o.enqueue(String(repeating: "x", count: 60)))
        channel.embeddedEventLoop.run()
        #expect(try texts(channel).isEmpty, "not writable: the bytes wait in the outbox")
        #expect(o.queuedBytes == 60)
        channel.isWritable = true
        o.writabilityChanged()
        #expect(try texts(channel) == [String(repeating: "x", count: 60)])
        channel.isWritable = false
        #expect(o.enqueue(String(repeating: "y", count: 60)))
        #expect(!o.enqueue(String(repeating: "z", count: 60)), "past 100 queued bytes the outbox overflows")
        #expect(o.closeReason == .overflow)
        #expect(!o.enqueue("late"))
        channel.isWritable = true
        o.writabilityChanged()
        #expect(try texts(channel).isEmpty, "nothing more is written after an overflow")
    }

    @Test("Frames are grouped into messages no larger than the frame limit; a normal close still drains")
    func outboxMessageSize() throws {
        let (o, channel) = try embeddedOutbox(limit: 1 << 20, maxMessage: 10)
        o.enqueue("aaaaaa")
        o.enqueue("bbbbbb")
        o.enqueue(String(repeating: "c", count: 12))
        o.enqueue("d")
        channel.embeddedEventLoop.run()
        #expect(try texts(channel) == ["aaaaaa", "bbbbbb", String(repeating: "c", count: 12), "d"])
        o.enqueue("EROR{}\n")
        o.close()
        #expect(!o.enqueue("after close"))
        channel.embeddedEventLoop.run()
        #expect(try texts(channel) == ["EROR{}\n"], "what was queued before a normal close is still written")
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
        // A key given several times (the legacy Python SDK's lists): every value counts for a list, the first for one value.
        let repeated = QueryParameters("ip_whitelist_addresses=10.0.0.1&ip_whitelist_addresses=10.0.0.2%2C10.0.0.3&limit=5&limit=7")
        #expect(repeated.list("ip_whitelist_addresses") == ["10.0.0.1", "10.0.0.2", "10.0.0.3"])
        #expect(try repeated.int("limit", default: 10, range: 1...100) == 5)
    }
}
