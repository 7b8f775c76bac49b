import Foundation
import Testing

@testable import TernKit

/// The byte search every incoming frame goes through (does it carry `unread_cnt`, is a `LOGI` an error).
@Suite("Frame scan (a byte search over a payload)")
struct FrameScanTests {
    @Test func findsTheKeyAnywhereAndNothingElse() {
        let key = Array("\"unread_cnt\"".utf8)
        #expect(Data("{\"unread_cnt\":{\"all\":1},\"msg_id\":2}".utf8).contains(bytes: key))
        #expect(Data("{\"msg_id\":2,\"unread_cnt\":{}}".utf8).contains(bytes: key))
        #expect(!Data("{\"msg_id\":2,\"unread_cn\":{}}".utf8).contains(bytes: key))
        #expect(!Data("{\"message\":\"the unread_cnt word\"}".utf8).contains(bytes: key), "the bare word, unquoted, is not the key")
        #expect(!Data().contains(bytes: key))
        #expect(Data("x".utf8).contains(bytes: []))
        // A slice whose bytes do not start at index 0.
        let whole = Data("xxxx\"unread_cnt\"".utf8)
        #expect(whole[4...].contains(bytes: key) && !whole[..<10].contains(bytes: key))
    }
}
