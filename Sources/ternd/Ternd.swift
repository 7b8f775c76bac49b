import ArgumentParser
import Foundation
import Logging
import TernServer

@main
struct Ternd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ternd",
        abstract: "The Tern chat server: speaks the Sendbird Chat protocol (Platform API v3 REST and the SDK WebSocket).",
        subcommands: [Serve.self, BackupCommand.self, RestoreCommand.self, ServeEmbeddedCommand.self],
        defaultSubcommand: Serve.self
    )
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the server.",
        discussion: """
            On start ternd prints one line, `listening HOST:PORT`, on standard output. SIGTERM or SIGINT
            stops it gracefully: every acknowledged message is already on disk.
            """
    )

    @Option(help: "Address to listen on. A non-loopback address needs --require-access-token or --insecure.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on; 0 takes any free port.")
    var port = 0

    @Option(name: .customLong("data-dir"), help: "Where the database and the generated API token live (default: $XDG_DATA_HOME/tern/server).")
    var dataDir: String?

    @Option(
        help:
            "PostgreSQL store: postgres://USER[:PASSWORD]@HOST:PORT/DATABASE (or env TERND_DATABASE). Several ternd nodes may share one. Without it: SQLite in --data-dir."
    )
    var database: String?

    @Option(name: .customLong("app-id"), help: "Application id clients must send as `ai`.")
    var appId = "LOCAL"

    @Option(
        name: .customLong("api-token"), help: "Platform API token (or env TERND_API_TOKEN). Without either one is generated and kept in the data dir."
    )
    var apiToken: String?

    @Flag(name: .customLong("require-access-token"), help: "Only users holding an access token issued through the Platform API may connect.")
    var requireAccessToken = false

    @Flag(help: "Allow a non-loopback --host without --require-access-token (anyone could then speak as anyone).")
    var insecure = false

    @Option(
        name: .customLong("max-messages-per-second"),
        help: "Flood protection: messages per second per user in a channel (Sendbird's default 5; 0 = off).")
    var maxMessagesPerSecond: Double = 5

    @Option(
        name: .customLong("write-coalescing-us"),
        help:
            "After writing to its sockets, an event loop waits this many microseconds before writing again, so frames arriving meanwhile share one write per socket (0 = off)."
    )
    var writeCoalescingMicroseconds: Int64 = 2000

    @Flag(inversion: .prefixedNo, help: "Chat history: new members see the messages sent before they joined (Sendbird's default: on).")
    var chatHistory = true

    @Option(name: .customLong("max-group-channel-members"), help: "Most members a group channel may have.")
    var maxGroupChannelMembers = 100

    @Option(name: .customLong("max-channels-per-user"), help: "Most group channels one user may belong to.")
    var maxChannelsPerUser = 2000

    @Option(name: .customLong("file-upload-size-limit"), help: "Largest file one upload may carry, in MB (announced to clients in LOGI).")
    var fileUploadSizeLimit = 25

    @Flag(inversion: .prefixedNo, help: "Link previews: read the og: tags of the first URL in a message and send them as an update.")
    var linkPreviews = true

    @Flag(
        name: .customLong("link-previews-private-hosts"),
        help: "Also read link previews from this machine and private networks (off: such links get no preview).")
    var linkPreviewsPrivateHosts = false

    @Option(
        name: .customLong("open-channel-messages-per-second"),
        help: "Open channels: messages broadcast per second per channel (Sendbird's 5; the rest are stored and reach operators only; 0 = no limit).")
    var openChannelMessagesPerSecond: Double = 5

    @Option(name: .customLong("max-entered-open-channels"), help: "Open channels one connection may be in at once.")
    var maxEnteredOpenChannels = 10

    @Option(name: .customLong("max-open-channel-participants"), help: "Participants one open channel holds.")
    var maxOpenChannelParticipants = 1000

    @Flag(
        name: .customLong("exclude-blocked-invitees"),
        help:
            "Leave users out of new channels and invitations when the inviter blocks them or they block the inviter (Sendbird's default: include them)."
    )
    var excludeBlockedInvitees = false

    @Option(
        name: .customLong("session-lifetime"),
        help: "Seconds a session key lasts; a connected client then gets EXPR and logs in again (0 = for ever).")
    var sessionLifetime: Int64 = 7 * 24 * 3600

    @Option(
        name: .customLong("busy-retry-after"),
        help: "On SIGTERM/SIGINT, connected clients are told BUSY: come back after this many seconds (0 = no notice).")
    var busyRetryAfter: Double = 3

    @Option(name: .customLong("tls-cert"), help: "PEM certificate chain: serve https:// and wss:// (with --tls-key).")
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: "PEM private key of --tls-cert.")
    var tlsKey: String?

    @Option(
        name: .customLong("translation-command"),
        help:
            "Shell command that translates message text for the Platform API's translation call: the text on stdin, the target language in TERN_TARGET_LANG, the translation on stdout (10 s limit)."
    )
    var translationCommand: String?

    @Option(name: .customLong("gdpr-delay"), help: "Seconds after which a GDPR request is carried out; until then it may be cancelled (0 = at once).")
    var gdprDelay: Double = 60

    @Option(
        name: .customLong("handshake-timeout"),
        help: "Seconds a new connection has to send its first request head (HTTP request or WebSocket upgrade) before it is closed.")
    var handshakeTimeout: Double = 5

    @Option(name: .customLong("http-idle-timeout"), help: "Seconds an HTTP keep-alive connection may sit idle between requests.")
    var httpIdleTimeout: Double = 30

    @Option(
        name: .customLong("login-timeout"),
        help: "Seconds the server has to log a WebSocket in (send LOGI) after the upgrade; past it the login is refused.")
    var loginTimeout: Double = 10

    @Option(
        name: .customLong("max-connections"),
        help:
            "Most connections open at once (0 = the open-file limit less --fd-reserve). At the cap the oldest connection still in its handshake is closed to make room."
    )
    var maxConnections = 0

    @Option(name: .customLong("fd-reserve"), help: "File descriptors kept free for the database, uploads and logs (at most a quarter of the limit).")
    var fdReserve = 128

    @Option(name: .customLong("max-connections-per-ip"), help: "Most connections from one address at once (0 = no cap).")
    var maxConnectionsPerIP = 0

    @Option(
        name: .customLong("trusted-proxy"),
        help:
            "A load balancer's address or CIDR range (repeatable, or comma-separated): only from these peers are X-Forwarded-For / Forwarded believed, for the IP allow-list (the client is the rightmost forwarded address that is not a trusted proxy)."
    )
    var trustedProxy: [String] = []

    @Option(
        name: .customLong("node-id"),
        help: "With --database: this node's name among the nodes sharing the database (default: host-pid-random). Each running node needs its own.")
    var nodeId: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    func run() async throws {
        // One event loop per CPU ternd may run on (taskset), before anything starts the loops.
        EventLoopCount.matchAffinity()
        HeapTuning.keepFreedMemory()
        // Everything ternd writes (the database, the API token, uploaded files) is its owner's only.
        DataDirectory.restrictNewFiles()
        let databaseURL = (database ?? ProcessInfo.processInfo.environment["TERND_DATABASE"]).flatMap { $0.isEmpty ? nil : $0 }
        let dir = dataDir ?? Self.defaultDataDirectory()
        do { try DataDirectory.claim(dir, by: "serve") } catch let e as ServerStartError { throw ValidationError(e.description) }
        var token = apiToken ?? ProcessInfo.processInfo.environment["TERND_API_TOKEN"] ?? ""
        if token.isEmpty {
            let file = try APITokenFile.loadOrCreate(dataDirectory: dir)
            token = file.token
            FileHandle.standardError.write(Data("ternd: Platform API token \(file.created ? "generated" : "read") in \(file.path)\n".utf8))
        }
        var logger = Logger(label: "ternd") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        var config = ServerConfiguration(
            host: host, port: port, dataDirectory: dir, appId: appId, apiToken: token,
            requireAccessToken: requireAccessToken, insecure: insecure, maxMessagesPerSecond: maxMessagesPerSecond,
            writeCoalescingMicroseconds: max(0, writeCoalescingMicroseconds),
            onListening: { host, port in
                let shown = host.contains(":") ? "[\(host)]" : host
                FileHandle.standardOutput.write(Data("listening \(shown):\(port)\n".utf8))
            })
        config.databaseURL = databaseURL
        config.nodeId = nodeId.flatMap { $0.isEmpty ? nil : $0 }
        config.chatHistoryForNewMembers = chatHistory
        config.maxGroupChannelMembers = max(1, maxGroupChannelMembers)
        config.maxChannelsPerUser = max(1, maxChannelsPerUser)
        config.fileUploadSizeLimitMB = max(1, fileUploadSizeLimit)
        config.linkPreviews = linkPreviews
        config.linkPreviewsPrivateHosts = linkPreviewsPrivateHosts
        config.openChannelMessagesPerSecond = max(0, openChannelMessagesPerSecond)
        config.maxEnteredOpenChannels = max(1, maxEnteredOpenChannels)
        config.maxOpenChannelParticipants = max(1, maxOpenChannelParticipants)
        config.excludeBlockedInvitees = excludeBlockedInvitees
        config.sessionLifetime = max(0, sessionLifetime)
        config.busyRetryAfter = max(0, busyRetryAfter)
        config.tlsCertificatePath = tlsCert
        config.tlsKeyPath = tlsKey
        config.handshakeTimeout = max(0.1, handshakeTimeout)
        config.translationCommand = translationCommand
        config.gdprDelaySeconds = max(0, gdprDelay)
        config.httpIdleTimeout = max(0.1, httpIdleTimeout)
        config.loginTimeout = max(0.1, loginTimeout)
        config.maxConnections = max(0, maxConnections)
        config.descriptorReserve = max(0, fdReserve)
        config.maxConnectionsPerIP = max(0, maxConnectionsPerIP)
        do {
            config.trustedProxies = try IPRange.list(trustedProxy)
        } catch let e as ServerStartError {
            throw ValidationError("--trusted-proxy: \(e.description)")
        }
        let app: TernServerApp
        do {
            app = try await buildApplication(config, logger: logger)
        } catch let e as ServerStartError {
            throw ValidationError(e.description)
        }
        try await app.run()
    }

    static func defaultDataDirectory() -> String {
        let env = ProcessInfo.processInfo.environment
        let base = env["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? ((env["HOME"] ?? NSTemporaryDirectory()) + "/.local/share")
        return base + "/tern/server"
    }
}
