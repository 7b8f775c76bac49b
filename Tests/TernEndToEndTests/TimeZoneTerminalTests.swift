import Foundation
import TernTestSupport
import Testing

/// Message times in the machine's own time zone (TZ, else /etc/localtime), read through libc rather
/// than Foundation's `TimeZone.current` (which maps ICU: docs/benchmarks.md, "Linking tern light").
extension TerminalEndToEndTests {
    @Suite("tern shows times in the machine's zone (tmux)", .serialized)
    struct TimeZoneTerminalTests {
        typealias T = TerminalEndToEndTests

        /// `HH:mm` of now in `zone`, as Foundation formats it.
        static func clock(_ zone: String, _ date: Date) -> String {
            let f = DateFormatter()
            f.timeZone = TimeZone(identifier: zone)
            f.dateFormat = "HH:mm"
            return f.string(from: date)
        }

        @Test func aMessageShowsAtTheLocalTimeOfTZ() async throws {
            // India is UTC+5:30 all year: the half hour tells a zone's offset from a whole-hour mistake.
            try await T.withTerminals(["alice"], env: "TZ=Asia/Kolkata", size: (100, 20)) { tmux, server in
                try await server.createUsers(["bob"])
                try await server.createGroup("team", name: "team", of: ["alice", "bob"])
                let before = Date()
                try await server.post("what time is it", by: "bob", in: "team")
                let screen = try await tmux.waitScreen("alice", "bob's message") { $0.contains("Bob: what time is it") }
                let after = Date()
                let line = screen.split(separator: "\n").first { $0.contains("Bob: what time is it") }.map(String.init) ?? ""
                let shown = line.firstMatch(of: #/(\d{2}:\d{2}) Bob: what time is it/#).map { String($0.1) } ?? "(none)"
                let expected = Set([Self.clock("Asia/Kolkata", before), Self.clock("Asia/Kolkata", after)])
                #expect(expected.contains(shown), "shown \(shown), expected one of \(expected.sorted()): \(line)")
                try await tmux.quit("alice")
            }
        }
    }
}
