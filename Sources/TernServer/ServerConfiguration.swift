import Foundation

/// Milliseconds since 1970, injectable so tests can control time.
public protocol ServerClock: Sendable {
    func nowMs() -> Int64
}

/// The wall clock.
public struct SystemClock: ServerClock {
    public init() {}
    public func nowMs() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}

/// Everything `buildApplication` needs to know; `ternd serve` fills it from its options.
public struct ServerConfiguration: Sendable {
    public var host: String
    /// 0 takes any free port.
    public var port: Int
    /// Where the SQLite database (unless `databaseURL` names PostgreSQL), uploaded files and the
    /// generated API token live.
    public var dataDirectory: String
    /// A PostgreSQL URL (`postgres://USER[:PASSWORD]@HOST:PORT/DB`): the store is PostgreSQL, and
    /// several nodes may share it. nil: SQLite in `dataDirectory`.
    public var databaseURL: String?
    /// This node's id among the nodes on one PostgreSQL database (nil: made up at start).
    public var nodeId: String?
    /// The application id clients must send as `ai`.
    public var appId: String
    /// The Platform API token (`Api-Token` header).
    public var apiToken: String
    /// Only users holding an issued access token may connect.
    public var requireAccessToken: Bool
    /// Allow a non-loopback address without `requireAccessToken`.
    public var insecure: Bool
    /// Flood protection: messages per second per user (Sendbird: 5). 0 turns it off.
    public var maxMessagesPerSecond: Double
    /// Session key lifetime in seconds; 0 = never expires.
    public var sessionLifetime: Int64
    /// Simultaneous WebSocket connections per user (Sendbird: 30).
    public var maxConnectionsPerUser: Int
    /// Largest WebSocket message accepted or sent, in bytes.
    public var maxFrameSize: Int
    /// Bytes queued for one connection before it is cut off as a slow consumer.
    public var outboundQueueLimit: Int
    /// Longest user message, in characters.
    public var maxMessageLength: Int
    /// Most members a group channel may have (Sendbird's default is 100).
    public var maxGroupChannelMembers = 100
    /// Most group channels one user may belong to (joined or invited); Sendbird's is 2,000.
    public var maxChannelsPerUser = 2000
    /// Chat history on: new members see what was sent before they joined, and their read receipt starts at the
    /// last message; off: they see only what comes after their invitation, and their receipt starts at 0.
    public var chatHistoryForNewMembers = true
    /// Open channels: messages per second broadcast in one channel (Sendbird: 5); the excess is stored and
    /// reaches only operators. 0 turns it off.
    public var openChannelMessagesPerSecond: Double = 5
    /// Open channels: how often (ms) a changed participant count goes out as `MCNT`.
    public var participantCountInterval = 1000
    /// Open channels one connection may be in at once (Sendbird: 10).
    public var maxEnteredOpenChannels = 10
    /// Participants one open channel holds (Sendbird's classic open channels: 1,000).
    public var maxOpenChannelParticipants = 1000
    /// Seed 003's invitation option: leave users out of an invitation when the inviter blocks them or they block
    /// the inviter (Sendbird's default: include them).
    public var excludeBlockedInvitees = false
    /// Largest file one upload may carry, in MB (`LOGI` `file_upload_size_limit`).
    public var fileUploadSizeLimitMB = 25
    /// Link previews: read pages that messages link to (off in tests that must not reach out).
    public var linkPreviews = true
    /// Also read pages on this machine or a private network for link previews (off by default).
    public var linkPreviewsPrivateHosts = false
    /// `IP:port` endpoints link previews may read although private (a test's stand-in for a
    /// public page; a redirect elsewhere on the private network is still refused).
    public var linkPreviewsExceptions: Set<String> = []
    /// A link preview's limits: body bytes, redirects, and the deadline of the whole fetch.
    public var linkPreviewLimits = OutboundHTTP.Limits()
    /// Link previews running at once, in the server and for one sender (the rest get none).
    public var linkPreviewsAtOnce = 8
    public var linkPreviewsPerUser = 2
    /// Peers whose `X-Forwarded-For` / `Forwarded` headers are believed (a load balancer on this
    /// machine, say): the client is the rightmost forwarded address that is not one of them. From
    /// any other peer the headers are ignored and the peer is the client.
    public var trustedProxies: [IPRange] = []
    /// After an event loop has written its waiting sockets, it waits this long before the next
    /// round so that frames arriving meanwhile share one write per socket. Bounds the latency it
    /// adds (the first frame after a quiet spell goes at once); 0 turns it off.
    public var writeCoalescingMicroseconds: Int64
    /// A graceful shutdown tells connected clients `BUSY` with this `retry_after` (s; 0: no notice).
    public var busyRetryAfter: Double = 3
    /// A connection must send its first request head (the HTTP request or the WebSocket upgrade)
    /// within this many seconds, or it is closed: idle and slowloris sockets do not pile up.
    public var handshakeTimeout: Double = 5
    /// The translation provider of `…/messages/{id}/translation`: a shell command that reads the
    /// text on standard input and writes its translation to standard output, with the target
    /// language in `TERN_TARGET_LANG` (nil: translation is not available, 400111).
    public var translationCommand: String?
    /// A GDPR request (`/v3/privacy/gdpr`) is carried out this many seconds after it is registered;
    /// until then it may be cancelled, as on Sendbird (0: at once).
    public var gdprDelaySeconds: Double = 60
    /// An HTTP keep-alive connection idle this long between requests is closed (seconds).
    public var httpIdleTimeout: Double = 30
    /// A WebSocket must be logged in (its `LOGI` sent) within this many seconds of the upgrade.
    public var loginTimeout: Double = 10
    /// Most connections open at once; 0: the open-file limit less ``descriptorReserve``. At the
    /// cap the oldest connection still in its handshake makes room; with none, a new one is closed.
    public var maxConnections = 0
    /// Descriptors kept free for the database, uploads and logs (at most a quarter of the limit).
    public var descriptorReserve = 128
    /// Most connections from one address at once (0: no cap).
    public var maxConnectionsPerIP = 0
    /// PEM certificate chain and private key: serve `https://` and `wss://` (both or neither).
    public var tlsCertificatePath: String?
    public var tlsKeyPath: String?
    /// Called with the bound address once the server listens.
    public var onListening: (@Sendable (String, Int) async -> Void)?
    public var clock: any ServerClock

