import Foundation
import Logging
import Synchronization
import TernProtocol

/// The chat domain: who may do what, and what each change tells whom. REST routes and the
/// WebSocket gateway both call it; it calls the ``Store`` and fans events out through the
/// ``ConnectionRegistry``.
public final class ChatService: Sendable {
    public let store: any Store
    public let registry: ConnectionRegistry
    public let config: ServerConfiguration
    public let logger: Logger
    let sendQueue = KeyedSerialQueue()
    /// New messages: group commit, delivered in commit order (``SendPipeline``).
    let pipeline: SendPipeline
    let rateLimiter: RateLimiter
    /// The same limit for changes to messages (edits, deletions, reactions).
    let editLimiter: RateLimiter
    let deliveries: DeliveryCoalescer
    let rosters = ShardedCache<ChannelRoster>()
    let senders = ShardedCache<SenderPayload>()
    let sessionsCreated = Atomic<Int>(0)
    /// Set when a graceful shutdown starts: no new WebSocket connection is taken.
    let shuttingDown = Atomic<Bool>(false)
    public var isShuttingDown: Bool { shuttingDown.load(ordering: .relaxed) }
    /// Who is in which open channel (in memory: entering lasts as long as the connection).
    let rooms = OpenRooms()
    /// Messages broadcast per open channel per second.
    let openBroadcast: RateLimiter
    /// Open channels whose participant count changed since the last `MCNT`.
    let countsToPush = Mutex<Set<String>>([])
    /// The admission control of the listening socket (set when the application is built).
    public let connectionGate = Mutex<ConnectionGate?>(nil)
    /// Uploaded files, encrypted at rest: in the data directory, or in PostgreSQL (nil when the
    /// data directory cannot hold them).
    public let files: FileVault?
    /// Webhook settings and delivery (``WebhookDispatcher``).
    public let webhooks: WebhookDispatcher
    /// Secondary API tokens (nil until loaded), and today's connection peak.
    let apiTokens = Mutex<[String]?>(nil)
    /// Link previews running now (at most so many at once, and per sender).
    public let previews: LinkPreviewGate
    let peaks = Mutex<PeakState>(PeakState())
    /// Bots by user id (nil until loaded).
    let bots = Mutex<[String: BotRecord]?>(nil)
    /// Whether reactions are on for the application (nil until loaded).
    let reactionsOn = Mutex<Bool?>(nil)
    /// The IP allow-list of Platform API calls (nil until loaded; empty: every address).
    let allowList = Mutex<[IPRange]?>(nil)
    /// Profanity and domain filters by key (`global`, `type:<custom type>`; nil until loaded).
    let filters = Mutex<[String: ContentFilter]?>(nil)
    /// Auto event message kinds turned on (nil until loaded).
    let autoEventsOn = Mutex<Set<String>?>(nil)
    /// The other nodes on the same database (nil: this node is alone, as on SQLite).
    public let cluster: (any ClusterLink)?
    /// Who is online and in which open channel on the other nodes.
    let peers = Mutex(ClusterPeers())
    /// This node's own messages held until the channel's earlier ones from other nodes are delivered here.
    let sequencer = Mutex(ChannelSequencer<@Sendable () -> Void>(wait: 2000))
    /// Orders this node's presence events and snapshots in the cluster's log (see
    /// ``userConnectionsChanged(_:)``).
    let presence = Mutex(())
    /// What the event reader read ahead for the other nodes' messages of one read of the log.
    let peerPrefetch = Mutex<PeerPrefetch?>(nil)

    public init(store: any Store, config: ServerConfiguration, logger: Logger, cluster: (any ClusterLink)? = nil) {
        self.store = store
        self.cluster = cluster
        self.config = config
        self.logger = logger
        self.registry = ConnectionRegistry()
        let clock = config.clock
        // PostgreSQL takes several writers: a stalled batch there no longer holds up the other
        // channels (``SendPipeline``); SQLite has one writer, so one batch at a time.
        self.pipeline = SendPipeline(store: store, clock: { clock.nowMs() }, tracksChannels: cluster != nil, lanes: store is PostgresStore ? 4 : 1)
        self.rateLimiter = RateLimiter(perSecond: config.maxMessagesPerSecond)
        self.editLimiter = RateLimiter(perSecond: config.maxMessagesPerSecond)
        self.deliveries = DeliveryCoalescer()
        self.openBroadcast = RateLimiter(perSecond: config.openChannelMessagesPerSecond)
        // A store that keeps blobs itself (PostgreSQL) holds the files for every node; otherwise
        // they live in the data directory.
        if let blobs = store as? any FileBlobStore {
            // Files a node stored in its data directory before keep downloading.
            let dir = config.dataDirectory + "/files"
            let earlier = FileManager.default.fileExists(atPath: dir + "/files.key") ? try? FileVault(directory: dir) : nil
            self.files = FileVault(blobs: blobs, earlier: earlier)
        } else {
            self.files = try? FileVault(directory: config.dataDirectory + "/files")
        }
        self.webhooks = WebhookDispatcher(apiToken: config.apiToken, logger: logger)
        self.previews = LinkPreviewGate(global: config.linkPreviewsAtOnce, perUser: config.linkPreviewsPerUser)
    }

