import Foundation
import NIOCore
import TernTestSupport
import Testing

@testable import TernServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Tests against the real `ternd` binary.
@Suite("ternd process", .serialized)
struct ProcessTests {
    /// Sends `count` messages over a real socket and returns the ids the server acknowledged.
    func sendAcknowledged(port: Int, apiToken: String, count: Int) async throws -> (channel: String, acked: [Int]) {
        let http = HTTPHelper(base: "http://127.0.0.1:\(port)", token: apiToken)
        for u in ["p1", "p2"] { _ = try await http.call("POST", "/v3/users", ["user_id": u, "nickname": u, "profile_url": ""]) }
        let channel = try await http.call("POST", "/v3/group_channels", ["user_ids": ["p1", "p2"]])["channel_url"] as? String ?? ""
        let socket = TestSocket(url: "ws://127.0.0.1:\(port)", query: "ai=LOCAL&user_id=p1")
        _ = await socket.next("LOGI")
        for i in 0..<count { socket.send("MESG", ["channel_url": channel, "message": "m\(i)", "req_id": "\(channel)-\(i)"]) }
        var acked: [Int] = []
        while acked.count < count, let ack = await socket.next("MESG", timeout: .seconds(10)) {
            if let id = ack["msg_id"] as? Int { acked.append(id) }
        }
        await socket.close()
        return (channel, acked)
    }

    func storedIds(port: Int, apiToken: String, channel: String) async throws -> Set<Int> {
        let http = HTTPHelper(base: "http://127.0.0.1:\(port)", token: apiToken)
        let ts = Int(Date().timeIntervalSince1970 * 1000) + 60_000
        let r = try await http.call("GET", "/v3/group_channels/\(channel)/messages?message_ts=\(ts)&prev_limit=200&next_limit=0", nil)
        if (r["messages"] as? [Any])?.isEmpty != false { Issue.record("listing messages of \(channel) failed: \(r)") }
        return Set((r["messages"] as? [[String: Any]] ?? []).compactMap { $0["message_id"] as? Int })
    }

    @Test("ternd prints `listening HOST:PORT`; SIGTERM stops it cleanly with every acknowledged message kept; so does kill -9")
    func acknowledgedMessagesSurvive() async throws {
        let dir = makeTempDirectory()
        for signal in [SIGTERM, SIGKILL] {
            let first = try await TerndChild.start(dataDirectory: dir, followingTestDatabase: true)
            let (channel, acked) = try await sendAcknowledged(port: first.port, apiToken: first.apiToken, count: 40)
            #expect(acked.count == 40)
            let status = await first.stop(signal)
            if signal == SIGTERM { #expect(status == 0, "graceful shutdown exits 0") }
            let second = try await TerndChild.start(dataDirectory: dir, followingTestDatabase: true)
            let stored = try await storedIds(port: second.port, apiToken: second.apiToken, channel: channel)
            #expect(Set(acked).isSubset(of: stored), "acknowledged messages lost after signal \(signal)")
            await second.stop()
        }
    }

    @Test(
        "ternd runs one event loop per CPU it may run on: taskset -c 0 gives one; a count set by hand is kept",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset") && System.coreCount > 1, "needs taskset and 2 CPUs"))
    func oneEventLoopPerAllowedCPU() async throws {
        func loops(_ t: TerndChild) -> Int { t.threadNames.filter { $0.hasPrefix("NIO-SGLTN-") }.count }
        let free = try await TerndChild.start(dataDirectory: makeTempDirectory())
        #expect(loops(free) == System.coreCount)
        await free.stop()
        let pinned = try await TerndChild.start(dataDirectory: makeTempDirectory(), cpus: "0")
        #expect(loops(pinned) == 1, "threads: \(pinned.threadNames)")
        // It still serves: a message goes in and is acknowledged.
        let (_, acked) = try await sendAcknowledged(port: pinned.port, apiToken: pinned.apiToken, count: 3)
        #expect(acked.count == 3)
        await pinned.stop()
        let byHand = try await TerndChild.start(dataDirectory: makeTempDirectory(), cpus: "0", environment: ["NIO_SINGLETON_GROUP_LOOP_COUNT": "2"])
        #expect(loops(byHand) == 2)
        await byHand.stop()
    }

    @Test("Without --api-token a token is generated into the data dir with mode 0600 and required")
    func generatedApiToken() async throws {
        let dir = makeTempDirectory()
        guard let binary = TerndChild.binary else { throw TestFailure("no ternd") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["serve", "--port", "0", "--data-dir", dir]
        var env = ProcessInfo.processInfo.environment
        env["TERND_API_TOKEN"] = nil
        p.environment = env
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        defer {
            kill(p.processIdentifier, SIGTERM)
            p.waitUntilExit()
        }
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        #expect(line.hasPrefix("listening 127.0.0.1:"))
        let path = dir + "/api_token"
        let attrs = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attrs[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let token = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.count >= 32)
        let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ":").last ?? "") ?? 0
        let ok = try await HTTPHelper(base: "http://127.0.0.1:\(port)", token: token).call("GET", "/v3/users", nil)
        #expect(ok["users"] != nil)
        let refused = try await HTTPHelper(base: "http://127.0.0.1:\(port)", token: "wrong").call("GET", "/v3/users", nil)
        #expect(refused["code"] as? Int == 400401)
    }

    @Test("ternd refuses a non-loopback address without --require-access-token or --insecure")
    func refusesOpenNonLoopback() throws {
        guard let binary = TerndChild.binary else { throw TestFailure("no ternd") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["serve", "--host", "0.0.0.0", "--port", "0", "--data-dir", makeTempDirectory(), "--api-token", "t"]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus != 0)
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.contains("--require-access-token"))
    }

