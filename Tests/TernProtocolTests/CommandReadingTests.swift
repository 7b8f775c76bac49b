import Foundation
import TernTestSupport
import Testing

@testable import TernProtocol

/// The commands ternd reads once per message or keystroke (`MESG`, `READ`, `TPST`/`TPEN`, `PING`),
/// read by ``JSONReader``: random commands in every spelling clients use, then mutated; wherever the
/// reader gives a value it is `JSONDecoder`'s, and it reads what the SDKs send without it.
@Suite("JSONReader: client commands against JSONDecoder")
struct CommandReadingTests {
    typealias Maker = JSONReaderRandomTests.Maker

    static func sendMessage(_ m: inout Maker, objectMetaarray: Bool) -> String {
        let metaarray =
            objectMetaarray
            ? m.object([("colour", "[\(m.string()),\(m.string())]")])
            : "["
                + (0..<Int.random(in: 0...2, using: &m.rng)).map { _ in m.object([("key", m.string()), ("value", "[\(m.string())]")]) }
                .joined(separator: ",") + "]"
        let fields: [(String, String)] = [
            ("channel_url", m.orNull(m.string())), ("message", m.orNull(m.string(maxLength: 40))), ("data", m.orNull(m.string())),
            ("custom_type", m.orNull(m.string())), ("mention_type", m.orNull(["\"users\"", "\"channel\""].randomElement(using: &m.rng)!)),
            ("mentioned_user_ids", m.orNull("[\(m.string()),\(m.string())]")), ("metaarray", m.orNull(metaarray)),
            ("parent_message_id", m.flexibleInt()), ("reply_to_channel", m.bool()), ("silent", m.bool()), ("req_id", m.orNull(m.string())),
        ]
        return m.object(m.some(fields), unknown: true)
    }

    static func channelRequest(_ m: inout Maker) -> String {
        m.object(
            m.some([("channel_url", m.orNull(m.string())), ("req_id", m.orNull(m.string())), ("time", m.flexibleInt()), ("msg_id", m.flexibleInt())]),
            unknown: true)
    }

    static func ping(_ m: inout Maker) -> String {
        m.object(m.some([("id", m.flexibleInt()), ("ts", m.orNull("\(m.int())")), ("req_id", m.orNull(m.string()))]), unknown: true)
    }

    @Test("2,000 random MESG commands: read without JSONDecoder, equal to it; mutated, never different")
    func randomSends() {
        var maker = Maker(rng: SeededGenerator(seed: 0x35_5E4D))
        for i in 0..<2_000 {
            // A metaarray written as an object (the older spelling) is left to JSONDecoder.
            let objectForm = i % 10 == 0
            let json = Self.sendMessage(&maker, objectMetaarray: objectForm)
            JSONReaderTests.check(SendMessageRequest.self, json, fast: !objectForm || !json.contains("metaarray\""))
            let mutated = String(decoding: FuzzTests.mutate(Array(json.utf8), &maker.rng), as: UTF8.self)
            JSONReaderTests.check(SendMessageRequest.self, mutated, fast: false)
        }
    }

    @Test("1,000 random READ/TPST/MACK requests and PINGs each")
    func randomRequests() {
        var maker = Maker(rng: SeededGenerator(seed: 0x35_2EAD))
        for _ in 0..<1_000 {
            let request = Self.channelRequest(&maker)
            JSONReaderTests.check(ChannelRequest.self, request, fast: true)
            JSONReaderTests.check(
                ChannelRequest.self, String(decoding: FuzzTests.mutate(Array(request.utf8), &maker.rng), as: UTF8.self), fast: false)
            let ping = Self.ping(&maker)
            JSONReaderTests.check(PingPayload.self, ping, fast: true)
            JSONReaderTests.check(PingPayload.self, String(decoding: FuzzTests.mutate(Array(ping.utf8), &maker.rng), as: UTF8.self), fast: false)
        }
    }

    @Test(
        "What the JS SDK and tern send is read without JSONDecoder",
        arguments: [
            #"{"channel_url":"sendbird_group_channel_1","message":"hi","data":"","custom_type":"","mention_type":"users","mentioned_user_ids":[],"metaarray":[],"req_id":"rq-1"}"#,
            #"{"channel_url":"c","message":"reply","parent_message_id":"42","reply_to_channel":true,"silent":false,"req_id":"2"}"#,
            #"{"channel_url":"c","message":"x","metaarray":[{"key":"k","value":["a","b"]}],"req_id":"3"}"#,
        ])
    func sdkSends(_ json: String) {
        JSONReaderTests.check(SendMessageRequest.self, json, fast: true)
    }

    @Test("Values of another type and bad integers go to JSONDecoder, which refuses them as before")
    func refusedAsBefore() {
        for json in [
            #"{"channel_url":1,"message":"x"}"#, #"{"silent":"yes"}"#, #"{"parent_message_id":1.5}"#, #"{"mentioned_user_ids":[1]}"#,
            #"{"parent_message_id":"4x"}"#, #"{"metaarray":[{"key":"k"}]}"#,
        ] {
            #expect(SendMessageRequest.scan(Data(json.utf8)) == nil, "\(json)")
            #expect(throws: (any Error).self, "\(json)") { try Frame(command: .message, payload: Data(json.utf8)).decode(SendMessageRequest.self) }
        }
    }
}
