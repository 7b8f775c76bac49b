import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// Group commit writes a batch's unread counts once per channel at its end (SQLite's
/// `PendingUnread`, PostgreSQL's `UnreadLedger`): whatever the batches, every count and every total
/// handed back with a message must be what sending the same messages one by one gives.
@Suite("Unread counts of a group commit")
struct BatchUnreadTests {
    static let users = ["a", "b", "c", "d", "e", "f"]

    /// A store with the six users in channel `g` and `h`: `d` counts nothing in `g`, `e` blocks `a`,
    /// `f` counts only mentions in `h`.
    func makeStore(_ kind: StoreKind) async throws -> any Store {
        let s = try await kind.makeStore(nil)
        for u in Self.users {
            _ = try await s.createUser(
                UserRecord(userId: u, nickname: u, profileUrl: "", metadata: [:], createdAt: 1, lastSeenAt: 0, hasEverLoggedIn: false, isActive: true)
            )
        }
        for url in ["g", "h"] {
            _ = try await s.createGroupChannel(
                NewGroupChannel(
                    channelUrl: url, name: "", coverUrl: "", customType: url == "h" ? "team" : "", data: "", creator: "a",
                    userIds: Self.users, operatorIds: [], isDistinct: false, isPublic: false, isSuper: false, isEphemeral: false,
                    createdAt: 1, nowMs: 1))
        }
        #expect(try await s.setCountPreference("g", userId: "d", "off"))
        #expect(try await s.setCountPreference("h", userId: "f", "unread_mention_count_only"))
        #expect(try await s.block("e", "a", at: 2))
        return s
    }

    /// Random messages into both channels: any sender (or none: an admin message), silent now and
    /// then, mentions, the sender's read mostly on, a roster given or not (the path that reads the
    /// counts back), totals asked for some members.
    func messages(_ n: Int, _ rng: inout SeededGenerator) -> [NewMessage] {
        var url = "g"
        return (0..<n).map { i in
            // Runs of messages in one channel, as a busy channel's batches are.
            if Int.random(in: 0..<4, using: &rng) == 0 { url = url == "g" ? "h" : "g" }
            let sender: String? = Int.random(in: 0..<8, using: &rng) == 0 ? nil : Self.users.randomElement(using: &rng)!
            let mentioned = Int.random(in: 0..<4, using: &rng) == 0 ? [Self.users.randomElement(using: &rng)!] : []
            var m = NewMessage(
                channelUrl: url, type: sender == nil ? "ADMM" : "MESG", senderId: sender, message: "m\(i)", customType: "", data: "",
                mentionType: "users", mentionedUserIds: mentioned, silent: Int.random(in: 0..<10, using: &rng) == 0, isOpMsg: false,
                createdAt: Int64(100 + i), reqId: sender.map { "\($0)-\(i)" }, persist: true,
                markSenderRead: sender != nil && Int.random(in: 0..<5, using: &rng) != 0,
                totalsFor: Self.users.filter { _ in Int.random(in: 0..<3, using: &rng) == 0 })
            if Int.random(in: 0..<4, using: &rng) != 0 {
                // What ChatService passes: the joined members whose preference counts messages.
                m.countingMembers = Self.users.filter { $0 != sender && !(url == "g" && $0 == "d") && !(url == "h" && $0 == "f") }
            }
            m.channelCustomType = url == "h" ? "team" : ""
            return m
        }
    }

    /// Every member's counts in both channels, and their totals.
    func counts(_ s: any Store) async throws -> [String] {
        var out: [String] = []
        for url in ["g", "h"] {
            for u in Self.users {
                let m = try #require(try await s.member(url, userId: u))
                out.append("\(url)/\(u): \(m.unreadCount) unread, \(m.unreadMentionCount) mentions, read \(m.readTs)")
            }
        }
        for u in Self.users {
            out.append("\(u): total \(try await s.unreadMessageTotal(userId: u, customTypes: nil, superMode: nil))")
        }
        return out
    }