    @Test("The official Python Platform SDK (sendbird-platform-sdk) drives ternd: users, channels, messages, unread counts")
    func pythonPlatformSDK() async throws {
        guard try pythonPlatformSDKInstalled(for: "the Python Platform SDK conformance test") else { return }
        let output = try await runPythonScript("platform_sdk_test.py")
        #expect(output.contains(" passed, 0 failed"))
    }

    @Test("Every operation of the official Python Platform SDK (sendbird-platform-sdk 2.1.5) succeeds through the SDK, except its short allow-list")
    func pythonPlatformSDKEveryOperation() async throws {
        guard try pythonPlatformSDKInstalled(for: "the every-operation Python Platform SDK test") else { return }
        let output = try await runPythonScript("platform_sdk_every_operation.py")
        #expect(output.contains(" operations succeeded through the SDK"))
    }
}

extension ProcessTests {
    /// Whether the official Python Platform SDK (2.1.5) imports. Without it: an issue on CI (which
    /// installs it, .ci/run), a printed note naming `purpose` elsewhere.
    func pythonPlatformSDKInstalled(for purpose: String) throws -> Bool {
        let hasSDK = Process()
        hasSDK.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        hasSDK.arguments = ["python3", "-c", "import sendbird_platform_sdk"]
        hasSDK.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try hasSDK.run()
        hasSDK.waitUntilExit()
        if hasSDK.terminationStatus == 0 { return true }
        if ProcessInfo.processInfo.environment["CI"] != nil {
            Issue.record("sendbird-platform-sdk is not installed: pip install sendbird-platform-sdk==2.1.5")
        } else {
            print("skipping: pip install sendbird-platform-sdk==2.1.5 to run \(purpose)")
        }
        return false
    }

    /// Runs `Python/<script>` against a new ternd child (stopped again after), with TERND_URL and
    /// TERND_API_TOKEN set, and SENDBIRD_PY_LEGACY when `legacySDK` is given, expecting it to exit 0
    /// (the failure names the script and shows its output): its output.
    func runPythonScript(
        _ script: String, serverArguments: [String] = [], legacySDK: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        let server = try await TerndChild.start(dataDirectory: makeTempDirectory(), extra: serverArguments, followingTestDatabase: true)
        defer { server.stopBlocking() }
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Python/" + script).path
        var env = ["TERND_URL": "http://127.0.0.1:\(server.port)", "TERND_API_TOKEN": server.apiToken]
        if let legacySDK { env["SENDBIRD_PY_LEGACY"] = legacySDK }
        let (status, output) = try await runTool(["python3", path], env: env)
        #expect(status == 0, "\(script) failed:\n\(output)", sourceLocation: sourceLocation)
        return output
    }

