import Foundation
import TernTestSupport
import Testing

/// The embedded local server: started by the first `tern`, found and reused by the next, stopped by `--stop-server`
/// or after its idle time.
@Suite("tern's embedded server", .serialized)
struct EmbeddedServerTests {
    struct Record: Decodable {
        let pid: Int32
        let port: Int
    }

    static func record(_ dataHome: String) -> Record? {
        guard let data = FileManager.default.contents(atPath: dataHome + "/tern/server/embedded.json") else { return nil }
        return try? JSONDecoder().decode(Record.self, from: data)
    }

    static func alive(_ pid: Int32) -> Bool {
        // A zombie (exited, not yet reaped by its adoptive parent) counts as gone.
        guard kill(pid, 0) == 0 else { return false }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        guard let close = stat.lastIndex(of: ")") else { return true }
        return !stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    @Test func startedOnceReusedAndStopped() async throws {
        let dir = makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let env = ["XDG_DATA_HOME": dir + "/data", "XDG_STATE_HOME": dir + "/state", "XDG_CONFIG_HOME": dir + "/config"]
        var started: Record?
        defer { if let started, Self.alive(started.pid) { kill(started.pid, SIGKILL) } }

        // Bob's `tern tail` starts the server (and creates bob by connecting).
        var bobEnv = env
        bobEnv["TERN_USER_ID"] = "bob"
        let tail = try Child(try builtBinary("tern"), ["tail", "--json"], environment: bobEnv)
        defer { tail.signal(SIGKILL) }
        _ = try await tail.waitLine("bob connected") { $0["type"] as? String == "connected" }
        started = Self.record(dir + "/data")
        let record = try #require(started, "no embedded.json after the first tern")
        #expect(Self.alive(record.pid))
        #expect(FileManager.default.fileExists(atPath: dir + "/data/tern/server/api_token"))
        #expect(FileManager.default.fileExists(atPath: dir + "/state/tern/server.log"))

        // Alice's tern finds the same server: bob's tail prints her message.
        var aliceEnv = env
        aliceEnv["TERN_USER_ID"] = "alice"
        let sent = try await tern(["send", "--to", "bob", "hello from the embedded server"], env: aliceEnv)
        #expect(sent.status == 0, "\(sent.stderr)")
        _ = try await tail.waitLine("alice's message") { $0["message"] as? String == "hello from the embedded server" }
        tail.signal(SIGTERM)
        #expect(await tail.finish() == 0)
        let reply = try await tern(["send", "--to", "alice", "hi alice"], env: bobEnv)
        #expect(reply.status == 0, "\(reply.stderr)")
        let again = try #require(Self.record(dir + "/data"))
        #expect(again.pid == record.pid && again.port == record.port)
        let token = try String(contentsOfFile: dir + "/data/tern/server/api_token", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        var req = URLRequest(url: URL(string: "http://127.0.0.1:\(record.port)/v3/users/bob/my_group_channels?show_member=true")!)
        req.setValue(token, forHTTPHeaderField: "Api-Token")
        let (data, _) = try await URLSession.shared.data(for: req)
        let channels = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["channels"] as? [[String: Any]] ?? []
        #expect(channels.count == 1)
        #expect((channels.first?["last_message"] as? [String: Any])?["message"] as? String == "hi alice")

        // --stop-server ends it and removes the record; a second stop says nothing runs.
        let stop = try await tern(["--stop-server"], env: env)
        #expect(stop.status == 0)
        #expect(stop.stdout.contains("stopped the embedded server (pid \(record.pid), port \(record.port))"))
        #expect(!Self.alive(record.pid))
        #expect(Self.record(dir + "/data") == nil)
        let none = try await tern(["--stop-server"], env: env)
        #expect(none.stdout.contains("no embedded server is running"))
    }

    @Test func exitsWhenIdle() async throws {
        let dir = makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try Child(try builtBinary("ternd"), ["serve-embedded", "--data-dir", dir, "--idle-seconds", "1"])
        defer { server.signal(SIGKILL) }
        let status = await server.finish(timeout: 60)
        #expect(status == 0, "stdout: \(server.stdout) stderr: \(server.stderr)")
        #expect(server.stdout.contains("listening 127.0.0.1:"))
    }
}

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
