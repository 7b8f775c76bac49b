import Foundation
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import TernProtocol
@testable import TernServer

/// ``SendPipeline`` with a store of its own: an `insert` that can hold a channel's batch as a
/// stalled database would (a lock another node holds, a `COMMIT` whose answer is lost).
@Suite("SendPipeline: group commit in order per channel; a stalled batch holds up only its own channels")
struct SendPipelineTests {
    /// Stores what it is given, numbering messages; a batch with a held channel waits until released.
    final class Store: Sendable {
        struct State {
            var nextId: Int64 = 1
            var batches: [[String]] = []
            var held: Set<String> = []
            var waiters: [CheckedContinuation<Void, Never>] = []
        }
        let state = Mutex(State())

        func hold(_ channel: String) { state.withLock { _ = $0.held.insert(channel) } }

        /// Releases every held channel, or only `channel`.
        func release(_ channel: String? = nil) {
            let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
                if let channel { s.held.remove(channel) } else { s.held = [] }
                defer { s.waiters = [] }
                return s.waiters
            }
            for w in waiters { w.resume() }
        }

        var batches: [[String]] { state.withLock { $0.batches } }

        /// Waits until a transaction is held (by `hold`) and waiting for `release`.
        func waitForHeldBatch() async throws {
            while state.withLock({ $0.waiters.isEmpty }) { try await Task.sleep(for: .milliseconds(1)) }
        }

        /// A pipeline over this store (its clock stands at 1 ms).
        func pipeline(lanes: Int? = nil, stallAfterMs: Int64? = nil) -> SendPipeline {
            if let lanes, let stallAfterMs {
                return SendPipeline(insert: { try await self.insert($0) }, clock: { 1 }, lanes: lanes, stallAfterMs: stallAfterMs)
            }
            return SendPipeline(insert: { try await self.insert($0) }, clock: { 1 })
        }

