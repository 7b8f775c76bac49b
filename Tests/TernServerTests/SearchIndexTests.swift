import Foundation
import GRDB
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// The full-text index kept after commit (SQLite): a search sees every message stored before it —
/// new, edited or deleted — while the send path no longer writes the index; the index catches up by
/// itself in batches, and stays consistent with the messages table.
@Suite("Search index after commit")
struct SearchIndexTests {
    func user(_ id: String) -> UserRecord {
        UserRecord(userId: id, nickname: id, profileUrl: "", metadata: [:], createdAt: 1, lastSeenAt: 0, hasEverLoggedIn: false, isActive: true)
    }

    func channel(_ url: String, _ users: [String]) -> NewGroupChannel {
        NewGroupChannel(
            channelUrl: url, name: "", coverUrl: "", customType: "", data: "", creator: users.first, userIds: users,
            operatorIds: [], isDistinct: false, isPublic: false, isSuper: false, isEphemeral: false, createdAt: 1, nowMs: 1)
    }

    func message(_ text: String, at ts: Int64, persist: Bool = true) -> NewMessage {
        NewMessage(
            channelUrl: "c", type: "MESG", senderId: "a", message: text, customType: "", data: "", mentionType: "users",
            mentionedUserIds: [], silent: false, isOpMsg: false, createdAt: ts, reqId: nil, persist: persist, markSenderRead: true)
    }

    func texts(_ s: any Store, _ query: String) async throws -> [String] {
        try await s.searchMessages(MessageSearch(match: query)).messages.map(\.message).sorted()
    }

    /// A store with users a, b and channel "c".
    func store(_ kind: StoreKind) async throws -> any Store {
        let s = try await kind.makeStore()
        for u in ["a", "b"] { _ = try await s.createUser(user(u)) }
        _ = try await s.createGroupChannel(channel("c", ["a", "b"]))
        return s
    }

    /// SQLite's own check that the index matches the messages table (every row: call it caught up).
    func integrity(_ s: SQLiteStore) async throws {
        try await s.pool.write { db in try db.execute(sql: "INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)") }
    }

    func indexedUpto(_ s: SQLiteStore) async throws -> Int64 {
        try await s.pool.read { db in try Int64.fetchOne(db, sql: "SELECT indexed_upto FROM search_index_state") ?? -1 }
    }

    @Test("A search right after a send, an edit or a deletion sees it", arguments: StoreKind.allCases)
    func searchSeesEveryChange(_ kind: StoreKind) async throws {
        let s = try await store(kind)
        let first = try await s.insertMessage(message("alpha one", at: 10)).message
        #expect(try await texts(s, "alpha") == ["alpha one"])
        // Stored after the index caught up: found, then edited and deleted before any catch-up.
        let second = try await s.insertMessage(message("alpha two", at: 11)).message
        let third = try await s.insertMessage(message("gamma three", at: 12)).message
        var change = MessageChange(updatedAt: 13)
        change.message = "beta two"
        _ = try await s.updateMessage("c", id: second.messageId, change)
        _ = try await s.deleteMessage("c", id: third.messageId, at: 14)
        _ = try await s.insertMessage(message("ephemeral alpha", at: 15, persist: false))
        #expect(try await texts(s, "alpha") == ["alpha one"])
        #expect(try await texts(s, "beta") == ["beta two"])
        #expect(try await texts(s, "gamma").isEmpty)
        #expect(try await s.searchVocabulary(.word("beta")) == ["beta"])
        // Edited and deleted once indexed.
        change.message = "delta one"
        _ = try await s.updateMessage("c", id: first.messageId, change)
        _ = try await s.deleteMessage("c", id: second.messageId, at: 16)
        #expect(try await texts(s, "alpha").isEmpty)
        #expect(try await texts(s, "beta").isEmpty)
        #expect(try await texts(s, "delta") == ["delta one"])
        if let sqlite = s as? SQLiteStore { try await integrity(sqlite) }
        try await s.close()
    }

    @Test("The index catches up by itself, in batches of at most 128, without a search; it survives a restart")
    func catchesUpByItself() async throws {
        let path = makeTempDirectory() + "/t.sqlite"
        let s = try SQLiteStore(path: path, searchIndexDelay: .seconds(3600))
        for u in ["a", "b"] { _ = try await s.createUser(user(u)) }
        _ = try await s.createGroupChannel(channel("c", ["a", "b"]))
        let batch = (0..<300).map { message("word\($0) common", at: 100 + Int64($0)) }
        let stored = try await s.insertMessages(batch).map { try $0.get().message.messageId }
        #expect(try await indexedUpto(s) < stored[0], "not indexed in the send's transaction")
        // One catch-up transaction indexes one batch.
        try await s.pool.write { db in try s.indexForSearch(db, limit: SQLiteStore.searchIndexBatch) }
        #expect(try await indexedUpto(s) == stored[127])
        // Closed with the rest unindexed (as after a crash): reopened, the first search finds all.
        try await s.close()
        let reopened = try SQLiteStore(path: path, searchIndexDelay: .milliseconds(1))
        #expect(try await reopened.searchMessages(MessageSearch(match: "common")).total == 300)
        #expect(try await indexedUpto(reopened) == stored[299])
        try await integrity(reopened)
        // With a short delay, a new message is indexed with no search asking for it.
        let next = try await reopened.insertMessage(message("later", at: 1000)).message
        var waited = 0
        while try await indexedUpto(reopened) < next.messageId, waited < 1000 {
            try await Task.sleep(for: .milliseconds(10))
            waited += 1
        }
        #expect(try await indexedUpto(reopened) == next.messageId)
        try await reopened.close()
    }

    @Test("A search while messages keep arriving ends, and finds every message stored before it")
    func searchWhileSending() async throws {
        let s = try SQLiteStore(path: makeTempDirectory() + "/t.sqlite", searchIndexDelay: .seconds(3600))
        for u in ["a", "b"] { _ = try await s.createUser(user(u)) }
        _ = try await s.createGroupChannel(channel("c", ["a", "b"]))
        _ = try await s.insertMessages((0..<500).map { message("early \($0)", at: 100 + Int64($0)) })
        let sender = Task {
            for i in 0..<3_000 where !Task.isCancelled { _ = try await s.insertMessage(message("late \(i)", at: 10_000 + Int64(i))) }
        }
        #expect(try await s.searchMessages(MessageSearch(match: "early")).total == 500)
        sender.cancel()
        _ = try? await sender.value
        // The index against the messages table (SQLite's check counts unindexed rows as missing).
        try await s.catchUpSearchIndex()
        try await integrity(s)
        try await s.close()
    }

    @Test("A database from before the change keeps its index and indexes what comes after")
    func upgradedDatabase() async throws {
        let dir = makeTempDirectory() + "/data"
        try FileManager.default.copyItem(atPath: UpgradeTests.fixtures + "/upgrade-sqlite-66889f0", toPath: dir)
        let s = try SQLiteStore(path: dir + "/ternd.sqlite", searchIndexDelay: .seconds(3600))
        #expect(try await indexedUpto(s) >= 5)
        #expect(try await s.searchMessages(MessageSearch(match: "three")).messages.map { $0.message } == ["three"])
        try await integrity(s)
        try await s.close()
    }
}
