import Foundation
import TernTestSupport
import Testing

@testable import TernProtocol

/// ``JSONWriter`` against `JSONEncoder`: a message written by hand reads back as the same message
/// and as the same JSON object `JSONEncoder` writes, for random messages and every optional part.
@Suite("JSONWriter: messages without JSONEncoder")
struct JSONWriterTests {
    /// The hand-written bytes decode to `payload` and to the same JSON object as `JSONEncoder`'s.
    static func check(_ payload: MessagePayload, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let written = Data(try payload.jsonBytes())
        let encoded = try WireCoding.encoder.encode(payload)
        #expect(try WireCoding.decoder.decode(MessagePayload.self, from: written) == payload, sourceLocation: sourceLocation)
        let a = try JSONSerialization.jsonObject(with: written) as? NSDictionary
        let b = try JSONSerialization.jsonObject(with: encoded) as? NSDictionary
        #expect(a != nil && a == b, "\(String(decoding: written, as: UTF8.self))", sourceLocation: sourceLocation)
    }

    @Test("3,000 random messages (escapes, emoji, control characters, extreme integers)")
    func randomMessages() throws {
        var maker = JSONReaderRandomTests.Maker(rng: SeededGenerator(seed: 0x35_3121_7E))
        var checked = 0
        for _ in 0..<3_000 {
            guard let payload = try? WireCoding.decoder.decode(MessagePayload.self, from: Data(maker.message().utf8)) else { continue }
            try Self.check(payload)
            checked += 1
        }
        #expect(checked > 2_000)
    }

    @Test("Every optional part: reply, thread, reactions, link preview, files, old values, translations")
    func everyPart() throws {
        let alice = SenderPayload(userId: "alice", nickname: "Al \"ice\"", profileUrl: "http://x/a.png", metadata: ["b": "2", "a": "1\n"])
        var m = MessagePayload(
            type: "FILE", id: Int64.max, message: "tab\there \\ \u{1}\u{1F} 😀", channelUrl: "c/1", createdAt: Int64.min, user: alice,
            sortedMetaarray: [MetaArrayItem(key: "k", value: ["v1", ""])], mentionedUsers: [alice, SenderPayload(userId: "bob")],
            silent: true, parentMessageId: 7, isReplyToChannel: true, reqId: "r\"1")
        m.parentMessageInfo = ParentMessageInfo(messageId: 7, message: "parent", ts: 5, type: "MESG", user: alice, customType: "t")
        m.threadInfo = ThreadInfo(replyCount: 2, mostReplies: [alice], lastRepliedAt: 9, updatedAt: 10)
        m.reactions = [ReactionPayload(key: "👍", userIds: ["alice"], updatedAt: 3)]
        m.ogTag = OGMetaData(title: "T", url: "http://x", description: "D")
        let file = FilePayload(url: "http://x/f", name: "f.png", size: 10, type: "image/png", thumbnails: [])
        m.file = file
        m.files = [file, file]
        m.requireAuth = true
        m.oldValues = ["message": "before"]
        m.translations = ["ko": "안녕", "de": "Hallo"]
        try Self.check(m)
        m.user = nil
        m.parentMessageInfo?.user = nil
        try Self.check(m)
    }

    @Test("Integers at the edges and strings of every escape")
    func edges() throws {
        for v: Int64 in [0, -1, 1, 9, 10, -10, Int64.max, Int64.min, 1_700_000_000_123] {
            var w = JSONWriter()
            w.int(v)
            #expect(String(decoding: w.bytes, as: UTF8.self) == "\(v)")
        }
        var w = JSONWriter()
        w.beginArray()
        let samples = ["", "\"", "\\", "/", "\u{0}", "\u{7F}", "\u{2028}", "é你😀", "a\r\nb\u{8}\u{C}"]
        for s in samples { w.string(s) }
        w.endArray()
        #expect(try JSONSerialization.jsonObject(with: Data(w.bytes)) as? [String] == samples)
    }
}

/// The channel commands a client sends per message it receives or reads (`MACK`, `READ`, `TPST`/`TPEN`),
/// written without `JSONEncoder`: the same JSON object as `JSONEncoder`'s, for every combination of parts.
@Suite("JSONWriter: channel commands without JSONEncoder")
struct ChannelRequestWritingTests {
    @Test func sameObjectAsJSONEncoder() throws {
        var rng = SeededGenerator(seed: 0x36_4ACC)
        let urls = ["sendbird_group_channel_1_abc", "c/\"quoted\"\\ 😀", "", "tab\there\u{1}"]
        var checked = 0
        for _ in 0..<500 {
            var r = ChannelRequest()
            if Bool.random(using: &rng) { r.channelUrl = urls.randomElement(using: &rng) }
            if Bool.random(using: &rng) { r.reqId = "rq-\(Int.random(in: 0...999, using: &rng))" }
            if Bool.random(using: &rng) { r.time = FlexibleInt64(Int64.random(in: Int64.min...Int64.max, using: &rng)) }
            if Bool.random(using: &rng) { r.msgId = FlexibleInt64(Int64.random(in: 0...Int64.max, using: &rng)) }
            let frame = Frame(command: .messageAck, r)
            let encoded = try WireCoding.encoder.encode(r)
            let a = try JSONSerialization.jsonObject(with: frame.payload) as? NSDictionary
            let b = try JSONSerialization.jsonObject(with: encoded) as? NSDictionary
            #expect(a != nil && a == b, "\(String(decoding: frame.payload, as: UTF8.self))")
            #expect(try frame.decode(ChannelRequest.self) == r)
            checked += 1
        }
        #expect(checked == 500)
        #expect(Frame(command: .read, ChannelRequest(channelUrl: "c1", reqId: "r1")).text == "READ{\"channel_url\":\"c1\",\"req_id\":\"r1\"}\n")
    }
}
