import Synchronization

/// What one frame worked out, kept for the next (wrapped text, laid-out messages): a table behind a lock,
/// emptied when it reaches `limit` entries.
final class Memo<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let table = Mutex<[Key: Value]>([:])
    let limit: Int

    init(limit: Int = 4096) { self.limit = limit }

    /// The value remembered for `key`, else `make()`'s, remembered.
    func value(_ key: Key, _ make: () -> Value) -> Value {
        if let hit = table.withLock({ $0[key] }) { return hit }
        let value = make()
        table.withLock { t in
            if t.count >= limit { t.removeAll(keepingCapacity: true) }
            t[key] = value
        }
        return value
    }
}