    @Test("Batches of any size give the counts and totals of one message at a time", arguments: StoreKind.allCases)
    func batchesMatchSingles(_ kind: StoreKind) async throws {
        for seed in [1, 2, 3] as [UInt64] {
            var rng = SeededGenerator(seed: seed)
            let all = messages(80, &rng)
            let one = try await makeStore(kind)
            let batched = try await makeStore(kind)
            var singly: [String] = []
            for m in all {
                let stored = try await one.insertMessages([m])[0].get()
                singly.append(stored.totals.keys.sorted().map { "\($0)=\(stored.totals[$0]!.all)" }.joined(separator: " "))
            }
            var together: [String] = []
            // Whether each message's batch held one channel only (see below).
            var oneChannel: [Bool] = []
            var rest = all[...]
            while !rest.isEmpty {
                let n = Int.random(in: 2...20, using: &rng)
                var batch = Array(rest.prefix(n))
                // Half of the batches end where the channel changes.
                if Bool.random(using: &rng) { batch = Array(batch.prefix { $0.channelUrl == batch[0].channelUrl }) }
                rest = rest.dropFirst(batch.count)
                let results: [Result<StoredMessage, any Error>]
                if let inPlace = batched as? any InPlaceMessageInsert, Bool.random(using: &rng) {
                    results = try inPlace.insertMessagesInPlace(batch)
                } else {
                    results = try await batched.insertMessages(batch)
                }
                for r in results {
                    oneChannel.append(Set(batch.map(\.channelUrl)).count == 1)
                    let stored = try r.get()
                    together.append(stored.totals.keys.sorted().map { "\($0)=\(stored.totals[$0]!.all)" }.joined(separator: " "))
                }
            }
            // PostgreSQL stores a batch of several channels as one statement per channel, the channels
            // at once on connections of their own (``PostgresStore/insertByChannel(_:)``): a total
            // handed back then counts the other channels as they stood when its statement read them,
            // as with another node's messages. Batches of one channel must match exactly.
            let compared = kind == .sqlite ? Array(together.indices) : together.indices.filter { oneChannel[$0] }
            #expect(compared.map { together[$0] } == compared.map { singly[$0] }, "the totals each message carries, seed \(seed)")
            #expect(compared.count > 10)
            #expect(try await counts(batched) == counts(one), "seed \(seed)")
            #expect(try await counts(one).contains { !$0.contains(": 0 unread") && $0.contains(" unread") }, "the messages counted something")
            try await one.close()
            try await batched.close()
        }
    }

    @Test("A message refused inside a batch takes back the counts it added", arguments: StoreKind.allCases)
    func refusedMessageInBatch(_ kind: StoreKind) async throws {
        let s = try await makeStore(kind)
        func message(_ from: String, _ text: String, parent: Int64 = 0) -> NewMessage {
            var m = NewMessage(
                channelUrl: "g", type: "MESG", senderId: from, message: text, customType: "", data: "", mentionType: "users",
                mentionedUserIds: [], silent: false, isOpMsg: false, createdAt: 100, reqId: nil, persist: true, markSenderRead: true)
            m.parentMessageId = parent
            m.countingMembers = Self.users.filter { $0 != "d" && $0 != from }
            return m
        }
        let results = try await s.insertMessages([message("a", "one"), message("b", "orphan", parent: 999_999), message("c", "three")])
        #expect(throws: SendbirdError.self) { try results[1].get() }
        // a: c's message; b: a's and c's (its own was refused, so it read nothing); c: none (its own read
        // a's); d counts nothing; e blocks a: c's only; f: a's and c's.
        let unread = try await Self.users.asyncMap { try await s.member("g", userId: $0)!.unreadCount }
        #expect(unread == [1, 2, 0, 0, 1, 2])
    }
}

extension Array {
    fileprivate func asyncMap<T>(_ f: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for e in self { out.append(try await f(e)) }
        return out
    }
}
