import ArgumentParser
import Foundation
import TernProtocol

/// `tern-bench decode`: the CPU the client spends reading the frames that arrive once per message,
/// with `JSONDecoder` (as before issue 36 item 3) and with ``JSONReader``, on frames shaped as ternd
/// sends them. Rounds alternate A (JSONDecoder) and B (reader) in one process, so both see the same
/// machine; no network, no engine.
struct DecodeBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode", abstract: "Time reading per-message frames with JSONDecoder against JSONReader (A B A B…).")

    @Option(help: "Frames per round.")
    var frames = 20_000

    @Option(help: "Rounds of each (A B A B…).")
    var rounds = 5

    /// `MESG` payloads as ternd writes them to one recipient: its totals spliced in front.
    static func messages(_ n: Int) -> [Data] {
        let texts = ["hello", "a longer line of chat, with some punctuation: (ok) — and an emoji 💬", "你好，世界", "fine \"quoted\" \\ path/to"]
        return (0..<n).map { i in
            let m = MessagePayload(
                type: "MESG", id: Int64(1_000_000 + i), message: texts[i % texts.count] + " #\(i)", channelUrl: "sendbird_group_channel_\(i % 50)",
                createdAt: 1_764_000_000_000 + Int64(i), user: SenderPayload(userId: "user\(i % 7)", nickname: "User \(i % 7)"))
            let body = try! WireCoding.encoder.encode(m)
            return Data(#"{"unread_cnt":{"all":\#(i % 40),"custom_types":{},"ts":\#(1_764_000_000_000 + i)},"#.utf8) + body.dropFirst()
        }
    }

    static func reads(_ n: Int) -> [Data] {
        (0..<n).map { i in
            let e = ReadEvent(
                channelUrl: "sendbird_group_channel_\(i % 50)", user: SenderPayload(userId: "user\(i % 7)"), ts: 1_764_000_000_000 + Int64(i))
            return try! WireCoding.encoder.encode(e)
        }
    }

    /// Nanoseconds per payload for `read` over all of `payloads`.
    static func time(_ payloads: [Data], _ read: (Data) -> Bool) -> Double {
        var ok = 0
        let start = Mono.now()
        for p in payloads where read(p) { ok += 1 }
        let ns = Mono.now() - start
        precondition(ok == payloads.count, "a payload was not read")
        return Double(ns) / Double(payloads.count)
    }

    func run() throws {
        let mesg = Self.messages(frames)
        let read = Self.reads(frames)
        let decoder = WireCoding.decoder
        // Both ways give the same values (the tests check this on far more shapes).
        for p in mesg.prefix(100) {
            precondition(MessagePayload.scan(p) == (try? decoder.decode(MessagePayload.self, from: p)))
            precondition(UnreadCarrier.scan(p) == (try? decoder.decode(UnreadCarrier.self, from: p)))
        }
        print("tern-bench decode: \(frames) frames per round, \(rounds) rounds of each, A = JSONDecoder, B = JSONReader")
        var rows: [String: [Double]] = [:]
        for round in 1...rounds {
            let a = Self.time(mesg) { p in
                (try? decoder.decode(UnreadCarrier.self, from: p)) != nil && (try? decoder.decode(MessagePayload.self, from: p)) != nil
            }
            let b = Self.time(mesg) { p in UnreadCarrier.scan(p) != nil && MessagePayload.scan(p) != nil }
            let ra = Self.time(read) { p in (try? decoder.decode(ReadEvent.self, from: p)) != nil }
            let rb = Self.time(read) { p in ReadEvent.scan(p) != nil }
            rows["mesg A", default: []].append(a)
            rows["mesg B", default: []].append(b)
            rows["read A", default: []].append(ra)
            rows["read B", default: []].append(rb)
            print(String(format: "round %d: MESG (unread_cnt + payload) A %.0f ns  B %.0f ns   READ A %.0f ns  B %.0f ns", round, a, b, ra, rb))
        }
        func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
        let (ma, mb, ra, rb) = (median(rows["mesg A"]!), median(rows["mesg B"]!), median(rows["read A"]!), median(rows["read B"]!))
        print(
            String(format: "median: MESG A %.0f ns  B %.0f ns  (B/A %.2f)   READ A %.0f ns  B %.0f ns  (B/A %.2f)", ma, mb, mb / ma, ra, rb, rb / ra))
        print("MESG payload bytes: \(mesg.map(\.count).reduce(0, +) / mesg.count) on average")
    }
}
