import Foundation
import TernTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A newcomer's first hour with the README's first command (issue 30): two `tern`s in tmux on the
/// embedded server `tern` starts by itself, no `TERN_SERVER` anywhere.
@Suite("tern's first hour on the embedded server (tmux)", .serialized)
struct FirstHourTerminalTests {
    struct Record: Decodable {
        let pid: Int32
        let port: Int
    }

    final class Rig: @unchecked Sendable {
        let dir = makeTempDirectory()
        let tmux: Tmux
        let tern: String

        init() throws {
            tmux = Tmux(socket: dir + "/tmux.sock", scratch: dir)
            tern = try builtBinary("tern")
        }

        var serverData: String { dir + "/data/tern/server" }

        /// The environment a user's `tern` runs with: no server named, so the embedded one.
        func env(_ user: String) -> [String: String] {
            [
                "LANG": "C.UTF-8", "TZ": "UTC", "TERM": "xterm-256color", "XDG_DATA_HOME": dir + "/data",
                "XDG_STATE_HOME": dir + "/state-\(user)", "XDG_CACHE_HOME": dir + "/cache-\(user)", "XDG_CONFIG_HOME": dir + "/config",
                "TERN_USER_ID": user,
            ]
        }

        func launch(_ user: String) async {
            let vars = env(user).map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
            await tmux.run([
                "new-session", "-d", "-s", user, "-x", "90", "-y", "24", "env -u TERN_SERVER \(vars) \(tern); echo TERN-EXITED-$?; sleep 120",
            ])
        }

        func say(_ user: String, _ text: String) async { await tmux.say(user, text) }

        var record: Record? {
            guard let data = FileManager.default.contents(atPath: serverData + "/embedded.json") else { return nil }
            return try? JSONDecoder().decode(Record.self, from: data)
        }

        /// A Platform API read on the embedded server with its generated token.
        func get(_ path: String) async throws -> [String: Any] {
            let r = try #require(record)
            let token = try String(contentsOfFile: serverData + "/api_token", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            var req = URLRequest(url: URL(string: "http://127.0.0.1:\(r.port)" + path)!)
            req.setValue(token, forHTTPHeaderField: "Api-Token")
            let (data, _) = try await URLSession.shared.data(for: req)
            return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        }

        func finish() async {
            await tmux.killServer()
            if let r = record, kill(r.pid, 0) == 0 {
                kill(r.pid, SIGTERM)
                for _ in 0..<100 where kill(r.pid, 0) == 0 { try? await Task.sleep(for: .milliseconds(50)) }
                if kill(r.pid, 0) == 0 { kill(r.pid, SIGKILL) }
            }
            try? FileManager.default.removeItem(atPath: dir)
        }

        static func run(_ body: (Rig) async throws -> Void) async throws {
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else {
                print("note: tmux is not installed: the terminal test was skipped")
                return
            }
            let rig = try Rig()
            do { try await body(rig) } catch {
                await rig.finish()
                throw error
            }
            await rig.finish()
        }
    }

