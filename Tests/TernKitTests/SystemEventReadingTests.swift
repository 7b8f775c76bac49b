import Foundation
import Testing

@testable import TernKit
@testable import TernProtocol

/// `SYEV` (typing, and every other channel event) read by ``JSONReader`` against `JSONDecoder`.
@Suite("SystemEvent read without JSONDecoder")
struct SystemEventReadingTests {
    static func fields(_ e: SystemEvent?) -> String? {
        e.map {
            "\($0.cat) \($0.channelUrl) \(String(describing: $0.channelType)) \(String(describing: $0.ts)) \(String(describing: $0.user)) \(String(describing: $0.invitee))"
        }
    }

    static let sender = #"{"user_id":"bob","nickname":"Bob","profile_url":"","metadata":{},"role":"","is_active":true}"#

    @Test(arguments: [
        (#"{"cat":10900,"channel_url":"c","channel_type":"group","data":"# + sender + #","ts":1700000000000}"#, true),
        (#"{"data":"# + sender + #","ts":"17","cat":10901,"channel_url":"c"}"#, true),
        (#"{"cat":10000,"channel_url":"c","data":null,"ts":null,"channel_type":null}"#, true),
        (#"{"cat":10000,"channel_url":"c"}"#, true),
        (#"{"cat":10022,"channel_url":"c","data":{"user_id":"u","invitee":null,"x":[1,{"y":2}]}}"#, true),
        // Left to JSONDecoder: an invitee, a data without a user id, values of other types.
        (#"{"cat":10022,"channel_url":"c","data":{"inviter":{"user_id":"a"},"invitee":{"user_id":"b"}}}"#, false),
        (#"{"cat":10000,"channel_url":"c","data":{"users":[{"user_id":"a"}]}}"#, false),
        (#"{"cat":10900,"channel_url":"c","data":"x"}"#, false), (#"{"cat":"10900","channel_url":"c"}"#, false),
        (#"{"cat":10900,"channel_url":"c","channel_type":5}"#, false), (#"{"cat":10900,"channel_url":"c","ts":"soon"}"#, false),
        (#"{"cat":10900}"#, false), (#"{"cat":10900,"channel_url":"c","data":{"user_id":"u","nickname":7}}"#, false),
        (#"{"cat":10900,"channel_url":"c","data":{"user_id":"u"}"#, false),
    ])
    func sameAsTheDecoder(_ json: String, fast: Bool) {
        let data = Data(json.utf8)
        let scanned = SystemEvent.scan(data)
        let decoded = try? WireCoding.decoder.decode(SystemEvent.self, from: data)
        if scanned != nil { #expect(Self.fields(scanned) == Self.fields(decoded), "\(json)") }
        if fast { #expect(scanned != nil, "\(json)") }
        #expect(Self.fields(try? Frame(command: .systemEvent, payload: data).decode(SystemEvent.self)) == Self.fields(decoded))
    }
}
