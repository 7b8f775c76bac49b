import Foundation
import Logging
import ServiceLifecycle
public import TernServer

/// A real `ternd` running in the test process: started, waited for until it listens, stopped.
/// The server and engine test targets add their own helpers (as `TestServer`, `LocalServer`).
public final class InProcessServer: StoppableServer {
    public let port: Int
    public let app: TernServerApp
    /// Its Platform API token and data directory, as configured.
    public let apiToken: String
    public let dataDirectory: String
    let group: ServiceGroup
    let task: Task<Void, any Error>

    public struct NotListening: Error, CustomStringConvertible {
        public var description: String { "the server stopped before listening" }
    }

    /// Starts `config` (port 0 takes a free port) and returns once it listens. A server that cannot
    /// listen (its port still taken after a restart, say) throws instead of waiting forever.
    public static func start(_ config: ServerConfiguration, label: String = "test-ternd") async throws -> InProcessServer {
        var config = config
        // `TERN_TEST_DATABASE=postgres`: every in-process server keeps its data in PostgreSQL (a
        // database per data directory, so a restart on the same directory finds the same data).
        if config.databaseURL == nil, ProcessInfo.processInfo.environment["TERN_TEST_DATABASE"] == "postgres" {
            let cluster = try await PostgresTestCluster.shared()
            let key = config.dataDirectory
            config.databaseURL = try await PostgresTestCluster.offPool { try cluster.database(for: key) }
        }
        let (stream, cont) = AsyncStream<Int>.makeStream()
        config.onListening = { _, p in cont.yield(p) }
        var logger = Logger(label: label)
        logger.logLevel = .critical
        let app = try await buildApplication(config, logger: logger)
        var groupConfig = TernServerApp.serviceGroupConfiguration(app.services, logger: logger)
        groupConfig.gracefulShutdownSignals = []
        groupConfig.maximumGracefulShutdownDuration = .seconds(2)
        // On a loaded 2-core machine running the whole suite in parallel, cancelling a server's
        // tasks can take longer than ternd's 5 s production limit, and ServiceLifecycle then ends
        // the whole test process. A test server gets longer (a real hang still ends the run).
        groupConfig.maximumCancellationDuration = .seconds(60)
        let group = ServiceGroup(configuration: groupConfig)
        let task = Task {
            defer { cont.finish() }
            try await group.run()
        }
        var port = 0
        for await p in stream {
            port = p
            break
        }
        if port == 0 {
            let outcome = await task.result
            try? await app.service.store.close()
            if case .failure(let error) = outcome { throw error }
            throw NotListening()
        }
        return InProcessServer(port: port, app: app, config: config, group: group, task: task)
    }

    init(port: Int, app: TernServerApp, config: ServerConfiguration, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.app = app
        self.apiToken = config.apiToken
        self.dataDirectory = config.dataDirectory
        self.group = group
        self.task = task
    }

    /// Its REST and WebSocket addresses.
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    public var wsURL: String { "ws://127.0.0.1:\(port)" }

    /// Stops the server and closes its store.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        try? await app.service.store.close()
    }
}
