import Synchronization
import TernProtocol

/// A sharded in-memory map, for lookups on the send path that must not take one global lock.
final class ShardedCache<Value: Sendable>: Sendable {
    final class Shard: Sendable {
        struct State {
            var map: [String: Value] = [:]
            /// Moves with every removal: a fill read before it must not store what it read.
            var generation: UInt64 = 0
        }
        let lock = Mutex(State())
    }
    let shards: [Shard]
    let capacityPerShard: Int

    init(shards: Int = 16, capacity: Int = 100_000) {
        self.shards = (0..<shards).map { _ in Shard() }
        self.capacityPerShard = max(1, capacity / shards)
    }

    func shard(_ key: String) -> Shard {
        var h: UInt32 = 2_166_136_261
        for b in key.utf8 { h = (h ^ UInt32(b)) &* 16_777_619 }
        return shards[Int(h % UInt32(shards.count))]
    }

    subscript(key: String) -> Value? {
        shard(key).lock.withLock { $0.map[key] }
    }

    /// Where `key`'s shard stands: take it before reading a value to fill the cache with, and hand
    /// it to ``set(_:_:ifUnchangedSince:)``.
    func generation(_ key: String) -> UInt64 { shard(key).lock.withLock { $0.generation } }

    /// Stores `value`; with `generation`, only if nothing was removed from `key`'s shard since it
    /// was taken. A fill read from the store before an invalidation would otherwise put back what
    /// the invalidation removed (another node changed the user or the channel meanwhile), and keep
    /// it until the next one.
    func set(_ key: String, _ value: Value, ifUnchangedSince generation: UInt64? = nil) {
        shard(key).lock.withLock { s in
            if let generation, s.generation != generation { return }
            if s.map.count >= capacityPerShard { s.map.removeAll(keepingCapacity: true) }
            s.map[key] = value
        }
    }

    func remove(_ key: String) {
        shard(key).lock.withLock { s in
            s.map.removeValue(forKey: key)
            s.generation &+= 1
        }
    }

    func removeAll() {
        for shard in shards {
            shard.lock.withLock { s in
                s.map.removeAll()
                s.generation &+= 1
            }
        }
    }
}

/// What the send path needs to know about a channel: its flags and who is in it with which
/// state and role. Counters and receipts are never read from here (they change with every
/// message); the store stays the truth for those.
struct ChannelRoster: Sendable {
    let channel: ChannelRecord
    let members: [MemberRecord]
    let byUser: [String: Int]
    /// Muted and banned users → when it ends (ms, -1 forever); expired ones may still be listed.
    let muted: [String: Int64]
    let banned: [String: Int64]
    /// Joined members whose count preference counts new messages as unread.
    let counting: [String]

    init(channel: ChannelRecord, members: [MemberRecord], muted: [String: Int64] = [:], banned: [String: Int64] = [:]) {
        self.channel = channel
        self.members = members
        counting = members.filter {
            $0.state == "joined" && ($0.countPreference == CountPreference.all || $0.countPreference == CountPreference.messagesOnly)
        }.map(\.userId)
        var index: [String: Int] = [:]
        for (i, m) in members.enumerated() { index[m.userId] = i }
        byUser = index
        self.muted = muted
        self.banned = banned
    }

    func member(_ userId: String) -> MemberRecord? { byUser[userId].map { members[$0] } }

    /// A group channel's member, or anyone in an open channel (as a participant).
    func memberOrParticipant(_ userId: String) -> MemberRecord? {
        channel.isOpen ? MemberRecord.participant(channel, userId) : member(userId)
    }

    func isMuted(_ userId: String, at now: Int64) -> Bool { muted[userId].map { $0 < 0 || $0 > now } ?? false }
    func isBanned(_ userId: String, at now: Int64) -> Bool { banned[userId].map { $0 < 0 || $0 > now } ?? false }

    /// Operators: of an open channel its list, of a group channel the members with the role.
    func isOperator(_ userId: String) -> Bool {
        channel.isOpen ? channel.operatorIds.contains(userId) : member(userId)?.role == "operator"
    }
}

extension ChatService {
    /// The channel's roster, from memory or (once) from the store. Any change to a channel's
    /// flags or membership must call ``invalidateChannel(_:)``.
    func roster(_ channelUrl: String) async throws -> ChannelRoster? {
        if let r = rosters[channelUrl] { return r }
        let generation = rosters.generation(channelUrl)
        guard let channel = try await store.channel(channelUrl) else { return nil }
        let t = now()
        let muted = try await store.restrictions(channelUrl, kind: .mute, now: t, afterUserId: nil, limit: nil)
        let banned = try await store.restrictions(channelUrl, kind: .ban, now: t, afterUserId: nil, limit: nil)
        let r = ChannelRoster(
            channel: channel, members: channel.isOpen ? [] : try await store.members(channelUrl),
            muted: Dictionary(muted.map { ($0.userId, $0.endAt) }, uniquingKeysWith: { a, _ in a }),
            banned: Dictionary(banned.map { ($0.userId, $0.endAt) }, uniquingKeysWith: { a, _ in a }))
        rosters.set(channelUrl, r, ifUnchangedSince: generation)
        return r
    }

    /// Forgets what is cached about a channel after its flags or members changed.
    public func invalidateChannel(_ channelUrl: String) {
        rosters.remove(channelUrl)
        publish(ClusterEvent(.invalidate, channel: channelUrl))
    }

    /// Forgets every cached channel and sender (after a user is deleted, say).
    public func invalidateAll() {
        rosters.removeAll()
        senders.removeAll()
        publish(ClusterEvent(.invalidate))
    }

    /// Forgets a cached sender after the user changed.
    public func invalidateUser(_ userId: String) {
        senders.remove(userId)
        publish(ClusterEvent(.invalidate, user: userId))
    }
}
