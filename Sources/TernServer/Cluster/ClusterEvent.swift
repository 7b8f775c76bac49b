import Foundation

/// What one `ternd` node tells the others when several serve one application on one PostgreSQL
/// database (BRIEF §6 scale-out). The messages table stays the truth for messages: a new message
/// is announced by the database itself (a trigger on `messages` writes a ``Kind/message`` event in
/// the sending transaction); everything else a node would have pushed to its own sockets —
/// typing, receipts, channel events, open-channel traffic — and every cache it dropped is
/// published as one of these, so the other nodes do the same for theirs.
public struct ClusterEvent: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        /// A message was committed (channel, message id); written by the database trigger.
        case message = "msg"
        /// `frame` to every connection of `users`; with `close`, those connections end after it.
        case users
        /// `frame` to the connections that entered open channel `channel` (only those of `users` when given, never `user`'s).
        case room
        /// A cached channel (`channel`), user (`user`), or everything (neither) is stale.
        case invalidate = "inv"
        /// Application settings changed: every settings cache is stale.
        case settings
        /// `user` came online (`flag` true) or went offline on the publishing node.
        case presence
        /// `user` entered (`flag` true) or left open channel `channel` on the publishing node.
        case participant
        /// `user` is banned from open channel `channel`: every node takes their connections out.
        case expel
        /// Open channel `channel` was deleted: every node empties it.
        case closeRoom = "close"
        /// A node started: the others answer with a ``snapshot``.
        case hello
        /// The publishing node's presence and open-channel participants, whole.
        case snapshot
        /// The publishing node stops: forget what it had.
        case bye
    }

    public var kind: Kind
    public var frame: String?
    public var users: [String]?
    public var user: String?
    public var channel: String?
    public var flag: Bool?
    public var close: Bool?
    public var rooms: [String: [String]]?
    /// ``Kind/presence``: how many connections `user` has on the publishing node now.
    public var count: Int?
    /// ``Kind/snapshot``: connections by user on the publishing node.
    public var counts: [String: Int]?

    public init(
        _ kind: Kind, frame: String? = nil, users: [String]? = nil, user: String? = nil, channel: String? = nil, flag: Bool? = nil,
        close: Bool? = nil, rooms: [String: [String]]? = nil, count: Int? = nil, counts: [String: Int]? = nil
    ) {
        self.count = count
        self.counts = counts
        self.kind = kind
        self.frame = frame
        self.users = users
        self.user = user
        self.channel = channel
        self.flag = flag
        self.close = close
        self.rooms = rooms
    }

    enum CodingKeys: String, CodingKey {
        case kind = "k"
        case frame = "f"
        case users = "us"
        case user = "u"
        case channel = "c"
        case flag = "on"
        case close = "x"
        case rooms = "r"
        case count = "n"
        case counts = "ns"
    }

    /// The event as stored in `cluster_events.body` (the kind and channel also have columns).
    public var body: String {
        (try? String(decoding: JSONEncoder().encode(self), as: UTF8.self)) ?? "{}"
    }

    /// Decodes a stored event; a ``Kind/message`` row's body is the message id alone.
    public static func decode(kind: String, channel: String?, body: String) -> ClusterEvent? {
        if kind == Kind.message.rawValue { return ClusterEvent(.message, frame: body, channel: channel) }
        return try? JSONDecoder().decode(ClusterEvent.self, from: Data(body.utf8))
    }

    /// A ``Kind/message`` event's message id (kept in `frame`).
    public var messageId: Int64? { kind == .message ? frame.flatMap { Self.messageEvent($0)?.id } : nil }
    /// Whether a ``Kind/message`` event's sender is held to the flood limits.
    public var floodLimited: Bool { kind == .message && (frame.flatMap { Self.messageEvent($0)?.flood } ?? false) }

    /// A message event's body: `<message id>`, then ` f` when its sender is held to the flood limits.
    public static func messageEvent(_ body: String) -> (id: Int64, flood: Bool)? {
        let parts = body.split(separator: " ")
        guard let first = parts.first, let id = Int64(first) else { return nil }
        return (id, parts.dropFirst().contains("f"))
    }
}

/// An event as one node read it from the shared log.
public struct ReceivedClusterEvent: Sendable {
    public var id: Int64
    public var node: String
    public var event: ClusterEvent
    /// A message event's message, read with the event (nil: read it when handling the event).
    public var message: MessageRecord? = nil
}

/// How a ``ChatService`` talks to the other nodes (``PostgresCluster`` on PostgreSQL; none on SQLite).
public protocol ClusterLink: Sendable {
    /// This node's id (unique among the nodes on one database).
    var nodeId: String { get }
    /// Queues events for the shared log (written in order, a batch per transaction). A failure
    /// is logged and dropped: the events are pushes, and clients catch up on reconnect or with
    /// `changelogs`.
    func publish(_ events: [ClusterEvent])
    /// Publishes in the same order as ``publish(_:)`` and returns once the events are in the log
    /// (or could not be written).
    func publishAndWait(_ events: [ClusterEvent]) async
    /// Returns once this node has read the log as it stood when called (at most a short while):
    /// what other nodes published before then is applied here.
    func catchUp() async
    /// Whether another node was alive at the last heartbeat (nothing is published otherwise).
    var hasPeers: Bool { get }
}

