import Foundation
import TernTestSupport
import Testing

@testable import TernProtocol

/// Frames built at random from a fixed seed, in every spelling the lenient readers accept (keys in
/// any order, ids as strings, nulls, escapes, unknown nested keys), then mutated: the reader must
/// agree with `JSONDecoder` on all of them, and read every unmutated one itself.
@Suite("JSONReader: random frames against JSONDecoder")
struct JSONReaderRandomTests {
    /// Builds JSON text from a seeded generator.
    struct Maker {
        var rng: SeededGenerator

        mutating func chance(_ n: Int) -> Bool { Int.random(in: 0..<n, using: &rng) == 0 }

        mutating func space() -> String { chance(4) ? [" ", "\t", "\r\n", "  "].randomElement(using: &rng)! : "" }

        static let pieces: [String] = ["a", "Z", " ", "0", "é", "你", "😀", "👍🏽", "\"", "\\", "/", "\n", "\t", "\u{01}", "\u{7F}", "—", "\u{0}"]

        /// A JSON string literal, each character written raw or escaped at random.
        mutating func string(maxLength: Int = 8) -> String {
            var out = "\""
            for _ in 0..<Int.random(in: 0...maxLength, using: &rng) {
                let piece = Self.pieces.randomElement(using: &rng)!
                for scalar in piece.unicodeScalars {
                    switch scalar {
                    case "\"": out += chance(2) ? "\\\"" : "\\u0022"
                    case "\\": out += "\\\\"
                    case "/": out += chance(2) ? "/" : "\\/"
                    case "\n": out += chance(2) ? "\\n" : "\\u000a"
                    case "\t": out += "\\t"
                    case _ where scalar.value < 0x20: out += String(format: "\\u%04X", scalar.value)
                    case _ where chance(3): out += escaped(scalar)
                    default: out.unicodeScalars.append(scalar)
                    }
                }
            }
            return out + "\""
        }

        mutating func escaped(_ scalar: Unicode.Scalar) -> String {
            let lower = chance(2)
            func hex(_ v: UInt32) -> String { String(format: lower ? "\\u%04x" : "\\u%04X", v) }
            if scalar.value < 0x10000 { return hex(scalar.value) }
            let v = scalar.value - 0x10000
            return hex(0xD800 + (v >> 10)) + hex(0xDC00 + (v & 0x3FF))
        }

        mutating func int() -> Int64 {
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: return 0
            case 1: return Int64.random(in: -5...5, using: &rng)
            case 2: return Int64.random(in: 1_600_000_000_000...1_800_000_000_000, using: &rng)
            default: return Int64.random(in: .min ... .max, using: &rng)
            }
        }

