import Logging
import Synchronization
import TernProtocol
import Testing

@testable import TernServer

/// A link that records what is published and has peers when told (no database).
final class RecordingClusterLink: ClusterLink {
    let nodeId = "a"
    let published = Mutex<[ClusterEvent]>([])
    let peersAlive = Atomic<Bool>(true)
    func publish(_ events: [ClusterEvent]) { published.withLock { $0 += events } }
    func publishAndWait(_ events: [ClusterEvent]) async { publish(events) }
    func catchUp() async {}
    var hasPeers: Bool { peersAlive.load(ordering: .relaxed) }
    var kinds: [ClusterEvent.Kind] { published.withLock { $0.map(\.kind) } }
}

/// ``ClusterState`` and ``FanOut`` on their own: what a node knows of the others, what it relays.
@Suite("Cluster state and fan-out")
struct ClusterStatePartTests {
    @Test("Alone: nobody elsewhere, nothing published")
    func alone() {
        let state = ClusterState(link: nil)
        state.apply(ClusterEvent(.presence, user: "bob", flag: true), from: "b")
        #expect(!state.isClustered && !state.isOnlineElsewhere("bob") && state.connectionsElsewhere("bob") == 0)
        #expect(state.participantsElsewhere("lobby").isEmpty)
        state.relay("x", toUsers: ["bob"])
    }

    @Test("Peer events: the open channels they touch; a node that goes takes its participants")
    func apply() {
        let state = ClusterState(link: RecordingClusterLink())
        #expect(state.apply(ClusterEvent(.participant, user: "bob", channel: "lobby", flag: true), from: "b") == ["lobby"])
        #expect(
            state.apply(ClusterEvent(.snapshot, users: ["bob"], rooms: ["lobby": ["bob"], "den": ["bob"]], counts: ["bob": 2]), from: "b") == [
                "den", "lobby",
            ])
        #expect(state.isOnlineElsewhere("bob") && state.connectionsElsewhere("bob") == 2)
        #expect(state.participantsElsewhere("den") == ["bob"])
        #expect(state.apply(ClusterEvent(.presence, user: "carol", flag: true), from: "c").isEmpty)
        #expect(state.forget(node: "b") == ["den", "lobby"])
        #expect(!state.isOnlineElsewhere("bob") && state.isOnlineElsewhere("carol"))
    }

    @Test("Frames are relayed only to users online elsewhere, and only while a peer is alive")
    func relay() {
        let link = RecordingClusterLink()
        let state = ClusterState(link: link)
        state.apply(ClusterEvent(.presence, user: "bob", flag: true), from: "b")
        state.apply(ClusterEvent(.participant, user: "bob", channel: "lobby", flag: true), from: "b")
        state.relay("x", toUsers: ["alice"])
        #expect(link.kinds.isEmpty, "alice is on no other node")
        state.relay("x", toUsers: ["alice", "bob"])
        #expect(link.published.withLock { $0.last?.users } == ["bob"])
        state.relay("y", toRoom: "lobby", include: { $0 != "bob" })
        #expect(link.kinds == [.users], "nobody accepted there")
        state.relay("y", toRoom: "lobby")
        #expect(link.kinds == [.users, .room])
        link.peersAlive.store(false, ordering: .relaxed)
        state.relay("z", toUsers: ["bob"])
        #expect(link.kinds.count == 2)
    }

    @Test("Fan-out queues a frame on each joined member's connections here, but the excepted ones, and relays for the rest")
    func fanOut() {
        let link = RecordingClusterLink()
        let state = ClusterState(link: link)
        state.apply(ClusterEvent(.presence, user: "bob", flag: true), from: "b")
        let registry = ConnectionRegistry()
        let a1 = registry.register(userId: "alice", outbox: Outbox(limit: 1 << 20), limit: 10)!
        let a2 = registry.register(userId: "alice", outbox: Outbox(limit: 1 << 20), limit: 10)!
        let out = FanOut(registry: registry, cluster: state, logger: .init(label: "test"))
        let members = ["alice", "bob"].map {
            MemberRecord(
                channelUrl: "c", userId: $0, state: "joined", role: "none", joinedTs: 0, invitedAt: 0, readTs: 0, deliveredTs: 0,
                unreadCount: 0, unreadMentionCount: 0, inviterId: nil, hiddenState: "unhidden", tsMessageOffset: 0)
        }
        out.fanOut("MESG{}\n", to: members, except: a2)
        #expect(a1.outbox.queuedBytes > 0 && a2.outbox.queuedBytes == 0)
        #expect(link.published.withLock { $0.last?.users } == ["bob"])
        #expect(out.isOnline("alice") && out.isOnline("bob") && !out.isOnline("carol"))
    }
}
