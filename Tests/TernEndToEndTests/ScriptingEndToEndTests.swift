import Foundation
import TernKit
import TernProtocol
import TernTestSupport
import Testing

/// `tern send` and `tern tail` as real processes against a real `ternd` process.
@Suite("tern send / tern tail end to end", .serialized)
struct ScriptingEndToEndTests {
    @Test func tailFollowsMessagesTypingReadsAndAServerKill() async throws {
        let dir = makeTempDirectory()
        let token = "e2e-\(UUID().uuidString)"
        var server = try await TerndChild.start(dataDirectory: dir, apiToken: token)
        let env = ["TERN_SERVER": server.url]
        let tail = try Child(try builtBinary("tern"), ["tail", "--json"], environment: env.merging(["TERN_USER_ID": "bob"]) { $1 })
        var alice: ChatClient?
        defer {
            tail.signal(SIGKILL)
            server.child.signal(SIGKILL)
        }
        _ = try await tail.waitLine("connected") { $0["type"] as? String == "connected" && $0["user_id"] as? String == "bob" }

        // 1. A message `tern send` made as alice.
        let sent = try await tern(["send", "--to", "bob", "hello", "from", "alice"], env: env.merging(["TERN_USER_ID": "alice"]) { $1 })
        #expect(sent.status == 0, "tern send: \(sent.stderr)")
        let id = Int(sent.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        #expect(id > 0)
        let message = try await tail.waitLine("alice's message") { $0["type"] as? String == "message" && $0["message_id"] as? Int == id }
        #expect(message["message"] as? String == "hello from alice" && message["user_id"] as? String == "alice")
        let channelUrl = message["channel_url"] as? String ?? ""
        _ = try await tail.waitLine("unread count") { $0["type"] as? String == "unread" && $0["channel_url"] as? String == channelUrl }

        // 2. Typing and reading, by alice through the engine.
        var config = ClientConfiguration(server: try ServerAddress(parsing: server.url), userId: "alice")
        config.reconnectPolicy = ReconnectPolicy(interval: 0.2, maxInterval: 1, mul: 2)
        let engine = ChatClient(configuration: config)
        alice = engine
        try await engine.connect()
        await engine.startTyping(channelUrl)
        _ = try await tail.waitLine("typing start") { $0["type"] as? String == "typing_start" && $0["user_id"] as? String == "alice" }
        await engine.endTyping(channelUrl)
        _ = try await tail.waitLine("typing end") { $0["type"] as? String == "typing_end" && $0["user_id"] as? String == "alice" }
        let fromBob = try await tern(["send", "--channel", channelUrl, "hi", "alice"], env: env.merging(["TERN_USER_ID": "bob"]) { $1 })
        #expect(fromBob.status == 0, "tern send as bob: \(fromBob.stderr)")
        _ = try await engine.channel(channelUrl)
        try await engine.markAsRead(channelUrl)
        _ = try await tail.waitLine("alice read bob's message") { $0["type"] as? String == "read" && $0["user_id"] as? String == "alice" }

        // 3. A message from the official JS SDK (when it is on this machine; it is never committed).
        if let sdk = jsSDK() {
            let peer = try Child(
                "/usr/bin/env", ["node", "--experimental-websocket", scriptPath("sdk-peer.mjs")],
                environment: [
                    "TERND_URL": server.url, "USER_ID": "carol", "TO": "bob", "TEXT": "hello from the SDK", "SENDBIRD_SDK": sdk,
                ])
            _ = try await tail.waitLine("the SDK's message") {
                $0["type"] as? String == "message" && $0["message"] as? String == "hello from the SDK"
            }
            _ = try await tail.waitLine("the SDK's typing") { $0["type"] as? String == "typing_start" && $0["user_id"] as? String == "carol" }
            _ = try await tail.waitLine("the SDK's typing end") { $0["type"] as? String == "typing_end" && $0["user_id"] as? String == "carol" }
            #expect(await peer.finish() == 0, "sdk-peer: \(peer.stdout) \(peer.stderr)")
        } else {
            print("note: the official JS SDK is not at /tmp/sendbird-js (or SENDBIRD_SDK): its part of this test was skipped")
        }

        // 4. ternd dies (SIGKILL) and comes back on the same port and data: tail reconnects by itself.
        let port = server.port
        await server.stop(SIGKILL)
        _ = try await tail.waitLine("reconnecting") { $0["type"] as? String == "connection" && $0["state"] as? String == "reconnecting" }
        server = try await TerndChild.start(port: port, dataDirectory: dir, apiToken: token)
        _ = try await tail.waitLine("reconnected", timeout: 60) { $0["type"] as? String == "reconnect_succeeded" }
        let after = try await tern(["send", "--to", "bob", "after", "the", "restart"], env: env.merging(["TERN_USER_ID": "alice"]) { $1 })
        #expect(after.status == 0, "tern send after restart: \(after.stderr)")
        _ = try await tail.waitLine("message after the restart") {
            $0["type"] as? String == "message" && $0["message"] as? String == "after the restart"
        }

        // Interrupting tail ends it with status 0.
        tail.signal(SIGINT)
        #expect(await tail.finish(timeout: 15) == 0)
        await alice?.shutdown()
        await server.stop()
    }

    @Test func badInputGivesTheSendbirdCodeAndNonZeroExit() async throws {
        let dir = makeTempDirectory()
        let token = "e2e-\(UUID().uuidString)"
        let server = try await TerndChild.start(dataDirectory: dir, apiToken: token, extra: ["--require-access-token"])
        defer { server.child.signal(SIGKILL) }
        for user in ["alice", "bob", "eve"] {
            try await server.platform("POST", "/v3/users", ["user_id": user, "nickname": user, "profile_url": ""])
        }
        let aliceToken = try await server.platform("POST", "/v3/users/alice/token", [:])["token"] as? String ?? ""
        let eveToken = try await server.platform("POST", "/v3/users/eve/token", [:])["token"] as? String ?? ""
        let alice = ["TERN_SERVER": server.url, "TERN_USER_ID": "alice", "TERN_ACCESS_TOKEN": aliceToken]
        // The token may also come from a command.
        let viaCommand = ["TERN_SERVER": server.url, "TERN_USER_ID": "alice", "TERN_TOKEN_COMMAND": "printf %s \(aliceToken)"]
        let ok = try await tern(["send", "--to", "bob", "hi"], env: viaCommand)
        #expect(ok.status == 0, "\(ok.stderr)")
        let channelUrl =
            try await server.platform("POST", "/v3/group_channels", ["user_ids": ["alice", "bob"], "is_distinct": true])["channel_url"] as? String
            ?? ""

        func expectFailure(_ args: [String], _ env: [String: String], code: Int, _ comment: Comment) async throws {
            let r = try await tern(args, env: env)
            #expect(r.status != 0, comment)
            #expect(r.stderr.contains("tern: error \(code):"), "\(comment): \(r.stderr)")
            if args.first == "send" { #expect(r.stdout.isEmpty, comment) }
            #expect(!r.stderr.contains("Fatal error") && !r.stderr.contains("Stack dump"), comment)
        }
        try await expectFailure(["send", "--channel", "no_such_channel", "x"], alice, code: 900500, "unknown channel")
        try await expectFailure(
            ["send", "--channel", channelUrl, "x"], ["TERN_SERVER": server.url, "TERN_USER_ID": "eve", "TERN_ACCESS_TOKEN": eveToken], code: 900020,
            "not a member")
        try await expectFailure(["send", "--to", "bob", "x"], alice.merging(["TERN_ACCESS_TOKEN": "wrong"]) { $1 }, code: 400302, "bad token")
        try await expectFailure(["tail"], alice.merging(["TERN_ACCESS_TOKEN": "wrong"]) { $1 }, code: 400302, "bad token (tail)")
        try await expectFailure(
            ["send", "--to", "bob", "x"], alice.merging(["TERN_SERVER": "http://127.0.0.1:1"]) { $1 }, code: 800210, "unreachable")
        try await expectFailure(["send", "--to", "bob", "x"], alice.merging(["TERN_SERVER": "gopher://x"]) { $1 }, code: 800110, "bad address")
        try await expectFailure(
            ["send", "--to", "bob", "x"], alice.merging(["TERN_ACCESS_TOKEN": "", "TERN_TOKEN_COMMAND": "exit 4"]) { $1 }, code: 800110,
            "failing token command")
        let unreachable = try await tern(["send", "--to", "bob", "x"], env: alice.merging(["TERN_SERVER": "http://127.0.0.1:1"]) { $1 })
        #expect(unreachable.stderr.contains("connection refused"), "\(unreachable.stderr)")
        let usage = try await tern(["send", "x"], env: alice)
        #expect(usage.status != 0 && usage.stderr.contains("--to"), "\(usage.stderr)")
        await server.stop()
    }

    @Test func sendInALoopWaitsForTheRateLimitInsteadOfFailing() async throws {
        let dir = makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // One message per second per user in a channel: six sends at once are over it whatever the timing.
        let server = try await TerndChild.start(dataDirectory: dir, apiToken: "loop-\(UUID().uuidString)", extra: ["--max-messages-per-second", "1"])
        defer { server.child.signal(SIGKILL) }
        let alice = ["TERN_SERVER": server.url, "TERN_USER_ID": "alice"]
        try await server.platform("POST", "/v3/users", ["user_id": "bob", "nickname": "bob", "profile_url": ""])
        let first = try await tern(["send", "--to", "bob", "m0"], env: alice)
        #expect(first.status == 0, "\(first.stderr)")
        let sends = (1...6).map { i in Task { try await tern(["send", "--to", "bob", "m\(i)"], env: alice) } }
        for (i, t) in sends.enumerated() {
            let r = try await t.value
            #expect(r.status == 0 && Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) != nil, "send \(i + 1): \(r.stderr)")
        }
        let url = try await server.channelUrl(of: "alice", named: "")
        var req = URLRequest(
            url: URL(string: server.url + "/v3/group_channels/\(url)/messages?message_ts=9007199254740991&prev_limit=50&next_limit=0")!)
        req.setValue(server.apiToken, forHTTPHeaderField: "Api-Token")
        let (data, _) = try await URLSession.shared.data(for: req)
        let texts = (((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?["messages"] as? [[String: Any]] ?? []).compactMap {
            $0["message"] as? String
        }
        #expect(texts.sorted() == ["m0", "m1", "m2", "m3", "m4", "m5", "m6"], "each once")
        await server.stop()
    }

    func jsSDK() -> String? {
        let path = ProcessInfo.processInfo.environment["SENDBIRD_SDK"] ?? "/tmp/sendbird-js/index.js"
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    func scriptPath(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/sdk-conformance/\(name)").path
    }
}

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
