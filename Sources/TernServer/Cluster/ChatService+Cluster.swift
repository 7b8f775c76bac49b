import Foundation
import Logging
import NIOCore
import Synchronization
public import TernProtocol

/// The chat service as one node of several (``ClusterLink``): what it publishes for the other
/// nodes, and what it does with what they publish.
extension ChatService: ClusterReceiver {
    // MARK: - Publishing

    /// Publishes a change of state (presence, participants, caches) to the other nodes. Always,
    /// when this node is part of a cluster: a node that looks dead for a moment (its heartbeat
    /// late under load) must not miss a change it would then never hear of. Frames are relayed
    /// only to users online elsewhere (``relay(_:toUsers:close:)``), so a node alone writes none.
    func publish(_ e: ClusterEvent) {
        clusterState.publish(e)
    }

    /// `frame` to the connections of `users` on the other nodes: only the users online there.
    func relay(_ frame: String, toUsers users: [String], close: Bool = false) {
        clusterState.relay(frame, toUsers: users, close: close)
    }

    /// `frame` to the connections that entered open channel `channelUrl` on the other nodes
    /// (``ClusterState/relay(_:toRoom:exceptUser:include:)``).
    func relay(_ frame: String, toRoom channelUrl: String, exceptUser: String? = nil, include: ((String) -> Bool)? = nil) {
        clusterState.relay(frame, toRoom: channelUrl, exceptUser: exceptUser, include: include)
    }

    /// Whether the user has a connection on any node.
    public func isOnline(_ userId: String) -> Bool {
        broadcaster.isOnline(userId)
    }

    /// Open-channel participants on every node, by user id.
    func allParticipants(_ channelUrl: String) -> [String] {
        let local = openChannels.rooms.participants(channelUrl)
        guard clusterState.isClustered else { return local }
        return Set(local).union(clusterState.participantsElsewhere(channelUrl)).sorted()
    }

    /// How many users are in the open channel, on every node.
    func participantCount(_ channelUrl: String) -> Int {
        guard clusterState.isClustered else { return openChannels.rooms.participantCount(channelUrl) }
        return Set(openChannels.rooms.participants(channelUrl)).union(clusterState.participantsElsewhere(channelUrl)).count
    }

    /// A user's connections on this node changed (opened or closed): the other nodes learn how
    /// many there are, for presence and for the cap on connections per user.
    func userConnectionsChanged(_ userId: String) {
        guard cluster != nil else { return }
        // Counted and queued under one lock with snapshots (``snapshot()``): what the log says
        // last about a user is what this node has now, whichever thread published before.
        clusterState.presence.withLock { _ in
            let n = registry.connections(of: userId).count
            publish(ClusterEvent(.presence, user: userId, flag: n > 0, count: n))
        }
    }

    /// The connections a user has on the other nodes (0 without a cluster).
    func connectionsElsewhere(_ userId: String) -> Int {
        clusterState.connectionsElsewhere(userId)
    }

    /// The whole of this node's presence and rooms (the answer to a new node's `hello`).
    func snapshot() -> ClusterEvent {
        var counts: [String: Int] = [:]
        for c in registry.all() { counts[c.userId, default: 0] += 1 }
        let users = Set(counts.keys)
        var byRoom: [String: [String]] = [:]
        for (url, ids) in openChannels.rooms.allParticipants() { byRoom[url] = ids }
        return ClusterEvent(.snapshot, users: users.sorted(), rooms: byRoom, counts: counts)
    }

    // MARK: - Receiving

