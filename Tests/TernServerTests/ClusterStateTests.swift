import Foundation
import Testing

@testable import TernServer

/// The cluster's state machines, without a database: the event cursor (gaps from transactions
/// that commit out of id order) and what a node knows of the others.
@Suite("Cluster state: event cursor and peers")
struct ClusterStateTests {
    @Test("The cursor hands out each id once, waits for a gap until it is filled or times out, and never moves past an unseen id early")
    func cursorGaps() {
        var c = EventCursor(horizon: 10, gapTimeout: 1000)
        #expect(c.accept([11, 12], now: 0) == [11, 12])
        #expect(c.horizon == 12 && c.seen.isEmpty)
        // 13 is taken by a transaction still open: 14 and 15 come first.
        #expect(c.accept([14, 15], now: 100) == [14, 15])
        #expect(c.horizon == 12 && c.gaps.keys.sorted() == [13] && c.handledAbove == [14, 15])
        // Read again (the query skips handled ids, but a repeat must not deliver twice).
        #expect(c.accept([14, 15], now: 200).isEmpty)
        // 13 commits: delivered, and the horizon moves over 13…15.
        #expect(c.accept([13], now: 300) == [13])
        #expect(c.horizon == 15 && c.seen.isEmpty && c.gaps.isEmpty)
        // 16 rolled back: after the timeout the horizon moves past it.
        #expect(c.accept([17], now: 400) == [17])
        c.advance(now: 1300)
        #expect(c.horizon == 15, "not before the timeout")
        c.advance(now: 1400)
        #expect(c.horizon == 17 && c.gaps.isEmpty)
        // A late 16 (after giving up) is not delivered: it is below the horizon.
        #expect(c.accept([16], now: 1500).isEmpty)
    }

    @Test("Peers: presence and participants from events and snapshots; closing, expelling and forgetting a node")
    func peers() {
        var p = ClusterPeers()
        p.apply(ClusterEvent(.presence, user: "bob", flag: true), from: "b")
        p.apply(ClusterEvent(.participant, user: "bob", channel: "lobby", flag: true), from: "b")
        p.apply(ClusterEvent(.snapshot, users: ["carol"], rooms: ["lobby": ["carol"], "den": ["carol"]]), from: "c")
        #expect(p.isOnline("bob") && p.isOnline("carol") && !p.isOnline("alice"))
        #expect(p.participants("lobby") == ["bob", "carol"])
        #expect(p.online(among: ["alice", "bob"]) == ["bob"])
        p.apply(ClusterEvent(.expel, user: "bob", channel: "lobby"), from: "a")
        #expect(p.participants("lobby") == ["carol"])
        p.apply(ClusterEvent(.closeRoom, channel: "den"), from: "a")
        #expect(p.participants("den").isEmpty)
        p.apply(ClusterEvent(.presence, user: "bob", flag: false), from: "b")
        #expect(!p.isOnline("bob"))
        p.forget("c")
        #expect(!p.isOnline("carol") && p.participants("lobby").isEmpty)
        p.apply(ClusterEvent(.presence, user: "dan", flag: true), from: "d")
        p.apply(ClusterEvent(.bye), from: "d")
        #expect(!p.isOnline("dan"))
    }

    @Test("Events round-trip through the log's body; a message event is the trigger's bare id")
    func eventCoding() {
        let e = ClusterEvent(.users, frame: "MESG{}\n", users: ["a", "b"], close: true)
        #expect(ClusterEvent.decode(kind: "users", channel: nil, body: e.body) == e)
        let m = ClusterEvent.decode(kind: "msg", channel: "ch", body: "42")
        #expect(m?.kind == .message && m?.messageId == 42 && m?.channel == "ch")
        #expect(ClusterEvent.decode(kind: "users", channel: nil, body: "not json") == nil)
    }
}
