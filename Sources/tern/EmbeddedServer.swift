import ArgumentParser
import Foundation
import Logging
import TernServer

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
}

/// The local server `tern` starts when no server is configured: the `tern` binary itself, run
/// detached as `tern serve-embedded`, on 127.0.0.1, with its port and pid in
/// `DATA/embedded.json`, guarded by `DATA/embedded.lock` (flock) so two `tern`s never start two.
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

    /// Runs `body` holding the lock file.
    static func locked<T>(_ body: () throws -> T) throws -> T {
        try FileManager.default.createDirectory(atPath: Paths.serverData, withIntermediateDirectories: true)
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
            FileManager.default.createFile(atPath: log, contents: nil)
            let p = Process()
            let me = URL(fileURLWithPath: CommandLine.arguments[0]).path
            let binary = me.contains("/") ? me : (Bundle.main.executablePath ?? me)
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
            throw ValidationError("the embedded server did not start (see \(log))")
        }
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

/// `tern serve-embedded`: the embedded server process (started by `tern`, not by hand).
struct ServeEmbeddedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve-embedded", abstract: "Run the embedded local server (tern starts it by itself).", shouldDisplay: false)

    @Option(name: .long) var dataDir: String
    @Option(name: .long, help: "Exit after this many seconds without connections.") var idleSeconds: Int64 = 600

    func run() async throws {
        DataDirectory.restrictNewFiles()
        var logger = Logger(label: "tern.embedded")
        logger.logLevel = .info
        let tokenFile = try APITokenFile.loadOrCreate(dataDirectory: dataDir)
        let dir = dataDir
        var config = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: dataDir, apiToken: tokenFile.token)
        config.onListening = { _, port in
            let record = EmbeddedServer.Record(pid: getpid(), port: port)
            if let data = try? JSONEncoder().encode(record) {
                FileManager.default.createFile(atPath: dir + "/embedded.json", contents: data, attributes: [.posixPermissions: 0o600])
            }
            print("listening 127.0.0.1:\(port)")
        }
        let app = try await buildApplication(config, logger: logger)
        let idle = idleSeconds
        let registry = app.service.registry
        let watch = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(min(5, max(1, idle))))
                let quietFor = Int64(Date().timeIntervalSince1970) - registry.lastConnectionChange
                if registry.connectionCount == 0 && quietFor >= idle {
                    logger.info("no connections for \(quietFor) s: stopping")
                    kill(getpid(), SIGTERM)
                    return
                }
            }
        }
        try await app.run()
        watch.cancel()
    }
}
