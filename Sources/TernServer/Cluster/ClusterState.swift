import Synchronization

/// What one node knows and holds of the cluster it is part of (``ClusterLink``): who is online
/// and in which open channel on the other nodes (``ClusterPeers``), this node's own messages held
/// until the channel's earlier ones from other nodes are delivered here (``ChannelSequencer``),
/// the lock that orders this node's presence events and snapshots in the log, and what the event
/// reader read ahead for the other nodes' messages (``PeerPrefetch``).
///
/// Without a link (one node, as on SQLite) nobody is elsewhere: every question about the other
/// nodes answers "none", and nothing is published.
final class ClusterState: Sendable {
    /// The other nodes on the same database (nil: this node is alone).
    let link: (any ClusterLink)?
    /// Who is online and in which open channel on the other nodes.
    let peers = Mutex(ClusterPeers())
    /// This node's own messages held until the channel's earlier ones from other nodes are delivered here.
    let sequencer = Mutex(ChannelSequencer<@Sendable () -> Void>(wait: 2000))
    /// Orders this node's presence events and snapshots in the cluster's log (see
    /// ``ChatService/userConnectionsChanged(_:)``).
    let presence = Mutex(())
    /// What the event reader read ahead for the other nodes' messages of one read of the log.
    let prefetch = Mutex<PeerPrefetch?>(nil)
    /// Where the event reader waits for this node's send path to hand a message over.
    let handOvers = HandOverWaits()

    init(link: (any ClusterLink)?) {
        self.link = link
    }

    /// Whether this node is one of several (a link exists, whether or not another node is alive).
    var isClustered: Bool { link != nil }

    /// Whether another node was alive at the last heartbeat.
    var hasPeers: Bool { link?.hasPeers == true }

    /// Publishes events for the other nodes (nothing when alone).
    func publish(_ events: ClusterEvent...) { link?.publish(events) }

    // MARK: - The other nodes

    /// Whether the user has a connection on another node.
    func isOnlineElsewhere(_ userId: String) -> Bool {
        isClustered && peers.withLock { $0.isOnline(userId) }
    }

    /// The connections a user has on the other nodes.
    func connectionsElsewhere(_ userId: String) -> Int {
        isClustered ? peers.withLock { $0.connections(of: userId) } : 0
    }

    /// The participants of an open channel on the other nodes.
    func participantsElsewhere(_ channelUrl: String) -> Set<String> {
        isClustered ? peers.withLock { $0.participants(channelUrl) } : []
    }

    /// Applies another node's presence or open-channel event (or this node's own change, from
    /// `""`); returns the open channels whose participants may have changed.
    @discardableResult
    func apply(_ e: ClusterEvent, from node: String) -> [String] {
        peers.withLock { p in
            let before = p.peers[node]?.rooms.keys.map { $0 } ?? []
            p.apply(e, from: node)
            let after = p.peers[node]?.rooms.keys.map { $0 } ?? []
            switch e.kind {
            case .presence, .snapshot, .bye: return Array(Set(before).union(after)).sorted()
            default: return e.channel.map { [$0] } ?? []
            }
        }
    }

    /// Forgets a node that stopped; returns the open channels it had participants in.
    func forget(node: String) -> [String] {
        peers.withLock { p in
            let urls = p.peers[node].map { Array($0.rooms.keys) } ?? []
            p.forget(node)
            return urls.sorted()
        }
    }

    // MARK: - Relaying frames

    /// Publishes `frame` for the connections of `users` on the other nodes: only the users online
    /// there (nothing when no other node is alive).
    func relay(_ frame: String, toUsers users: [String], close: Bool = false) {
        guard hasPeers else { return }
        let remote = peers.withLock { $0.online(among: users) }
        guard !remote.isEmpty else { return }
        publish(ClusterEvent(.users, frame: frame, users: remote, close: close ? true : nil))
    }

    /// Publishes `frame` for the connections that entered open channel `channelUrl` on the other
    /// nodes, never for `exceptUser`'s. Without `include`, every node sends it to whoever is
    /// inside there when it arrives; with it, only to the participants known here whom it accepts.
    func relay(_ frame: String, toRoom channelUrl: String, exceptUser: String? = nil, include: ((String) -> Bool)? = nil) {
        guard hasPeers else { return }
        guard let include else {
            publish(ClusterEvent(.room, frame: frame, user: exceptUser, channel: channelUrl))
            return
        }
        let remote = peers.withLock { $0.participants(channelUrl) }.filter { $0 != exceptUser && include($0) }
        guard !remote.isEmpty else { return }
        publish(ClusterEvent(.room, frame: frame, users: remote.sorted(), user: exceptUser, channel: channelUrl))
    }
}
