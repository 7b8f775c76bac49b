import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernKit

/// The offline cache's channels and messages written by hand (``JSONWriter``): for random values
/// with every part set or empty, the bytes read back as the same value and are the same JSON object
/// `JSONEncoder` writes, so caches written before and after read the same.
@Suite("Cache JSON without JSONEncoder")
struct CacheJSONTests {
    struct Maker {
        var rng: SeededGenerator
        mutating func chance(_ n: Int) -> Bool { Int.random(in: 0..<n, using: &rng) == 0 }
        static let pieces = ["a", "Z", " ", "é", "你", "😀", "\"", "\\", "/", "\n", "\t", "\u{1}", "\u{0}", "\u{7F}", "\u{2028}"]
        mutating func string() -> String {
            (0..<Int.random(in: 0...8, using: &rng)).map { _ in Self.pieces.randomElement(using: &rng)! }.joined()
        }
        mutating func int() -> Int64 {
            chance(4) ? Int64.random(in: .min ... .max, using: &rng) : Int64.random(in: -5...1_800_000_000_000, using: &rng)
        }
        mutating func user() -> User { User(userId: string(), nickname: string(), profileUrl: string()) }
        mutating func strings() -> [String] { (0..<Int.random(in: 0...3, using: &rng)).map { _ in string() } }
        mutating func map() -> [String: String] {
            Dictionary((0..<Int.random(in: 0...3, using: &rng)).map { _ in (string(), string()) }, uniquingKeysWith: { a, _ in a })
        }

        mutating func message() -> Message {
            var m = Message(
                messageId: int(), requestId: chance(2) ? string() : nil, channelUrl: string(),
                kind: [.user, .file, .admin].randomElement(using: &rng)!, text: string(), sender: chance(4) ? nil : user(),
                createdAt: int(), updatedAt: int(), customType: string(), data: string(), silent: chance(2), mentionedUserIds: strings(),
                status: [.pending, .failed, .succeeded].randomElement(using: &rng)!,
                error: chance(3) ? SendbirdError(.invalidValue, string()) : nil)
            m.mentionType = string()
            m.parentMessageId = int()
            m.isReplyToChannel = chance(2)
            if chance(3) { m.parent = ParentSummary(messageId: int(), text: string(), sender: chance(2) ? user() : nil, createdAt: int()) }
            if chance(3) {
                m.thread = ThreadSummary(
                    ThreadInfo(
                        replyCount: Int.random(in: 1...9, using: &rng), mostReplies: [SenderPayload(userId: string())], lastRepliedAt: int()))
            }
            if chance(3) { m.reactions = [Reaction(key: string(), userIds: strings())] }
            if chance(3) { m.preview = OGMetaData(title: string(), url: chance(2) ? string() : nil, description: nil) }
            if chance(3) { m.files = [FilePayload(url: string(), name: string(), size: 3, type: string())] }
            if chance(3) { m.metaarray = [MetaArrayItem(key: string(), value: strings())] }
            return m
        }

        mutating func channel() -> GroupChannel {
            var c = GroupChannel(
                url: string(), name: string(),
                members: (0..<Int.random(in: 0...4, using: &rng)).map { _ in
                    Member(user: user(), state: string(), role: string(), isOnline: chance(2), isMuted: chance(2))
                })
            c.coverUrl = string()
            c.customType = string()
            c.data = string()
            c.createdAt = int()
            (c.isDistinct, c.isPublic, c.isSuper, c.isEphemeral, c.isFrozen) = (chance(2), chance(2), chance(2), chance(2), chance(2))
            c.memberCount = Int.random(in: 0...10_000, using: &rng)
            c.joinedMemberCount = Int.random(in: 0...10_000, using: &rng)
            c.unreadMessageCount = Int.random(in: 0...100, using: &rng)
            c.unreadMentionCount = Int.random(in: 0...100, using: &rng)
            c.lastMessage = chance(3) ? nil : message()
            c.readReceipt = Dictionary(strings().map { ($0, int()) }, uniquingKeysWith: { a, _ in a })
            c.deliveryReceipt = Dictionary(strings().map { ($0, int()) }, uniquingKeysWith: { a, _ in a })
            c.myMemberState = string()
            c.myRole = string()
            c.hiddenState = string()
            c.metadata = map()
            c.inviter = chance(2) ? user() : nil
            c.messageOffset = int()
            c.countPreference = string()
            return c
        }
    }

    /// Same value back, and the same JSON object as `JSONEncoder`'s.
    static func check<T: Codable & Equatable>(_ value: T, _ written: Data, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let data = written
        #expect(try JSONDecoder().decode(T.self, from: data) == value, sourceLocation: sourceLocation)
        let mine = try JSONSerialization.jsonObject(with: data) as? NSDictionary
        let theirs = try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? NSDictionary
        #expect(mine != nil && mine == theirs, "\(String(decoding: written, as: UTF8.self))", sourceLocation: sourceLocation)
    }

    @Test("2,000 random messages and 500 random channels, every part set or empty")
    func randomValues() throws {
        var maker = Maker(rng: SeededGenerator(seed: 0x36_CAC4E))
        for _ in 0..<2_000 {
            let m = maker.message()
            try Self.check(m, try m.cacheJSON())
        }
        for _ in 0..<500 {
            let c = maker.channel()
            try Self.check(c, try c.cacheJSON())
        }
    }
}
