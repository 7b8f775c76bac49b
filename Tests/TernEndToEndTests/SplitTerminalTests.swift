import Foundation
import TernTestSupport
import Testing

/// Split panes and quick edits in a real terminal (issue 38): alice's `tern` in tmux shows #ops beside
/// #team, fixes a typo with `s/old/new/`, moves to the other pane with Alt-W, reacts with `+:eyes:`, and
/// after a restart finds both panes where she left them.
extension TerminalEndToEndTests {
    @Suite("Split panes and quick edits (tmux)", .serialized)
    struct SplitTerminalTests {
        typealias T = TerminalEndToEndTests

        @Test func splitQuickEditsAndTheLayoutAfterARestart() async throws {
            try await T.withTerminals(["alice"], size: (100, 24)) { tmux, server in
                try await server.createUsers(["bob"])
                try await server.createGroup("team-room", name: "team", of: ["alice", "bob"])
                try await server.createGroup("ops-room", name: "ops", of: ["alice", "bob"])
                try await server.post("team news", by: "bob", in: "team-room")
                try await server.post("ops news", by: "bob", in: "ops-room")
                try await tmux.waitScreen("alice", "both channels") { $0.contains("team") && $0.contains("ops") }
                try await tmux.enter("alice", "/go team", thenSee: "#team") { $0.contains("team news") }
                try await tmux.enter("alice", "/split ops", thenSee: "the split") {
                    $0.contains("▸ #team") && $0.contains("#ops  (Alt-W: type here)") && $0.contains("ops news") && $0.contains("team news")
                }
                // Typing goes to #team, the focused pane; s/old/new/ fixes the last message there.
                // Stored (✓) before it is edited: a message on its way has no id yet.
                try await tmux.enter("alice", "a tpyo here", thenSee: "sent") { $0.contains("a tpyo here ✓") }
                await tmux.enter("alice", "s/tpyo/typo/")
                var last = ""
                for _ in 0..<150 {
                    last = try await server.lastText("team-room")
                    if last == "a typo here" { break }
                    try await Task.sleep(for: .milliseconds(200))
                }
                #expect(last == "a typo here", "the edit reached the server")
                try await tmux.waitScreen("alice", "the edit") { $0.contains("a typo here (edited)") }
                // Alt-W: now #ops is typed in; +:eyes: reacts to its last message.
                try await tmux.press("alice", "M-w", thenSee: "the other pane focused") { $0.contains("▸ #ops") && $0.contains("#team  (Alt-W") }
                try await tmux.enter("alice", "+:eyes:", thenSee: "the reaction") { $0.contains("👀 1") }
                // Quit and start again: the panes are where they were.
                try await tmux.quit("alice")
                await tmux.run(["respawn-pane", "-k", "-t", "alice"])
                try await tmux.waitScreen("alice", "the layout back after a restart") {
                    $0.contains("connected") && $0.contains("▸ #ops") && $0.contains("#team  (Alt-W: type here)") && $0.contains("a typo here")
                }
            }
        }
    }
}
