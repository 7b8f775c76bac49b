import Foundation
import TernTestSupport
import Testing

/// The real `ternd` binary run as a child process on 127.0.0.1, port 0; stopped by PID.
final class TerndProcess: @unchecked Sendable {
    let process: Process
    let port: Int
    let dataDirectory: String
    let apiToken: String

    /// The `ternd` built beside this test bundle.
    static var binary: String? {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = dir.appendingPathComponent("ternd").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        let fromPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(".build/debug/ternd").path
        return FileManager.default.isExecutableFile(atPath: fromPackage) ? fromPackage : nil
    }

    /// Starts `ternd serve --port 0` and waits for its `listening HOST:PORT` line.
    /// With `openFileLimit`, it runs under `ulimit -n` (through `sh`, which `exec`s it: the PID is ternd's).
    static func start(
        dataDirectory: String, apiToken: String = "proc-token-\(UUID().uuidString)", extra: [String] = [], openFileLimit: Int? = nil
    ) throws -> TerndProcess {
        guard let binary else { throw TestFailure("ternd binary not found beside the tests") }
        var extra = extra
        // `TERN_TEST_DATABASE=postgres`: the process keeps its data in PostgreSQL too (one
        // database per data directory, so a restart on the same directory finds the same data).
        if ProcessInfo.processInfo.environment["TERN_TEST_DATABASE"] == "postgres", !extra.contains("--database") {
            extra += ["--database", try PostgresTestCluster.sharedBlocking().database(for: dataDirectory)]
        }
        let p = Process()
        let args =
            ["serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", dataDirectory, "--api-token", apiToken, "--max-messages-per-second", "0"]
            + extra
        if let openFileLimit {
            p.executableURL = URL(fileURLWithPath: "/bin/sh")
            p.arguments = ["-c", "ulimit -n \(openFileLimit) && exec \"$0\" \"$@\"", binary] + args
        } else {
            p.executableURL = URL(fileURLWithPath: binary)
            p.arguments = args
        }
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        var buffer = Data()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer += chunk
            if let line = String(decoding: buffer, as: UTF8.self).split(separator: "\n").first(where: { $0.hasPrefix("listening ") }),
                let port = Int(line.split(separator: ":").last ?? "")
            {
                return TerndProcess(process: p, port: port, dataDirectory: dataDirectory, apiToken: apiToken)
            }
        }
        p.terminate()
        throw TestFailure("ternd did not print its listening line: \(String(decoding: buffer, as: UTF8.self))")
    }

    init(process: Process, port: Int, dataDirectory: String, apiToken: String) {
        self.process = process
        self.port = port
        self.dataDirectory = dataDirectory
        self.apiToken = apiToken
    }

    /// Sends `signal` and waits for the process to exit (SIGKILL after 10 s).
    func stop(signal: Int32 = SIGTERM) -> Int32 {
        if process.isRunning { kill(process.processIdentifier, signal) }
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
