import Foundation
import Testing

@testable import TernProtocol

@Suite("Wire payloads against JSON fixtures")
struct PayloadTests {
    func fixture(_ name: String) throws -> Data {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"))
        return try Data(contentsOf: url)
    }

    func object(_ data: Data) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: data) as? NSDictionary)
    }

    @Test("A server MESG decodes and re-encodes to the same JSON, keys spelled as Sendbird's")
    func messageRoundTrip() throws {
        let data = try fixture("mesg_from_server")
        let m = try JSONDecoder().decode(MessagePayload.self, from: data)
        #expect(m.msgId == 42 && m.messageId == 42)
        #expect(m.user?.userId == "alice" && m.user?.metadata["team"] == "red")
        #expect(m.message == "hi — 你好 💬")
        #expect(m.reqId == "rq-1")
        let again = try WireCoding.encoder.encode(m)
        #expect(try object(again) == object(data))
    }

    @Test("An admin message has no `user` key at all (the Platform SDK rejects null)")
    func adminMessageHasNoUser() throws {
        let m = MessagePayload(type: "ADMM", id: 1, message: "notice", channelUrl: "c", createdAt: 5, user: nil)
        let obj = try object(WireCoding.encoder.encode(m))
        #expect(obj["user"] == nil)
        #expect(obj["req_id"] == nil)
        #expect(obj["created_at"] as? Int == 5 && obj["ts"] as? Int == 5)
    }

    @Test("LOGI encodes every key the SDKs read")
    func login() throws {
        let data = try fixture("logi")
        let logi = try JSONDecoder().decode(LoginPayload.self, from: data)
        #expect(logi.key == "k" && logi.unreadCnt.all == 3 && logi.reconnect.retryCnt == -1)
        #expect(try object(WireCoding.encoder.encode(logi)) == object(data))
    }

    @Test("A group channel carries receipts as {user: ms}, `last_message` null when empty, and the nested `channel`")
    func groupChannel() throws {
        var c = GroupChannelPayload(channelUrl: "c1")
        c.readReceipt = ["alice": 1_700_000_000_123]
        let obj = try object(WireCoding.encoder.encode(c))
        #expect((obj["read_receipt"] as? [String: Int])?["alice"] == 1_700_000_000_123)
        #expect(obj["last_message"] is NSNull)
        #expect((obj["channel"] as? [String: Any])?["channel_url"] as? String == "c1")
        #expect(obj["push_trigger_option"] as? String == "all")
        #expect(obj["count_preference"] as? String == "all")
        let back = try JSONDecoder().decode(GroupChannelPayload.self, from: WireCoding.encoder.encode(c))
        #expect(back.readReceipt == c.readReceipt && back.channelUrl == "c1")
    }

    @Test("Integers arrive as numbers or numeric strings; anything else is refused")
    func flexibleInt() throws {
        let a = try JSONDecoder().decode(ChannelRequest.self, from: Data(#"{"channel_url":"c","msg_id":"12"}"#.utf8))
        #expect(a.msgId?.value == 12)
        let b = try JSONDecoder().decode(ChannelRequest.self, from: Data(#"{"channel_url":"c","msg_id":12.0}"#.utf8))
        #expect(b.msgId?.value == 12)
        #expect(throws: (any Error).self) { try JSONDecoder().decode(ChannelRequest.self, from: Data(#"{"msg_id":"x"}"#.utf8)) }
    }

    @Test("Error codes map to Sendbird's HTTP statuses; error bodies have message, code and error")
    func errors() throws {
        #expect(ErrorCode.invalidApiToken.httpStatus == 403)
        #expect(ErrorCode.notFound.httpStatus == 400)
        #expect(ErrorCode.rateLimitExceeded.httpStatus == 429)
        #expect(ErrorCode.internalError.httpStatus == 500)
        let body = try object(WireCoding.encoder.encode(ErrorBody(code: .notFound, message: "\"User\" not found.")))
        #expect(body["code"] as? Int == 400201 && body["error"] as? Bool == true && body["message"] as? String == "\"User\" not found.")
    }
}
