import Foundation
import TernProtocol
import Testing

@testable import TernKit

@Suite struct OutOfLineTests {
    /// The values copied on every incoming line stay small: a part most of them lack costs a pointer.
    @Test func messagesAndChannelsAreSmallToCopy() {
        #expect(MemoryLayout<OutOfLine<OGMetaData>>.size == 8)
        #expect(MemoryLayout<Message>.size <= 280)
        #expect(MemoryLayout<GroupChannel>.size <= 300)
        #expect(MemoryLayout<ClientEvent>.size <= 300)
    }

    /// A copy's change is its own: the box is replaced, never written through.
    @Test func copiesDoNotShareChanges() {
        var a = Message(messageId: 1, channelUrl: "c", text: "hi", sender: nil, createdAt: 1)
        a.parent = ParentSummary(messageId: 7, text: "parent", sender: nil, createdAt: 0)
        var b = a
        b.parent?.text = "changed"
        #expect(a.parent?.text == "parent")
        #expect(b.parent?.text == "changed")
        #expect(a != b)
        b.parent = a.parent
        #expect(a == b)
        b.parent = nil
        #expect(b.parent == nil)
        #expect(a.parent != nil)

        var c = GroupChannel(url: "c")
        c.lastMessage = a
        var d = c
        d.lastMessage?.text = "other"
        #expect(c.lastMessage?.text == "hi")
        #expect(d.lastMessage?.text == "other")
        #expect(c.lastActivity == 1)
    }

    /// Read and written as the optional it wraps: a missing key or `null` is nil, nil writes no key.
    @Test func codableAsAnOptional() throws {
        struct Holder: Codable, Equatable {
            @OutOfLine var part: ParentSummary?
            var other = 1
        }
        let decoder = JSONDecoder()
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(try decoder.decode(Holder.self, from: Data(#"{"other":2}"#.utf8)) == Holder(part: nil, other: 2))
        #expect(try decoder.decode(Holder.self, from: Data(#"{"part":null,"other":2}"#.utf8)) == Holder(part: nil, other: 2))
        #expect(String(decoding: try encoder.encode(Holder(part: nil)), as: UTF8.self) == #"{"other":1}"#)
        let full = Holder(part: ParentSummary(messageId: 3, text: "p", sender: User(userId: "u"), createdAt: 9))
        #expect(try decoder.decode(Holder.self, from: try encoder.encode(full)) == full)
        #expect(throws: DecodingError.self) { try decoder.decode(Holder.self, from: Data(#"{"part":5}"#.utf8)) }
    }

    /// A message read back from the JSON it was written to is the same, every out-of-line part set or not.
    @Test func messagesRoundTripThroughJSON() throws {
        var m = Message(messageId: 5, channelUrl: "c", text: "t", sender: User(userId: "a"), createdAt: 3)
        for step in 0..<5 {
            switch step {
            case 1: m.parent = ParentSummary(messageId: 1, text: "p", sender: nil, createdAt: 1)
            case 2: m.error = SendbirdError(.rateLimitExceeded, "slow down")
            case 3: m.preview = OGMetaData(title: "T", url: "https://x", description: nil, image: nil)
            case 4: m.parent = nil
            default: break
            }
            let back = try JSONDecoder().decode(Message.self, from: try JSONEncoder().encode(m))
            #expect(back == m, "step \(step)")
            var c = GroupChannel(url: "g")
            c.lastMessage = step == 0 ? nil : m
            #expect(try JSONDecoder().decode(GroupChannel.self, from: try JSONEncoder().encode(c)) == c, "step \(step)")
        }
    }
}
