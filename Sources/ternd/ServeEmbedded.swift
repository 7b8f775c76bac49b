import ArgumentParser
import Foundation
import Logging
import TernServer

/// `ternd serve-embedded`: the embedded local server `tern` starts by itself (not run by hand): its port and
/// pid go to `DATA/embedded.json`; it stops after `--idle-seconds` without connections.
struct ServeEmbeddedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve-embedded", abstract: "Run the embedded local server (tern starts it by itself).", shouldDisplay: false)

    struct Record: Codable {
        var pid: Int32
        var port: Int
    }

    @Option(name: .long) var dataDir: String
    @Option(name: .long, help: "Exit after this many seconds without connections.") var idleSeconds: Int64 = 600

    func run() async throws {
        EventLoopCount.matchAffinity()
        HeapTuning.keepFreedMemory()
        DataDirectory.restrictNewFiles()
        var logger = Logger(label: "tern.embedded")
        logger.logLevel = .info
        do { try DataDirectory.claim(dataDir, by: "embedded") } catch let e as ServerStartError { throw ValidationError(e.description) }
        let tokenFile = try APITokenFile.loadOrCreate(dataDirectory: dataDir)
        let dir = dataDir
        let port = EmbeddedPort.choose(dataDirectory: dir)
        var config = ServerConfiguration(host: "127.0.0.1", port: port, dataDirectory: dataDir, apiToken: tokenFile.token)
        config.onListening = { _, port in
            EmbeddedPort.remember(port, dataDirectory: dir)
            let record = Record(pid: getpid(), port: port)
            if let data = try? JSONEncoder().encode(record) {
                _ = FileManager.default.createFile(atPath: dir + "/embedded.json", contents: data, attributes: [.posixPermissions: 0o600])
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

/// The embedded server's one address per data directory: the port it first got is kept in
/// `DATA/embedded-port` and taken again on every start, so a `tern` (or `tern tail`) that outlives
/// a stop and a restart reconnects to the same place, its offline messages go out, and the file
/// URLs in its cache stay valid. Only when another program took that port meanwhile does the server
/// move (clients re-read `embedded.json` before each reconnection attempt).
enum EmbeddedPort {
    static func path(_ dataDirectory: String) -> String { dataDirectory + "/embedded-port" }

    /// The kept port if it is free on 127.0.0.1, else a free one the kernel picks.
    static func choose(dataDirectory: String) -> Int {
        if let text = try? String(contentsOfFile: path(dataDirectory), encoding: .utf8),
            let kept = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), (1...65535).contains(kept), bindable(kept) != nil
        {
            return kept
        }
        return bindable(0) ?? 0
    }

    static func remember(_ port: Int, dataDirectory: String) {
        _ = FileManager.default.createFile(
            atPath: path(dataDirectory), contents: Data("\(port)\n".utf8), attributes: [.posixPermissions: 0o600])
    }

    /// Binds 127.0.0.1:`port` as the server will (SO_REUSEADDR) and lets it go: the port bound, or nil if taken.
    static func bindable(_ port: Int) -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { return nil }
        var out = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &out) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        guard named == 0 else { return nil }
        return Int(UInt16(bigEndian: out.sin_port))
    }
}
