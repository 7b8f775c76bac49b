import Foundation
import TernKit
import TernProtocol
import Testing

/// The offline cache on a real SQLite file: runs of messages kept continuous, unsent messages,
/// files that are not ours moved aside, and the size limit.
@Suite struct LocalCacheTests {
    let dir = NSTemporaryDirectory() + "tern-cache-test-" + UUID().uuidString

    func open(_ owner: String = "http://x|LOCAL|ann", maxBytes: Int64 = LocalCache.defaultMaxBytes) throws -> LocalCache {
        try LocalCache(path: dir + "/c.sqlite", owner: owner, maxBytes: maxBytes)
    }

    func msg(_ id: Int64, at ts: Millis, in url: String = "c1", text: String? = nil) -> Message {
        Message(messageId: id, channelUrl: url, text: text ?? "m\(id)", sender: User(userId: "bob"), createdAt: ts)
    }

    @Test func theCacheIsItsOwnersOnly() throws {
        let cache = try open()
        cache.savePage([msg(1, at: 10)], url: "c1", from: 0, to: 10)
        func mode(_ p: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: p))?[.posixPermissions] as? NSNumber)?.intValue ?? -1 }
        #expect(mode(dir) == 0o700)
        for p in [dir + "/c.sqlite", dir + "/c.sqlite-wal", dir + "/c.sqlite-shm"] where FileManager.default.fileExists(atPath: p) {
            #expect(mode(p) == 0o600, "\(p)")
        }
    }

    @Test func pagesJoinIntoOneContinuousRun() throws {
        let cache = try open()
        // The newest page: 100…104 (more before it).
        cache.savePage((100...104).map { msg($0, at: $0 * 10) }, url: "c1", from: 1000, to: 1040)
        #expect(cache.range("c1") == MessageRange(oldest: 1000, newest: 1040, reachesStart: false))
        // An older page that touches it (before 1000): the run grows down and reaches the start.
        cache.savePage((95...99).map { msg($0, at: $0 * 10) }, url: "c1", from: 0, to: 999)
        #expect(cache.range("c1") == MessageRange(oldest: 950, newest: 1040, reachesStart: true))
        #expect(cache.allMessages("c1").map(\.messageId) == Array(95...104))
        // Paging the cache: newest 4, then the 4 before them, then the rest (nothing before).
        let p1 = try #require(cache.messages("c1", limit: 4))
        #expect(p1.messages.map(\.messageId) == [101, 102, 103, 104] && p1.hasPrevious)
        let p2 = try #require(cache.messages("c1", before: 1010, limit: 4))
        #expect(p2.messages.map(\.messageId) == [97, 98, 99, 100])
        let p3 = try #require(cache.messages("c1", before: 970, limit: 4))
        #expect(p3.messages.map(\.messageId) == [95, 96] && !p3.hasPrevious)
    }

    @Test func aNewerDisjointRunReplacesTheOldOne() throws {
        let cache = try open()
        cache.savePage([msg(1, at: 10), msg(2, at: 20)], url: "c1", from: 0, to: 20)
        // A huge gap later: the newest page does not touch the run held, so the old messages go.
        cache.savePage([msg(500, at: 5000), msg(501, at: 5010)], url: "c1", from: 5000, to: 5010)
        #expect(cache.allMessages("c1").map(\.messageId) == [500, 501])
        #expect(cache.range("c1") == MessageRange(oldest: 5000, newest: 5010, reachesStart: false))
        // An older disjoint page (a jump into the past) is stored but does not become the run.
        cache.savePage([msg(3, at: 30)], url: "c1", from: 30, to: 30)
        #expect(cache.range("c1")?.oldest == 5000)
        #expect(cache.allMessages("c1").map(\.messageId) == [500, 501])
    }

    @Test func liveMessagesExtendOnlyASyncedRun() throws {
        let cache = try open()
        cache.savePage([msg(1, at: 10)], url: "c1", from: 0, to: 10)
        cache.saveLive(msg(2, at: 20), extend: true)
        #expect(cache.range("c1")?.newest == 20)
        // Not synced (after a reconnection, before the gap fill): kept, but the run waits.
        cache.saveLive(msg(4, at: 40), extend: false)
        #expect(cache.range("c1")?.newest == 20)
        #expect(cache.allMessages("c1").map(\.messageId) == [1, 2])
        // The gap fill brings 3 and reaches 4: all four, once each, in order.
        cache.savePage([msg(3, at: 30), msg(4, at: 40)], url: "c1", from: 10, to: 40)
        #expect(cache.allMessages("c1").map(\.messageId) == [1, 2, 3, 4])
        // Edits, reactions and deletions apply to the held copy.
        cache.updateMessage(msg(2, at: 20, text: "edited"))
        cache.modifyMessage("c1", 3) { $0.applyReaction(key: "smile", userId: "ann", added: true) }
        cache.deleteMessage("c1", 1)
        let all = cache.allMessages("c1")
        #expect(all.map(\.messageId) == [2, 3, 4])
        #expect(all[0].text == "edited")
        #expect(all[1].reactions == [Reaction(key: "smile", userIds: ["ann"])])
    }

    @Test func unsentMessagesAndChannelsSurviveReopening() throws {
        do {
            let cache = try open()
            var c = GroupChannel(url: "c1", name: "crew")
            c.lastMessage = msg(1, at: 10)
            cache.saveChannels([c, GroupChannel(url: "c2", name: "old")])
            var pending = Message(
                messageId: 0, requestId: "rq-1", channelUrl: "c1", text: "later", sender: User(userId: "ann"), createdAt: 50, status: .pending)
            cache.saveUnsent(pending)
            pending.requestId = "rq-2"
            pending.status = .failed
            pending.error = SendbirdError(.ackTimeout, "no answer")
            pending.createdAt = 60
            cache.saveUnsent(pending)
            cache.user = User(userId: "ann", nickname: "Ann")
            cache.setValue("tok", for: "channel_changelog_token")
            cache.close()
        }
        let cache = try open()
        #expect(cache.movedAside == nil)
        #expect(cache.channels().map(\.url) == ["c1", "c2"])
        #expect(cache.user?.nickname == "Ann")
        #expect(cache.value("channel_changelog_token") == "tok")
        let unsent = cache.unsent("c1")
        #expect(unsent.map(\.requestId) == ["rq-1", "rq-2"])
        #expect(unsent[1].error?.code == .ackTimeout && unsent[1].status == .failed)
        cache.removeUnsent("rq-1")
        #expect(cache.unsent().map(\.requestId) == ["rq-2"])
        cache.removeChannel("c1")
        #expect(cache.channels().map(\.url) == ["c2"] && cache.unsent().isEmpty)
    }

    @Test func aCorruptFileIsMovedAsideAndRebuilt() throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Data(repeating: 0x42, count: 8192).write(to: URL(fileURLWithPath: dir + "/c.sqlite"))
        let cache = try open()
        let aside = try #require(cache.movedAside)
        #expect(FileManager.default.fileExists(atPath: aside))
        cache.saveChannels([GroupChannel(url: "c1")])
        #expect(cache.channels().count == 1)
    }

    @Test func anotherUsersOrAForeignDatabaseIsMovedAside() throws {
        do {
            let cache = try open("http://x|LOCAL|ann")
            cache.saveChannels([GroupChannel(url: "secret")])
            cache.close()
        }
        let other = try open("http://x|LOCAL|bob")
        #expect(other.movedAside != nil)
        #expect(other.channels().isEmpty)
        other.close()
        // Some other program's SQLite database.
        let path = dir + "/foreign.sqlite"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", "import sqlite3; c=sqlite3.connect('\(path)'); c.execute('create table t(x)'); c.commit()"]
        try p.run()
        p.waitUntilExit()
        let foreign = try LocalCache(path: path, owner: "http://x|LOCAL|ann")
        #expect(foreign.movedAside != nil)
    }

    @Test func pastTheLimitTheLeastRecentlyOpenedChannelsGoFirst() throws {
        let cache = try open(maxBytes: 600 * 1024)
        let text = String(repeating: "x", count: 2000)
        for (i, url) in ["a", "b", "c"].enumerated() {
            cache.saveChannels([GroupChannel(url: url)])
            cache.savePage((0..<100).map { msg(Int64(i * 1000 + $0 + 1), at: Millis(10 + $0), in: url, text: text) }, url: url, from: 0, to: 200)
        }
        cache.markOpened("a", at: 300)
        cache.markOpened("b", at: 100)
        cache.markOpened("c", at: 200)
        #expect(cache.usedBytes > 600 * 1024)
        let evicted = cache.enforceLimit()
        #expect(evicted.first == "b")
        #expect(cache.usedBytes <= 600 * 1024)
        #expect(cache.allMessages("a").count == 100)
        #expect(cache.allMessages("b").isEmpty)
        // The channel itself stays listed; only its messages went.
        #expect(cache.channels().map(\.url).contains("b"))
    }
}
