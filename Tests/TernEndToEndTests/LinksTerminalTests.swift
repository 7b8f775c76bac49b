import Foundation
import TernTestSupport
import Testing

/// Links and the clipboard in a real terminal (issue 37): the raw bytes `tern` writes to its tmux pane
/// (`pipe-pane`) carry the OSC 8 hyperlink of a URL in a message and the OSC 52 of `/copy`; `/url 1` runs
/// a recorded `$BROWSER`.
@Suite("Links and the clipboard (tmux)", .serialized)
struct LinksTerminalTests {
    typealias Rig = FirstHourTerminalTests.Rig

    @Test func aLinkIsAnOSC8HyperlinkOpensWithURLAndCopiesWithOSC52() async throws {
        try await Rig.run { rig in
            let bytes = rig.dir + "/pane.bytes"
            let opened = rig.dir + "/opened"
            let browser = rig.dir + "/browser"
            // The browser writes the URL it got to a file beside and renames it into place: the test
            // sees the file whole or not at all.
            try "#!/bin/sh\necho \"$1\" > \(opened).part && mv \(opened).part \(opened)\n".write(
                toFile: browser, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: browser)
            var env = rig.env("alice")
            env["BROWSER"] = browser
            let vars = env.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
            await rig.tmux.run([
                "new-session", "-d", "-s", "alice", "-x", "100", "-y", "24", "env -u TERN_SERVER \(vars) \(rig.tern); echo TERN-EXITED-$?; sleep 120",
            ])
            await rig.tmux.run(["pipe-pane", "-t", "alice", "-o", "cat > \(bytes)"])
            try await rig.tmux.waitScreen("alice", "connected") { $0.contains("│ connected") }

            let text = "see https://a.test/x and [docs](https://d.test)"
            let sent = try await tern(["send", "--to", "alice", text], env: rig.env("bob"))
            #expect(sent.status == 0, "\(sent.stderr)")
            try await rig.tmux.waitScreen("alice", "the link") { $0.contains("bob: see https://a.test/x and docs <https://d.test>") }

            await rig.say("alice", "/url")
            try await rig.tmux.waitScreen("alice", "the numbers") { $0.contains("/url N opens: [1] https://a.test/x  [2] https://d.test") }
            await rig.say("alice", "/url 1")
            // The opener's shell creates the file, then writes the line: wait for the line, not for the file.
            for _ in 0..<600 where (try? String(contentsOfFile: opened, encoding: .utf8))?.hasSuffix("\n") != true {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect((try? String(contentsOfFile: opened, encoding: .utf8)) == "https://a.test/x\n")

            await rig.say("alice", "/copy")
            try await rig.tmux.waitScreen("alice", "copied") { $0.contains("copied \(text.count) characters") }
            // pipe-pane's copy of the output may trail the screen: wait for the bytes, not for a time.
            let osc52 = "\u{1B}]52;c;" + Data(text.utf8).base64EncodedString() + "\u{1B}\\"
            var raw = ""
            for _ in 0..<600 {
                raw = String(decoding: FileManager.default.contents(atPath: bytes) ?? Data(), as: UTF8.self)
                if raw.contains(TerminalSequencesForTests.passthrough(osc52)) { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(raw.contains("\u{1B}]8;;https://a.test/x\u{1B}\\"), "an OSC 8 hyperlink around the URL")
            #expect(raw.contains("\u{1B}]8;;https://d.test\u{1B}\\"))
            #expect(raw.contains(TerminalSequencesForTests.passthrough(osc52)), "OSC 52 in tmux's passthrough")
            try await rig.tmux.quit("alice")
        }
    }
}

/// tmux's passthrough, spelled out here (not through TernTUI) so that the test checks the bytes themselves.
enum TerminalSequencesForTests {
    static func passthrough(_ seq: String) -> String {
        "\u{1B}Ptmux;" + seq.replacingOccurrences(of: "\u{1B}", with: "\u{1B}\u{1B}") + "\u{1B}\\"
    }
}
