import Foundation
import TernTestSupport
import Testing

@testable import TernProtocol

/// ``JSONReader`` against `JSONDecoder`: wherever the reader gives a value it must be the one the
/// `Decodable` path gives, and the frames servers send must not need the `Decodable` path at all.
@Suite("JSONReader: per-message frames without JSONDecoder")
struct JSONReaderTests {
    /// The reader's value equals `JSONDecoder`'s; `fast` also asks that the reader gave one.
    static func check<T: ByteDecodable & Equatable>(
        _ type: T.Type, _ json: String, fast: Bool, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let data = Data(json.utf8)
        let scanned = T.scan(data)
        let decoded = try? WireCoding.decoder.decode(T.self, from: data)
        if let scanned {
            #expect(decoded != nil, "reader read what JSONDecoder rejects: \(json)", sourceLocation: sourceLocation)
            #expect(scanned == decoded, "\(json)", sourceLocation: sourceLocation)
        }
        if fast { #expect(scanned != nil, "reader gave up on \(json)", sourceLocation: sourceLocation) }
        // Through the frame, with or without the reader: the same value, or the same failure (a
        // frame with no payload reads as `{}`).
        let frame = Frame(command: .message, payload: data)
        let viaFrame = data.isEmpty ? try? WireCoding.decoder.decode(T.self, from: Data("{}".utf8)) : decoded
        #expect((try? frame.decode(T.self)) == viaFrame, "\(json)", sourceLocation: sourceLocation)
    }

    static let user = #"{"user_id":"alice","nickname":"Alice","profile_url":"","metadata":{"team":"red"},"role":"","is_active":true}"#

    @Test func theServersMessageIsReadWithoutTheDecoder() throws {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/mesg_from_server", withExtension: "json"))
        let text = try String(contentsOf: url, encoding: .utf8)
        Self.check(MessagePayload.self, text, fast: true)
        // As ternd splices each recipient's totals in front.
        let spliced = #"{"unread_cnt":{"all":3,"custom_types":{"a":1},"ts":17},"# + text.dropFirst()
        Self.check(MessagePayload.self, spliced, fast: true)
        Self.check(UnreadCount.self, #"{"all":3,"custom_types":{"a":1},"ts":17}"#, fast: true)
    }

    @Test(arguments: [
        // Numbers as strings, and both spellings of the id and the time.
        #"{"msg_id":"42","created_at":"1700000000000","parent_message_id":"5","updated_at":"-3"}"#,
        #"{"message_id":7,"ts":9,"created_at":8}"#,
        #"{"msg_id":null,"message_id":"7"}"#,
        #"{"msg_id":-0}"#,
        #"{"msg_id":9223372036854775807,"ts":-9223372036854775808}"#,
        // Nulls and missing keys take Decodable's defaults.
        #"{"msg_id":1}"#,
        #"{"msg_id":1,"message":null,"user":null,"req_id":null,"custom_type":null,"silent":null,"mentioned_users":null,"sorted_metaarray":null}"#,
        #"{"msg_id":1,"thread_info":null,"og_tag":null,"reactions":null,"file":null,"files":null,"require_auth":null,"type":null}"#,
        #"{"msg_id":1,"message_survival_seconds":null,"channel_type":null,"mention_type":null,"old_values":null}"#,
        // Escapes: unicode, a surrogate pair, the short ones.
        #"{"msg_id":1,"message":"caf\u00e9 \u4F60 \uD83D\uDE00 \"q\" \\ \/ \b\f\n\r\t \u0000"}"#,
        #"{"msg_id":1,"message":"hi — 你好 💬","channel_url":"é\u00e9"}"#,
        // Keys it does not know, of every shape, are skipped.
        #"{"extra":{"a":[1,-2.5e3,{"b":null,"c":[true,false,""]}],"d":"x\"y"},"msg_id":1,"z":[],"y":{},"w":1E+2}"#,
        #"{"msg_id":1,"user":{"user_id":"u","friend":{"x":[1]},"metadata":{}},"url":"x","name":"n","size":3}"#,
        // Whitespace wherever JSON allows it.
        " \t{ \"msg_id\" : 1 ,\r\n\"user\" : { \"user_id\" : \"u\" } , \"mentioned_users\" : [ ] } \n",
        // The nested parts it builds.
        #"{"msg_id":1,"user":"# + user + #","mentioned_users":["# + user + "," + user
            + #"],"sorted_metaarray":[{"key":"k","value":["a","b"]},{"key":"e","value":[]}]}"#,
        #"{"msg_id":1,"old_values":{"message":"was","data":""},"translations":{"fr":"salut"},"require_auth":true,"is_removed":true}"#,
        #"{"type":"ADMM","msg_id":1,"message_survival_seconds":60,"silent":true,"is_op_msg":true,"is_reply_to_channel":true}"#,
    ])
    func edgeCasesMatchTheDecoder(_ json: String) {
        Self.check(MessagePayload.self, json, fast: true)
    }

    @Test(arguments: [
        // Left to JSONDecoder: fractions, duplicates, files, nested parts it does not build, wrong types.
        #"{"msg_id":1.0}"#, #"{"msg_id":1,"msg_id":2}"#, #"{"msg_id":1e3}"#, #"{"msg_id":"1.5"}"#, #"{"msg_id":" 1"}"#,
        #"{"type":"FILE","msg_id":1,"url":"u","name":"n","size":3}"#, #"{"msg_id":1,"file":{"url":"u"}}"#,
        #"{"msg_id":1,"thread_info":{"reply_count":1}}"#, #"{"msg_id":1,"reactions":[]}"#, #"{"msg_id":1,"silent":1}"#,
        #"{"msg_id":1,"message":5}"#, #"{"msg_id":1,"user":{"nickname":"no id"}}"#, #"{"msg_id":1,"user":[]}"#,
        #"{"msg_id":1,"user":{"user_id":"u","metadata":{"a":1}}}"#, #"{"msg_id":1,"mentioned_users":[{"nickname":"x"}]}"#,
        #"{"m\u0073g_id":1}"#, #"{"msg_id":99999999999999999999}"#, #"{"msg_id":01}"#, #"{"msg_id":-}"#,
        // Malformed: the reader gives up and JSONDecoder throws, as before.
        #"{"msg_id":1,"message":"\uD83D"}"#, #"{"msg_id":1,"message":"\uDE00x"}"#, #"{"msg_id":1,"message":"\x"}"#,
        #"{"msg_id":1,"message":"a"#, #"{"msg_id":1} x"#, #"{"msg_id":1,}"#, #"{"msg_id" 1}"#, #"["msg_id"]"#, "", "{",
        "{\"msg_id\":1,\"message\":\"tab\there\"}", #"{"msg_id":1,"x":[1,2}"#, #"{"msg_id":1,"x":tru}"#, #"{"msg_id":1,"x":"\ud800"}"#,
        #"{"msg_id":1,"x":1e99999}"#, #"{"x":"é"}"#, #"{"msg_id":-1}"#, "{\"msg_id\":1,\"x\":" + String(repeating: "[", count: 5000) + "}",
    ])
    func whatItDoesNotKnowGoesToTheDecoder(_ json: String) {
        Self.check(MessagePayload.self, json, fast: false)
    }

    @Test func invalidUTF8IsLeftToTheDecoder() {
        for bytes: [UInt8] in [[0xFF], [0xC3], [0xE2, 0x82], [0xED, 0xA0, 0x80]] {
            for key in ["message", "unknown"] {
                let data = Data(#"{"msg_id":1,"\#(key)":""#.utf8) + Data(bytes) + Data(#""}"#.utf8)
                let scanned = MessagePayload.scan(data)
                let decoded = try? WireCoding.decoder.decode(MessagePayload.self, from: data)
                if let scanned { #expect(scanned == decoded) }
            }
        }
    }

    @Test(arguments: [
        #"{"channel_url":"c","channel_type":"group","user":{"user_id":"u"},"ts":5}"#,
        #"{"channel_url":"c","channel_type":"group","user":{"user_id":"u"},"ts":5,"req_id":"r","unread_cnt":{"all":2,"ts":"9"}}"#,
        #"{"channel_url":"c","channel_type":"group","user":{"user_id":"u"},"ts":5,"req_id":null,"unread_cnt":null,"x":{}}"#,
    ])
    func readEvents(_ json: String) {
        Self.check(ReadEvent.self, json, fast: true)
    }

    @Test func otherPerMessageFrames() {
        Self.check(ReadEvent.self, #"{"channel_url":"c","user":{"user_id":"u"},"ts":5}"#, fast: false)
        Self.check(ReadEvent.self, #"{"channel_url":"c","channel_type":"group","user":{"user_id":"u"},"ts":"5"}"#, fast: false)
        Self.check(DeliveryEvent.self, #"{"channel_url":"c","channel_type":"group","updated":{"u":5,"v":-1}}"#, fast: true)
        Self.check(DeliveryEvent.self, #"{"channel_url":"c","channel_type":"group","updated":{"u":"5"}}"#, fast: false)
        Self.check(DeleteMessageEvent.self, #"{"channel_url":"c","msg_id":"5","message_id":5}"#, fast: true)
        Self.check(DeleteMessageEvent.self, #"{"channel_url":"c","channel_type":null,"msg_id":null,"message_id":5}"#, fast: true)
        Self.check(DeleteMessageEvent.self, #"{"channel_url":"c"}"#, fast: false)
        Self.check(
            ReactionEvent.self,
            #"{"channel_url":"c","channel_type":"group","msg_id":"5","reaction":"👍","user_id":"u","operation":"ADD","success":true,"updated_at":7}"#,
            fast: true)
        Self.check(ReactionEvent.self, #"{"channel_url":"c","msg_id":5,"reaction":"x","user_id":"u","operation":"DELETE"}"#, fast: true)
        Self.check(ReactionEvent.self, #"{"channel_url":"c","msg_id":5,"reaction":"x","user_id":"u"}"#, fast: false)
        Self.check(UnreadCount.self, #"{"all":null,"custom_types":null,"ts":null}"#, fast: true)
        Self.check(UnreadCount.self, #"{"all":"1"}"#, fast: false)
    }
}

extension JSONReaderTests {
    /// The reader's own UTF-8 check (for skipped strings) against the standard library's.
    @Test func utf8CheckAgreesWithTheStandardLibrary() {
        var rng = SeededGenerator(seed: 0x0075_7466_38)
        let starts: [UInt8] = [
            0x41, 0x7F, 0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
        ]
        let tails: [UInt8] = [0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF]
        for _ in 0..<20_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                bytes.append(starts.randomElement(using: &rng)!)
                for _ in 0..<Int.random(in: 0...3, using: &rng) { bytes.append(tails.randomElement(using: &rng)!) }
            }
            let ours = bytes.withUnsafeBufferPointer { JSONReader.isUTF8($0) }
            #expect(ours == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
        }
    }
}
