import Foundation
import TernTestSupport
import Testing

/// Drives a private tmux server (its own socket file, `-S`). tmux's output goes to a file, never to a pipe:
/// the tmux server outlives the client command and would hold a pipe open.
struct Tmux: Sendable {
    let socket: String
    let scratch: String

    /// Runs `tmux ARGS` with posix_spawn and waitpid (Foundation's Process does not always see a tmux client end,
    /// since the client forks the tmux server) and returns what it printed.
    @discardableResult
    func run(_ args: [String]) async -> String {
        let outPath = scratch + "/tmux-\(UUID().uuidString).out"
        defer { try? FileManager.default.removeItem(atPath: outPath) }
        let argv = ["/usr/bin/tmux", "-S", socket, "-f", "/dev/null"] + args
        // The tmux server outlives the call and must see SIGCHLD and SIGTERM: see spawnDetached.
        guard let pid = spawnDetached(argv, output: outPath) else { return "" }
        let deadline = Date().addingTimeInterval(10)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                break
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
    }

    func screen(_ target: String) async -> String { await run(["capture-pane", "-p", "-t", target]) }
    func keys(_ target: String, _ keys: String...) async { await run(["send-keys", "-t", target] + keys) }
    func text(_ target: String, _ text: String) async { await run(["send-keys", "-t", target, "-l", text]) }
    /// Types `line` and presses Enter, as a user sends a message or a command.
    func enter(_ target: String, _ line: String) async {
        await text(target, line)
        await keys(target, "Enter")
    }

    /// Types `line` and presses Enter in `target`, then waits until `screen` (`target` unless
    /// given) shows what `ok` accepts: one step of a user at the keyboard.
    func enter(_ target: String, _ line: String, thenSee what: String, on screen: String? = nil, _ ok: (String) -> Bool) async throws {
        await enter(target, line)
        try await waitScreen(screen ?? target, what, ok)
    }

    /// Presses `key` in `target`, then waits until `screen` (`target` unless given) shows what `ok` accepts.
    func press(_ target: String, _ key: String, thenSee what: String, on screen: String? = nil, _ ok: (String) -> Bool) async throws {
        await keys(target, key)
        try await waitScreen(screen ?? target, what, ok)
    }

    /// Ctrl-C in each of `targets`; each `tern` exits 0.
    func quit(_ targets: String...) async throws {
        for target in targets { await keys(target, "C-c") }
        for target in targets { try await waitScreen(target, "a clean exit") { $0.contains("TERN-EXITED-0") } }
    }

    /// Clears the input line (Ctrl-U), then types `line` and presses Enter.
    func say(_ target: String, _ line: String) async {
        await keys(target, "C-u")
        await enter(target, line)
    }

    @discardableResult
    func waitScreen(_ target: String, _ what: String, timeout: Double = 30, _ ok: (String) -> Bool) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = await screen(target)
            if ok(last) { return last }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestFailure("the screen of \(target) never showed \(what):\n\(last)")
    }

    func killServer() async { await run(["kill-server"]) }
}

/// The real `tern` twice in tmux (a real terminal) against a real `ternd`.
@Suite("tern in a real terminal (tmux)", .serialized)
struct TerminalEndToEndTests {
    /// The channel-list cell of the row naming `channel` (the text left of the first `│`), trimmed.
    static func listRow(_ screen: String, _ channel: String) -> String? {
        for line in screen.split(separator: "\n") {
            guard let bar = line.firstIndex(of: "│") else { continue }
            let cell = line[..<bar].trimmingCharacters(in: .whitespaces)
            if cell.dropFirst().hasPrefix(channel) || cell.hasPrefix(channel) { return cell }
        }
        return nil
    }

