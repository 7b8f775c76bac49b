import Foundation
import Synchronization
import TernTestSupport
import Testing

/// Finds a binary built beside this test bundle (`tern`, `ternd`).
func builtBinary(_ name: String) throws -> String {
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<3 {
        let candidate = dir.appendingPathComponent(name).path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        dir = dir.deletingLastPathComponent()
    }
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let fromPackage = root.appendingPathComponent(".build/debug/\(name)").path
    if FileManager.default.isExecutableFile(atPath: fromPackage) { return fromPackage }
    throw TestFailure("\(name) binary not found beside the tests")
}

func tempDirectory() -> String {
    let dir = NSTemporaryDirectory() + "tern-e2e-" + UUID().uuidString
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

/// A child process whose standard output and error are collected as they come.
final class Child: @unchecked Sendable {
    let process = Process()
    private let out = Mutex(Data())
    private let err = Mutex(Data())

    init(_ binary: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for k in env.keys where k.hasPrefix("TERN_") { env[k] = nil }
        env.merge(environment) { _, new in new }
        process.environment = env
        let o = Pipe()
        let e = Pipe()
        process.standardOutput = o
        process.standardError = e
        process.standardInput = FileHandle.nullDevice
        o.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            if !d.isEmpty { self?.out.withLock { $0.append(d) } }
        }
        e.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            if !d.isEmpty { self?.err.withLock { $0.append(d) } }
        }
        try process.run()
    }

    var stdout: String { String(decoding: out.withLock { $0 }, as: UTF8.self) }
    var stderr: String { String(decoding: err.withLock { $0 }, as: UTF8.self) }
    var lines: [String] { stdout.split(separator: "\n").map(String.init) }

    /// Waits for a line of standard output that `match` accepts (parsed as JSON when it is).
    func waitLine(_ what: String, timeout: Double = 30, _ match: ([String: Any]) -> Bool) async throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        var seen = 0
        while Date() < deadline {
            let all = lines
            while seen < all.count {
                if let obj = (try? JSONSerialization.jsonObject(with: Data(all[seen].utf8))) as? [String: Any], match(obj) { return obj }
                seen += 1
            }
            if !process.isRunning && seen >= lines.count { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestFailure("no line for \(what) within \(timeout) s; stdout:\n\(stdout)\nstderr:\n\(stderr)")
    }

    /// Waits for the process to end (killing it after `timeout` s) and returns its status.
    @discardableResult
    func finish(timeout: Double = 30) async -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? await Task.sleep(for: .milliseconds(50))  // let the pipes drain
        return process.terminationStatus
    }

    func signal(_ sig: Int32) {
        if process.isRunning { kill(process.processIdentifier, sig) }
    }
}

/// `ternd serve` as a child process on 127.0.0.1.
final class TerndChild: @unchecked Sendable {
    let child: Child
    let port: Int
    let dataDirectory: String
    let apiToken: String

    static func start(port: Int = 0, dataDirectory: String, apiToken: String, extra: [String] = []) async throws -> TerndChild {
        let child = try Child(
            try builtBinary("ternd"),
            [
                "serve", "--host", "127.0.0.1", "--port", String(port), "--data-dir", dataDirectory, "--api-token", apiToken,
                "--max-messages-per-second", "0",
            ] + extra)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let line = child.lines.first(where: { $0.hasPrefix("listening ") }), let p = Int(line.split(separator: ":").last ?? "") {
                return TerndChild(child: child, port: p, dataDirectory: dataDirectory, apiToken: apiToken)
            }
            if !child.process.isRunning { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        child.signal(SIGKILL)
        await child.finish()
        throw TestFailure("ternd did not start: \(child.stdout) \(child.stderr)")
    }

    init(child: Child, port: Int, dataDirectory: String, apiToken: String) {
        self.child = child
        self.port = port
        self.dataDirectory = dataDirectory
        self.apiToken = apiToken
    }

    var url: String { "http://127.0.0.1:\(port)" }

    func stop(_ sig: Int32 = SIGTERM) async {
        child.signal(sig)
        await child.finish(timeout: 15)
    }

    /// A Platform API call with the API token: the answer's JSON object (empty when it is none).
    @discardableResult
    func platform(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
        var req = URLRequest(url: URL(string: url + path)!)
        req.httpMethod = method
        req.setValue(apiToken, forHTTPHeaderField: "Api-Token")
        if let body {
            req.setValue("application/json", forHTTPHeaderField: "Content-Type")
            req.httpBody = try JSONSerialization.data(withJSONObject: body)
        }
        let (data, _) = try await URLSession.shared.data(for: req)
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }

    /// A Platform API read.
    func get(_ path: String) async throws -> [String: Any] { try await platform("GET", path) }

    /// The URL of one of a user's group channels, by name ("" when there is none).
    func channelUrl(of user: String, named name: String) async throws -> String {
        let json = try await get("/v3/users/\(user)/my_group_channels?show_empty=true&name_contains=\(name)")
        return ((json["channels"] as? [[String: Any]])?.first?["channel_url"] as? String) ?? ""
    }

    /// The URL of the only channel named `name`.
    func channelUrl(named name: String) async throws -> String {
        let r = try await get("/v3/group_channels?limit=100&name_contains=\(name)")
        guard let url = (r["channels"] as? [[String: Any]] ?? []).first(where: { $0["name"] as? String == name })?["channel_url"] as? String else {
            throw TestFailure("no channel named \(name)")
        }
        return url
    }

    /// The texts of a channel's messages on the server, oldest first (up to 200).
    func history(_ url: String) async throws -> [String] {
        let r = try await get("/v3/group_channels/\(url)/messages?message_ts=9007199254740991&prev_limit=200&next_limit=0")
        return (r["messages"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
    }

    /// The text of a channel's newest message ("" when it has none).
    func lastText(_ channel: String) async throws -> String {
        let page = try await get(
            "/v3/group_channels/\(channel)/messages?message_ts=\(Int64(Date().timeIntervalSince1970 * 1000) + 60_000)&prev_limit=1&next_limit=0")
        return ((page["messages"] as? [[String: Any]])?.last?["message"] as? String) ?? ""
    }
}

/// Runs `tern ARGS` to its end with the given environment.
func tern(_ args: [String], env: [String: String]) async throws -> (status: Int32, stdout: String, stderr: String) {
    let c = try Child(try builtBinary("tern"), args, environment: env)
    let status = await c.finish(timeout: 60)
    return (status, c.stdout, c.stderr)
}

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
