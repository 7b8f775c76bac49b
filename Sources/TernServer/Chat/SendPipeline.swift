import NIOPosix
import Synchronization
import TernProtocol

/// Group commit for new messages, per store: the messages that arrive while a write is in flight
/// are stored together in the next transaction, and each is acknowledged only after that commit
/// (guarantee G1).
///
/// Order is kept per channel: a channel is in at most one batch at a time, the messages of a batch
/// are stored in arrival order (ids and `created_at` follow it), and each message's `deliver` runs
/// right after the commit, in that same order. `deliver` is synchronous (present, encode, hand the
/// bytes to the recipients' outboxes), so every recipient gets a channel's messages in id order.
/// What may wait (threads, webhooks, bots) follows in the sender's own task.
///
/// Normally one batch is in flight at a time (the cheapest at every load: one transaction for
/// whatever arrived meanwhile, and unread totals read in one consistent order). A batch that has
/// not committed after ``stallAfterMs`` — a channel locked by another node that stopped, a lost
/// `COMMIT` answer, a slow database link — no longer holds up the other channels: up to ``lanes``
/// batches run at once, each with channels no other batch in flight has (so they never wait for
/// each other's locks), and only the stalled batch's channels wait for it (issue 34).
///
/// A store that commits in place (``InPlaceMessageInsert``: SQLite) is driven from one thread of
/// the pipeline's own: a batch is stored, delivered and acknowledged there, and the next taken, with
/// no task and no dispatch queue in between (the commit was two wake-ups of other threads). A
/// message that finds the pipeline idle, sent from an event loop (a connection's command runs on
/// its loop), is stored there at once: the sender's thread runs its one-message batch, delivers it
/// and resumes the command without waking the pipeline's thread and then the loop again (issue 35:
/// at low rates those two wake-ups were a large part of a message's cost). What arrives meanwhile
/// queues as usual and goes to the pipeline's thread. With SQLite's `synchronous = NORMAL` a commit
/// does not wait for the disk, so the loop is held for the transaction's CPU time only; while another
/// write runs or waits (a Platform API call's, the search index's), the message goes to the
/// pipeline's thread instead, so no loop waits for a write it did not start. Other stores
/// (PostgreSQL, whose statements wait on the network) are driven from tasks.
final class SendPipeline: Sendable {
    typealias Deliver = @Sendable (StoredMessage) throws -> MessagePayload
    typealias Insert = @Sendable ([NewMessage]) async throws -> [Result<StoredMessage, any Error>]
    typealias InsertInPlace = @Sendable ([NewMessage]) throws -> [Result<StoredMessage, any Error>]
    /// Whether the store's writer is free now (no other write running or waiting).
    typealias WriterFree = @Sendable () -> Bool

    struct Item {
        var message: NewMessage
        let deliver: Deliver
        let continuation: CheckedContinuation<(StoredMessage, MessagePayload), any Error>
    }

    struct State {
        /// Messages not yet taken into a batch, in arrival order.
        var pending: [Item] = []
        /// Channels of the batches in flight.
        var busy: Set<String> = []
        /// When each batch in flight started, by batch number.
        var started: [Int: ContinuousClock.Instant] = [:]
        var nextBatch = 0
        /// Whether a check for a stalled batch is scheduled.
        var watching = false
    }

    let state = Mutex(State())
    /// Messages taken into a batch and not yet delivered, by channel (kept only with
    /// `tracksChannels`: on several nodes, for ``isStoring(_:)``).
    let inFlight = Mutex<[String: Int]>([:])
    let tracksChannels: Bool
    /// Told when no message of a channel is being stored or delivered any more (with `tracksChannels`).
    let channelDone: (@Sendable (String) -> Void)?
    let insert: Insert
    /// With a store that commits in place: the insert, whether the writer is free, and the thread
    /// that runs the batches.
    let inPlace: (insert: InsertInPlace, writerFree: WriterFree, thread: NIOThreadPool)?
    let clock: @Sendable () -> Int64
    /// The most batches in flight at once (1: strictly one after another, as on SQLite's single writer).
    let lanes: Int
    /// How long a batch may take before the channels it does not hold go ahead without it.
    let stallAfterMs: Int64
    /// The most messages one transaction takes (the rest go in the next).
    static let maxBatch = 512

    init(
        insert: @escaping Insert, inPlace: InsertInPlace? = nil, writerFree: @escaping WriterFree = { true },
        clock: @escaping @Sendable () -> Int64, tracksChannels: Bool = false, channelDone: (@Sendable (String) -> Void)? = nil, lanes: Int = 1,
        stallAfterMs: Int64 = 250
    ) {
        self.insert = insert
        self.clock = clock
        self.tracksChannels = tracksChannels
        self.channelDone = channelDone
        self.lanes = max(1, lanes)
        self.stallAfterMs = stallAfterMs
        // One lane only: batches in place run one after another on the one thread.
        if let inPlace, self.lanes == 1 {
            let thread = NIOThreadPool(numberOfThreads: 1)
            thread.start()
            self.inPlace = (inPlace, writerFree, thread)
        } else {
            self.inPlace = nil
        }
    }

