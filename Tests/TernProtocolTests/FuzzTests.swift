import Foundation
import TernTestSupport
import Testing

@testable import TernProtocol

/// Mutation fuzzing of everything that reads bytes from a peer (G8): the frame codec and the JSON
/// decoding of every command payload. Thousands of mutated frames per run, from a fixed seed:
/// nothing may crash, every decoded frame must be well formed and survive a round trip.
@Suite("Fuzzing: frame codec and payload decoding")
struct FuzzTests {
    static let corpus: [String] = [
        #"LOGI{"key":"k","user_id":"alice","ping_interval":15,"pong_timeout":5,"login_ts":1700000000000}"#,
        #"MESG{"channel_url":"c1","message":"hello \n world","data":"","custom_type":"t","req_id":"r1","mentioned_user_ids":["bob"],"metaarray":{"k":["v"]},"parent_message_id":5}"#,
        #"FILE{"channel_url":"c1","url":"https://x/y.png","name":"y.png","type":"image/png","size":12,"req_id":"r2","thumbnails":[{"url":"https://x/t","width":1,"height":1,"real_width":1,"real_height":1}]}"#,
        #"MEDI{"channel_url":"c1","msg_id":"12","message":"edited","req_id":"r3","metaarray":{"mode":"add","array":[{"key":"a","value":["b"]}]}}"#,
        #"READ{"channel_url":"c1","req_id":"r4"}"#,
        #"TPST{"channel_url":"c1","time":1700000000000}"#,
        #"MACK{"channel_url":"c1","msg_id":12}"#,
        #"ENTR{"channel_url":"open","req_id":"r5","last_ts":0}"#,
        #"PING{"id":1700000000000,"active":1}"#,
        #"EROR{"code":400111,"message":"bad","req_id":"r6","error":true}"#,
        "PING{}\nREAD{\"channel_url\":\"c\"}\r\nMESG{\"channel_url\":\"c\",\"message\":\"é😀\"}\n",
    ]

    static let payloadTypes: [(String, @Sendable (Frame) throws -> Void)] = [
        ("SendMessageRequest", { _ = try $0.decode(SendMessageRequest.self) }),
        ("FileMessageRequest", { _ = try $0.decode(FileMessageRequest.self) }),
        ("UpdateMessageRequest", { _ = try $0.decode(UpdateMessageRequest.self) }),
        ("ChannelRequest", { _ = try $0.decode(ChannelRequest.self) }),
        ("PingPayload", { _ = try $0.decode(PingPayload.self) }),
        ("ErrorPayload", { _ = try $0.decode(ErrorPayload.self) }),
    ]

    static let interesting: [[UInt8]] = [
        Array("\n".utf8), Array("\r\n".utf8), Array("{".utf8), Array("}".utf8), Array("\"".utf8), Array("\\".utf8),
        Array("\\u0000".utf8), Array("\\ud800".utf8), [0xFF], [0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0x00],
        Array("1e999999".utf8), Array("-0".utf8), Array("null".utf8), Array("[]".utf8), Array(":".utf8), Array(",".utf8),
        Array("99999999999999999999999".utf8), Array("true".utf8),
    ]

    static func mutate(_ input: [UInt8], _ rng: inout SeededGenerator) -> [UInt8] {
        var b = input
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            switch Int.random(in: 0..<8, using: &rng) {
            case 0 where !b.isEmpty:  // flip a bit
                let i = Int.random(in: 0..<b.count, using: &rng)
                b[i] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))
            case 1 where !b.isEmpty:  // delete a run
                let i = Int.random(in: 0..<b.count, using: &rng)
                b.removeSubrange(i..<min(b.count, i + Int.random(in: 1...8, using: &rng)))
            case 2:  // insert something that matters to a parser
                let piece = interesting.randomElement(using: &rng)!
                b.insert(contentsOf: piece, at: Int.random(in: 0...b.count, using: &rng))
            case 3 where !b.isEmpty:  // truncate
                b = Array(b.prefix(Int.random(in: 0..<b.count, using: &rng)))
            case 4 where !b.isEmpty:  // duplicate a run
                let i = Int.random(in: 0..<b.count, using: &rng)
                let run = b[i..<min(b.count, i + Int.random(in: 1...32, using: &rng))]
                b.insert(contentsOf: run, at: Int.random(in: 0...b.count, using: &rng))
            case 5:  // random bytes
                b.insert(
                    contentsOf: (0..<Int.random(in: 1...6, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) },
                    at: Int.random(in: 0...b.count, using: &rng))
            case 6:  // splice another corpus entry in
                let other = Array(corpus.randomElement(using: &rng)!.utf8)
                b.insert(contentsOf: other.prefix(Int.random(in: 0...other.count, using: &rng)), at: Int.random(in: 0...b.count, using: &rng))
            default:  // swap a value's type: a string where a number was, and so on
                if let i = b.firstIndex(of: UInt8(ascii: ":")), i + 1 < b.count {
                    b.insert(contentsOf: interesting.randomElement(using: &rng)!, at: i + 1)
                }
            }
        }
        return b
    }

    /// Checks what the codec made of `bytes`; returns how many frames decoded.
    @discardableResult
    static func check(_ bytes: [UInt8]) -> Int {
        let results = FrameCodec.decode(bytes)
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).count
        #expect(results.count <= lines)
        var ok = 0
        for case .success(let frame) in results {
            ok += 1
            #expect(frame.command.rawValue.utf8.count == 4 && frame.command.rawValue.utf8.allSatisfy { $0 >= 65 && $0 <= 90 })
            // The codec promises the shape (an object or nothing); the JSON itself is read by the
            // payload decoders below, which must refuse garbage with an error, not a crash.
            #expect(frame.payload.first { $0 != 32 && $0 != 9 }.map { $0 == UInt8(ascii: "{") } ?? true)
            let again = FrameCodec.decode(frame.text)
            #expect(again.count == 1 && (try? again[0].get())?.command == frame.command)
            for (_, decode) in payloadTypes { _ = try? decode(frame) }
        }
        return ok
    }

    @Test("20,000 mutated messages: no crash, every accepted frame well formed and stable")
    func mutatedFrames() {
        var rng = SeededGenerator(seed: 0x7E54_D17E)
        var accepted = 0
        for _ in 0..<20_000 {
            let seed = Array(Self.corpus.randomElement(using: &rng)!.utf8)
            accepted += Self.check(Self.mutate(seed, &rng))
        }
        // The mutations keep many frames valid: the decoders behind the codec were reached.
        #expect(accepted > 2_000)
    }

    @Test("Pathological inputs: deep nesting, huge numbers, lone surrogates, invalid UTF-8, only newlines")
    func pathological() {
        let deep = "MESG" + String(repeating: "{\"a\":", count: 10_000) + "1" + String(repeating: "}", count: 10_000)
        Self.check(Array(deep.utf8))
        let deepArray = "MESG{\"mentioned_user_ids\":" + String(repeating: "[", count: 50_000) + String(repeating: "]", count: 50_000) + "}"
        Self.check(Array(deepArray.utf8))
        Self.check(Array("MESG{\"msg_id\":1e99999,\"channel_url\":\"\\ud800\"}".utf8))
        Self.check([0x4D, 0x45, 0x53, 0x47, 0x7B, 0xFF, 0xFE, 0x7D])
        Self.check(Array(String(repeating: "\n", count: 100_000).utf8))
        Self.check(Array(String(repeating: "PING{}\n", count: 20_000).utf8))
        #expect(FrameCodec.decode(String(repeating: "PING{}\n", count: 1000)).count == 1000)
    }
}
