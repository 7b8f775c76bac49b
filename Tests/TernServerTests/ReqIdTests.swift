import Foundation
import Testing

@testable import TernServer

@Suite("ChatService.withReqId: the sender's req_id put in front of an acknowledged frame's JSON")
struct ReqIdTests {
    @Test("Any req_id, quotes, backslashes and control characters included, reads back as sent; the rest of the object is kept")
    func roundTrips() throws {
        for reqId in ["1700000000000", "a\"b", "back\\slash", "line\nbreak\u{1}", "路径/😀", ""] {
            for json in [#"{"message_id":5,"message":"hi"}"#, "{}"] {
                let out = ChatService.withReqId(json, reqId)
                let object = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any], "\(out)")
                #expect(object["req_id"] as? String == reqId, "\(out)")
                #expect(object.count == (json == "{}" ? 1 : 3), "\(out)")
            }
        }
        #expect(ChatService.withReqId("[1]", "x") == "[1]", "not an object: left as it is")
    }
}
