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
        DataDirectory.restrictNewFiles()
        var logger = Logger(label: "tern.embedded")
        logger.logLevel = .info
        let tokenFile = try APITokenFile.loadOrCreate(dataDirectory: dataDir)
        let dir = dataDir
        var config = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: dataDir, apiToken: tokenFile.token)
        config.onListening = { _, port in
            let record = Record(pid: getpid(), port: port)
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
