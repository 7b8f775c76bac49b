import Foundation
import TernTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real `tern` twice in tmux, each on a different `ternd` node of one PostgreSQL database (each
/// through a loopback proxy that stands for the load balancer's address): they chat, see typing,
/// unread badges and read receipts; PostgreSQL restarted -m immediate and one node killed -9
/// while they chat lose nothing.
@Suite("End to end: two tern clients on two nodes", .enabled(if: PostgresTestCluster.clusterTestsEnabled))
struct ClusterTerminalTests {
    @Test func twoClientsOnTwoNodesChatThroughFaults() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else { return }
        let dir = makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pg = try await PostgresTestCluster.offPool { try PostgresTestCluster.start() }
        defer { pg.destroy() }
        let db = try await PostgresTestCluster.offPool { try pg.createDatabase() }
        let token = "cluster-\(UUID().uuidString)"
        let a = try await TerndChild.start(dataDirectory: dir + "/server-a", apiToken: token, extra: ["--database", db, "--node-id", "a"])
        let b: TerndChild
        do {
            b = try await TerndChild.start(dataDirectory: dir + "/server-b", apiToken: token, extra: ["--database", db, "--node-id", "b"])
        } catch {
            // Node A is stopped by its PID whatever happens to B.
            await a.stop(SIGKILL)
            throw error
        }
        // Alice's address leads to node A, bob's to node B (a balancer's choice, made here by hand).
        let front = [FaultProxy(targetPort: a.port), FaultProxy(targetPort: b.port)]
        let ports = [try await front[0].start(), try await front[1].start()]
        let tmux = Tmux(socket: dir + "/tmux.sock", scratch: dir)
        var killedB = false
        do {
            let tern = try builtBinary("tern")
            for (i, user) in ["alice", "bob"].enumerated() {
                let env =
                    "env -u NO_COLOR LANG=C.UTF-8 TZ=UTC TERM=xterm-256color XDG_STATE_HOME=\(dir)/state-\(user) XDG_CACHE_HOME=\(dir)/cache-\(user) XDG_CONFIG_HOME=\(dir)/config XDG_DATA_HOME=\(dir)/data TERN_SERVER=http://127.0.0.1:\(ports[i]) TERN_USER_ID=\(user)"
                await tmux.run(["new-session", "-d", "-s", user, "-x", "90", "-y", "20", "\(env) \(tern); echo TERN-EXITED-$?; sleep 120"])
            }
            for user in ["alice", "bob"] { try await tmux.waitScreen(user, "connected") { $0.contains("connected") } }
            // Alice (node A) opens a 1:1 with bob (node B) and writes: bob gets the unread badge.
            try await tmux.enter("alice", "/dm bob", thenSee: "the 1:1 channel") { $0.contains("#bob") }
            await tmux.enter("alice", "hello from node a")
            try await tmux.waitScreen("bob", "the unread badge") { s in
                TerminalEndToEndTests.listRow(s, "alice")?.hasSuffix(" 1") == true
            }
            // Bob opens it (read): alice's message shows as read; bob types and alice sees it.
            try await tmux.press("bob", "M-Down", thenSee: "the message") { $0.contains("alice: hello from node a") }
            try await tmux.waitScreen("alice", "the read receipt") { $0.contains("hello from node a ✓✓ read") }
            await tmux.text("bob", "typing on node b")
            try await tmux.waitScreen("alice", "the typing line") { $0.contains("bob is typing…") }
            try await tmux.press("bob", "Enter", thenSee: "bob's message", on: "alice") { $0.contains("bob: typing on node b") }
            // PostgreSQL restarts -m immediate mid-chat: messages sent around it all arrive.
            await tmux.enter("alice", "before the restart")
            try await PostgresTestCluster.offPool { pg.crash() }
            await tmux.enter("alice", "during the restart")
            try await Task.sleep(for: .milliseconds(700))
            try await PostgresTestCluster.offPool { try pg.launch() }
            await tmux.enter("alice", "after the restart")
            // What the server acknowledged reaches bob; a send the crash refused shows on alice's
            // screen as not sent (with its code, to resend), never silently gone.
            try await tmux.waitScreen("bob", "the messages around the restart", timeout: 60) { s in
                s.contains("alice: during the restart") && s.contains("alice: after the restart")
            }
            let aliceScreen = await tmux.screen("alice")
            let bobScreen = await tmux.screen("bob")
            let before = bobScreen.contains("alice: before the restart")
            #expect(before || aliceScreen.contains("before the restart ✗ not sent"), "alice:\n\(aliceScreen)\nbob:\n\(bobScreen)")
            // Node B dies (kill -9): bob's address now leads to node A; he reconnects there and
            // gets what alice wrote while he was away.
            await b.stop(SIGKILL)
            killedB = true
            front[1].retarget(port: a.port)
            front[1].reset()
            await tmux.enter("alice", "while node b is gone")
            try await tmux.waitScreen("bob", "the message sent while he was away", timeout: 60) { s in
                s.contains("alice: while node b is gone") && s.contains("connected")
            }
            try await tmux.enter("bob", "back through node a", thenSee: "bob again", on: "alice") { $0.contains("bob: back through node a") }
            // Nothing was lost: the history holds every message once, in order.
            let url = try await a.channelUrl(of: "alice", named: "")
            var req = URLRequest(url: URL(string: a.url + "/v3/group_channels/\(url)/messages?message_ts=0&prev_limit=0&next_limit=50")!)
            req.setValue(token, forHTTPHeaderField: "Api-Token")
            let (data, _) = try await URLSession.shared.data(for: req)
            let texts = (((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?["messages"] as? [[String: Any]] ?? [])
                .compactMap { $0["message"] as? String }
            // Every message once (one caught by the restart is resent by the client after it, so
            // the three around the restart may be stored in another order).
            let expected = [
                "hello from node a", "typing on node b", "during the restart", "after the restart", "while node b is gone", "back through node a",
            ]
            let stored = texts.filter { $0 != "before the restart" }
            #expect(stored.sorted() == expected.sorted() && Set(texts).count == texts.count, "\(texts)")
            if texts.contains("before the restart") && !before {
                // Stored after all (the client resent it once the database was back): bob gets it too.
                _ = try await tmux.waitScreen("bob", "the resent message") { $0.contains("alice: before the restart") }
            }
            #expect(
                Array(texts.prefix(2)) == ["hello from node a", "typing on node b"]
                    && Array(texts.suffix(2)) == ["while node b is gone", "back through node a"], "\(texts)")
        } catch {
            await tmux.killServer()
            for f in front { await f.stop() }
            if !killedB { await b.stop(SIGKILL) }
            await a.stop(SIGKILL)
            throw error
        }
        await tmux.killServer()
        for f in front { await f.stop() }
        await a.stop()
    }
}
