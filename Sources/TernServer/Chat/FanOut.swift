import Logging

/// Frames to users: queues a frame on every connection this node has for the users
/// (``ConnectionRegistry``) and relays it to the other nodes for theirs (``ClusterState``).
/// A connection that cannot take more (a slow consumer) is cut off by its outbox.
final class FanOut: Sendable {
    /// The open WebSocket connections of this node, by user.
    let registry: ConnectionRegistry
    let cluster: ClusterState
    let logger: Logger

    init(registry: ConnectionRegistry, cluster: ClusterState, logger: Logger) {
        self.registry = registry
        self.cluster = cluster
        self.logger = logger
    }

    /// Queues `frame` on every connection of every joined member, except connections in `except`
    /// and, when given, all connections of `exceptUser`.
    func fanOut(_ frame: String, to members: [MemberRecord], except: ClientConnection? = nil, exceptUser: String? = nil) {
        for m in members where m.state == "joined" && m.userId != exceptUser {
            for c in registry.connections(of: m.userId) where c.id != except?.id {
                if !c.send(frame) { logger.debug("slow consumer cut off", metadata: ["user": "\(c.userId)"]) }
            }
        }
        if cluster.hasPeers {
            cluster.relay(frame, toUsers: members.filter { $0.state == "joined" && $0.userId != exceptUser }.map(\.userId))
        }
    }

    /// Queues `frame` on every connection of `userId` (but `except`), on this node and the others.
    func send(_ frame: String, toUser userId: String, except: ClientConnection? = nil) {
        for c in registry.connections(of: userId) where c.id != except?.id { _ = c.send(frame) }
        cluster.relay(frame, toUsers: [userId])
    }

    /// Whether the user has a connection on any node.
    func isOnline(_ userId: String) -> Bool {
        registry.isOnline(userId) || cluster.isOnlineElsewhere(userId)
    }
}
