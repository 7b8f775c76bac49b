import Foundation
import TernTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real `tern` against a real `ternd` that dies and comes back: offline starts from the cache,
/// messages written while the server is away, and catching up after a long absence.
@Suite("tern offline and catching up (tmux)", .serialized)
struct OfflineTerminalTests {
    /// A private tmux server and a ternd; `launch` (re)starts a user's `tern` with its own cache.
    final class Rig: @unchecked Sendable {
        let dir = makeTempDirectory()
        let tmux: Tmux
        var server: TerndChild
        let tern: String
        /// Each launch gets a session of its own (killing the only session would stop the tmux server
        /// while the next one starts); the user's name maps to the latest.
        var sessions: [String: String] = [:]
        var launches = 0

        init() async throws {
            tmux = Tmux(socket: dir + "/tmux.sock", scratch: dir)
            server = try await TerndChild.start(dataDirectory: dir + "/server", apiToken: "offline-\(UUID().uuidString)")
            tern = try builtBinary("tern")
        }

        /// Starts (or starts again) `user`'s tern; its cache, state and config stay across launches.
        func launch(_ user: String) async {
            launches += 1
            let session = user + "-\(launches)"
            sessions[user] = session
            let env =
                "env LANG=C.UTF-8 TZ=UTC TERM=xterm-256color XDG_STATE_HOME=\(dir)/state-\(user) XDG_CACHE_HOME=\(dir)/cache-\(user) XDG_CONFIG_HOME=\(dir)/config XDG_DATA_HOME=\(dir)/data TERN_SERVER=\(server.url) TERN_USER_ID=\(user)"
            await tmux.run(["new-session", "-d", "-s", session, "-x", "90", "-y", "24", "\(env) \(tern); echo TERN-EXITED-$?; sleep 120"])
        }

        /// The tmux target of `user`'s latest tern.
        func pane(_ user: String) -> String { sessions[user] ?? user }

        func screen(_ user: String) async -> String { await tmux.screen(pane(user)) }
        func keys(_ user: String, _ keys: String...) async { await tmux.run(["send-keys", "-t", pane(user)] + keys) }

        @discardableResult
        func waitScreen(_ user: String, _ what: String, timeout: Double = 30, _ ok: (String) -> Bool) async throws -> String {
            try await tmux.waitScreen(pane(user), what, timeout: timeout, ok)
        }

        func say(_ user: String, _ text: String) async { await tmux.say(pane(user), text) }

        func quit(_ user: String) async throws {
            await say(user, "/quit")
            _ = try await waitScreen(user, "a clean exit") { $0.contains("TERN-EXITED-0") }
        }

        /// Kills the server (SIGKILL) and starts it again on the same port and data.
        func killServer() async {
            await server.stop(SIGKILL)
        }

        func startServerAgain() async throws {
            server = try await TerndChild.start(port: server.port, dataDirectory: server.dataDirectory, apiToken: server.apiToken)
        }

        func finish() async {
            await tmux.killServer()
            await server.stop(SIGKILL)
            try? FileManager.default.removeItem(atPath: dir)
        }

        static func run(_ body: (Rig) async throws -> Void) async throws {
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else {
                print("note: tmux is not installed: the terminal test was skipped")
                return
            }
            let rig = try await Rig()
            do { try await body(rig) } catch {
                await rig.finish()
                throw error
            }
            await rig.finish()
        }
    }

