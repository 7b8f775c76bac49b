import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A server the bench starts itself on a free port — `ternd serve` on a fresh data directory, or
/// this binary's own `tern-bench fanout-server` — optionally pinned to CPUs with `taskset -c`, and
/// always stops by PID (SIGTERM, then SIGKILL).
final class SpawnedServer: Sendable {
    /// "ternd" or "fanout-server", for messages.
    let name: String
    let pid: Int32
    let host: String
    let port: Int
    let dataDir: String
    let apiToken: String
    private let stopped = Mutex(false)
    /// Kept so Foundation goes on watching (and reaping) the child.
    private let process: Process

    private init(name: String, process: Process, host: String, port: Int, dataDir: String, apiToken: String) {
        self.name = name
        self.process = process
        self.pid = process.processIdentifier
        self.host = host
        self.port = port
        self.dataDir = dataDir
        self.apiToken = apiToken
    }

    var baseURL: String { "http://\(host):\(port)" }

    struct StartError: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts `ternd serve --port 0` (with `extraArguments`) and waits (up to 30 s) for its
    /// `listening HOST:PORT` line.
    static func startTernd(_ ternd: String, cpus: String?, appId: String, extraArguments: [String]) async throws -> SpawnedServer {
        try await start(name: "ternd", executable: ternd, cpus: cpus) { dataDir, token in
            ["serve", "--port", "0", "--data-dir", dataDir, "--api-token", token, "--app-id", appId, "--log-level", "warning"]
                + extraArguments
        }
    }

    /// Starts this very binary as `tern-bench fanout-server --port 0`.
    static func startFanout(cpus: String?, appId: String, coalescingUs: Int) async throws -> SpawnedServer {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return try await start(name: "fanout-server", executable: me, cpus: cpus) { _, token in
            ["fanout-server", "--port", "0", "--api-token", token, "--app-id", appId, "--coalescing-us", String(coalescingUs)]
        }
    }

    /// Runs `executable` with `arguments(dataDir, apiToken)`; it must print `listening HOST:PORT` first.
    static func start(
        name: String, executable: String, cpus: String?, arguments: (String, String) -> [String]
    ) async throws -> SpawnedServer {
        let dataDir = NSTemporaryDirectory() + "tern-bench-" + randomHex(6)
        try FileManager.default.createDirectory(atPath: dataDir, withIntermediateDirectories: true)
        let token = randomHex(16)
        let args = arguments(dataDir, token)

        let process = Process()
        if let cpus {
            // taskset execs the server, so the PID is the server's.
            process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
            process.arguments = ["-c", cpus, executable] + args
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = args
        }
        let stdout = Pipe()
        process.standardOutput = stdout
        let logPath = dataDir + "/server.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: logPath)
        do {
            try process.run()
        } catch {
            try? FileManager.default.removeItem(atPath: dataDir)
            throw StartError(description: "cannot run \(process.executableURL?.path ?? executable): \(error.localizedDescription)")
        }
        let pid = process.processIdentifier

        // If the server never prints its line, kill it: the blocked read then sees end of file.
        let watchdog = DispatchWorkItem { if process.isRunning { kill(pid, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
        let line = await firstLine(stdout.fileHandleForReading)
        watchdog.cancel()

        guard let line, line.hasPrefix("listening "), let colon = line.lastIndex(of: ":"),
            let port = Int(line[line.index(after: colon)...])
        else {
            kill(pid, SIGKILL)
            process.waitUntilExit()
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(atPath: dataDir)
            throw StartError(description: "\(name) did not start (stdout: \(line ?? "nothing")); its log:\n\(log.suffix(2000))")
        }
        var host = String(line.dropFirst("listening ".count)[..<colon])
        if host.hasPrefix("[") { host = "[" + host.dropFirst().dropLast() + "]" }
        if host == "0.0.0.0" { host = "127.0.0.1" }
        return SpawnedServer(name: name, process: process, host: host, port: port, dataDir: dataDir, apiToken: token)
    }

    /// Stops the server (SIGTERM; SIGKILL after `timeout` seconds) and removes its data directory.
    /// Safe to call more than once, and from a signal handler's queue.
    func stop(timeout: Double = 5) {
        guard
            stopped.withLock({ s in
                defer { s = true }
                return !s
            })
        else { return }
        if kill(pid, SIGTERM) == 0 {
            let deadline = Date().addingTimeInterval(timeout)
            while isAlive(), Date() < deadline { usleep(20_000) }
            if isAlive() {
                FileHandle.standardError.write(
                    Data("tern-bench: \(name) \(pid) still running \(timeout) s after SIGTERM (busy with a backlog?); sending SIGKILL\n".utf8))
                kill(pid, SIGKILL)
                while isAlive() { usleep(10_000) }
            }
        }
        try? FileManager.default.removeItem(atPath: dataDir)
    }

    /// Whether the child still runs: it exists and is not a zombie (Foundation's `Process` reaps it).
    private func isAlive() -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return !stat[close...].hasPrefix(") Z")
    }

    /// The first line of `handle`, or nil at end of file. Reads on a thread of its own: it blocks.
    private static func firstLine(_ handle: FileHandle) async -> String? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var buffer = Data()
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { return continuation.resume(returning: nil) }
                    buffer.append(chunk)
                    if let nl = buffer.firstIndex(of: 10) {
                        return continuation.resume(returning: String(decoding: buffer[..<nl], as: UTF8.self))
                    }
                }
            }
        }
    }

    static func randomHex(_ bytes: Int) -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &g)) }.joined()
    }
}

/// Stops `server` and exits when the bench gets SIGINT or SIGTERM, so no spawned server outlives it.
enum SignalGuard {
    nonisolated(unsafe) static var sources: [any DispatchSourceSignal] = []

    static func install(_ server: SpawnedServer) {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                server.stop()
                exit(128 + sig)
            }
            source.resume()
            sources.append(source)
        }
    }
}
