import Foundation
import TernProtocol
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
    @Test("Peers: a user's connections on the other nodes, from presence counts and snapshots")
    func peerConnections() {
        var p = ClusterPeers()
        p.apply(ClusterEvent(.presence, user: "ann", flag: true, count: 2), from: "b")
        p.apply(ClusterEvent(.snapshot, users: ["ann", "bob"], rooms: [:], counts: ["ann": 3]), from: "c")
        #expect(p.connections(of: "ann") == 5 && p.connections(of: "bob") == 1 && p.connections(of: "zed") == 0)
        p.apply(ClusterEvent(.presence, user: "ann", flag: true, count: 1), from: "b")
        #expect(p.connections(of: "ann") == 4)
        p.apply(ClusterEvent(.presence, user: "ann", flag: false, count: 0), from: "b")
        p.forget("c")
        #expect(p.connections(of: "ann") == 0 && !p.isOnline("ann"))
    }

    @Test("Sequencer: a node's own message waits for the channel's earlier message from another node, then goes in order")
    func sequencerChains() {
        var q = ChannelSequencer<Int64>(wait: 2000)
        // Nothing known of the channel yet, first message ever: goes at once.
        #expect(q.local("c", id: 100, previous: 0, now: 0, item: 100) == [100])
        // Its successor from this node chains on it.
        #expect(q.local("c", id: 101, previous: 100, now: 0, item: 101) == [101])
        // Another node stored 102; this node stored 103 after it, and 104: both wait for 102.
        #expect(q.local("c", id: 103, previous: 102, now: 10, item: 103).isEmpty)
        #expect(q.local("c", id: 104, previous: 103, now: 11, item: 104).isEmpty)
        #expect(q.heldCount == 2)
        // Another channel is not held up by it.
        #expect(q.local("d", id: 105, previous: 0, now: 12, item: 105) == [105])
        // 102 delivered here: 103 and 104 follow, in order.
        #expect(q.passed("c", id: 102) == [103, 104])
        #expect(q.heldCount == 0 && q.last["c"] == 104)
        // A late event of an older message does not move the channel back.
        #expect(q.passed("c", id: 99).isEmpty && q.last["c"] == 104)
        // A deleted last message: the channel's previous one is older than what passed; goes at once.
        #expect(q.local("c", id: 110, previous: 101, now: 20, item: 110) == [110])
    }

    @Test("Sequencer: a channel unknown here waits for its own event in the log; a wait that runs out lets messages go in order")
    func sequencerReachedAndExpired() {
        var q = ChannelSequencer<Int64>(wait: 2000)
        // Node just started: the previous message (50) is not known here.
        #expect(q.local("c", id: 60, previous: 50, now: 0, item: 60).isEmpty)
        #expect(q.handedOver("c", id: 60) && !q.handedOver("c", id: 61), "the reader can tell whether the send path handed a message over")
        #expect(q.local("c", id: 61, previous: 60, now: 1, item: 61).isEmpty)
        // The reader reached 60's own event: every earlier event is handled; 61 chains on it.
        #expect(q.reached("c", id: 60) == [60, 61])
        // The reader may reach the own event before the send path hands the message over.
        #expect(q.reached("c", id: 70).isEmpty)
        #expect(q.local("c", id: 70, previous: 65, now: 5, item: 70) == [70])
        // The log cannot be read: after the wait the held messages go, oldest first.
        #expect(q.local("c", id: 80, previous: 75, now: 100, item: 80).isEmpty)
        #expect(q.local("c", id: 81, previous: 80, now: 1500, item: 81).isEmpty)
        #expect(q.expire(now: 2099).isEmpty)
        #expect(q.expire(now: 2100) == [80, 81], "81 chains on 80 once 80 goes")
        #expect(q.heldCount == 0)
    }

    @Test("Sequencer: an own message the log says was committed but the send path never handed over is the reader's to deliver, once")
    func sequencerLostCommitAnswer() {
        var q = ChannelSequencer<Int64>(wait: 2000)
        #expect(q.local("c", id: 10, previous: 0, now: 0, item: 10) == [10])
        // The send path handed 10 over: the reader, reaching 10's event, leaves it alone.
        let claimed1 = q.claimForLog("c", id: 10)
        #expect(!claimed1)
        #expect(q.reached("c", id: 10).isEmpty)
        // 11's COMMIT went through but its answer was lost: the send path never hands it over, and
        // a later message 12 from this node does not hide that.
        #expect(q.local("c", id: 12, previous: 11, now: 5, item: 12).isEmpty, "12 waits for 11")
        let claimed2 = q.claimForLog("c", id: 11)
        #expect(claimed2, "the reader delivers 11 from the store")
        #expect(q.reached("c", id: 11) == [12], "then 12 follows, in order")
        // A COMMIT answer that was only late: the reader delivered 13; the late hand-over only acknowledges.
        let claimed3 = q.claimForLog("c", id: 13)
        #expect(claimed3)
        #expect(q.reached("c", id: 13).isEmpty)
        #expect(q.local("c", id: 13, previous: 12, now: 9, item: 13, ackOnly: -13) == [-13])
        // A message delivered without being held (nothing to order it after) counts as handed over.
        q.markHanded("c", id: 14)
        let claimed4 = q.claimForLog("c", id: 14)
        #expect(!claimed4)
        #expect(q.reached("c", id: 14).isEmpty && q.handedIds["c"] == nil, "what the reader passed is forgotten")
    }

    @Test("Unread ledger: counting, mentions, blocks, auto-unhide, the sender's read, supergroups' cap and totals by custom type")
    func unreadLedger() {
        typealias M = UnreadLedger.Member
        var ledger = UnreadLedger()
        var ch = UnreadLedger.Channel(customType: "team", isSuper: false, joinedMemberCount: 4, lastMessageId: 0)
        ch.members = [
            "ann": M(state: "joined", countPreference: "all", hiddenState: "unhidden", unread: 3, mentions: 1, readTs: 5),
            "bob": M(
                state: "joined", countPreference: "unread_mention_count_only", hiddenState: "hidden_allow_auto_unhide", unread: 0, mentions: 0,
                readTs: 0),
            "cat": M(state: "joined", countPreference: "all", hiddenState: "unhidden", unread: 0, mentions: 0, readTs: 0),
            "dan": M(state: "invited", countPreference: "all", hiddenState: "unhidden", unread: 0, mentions: 0, readTs: 0),
        ]
        ledger.channels["c"] = ch
        ledger.addOutside("cat", type: "team", count: 2)
        ledger.addOutside("cat", type: "", count: 5)
        // ann writes, mentioning bob and cat; cat blocks ann.
        ledger.channels["c"]!.apply(
            sender: "ann", silent: false, mentionType: "users", mentioned: ["bob", "cat"], blockers: ["cat"], markSenderRead: true, createdAt: 9)
        var c = ledger.channels["c"]!
        #expect(c.members["ann"]!.unread == 0 && c.members["ann"]!.mentions == 0 && c.members["ann"]!.readTs == 9)
        #expect(c.members["bob"]!.unread == 0 && c.members["bob"]!.mentions == 1 && c.members["bob"]!.hiddenState == "unhidden")
        #expect(c.members["cat"]!.unread == 0 && !c.members["cat"]!.changed, "a blocker is left out")
        #expect(!c.members["dan"]!.changed, "only joined members count")
        // An admin message (no sender) counts for everyone joined; a silent one counts for nobody.
        ledger.channels["c"]!.apply(
            sender: nil, silent: false, mentionType: "channel", mentioned: [], blockers: [], markSenderRead: false, createdAt: 10)
        ledger.channels["c"]!.apply(
            sender: "bob", silent: true, mentionType: "users", mentioned: [], blockers: [], markSenderRead: false, createdAt: 11)
        c = ledger.channels["c"]!
        #expect(c.members["ann"]!.unread == 1 && c.members["ann"]!.mentions == 1)
        #expect(c.members["cat"]!.unread == 1 && c.members["bob"]!.mentions == 2 && c.members["bob"]!.unread == 0)
        let t = ledger.totals(["cat", "ann", "zed"], ts: 42)
        #expect(t["cat"] == UnreadCount(all: 8, customTypes: ["team": 3], ts: 42))
        #expect(t["ann"] == UnreadCount(all: 1, customTypes: ["team": 1], ts: 42))
        #expect(t["zed"] == UnreadCount(all: 0, ts: 42))
        // A supergroup counts at most 100 in the totals; a 1:1 channel hides a message from a blocker.
        var big = UnreadLedger.Channel(customType: "", isSuper: true, joinedMemberCount: 2, lastMessageId: 0)
        big.members["ann"] = M(state: "joined", countPreference: "all", hiddenState: "unhidden", unread: 150, mentions: 0, readTs: 0)
        #expect(big.contribution(of: "ann") == 100 && big.hiddenFor(blockers: ["ann"]) == nil)
        #expect(ch.hiddenFor(blockers: ["bob"]) == nil)
        let pair = UnreadLedger.Channel(customType: "", isSuper: false, joinedMemberCount: 2, lastMessageId: 0)
        #expect(pair.hiddenFor(blockers: ["bob"]) == "bob")
    }
}
