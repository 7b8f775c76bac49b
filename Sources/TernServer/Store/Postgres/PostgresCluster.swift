import Foundation
public import Logging
import NIOCore
import NIOPosix
import PostgresNIO
public import ServiceLifecycle
import Synchronization
public import TernProtocol

/// Several `ternd` nodes on one PostgreSQL database (BRIEF §6 scale-out, research/backend.md §5).
///
/// - The shared log is the `cluster_events` table; a committed message writes its own event
///   there (a trigger on `messages`, in the sending transaction), so the messages table stays the
///   truth and no acknowledged message can miss its announcement.
/// - `LISTEN tern_events` is only a doorbell (the notification carries the new id, its kind, the
///   node that wrote it and its channel): every wake reads the log from where this node stands
///   (``EventCursor``, which also waits for ids taken by transactions that commit late). The
///   channels another node's messages rang for tell that read whose unread totals to bring along
///   (``ClusterReceiver/clusterTotalsWanted(channels:)``): message, event and totals in one round trip. A backstop read runs every
///   ``backstopInterval`` whatever the doorbell does, and a lost listener connection is
///   reconnected and followed by a read, so nothing committed while it was away is missed.
/// - Nodes beat every ``heartbeatInterval`` in `cluster_nodes`; one silent for ``deadAfter`` is
///   forgotten (its users offline, its open-channel participants gone).
public final class PostgresCluster: ClusterLink, Service {
    public let nodeId: String
    let store: PostgresStore
    let logger: Logger
    let receiver = Mutex<(any ClusterReceiver)?>(nil)
    let alive = Mutex<Set<String>>([])
    let wakes: AsyncStream<Void>
    let wake: AsyncStream<Void>.Continuation
    /// The channels another node's messages rang the doorbell for since the last read of the log.
    let rung = Mutex<Set<String>>([])
    /// Events to publish, and who waits for them to be written.
    struct Outgoing: Sendable {
        var events: [ClusterEvent]
        var written: CheckedContinuation<Void, Never>?
    }
    let outgoing: AsyncStream<Outgoing>
    let send: AsyncStream<Outgoing>.Continuation
    /// Read passes over the log begun and finished (``catchUp()``).
    let passesBegun = Atomic<Int>(0)
    let passesDone = Atomic<Int>(0)
    /// How often the log is read when the doorbell is quiet (ms).
    public let backstopInterval: Int
    /// How often this node beats (ms), and after how long without a beat another node counts as dead.
    public let heartbeatInterval: Int
    public let deadAfter: Int64
    /// How long events stay in the log (ms): a node cut off from the database for longer misses them.
    public let retention: Int64 = 600_000

    public init(store: PostgresStore, logger: Logger, backstopInterval: Int = 500, heartbeatInterval: Int = 1000, deadAfter: Int64 = 5000) throws {
        self.backstopInterval = backstopInterval
        self.heartbeatInterval = heartbeatInterval
        self.deadAfter = deadAfter
        guard let node = store.nodeId else { throw ServerStartError("the PostgreSQL store has no node id") }
        self.nodeId = node
        self.store = store
        self.logger = logger
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        (outgoing, send) = AsyncStream.makeStream(of: Outgoing.self)
    }

    /// A node id for this process: host name, process id and a random tail.
    public static func newNodeId() -> String {
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "node"
        return "\(host)-\(getpid())-\(UInt32.random(in: 0...UInt32.max) % 100_000)"
    }

    public func attach(_ r: any ClusterReceiver) { receiver.withLock { $0 = r } }

    public var hasPeers: Bool { alive.withLock { !$0.isEmpty } }

    public func publish(_ events: [ClusterEvent]) {
        guard !events.isEmpty else { return }
        send.yield(Outgoing(events: events))
    }

    public func publishAndWait(_ events: [ClusterEvent]) async {
        guard !events.isEmpty else { return }
        await withCheckedContinuation { c in
            if case .terminated = send.yield(Outgoing(events: events, written: c)) { c.resume() }
        }
    }

    public func catchUp() async {
        // The next pass to begin starts after this call: once it is done, the log as it stood
        // now has been read (at most 300 ms: a node cut off from the database does not hang).
        let target = passesBegun.load(ordering: .acquiring) + 1
        wake.yield()
        var waited = 0
        while passesDone.load(ordering: .acquiring) < target && waited < 300 {
            try? await Task.sleep(for: .milliseconds(1))
            waited += 1
            wake.yield()
        }
    }

    // MARK: - Running

