import Foundation
public import Logging
public import Synchronization
import TernProtocol

/// The chat domain: who may do what, and what each change tells whom. REST routes and the
/// WebSocket gateway both call it; it calls the ``Store`` and fans events out through the
/// ``ConnectionRegistry``.
///
/// A facade over parts that each own their state, by domain:
/// - ``ApplicationSettingsCache``: the application settings read on hot paths (one load and
///   invalidation rule);
/// - ``OpenChannelState``: who entered which open channel, its broadcast limit, count pushes;
/// - ``ClusterState``: the other nodes' presence and rooms, the message sequencer, read-ahead;
/// - ``FanOut``: frames to users' connections on this node and the others;
/// - ``FloodLimits``: messages and changes per user per channel;
/// - ``SendPipeline``, ``DeliveryCoalescer``, ``WebhookDispatcher``, ``FileVault``, ``LinkPreviewGate``.
public final class ChatService: Sendable {
    public let store: any Store
    public let config: ServerConfiguration
    public let logger: Logger
    let sendQueue = KeyedSerialQueue()
    /// New messages: group commit, delivered in commit order (``SendPipeline``).
    let pipeline: SendPipeline
    let floodLimits: FloodLimits
    let deliveries: DeliveryCoalescer
    let rosters = ShardedCache<ChannelRoster>()
    let senders = ShardedCache<SenderPayload>()
    let sessionsCreated = Atomic<Int>(0)
    /// Set when a graceful shutdown starts: no new WebSocket connection is taken.
    let shuttingDown = Atomic<Bool>(false)
    public var isShuttingDown: Bool { shuttingDown.load(ordering: .relaxed) }
    /// Open channels in memory: participants, broadcast limit, count pushes.
    let openChannels: OpenChannelState
    /// The admission control of the listening socket (set when the application is built).
    public let connectionGate = Mutex<ConnectionGate?>(nil)
    /// Uploaded files, encrypted at rest: in the data directory, or in PostgreSQL (nil when the
    /// data directory cannot hold them).
    public let files: FileVault?
    /// Webhook settings and delivery (``WebhookDispatcher``).
    public let webhooks: WebhookDispatcher
    /// Bots, API tokens, filters, the allow-list, reactions and auto events, as last read.
    let settingsCache: ApplicationSettingsCache
    /// Link previews running now (at most so many at once, and per sender).
    public let previews: LinkPreviewGate
    /// Today's connection peak.
    let peaks = ConnectionPeaks()
    /// The other nodes on the same database (nil: this node is alone, as on SQLite).
    public let cluster: (any ClusterLink)?
    /// What this node knows and holds of the other nodes.
    let clusterState: ClusterState
    /// Frames to users, here and on the other nodes.
    let broadcaster: FanOut
    /// The open WebSocket connections of this node, by user.
    public var registry: ConnectionRegistry { broadcaster.registry }

    public init(store: any Store, config: ServerConfiguration, logger: Logger, cluster: (any ClusterLink)? = nil) {
        self.store = store
        self.cluster = cluster
        self.config = config
        self.logger = logger
        let clusterState = ClusterState(link: cluster)
        self.clusterState = clusterState
        self.broadcaster = FanOut(registry: ConnectionRegistry(), cluster: clusterState, logger: logger)
        let clock = config.clock
        // PostgreSQL takes several writers: a stalled batch there no longer holds up the other
        // channels (``SendPipeline``); SQLite has one writer, so one batch at a time.
        self.pipeline = SendPipeline(
            store: store, clock: { clock.nowMs() }, tracksChannels: cluster != nil,
            channelDone: { [handOvers = clusterState.handOvers] url in handOvers.signal(url) }, lanes: store is PostgresStore ? 4 : 1)
        self.floodLimits = FloodLimits(perSecond: config.maxMessagesPerSecond)
        self.deliveries = DeliveryCoalescer()
        self.openChannels = OpenChannelState(messagesPerSecond: config.openChannelMessagesPerSecond)
        self.settingsCache = ApplicationSettingsCache(store: store) { clusterState.publish(ClusterEvent(.settings)) }
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

    // MARK: - Fan-out (``FanOut``)

    /// Queues `frame` on every connection of every joined member, except connections in `except`
    /// and, when given, all connections of `exceptUser`.
    func fanOut(_ frame: String, to members: [MemberRecord], except: ClientConnection? = nil, exceptUser: String? = nil) {
        broadcaster.fanOut(frame, to: members, except: except, exceptUser: exceptUser)
    }

    /// Queues `frame` on every connection of `userId` (but `except`), on this node and the others.
    func send(_ frame: String, toUser userId: String, except: ClientConnection? = nil) {
        broadcaster.send(frame, toUser: userId, except: except)
    }

    static func frameText(_ command: Command, _ value: some Encodable) -> String {
        let data = (try? WireCoding.encoder.encode(value)) ?? Data("{}".utf8)
        return command.rawValue + String(decoding: data, as: UTF8.self) + "\n"
    }

    /// Adds `"req_id":"…"` to an encoded JSON object without re-encoding it.
    static func withReqId(_ json: String, _ reqId: String) -> String {
        var writer = JSONWriter(capacity: reqId.utf8.count + 8)
        writer.string(reqId)
        let escaped = String(decoding: writer.bytes, as: UTF8.self)
        guard json.first == "{" else { return json }
        if json == "{}" { return "{\"req_id\":\(escaped)}" }
        return "{\"req_id\":\(escaped)," + json.dropFirst()
    }

    // MARK: - Sender lookups

    func sender(_ userId: String?) async throws -> SenderPayload? {
        guard let id = userId else { return nil }
        if let s = senders[id] { return s }
        let generation = senders.generation(id)
        guard let u = try await store.user(id) else { return SenderPayload(userId: id) }
        let s = Presenter.sender(u)
        senders.set(id, s, ifUnchangedSince: generation)
        return s
    }

    /// The payloads of several users, from the sender cache; the ones it lacks are read in one
    /// go and cached (a user that does not exist is presented by id alone, and not cached).
    func senderPayloads(_ userIds: [String]) async throws -> [String: SenderPayload] {
        var out: [String: SenderPayload] = [:]
        var missing: [String: UInt64] = [:]
        for id in userIds {
            if let s = senders[id] { out[id] = s } else { missing[id] = senders.generation(id) }
        }
        guard !missing.isEmpty else { return out }
        for u in try await store.users(Array(missing.keys)) {
            let s = Presenter.sender(u)
            senders.set(u.userId, s, ifUnchangedSince: missing[u.userId])
            out[u.userId] = s
        }
        for id in missing.keys where out[id] == nil { out[id] = SenderPayload(userId: id) }
        return out
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