    /// The webhook worker ends with the service (after what is queued).
    deinit { webhooks.finish() }

    var clock: any ServerClock { config.clock }
    func now() -> Int64 { clock.nowMs() }

    /// Flood protection (``ServerConfiguration/maxMessagesPerSecond`` per user in a channel) for
    /// SDK callers on every transport: 900200 on the WebSocket, 500910 (HTTP 429) on REST.
    func checkFlood(_ limiter: RateLimiter, userId: String, channelUrl: String, origin: RequestOrigin, at t: Int64, what: String) throws {
        guard origin.isFloodLimited, !limiter.allow(userId + "\u{0}" + channelUrl, nowMs: t) else { return }
        throw SendbirdError(
            origin == .webSocket ? .tooManyMessages : .rateLimitExceeded,
            "Too many \(what): at most \(Int(config.maxMessagesPerSecond)) per second.")
    }

    // MARK: - Fan-out helpers

    /// Queues `frame` on every connection of every joined member, except connections in `except`
    /// and, when given, all connections of `exceptUser`.
    func fanOut(_ frame: String, to members: [MemberRecord], except: ClientConnection? = nil, exceptUser: String? = nil) {
        for m in members where m.state == "joined" && m.userId != exceptUser {
            for c in registry.connections(of: m.userId) where c.id != except?.id {
                if !c.send(frame) { logger.debug("slow consumer cut off", metadata: ["user": "\(c.userId)"]) }
            }
        }
        if cluster?.hasPeers == true {
            relay(frame, toUsers: members.filter { $0.state == "joined" && $0.userId != exceptUser }.map(\.userId))
        }
    }

    /// Queues `frame` on every connection of `userId` (but `except`), on this node and the others.
    func send(_ frame: String, toUser userId: String, except: ClientConnection? = nil) {
        for c in registry.connections(of: userId) where c.id != except?.id { _ = c.send(frame) }
        relay(frame, toUsers: [userId])
    }

    static func frameText(_ command: Command, _ value: some Encodable) -> String {
        let data = (try? WireCoding.encoder.encode(value)) ?? Data("{}".utf8)
        return command.rawValue + String(decoding: data, as: UTF8.self) + "\n"
    }

    /// Adds `"req_id":"…"` to an encoded JSON object without re-encoding it.
    static func withReqId(_ json: String, _ reqId: String) -> String {
        let escaped = (try? String(decoding: JSONEncoder().encode(reqId), as: UTF8.self)) ?? "\"\""
        guard json.first == "{" else { return json }
        if json == "{}" { return "{\"req_id\":\(escaped)}" }
        return "{\"req_id\":\(escaped)," + json.dropFirst()
    }

    // MARK: - Sender lookups

    func sender(_ userId: String?) async throws -> SenderPayload? {
        guard let id = userId else { return nil }
        if let s = senders[id] { return s }
        guard let u = try await store.user(id) else { return SenderPayload(userId: id) }
        let s = Presenter.sender(u)
        senders.set(id, s)
        return s
    }
}

/// Coalesces delivery receipts (`MACK`) per channel: receivers acknowledge every message, so the
/// receipts are written and pushed (`DLVR`) at most a few times a second per channel, not once
/// per message per member.
final class DeliveryCoalescer: Sendable {
    let pending = Mutex<[String: [String: Int64]]>([:])

    /// Records a receipt; returns true when the caller should schedule a flush for this channel.
    func add(channelUrl: String, userId: String, ts: Int64) -> Bool {
        pending.withLock { map in
            let first = map[channelUrl] == nil
            var entry = map[channelUrl] ?? [:]
            entry[userId] = max(entry[userId] ?? 0, ts)
            map[channelUrl] = entry
            return first
        }
    }

    func take(_ channelUrl: String) -> [String: Int64] {
        pending.withLock { $0.removeValue(forKey: channelUrl) ?? [:] }
    }
}
