import Foundation
public import Hummingbird
import HummingbirdCore
public import Logging
import NIOCore
import NIOSSL
public import ServiceLifecycle
import Synchronization
import TernProtocol
import UnixSignals

/// A built server: the Hummingbird application and the chat service behind it.
public struct TernServerApp: Sendable {
    public let application: Application<RouterResponder<RESTRequestContext>>
    public let service: ChatService
    /// Every REST route, as `METHOD /path` with `:parameters` (the authorization matrix test
    /// checks that each has a row).
    public let routes: [String]
    /// The link to the other nodes on the same PostgreSQL database (nil on SQLite).
    public let cluster: PostgresCluster?

    /// Runs until SIGTERM/SIGINT (or the task is cancelled), then closes the store. Every message
    /// acknowledged before that was committed before its acknowledgement was written.
    public func run() async throws {
        do {
            try await ServiceGroup(configuration: Self.serviceGroupConfiguration(services, logger: service.logger)).run()
        } catch {
            try? await service.store.close()
            throw error
        }
        try await service.store.close()
    }

    /// What runs: the application, and the notice that tells connected clients `BUSY` when a
    /// graceful shutdown starts (services shut down last first, so the notice goes out while the
    /// connections are still open).
    public var services: [any Service] {
        // The cluster link stops last: the other nodes hear `bye` after this node's sockets closed.
        (cluster.map { [$0] } ?? []) + [application, ShutdownNotice(service: service)]
    }

    /// SIGTERM/SIGINT start a graceful shutdown; one that has not finished after 10 s (a peer
    /// that stopped reading can hold a close handshake forever) turns into cancellation.
    public static func serviceGroupConfiguration(_ services: [any Service], logger: Logger) -> ServiceGroupConfiguration {
        var config = ServiceGroupConfiguration(
            services: services.map { .init(service: $0) }, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        config.maximumGracefulShutdownDuration = .seconds(10)
        config.maximumCancellationDuration = .seconds(5)
        return config
    }
}

/// Waits for a graceful shutdown, then sends every open connection `BUSY` with
/// `retry_after` (``ServerConfiguration/busyRetryAfter``): clients come back after it (a restart)
/// instead of all at once.
struct ShutdownNotice: Service {
    let service: ChatService