    @Test func stoppedAndRestartedUnderTwoClientsNothingIsLost() async throws {
        try await Rig.run { rig in
            await rig.launch("alice")
            try await rig.tmux.waitScreen("alice", "connected") { $0.contains("│ connected") }
            await rig.launch("bob")
            try await rig.tmux.waitScreen("bob", "connected") { $0.contains("│ connected") }
            let first = try #require(rig.record)
            // The server's data directory is its owner's only from the start.
            let mode = (try FileManager.default.attributesOfItem(atPath: rig.serverData)[.posixPermissions] as? NSNumber)?.intValue
            #expect(mode == 0o700)

            // A channel made with bob reaches him before anyone writes in it.
            await rig.say("alice", "/create crew bob")
            try await rig.tmux.waitScreen("alice", "crew open") { $0.contains("#crew") }
            try await rig.tmux.waitScreen("bob", "crew in bob's list with nothing posted") { $0.contains("crew") }
            // Delivered to bob: ✓✓ on the newest message itself, not when a later one comes.
            await rig.say("alice", "a1")
            try await rig.tmux.waitScreen("alice", "a1 delivered") { $0.contains("alice: a1 ✓✓") }

            // Stopped under both clients; alice writes meanwhile; her line waits.
            let stop = try await tern(["--stop-server"], env: rig.env("alice"))
            #expect(stop.stdout.contains("stopped the embedded server"), "\(stop.stdout) \(stop.stderr)")
            for u in ["alice", "bob"] { try await rig.tmux.waitScreen(u, "the countdown") { $0.contains("reconnecting in") } }
            await rig.say("alice", "a2 while it was down")
            try await rig.tmux.waitScreen("alice", "a pending line") { $0.contains("alice: a2 while it was down ⋯") }

            // Another tern starts the server again: the same address, so both clients come back by themselves.
            let carol = try await tern(["send", "--to", "bob", "carol here"], env: rig.env("carol"))
            #expect(carol.status == 0, "\(carol.stderr)")
            let second = try #require(rig.record)
            #expect(second.port == first.port && second.pid != first.pid)
            try await rig.tmux.waitScreen("alice", "a2 sent", timeout: 60) {
                $0.contains("│ connected") && $0.contains("alice: a2 while it was down ✓")
            }
            try await rig.tmux.waitScreen("bob", "a2 received", timeout: 60) {
                $0.contains("│ connected") && $0.contains("alice: a2 while it was down")
            }

            // Stored once; one cache per user, named for the embedded server (none orphaned by a port).
            let list = try await rig.get("/v3/group_channels?limit=10&name_contains=crew")
            let url = try #require((list["channels"] as? [[String: Any]])?.first?["channel_url"] as? String)
            let history = try await rig.get("/v3/group_channels/\(url)/messages?message_ts=9007199254740991&prev_limit=50&next_limit=0")
            #expect((history["messages"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String } == ["a1", "a2 while it was down"])
            for u in ["alice", "bob"] {
                let files = try FileManager.default.contentsOfDirectory(atPath: rig.dir + "/cache-\(u)/tern").filter { $0.hasSuffix(".sqlite") }
                #expect(files == ["embedded-LOCAL-\(u).sqlite"])
            }

            // A second server on the same data directory is refused, naming the one that has it.
            let other = try Child(try builtBinary("ternd"), ["serve", "--port", "0", "--data-dir", rig.serverData])
            let status = await other.finish(timeout: 30)
            #expect(status != 0)
            #expect(other.stderr.contains("in use by the embedded server") && other.stderr.contains("pid \(second.pid)"), "\(other.stderr)")
        }
    }

    @Test func whatIsShownIsWhereYouTypeAndGoOpensTheExactName() async throws {
        try await Rig.run { rig in
            await rig.launch("alice")
            try await rig.tmux.waitScreen("alice", "connected") { $0.contains("│ connected") }
            let bob = try await tern(["send", "--to", "alice", "hi alice"], env: rig.env("bob"))
            #expect(bob.status == 0, "\(bob.stderr)")
            // #team2 first, then #team: /go team must open #team, not the first name that starts so.
            await rig.say("alice", "/create team2 bob")
            try await rig.tmux.waitScreen("alice", "team2 open") { $0.contains("#team2") }
            await rig.say("alice", "/create team bob")
            try await rig.tmux.waitScreen("alice", "team open") { $0.contains("│ #team │") || $0.contains("│ #team ") && !$0.contains("│ #team2") }
            await rig.say("alice", "/go team2")
            try await rig.tmux.waitScreen("alice", "team2 again") { $0.contains("#team2") }
            await rig.say("alice", "the question")
            try await rig.tmux.waitScreen("alice", "the question sent") { $0.contains("alice: the question ✓") }
            await rig.say("alice", "/thread")
            try await rig.tmux.waitScreen("alice", "the thread open") { $0.contains("thread>") }
            // Switching channel leaves the thread with its channel: no thread prompt under #team.
            await rig.say("alice", "/go team")
            let shown = try await rig.tmux.waitScreen("alice", "#team without the thread") { s in
                s.contains("#team ") && !s.contains("#team2 ") && !s.contains("thread>")
            }
            #expect(!shown.contains("the question"), "the other channel's thread is not on screen")
            await rig.say("alice", "plain words")
            try await rig.tmux.waitScreen("alice", "sent in #team") { $0.contains("alice: plain words ✓") }
            let list = try await rig.get("/v3/users/alice/my_group_channels?limit=10&name_contains=team&show_empty=true")
            let channels = list["channels"] as? [[String: Any]] ?? []
            let team = try #require(channels.first { $0["name"] as? String == "team" }?["channel_url"] as? String)
            let history = try await rig.get("/v3/group_channels/\(team)/messages?message_ts=9007199254740991&prev_limit=50&next_limit=0")
            let messages = history["messages"] as? [[String: Any]] ?? []
            #expect(messages.compactMap { $0["message"] as? String } == ["plain words"])
            #expect((messages.first?["parent_message_id"] as? Int ?? 0) == 0, "a plain message, not a reply")
        }
    }
}
