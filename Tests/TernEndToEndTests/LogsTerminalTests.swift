import Foundation
import TernTestSupport
import Testing

/// Chat logs (issue 38 item 4) with the real `tern` in tmux: `log = true` writes the channel's messages to
/// `$XDG_STATE_HOME/tern/logs/ACCOUNT/NAME-HASH.YYYY-MM.log`, each once, edits and deletions as lines of their
/// own; `/set log off` stops it; `/log` shows the file in the pager; a restart logs nothing twice; a disk
/// error shows in the status bar and tern goes on.
extension TerminalEndToEndTests {
    @Suite("tern writes chat logs (tmux)", .serialized)
    struct LogsTerminalTests {
        typealias T = TerminalEndToEndTests

        /// The log files under `dir` (relative paths).
        static func logFiles(_ dir: String) -> [String] {
            (FileManager.default.subpaths(atPath: dir) ?? []).filter { $0.hasSuffix(".log") }.sorted()
        }

        /// The log's text once it satisfies `ok` (polled for up to 20 s; the writer is off the drawing path).
        static func waitLog(_ dir: String, _ what: String, _ ok: (String) -> Bool) async throws -> String {
            var last = ""
            for _ in 0..<200 {
                last = logFiles(dir).map { (try? String(contentsOfFile: dir + "/" + $0, encoding: .utf8)) ?? "" }.joined()
                if ok(last) { return last }
                try await Task.sleep(for: .milliseconds(100))
            }
            throw TestFailure("the log never showed \(what):\n\(last)")
        }