/// Where a node's reading of the shared event log stands: every id up to `horizon` was handled
/// or given up on; `seen` holds the handled ids above it. Ids come from a sequence, so a
/// transaction that took a lower id can commit after a higher one: an id missing below the
/// newest one seen is a gap, read again until it arrives or `gapTimeout` passes (its transaction
/// rolled back, or the database restarted). A value type with an injected clock, for tests.
public struct EventCursor: Sendable, Equatable {
    public private(set) var horizon: Int64
    public private(set) var seen: Set<Int64> = []
    /// id → when it was first found missing (ms).
    public private(set) var gaps: [Int64: Int64] = [:]
    public let gapTimeout: Int64

    public init(horizon: Int64, gapTimeout: Int64 = 10_000) {
        self.horizon = horizon
        self.gapTimeout = gapTimeout
    }

    /// Ids read (ascending, all above `horizon`) at time `now`: returns the ones not handled
    /// before, in order, and moves the horizon over every id handled or given up on.
    public mutating func accept(_ ids: [Int64], now: Int64) -> [Int64] {
        var fresh: [Int64] = []
        for id in ids where id > horizon && !seen.contains(id) {
            seen.insert(id)
            gaps[id] = nil
            fresh.append(id)
        }
        if let top = seen.max() {
            var id = horizon + 1
            while id < top {
                if !seen.contains(id) && gaps[id] == nil { gaps[id] = now }
                id += 1
            }
        }
        advance(now: now)
        return fresh
    }

    /// Moves the horizon over handled ids and over gaps older than `gapTimeout`.
    public mutating func advance(now: Int64) {
        while true {
            let next = horizon + 1
            if seen.remove(next) != nil {
                horizon = next
            } else if let since = gaps[next], now - since >= gapTimeout {
                gaps[next] = nil
                horizon = next
            } else {
                break
            }
        }
    }

    /// Ids above the horizon handled already (not to be read again).
    public var handledAbove: [Int64] { seen.sorted() }
}

/// What this node knows of the others: who is online there and who entered which open channel,
/// from their ``ClusterEvent/Kind/presence`` and ``ClusterEvent/Kind/participant`` events and
/// snapshots. A node whose heartbeat stops is forgotten (``forget(_:)``).
public struct ClusterPeers: Sendable, Equatable {
    public struct Peer: Sendable, Equatable {
        /// Open WebSocket connections by user: the users online there.
        public var connections: [String: Int] = [:]
        public var rooms: [String: Set<String>] = [:]
    }
    public private(set) var peers: [String: Peer] = [:]

    public init() {}

    public mutating func apply(_ e: ClusterEvent, from node: String) {
        switch e.kind {
        case .presence:
            guard let u = e.user else { return }
            // A presence without a count (from an older node) is one connection.
            if e.flag == true { peers[node, default: Peer()].connections[u] = max(1, e.count ?? 1) } else { peers[node]?.connections[u] = nil }
        case .participant:
            guard let u = e.user, let c = e.channel else { return }
            if e.flag == true {
                peers[node, default: Peer()].rooms[c, default: []].insert(u)
            } else {
                peers[node]?.rooms[c]?.remove(u)
                if peers[node]?.rooms[c]?.isEmpty == true { peers[node]?.rooms[c] = nil }
            }
        case .snapshot:
            peers[node] = Peer(
                connections: Dictionary((e.users ?? []).map { ($0, max(1, e.counts?[$0] ?? 1)) }, uniquingKeysWith: max),
                rooms: (e.rooms ?? [:]).mapValues { Set($0) })
        case .closeRoom:
            guard let c = e.channel else { return }
            for n in peers.keys { peers[n]?.rooms[c] = nil }
        case .expel:
            guard let u = e.user, let c = e.channel else { return }
            for n in peers.keys { peers[n]?.rooms[c]?.remove(u) }
        case .bye:
            peers[node] = nil
        default:
            break
        }
    }

    public mutating func forget(_ node: String) { peers[node] = nil }

    public func isOnline(_ user: String) -> Bool { peers.values.contains { $0.connections[user] != nil } }

    /// Users in an open channel on other nodes.
    public func participants(_ channel: String) -> Set<String> {
        var all = Set<String>()
        for p in peers.values { all.formUnion(p.rooms[channel] ?? []) }
        return all
    }

    /// A user's open connections on the other nodes.
    public func connections(of user: String) -> Int {
        peers.values.reduce(0) { $0 + ($1.connections[user] ?? 0) }
    }

    /// Users online on other nodes, among `users`.
    public func online(among users: [String]) -> [String] {
        users.filter { isOnline($0) }
    }
}