    public func run() async throws {
        var horizon: Int64 = 0
        // The first reads wait for the database (a node may start before it).
        while !Task.isCancelled {
            do {
                horizon = try await store.read { db in
                    try await db.scalar("SELECT COALESCE(max(id), 0) FROM cluster_events", as: Int64.self) ?? 0
                }
                try await beat()
                break
            } catch {
                logger.warning("cluster: waiting for the database: \(error)")
                try? await Task.sleep(for: .seconds(1))
            }
        }
        try? await insert([ClusterEvent(.hello)])
        let start = horizon
        // Unstructured, so that a stop never waits on a connection that stopped answering
        // (a query on a socket the database dropped can take long to fail).
        let tasks = [
            Task { await self.listen() }, Task { await self.readLoop(from: start) }, Task { await self.heartbeats() },
            Task { await self.publishLoop() }, Task { await self.ticker() },
        ]
        try? await gracefulShutdown()
        for t in tasks { t.cancel() }
        send.finish()
        wake.finish()
        // Tell the others now rather than after `deadAfter` (at most a second).
        let said = LeaseFlag()
        Task {
            try? await self.insert([ClusterEvent(.bye)])
            _ = try? await self.store.write { db in try await db.execute("DELETE FROM cluster_nodes WHERE node = ?", [self.nodeId]) }
            said.value.store(true, ordering: .releasing)
        }
        for _ in 0..<50 where !said.value.load(ordering: .acquiring) {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    func nowMs() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// The listener: `LISTEN tern_events` on a connection of its own, reconnected after a loss
    /// (each reconnect rings once, so the reader catches up).
    func listen() async {
        let p = store.urlParts
        var config = PostgresConnection.Configuration(
            host: p.host, port: p.port, username: p.user, password: p.password, database: p.database, tls: .disable)
        config.options.connectTimeout = .seconds(3)
        var failures = 0
        while !Task.isCancelled {
            do {
                let conn = try await PostgresConnection.connect(
                    on: MultiThreadedEventLoopGroup.singleton.next(), configuration: config, id: 1, logger: store.logger)
                defer { Task { try? await conn.close() } }
                try await conn.listen(on: "tern_events") { notifications in
                    if failures > 0 { logger.info("cluster: listener reconnected") }
                    failures = 0
                    wake.yield()
                    try await withTaskCancellationHandler {
                        for try await n in notifications {
                            if let channel = Self.peerMessageChannel(n.payload, me: nodeId) { _ = rung.withLock { $0.insert(channel) } }
                            wake.yield()
                        }
                    } onCancel: {
                        let _: EventLoopFuture<Void> = conn.close()
                    }
                }
                if Task.isCancelled { return }
            } catch {
                if Task.isCancelled { return }
                failures += 1
                if failures == 1 { logger.warning("cluster: listener lost: \(error)") }
            }
            try? await Task.sleep(for: .milliseconds(min(2000, 100 * failures)))
            wake.yield()
        }
    }

    /// The channel of another node's message from a doorbell's payload (`<id> <kind> <node>
    /// <channel>`, `PostgresSchema` "pg-v11"); nil for anything else, or a bell of an older build.
    static func peerMessageChannel(_ payload: String, me: String) -> String? {
        let parts = payload.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, parts[1] == "msg", parts[2] != me, !parts[3].isEmpty else { return nil }
        return String(parts[3])
    }

    func ticker() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(backstopInterval))
            wake.yield()
        }
    }

    /// Reads the log on every wake and hands other nodes' events to the receiver, in id order.
    /// How often an event the receiver could not handle is tried again (each after a backstop interval).
    static let maxAttempts = 40

    func readLoop(from start: Int64) async {
        var cursor = EventCursor(horizon: start)
        var attempts: [Int64: Int] = [:]
        var failing = false
        for await _ in wakes {
            if Task.isCancelled { return }
            passesBegun.add(1, ordering: .releasing)
            defer { passesDone.add(1, ordering: .releasing) }
            var more = true
            while more && !Task.isCancelled {
                more = false
                do {
                    let r = receiver.withLock { $0 }
                    let channels = rung.withLock { c in
                        defer { c.removeAll() }
                        return c
                    }
                    let wanted = channels.isEmpty ? [] : r?.clusterTotalsWanted(channels: channels) ?? []
                    let (count, read, totals) = try await readLog(
                        after: cursor.horizon, skipping: cursor.handledAbove.map(String.init), totalsFor: wanted)
                    if failing { logger.info("cluster: reading the event log again") }
                    failing = false
                    await r?.clusterPrepare(
                        read.compactMap { if case .peer(let e) = $0.row, e.event.kind == .message { e } else { nil } }, totals: totals)
                    // Handled in id order; an event the receiver could not handle yet (the
                    // database went away between reading the log and reading the message) stops
                    // the batch and is read again on the next wake, at most `maxAttempts` times.
                    var handled: [Int64] = []
                    var stopped = false
                    for (id, row) in read {
                        switch row {
                        case .skip:
                            handled.append(id)
                            continue
                        case .own(let channel, let mid):
                            // This node's own message: everything before it in the log is handled.
                            await r?.clusterOwnMessage(channel: channel, messageId: mid)
                            handled.append(id)
                            continue
                        case .peer(let received):
                            let e = received.event
                            if e.kind == .hello || e.kind == .snapshot { _ = alive.withLock { $0.insert(received.node) } }
                            if e.kind == .bye { _ = alive.withLock { $0.remove(received.node) } }
                            let ok = await r?.clusterEvent(received) ?? true
                            if ok || attempts[id, default: 0] >= Self.maxAttempts {
                                if !ok { logger.error("cluster: event \(id) (\(e.kind.rawValue)) dropped after \(Self.maxAttempts) attempts") }
                                attempts[id] = nil
                                handled.append(id)
                            } else {
                                attempts[id, default: 0] += 1
                                stopped = true
                            }
                        }
                        if stopped { break }
                    }
                    await r?.clusterPrepare([], totals: nil)
                    _ = cursor.accept(handled, now: nowMs())
                    more = count == Self.readBatch && !stopped
                } catch {
                    if !failing { logger.warning("cluster: cannot read the event log: \(error)") }
                    failing = true
                }
            }
            cursor.advance(now: nowMs())
            receiver.withLock { $0 }?.clusterTick()
        }
    }

    /// How many events one read of the log takes at most.
    static let readBatch = 500

    /// One event of the log as read by ``readLoop(from:)``: this node's own message (its channel
    /// and id), another of its own events (nothing to do), or another node's event.
    enum LogRow {
        case own(channel: String, messageId: Int64)
        case skip
        case peer(ReceivedClusterEvent)
    }

    /// The log's next events after `horizon` (but those already handled), each once; how many rows
    /// were read; and, when `users` is not empty, their unread totals as the same read saw them.
    func readLog(after horizon: Int64, skipping skip: [String], totalsFor users: [String] = []) async throws
        -> (count: Int, rows: [(id: Int64, row: LogRow)], totals: [String: UnreadCount]?)
    {
        // Another node's message comes with its event, and the totals its copies carry with the
        // first row (one round trip, not three): one snapshot, so the totals count every message
        // read (and any committed after them, as a later read would).
        let rows = try await store.read { db in
            try await db.fetchAll(prepared: LogRead.self, [horizon, skip, self.nodeId, users, self.nodeId])
        }
        var totals: [String: UnreadCount]?
        if !users.isEmpty, let first = rows.first {
            var ledger = UnreadLedger()
            // NULL arrays: none of them has anything unread.
            let names: [String]? = try first["ev_total_users"]
            let counts: [Int64]? = try first["ev_total_counts"]
            let types: [String]? = try first["ev_total_types"]
            for ((user, n), type) in zip(zip(names ?? [], counts ?? []), types ?? []) {
                ledger.addOutside(user, type: type, count: Int(n))
            }
            totals = PostgresStore.stampedTotals(users, ledger, hint: store.clock.nowMs())
        }
        var read: [(id: Int64, row: LogRow)] = []
        for r in rows {
            let id: Int64 = try r["ev_id"]
            let node: String = try r["ev_node"]
            let kind: String = try r["ev_kind"]
            let channel: String? = try r["ev_channel"]
            let body: String = try r["ev_body"]
            if node == nodeId {
                if kind == ClusterEvent.Kind.message.rawValue, let channel, let mid = ClusterEvent.messageEvent(body)?.id {
                    read.append((id, .own(channel: channel, messageId: mid)))
                } else {
                    read.append((id, .skip))
                }
            } else if let e = ClusterEvent.decode(kind: kind, channel: channel, body: body) {
                let message = (try r["message_id"] as Int64?) != nil ? try PostgresStore.messageRecord(r) : nil
                read.append((id, .peer(ReceivedClusterEvent(id: id, node: node, event: e, message: message))))
            } else {
                read.append((id, .skip))
            }
        }
        return (rows.count, read, totals)
    }

    /// The statement of ``readLog(after:skipping:totalsFor:)``: the events after a horizon (but
    /// some), each other node's message with its row, and the unread totals of some users on the
    /// first row.
    enum LogRead: PGPreparedText {
        static let sql = PGConnection.numbered(
            """
            WITH ev AS (SELECT * FROM cluster_events WHERE id > ? AND NOT (id = ANY(?::BIGINT[])) ORDER BY id LIMIT \(PostgresCluster.readBatch))
            SELECT e.id AS ev_id, e.node AS ev_node, e.kind AS ev_kind, e.channel_url AS ev_channel,
              CASE WHEN e.node = ? AND e.kind <> 'msg' THEN '' ELSE e.body END AS ev_body,
              tot.us AS ev_total_users, tot.ns AS ev_total_counts, tot.ts AS ev_total_types, m.*
            FROM ev e
            LEFT JOIN (SELECT array_agg(u) AS us, array_agg(n) AS ns, array_agg(COALESCE(t, '')) AS ts
                       FROM tern_unread_totals(?::TEXT[], '{}')) tot ON e.id = (SELECT min(id) FROM ev)
            LEFT JOIN messages m ON e.kind = 'msg' AND e.node <> ?
              AND m.message_id = (CASE WHEN e.kind = 'msg' THEN split_part(e.body, ' ', 1)::BIGINT END)
            ORDER BY e.id
            """)
    }

    /// Publishes what the chat service queued, in order, a batch per transaction.
    func publishLoop() async {
        for await item in outgoing {
            do {
                try await insert(item.events)
            } catch {
                logger.warning("cluster: \(item.events.count) events not published: \(error)")
            }
            item.written?.resume()
        }
    }

    func insert(_ events: [ClusterEvent]) async throws {
        try await store.write { db in
            try await db.execute(
                """
                INSERT INTO cluster_events(node, kind, channel_url, body)
                SELECT ?, k, NULLIF(c, ''), b FROM unnest(?::TEXT[], ?::TEXT[], ?::TEXT[]) WITH ORDINALITY AS t(k, c, b, n) ORDER BY n
                """, [self.nodeId, events.map(\.kind.rawValue), events.map { $0.channel ?? "" }, events.map(\.body)])
        }
    }

    /// Records this node's heartbeat; returns the other nodes alive.
    func beat() async throws {
        let (live, dead) = try await store.write { db -> ([String], [String]) in
            try await db.execute(
                """
                INSERT INTO cluster_nodes(node, started_at, seen_at) VALUES (?, tern_ms(), tern_ms())
                ON CONFLICT (node) DO UPDATE SET seen_at = EXCLUDED.seen_at
                """, [self.nodeId])
            let rows = try await db.fetchAll(
                "SELECT node, tern_ms() - seen_at AS age FROM cluster_nodes WHERE node <> ?", [self.nodeId])
            var live: [String] = []
            var dead: [String] = []
            for r in rows {
                let age: Int64 = try r["age"]
                if age < self.deadAfter { live.append(try r["node"]) } else { dead.append(try r["node"]) }
            }
            return (live, dead)
        }
        let gone = alive.withLock { a -> Set<String> in
            let before = a
            a = Set(live)
            return before.subtracting(a)
        }
        let r = receiver.withLock { $0 }
        for node in gone.union(dead) { r?.clusterPeerGone(node) }
        if !dead.isEmpty {
            // Long silent nodes leave the table (a restarted process gets a new id).
            _ = try await store.write { db in
                try await db.execute("DELETE FROM cluster_nodes WHERE tern_ms() - seen_at > ?", [self.deadAfter * 12])
            }
        }
    }

    func heartbeats() async {
        var beats = 0
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(heartbeatInterval))
            do {
                try await beat()
                beats += 1
                if beats % 30 == 0 {
                    _ = try await store.write { db in
                        try await db.execute("DELETE FROM cluster_events WHERE created_at < tern_ms() - ?", [self.retention])
                    }
                }
            } catch {
                // The reader already says the database is gone.
            }
        }
    }
}

/// What a ``ClusterLink`` hands events to (the ``ChatService``).
public protocol ClusterReceiver: Sendable {
    /// Handles an event; false when it could not be handled now (the store failed) and should be tried again.
    func clusterEvent(_ e: ReceivedClusterEvent) async -> Bool
    func clusterPeerGone(_ node: String)
    /// The reader reached this node's own event for a message it stored: every event before it is handled.
    func clusterOwnMessage(channel: String, messageId: Int64) async
    /// Called with the other nodes' events of one read before they are handled one by one (and
    /// with none after them), to read ahead what handling them needs; `totals` are the unread
    /// totals the read brought (of the users ``clusterTotalsWanted(channels:)`` named), if any.
    func clusterPrepare(_ events: [ReceivedClusterEvent], totals: [String: UnreadCount]?) async
    /// The users whose unread totals the next read of the log should bring along, for other nodes'
    /// messages in `channels` (empty: none; their copies then read the totals themselves).
    func clusterTotalsWanted(channels: Set<String>) -> [String]
    /// Called on every wake of the reader (at least every backstop interval).
    func clusterTick()
}