    func run() async throws {
        try? await gracefulShutdown()
        // From now on upgrades are refused and logins in progress dropped (the listener is
        // still open until the HTTP server stops, after this).
        service.shuttingDown.store(true, ordering: .relaxed)
        let retry = service.config.busyRetryAfter
        if retry > 0 {
            let frame = ChatService.frameText(.busy, BusyNotice(retryAfter: retry, message: "The server is restarting."))
            for conn in service.registry.all() { conn.send(frame) }
        }
        // WebSocket connections live on NIO handlers, not in the HTTP server's tasks: each is
        // closed here (what was queued, `BUSY` included, goes first; then a close frame), and the
        // shutdown waits (at most 2 s) until they are gone, before the store closes.
        for conn in service.registry.all() { conn.outbox.close() }
        for _ in 0..<40 where service.registry.connectionCount > 0 {
            try? await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// Builds `ternd`: opens the store in `config.dataDirectory`, sets up the REST routes and the
/// WebSocket gateway.
///
/// ```swift
/// let app = try await buildApplication(ServerConfiguration(dataDirectory: dir, apiToken: token))
/// try await app.run()
/// ```
/// - Throws: ``ServerStartError`` for a configuration that must not run, or a store error.
public func buildApplication(_ config: ServerConfiguration, store: (any Store)? = nil, logger: Logger? = nil) async throws -> TernServerApp {
    var logger = logger ?? Logger(label: "ternd")
    if logger.logLevel > .info { logger.logLevel = .info }
    if !config.isLoopback && !config.requireAccessToken && !config.insecure {
        throw ServerStartError(
            "refusing to listen on \(config.host) without --require-access-token: anyone could speak as anyone. Pass --insecure to do it anyway."
        )
    }
    if config.apiToken.isEmpty { throw ServerStartError("an API token is required") }
    if config.appId.isEmpty { throw ServerStartError("the app id must not be empty") }
    let theStore: any Store
    var cluster: PostgresCluster?
    if let store {
        theStore = store
    } else if let url = config.databaseURL {
        if let warning = try DataDirectory.prepare(config.dataDirectory) { logger.warning("\(warning)") }
        var pgLogger = logger
        pgLogger.logLevel = max(logger.logLevel, .warning)
        let pg = try await PostgresStore(url: url, clock: config.clock, logger: pgLogger, nodeId: config.nodeId ?? PostgresCluster.newNodeId())
        theStore = pg
        cluster = try PostgresCluster(store: pg, logger: logger)
    } else {
        if let warning = try DataDirectory.prepare(config.dataDirectory) { logger.warning("\(warning)") }
        let path = (config.dataDirectory as NSString).appendingPathComponent("ternd.sqlite")
        DataDirectory.restrictFiles([path, path + "-wal", path + "-shm"])
        theStore = try SQLiteStore(path: path, clock: config.clock)
        DataDirectory.restrictFiles([path, path + "-wal", path + "-shm"])
    }
    let service = ChatService(store: theStore, config: config, logger: logger, cluster: cluster)
    cluster?.attach(service)
    _ = try await theStore.purgeExpiredSessions(now: config.clock.nowMs())
    let rest = RESTSupport(service: service)

    let router = Router(context: RESTRequestContext.self)
    router.middlewares.add(SendbirdErrorMiddleware())
    router.middlewares.add(IPAllowListMiddleware(service: service))
    // The SDK's warm-up request before each WebSocket connect.
    router.get("/") { _, _ in try rest.empty() }
    // Every other route needs credentials; the Platform API's own ones need its token.
    let api = router.group().add(middleware: CallerMiddleware(rest: rest))
    let platform = api.group().add(middleware: PlatformOnlyMiddleware())
    UserRoutes(rest: rest).register(on: api)
    GroupChannelRoutes(rest: rest).register(on: api)
    MetadataRoutes(rest: rest).register(on: api)
    MessageRoutes(rest: rest).register(on: api)
    FileRoutes(rest: rest).register(on: api, anonymous: router)
    OpenChannelRoutes(rest: rest).register(on: api)
    ModerationRoutes(rest: rest).register(on: api)
    UserScopeRoutes(rest: rest).register(on: api)
    PushRoutes(rest: rest).register(on: api)
    ApplicationRoutes(rest: rest).register(on: platform)
    BotRoutes(rest: rest).register(on: platform)
    EmojiRoutes(rest: rest).register(on: api)
    ApplicationSettingsRoutes(rest: rest).register(on: platform)
    ExportRoutes(rest: rest).register(on: platform)
    AnnouncementRoutes(rest: rest).register(on: platform)
    // Announcements still scheduled from before a restart wait (or go out) again.
    Task { await service.resumeAnnouncements() }

    let gateway = WebSocketGateway(service: service, logger: logger)

    let onListening = config.onListening
    let sslContext: NIOSSLContext?
    switch (config.tlsCertificatePath, config.tlsKeyPath) {
    case (let cert?, let key?): sslContext = try ServerTLS.context(certificatePath: cert, keyPath: key)
    case (nil, nil): sslContext = nil
    default: throw ServerStartError("--tls-cert and --tls-key go together")
    }
    if sslContext == nil && !config.isLoopback {
        logger.warning("serving without TLS on \(config.host): tokens and messages cross the network in clear text (--tls-cert/--tls-key)")
    }
    let cap = config.connectionCap(openFileLimit: ConnectionGate.raiseOpenFileLimit(), alreadyOpen: ConnectionGate.openDescriptorCount())
    let gate = ConnectionGate(maxTotal: cap, maxPerIP: config.maxConnectionsPerIP)
    logger.debug("connection cap \(cap)")
    service.connectionGate.withLock { $0 = gate }
    let http1 = HTTP1Channel.Configuration(idleTimeout: .milliseconds(Int64(config.httpIdleTimeout * 1000)))
    let headTimeout = TimeAmount.milliseconds(Int64(config.handshakeTimeout * 1000))
    let server = HTTPServerBuilder { responder in
        GuardedChannel(
            GatewayChildChannel(responder: responder, gateway: gateway, http1: http1, maxFrameSize: config.maxFrameSize),
            headTimeout: headTimeout, sslContext: sslContext, gate: gate)
    }
    let app = Application(
        router: router,
        server: server,
        configuration: .init(address: .hostname(config.host, port: config.port), serverName: "ternd"),
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? config.port
            await onListening?(config.host, port)
        },
        logger: logger
    )
    return TernServerApp(application: app, service: service, routes: router.routes.map { "\($0.method) \($0.path)" }, cluster: cluster)
}

/// The generated Platform API token kept in the data directory (mode 0600).
public enum APITokenFile {
    public static func path(dataDirectory: String) -> String {
        (dataDirectory as NSString).appendingPathComponent("api_token")
    }

    /// Reads the token file, or creates it with a new random token.
    /// - Returns: the token, the file's path, and whether it was just created.
    public static func loadOrCreate(dataDirectory: String) throws -> (token: String, path: String, created: Bool) {
        let path = path(dataDirectory: dataDirectory)
        try DataDirectory.prepare(dataDirectory)
        if let existing = try? String(contentsOfFile: path, encoding: .utf8) {
            let t = existing.trimmingCharacters(in: .whitespacesAndNewlines)
            if !t.isEmpty { return (t, path, false) }
        }
        let token = Credentials.randomToken(bytes: 20)
        guard FileManager.default.createFile(atPath: path, contents: Data((token + "\n").utf8), attributes: [.posixPermissions: 0o600])
        else { throw ServerStartError("cannot write \(path)") }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return (token, path, true)
    }
}
