import Synchronization

/// Runs async jobs one at a time, in arrival order, per key (a channel URL).
///
/// Sending is "store, then fan out"; two sends in one channel must reach every recipient in the
/// order their ids were given, so each channel's sends pass through here. Different channels never
/// wait for each other.
public final class KeyedSerialQueue: Sendable {
    struct Entry {
        var busy = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    final class Shard: Sendable {
        let lock = Mutex<[String: Entry]>([:])
        func withLock<T>(_ body: (inout [String: Entry]) -> T) -> T { lock.withLock { body(&$0) } }
    }
    let shards: [Shard]

    public init(shards: Int = 16) {
        self.shards = (0..<shards).map { _ in Shard() }
    }

    func shard(_ key: String) -> Shard {
        var h: UInt32 = 2_166_136_261
        for b in key.utf8 { h = (h ^ UInt32(b)) &* 16_777_619 }
        return shards[Int(h % UInt32(shards.count))]
    }

    /// Runs `body` once every earlier job with the same key has finished.
    public func run<T: Sendable>(_ key: String, _ body: () async throws -> T) async rethrows -> T {
        let s = shard(key)
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let runNow = s.withLock { map -> Bool in
                var e = map[key] ?? Entry()
                if !e.busy {
                    e.busy = true
                    map[key] = e
                    return true
                }
                e.waiters.append(c)
                map[key] = e
                return false
            }
            if runNow { c.resume() }
        }
        defer {
            let next = s.withLock { map -> CheckedContinuation<Void, Never>? in
                guard var e = map[key] else { return nil }
                if e.waiters.isEmpty {
                    map[key] = nil
                    return nil
                }
                let n = e.waiters.removeFirst()
                map[key] = e
                return n
            }
            next?.resume()
        }
        return try await body()
    }
}

/// Flood protection: a token bucket per user.
public final class RateLimiter: Sendable {
    struct Bucket {
        var tokens: Double
        var last: Int64
    }
    let perSecond: Double
    let burst: Double
    let buckets = Mutex<[String: Bucket]>([:])

    /// - Parameter perSecond: sustained rate; 0 disables the limit.
    public init(perSecond: Double) {
        self.perSecond = perSecond
        self.burst = max(perSecond, 1)
    }

    /// Takes one token for `key` at time `nowMs`; false when the key is over its rate.
    public func allow(_ key: String, nowMs: Int64) -> Bool {
        if perSecond <= 0 { return true }
        return buckets.withLock { map in
            var b = map[key] ?? Bucket(tokens: burst, last: nowMs)
            // Times are arrival times, which two connections of one user may hand in slightly out of order.
            b.tokens = min(burst, b.tokens + Double(max(0, nowMs - b.last)) / 1000 * perSecond)
            b.last = max(b.last, nowMs)
            if map.count > 100_000 { map = map.filter { nowMs - $0.value.last < 2000 } }
            guard b.tokens >= 1 else {
                map[key] = b
                return false
            }
            b.tokens -= 1
            map[key] = b
            return true
        }
    }

    /// Takes one token for `key` without refusing (a send another node accepted): the key's
    /// sends on every node then share one rate.
    public func charge(_ key: String, nowMs: Int64) {
        if perSecond <= 0 { return }
        buckets.withLock { map in
            var b = map[key] ?? Bucket(tokens: burst, last: nowMs)
            b.tokens = max(0, min(burst, b.tokens + Double(max(0, nowMs - b.last)) / 1000 * perSecond) - 1)
            b.last = max(b.last, nowMs)
            map[key] = b
        }
    }
}