        /// An integer as a number, a numeric string or null.
        mutating func flexibleInt() -> String {
            let v = int()
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: return "\"\(v)\""
            case 1: return "null"
            default: return "\(v)"
            }
        }

        mutating func orNull(_ value: String) -> String { chance(6) ? "null" : value }

        mutating func bool() -> String { ["true", "false", "null"].randomElement(using: &rng)! }

        /// Any JSON value, for keys the readers do not know.
        mutating func anyValue(depth: Int = 0) -> String {
            switch Int.random(in: 0..<(depth > 2 ? 5 : 7), using: &rng) {
            case 0: return string()
            case 1: return ["0", "-1", "2.5", "-0.0", "1e10", "3E-2", "1.5e+300", "123456789012345678901234"].randomElement(using: &rng)!
            case 2: return bool()
            case 3: return "null"
            case 4: return flexibleInt()
            case 5: return "[" + (0..<Int.random(in: 0...3, using: &rng)).map { _ in anyValue(depth: depth + 1) }.joined(separator: ",") + "]"
            default: return object((0..<Int.random(in: 0...3, using: &rng)).map { i in ("k\(i)", anyValue(depth: depth + 1)) })
            }
        }

        /// An object of `fields` in random order, with random unknown keys and whitespace.
        mutating func object(_ fields: [(String, String)], unknown: Bool = false) -> String {
            var all = fields
            if unknown {
                for i in 0..<Int.random(in: 0...2, using: &rng) { all.append(("x_extra\(i)", anyValue())) }
            }
            all.shuffle(using: &rng)
            let members = all.map { k, v in space() + "\"\(k)\"" + space() + ":" + space() + v + space() }
            return "{" + members.joined(separator: ",") + "}"
        }

        /// Keeps each field with probability 3/4.
        mutating func some(_ fields: [(String, String)]) -> [(String, String)] { fields.filter { _ in !chance(4) } }

        mutating func user() -> String {
            let fields: [(String, String)] = [
                ("nickname", orNull(string())), ("profile_url", orNull(string())), ("role", orNull(string())), ("is_active", bool()),
                ("require_auth_for_profile_image", bool()), ("metadata", orNull(object([("team", string()), ("x", string())]))),
            ]
            return object([("user_id", string())] + some(fields), unknown: true)
        }

        mutating func message() -> String {
            var fields: [(String, String)] = [
                ("type", orNull(["\"MESG\"", "\"ADMM\"", "\"BRDM\""].randomElement(using: &rng)!)), ("message", orNull(string(maxLength: 30))),
                ("channel_url", orNull(string())), ("channel_type", orNull(["\"group\"", "\"open\""].randomElement(using: &rng)!)),
                ("created_at", flexibleInt()), ("ts", flexibleInt()), ("updated_at", flexibleInt()), ("custom_type", orNull(string())),
                ("data", orNull(string())), ("mention_type", orNull(string())), ("silent", bool()), ("is_op_msg", bool()),
                ("is_removed", bool()), ("is_reply_to_channel", bool()), ("require_auth", bool()), ("parent_message_id", flexibleInt()),
                ("message_survival_seconds", orNull("\(Int.random(in: -1...1000, using: &rng))")), ("req_id", orNull(string())),
                ("user", orNull(user())),
                ("mentioned_users", orNull("[" + (0..<Int.random(in: 0...2, using: &rng)).map { _ in user() }.joined(separator: ",") + "]")),
                (
                    "sorted_metaarray",
                    orNull(
                        "["
                            + (0..<Int.random(in: 0...2, using: &rng)).map { _ in object([("key", string()), ("value", "[\(string()),\(string())]")])
                            }.joined(separator: ",") + "]")
                ),
                ("old_values", orNull(object([("message", string())]))), ("thread_info", "null"), ("og_tag", "null"),
                ("unread_cnt", object([("all", "\(Int.random(in: 0...99, using: &rng))"), ("custom_types", "{}"), ("ts", flexibleInt())])),
            ]
            fields = some(fields)
            // An id the message keeps: at least one spelling that is a non-negative integer.
            let id = Int64.random(in: 0...Int64.max, using: &rng)
            fields.append((chance(2) ? "msg_id" : "message_id", chance(3) ? "\"\(id)\"" : "\(id)"))
            return object(fields, unknown: true)
        }

        mutating func read() -> String {
            object(
                [("channel_url", string()), ("channel_type", string()), ("user", user()), ("ts", "\(int())")]
                    + some([("req_id", orNull(string())), ("unread_cnt", orNull(object([("all", "1"), ("ts", flexibleInt())])))]), unknown: true)
        }
    }

    @Test("1,000 random DLVR, DELM and MRCT frames each")
    func randomEvents() {
        var maker = Maker(rng: SeededGenerator(seed: 0x36_E7E7))
        for _ in 0..<1_000 {
            let id = { (m: inout Maker) in m.chance(2) ? "\(m.int())" : "\"\(m.int())\"" }
            let users = (0..<Int.random(in: 0...3, using: &maker.rng)).map { i in ("u\(i)", "\(maker.int())") }
            let dlvr = maker.object(
                [("channel_url", maker.string()), ("channel_type", maker.string()), ("updated", maker.object(users))], unknown: true)
            let delm = maker.object(
                [("channel_url", maker.string()), (maker.chance(2) ? "msg_id" : "message_id", id(&maker))]
                    + maker.some([("channel_type", maker.orNull(maker.string()))]), unknown: true)
            let mrct = maker.object(
                [
                    ("channel_url", maker.string()), ("msg_id", id(&maker)), ("reaction", maker.string()), ("user_id", maker.string()),
                    ("operation", maker.chance(2) ? "\"ADD\"" : "\"DELETE\""),
                ] + maker.some([("channel_type", maker.orNull(maker.string())), ("success", maker.bool()), ("updated_at", maker.flexibleInt())]),
                unknown: true)
            JSONReaderTests.check(DeliveryEvent.self, dlvr, fast: true)
            JSONReaderTests.check(DeleteMessageEvent.self, delm, fast: true)
            JSONReaderTests.check(ReactionEvent.self, mrct, fast: true)
            for (type, json) in [(0, dlvr), (1, delm), (2, mrct)] {
                let mutated = String(decoding: FuzzTests.mutate(Array(json.utf8), &maker.rng), as: UTF8.self)
                switch type {
                case 0: JSONReaderTests.check(DeliveryEvent.self, mutated, fast: false)
                case 1: JSONReaderTests.check(DeleteMessageEvent.self, mutated, fast: false)
                default: JSONReaderTests.check(ReactionEvent.self, mutated, fast: false)
                }
            }
        }
    }

    @Test("3,000 random messages: read without JSONDecoder, equal to it; mutated, never different")
    func randomMessages() {
        var maker = Maker(rng: SeededGenerator(seed: 0x36_DEC0DE))
        var mutated = 0
        for _ in 0..<3_000 {
            let json = maker.message()
            JSONReaderTests.check(MessagePayload.self, json, fast: true)
            let bytes = FuzzTests.mutate(Array(json.utf8), &maker.rng)
            let data = Data(bytes)
            let scanned = MessagePayload.scan(data)
            let decoded = try? WireCoding.decoder.decode(MessagePayload.self, from: data)
            if let scanned {
                mutated += 1
                #expect(scanned == decoded, "\(String(decoding: bytes, as: UTF8.self))")
            }
        }
        // Many mutations leave a readable frame: the comparison above was reached.
        #expect(mutated > 100)
    }

    @Test("3,000 random message frames: the message and its unread_cnt in one pass, equal to reading them apart")
    func randomMessageFrames() {
        var maker = Maker(rng: SeededGenerator(seed: 0x36_F2A3E))
        var mutated = 0
        for _ in 0..<3_000 {
            let json = maker.message()
            let data = Data(json.utf8)
            let frame = MessageFrame.scan(data)
            #expect(frame != nil, "\(json)")
            #expect(frame?.payload == MessagePayload.scan(data))
            #expect(frame?.unreadCnt == UnreadCarrier.scan(data)?.unreadCnt)
            let bytes = FuzzTests.mutate(Array(json.utf8), &maker.rng)
            let changed = Data(bytes)
            // Whichever way it is read (fast, or JSONDecoder when the reader gives up), it is the two values read apart.
            let read = try? Frame(command: .message, payload: changed).decode(MessageFrame.self)
            let payload = try? WireCoding.decoder.decode(MessagePayload.self, from: changed)
            #expect(read?.payload == payload, "\(String(decoding: bytes, as: UTF8.self))")
            if payload != nil {
                mutated += 1
                #expect(read?.unreadCnt == (try? WireCoding.decoder.decode(UnreadCarrier.self, from: changed))?.unreadCnt)
            }
        }
        #expect(mutated > 100)
    }

    @Test("1,000 random read receipts")
    func randomReads() {
        var maker = Maker(rng: SeededGenerator(seed: 0x36_2EAD))
        for _ in 0..<1_000 {
            let json = maker.read()
            JSONReaderTests.check(ReadEvent.self, json, fast: true)
            JSONReaderTests.check(ReadEvent.self, String(decoding: FuzzTests.mutate(Array(json.utf8), &maker.rng), as: UTF8.self), fast: false)
        }
    }
}