    convenience init(
        store: any MessageStore, clock: @escaping @Sendable () -> Int64, tracksChannels: Bool = false,
        channelDone: (@Sendable (String) -> Void)? = nil, lanes: Int = 1
    ) {
        let inPlaceStore = store as? any InPlaceMessageInsert
        let inPlace = inPlaceStore.map { s in { @Sendable batch in try s.insertMessagesInPlace(batch) } as InsertInPlace }
        self.init(
            insert: { try await store.insertMessages($0) }, inPlace: inPlace, writerFree: { inPlaceStore?.writerIsFree ?? false }, clock: clock,
            tracksChannels: tracksChannels, channelDone: channelDone, lanes: lanes)
    }

    deinit { inPlace?.thread.shutdownGracefully { _ in } }

    /// Stores `message` (its `createdAt` is set here, in commit order) and runs `deliver` after the
    /// commit. Returns the stored message and what `deliver` returned.
    func submit(_ message: NewMessage, deliver: @escaping Deliver) async throws -> (StoredMessage, MessagePayload) {
        try await withCheckedThrowingContinuation { continuation in
            let (batches, watch) = state.withLock { s -> ([(Int, [Item])], Bool) in
                s.pending.append(Item(message: message, deliver: deliver, continuation: continuation))
                return (take(&s), watchIfNeeded(&s))
            }
            // Idle (this message started the only batch), on an event loop and the writer free (no
            // other kind of write to wait for, which would hold every connection of this loop):
            // store it here.
            if let inPlace, batches.count == 1, MultiThreadedEventLoopGroup.currentEventLoop != nil, inPlace.writerFree() {
                runInPlace(batches[0].0, batches[0].1, here: true)
                start([], watch: watch)
            } else {
                start(batches, watch: watch)
            }
        }
    }

    /// Messages not yet taken into a batch (tests wait for arrivals with it).
    var waiting: Int { state.withLock { $0.pending.count } }

    /// Batches being stored now.
    var inFlightBatches: Int { state.withLock { $0.started.count } }

    /// Whether a message of `channelUrl` is being stored or delivered now.
    func isStoring(_ channelUrl: String) -> Bool { inFlight.withLock { $0[channelUrl] != nil } }

    /// The batches that may start now: the first whenever none is in flight; more (up to
    /// ``lanes``) only while every batch in flight is older than ``stallAfterMs``. Each takes
    /// pending messages in arrival order whose channels no batch in flight has; a channel that
    /// must wait keeps all its later messages waiting too (its order).
    func take(_ s: inout State) -> [(Int, [Item])] {
        var out: [(Int, [Item])] = []
        while !s.pending.isEmpty, s.started.count < lanes {
            if !s.started.isEmpty {
                let now = ContinuousClock.now
                guard s.started.values.allSatisfy({ now - $0 >= .milliseconds(stallAfterMs) }) else { break }
            }
            var taken: [Item] = []
            var rest: [Item] = []
            var waiting = Set<String>()
            for item in s.pending {
                let channel = item.message.channelUrl
                if taken.count < Self.maxBatch, !s.busy.contains(channel), !waiting.contains(channel) {
                    taken.append(item)
                } else {
                    rest.append(item)
                    waiting.insert(channel)
                }
            }
            if taken.isEmpty { break }
            let now = clock()
            for i in taken.indices {
                taken[i].message.createdAt = now
                taken[i].message.stampedNow = true
                s.busy.insert(taken[i].message.channelUrl)
            }
            s.pending = rest
            let number = s.nextBatch
            s.nextBatch += 1
            s.started[number] = .now
            out.append((number, taken))
        }
        return out
    }

    /// Whether to look again after ``stallAfterMs``: messages wait behind a batch in flight that
    /// another lane could take.
    func watchIfNeeded(_ s: inout State) -> Bool {
        guard lanes > 1, !s.watching, !s.started.isEmpty, s.started.count < lanes,
            s.pending.contains(where: { !s.busy.contains($0.message.channelUrl) })
        else { return false }
        s.watching = true
        return true
    }

    func start(_ batches: [(Int, [Item])], watch: Bool) {
        for (number, batch) in batches {
            if let thread = inPlace?.thread {
                thread.submit { _ in self.runInPlace(number, batch) }
            } else {
                Task { await self.run(number, batch) }
            }
        }
        if watch {
            let wait = stallAfterMs
            Task {
                try? await Task.sleep(for: .milliseconds(wait))
                let (batches, again) = self.state.withLock { s -> ([(Int, [Item])], Bool) in
                    s.watching = false
                    return (self.take(&s), self.watchIfNeeded(&s))
                }
                self.start(batches, watch: again)
            }
        }
    }