    /// Runs `tern` for each of `users` in its own tmux session against one real `ternd`, waits until all are
    /// connected, runs `body` (which may replace the server), and always tears everything down.
    static func withTerminals(
        _ users: [String], configs: [String: String] = [:], env extraEnv: String = "", size: (Int, Int) = (90, 20),
        rawOutput: String? = nil, _ body: (Tmux, inout TerndChild) async throws -> Void
    ) async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else {
            print("note: tmux is not installed: the terminal test was skipped")
            return
        }
        let dir = makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var server = try await TerndChild.start(dataDirectory: dir + "/server", apiToken: "tui-\(UUID().uuidString)")
        let tmux = Tmux(socket: dir + "/tmux.sock", scratch: dir)
        do {
            let tern = try builtBinary("tern")
            for user in users {
                // A user with a config of their own gets their own config directory.
                let configHome = configs[user] == nil ? "\(dir)/config" : "\(dir)/config-\(user)"
                if let text = configs[user] {
                    try FileManager.default.createDirectory(atPath: configHome + "/tern", withIntermediateDirectories: true)
                    // `{SERVER}` in a config: this test's ternd.
                    try text.replacingOccurrences(of: "{SERVER}", with: server.url).write(
                        toFile: configHome + "/tern/config.toml", atomically: true, encoding: .utf8)
                }
                let env =
                    "env -u NO_COLOR LANG=C.UTF-8 TZ=UTC TERM=xterm-256color XDG_STATE_HOME=\(dir)/state-\(user) XDG_CACHE_HOME=\(dir)/cache-\(user) XDG_CONFIG_HOME=\(configHome) XDG_DATA_HOME=\(dir)/data TERN_SERVER=\(server.url) TERN_USER_ID=\(user) \(extraEnv)"
                // With `rawOutput`, tern runs under script(1), which keeps every byte it writes (escape sequences too).
                let command = rawOutput.map { "\(env) script -q -f -c \(tern) \($0)-\(user)" } ?? "\(env) \(tern)"
                await tmux.run([
                    "new-session", "-d", "-s", user, "-x", String(size.0), "-y", String(size.1), "\(command); echo TERN-EXITED-$?; sleep 120",
                ])
            }
            for user in users { try await tmux.waitScreen(user, "connected") { $0.contains("connected") } }
            try await body(tmux, &server)
        } catch {
            await tmux.killServer()
            await server.stop(SIGKILL)
            throw error
        }
        await tmux.killServer()
        await server.stop()
    }

    /// Whether the session's window got a bell within 10 s (tmux sets the flag for a detached session).
    static func bellRings(_ tmux: Tmux, _ session: String) async -> Bool {
        for _ in 0..<100 {
            if await tmux.run(["display", "-p", "-t", session, "#{window_bell_flag}"]).hasPrefix("1") { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    @Test func aMentionOffScreenRingsTheBellAPlainMessageDoesNot() async throws {
        try await Self.withTerminals(["alice"]) { tmux, server in
            try await server.createUsers(["bob", "carol"])
            try await server.createGroup("team", name: "team", of: ["alice", "bob", "carol"])
            try await server.post("morning", by: "carol", in: "team")
            try await tmux.waitScreen("alice", "the team channel open") { $0.contains("Carol: morning") }
            // Another group, made from the keyboard, then left for "team" again: not on screen.
            try await tmux.enter("alice", "/create ops bob carol", thenSee: "ops open") { $0.contains("#ops") }
            let opsUrl = try await server.channelUrl(of: "alice", named: "ops")
            try await tmux.press("alice", "C-n", thenSee: "team open again") { $0.contains("#team") && $0.contains("Carol: morning") }
            // A plain message there shows as unread and stays quiet.
            try await server.post("deploy at 5", by: "bob", in: opsUrl)
            try await tmux.waitScreen("alice", "ops unread in the list") { Self.listRow($0, "ops")?.hasSuffix(" 1") == true }
            let quiet = await tmux.run(["display", "-p", "-t", "alice", "#{window_bell_flag}"])
            #expect(quiet.hasPrefix("0"), "a plain group message off screen does not ring")
            // A mention there rings the terminal bell (the OSC 777 notification goes with it).
            try await server.post("@alice can you look?", by: "bob", in: opsUrl, mentioning: ["alice"])
            let rang = await Self.bellRings(tmux, "alice")
            #expect(rang, "a mention in a channel not on screen rings the bell")
        }
    }

    @Test func twoClientsSeeMessagesTypingAndUnread() async throws {
        try await Self.withTerminals(["alice", "bob"]) { tmux, server in
            // Alice opens the 1:1 with bob (created on the way; bob sees it once it has a message).
            try await tmux.enter("alice", "/dm bob", thenSee: "the 1:1 channel") { $0.contains("#bob") }
            // Bob creates a group with alice and writes there: alice's list gains it with an unread badge.
            try await tmux.enter("bob", "/create team alice", thenSee: "the team channel") { $0.contains("#team") }
            try await tmux.enter("bob", "hi team", thenSee: "his sent mark") { $0.contains("bob: hi team ✓") }
            try await tmux.waitScreen("alice", "the team badge") { s in
                Self.listRow(s, "team")?.hasSuffix(" 1") == true && s.contains("1 unread in 1")
            }
            // Alice writes in the 1:1; bob, still in "team", gets a badge on it.
            try await tmux.enter("alice", "hello bob 你好 😀", thenSee: "the sent mark") { $0.contains("alice: hello bob 你好 😀 ✓") }
            try await tmux.waitScreen("bob", "the unread badge") { s in
                Self.listRow(s, "alice")?.hasSuffix(" 1") == true && s.contains("1 unread in 1")
            }
            // Alice opens "team" (its unread count goes); bob types there and alice sees the typing line.
            try await tmux.press("alice", "C-n", thenSee: "the team channel opened") { $0.contains("#team") && $0.contains("bob: hi team") }
            await tmux.text("bob", "typing something")
            try await tmux.waitScreen("alice", "the typing line") { $0.contains("bob is typing…") }
            // Bob opens the 1:1 with Alt-↓: he sees the message and the unread count is gone.
            try await tmux.press("bob", "M-Down", thenSee: "the message, read") { $0.contains("alice: hello bob 你好 😀") && !$0.contains("unread in") }
            // A resize redraws the whole screen at the new size.
            await tmux.run(["resize-window", "-t", "bob", "-x", "60", "-y", "16"])
            let resized = try await tmux.waitScreen("bob", "a redraw at 60 columns") { s in
                s.contains("alice: hello bob 你好 😀") && s.contains("bob")
            }
            #expect(resized.split(separator: "\n", omittingEmptySubsequences: false).allSatisfy { $0.count <= 60 })
            // Alice finds a public channel in the browser (Ctrl-G), joins it, and reads its info view (Ctrl-O).
            try await server.platform("POST", "/v3/group_channels", ["user_ids": ["bob"], "name": "plaza", "is_public": true, "custom_type": "town"])
            await tmux.keys("alice", "C-g")
            await tmux.text("alice", "pla type:town")
            try await tmux.waitScreen("alice", "the public channel in the browser") { $0.contains("Public channels") && $0.contains("plaza") }
            try await tmux.press("alice", "Enter", thenSee: "the joined channel") { $0.contains("#plaza") && !$0.contains("Public channels") }
            try await tmux.press("alice", "C-o", thenSee: "the info view") { $0.contains("public, type town") && $0.contains("you are a member") }
            await tmux.keys("alice", "Escape")
            // The server dies: both clients say so and count down; it comes back on the same port and they recover.
            let port = server.port
            await server.stop(SIGKILL)
            try await tmux.waitScreen("alice", "the reconnect countdown") { $0.contains("reconnecting in") }
            try await tmux.waitScreen("bob", "the reconnect countdown") { $0.contains("reconnecting in") }
            server = try await TerndChild.start(port: port, dataDirectory: server.dataDirectory, apiToken: server.apiToken)
            try await tmux.waitScreen("alice", "connected again", timeout: 60) { $0.contains("│ connected │") }
            try await tmux.waitScreen("bob", "connected again", timeout: 60) { $0.contains("│ connected │") }
            await tmux.keys("bob", "C-u")
            try await tmux.enter("bob", "back again", thenSee: "a message after the restart") { $0.contains("bob: back again ✓") }
            // Quitting restores the terminal and exits 0: Ctrl-C for alice, /quit for bob.
            try await tmux.press("alice", "C-c", thenSee: "a clean exit") { $0.contains("TERN-EXITED-0") }
            await tmux.keys("bob", "C-u")
            try await tmux.enter("bob", "/quit", thenSee: "a clean exit") { $0.contains("TERN-EXITED-0") }
        }
    }

    @Test func repliesEditsReactionsFilesAndSearch() async throws {
        let files = makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: files) }
        let upload = files + "/notes.txt"
        let content = "plans for the week\n"
        _ = FileManager.default.createFile(atPath: upload, contents: Data(content.utf8))
        try FileManager.default.createDirectory(atPath: files + "/saved", withIntermediateDirectories: true)
        try await Self.withTerminals(["alice", "bob"]) { tmux, _ in
            try await tmux.enter("alice", "/create chat bob", thenSee: "the new channel") { $0.contains("#chat") }
            try await tmux.enter("alice", "hello from alice", thenSee: "alice's message", on: "bob") { $0.contains("alice: hello from alice") }
            // Bob picks the message (Ctrl-R) and replies (r): alice sees the reply with its quote.
            try await tmux.press("bob", "C-r", thenSee: "the picker's keys") { $0.contains("r reply") }
            try await tmux.press("bob", "r", thenSee: "the reply prompt") { $0.contains("↱ alice>") }
            try await tmux.enter("bob", "hi back", thenSee: "the reply with its quote", on: "alice") {
                $0.contains("↱ alice: hello from alice") && $0.contains("bob: hi back")
            }
            // Alice edits her last message (Alt-E): bob sees it changed.
            try await tmux.press("alice", "M-e", thenSee: "the edit prompt") { $0.contains("edit> hello from alice") }
            await tmux.keys("alice", "C-u")
            try await tmux.enter("alice", "hello, edited", thenSee: "the edit", on: "bob") { $0.contains("alice: hello, edited (edited)") }
            // Bob reacts to the last message; alice sees the count.
            try await tmux.enter("bob", "/react thumbsup", thenSee: "the reaction", on: "alice") { $0.contains("👍 1") }
            // Bob sends a file; alice saves it.
            try await tmux.enter("bob", "/upload \(upload)", thenSee: "the upload done") { $0.contains("notes.txt sent") }
            try await tmux.waitScreen("alice", "the file message") { $0.contains("bob: 📎 notes.txt") }
            try await tmux.enter("alice", "/download \(files)/saved", thenSee: "the file saved") { $0.contains("saved ") }
            #expect(FileManager.default.contents(atPath: files + "/saved/notes.txt") == Data(content.utf8))
            // Alice searches (Ctrl-K) and jumps to the result.
            try await tmux.press("alice", "C-s", thenSee: "the search view") { $0.contains("Search messages") }
            try await tmux.enter("alice", "edited", thenSee: "the result") {
                $0.contains("1 matches for \"edited\"") && $0.contains("alice: hello, edited")
            }
            try await tmux.press("alice", "Enter", thenSee: "back on the channel") { !$0.contains("Search messages") && $0.contains("hello, edited") }
            try await tmux.quit("alice", "bob")
        }
    }

    @Test func invitationsAnsweredFromTheKeyboard() async throws {
        try await Self.withTerminals(["ann", "ben"]) { tmux, _ in
            // Ben wants to be asked; Ann creates a channel and invites him.
            try await tmux.enter("ben", "/autoaccept off", thenSee: "the preference set") { $0.contains("invitations now wait") }
            try await tmux.enter("ann", "/create crew", thenSee: "the new channel") { $0.contains("#crew") }
            await tmux.enter("ann", "/invite ben")
            try await tmux.waitScreen("ben", "the invitation") { s in
                s.contains("Invitations") && s.contains("crew · ann") && s.contains("ann invited you to #crew")
            }
            // Ctrl-O, then a: accepted; the channel moves under Channels and can be read; Ann hears of it.
            try await tmux.press("ben", "C-o", thenSee: "the info view") { $0.contains("a accept the invitation") }
            await tmux.keys("ben", "a")
            try await tmux.waitScreen("ben", "the accepted channel") { s in
                !s.contains("Invitations") && s.contains("#crew") && !s.contains("[invited")
            }
            try await tmux.waitScreen("ann", "ben joining") { $0.contains("ben joined #crew") }
            // Ctrl-O, then l: ben leaves; the channel is gone from his list.
            try await tmux.press("ben", "C-o", thenSee: "the info view again") { $0.contains("l leave") }
            try await tmux.press("ben", "l", thenSee: "the channel gone") { !$0.contains("crew") }
            try await tmux.waitScreen("ann", "ben leaving") { $0.contains("ben left #crew") }
            try await tmux.quit("ann", "ben")
        }
    }

    @Test func openChannelModerationFromTheKeyboard() async throws {
        try await Self.withTerminals(["ann", "ben"]) { tmux, _ in
            // Ann opens a room she operates; Ben enters it by name.
            try await tmux.enter("ann", "/create-open stage", thenSee: "the new open channel") { s in
                s.contains("Open") && s.contains("#stage · 1 here [operator]")
            }
            try await tmux.enter("ben", "/enter stage", thenSee: "entered") { $0.contains("#stage · 2 here") }
            try await tmux.waitScreen("ann", "the count") { $0.contains("#stage · 2 here") }
            try await tmux.enter("ben", "hello stage", thenSee: "ben's message", on: "ann") { $0.contains("ben: hello stage") }
            // The participants list: online dots and the operator mark.
            await tmux.enter("ann", "/members")
            try await tmux.waitScreen("ann", "the participants") { s in
                s.contains("Participants (online) of #stage") && s.contains("● ann · you") && s.contains("★ operator") && s.contains("● ben")
            }
            await tmux.keys("ann", "Escape")
            // A mute: shown in the channel on both sides; Ben's message is refused with the code.
            try await tmux.enter("ann", "/mute ben 120 calm down", thenSee: "the mute", on: "ben") { $0.contains("you muted for 2m") }
            try await tmux.waitScreen("ann", "the mute line") { $0.contains("ben muted for 2m") }
            try await tmux.enter("ben", "am I muted", thenSee: "the refusal") { $0.contains("am I muted ✗ not sent: you are muted (900041)") }
            try await tmux.enter("ann", "/unmute ben", thenSee: "the unmute", on: "ben") { $0.contains("you unmuted") }
            // A ban puts Ben out; entering again is refused.
            try await tmux.enter("ann", "/ban ben 300 spam", thenSee: "banned", on: "ben") { s in
                s.contains("you were banned from #stage") && !s.contains("#stage ·")
            }
            try await tmux.enter("ben", "/enter stage", thenSee: "refused") { $0.contains("enter: you are banned from this channel (900100)") }
            try await tmux.waitScreen("ann", "the count after the ban") { $0.contains("#stage · 1 here") }
            // Who is Ben? And the banned list.
            try await tmux.enter("ann", "/whois ben", thenSee: "whois") { $0.contains("ben · online") }
            await tmux.enter("ann", "/banned")
            try await tmux.waitScreen("ann", "the banned list") { s in
                s.contains("Banned of #stage") && s.contains("banned until") && s.contains("spam")
            }
            await tmux.keys("ann", "Escape")
            try await tmux.enter("ann", "/exit", thenSee: "left") { $0.contains("left #stage") }
            try await tmux.quit("ann", "ben")
        }
    }
}
