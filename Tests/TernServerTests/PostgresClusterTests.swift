import Foundation
import Logging
import Synchronization
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// The cluster's link on PostgreSQL (``PostgresCluster``): what its doorbell says and what one read
/// of the log brings along for another node's messages.
@Suite("PostgresCluster: the doorbell and the read of the log")
struct PostgresClusterTests {
    @Test("A doorbell names another node's message's channel; its own bells, other kinds and an older build's bells name none")
    func doorbellPayloads() {
        #expect(PostgresCluster.peerMessageChannel("17 msg node-b group_1", me: "node-a") == "group_1")
        // A channel URL is the payload's tail, spaces and all.
        #expect(PostgresCluster.peerMessageChannel("17 msg node-b a b c", me: "node-a") == "a b c")
        #expect(PostgresCluster.peerMessageChannel("17 msg node-a group_1", me: "node-a") == nil, "this node's own message")
        #expect(PostgresCluster.peerMessageChannel("17 presence node-b ", me: "node-a") == nil, "not a message")
        #expect(PostgresCluster.peerMessageChannel("17 msg node-b ", me: "node-a") == nil, "no channel")
        #expect(PostgresCluster.peerMessageChannel("17 group_1", me: "node-a") == nil, "an older build's bell: id and channel")
        #expect(PostgresCluster.peerMessageChannel("", me: "node-a") == nil)
    }

    static func user(_ id: String) -> UserRecord {
        UserRecord(userId: id, nickname: id, profileUrl: "", metadata: [:], createdAt: 1, lastSeenAt: 0, hasEverLoggedIn: false, isActive: true)
    }

    @Test("One read of the log brings node A's messages and the unread totals asked for, as a read of the totals alone gives them")
    func readBringsTotals() async throws {
        let url = try await StoreKind.postgres.newLocation()
        let a = try await PostgresStore(url: url, nodeId: "node-a")
        let b = try await PostgresStore(url: url, nodeId: "node-b")
        let users = ["alice", "bob", "carol", "dave"]
        for u in users { _ = try await a.createUser(Self.user(u)) }
        // Three channels, two custom types, one a supergroup (which counts at most 100 each): bob
        // and carol in all, dave only in the last; carol counts nothing in "quiet".
        for (channel, type, isSuper) in [("team", "work", false), ("quiet", "", false), ("big", "work", true)] {
            _ = try await a.createGroupChannel(
                NewGroupChannel(
                    channelUrl: channel, name: "", coverUrl: "", customType: type, data: "", creator: "alice",
                    userIds: channel == "big" ? users : ["alice", "bob", "carol"], operatorIds: [], isDistinct: false, isPublic: false,
                    isSuper: isSuper, isEphemeral: false, createdAt: 1, nowMs: 1))
        }
        #expect(try await a.setCountPreference("quiet", userId: "carol", "off"))
        var sent: [Int64] = []
        for (i, channel) in ["team", "quiet", "big", "team", "big", "big"].enumerated() {
            let m = NewMessage(
                channelUrl: channel, type: "MESG", senderId: "alice", message: "m\(i)", customType: "", data: "", mentionType: "users",
                mentionedUserIds: [], silent: false, isOpMsg: false, createdAt: Int64(100 + i), reqId: "r\(i)", persist: true,
                markSenderRead: true)
            sent.append(try await a.insertMessages([m])[0].get().message.messageId)
        }
        let cluster = try PostgresCluster(store: b, logger: Logger(label: "test"))
        let asked = ["bob", "carol", "dave", "nobody"]
        let (count, rows, brought) = try await cluster.readLog(after: 0, skipping: [], totalsFor: asked)
        // Node A's six message events, each with its message (read in the same round trip).
        let messages = rows.compactMap { row -> Int64? in
            if case .peer(let e) = row.row, e.event.kind == .message { return e.message?.messageId }
            return nil
        }
        #expect(count >= 6)
        #expect(messages == sent, "every message of node A, in order, with its row")
        let totals = try #require(brought, "totals were asked for")
        let alone = try await b.unreadTotals(asked, at: 0)
        #expect(Set(totals.keys) == Set(asked))
        for u in asked {
            #expect(
                totals[u]?.all == alone[u]?.all && totals[u]?.customTypes == alone[u]?.customTypes,
                "\(u): \(totals[u].map(String.init(describing:)) ?? "none") against \(alone[u].map(String.init(describing:)) ?? "none")")
        }
        #expect(totals["bob"]?.all == 6 && totals["carol"]?.all == 5 && totals["dave"]?.all == 3 && totals["nobody"]?.all == 0)
        #expect(totals["bob"]?.customTypes["work"] == 5)
        // Each read's totals carry a later `ts` than any before (copies are ordered by it).
        let again = try #require(try await cluster.readLog(after: 0, skipping: [], totalsFor: ["bob"]).totals)
        #expect((again["bob"]?.ts ?? 0) > (totals["bob"]?.ts ?? .max))
        // Nobody asked for: no totals, and the events as before.
        let plain = try await cluster.readLog(after: 0, skipping: [], totalsFor: [])
        #expect(plain.totals == nil && plain.count == count)
        // Past the end of the log: no rows, so nothing to carry totals on.
        let past = try await cluster.readLog(after: Int64.max - 1, skipping: [], totalsFor: asked)
        #expect(past.count == 0 && past.totals == nil)
        // The read is a prepared statement that reads `messages.*`: a newer node adding a column
        // changes its result's columns, which PostgreSQL refuses for a statement prepared before;
        // the read then runs unprepared and goes on (and stays unprepared in this process).
        for _ in 0..<3 { _ = try await cluster.readLog(after: 0, skipping: [], totalsFor: asked) }
        _ = try await a.write { db in try await db.execute("ALTER TABLE messages ADD COLUMN added_later TEXT") }
        for _ in 0..<3 {
            let after = try await cluster.readLog(after: 0, skipping: [], totalsFor: asked)
            #expect(after.count == count && after.totals?["bob"]?.all == 6)
        }
        #expect(PGConnection.unprepared.withLock { $0.contains(PGPrepared<PostgresCluster.LogRead>.name) })
        try await a.close()
        try await b.close()
    }
}