    /// Stores one batch and delivers it; then takes what waited, going on in this task with the
    /// first of the new batches.
    func run(_ number: Int, _ batch: [Item]) async {
        var current: (Int, [Item])? = (number, batch)
        while let (number, batch) = current {
            if lanes > 1, let first = batch.first?.message.channelUrl, batch.contains(where: { $0.message.channelUrl != first }) {
                await storeByChannel(batch)
            } else {
                await store(batch)
                state.withLock { s in for item in batch { s.busy.remove(item.message.channelUrl) } }
            }
            let (next, watch) = state.withLock { s -> ([(Int, [Item])], Bool) in
                s.started[number] = nil
                return (take(&s), watchIfNeeded(&s))
            }
            current = next.first
            start(Array(next.dropFirst()), watch: watch)
        }
    }

    /// ``run(_:_:)`` on the pipeline's thread, for a store that commits in place. `here`: on the
    /// sender's thread, for its batch only (what waited meanwhile goes to the pipeline's thread).
    func runInPlace(_ number: Int, _ batch: [Item], here: Bool = false) {
        guard let insert = inPlace?.insert else { return }
        var current: (Int, [Item])? = (number, batch)
        while let (number, batch) = current {
            track(batch)
            finish(batch, Result { try insert(batch.map(\.message)) })
            untrack(batch)
            let (next, watch) = state.withLock { s -> ([(Int, [Item])], Bool) in
                for item in batch { s.busy.remove(item.message.channelUrl) }
                s.started[number] = nil
                return (take(&s), watchIfNeeded(&s))
            }
            if here {
                start(next, watch: watch)
                return
            }
            current = next.first
            start(Array(next.dropFirst()), watch: watch)
        }
    }

    /// A batch of several channels where batches may run side by side (PostgreSQL): each
    /// channel's messages are stored on their own and acknowledged as soon as they commit, and
    /// the channel is free for its next messages then, so a channel whose lock another node holds,
    /// or whose statement is slow, holds up only its own messages — not the rest of its batch.
    func storeByChannel(_ batch: [Item]) async {
        var groups: [[Item]] = []
        var index: [String: Int] = [:]
        for item in batch {
            if let i = index[item.message.channelUrl] {
                groups[i].append(item)
            } else {
                index[item.message.channelUrl] = groups.count
                groups.append([item])
            }
        }
        await withTaskGroup(of: Void.self) { tasks in
            for group in groups {
                tasks.addTask {
                    await self.store(group)
                    let (next, watch) = self.state.withLock { s -> ([(Int, [Item])], Bool) in
                        s.busy.remove(group[0].message.channelUrl)
                        return (self.take(&s), self.watchIfNeeded(&s))
                    }
                    self.start(next, watch: watch)
                }
            }
        }
    }

    func store(_ batch: [Item]) async {
        track(batch)
        defer { untrack(batch) }
        let results: Result<[Result<StoredMessage, any Error>], any Error>
        do { results = .success(try await insert(batch.map(\.message))) } catch { results = .failure(error) }
        finish(batch, results)
    }

    /// Notes a batch's channels as being stored (with `tracksChannels`).
    func track(_ batch: [Item]) {
        guard tracksChannels else { return }
        inFlight.withLock { f in for item in batch { f[item.message.channelUrl, default: 0] += 1 } }
    }

    func untrack(_ batch: [Item]) {
        guard tracksChannels else { return }
        let done = inFlight.withLock { f -> [String] in
            var done: [String] = []
            for item in batch {
                f[item.message.channelUrl, default: 1] -= 1
                if f[item.message.channelUrl] == 0 {
                    f[item.message.channelUrl] = nil
                    done.append(item.message.channelUrl)
                }
            }
            return done
        }
        for url in done { channelDone?(url) }
    }

    /// After a batch's transaction: delivers each stored message in order and answers its sender;
    /// a transaction that failed as a whole fails every message of the batch.
    func finish(_ batch: [Item], _ outcome: Result<[Result<StoredMessage, any Error>], any Error>) {
        let results: [Result<StoredMessage, any Error>]
        switch outcome {
        case .success(let r): results = r
        case .failure(let error):
            for item in batch { item.continuation.resume(throwing: error) }
            return
        }
        for (item, result) in zip(batch, results) {
            switch result {
            case .success(let stored):
                do {
                    let payload = try item.deliver(stored)
                    item.continuation.resume(returning: (stored, payload))
                } catch {
                    item.continuation.resume(throwing: error)
                }
            case .failure(let error):
                item.continuation.resume(throwing: error)
            }
        }
    }
}
