import Testing

@testable import TernServer

/// The send path's caches (rosters, senders): a fill read before an invalidation does not put back
/// what the invalidation removed.
@Suite("ShardedCache: fills and invalidations")
struct ShardedCacheTests {
    @Test("A fill read before a removal of its key is not stored; one read after it is")
    func fillAfterRemoval() {
        let cache = ShardedCache<String>()
        cache.set("alice", "old")
        // A reader misses, takes the generation and reads the store...
        cache.remove("alice")
        let before = cache.generation("alice")
        // ...another node changes alice meanwhile: the invalidation removes her again.
        cache.remove("alice")
        cache.set("alice", "read before the change", ifUnchangedSince: before)
        #expect(cache["alice"] == nil, "the stale read was not stored")
        let after = cache.generation("alice")
        cache.set("alice", "read after the change", ifUnchangedSince: after)
        #expect(cache["alice"] == "read after the change")
    }

    @Test("removeAll stops every fill under way; a plain set always stores")
    func removeAllStopsFills() {
        let cache = ShardedCache<Int>(shards: 4)
        let keys = (0..<50).map { "k\($0)" }
        let generations = keys.map { cache.generation($0) }
        cache.removeAll()
        for (k, g) in zip(keys, generations) { cache.set(k, 1, ifUnchangedSince: g) }
        #expect(keys.allSatisfy { cache[$0] == nil })
        for k in keys { cache.set(k, 2) }
        #expect(keys.allSatisfy { cache[$0] == 2 })
    }
}
