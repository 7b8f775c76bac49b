import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// The round trips of PostgreSQL's send path, each of which a slow link to the database
/// multiplies (issue 34: 200 ms more on a node's link made its acknowledgements take 3 s).
@Suite("PostgreSQL send round trips")
struct PostgresRoundTripTests {
    func message(_ url: String, from: String, text: String, req: String? = nil, totalsFor: [String] = []) -> NewMessage {
        NewMessage(
            channelUrl: url, type: "MESG", senderId: from, message: text, customType: "", data: "", mentionType: "users",
            mentionedUserIds: [], silent: false, isOpMsg: false, createdAt: 1_000, reqId: req, persist: true,
            markSenderRead: true, totalsFor: totalsFor)
    }

    /// A store with users a, b, c in group channel `g`, and `b` blocking nobody.
    func store() async throws -> PostgresStore {
        let s = try #require(try await StoreKind.postgres.makeStore() as? PostgresStore)
        for u in ["a", "b", "c"] {
            _ = try await s.createUser(
                UserRecord(
                    userId: u, nickname: u, profileUrl: "", metadata: [:], createdAt: 1, lastSeenAt: 0, hasEverLoggedIn: false,
                    isActive: true))
        }
        _ = try await s.createGroupChannel(
            NewGroupChannel(
                channelUrl: "g", name: "", coverUrl: "", customType: "", data: "", creator: "a", userIds: ["a", "b", "c"],
                operatorIds: [], isDistinct: false, isPublic: false, isSuper: false, isEphemeral: false, createdAt: 1, nowMs: 1))
        return s
    }

    /// The statements `body` sends.
    func statements(_ s: PostgresStore, _ body: () async throws -> Void) async rethrows -> Int {
        let before = s.statements.value
        try await body()
        return s.statements.value - before
    }

    @Test("A message alone is three round trips: its channel read unlocked, one statement that stores it, one that waits for its commit")
    func alone() async throws {
        let s = try await store()
        var stored: StoredMessage?
        let n = try await statements(s) {
            stored = try await s.insertMessage(message("g", from: "a", text: "hi", req: "r1", totalsFor: ["b", "c"]))
        }
        #expect(n == 3)
        let first = try #require(stored)
        #expect(!first.duplicate)
        #expect(first.totals["b"]?.all == 1 && first.totals["c"]?.all == 1)
        #expect(try await s.member("g", userId: "b")?.unreadCount == 1)
        #expect(try await s.channel("g")?.lastMessageId == first.message.messageId)

        // A retry of the same request is the original, and counts nothing again.
        let retry = try await s.insertMessage(message("g", from: "a", text: "hi", req: "r1", totalsFor: ["b"]))
        #expect(retry.duplicate && retry.message.messageId == first.message.messageId)
        #expect(try await s.member("g", userId: "b")?.unreadCount == 1)
        #expect(try await s.member("g", userId: "c")?.unreadCount == 1)
    }

    @Test("A batch is three round trips too, whatever its size, its counters moved message by message")
    func batch() async throws {
        let s = try await store()
        var results: [Result<StoredMessage, any Error>] = []
        let n = try await statements(s) {
            results = try await s.insertMessages([
                message("g", from: "a", text: "1"), message("g", from: "b", text: "2"), message("g", from: "a", text: "3"),
            ])
        }
        #expect(n == 3)
        let ids = try results.map { try $0.get().message.messageId }
        #expect(ids == ids.sorted() && Set(ids).count == 3)
        #expect(try await s.member("g", userId: "c")?.unreadCount == 3)
        #expect(try await s.member("g", userId: "a")?.unreadCount == 0, "a sent the last one: read")
        #expect(try await s.member("g", userId: "b")?.unreadCount == 1)
        #expect(try await s.channel("g")?.lastMessageId == ids.last)
    }

    /// What the channel's counters were decided on, as `tern_send` checks it under the lock.
    func basis(_ s: PostgresStore) async throws -> String {
        try await s.read { db in try await db.scalar("SELECT tern_send_basis('g') || tern_blocks_basis('{a}')", as: String.self) } ?? ""
    }

    @Test("What the counters rest on (members, their states, preferences, hidden states, the sender's blockers) changes the basis; counters do not")
    func basisMoves() async throws {
        let s = try await store()
        var seen = try await basis(s)
        _ = try await s.insertMessage(message("g", from: "a", text: "1"))
        _ = try await s.markRead("g", userId: "b", ts: 5_000)
        #expect(try await basis(s) == seen, "counters and receipts are not part of it")
        #expect(try await s.setCountPreference("g", userId: "c", "off"))
        #expect(try await basis(s) != seen, "a count preference")
        seen = try await basis(s)
        _ = try await s.block("b", "a", at: 10)
        #expect(try await basis(s) != seen, "a block of the sender")
        seen = try await basis(s)
        try await s.setHidden("g", userId: "c", state: "hidden_allow_auto_unhide", messageOffset: nil)
        #expect(try await basis(s) != seen, "a hidden state")
        seen = try await basis(s)
        try await s.setHidden("g", userId: "c", state: "hidden_allow_auto_unhide", messageOffset: nil)
        #expect(try await basis(s) == seen, "the same hidden state again")
        // A message auto-unhides c: that moves it too (the next batch must see c unhidden).
        _ = try await s.insertMessage(message("g", from: "a", text: "2"))
        #expect(try await s.member("g", userId: "c")?.hiddenState == "unhidden")
        #expect(try await basis(s) != seen, "an auto-unhide")
        seen = try await basis(s)
        _ = try await s.createUser(
            UserRecord(userId: "d", nickname: "d", profileUrl: "", metadata: [:], createdAt: 1, lastSeenAt: 0, hasEverLoggedIn: false, isActive: true)
        )
        _ = try await s.addMembers("g", [MemberAdd(userId: "d", state: "invited", inviterId: "a")], nowMs: 20, chatHistory: true)
        #expect(try await basis(s) != seen, "an invitation")
        seen = try await basis(s)
        #expect(try await s.acceptInvitation("g", userId: "d", nowMs: 21))
        #expect(try await basis(s) != seen, "an accepted invitation")
        seen = try await basis(s)
        #expect(try await s.removeMember("g", userId: "d", turnOffDistinct: false))
        #expect(try await basis(s) != seen, "a member who left")
        // A deleted channel keeps no version behind.
        #expect(try await s.deleteChannel("g"))
        let left = try await s.read { db in try await db.scalar("SELECT count(*) FROM channel_rosters WHERE channel_url = 'g'", as: Int64.self) }
        #expect(left == 0)
    }

    @Test("tern_send writes nothing when the basis it was given is stale")
    func staleBasis() async throws {
        let s = try await store()
        let kinds = try await s.read { db in
            try await db.column(
                """
                SELECT out_kind FROM tern_send('g', 'stale', '{a}', tern_blocks_basis('{a}'), NULL,
                  '{MESG}', '{a}', '{x}', '{""}', '{""}', '{users}', '{[]}', '{false}', '{false}', '{5}', '{NULL}', '{NULL}',
                  '{[]}', '{false}', '{NULL}', '{NULL}', '{false}', '{0}', '{}', '{}', '{}', '{}', '{}', '{}')
                """, as: String.self)
        }
        #expect(kinds == ["changed"])
        #expect(try await s.channel("g")?.lastMessageId ?? 0 == 0)
        #expect(
            try await s.messages("g", query: MessageQuery(anchor: .timestamp(0), prevLimit: 0, nextLimit: 10, inclusive: true, reverse: false))
                .isEmpty)
    }
}