    public func clusterEvent(_ r: ReceivedClusterEvent) async -> Bool {
        let e = r.event
        switch e.kind {
        case .message:
            guard let url = e.channel, let id = e.messageId else { return true }
            do {
                try await deliverFromPeer(channelUrl: url, messageId: id, record: r.message)
            } catch {
                logger.warning("cluster: message \(id) in \(url) not delivered here yet: \(error)")
                return false
            }
            clusterState.sequencer.withLock { q in for deliver in q.passed(url, id: id) { deliver() } }
            // The sender's flood limit is the cluster's: a send another node accepted counts here too.
            if e.floodLimited, let sender = r.message?.senderId {
                floodLimits.charge(messageBy: sender, in: url, at: now())
            }
        case .users:
            guard let frame = e.frame else { return true }
            for u in e.users ?? [] {
                for c in registry.connections(of: u) {
                    _ = c.send(frame)
                    if e.close == true { c.outbox.close() }
                }
            }
        case .room:
            guard let frame = e.frame, let url = e.channel else { return true }
            let only = e.users.map(Set.init)
            for c in openChannels.rooms.connections(in: url) where c.userId != e.user && (only?.contains(c.userId) ?? true) { _ = c.send(frame) }
        case .invalidate:
            if let url = e.channel { rosters.remove(url) }
            if let u = e.user { senders.remove(u) }
            if e.channel == nil && e.user == nil {
                rosters.removeAll()
                senders.removeAll()
            }
        case .settings:
            forgetSettings()
        case .presence, .snapshot, .bye, .participant:
            for url in clusterState.apply(e, from: r.node) { participantCountChanged(url) }
        case .expel:
            clusterState.apply(e, from: r.node)
            if let url = e.channel, let u = e.user, openChannels.rooms.expel(u, from: url) != nil { participantCountChanged(url) }
        case .closeRoom:
            clusterState.apply(e, from: r.node)
            if let url = e.channel { _ = openChannels.rooms.close(url) }
        case .hello:
            // Taken and queued under the presence lock: a connection that opens or closes while
            // the snapshot is taken publishes its change after it, not before.
            clusterState.presence.withLock { _ in clusterState.publish(snapshot()) }
        }
        return true
    }

    /// The reader reached this node's own message: everything before it in the log is delivered
    /// here. If the message is still on its way out of the send pipeline (the commit's doorbell
    /// can be quicker than the pipeline), the reader waits until the pipeline hands it over or is
    /// done with the channel (``HandOverWaits``), so that another node's later message does not
    /// overtake it (at most 200 ms).
    ///
    /// A message of this node that the log says was committed but that the send path never handed
    /// over (the database's answer to its COMMIT was lost with the connection: the sender was told
    /// it failed, and its resend will be answered with the stored message) is delivered from the
    /// store here, to this node's members, as another node's would be — else they would never see
    /// it while the other nodes' members do. A late hand-over of it then only acknowledges.
    public func clusterOwnMessage(channel: String, messageId: Int64) async {
        await clusterState.handOvers.wait(for: channel, timeout: .milliseconds(200)) { [clusterState, pipeline] in
            clusterState.sequencer.withLock { $0.handedOver(channel, id: messageId) } || !pipeline.isStoring(channel)
        }
        if clusterState.sequencer.withLock({ $0.claimForLog(channel, id: messageId) }) {
            logger.notice("cluster: message \(messageId) in \(channel) was committed without this node hearing so: delivering it from the log")
            do {
                try await deliverFromPeer(channelUrl: channel, messageId: messageId)
            } catch {
                logger.warning("cluster: own message \(messageId) in \(channel) not delivered here: \(error)")
            }
        }
        clusterState.sequencer.withLock { q in for deliver in q.reached(channel, id: messageId) { deliver() } }
    }

    public func clusterTick() {
        let late = clusterState.sequencer.withLock { q in
            let due = q.expire(now: now())
            for deliver in due { deliver() }
            return due.count
        }
        if late > 0 { logger.warning("cluster: \(late) message(s) held past their wait for the channel's earlier messages") }
    }

    public func clusterPeerGone(_ node: String) {
        for url in clusterState.forget(node: node) { participantCountChanged(url) }
    }

    /// Drops every cached application setting (another node changed one).
    func forgetSettings() {
        settingsCache.forgetAll()
        webhooks.forget()
    }

    /// Tells the other nodes that the application's settings changed.
    func settingsChanged() { publish(ClusterEvent(.settings)) }

    /// Reads ahead for the other nodes' messages of one read of the log: the unread totals of
    /// their recipients here, and the profiles of the users they name (into the sender cache),
    /// one read each instead of one per message (each message's copy then carries its recipient's
    /// totals as of that read: the same or later than right after it, and the `ts` orders them).
    /// `brought`: the totals the read of the log brought along (``clusterTotalsWanted(channels:)``);
    /// when they cover every recipient, nothing more is read. Nil events: forget it.
    public func clusterPrepare(_ events: [ReceivedClusterEvent], totals brought: [String: UnreadCount]?) async {
        clusterState.prefetch.withLock { $0 = nil }
        let messages = events.compactMap { e -> (String, MessageRecord)? in
            guard e.event.kind == .message, let url = e.event.channel, let m = e.message else { return nil }
            return (url, m)
        }
        guard !messages.isEmpty else { return }
        var recipients = Set<String>()
        var named = Set<String>()
        for (url, m) in messages {
            guard let roster = try? await roster(url), !roster.channel.isOpen else { continue }
            recipients.formUnion(Self.recipients(of: m, among: localMembers(roster)))
            named.formUnion(Self.named(by: m))
        }
        if !named.isEmpty { _ = try? await senderPayloads(Array(named)) }
        if let brought, recipients.allSatisfy({ brought[$0] != nil }) {
            clusterState.prefetch.withLock { $0 = PeerPrefetch(totals: brought) }
            return
        }
        // One message: its copy reads its recipients' totals itself, as one read here would.
        guard messages.count > 1, !recipients.isEmpty, let totals = try? await store.unreadTotals(Array(recipients), at: now()) else { return }
        clusterState.prefetch.withLock { $0 = PeerPrefetch(totals: totals) }
    }

