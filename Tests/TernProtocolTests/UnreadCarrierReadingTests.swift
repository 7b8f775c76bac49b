import Foundation
import Testing

@testable import TernProtocol

/// `unread_cnt`, which the engine reads of every frame, against `JSONDecoder`.
@Suite("UnreadCarrier read without JSONDecoder")
struct UnreadCarrierReadingTests {
    @Test(arguments: [
        (#"{"unread_cnt":{"all":2,"custom_types":{"a":1},"ts":"17"},"msg_id":1,"user":{"user_id":"u","x":[1,{"y":null}]}}"#, true),
        (#"{"msg_id":1,"message":"\uD83D\uDE00","unread_cnt":{"all":0}}"#, true),
        (#"{"unread_cnt":null}"#, true), (#"{}"#, true), (#"{"x":{"unread_cnt":{"all":3}}}"#, true),
        (#"{"unread_cnt":{"all":1.5}}"#, false), (#"{"unread_cnt":"3"}"#, false), (#"{"unread_cnt":{"all":1},"unread_cnt":{"all":2}}"#, false),
        (#"{"unread_cnt":{"all":1}"#, false), (#"{"unread_cnt":{"all":1},"m":"\uDE00"}"#, false),
    ])
    func sameAsTheDecoder(_ json: String, fast: Bool) {
        let data = Data(json.utf8)
        let scanned = UnreadCarrier.scan(data)
        let decoded = try? WireCoding.decoder.decode(UnreadCarrier.self, from: data)
        if let scanned { #expect(scanned == decoded) }
        if fast { #expect(scanned != nil) }
        #expect((try? Frame(command: .message, payload: data).decode(UnreadCarrier.self)) == decoded)
    }
}
