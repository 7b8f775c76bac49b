import ArgumentParser
import Foundation
import TernKit

/// Where things live (XDG base directories).
enum Paths {
    static var env: [String: String] { ProcessInfo.processInfo.environment }
    static func base(_ key: String, _ fallback: String) -> String {
        if let v = env[key], !v.isEmpty { return v }
        return (env["HOME"] ?? NSTemporaryDirectory()) + "/" + fallback
    }
    static var serverData: String { base("XDG_DATA_HOME", ".local/share") + "/tern/server" }
    static var state: String { base("XDG_STATE_HOME", ".local/state") + "/tern" }
    static var config: String { base("XDG_CONFIG_HOME", ".config") + "/tern" }
    /// `text` as a file name: letters, digits, `.`, `-` and `_` kept, anything else `_`.
    static func safeName(_ text: String) -> String {
        String(text.map { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) ? $0 : "_" })
    }
}

/// The local server `tern` starts when no server is configured: `ternd serve-embedded` (the `ternd`
/// next to `tern`, else on `PATH`, or `TERN_TERND`), run detached on 127.0.0.1, with its port and
/// pid in `DATA/embedded.json`, guarded by `DATA/embedded.lock` (flock) so two `tern`s never start
/// two. The server is its own process so the client never loads what only the server needs.
enum EmbeddedServer {
    struct Record: Codable {
        var pid: Int32
        var port: Int
    }

    static var recordPath: String { Paths.serverData + "/embedded.json" }
    static var lockPath: String { Paths.serverData + "/embedded.lock" }

    static func read() -> Record? {
        guard let data = FileManager.default.contents(atPath: recordPath) else { return nil }
        return try? JSONDecoder().decode(Record.self, from: data)
    }

    static func isAlive(_ r: Record) -> Bool { kill(r.pid, 0) == 0 }

    /// The server's address now, if it runs (read again before each reconnection: see `ternd serve-embedded`).
    static func current() -> ServerAddress? {
        guard let r = read(), isAlive(r) else { return nil }
        return try? ServerAddress(parsing: "http://127.0.0.1:\(r.port)")
    }

    /// Creates the server's data directory as the server itself would: its owner's only (0700), as it
    /// holds every message and the API token (not 0755 under the usual umask, then warned about).
    static func makeDataDirectory() throws {
        let fm = FileManager.default
        guard !fm.fileExists(atPath: Paths.serverData) else { return }
        try fm.createDirectory(atPath: Paths.serverData, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try fm.setAttributes([.posixPermissions: 0o700], ofItemAtPath: Paths.serverData)
    }

    /// Runs `body` holding the lock file.
    static func locked<T>(_ body: () throws -> T) throws -> T {
        try makeDataDirectory()
        let fd = open(lockPath, O_CREAT | O_RDWR, 0o600)
        guard fd >= 0 else { throw ValidationError("cannot open \(lockPath)") }
        defer { close(fd) }
        flock(fd, LOCK_EX)
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    /// The URL of the running embedded server, starting one if needed.
    static func ensure() throws -> String {
        try locked {
            if let r = read(), isAlive(r) { return "http://127.0.0.1:\(r.port)" }
            try? FileManager.default.removeItem(atPath: recordPath)
            try FileManager.default.createDirectory(atPath: Paths.state, withIntermediateDirectories: true)
            let log = Paths.state + "/server.log"
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            let p = Process()
            guard let binary = terndBinary() else {
                throw ValidationError(
                    "the embedded local server needs ternd next to tern or on PATH (or TERN_TERND=PATH); or set TERN_SERVER to a running server")
            }
            if FileManager.default.isExecutableFile(atPath: "/usr/bin/setsid") {
                p.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
                p.arguments = [binary, "serve-embedded", "--data-dir", Paths.serverData]
            } else {
                p.executableURL = URL(fileURLWithPath: binary)
                p.arguments = ["serve-embedded", "--data-dir", Paths.serverData]
            }
            p.standardInput = FileHandle.nullDevice
            let out = FileHandle(forWritingAtPath: log)
            out?.seekToEndOfFile()
            p.standardOutput = out
            p.standardError = out
            try p.run()
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                if let r = read(), isAlive(r) { return "http://127.0.0.1:\(r.port)" }
                usleep(50_000)
            }
            throw ValidationError("the embedded server did not start\(lastLine(of: log).map { ": " + $0 } ?? "") (see \(log))")
        }
    }

    /// The last line of the server's log (why it did not start: its data directory in use, say).
    static func lastLine(of log: String) -> String? {
        guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return nil }
        return text.split(separator: "\n").last.map { String($0.suffix(400)) }
    }

    /// The `ternd` to run: `TERN_TERND`, the one beside this `tern`, else the first on `PATH`.
    static func terndBinary() -> String? {
        let fm = FileManager.default
        let env = Paths.env
        if let own = env["TERN_TERND"], !own.isEmpty { return fm.isExecutableFile(atPath: own) ? own : nil }
        let me = (try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? Bundle.main.executablePath ?? CommandLine.arguments[0]
        let beside = (me as NSString).deletingLastPathComponent + "/ternd"
        if fm.isExecutableFile(atPath: beside) { return beside }
        for dir in (env["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") where fm.isExecutableFile(atPath: "\(dir)/ternd") {
            return "\(dir)/ternd"
        }
        return nil
    }

    /// `tern --stop-server`.
    static func stop() throws -> String {
        try locked {
            guard let r = read(), isAlive(r) else {
                try? FileManager.default.removeItem(atPath: recordPath)
                return "no embedded server is running"
            }
            kill(r.pid, SIGTERM)
            for _ in 0..<200 where isAlive(r) { usleep(50_000) }
            try? FileManager.default.removeItem(atPath: recordPath)
            return "stopped the embedded server (pid \(r.pid), port \(r.port))"
        }
    }
}