    /// The users whose unread totals the next read of the log brings along for other nodes'
    /// messages in `channels`: their joined members connected here, as the cached rosters have
    /// them (a channel not cached, or more than ``maxTotalsBroughtAlong`` users: none, and the
    /// copies read their totals themselves).
    public func clusterTotalsWanted(channels: Set<String>) -> [String] {
        var users = Set<String>()
        for url in channels {
            guard let roster = rosters[url], !roster.channel.isOpen else { continue }
            users.formUnion(localMembers(roster).map(\.userId))
            if users.count > Self.maxTotalsBroughtAlong { return [] }
        }
        return Array(users)
    }

    /// At most this many users' totals ride along with one read of the cluster's log.
    static let maxTotalsBroughtAlong = 2000

    /// A channel's joined members connected to this node.
    func localMembers(_ roster: ChannelRoster) -> [MemberRecord] {
        roster.members.filter { $0.state == "joined" && registry.isOnline($0.userId) }
    }

    /// Who among `members` gets another node's message with their unread totals: not its sender,
    /// not a member it is hidden from.
    static func recipients(of m: MessageRecord, among members: [MemberRecord]) -> [String] {
        members.map(\.userId).filter { $0 != m.senderId && $0 != m.hiddenFor }
    }

    /// The users a message names (its sender and mentions), whose profiles its copy carries.
    static func named(by m: MessageRecord) -> [String] {
        Array(Set(m.mentionedUserIds + [m.senderId].compactMap { $0 }))
    }

    /// A message committed on another node: read from the messages table (the truth) and
    /// delivered to this node's connections of the channel's members, each copy with the
    /// recipient's `unread_cnt`, as the sending node does for its own (``fanOutMessage``).
    /// Open channels' messages arrive as frames (``relay(_:toRoom:exceptUser:include:)``): their
    /// broadcast depends on the sending node's per-channel limit.
    /// `record` is the message when the event read brought it along (else it is read here).
    func deliverFromPeer(channelUrl: String, messageId: Int64, record: MessageRecord? = nil) async throws {
        guard let roster = try await roster(channelUrl), !roster.channel.isOpen else { return }
        let local = localMembers(roster)
        guard !local.isEmpty else { return }
        var found = record
        if found == nil { found = try await store.message(channelUrl, id: messageId) }
        guard let m = found else { return }
        let recipients = Self.recipients(of: m, among: local)
        let wanted = Self.named(by: m)
        let ahead = clusterState.prefetch.withLock { $0 }
        var totals: [String: UnreadCount] = [:]
        if let ahead, recipients.allSatisfy({ ahead.totals[$0] != nil }) {
            for r in recipients { totals[r] = ahead.totals[r] }
        } else if !recipients.isEmpty {
            totals = try await store.unreadTotals(recipients, at: now())
        }
        // The sender cache, as the sending node's own copies use theirs (kept true across nodes
        // by the `invalidate` events of user changes).
        let senders = try await senderPayloads(wanted)
        var payload = Presenter.message(m, senders: senders, channelType: roster.channel.channelType)
        if m.parentMessageId != 0, let parent = try await store.message(channelUrl, id: m.parentMessageId) {
            payload.parentMessageInfo = Presenter.parentInfo(parent, users: try await usersById([parent.senderId].compactMap { $0 }))
        }
        let json = String(decoding: try WireCoding.encoder.encode(payload), as: UTF8.self)
        // A message's type is its command (`MESG`, `FILE`, `ADMM`).
        fanOutNow(m.type, json, to: local, except: nil, stored: StoredMessage(message: m, duplicate: false, totals: totals))
    }
}

/// See ``ChatService/clusterPrepare(_:totals:)``.
struct PeerPrefetch: Sendable {
    var totals: [String: UnreadCount]
}