        /// Whether a line starts with a time stamp, `2026-11-27 06:40:12 `.
        static func stamped(_ line: String) -> Bool {
            line.prefixMatch(of: #/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} /#) != nil
        }

        /// The log's lines: stamped, each message once, the second line of a message indented, the edit.
        static func checkLines(_ text: String) {
            let lines = text.split(separator: "\n").map(String.init)
            #expect(lines.contains { Self.stamped($0) && $0.hasSuffix(" <alice> morning") }, "\(text)")
            #expect(lines.contains { Self.stamped($0) && $0.hasSuffix(" <bob> hello from bob") }, "\(text)")
            #expect(lines.contains { $0.hasSuffix(" <alice> first line") }, "\(text)")
            #expect(lines.contains("                      second line"), "the second line indented: \(text)")
            #expect(lines.contains { Self.stamped($0) && $0.hasSuffix(" * edited: <alice> first line") }, "\(text)")
            #expect(lines.contains("                      2nd line"), "\(text)")
            #expect(lines.filter { $0.hasSuffix("<alice> morning") }.count == 1, "logged once: \(text)")
        }

        /// Each of `endings` ends exactly one line of the log.
        static func checkOnce(_ text: String, _ endings: [String]) {
            let lines = text.split(separator: "\n")
            for e in endings { #expect(lines.filter { $0.hasSuffix(e) }.count == 1, "\(e) once: \(text)") }
        }

        @Test func bobsTernLogsTheChannel() async throws {
            try await T.withTerminals(["alice", "bob"], configs: ["bob": "log = true\n"], env: "PAGER=less", size: (100, 24)) { tmux, server in
                let logs = "\(tmux.scratch)/state-bob/tern/logs"
                try await server.createGroup("team", name: "team", of: ["alice", "bob"])
                try await server.post("morning", by: "alice", in: "team")
                try await tmux.waitScreen("bob", "team open") { $0.contains("alice: morning") }
                try await tmux.waitScreen("alice", "team open") { $0.contains("alice: morning") }
                // Bob's own message, and a two-line paste from alice.
                try await tmux.enter("bob", "hello from bob", thenSee: "bob's message", on: "alice") { $0.contains("bob: hello from bob") }
                await tmux.run(["set-buffer", "-b", "p2", "first line\nsecond line"])
                await tmux.run(["paste-buffer", "-p", "-b", "p2", "-t", "alice"])
                try await tmux.waitScreen("alice", "two input rows") { $0.contains("> first line") }
                try await tmux.press("alice", "Enter", thenSee: "the two lines", on: "bob") { $0.contains("alice: first line") }
                // An edit and a deletion.
                try await tmux.enter("alice", "s/second/2nd/", thenSee: "the edit", on: "bob") { $0.contains("2nd line") }
                await tmux.enter("bob", "oops")
                try await tmux.waitScreen("alice", "oops") { $0.contains("bob: oops") }
                await tmux.enter("bob", "/delete")
                try await tmux.press("bob", "y", thenSee: "oops gone", on: "alice") { !$0.contains("bob: oops") }

                let text = try await Self.waitLog(logs, "the messages, the edit, the deletion") {
                    $0.contains("* deleted message from bob: oops")
                }
                Self.checkLines(text)

                // Where: one file, bob@HOST_PORT/team-HASH.YYYY-MM.log (TZ is UTC here).
                let month = { () -> String in
                    let f = DateFormatter()
                    f.timeZone = TimeZone(identifier: "UTC")
                    f.dateFormat = "yyyy-MM"
                    return f.string(from: Date())
                }()
                let files = Self.logFiles(logs)
                #expect(files.count == 1, "\(files)")
                let parts = files.first?.split(separator: "/").map(String.init) ?? []
                #expect(parts.count == 2 && parts[0].hasPrefix("bob@127.0.0.1_"), "\(files)")
                let name = parts.last ?? ""
                let named = name.wholeMatch(of: #/team-[0-9a-f]{8}\.\d{4}-\d{2}\.log/#) != nil
                #expect(named && name.hasSuffix(".\(month).log"), "\(files)")

                // /set log off: nothing more is written; on again: it goes on.
                try await tmux.enter("bob", "/set log off", thenSee: "log off") { $0.contains("log = off") }
                try await tmux.enter("alice", "off the record", thenSee: "the message", on: "bob") { $0.contains("alice: off the record") }
                await tmux.keys("bob", "C-u")
                try await tmux.enter("bob", "/set log on", thenSee: "log on") { $0.contains("log = on") }
                try await tmux.enter("alice", "on the record", thenSee: "the message", on: "bob") { $0.contains("alice: on the record") }
                let after = try await Self.waitLog(logs, "on the record") { $0.contains("<alice> on the record") }
                #expect(!after.contains("off the record"), "\(after)")

                // /log: the file in the pager; q gives tern back.
                try await tmux.enter("bob", "/log", thenSee: "the log in less") { $0.contains("<alice> morning") && !$0.contains("│") }
                try await tmux.press("bob", "q", thenSee: "tern again") { $0.contains("│ #team") }

                // A restart: the history shown again is not logged again; live messages are.
                try await tmux.quit("bob")
                await tmux.run(["respawn-pane", "-k", "-t", "bob"])
                try await tmux.waitScreen("bob", "the history after a restart") { $0.contains("connected") && $0.contains("alice: on the record") }
                try await tmux.enter("alice", "after the restart", thenSee: "the message", on: "bob") { $0.contains("alice: after the restart") }
                let again = try await Self.waitLog(logs, "after the restart") { $0.contains("<alice> after the restart") }
                Self.checkOnce(again, ["<alice> morning", "<alice> on the record", "<bob> hello from bob"])

                // The disk refuses (a directory where the file was): the status bar says so, tern goes on.
                let file = logs + "/" + (Self.logFiles(logs).first ?? "")
                try FileManager.default.moveItem(atPath: file, toPath: file + ".bak")
                try FileManager.default.createDirectory(atPath: file, withIntermediateDirectories: false)
                try await tmux.enter("alice", "into the void", thenSee: "the error", on: "bob") { $0.contains("log: cannot") }
                try await tmux.enter("alice", "still here", thenSee: "tern going on", on: "bob") { $0.contains("alice: still here") }
                try await tmux.quit("alice", "bob")
            }
        }
    }
}
