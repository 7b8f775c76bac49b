import Foundation
import Testing

@testable import TernProtocol

/// The byte search the hot paths use: every incoming frame in tern (does it carry `unread_cnt`, is a
/// `LOGI` an error), every send in ternd (its channel, a link in its text).
@Suite("ByteSearch: a run of bytes in bytes")
struct ByteSearchTests {
    @Test func findsTheKeyAnywhereAndNothingElse() {
        let key = Array("\"unread_cnt\"".utf8)
        #expect(Data("{\"unread_cnt\":{\"all\":1},\"msg_id\":2}".utf8).contains(bytes: key))
        #expect(Data("{\"msg_id\":2,\"unread_cnt\":{}}".utf8).contains(bytes: key))
        #expect(!Data("{\"msg_id\":2,\"unread_cn\":{}}".utf8).contains(bytes: key))
        #expect(!Data("{\"message\":\"the unread_cnt word\"}".utf8).contains(bytes: key), "the bare word, unquoted, is not the key")
        #expect(!Data().contains(bytes: key))
        #expect(Data("x".utf8).contains(bytes: []))
        // A slice whose bytes do not start at index 0: the index is the slice's own.
        let whole = Data("xxxx\"unread_cnt\"".utf8)
        #expect(whole[4...].contains(bytes: key) && !whole[..<10].contains(bytes: key))
        #expect(whole[2...].firstIndex(ofBytes: key) == 4)
    }

    @Test func inAString() {
        #expect(ByteSearch.firstOffset(of: "://", in: "see https://x") == 9)
        #expect(ByteSearch.firstOffset(of: "://", in: "http:/ /x :// ") == 10)
        #expect(ByteSearch.firstOffset(of: "://", in: "你好://") == 6, "offsets count UTF-8 bytes")
        #expect(ByteSearch.firstOffset(of: "://", in: ":/") == nil)
        #expect(ByteSearch.firstOffset(of: "://", in: "") == nil)
        #expect(ByteSearch.firstOffset(of: "", in: "abc") == 0)
    }

    /// Against the plainest search there is, over haystacks and needles of few letters (so that
    /// near misses and overlaps are common).
    @Test func agreesWithANaiveSearch() {
        var rng = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = Array("ab:/".utf8)
        for _ in 0..<3000 {
            let hay = (0..<Int.random(in: 0...40, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            let needle = (0..<Int.random(in: 0...4, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            var naive: Int?
            if needle.isEmpty {
                naive = 0
            } else if hay.count >= needle.count {
                naive = (0...(hay.count - needle.count)).first { Array(hay[$0..<($0 + needle.count)]) == needle }
            }
            #expect(Data(hay).firstIndex(ofBytes: needle) == naive, "\(hay) \(needle)")
        }
    }
}