        func insert(_ batch: [NewMessage]) async throws -> [Result<StoredMessage, any Error>] {
            // A batch waits while any of its channels is held (a release wakes every waiter to look again).
            while state.withLock({ s in batch.contains { s.held.contains($0.channelUrl) } }) {
                await withCheckedContinuation { c in
                    let now = state.withLock { s -> Bool in
                        if batch.contains(where: { s.held.contains($0.channelUrl) }) {
                            s.waiters.append(c)
                            return false
                        }
                        return true
                    }
                    if now { c.resume() }
                }
            }
            return state.withLock { s in
                s.batches.append(batch.map(\.message))
                return batch.map { m in
                    defer { s.nextId += 1 }
                    return .success(StoredMessage(message: SendPipelineTests.record(m, id: s.nextId), duplicate: false, totals: [:]))
                }
            }
        }
    }

    static func record(_ m: NewMessage, id: Int64) -> MessageRecord {
        MessageRecord(
            messageId: id, channelUrl: m.channelUrl, type: m.type, senderId: m.senderId, message: m.message, customType: "", data: "",
            mentionType: "users", mentionedUserIds: [], silent: false, isOpMsg: false, createdAt: m.createdAt, updatedAt: 0, parentMessageId: 0)
    }

    /// The order of deliveries.
    final class Log: Sendable {
        let lines = Mutex<[String]>([])
        func add(_ s: String) { lines.withLock { $0.append(s) } }
        var all: [String] { lines.withLock { $0 } }
    }

    static func message(_ channel: String, _ text: String) -> NewMessage {
        NewMessage(
            channelUrl: channel, type: "MESG", senderId: "u", message: text, customType: "", data: "", mentionType: "users",
            mentionedUserIds: [], silent: false, isOpMsg: false, createdAt: 0, reqId: nil, persist: true, markSenderRead: true)
    }

    /// Sends `text` to `channel`; records the delivery order; returns the stored id.
    static func send(_ p: SendPipeline, _ channel: String, _ text: String, delivered: Log) async throws -> Int64 {
        let (stored, _) = try await p.submit(message(channel, text)) { stored in
            delivered.add(stored.message.message)
            return MessagePayload(
                type: "MESG", id: stored.message.messageId, message: stored.message.message, channelUrl: channel, createdAt: 0, user: nil)
        }
        return stored.message.messageId
    }

    /// Waits until `count` messages wait in the pipeline (their arrival order is then fixed).
    static func waitFor(_ p: SendPipeline, _ count: Int) async throws {
        while p.waiting < count { try await Task.sleep(for: .milliseconds(1)) }
    }

    /// A store, a pipeline on it, and its delivery log, with a first message "a1" sent to channel
    /// "a" and its transaction held by the store (`a1`: that send, answered once the store is released).
    static func firstSendHeld(lanes: Int? = nil, stallAfterMs: Int64? = nil) async throws -> (
        store: Store, p: SendPipeline, delivered: Log, a1: Task<Int64, any Error>
    ) {
        let store = Store()
        let p = store.pipeline(lanes: lanes, stallAfterMs: stallAfterMs)
        let delivered = Log()
        store.hold("a")
        let a1 = Task { try await send(p, "a", "a1", delivered: delivered) }
        try await store.waitForHeldBatch()
        return (store, p, delivered, a1)
    }

    @Test("One lane: what arrives during a write goes in the next transaction, in arrival order")
    func groupCommit() async throws {
        let (store, p, delivered, first) = try await Self.firstSendHeld()
        // While a1's transaction is held, three more arrive (b's too: one lane waits for it).
        async let b1 = Self.send(p, "b", "b1", delivered: delivered)
        try await Self.waitFor(p, 1)
        async let a2 = Self.send(p, "a", "a2", delivered: delivered)
        try await Self.waitFor(p, 2)
        async let b2 = Self.send(p, "b", "b2", delivered: delivered)
        try await Self.waitFor(p, 3)
        try await Task.sleep(for: .milliseconds(50))
        #expect(delivered.all.isEmpty, "nothing goes past the held batch with one lane")
        store.release()
        let ids = try await [first.value, b1, a2, b2]
        #expect(ids == [1, 2, 3, 4])
        #expect(store.batches == [["a1"], ["b1", "a2", "b2"]])
        #expect(delivered.all == ["a1", "b1", "a2", "b2"])
    }

    @Test("Several lanes: a stalled batch holds up its own channel only; that channel keeps its order")
    func stalledChannelAlone() async throws {
        let (store, p, delivered, a1) = try await Self.firstSendHeld(lanes: 4, stallAfterMs: 30)
        // a1 is stalled. b and c go ahead once it counts as stalled; a2 waits behind a1.
        async let a2 = Self.send(p, "a", "a2", delivered: delivered)
        try await Self.waitFor(p, 1)
        let b1 = try await Self.send(p, "b", "b1", delivered: delivered)
        let c1 = try await Self.send(p, "c", "c1", delivered: delivered)
        let b2 = try await Self.send(p, "b", "b2", delivered: delivered)
        #expect(b1 > 0 && c1 > 0 && b2 > b1)
        #expect(!delivered.all.contains("a1") && !delivered.all.contains("a2"), "channel a waits for its batch")
        store.release()
        let (x, y) = try await (a1.value, a2)
        #expect(x < y, "a's messages are stored in arrival order")
        let order = delivered.all
        #expect(order.firstIndex(of: "a1")! < order.firstIndex(of: "a2")!, "and delivered in it: \(order)")
        #expect(order.firstIndex(of: "b1")! < order.firstIndex(of: "b2")!)
        // No batch ever held a channel another batch in flight had: a2 came after a1's batch.
        #expect(store.batches.first { $0.contains("a2") }?.contains("a1") == false)
    }

    @Test("Several lanes, nothing stalled: one transaction at a time, as with one lane")
    func noStallOneAtATime() async throws {
        let (store, p, delivered, a1) = try await Self.firstSendHeld(lanes: 4, stallAfterMs: 60_000)
        async let b1 = Self.send(p, "b", "b1", delivered: delivered)
        try await Task.sleep(for: .milliseconds(50))
        #expect(delivered.all.isEmpty, "b waits: a's batch has not been in flight long enough to count as stalled")
        store.release()
        _ = try await (a1.value, b1)
        #expect(store.batches == [["a1"], ["b1"]])
    }

    @Test(
        "Several lanes: a batch of several channels is stored and acknowledged a channel at a time; a held channel holds up only its own messages",
        .timeLimit(.minutes(1)))
    func batchSplitByChannel() async throws {
        let (store, p, delivered, a1) = try await Self.firstSendHeld(lanes: 4, stallAfterMs: 60_000)
        // b1 and c1 arrive while a1's batch is in flight, so they make the next batch together;
        // b's lock is held (another node's transaction) when it runs.
        store.hold("b")
        async let b1 = Self.send(p, "b", "b1", delivered: delivered)
        try await Self.waitFor(p, 1)
        let c1 = Task { try await Self.send(p, "c", "c1", delivered: delivered) }
        try await Self.waitFor(p, 2)
        store.release("a")
        _ = try await a1.value
        let c = try await c1.value
        #expect(c > 0, "c1 is acknowledged while b's part of its batch waits")
        #expect(!delivered.all.contains("b1"))
        // b is not free until its part commits: b2 waits behind b1 and keeps the order.
        async let b2 = Self.send(p, "b", "b2", delivered: delivered)
        try await Self.waitFor(p, 1)
        store.release("b")
        let (x, y) = try await (b1, b2)
        #expect(x < y)
        #expect(delivered.all == ["a1", "c1", "b1", "b2"])
        #expect(store.batches == [["a1"], ["c1"], ["b1"], ["b2"]])
    }

    /// What an in-place store was given: each batch, and whether it ran inside a task.
    final class Seen: Sendable {
        let state = Mutex<(batches: [[String]], inTask: [Bool], onLoop: [Bool])>(([], [], []))
        var batches: [[String]] { state.withLock { $0.batches } }
        var inTask: [Bool] { state.withLock { $0.inTask } }
        var onLoop: [Bool] { state.withLock { $0.onLoop } }
    }

    /// A pipeline over a store that commits in place, whose first transaction waits for `gate`;
    /// records each batch and whether it ran inside a task.
    static func inPlacePipeline(
        gate: DispatchSemaphore, fail: Bool = false, writerFree: @escaping SendPipeline.WriterFree = { true }
    ) -> (SendPipeline, Seen) {
        let seen = Seen()
        let p = SendPipeline(
            insert: { _ in
                Issue.record("a store that commits in place is not driven from a task")
                return []
            },
            inPlace: { batch in
                if seen.state.withLock({ $0.batches.isEmpty }) { gate.wait() }
                let inTask = withUnsafeCurrentTask { $0 != nil }
                let onLoop = MultiThreadedEventLoopGroup.currentEventLoop != nil
                let first = seen.state.withLock { s -> Int in
                    s.batches.append(batch.map(\.message))
                    s.inTask.append(inTask)
                    s.onLoop.append(onLoop)
                    return s.batches.flatMap { $0 }.count - batch.count + 1
                }
                if fail { throw SendbirdError(.internalError, "disk full") }
                return batch.enumerated().map { i, m in
                    .success(StoredMessage(message: record(m, id: Int64(first + i)), duplicate: false, totals: [:]))
                }
            },
            writerFree: writerFree, clock: { 1 })
        return (p, seen)
    }

    @Test("In place: batches run on the pipeline's own thread, outside any task; what arrives during a write goes in the next, in order")
    func inPlace() async throws {
        let gate = DispatchSemaphore(value: 0)
        let (p, seen) = Self.inPlacePipeline(gate: gate)
        let delivered = Log()
        let a1 = Task { try await Self.send(p, "a", "a1", delivered: delivered) }
        // a1's transaction is under way (taken from the queue) and waits for the gate.
        while p.inFlightBatches == 0 { try await Task.sleep(for: .milliseconds(1)) }
        async let b1 = Self.send(p, "b", "b1", delivered: delivered)
        try await Self.waitFor(p, 1)
        async let a2 = Self.send(p, "a", "a2", delivered: delivered)
        try await Self.waitFor(p, 2)
        #expect(delivered.all.isEmpty)
        gate.signal()
        let ids = try await [a1.value, b1, a2]
        #expect(ids == [1, 2, 3])
        #expect(seen.batches == [["a1"], ["b1", "a2"]])
        #expect(seen.inTask == [false, false], "the store is driven from the pipeline's thread")
        #expect(delivered.all == ["a1", "b1", "a2"])
    }

    @Test("In place, idle, sent from an event loop: stored on that loop at once; what arrives meanwhile goes to the pipeline's thread")
    func inPlaceOnTheSendersLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let gate = DispatchSemaphore(value: 0)
        let (p, seen) = Self.inPlacePipeline(gate: gate)
        let delivered = Log()
        // a1 comes from a command task on a connection's loop (as the gateway runs them) and finds the pipeline idle.
        let a1 = Task(executorPreference: EventLoopTaskExecutor(loop)) { try await Self.send(p, "a", "a1", delivered: delivered) }
        while p.inFlightBatches == 0 { try await Task.sleep(for: .milliseconds(1)) }
        // While it is stored (the loop's thread holds it at the gate), b1 and a2 arrive from elsewhere.
        async let b1 = Self.send(p, "b", "b1", delivered: delivered)
        try await Self.waitFor(p, 1)
        async let a2 = Self.send(p, "a", "a2", delivered: delivered)
        try await Self.waitFor(p, 2)
        gate.signal()
        let ids = try await [a1.value, b1, a2]
        #expect(ids == [1, 2, 3])
        #expect(seen.batches == [["a1"], ["b1", "a2"]])
        #expect(seen.onLoop == [true, false], "a1 on its sender's loop, the batch that waited on the pipeline's thread")
        #expect(seen.inTask == [true, false])
        #expect(delivered.all == ["a1", "b1", "a2"])
        try await group.shutdownGracefully()
    }

    @Test("In place, idle, from an event loop, but another write holds the writer: stored on the pipeline's thread, not the loop")
    func inPlaceWriterBusy() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        // Open: the first transaction does not wait (a semaphore must end at its initial value).
        let gate = DispatchSemaphore(value: 0)
        gate.signal()
        let busy = Atomic<Bool>(true)
        let (p, seen) = Self.inPlacePipeline(gate: gate, writerFree: { !busy.load(ordering: .relaxed) })
        let delivered = Log()
        let a1 = Task(executorPreference: EventLoopTaskExecutor(loop)) { try await Self.send(p, "a", "a1", delivered: delivered) }
        _ = try await a1.value
        busy.store(false, ordering: .relaxed)
        let a2 = Task(executorPreference: EventLoopTaskExecutor(loop)) { try await Self.send(p, "a", "a2", delivered: delivered) }
        _ = try await a2.value
        #expect(seen.batches == [["a1"], ["a2"]])
        #expect(seen.onLoop == [false, true], "a1 waited for the writer on the pipeline's thread; a2 found it free and stayed on its loop")
        #expect(delivered.all == ["a1", "a2"])
        try await group.shutdownGracefully()
    }

    @Test("SQLite: the writer is busy while a write runs or waits for it, and free again after")
    func sqliteWriterBusy() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tern-writer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SQLiteStore(path: dir.appendingPathComponent("t.sqlite").path)
        #expect(store.writerIsFree)
        let entered = Atomic<Bool>(false)
        let release = DispatchSemaphore(value: 0)
        let first = Task {
            try await store.write { _ in
                entered.store(true, ordering: .relaxed)
                release.wait()
            }
        }
        // Waits without blocking a thread of the test pool (the write holds GRDB's writer queue until released).
        while !entered.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(1)) }
        #expect(!store.writerIsFree, "a write runs")
        // A second write waits behind the first; it counts as well.
        let second = Task { try await store.write { _ in } }
        release.signal()
        try await first.value
        try await second.value
        #expect(store.writerIsFree)
        try await store.close()
    }

    @Test("In place: a transaction that fails as a whole fails every message of its batch, and the next batch still runs")
    func inPlaceFailure() async throws {
        let gate = DispatchSemaphore(value: 0)
        let (p, seen) = Self.inPlacePipeline(gate: gate, fail: true)
        let delivered = Log()
        let a1 = Task { try await Self.send(p, "a", "a1", delivered: delivered) }
        while p.inFlightBatches == 0 { try await Task.sleep(for: .milliseconds(1)) }
        let b1 = Task { try await Self.send(p, "b", "b1", delivered: delivered) }
        try await Self.waitFor(p, 1)
        gate.signal()
        for send in [a1, b1] {
            await #expect(throws: SendbirdError.self) { try await send.value }
        }
        #expect(seen.batches == [["a1"], ["b1"]])
        #expect(delivered.all.isEmpty)
    }
}
