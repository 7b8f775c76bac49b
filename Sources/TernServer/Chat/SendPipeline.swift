import Synchronization
import TernProtocol

/// Group commit for new messages, per store: the messages that arrive while a write is in flight
/// are stored together in the next transaction, and each is acknowledged only after that commit
/// (guarantee G1).
///
/// Order is kept without a queue per channel: batches are stored one after another, the messages
/// of a batch in arrival order (ids and `created_at` follow it), and each message's `deliver` runs
/// right after the commit, in that same order, before the next batch starts. `deliver` is
/// synchronous (present, encode, hand the bytes to the recipients' outboxes), so every recipient
/// gets a channel's messages in id order. What may wait (threads, webhooks, bots) follows in the
/// sender's own task.
final class SendPipeline: Sendable {
    typealias Deliver = @Sendable (StoredMessage) throws -> MessagePayload

    struct Item {
        var message: NewMessage
        let deliver: Deliver
        let continuation: CheckedContinuation<(StoredMessage, MessagePayload), any Error>
    }

    struct State {
        var pending: [Item] = []
        var running = false
    }

    let state = Mutex(State())
    /// Messages taken into a batch and not yet delivered, by channel (kept only with
    /// `tracksChannels`: on several nodes, for ``isStoring(_:)``).
    let inFlight = Mutex<[String: Int]>([:])
    let tracksChannels: Bool
    let store: any MessageStore
    let clock: @Sendable () -> Int64
    /// The most messages one transaction takes (the rest go in the next).
    static let maxBatch = 512

    init(store: any MessageStore, clock: @escaping @Sendable () -> Int64, tracksChannels: Bool = false) {
        self.store = store
        self.clock = clock
        self.tracksChannels = tracksChannels
    }

    /// Stores `message` (its `createdAt` is set here, in commit order) and runs `deliver` after the
    /// commit. Returns the stored message and what `deliver` returned.
    func submit(_ message: NewMessage, deliver: @escaping Deliver) async throws -> (StoredMessage, MessagePayload) {
        try await withCheckedThrowingContinuation { continuation in
            let start = state.withLock { s -> Bool in
                s.pending.append(Item(message: message, deliver: deliver, continuation: continuation))
                if s.running { return false }
                s.running = true
                return true
            }
            if start { Task { await self.drain() } }
        }
    }

    /// Whether a message of `channelUrl` is being stored or delivered now.
    func isStoring(_ channelUrl: String) -> Bool { inFlight.withLock { $0[channelUrl] != nil } }

    /// Stores batches until nothing is pending.
    func drain() async {
        while true {
            let batch = state.withLock { s -> [Item] in
                if s.pending.isEmpty {
                    s.running = false
                    return []
                }
                let n = min(s.pending.count, Self.maxBatch)
                var taken = Array(s.pending.prefix(n))
                s.pending.removeFirst(n)
                let now = clock()
                for i in taken.indices {
                    taken[i].message.createdAt = now
                    taken[i].message.stampedNow = true
                }
                return taken
            }
            if batch.isEmpty { return }
            if tracksChannels { inFlight.withLock { f in for item in batch { f[item.message.channelUrl, default: 0] += 1 } } }
            defer {
                if tracksChannels {
                    inFlight.withLock { f in
                        for item in batch {
                            f[item.message.channelUrl, default: 1] -= 1
                            if f[item.message.channelUrl] == 0 { f[item.message.channelUrl] = nil }
                        }
                    }
                }
            }
            let results: [Result<StoredMessage, any Error>]
            do {
                results = try await store.insertMessages(batch.map(\.message))
            } catch {
                for item in batch { item.continuation.resume(throwing: error) }
                continue
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
}
