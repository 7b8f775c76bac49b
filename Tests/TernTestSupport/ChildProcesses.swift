public import Foundation
import Synchronization

/// Finds a binary built beside this test bundle (`tern`, `ternd`).
public func builtBinary(_ name: String) throws -> String {
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

/// A child process whose standard output and error are collected as they come.
public final class Child: @unchecked Sendable {
    public let process = Process()
    private let out = Mutex(Data())
    private let err = Mutex(Data())

    /// Runs `binary` with `arguments`; the environment is this process's without its `TERN_*`
    /// variables, plus `environment`.
    public init(_ binary: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for k in env.keys where k.hasPrefix("TERN_") { env[k] = nil }
        env.merge(environment) { _, new in new }
        process.environment = env
        let o = Foundation.Pipe()
        let e = Foundation.Pipe()
        process.standardOutput = o
        process.standardError = e
        process.standardInput = FileHandle.nullDevice
        // At end of file the handler is taken off: left on, its dispatch source keeps firing on
        // the finished pipe and races the descriptor's close (a crash in libdispatch's event loop).
        o.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            if d.isEmpty { h.readabilityHandler = nil } else { self?.out.withLock { $0.append(d) } }
        }
        e.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            if d.isEmpty { h.readabilityHandler = nil } else { self?.err.withLock { $0.append(d) } }
        }
        try process.run()
    }

    /// A child gone before its pipes end (one whose own children still hold them) takes its
    /// handlers off first, for the same reason.
    deinit {
        for pipe in [process.standardOutput, process.standardError] {
            (pipe as? Foundation.Pipe)?.fileHandleForReading.readabilityHandler = nil
        }
    }

    public var stdout: String { String(decoding: out.withLock { $0 }, as: UTF8.self) }
    public var stderr: String { String(decoding: err.withLock { $0 }, as: UTF8.self) }
    public var lines: [String] { stdout.split(separator: "\n").map(String.init) }

    /// Waits for a line of standard output that `match` accepts (parsed as JSON when it is).
    public func waitLine(_ what: String, timeout: Double = 30, _ match: ([String: Any]) -> Bool) async throws -> [String: Any] {
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
    public func finish(timeout: Double = 30) async -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        let status = reap()
        try? await Task.sleep(for: .milliseconds(50))  // let the pipes drain
        return status
    }

    /// The same, blocking this thread (for a `defer`, or work run off the concurrency pool).
    @discardableResult
    public func finishBlocking(timeout: Double = 30) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        let status = reap()
        usleep(50_000)  // let the pipes drain
        return status
    }

    /// Kills the process if it still runs; its exit status.
    private func reap() -> Int32 {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    public func signal(_ sig: Int32) {
        if process.isRunning { kill(process.processIdentifier, sig) }
    }
}

/// The real `ternd serve` as a child process on 127.0.0.1 (port 0 unless given); stopped by PID.
public final class TerndChild: @unchecked Sendable {
    public let child: Child
    public let port: Int
    public let dataDirectory: String
    public let apiToken: String

    public var process: Process { child.process }
    public var url: String { "http://127.0.0.1:\(port)" }

    /// The `ternd` built beside the tests, if there is one.
    public static var binary: String? { try? builtBinary("ternd") }

    /// Starts `ternd serve` and returns once it prints its `listening HOST:PORT` line (blocking
    /// this thread meanwhile: see `start`). With `openFileLimit`, it runs under `ulimit -n` (through
    /// `sh`, which `exec`s it: the PID is ternd's). With `followingTestDatabase` and
    /// `TERN_TEST_DATABASE=postgres`, it keeps its data in PostgreSQL (one database per data
    /// directory, so a restart on the same directory finds the same data). With `cpus`, it runs under
    /// `taskset -c CPUS` (which `exec`s it), with `environment` added to its environment.
    public static func startBlocking(
        port: Int = 0, dataDirectory: String, apiToken: String = "proc-token-\(UUID().uuidString)", extra: [String] = [],
        openFileLimit: Int? = nil, followingTestDatabase: Bool = false, cpus: String? = nil, environment: [String: String] = [:]
    ) throws -> TerndChild {
        let binary = try builtBinary("ternd")
        var extra = extra
        if followingTestDatabase, ProcessInfo.processInfo.environment["TERN_TEST_DATABASE"] == "postgres", !extra.contains("--database") {
            extra += ["--database", try PostgresTestCluster.sharedBlocking().database(for: dataDirectory)]
        }
        let args =
            [
                "serve", "--host", "127.0.0.1", "--port", String(port), "--data-dir", dataDirectory, "--api-token", apiToken,
                "--max-messages-per-second", "0",
            ] + extra
        let child =
            if let openFileLimit {
                try Child("/bin/sh", ["-c", "ulimit -n \(openFileLimit) && exec \"$0\" \"$@\"", binary] + args, environment: environment)
            } else if let cpus {
                try Child("/usr/bin/taskset", ["-c", cpus, binary] + args, environment: environment)
            } else {
                try Child(binary, args, environment: environment)
            }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let line = child.lines.first(where: { $0.hasPrefix("listening ") }), let p = Int(line.split(separator: ":").last ?? "") {
                return TerndChild(child: child, port: p, dataDirectory: dataDirectory, apiToken: apiToken)
            }
            if !child.process.isRunning { break }
            usleep(20_000)
        }
        child.signal(SIGKILL)
        child.finishBlocking()
        throw TestFailure("ternd did not start: \(child.stdout) \(child.stderr)")
    }

    /// `startBlocking` on a thread of its own, so the concurrency pool's few threads go on meanwhile.
    public static func start(
        port: Int = 0, dataDirectory: String, apiToken: String = "proc-token-\(UUID().uuidString)", extra: [String] = [],
        openFileLimit: Int? = nil, followingTestDatabase: Bool = false, cpus: String? = nil, environment: [String: String] = [:]
    ) async throws -> TerndChild {
        try await PostgresTestCluster.offPool {
            try startBlocking(
                port: port, dataDirectory: dataDirectory, apiToken: apiToken, extra: extra, openFileLimit: openFileLimit,
                followingTestDatabase: followingTestDatabase, cpus: cpus, environment: environment)
        }
    }

    /// The names of the process's threads (`/proc/PID/task/*/comm`).
    public var threadNames: [String] {
        let pid = process.processIdentifier
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    init(child: Child, port: Int, dataDirectory: String, apiToken: String) {
        self.child = child
        self.port = port
        self.dataDirectory = dataDirectory
        self.apiToken = apiToken
    }

    /// Sends `sig` and waits for the process to exit (SIGKILL after 15 s); its exit status.
    @discardableResult
    public func stopBlocking(_ sig: Int32 = SIGTERM) -> Int32 {
        child.signal(sig)
        return child.finishBlocking(timeout: 15)
    }

    /// `stopBlocking` without blocking the concurrency pool.
    @discardableResult
    public func stop(_ sig: Int32 = SIGTERM) async -> Int32 {
        child.signal(sig)
        return await child.finish(timeout: 15)
    }
}
