import Foundation
public import NIOCore
import Synchronization

/// One authenticated WebSocket connection.
public final class ClientConnection: Sendable, Hashable {
    public let id: Int
    public let userId: String
    public let outbox: Outbox

    public init(id: Int, userId: String, outbox: Outbox) {
        self.id = id
        self.userId = userId
        self.outbox = outbox
    }

    /// Queues a frame for this connection.
    @discardableResult
    public func send(_ frame: String) -> Bool { outbox.enqueue(frame) }

    public static func == (a: ClientConnection, b: ClientConnection) -> Bool { a.id == b.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// Who is connected: user id → their open connections (a user may have several devices).
///
/// Sharded by user id so that fan-out from many channels at once does not meet on one lock.
public final class ConnectionRegistry: Sendable {
    static let shardCount = 16
    final class Shard: Sendable {
        let lock = Mutex<[String: [ClientConnection]]>([:])
        func withLock<T>(_ body: (inout [String: [ClientConnection]]) -> T) -> T { lock.withLock { body(&$0) } }
    }
    let shards: [Shard]
    let nextId = Atomic<Int>(1)
    let open = Atomic<Int>(0)
    let lastChange = Atomic<Int64>(Int64(Date().timeIntervalSince1970))

    /// One flusher per event loop, made on its first connection.
    let flushers = Mutex<[ObjectIdentifier: LoopFlusher]>([:])
    /// One command executor per event loop (``taskExecutor(for:)``).
    let taskExecutors = Mutex<[ObjectIdentifier: EventLoopTaskExecutor]>([:])

    public init() {
        shards = (0..<Self.shardCount).map { _ in Shard() }
    }

    /// The flusher that writes the outboxes of connections on `loop`.
    public func flusher(for loop: any EventLoop, coalescingMicroseconds: Int64) -> LoopFlusher {
        Self.one(of: flushers, for: loop) { LoopFlusher(loop: loop, coalescing: .microseconds(coalescingMicroseconds)) }
    }

    /// The executor that runs the commands of `loop`'s connections on it.
    func taskExecutor(for loop: any EventLoop) -> EventLoopTaskExecutor {
        Self.one(of: taskExecutors, for: loop) { EventLoopTaskExecutor(loop) }
    }

    /// `loop`'s entry of a per-loop map, made on first use.
    static func one<T>(of map: borrowing Mutex<[ObjectIdentifier: T]>, for loop: any EventLoop, _ make: () -> T) -> T {
        map.withLock { map in
            let key = ObjectIdentifier(loop)
            if let found = map[key] { return found }
            let made = make()
            map[key] = made
            return made
        }
    }

    func shard(_ userId: String) -> Shard {
        var h: UInt32 = 2_166_136_261
        for b in userId.utf8 { h = (h ^ UInt32(b)) &* 16_777_619 }
        return shards[Int(h % UInt32(Self.shardCount))]
    }

    /// Registers a new connection for `userId` unless the user already has `limit` open ones.
    public func register(userId: String, outbox: Outbox, limit: Int) -> ClientConnection? {
        let id = nextId.wrappingAdd(1, ordering: .relaxed).oldValue
        let conn = ClientConnection(id: id, userId: userId, outbox: outbox)
        let ok = shard(userId).withLock { map -> Bool in
            var list = map[userId] ?? []
            if list.count >= limit { return false }
            list.append(conn)
            map[userId] = list
            return true
        }
        if ok { touch(+1) }
        return ok ? conn : nil
    }

    func touch(_ delta: Int) {
        open.add(delta, ordering: .relaxed)
        lastChange.store(Int64(Date().timeIntervalSince1970), ordering: .relaxed)
    }

    /// Open WebSocket connections, all users together.
    public var connectionCount: Int { open.load(ordering: .relaxed) }

    /// When (Unix seconds) a connection last opened or closed (or the registry was made).
    public var lastConnectionChange: Int64 { lastChange.load(ordering: .relaxed) }

    /// Removes a connection. Returns whether the user has no connection left.
    @discardableResult
    public func unregister(_ conn: ClientConnection) -> Bool {
        let (removed, empty) = shard(conn.userId).withLock { map -> (Bool, Bool) in
            var list = map[conn.userId] ?? []
            let before = list.count
            list.removeAll { $0.id == conn.id }
            map[conn.userId] = list.isEmpty ? nil : list
            return (list.count < before, list.isEmpty)
        }
        if removed { touch(-1) }
        return empty
    }

    /// Every open connection.
    public func all() -> [ClientConnection] {
        shards.flatMap { s in s.withLock { Array($0.values.joined()) } }
    }

    public func connections(of userId: String) -> [ClientConnection] {
        shard(userId).withLock { $0[userId] ?? [] }
    }

    public func isOnline(_ userId: String) -> Bool {
        shard(userId).withLock { $0[userId]?.isEmpty == false }
    }

}
