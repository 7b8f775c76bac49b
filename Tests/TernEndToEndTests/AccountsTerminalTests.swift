import Foundation
import TernTestSupport
import Testing

/// Several accounts in a real terminal (issue 38 item 1): one `tern` in tmux signed in to two ternd servers
/// (alice on the first, carol on the second) shows both channel lists under their accounts, receives on
/// both, and sends from each channel to its own server.
extension TerminalEndToEndTests {
    @Suite("Several accounts (tmux)", .serialized)
    struct AccountsTerminalTests {
        typealias T = TerminalEndToEndTests

        @Test func oneTernTwoServers() async throws {
            let dir = makeTempDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let second = try await TerndChild.start(dataDirectory: dir + "/second", apiToken: "second-\(UUID().uuidString)")
            do {
                try await second.createUsers(["carol", "dave", "erin"])
                try await second.createGroup("home-room", name: "home", of: ["carol", "dave"])
                try await second.post("hello from two", by: "dave", in: "home-room")
                let config = """
                    [[accounts]]
                    name = "one"
                    server = "{SERVER}"
                    user_id = "alice"

                    [[accounts]]
                    name = "two"
                    server = "\(second.url)"
                    user_id = "carol"
                    color = "magenta"

                    [[accounts]]
                    name = "three"
                    server = "\(second.url)"
                    user_id = "erin"
                    """
                try await T.withTerminals(["alice"], configs: ["alice": config], size: (100, 24)) { tmux, server in
                    try await server.createUsers(["bob"])
                    try await server.createGroup("team-room", name: "team", of: ["alice", "bob"])
                    try await server.post("hello from one", by: "bob", in: "team-room")
                    // Both lists, each under its account; the status bar names the other account's connection.
                    try await tmux.waitScreen("alice", "both accounts' channels") {
                        $0.contains("▾one ●") && $0.contains("▾two ●") && $0.contains("team") && $0.contains("home")
                    }
                    // Received on both: each channel's message, in its account.
                    try await tmux.enter("alice", "/account two", thenSee: "carol's channel") {
                        $0.contains("Carol@two") && $0.contains("#home") && $0.contains("hello from two") && $0.contains("one ●")
                    }
                    try await tmux.enter("alice", "reply via two", thenSee: "sent on two") { $0.contains("Carol: reply via two") }
                    try await tmux.enter("alice", "/account one", thenSee: "alice's channel") {
                        $0.contains("alice@one") && $0.contains("#team") && $0.contains("hello from one") && $0.contains("two ●")
                    }
                    try await tmux.enter("alice", "reply via one", thenSee: "sent on one") { $0.contains("alice: reply via one") }
                    // Each went to its own server, and only there.
                    var (one, two) = ("", "")
                    for _ in 0..<100 {
                        one = try await server.lastText("team-room")
                        two = try await second.lastText("home-room")
                        if one == "reply via one" && two == "reply via two" { break }
                        try await Task.sleep(for: .milliseconds(100))
                    }
                    #expect(one == "reply via one" && two == "reply via two", "one: \(one), two: \(two)")
                    // Search covers every account: each reply, from its own server.
                    try await tmux.press("alice", "C-s", thenSee: "the search view") { $0.contains("Search messages") }
                    try await tmux.enter("alice", "reply", thenSee: "both accounts' replies") {
                        $0.contains("2 matches for \"reply\"") && $0.contains("reply via one") && $0.contains("reply via two")
                    }
                    try await tmux.press("alice", "Escape", thenSee: "the search closed") { !$0.contains("Search messages") }
                    // News on the other account shows in the list and the hotlist.
                    try await second.post("more from two", by: "dave", in: "home-room")
                    try await tmux.waitScreen("alice", "the other account's news") { $0.contains("Act:") && $0.contains("home") }
                    // /fold two: only its header.
                    try await tmux.enter("alice", "/fold two", thenSee: "two folded") { $0.contains("▹two ●") && !$0.contains(" home ") }
                    // An account with no channels: /account takes the commands there, /dm starts one as erin.
                    try await tmux.enter("alice", "/account three", thenSee: "three chosen") { $0.contains("→ three") }
                    try await tmux.enter("alice", "/dm dave", thenSee: "erin's DM") { $0.contains("Erin@three") && $0.contains("#Dave") }

                }
                // The DM /dm made in account three is erin's, on the second server.
                let dm = try await second.channelUrl(of: "erin", named: "")
                #expect(!dm.isEmpty, "erin's DM with dave is on the second server")
            } catch {
                await second.stop(SIGKILL)
                throw error
            }
            await second.stop()
        }
    }
}