    /// The legacy official Python Platform SDK (0.0.16) when it is installed (`SENDBIRD_PY_LEGACY`,
    /// or the cache). Without it, nil: an issue on CI (which installs it, .ci/run), a printed note
    /// elsewhere; each message is made from the directory it looked in.
    func legacyPythonSDK(onCI: (String) -> String, elsewhere: (String) -> String) -> String? {
        let env = ProcessInfo.processInfo.environment
        let legacy = env["SENDBIRD_PY_LEGACY"] ?? (NSHomeDirectory() + "/.cache/tern/sendbird-py-0.0.16")
        if FileManager.default.fileExists(atPath: legacy + "/sendbird_platform_sdk/api/report_api.py") { return legacy }
        if env["CI"] != nil {
            Issue.record(Comment(rawValue: onCI(legacy)))
        } else {
            print(elsewhere(legacy))
        }
        return nil
    }

    /// ``legacyPythonSDK(onCI:elsewhere:)`` with the messages that say how to install it, the
    /// printed one naming `purpose`.
    func legacyPythonSDK(toRun purpose: String) -> String? {
        legacyPythonSDK(
            onCI: { "the legacy SDK is not in \($0): pip install --target \($0) sendbird-platform-sdk==0.0.16" },
            elsewhere: { "skipping: pip install --target \($0) sendbird-platform-sdk==0.0.16 to run \(purpose)" })
    }

    @Test("The legacy official Python Platform SDK (0.0.16, the last with bans, mutes and reports) drives ternd's moderation")
    func pythonModerationSDK() async throws {
        guard let legacy = legacyPythonSDK(toRun: "the moderation conformance test") else { return }
        let output = try await runPythonScript("platform_sdk_moderation_test.py", legacySDK: legacy)
        #expect(output.contains(" passed, 0 failed"))
    }

    @Test("Every operation of the legacy official Python Platform SDK (0.0.16) succeeds through the SDK, except those allow-listed")
    func pythonLegacyPlatformSDKEveryOperation() async throws {
        guard let legacy = legacyPythonSDK(toRun: "the legacy every-operation test") else { return }
        // A translation provider, so translate_message_into_other_languages has one (Sendbird translates itself).
        let output = try await runPythonScript(
            "platform_sdk_every_operation_legacy.py", serverArguments: ["--translation-command", "tr a-z A-Z"], legacySDK: legacy)
        #expect(output.contains(" operations succeeded through the SDK (sendbird-platform-sdk 0.0.16)"))
    }

    @Test("Every Platform API endpoint of both official Python SDKs is answered, except exactly those listed as pending")
    func everyPlatformEndpoint() async throws {
        guard
            let legacy = legacyPythonSDK(
                onCI: { "the legacy SDK is not in \($0)" }, elsewhere: { _ in "skipping: the legacy Python SDK is not installed" })
        else { return }
        let server = try await TerndChild.start(dataDirectory: makeTempDirectory(), followingTestDatabase: true)
        defer { server.stopBlocking() }
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Python")
        let (status, output) = try await runTool(
            [
                "python3", dir.appendingPathComponent("platform_endpoints.py").path, "probe", "http://127.0.0.1:\(server.port)", server.apiToken,
                "--sdk", "installed", "--sdk", legacy, "--pending", dir.appendingPathComponent("platform_endpoints_pending.txt").path,
            ],
            env: [:])
        #expect(status == 0, "platform_endpoints.py:\n\(output.split(separator: "\n").filter { !$0.hasPrefix("answered") }.joined(separator: "\n"))")
        #expect(output.contains(" of 209 answered"), "both SDKs' 209 endpoints were walked")
    }

