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
///
/// Each pipe is read by a thread of its own with blocking `read(2)` until end of file, which then
/// closes its descriptor. Foundation's `readabilityHandler` is not used: its dispatch source raced
/// the descriptor's close when a pipe ended or a `Child` went away (twice a segfault in libdispatch's
/// `_dispatch_event_loop_drain` that took the whole test process down, once even with the handlers
/// taken off at end of file).
public final class Child: @unchecked Sendable {
    public let process = Process()
    private let out = Collected()
    private let err = Collected()

    /// What one pipe has brought so far; shared with the thread that reads it.
    final class Collected: Sendable {
        let data = Mutex(Data())
        /// The pipe reached end of file (every process holding its write end is gone).
        let ended = Atomic(false)
    }

    /// Both pipes reached end of file (a process of the child's own may hold them longer).
    private var pipesEnded: Bool { out.ended.load(ordering: .acquiring) && err.ended.load(ordering: .acquiring) }

    /// Runs `binary` with `arguments`; the environment is this process's without its `TERN_*`
    /// variables, plus `environment`.
    public init(_ binary: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for k in env.keys where k.hasPrefix("TERN_") { env[k] = nil }
        env.merge(environment) { _, new in new }
        process.environment = env
        let o = try Self.pipe()
        let e = try Self.pipe()
        process.standardOutput = FileHandle(fileDescriptor: o.write, closeOnDealloc: false)
        process.standardError = FileHandle(fileDescriptor: e.write, closeOnDealloc: false)
        process.standardInput = FileHandle.nullDevice
        defer {
            // The child has its own copies; the parent's write ends must go, or the reads never end.
            close(o.write)
            close(e.write)
        }
        do {
            try process.run()
        } catch {
            close(o.read)
            close(e.read)
            throw error
        }
        Self.drain(o.read, into: out)
        Self.drain(e.read, into: err)
    }

    /// A pipe whose descriptors are closed on exec (the child gets its end through `dup2`).
    private static func pipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard Glibc.pipe(&fds) == 0 else { throw TestFailure("pipe: errno \(errno)") }
        // (Glibc's module has no pipe2: a process another test spawns in between may inherit them.)
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }

    /// Reads `fd` on a thread of its own until end of file, then closes it.
    private static func drain(_ fd: Int32, into sink: Collected) {
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n > 0 {
                    sink.data.withLock { $0.append(contentsOf: buffer[0..<n]) }
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            close(fd)
            sink.ended.store(true, ordering: .releasing)
        }
        reader.stackSize = 256 * 1024
        reader.start()
    }

    public var stdout: String { String(decoding: out.data.withLock { $0 }, as: UTF8.self) }
    public var stderr: String { String(decoding: err.data.withLock { $0 }, as: UTF8.self) }
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
        for _ in 0..<50 where !pipesEnded { try? await Task.sleep(for: .milliseconds(5)) }  // let the pipes drain
        return status
    }

    /// The same, blocking this thread (for a `defer`, or work run off the concurrency pool).
    @discardableResult
    public func finishBlocking(timeout: Double = 30) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        let status = reap()
        for _ in 0..<50 where !pipesEnded { usleep(5_000) }  // let the pipes drain
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