    public init(
        host: String = "127.0.0.1", port: Int = 0, dataDirectory: String, appId: String = "LOCAL", apiToken: String,
        requireAccessToken: Bool = false, insecure: Bool = false, maxMessagesPerSecond: Double = 5,
        sessionLifetime: Int64 = 7 * 24 * 3600, maxConnectionsPerUser: Int = 30, maxFrameSize: Int = 1 << 20,
        outboundQueueLimit: Int = 4 << 20, maxMessageLength: Int = 5000, writeCoalescingMicroseconds: Int64 = 2000,
        onListening: (@Sendable (String, Int) async -> Void)? = nil, clock: any ServerClock = SystemClock()
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.appId = appId
        self.apiToken = apiToken
        self.requireAccessToken = requireAccessToken
        self.insecure = insecure
        self.maxMessagesPerSecond = maxMessagesPerSecond
        self.sessionLifetime = sessionLifetime
        self.maxConnectionsPerUser = maxConnectionsPerUser
        self.maxFrameSize = maxFrameSize
        self.outboundQueueLimit = outboundQueueLimit
        self.maxMessageLength = maxMessageLength
        self.writeCoalescingMicroseconds = writeCoalescingMicroseconds
        self.onListening = onListening
        self.clock = clock
    }

    /// The connection cap in force (``maxConnections``, else what the open-file limit leaves once
    /// the descriptors already open — the database, the event loops — and the reserve, at most a
    /// quarter of the limit, are set aside).
    public func connectionCap(openFileLimit: Int, alreadyOpen: Int) -> Int {
        if maxConnections > 0 { return maxConnections }
        return max(1, openFileLimit - alreadyOpen - min(descriptorReserve, openFileLimit / 4))
    }

    /// Whether `host` only accepts connections from this machine.
    public var isLoopback: Bool {
        let h = host.lowercased()
        return h == "localhost" || h == "::1" || h == "[::1]" || h.hasPrefix("127.")
    }
}

/// Why the server refused to start.
public struct ServerStartError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The data directory's protection: it holds every message, profile and secret, so it is made
/// readable by its owner only (0700, files 0600) whatever the process's umask.
public enum DataDirectory {
    /// Files and directories the process creates from now on are its owner's only (umask 077).
    /// `ternd` and `tern`'s embedded server call it first thing.
    public static func restrictNewFiles() { umask(0o077) }

    /// Creates `path` (0700) if needed. Returns a warning when an existing directory is open to
    /// its group or to others (it is left as it is: an operator may share it on purpose).
    @discardableResult
    public static func prepare(_ path: String) throws -> String? {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: path, isDirectory: &isDir) {
            guard isDir.boolValue else { throw ServerStartError("\(path) is not a directory") }
            let mode = ((try? fm.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber)?.intValue ?? 0
            if mode & 0o077 != 0 {
                return "the data directory \(path) is readable by other users (mode \(String(mode, radix: 8))): chmod 700 it"
            }
            return nil
        }
        try fm.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // `createDirectory` applies the umask; say it again.
        try fm.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
        return nil
    }

    /// Takes the data directory for this process (an exclusive `flock` on `DATA/ternd.pid`, which
    /// names the holder's pid), held until the process exits: two servers on one data directory would
    /// share one database while each delivers only what it sent itself (a split brain). Throws a
    /// ``ServerStartError`` naming the process that holds it.
    public static func claim(_ path: String, by role: String) throws {
        try prepare(path)
        let file = (path as NSString).appendingPathComponent("ternd.pid")
        let fd = open(file, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ServerStartError("cannot open \(file): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var buffer = [UInt8](repeating: 0, count: 256)
            let n = pread(fd, &buffer, buffer.count, 0)
            close(fd)
            let holder = String(decoding: buffer.prefix(max(0, n)), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            let parts = holder.split(separator: " ", maxSplits: 1).map(String.init)
            let pid = parts.first ?? ""
            let what = parts.count > 1 ? parts[1] : ""
            let who =
                what == "embedded"
                ? "the embedded server that tern started (pid \(pid)); stop it with `tern --stop-server`, or give this server a --data-dir of its own"
                : "another ternd (pid \(pid.isEmpty ? "unknown" : pid)); stop it first, or give this server a --data-dir of its own"
            throw ServerStartError("the data directory \(path) is in use by \(who). Two servers must never share one data directory.")
        }
        let text = "\(getpid()) \(role)\n"
        _ = ftruncate(fd, 0)
        _ = text.withCString { pwrite(fd, $0, strlen($0), 0) }
        // The descriptor stays open (and the lock held) until the process exits.
    }

    /// Makes each existing file 0600 (the database and its WAL and shared-memory files, which
    /// earlier versions left 0644).
    public static func restrictFiles(_ paths: [String]) {
        for p in paths where FileManager.default.fileExists(atPath: p) {
            try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: p)
        }
    }
}