    /// The official JS SDK harness (scripts/sdk-conformance), when the SDK has been fetched
    /// by hand (it is never committed): set SENDBIRD_SDK or extract it to /tmp/sendbird-js.
    @Test("The official JS SDK v4 chats through ternd (runs when the SDK is present)")
    func javascriptSDK() async throws {
        let sdk = ProcessInfo.processInfo.environment["SENDBIRD_SDK"] ?? "/tmp/sendbird-js/index.js"
        guard FileManager.default.fileExists(atPath: sdk) else {
            print("skipping: the JS SDK is not at \(sdk) (see scripts/sdk-conformance/README.md)")
            return
        }
        let server = try await TerndChild.start(
            dataDirectory: makeTempDirectory(), extra: ["--max-messages-per-second", "5"], followingTestDatabase: true)
        defer { server.stopBlocking() }
        // Issue 20: a webhook receiver on loopback gets signed events for what the SDK sends.
        try await running(try await HookReceiver()) { receiver in
            let api = HTTPHelper(base: "http://127.0.0.1:\(server.port)", token: server.apiToken)
            let hook = try await api.call(
                "PUT", "/v3/applications/settings/webhook",
                ["enabled": true, "url": receiver.url, "enabled_events": ["group_channel:create", "group_channel:message_send"]])
            #expect((hook["webhook"] as? [String: Any])?["enabled"] as? Bool == true, "\(hook)")
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("scripts/sdk-conformance/js-acceptance.mjs").path
            let (status, output) = try await runTool(
                ["node", "--experimental-websocket", script],
                env: ["TERND_URL": "http://127.0.0.1:\(server.port)", "SENDBIRD_SDK": sdk, "TERND_API_TOKEN": server.apiToken])
            #expect(status == 0, "js-acceptance.mjs failed:\n\(output)")
            let hits = await receiver.wait(for: 2)
            let sends = hits.filter { $0.json["category"] as? String == "group_channel:message_send" }
            #expect(!sends.isEmpty, "the SDK's messages reached the webhook: \(hits.map { String(decoding: $0.body, as: UTF8.self) })")
            #expect(hits.contains { $0.json["category"] as? String == "group_channel:create" }, "the SDK's channel creation too")
            for h in hits { #expect(h.signature == WebhookDispatcher.signature(h.body, key: server.apiToken)) }
        }
    }
}

/// Runs a tool found on PATH with extra environment variables; returns its exit status and its
/// standard output and error together.
///
/// The wait happens on a thread of its own: blocking one of the few threads of Swift's
/// cooperative pool (two on this machine) for the seconds a tool runs would stall every other
/// test's server meanwhile.
func runTool(_ arguments: [String], env extra: [String: String]) async throws -> (Int32, String) {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            do {
                continuation.resume(returning: try runToolBlocking(arguments, env: extra))
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }
}

func runToolBlocking(_ arguments: [String], env extra: [String: String]) throws -> (Int32, String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = arguments
    p.environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new }
    let out = Pipe()
    p.standardOutput = out
    p.standardError = out
    try p.run()
    let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    return (p.terminationStatus, output)
}

/// Minimal JSON-over-HTTP for process tests.
struct HTTPHelper {
    let base: String
    let token: String

    func call(_ method: String, _ path: String, _ body: [String: Any]?) async throws -> [String: Any] {
        var req = URLRequest(url: URL(string: base + path)!)
        req.httpMethod = method
        req.setValue(token, forHTTPHeaderField: "Api-Token")
        if let body {
            req.httpBody = try JSONSerialization.data(withJSONObject: body)
            req.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, _) = try await URLSession.shared.data(for: req)
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }
}

@Suite("Event loop count from the CPU affinity mask")
struct EventLoopCountTests {
    @Test func readsTheMask() {
        #expect(EventLoopCount.cpus(inStatus: "Name:\tternd\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\n") == 2)
        #expect(EventLoopCount.cpus(inStatus: "Cpus_allowed:\t00000000,00000001\n") == 1)
        #expect(EventLoopCount.cpus(inStatus: "Cpus_allowed:\tffffffff,ffffffff\n") == 64)
        #expect(EventLoopCount.cpus(inStatus: "Cpus_allowed:\t0\n") == nil)
        #expect(EventLoopCount.cpus(inStatus: "Name:\tternd\n") == nil)
        #expect(EventLoopCount.allowedCPUs() ?? 0 >= 1)
    }
}