    /// The message lines of a screen (`HH:MM user: text` in the message pane), marks dropped.
    static func messageLines(_ screen: String) -> [String] {
        screen.split(separator: "\n").compactMap { line -> String? in
            guard let bar = line.firstIndex(of: "│") else { return nil }
            let pane = line[line.index(after: bar)...].trimmingCharacters(in: .whitespaces)
            let parts = pane.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].count == 5, parts[0].dropFirst(2).first == ":" else { return nil }
            var text = String(parts[1])
            // Marks and what follows them (✓ sent, ✓✓ read…, ⋯ pending, ✗ failed).
            for mark in [" ✓", " ⋯", " ✗"] {
                if let r = text.range(of: mark) { text = String(text[..<r.lowerBound]) }
            }
            return text
        }
    }

    @Test func serverKilledAndRestartedWhileTwoClientsSend() async throws {
        try await Rig.run { rig in
            await rig.launch("alice")
            await rig.launch("bob")
            for u in ["alice", "bob"] { try await rig.waitScreen(u, "connected") { $0.contains("│ connected") } }
            await rig.say("alice", "/create crew bob")
            try await rig.waitScreen("alice", "the channel") { $0.contains("#crew") }
            await rig.say("alice", "a1")
            try await rig.waitScreen("bob", "the channel and a1") { $0.contains("#crew") && $0.contains("alice: a1") }
            await rig.say("bob", "b1")
            try await rig.waitScreen("alice", "b1") { $0.contains("bob: b1") }

            // kill -9: both see the countdown and keep writing; their lines wait (⋯).
            await rig.killServer()
            for u in ["alice", "bob"] { try await rig.waitScreen(u, "the countdown") { $0.contains("reconnecting in") } }
            await rig.say("alice", "a2")
            await rig.say("bob", "b2")
            await rig.say("alice", "a3")
            try await rig.waitScreen("alice", "pending lines") { $0.contains("alice: a2 ⋯") && $0.contains("alice: a3 ⋯") }
            try await rig.waitScreen("bob", "a pending line") { $0.contains("bob: b2 ⋯") }

            // Back on the same port: everything written goes out once, and both show the same history.
            try await rig.startServerAgain()
            let expected = Set(["alice: a1", "bob: b1", "alice: a2", "alice: a3", "bob: b2"])
            var screens: [String: [String]] = [:]
            for u in ["alice", "bob"] {
                let s = try await rig.waitScreen(u, "the complete history", timeout: 60) { s in
                    s.contains("│ connected") && Set(Self.messageLines(s)) == expected && !s.contains("⋯")
                }
                screens[u] = Self.messageLines(s)
            }
            #expect(screens["alice"] == screens["bob"])
            #expect(screens["alice"]?.count == 5)
            let url = try await rig.server.channelUrl(named: "crew")
            let history = try await rig.server.history(url)
            #expect(history.count == 5 && Set(history) == ["a1", "b1", "a2", "a3", "b2"])
            #expect(screens["alice"]?.map { $0.split(separator: " ").last.map(String.init) ?? "" } == history)
            // Each sender's own lines were written in order.
            #expect(history.filter { $0.hasPrefix("a") } == ["a1", "a2", "a3"])
        }
    }

    @Test func offlineStartShowsTheCacheAndDeliversTheQueuedMessageOnce() async throws {
        try await Rig.run { rig in
            await rig.launch("alice")
            try await rig.waitScreen("alice", "connected") { $0.contains("│ connected") }
            try await rig.server.platform("POST", "/v3/users", ["user_id": "bob", "nickname": "bob", "profile_url": ""])
            await rig.say("alice", "/create crew bob")
            try await rig.waitScreen("alice", "the channel") { $0.contains("#crew") }
            await rig.say("alice", "one")
            await rig.say("alice", "two")
            try await rig.waitScreen("alice", "both sent") { $0.contains("alice: one ✓") && $0.contains("alice: two ✓") }
            try await rig.quit("alice")

            // The server is down when tern starts: the cached channel and history are on screen at once.
            await rig.killServer()
            await rig.launch("alice")
            let offline = try await rig.waitScreen("alice", "the cached history") { s in
                s.contains("crew") && s.contains("alice: one") && s.contains("alice: two")
            }
            #expect(!offline.contains("│ connected"))
            await rig.say("alice", "queued while down")
            try await rig.waitScreen("alice", "the queued line") { $0.contains("alice: queued while down ⋯") }

            try await rig.startServerAgain()
            try await rig.waitScreen("alice", "delivered", timeout: 60) { s in
                s.contains("│ connected") && s.contains("alice: queued while down ✓")
            }
            let url = try await rig.server.channelUrl(named: "crew")
            #expect(try await rig.server.history(url) == ["one", "two", "queued while down"])
            // Started again while connected: the history once, nothing sent twice.
            try await rig.quit("alice")
            await rig.launch("alice")
            let again = try await rig.waitScreen("alice", "connected with the history") { s in
                s.contains("│ connected") && s.contains("alice: queued while down ✓")
            }
            #expect(Self.messageLines(again) == ["alice: one", "alice: two", "alice: queued while down"])
            #expect(try await rig.server.history(url) == ["one", "two", "queued while down"])
        }
    }

    @Test func awayFor320MessagesIsAHugeGapThenPagingBackHasNoHoles() async throws {
        try await Rig.run { rig in
            try await rig.server.platform("POST", "/v3/users", ["user_id": "alice", "nickname": "alice", "profile_url": ""])
            await rig.launch("bob")
            try await rig.waitScreen("bob", "connected") { $0.contains("│ connected") }
            let created = try await rig.server.platform("POST", "/v3/group_channels", ["user_ids": ["alice", "bob"], "name": "busy"])
            let url = try #require(created["channel_url"] as? String)
            try await rig.server.platform("POST", "/v3/group_channels/\(url)/messages", ["user_id": "alice", "message": "n0"])
            try await rig.waitScreen("bob", "the channel") { $0.contains("alice: n0") }
            try await rig.quit("bob")
            for i in 1...320 {
                try await rig.server.platform("POST", "/v3/group_channels/\(url)/messages", ["user_id": "alice", "message": "n\(i)"])
            }
            await rig.launch("bob")
            let newest = try await rig.waitScreen("bob", "the huge gap notice and the newest page") { s in
                s.contains("more than 300 messages missed") && s.contains("alice: n320")
            }
            func numbers(_ screen: String) -> [Int] { Self.messageLines(screen).compactMap { Int($0.dropFirst("alice: n".count)) } }
            var seen = Set(numbers(newest))
            // What each screen showed, for a failure to tell where a number went missing.
            var screens = [numbers(newest).map(String.init).joined(separator: ",")]
            // Page back: every screen continues the one before, with no number missing. Each key's screen
            // is waited for (a fixed pause let a slow frame's page go by unseen between two looks); a key at
            // the top while the older page loads changes nothing, and after 5 s the next key goes.
            var previous = numbers(newest)
            for _ in 0..<12 {
                await rig.keys("bob", "PPage")
                var shown = previous
                let deadline = ContinuousClock.now + .seconds(5)
                while shown == previous && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                    shown = numbers(await rig.screen("bob"))
                }
                // Then until it settles: a frame drawn while the older page loads (a row taken by the
                // loading line) is not the page the key shows.
                var settled = false
                while !settled && ContinuousClock.now < deadline + .seconds(5) {
                    try await Task.sleep(for: .milliseconds(150))
                    let again = numbers(await rig.screen("bob"))
                    settled = again == shown
                    shown = again
                }
                screens.append(shown.map(String.init).joined(separator: ","))
                seen.formUnion(shown)
                previous = shown
            }
            let low = try #require(seen.min())
            #expect(low < 250)
            #expect(seen == Set(low...320), "screens after each PgUp: \(screens.joined(separator: " | "))")
        }
    }
}
