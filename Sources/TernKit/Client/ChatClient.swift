import Foundation
public import Logging
import NIOCore
import NIOSSL
public import TernProtocol

/// The client engine: one user's connection to a server, the channels they are in, their
/// messages, unread counts, receipts and typing, with a Sendbird-SDK-like async API. Every
/// change is published on ``events()``.
///
/// The connection itself is the value-type ``ConnectionMachine``; this actor feeds it socket
/// events and time, and performs what it asks for.
///
/// The actor runs on ``home``, the event loop that carries its WebSocket: a frame is read, handled
/// and published on one thread.
public actor ChatClient {
    public let configuration: ClientConfiguration
    /// The event loop this engine, its socket, its timers and its collections run on.
    public nonisolated let home: ClientLoop
    public nonisolated var unownedExecutor: UnownedSerialExecutor { home.unownedExecutor }
    public nonisolated let rest: RESTClient
    /// The TLS settings of `https://` and `wss://` (the system's roots plus the configuration's CA file).
    let tls: TLSConfiguration
    /// Why the configuration's CA file could not be used: every connection attempt fails with it.
    let tlsProblem: SendbirdError?
    let clock: any EngineClock
    let logger: Logger
    let hub = EventHub()
    /// Events held back while a socket read is handled (``batchingEvents(_:)``); nil: none is.
    var eventBatch: [ClientEvent]?

    var machine: ConnectionMachine
    /// Where the server is now (the configuration's address, unless ``ClientConfiguration/locateServer`` moved it).
    var server: ServerAddress
    var socket: WebSocketConnection?
    var generation = 0
    var token: String?
    /// The loop's timer for the next tick, and when it fires (timers run between connect and disconnect).
    var ticker: Scheduled<Void>?
    /// Which arming the ticker is (a timer that fired just as it was replaced is not the current one).
    var tickerArming = 0
    var wakes = WakeSchedule()

    var loginWaiters: [CheckedContinuation<User, any Error>] = []
    var acks: [String: AckWaiter] = [:]

    public internal(set) var currentUser: User?
    var store: ChannelStore
    var typing: TypingTracker
    var typingOut: TypingThrottle
    var reads: ReadThrottle
    /// Delivery receipts (`MACK`), at most one per channel per ``deliveryAckInterval``: the first
    /// message's at once, the rest of a burst in one trailing receipt (the server dates it on
    /// arrival, so it covers every message before it). Trailing receipts fall due on a
    /// ``deliveryAckGrid``, several channels' together.
    var deliveryAcks = ReadThrottle(interval: ChatClient.deliveryAckInterval, grid: ChatClient.deliveryAckGrid)
    /// The newest message id each pending delivery receipt is for.
    var undeliveredUpTo: [String: Int64] = [:]
    /// Delivery receipts sent since the start (tests).
    var deliveryAcksSent = 0
    static let deliveryAckInterval: Millis = 500
    static let deliveryAckGrid: Millis = 100
    /// Channels on screen: open ones (their messages do not count as unread) and shown ones not seen yet; both kept current.
    var onScreen = ChannelsOnScreen()
    /// Channels read because an event named them (unknown ones, changed ones), and their generations: a read
    /// started before the channel left the list must not bring it back.
    var channelReads = ChannelReads()
    /// The user's totals that came with a channel event, for the removal that event leads to.
    var serverTotals: [String: UnreadCount] = [:]
    /// Messages whose deletion was already announced (the deleter hears it twice: answer and `DELM`).
    var deletedSeen: [Int64] = []
    /// The per-user key that downloads files (`LOGI` `ekey`).
    var fileKey: String?
    /// Largest upload, in MB (`LOGI` `file_upload_size_limit`).
    var fileSizeLimitMB = 25
    /// Uploads in progress by request id.
    var uploads: [String: UploadHandle] = [:]
    /// Whether the blocked-user list has been read since login.
    var blockedLoaded = false
    /// Open channels the user is in (entered on this connection; entered again after a reconnection), and
    /// those known from lists and lookups (for the REST paths of their messages).
    var openChannels = OpenChannelRoster()
    var channelListToken: String?
    public internal(set) var hasMoreChannels = true

    /// The offline cache (nil when the configuration names no directory).
    public nonisolated let cache: LocalCache?
    /// The catch-up after each login: its run, the login's time, the changelog token, the channels current.
    var catchUp = CatchUp()
    /// Messages waiting for the connection, in the order written, and failed ones that go again by themselves.
    var outbox = Outbox<OutboxWaiter>(autoResendCodes: ChatClient.autoResendCodes)
    /// Live messages written to the cache since its size was last checked.
    var liveWrites = 0

    struct AckWaiter {
        var continuation: CheckedContinuation<Frame, any Error>
        var timeout: Task<Void, Never>
    }

    /// `home`: the event loop to run on (nil: one of the process's shared group).
    public init(configuration: ClientConfiguration, clock: any EngineClock = SystemEngineClock(), logger: Logger? = nil, home: ClientLoop? = nil) {
        self.home = home ?? ClientLoop.next()
        self.configuration = configuration
        self.server = configuration.server
        self.clock = clock
        self.logger = logger ?? Logger(label: "tern.kit")
        do {
            tls = try configuration.tlsConfiguration()
            tlsProblem = nil
        } catch {
            // Fail closed: nothing is trusted, and connect() says why.
            var none = TLSConfiguration.makeClientConfiguration()
            none.trustRoots = .certificates([])
            tls = none
            tlsProblem = (error as? SendbirdError) ?? SendbirdError(.invalidParameter, "CA file: \(error)")
        }
        rest = RESTClient(
            baseURL: configuration.server.apiBase, appId: configuration.appId, timeout: Double(configuration.requestTimeout) / 1000, tls: tls)
        var schedule = ReconnectSchedule(jitterRatio: configuration.reconnectJitter)
        if let p = configuration.reconnectPolicy { schedule.policy = p }
        machine = ConnectionMachine(schedule: schedule, seed: UInt64.random(in: 1...UInt64.max))
        store = ChannelStore(me: configuration.userId)
        typing = TypingTracker(expiry: configuration.typingExpiry)
        typingOut = TypingThrottle(interval: configuration.typingThrottle)
        reads = ReadThrottle(interval: configuration.markAsReadInterval)
        var opened: LocalCache?
        if let dir = configuration.cacheDirectory {
            let file =
                dir + "/"
                + LocalCache.fileName(
                    server: configuration.server, appId: configuration.appId, userId: configuration.userId, name: configuration.cacheName)
            let owner = "\(configuration.cacheName ?? configuration.server.apiBase)|\(configuration.appId)|\(configuration.userId)"
            do {
                opened = try LocalCache(path: file, owner: owner, maxBytes: configuration.cacheMaxBytes, logger: self.logger)
            } catch {
                self.logger.warning("no offline cache: \(error)")
            }
        }
        cache = opened
        machine.keepTrying = configuration.waitForServer
        if let opened {
            let cached = opened.channels()
            for c in cached { store.upsert(c) }
            store.resetTotal(UnreadCount(all: cached.reduce(0) { $0 + $1.unreadMessageCount }, ts: 0))
            // Seen before: a first connection that fails waits for the server instead of giving up.
            machine.keepTrying = configuration.waitForServer || opened.user != nil
            currentUser = opened.user
        }
    }

    /// Whether the engine started with a cache holding an earlier session (it can show it offline).
    public var hasOfflineData: Bool { cache?.user != nil }

    // MARK: - Events and state

    /// A new subscription to every event from now on.
    public nonisolated func events() -> AsyncStream<ClientEvent> { hub.subscribe() }

    /// The same, a batch at a time: the events of one socket read together (a message is three or
    /// four), in order. A subscriber that draws or reduces once per batch does its work once.
    public nonisolated func eventBatches() -> AsyncStream<[ClientEvent]> { hub.subscribeBatches() }

    public var connectionState: ConnectionState { machine.state }
    /// When the next reconnection attempt starts, while waiting for one.
    public var nextReconnectAt: Millis? {
        if case .reconnecting(_, let at) = machine.state { return at }
        return nil
    }
    public var lastConnectionError: SendbirdError? { machine.lastError }

    /// Known channels, latest activity first.
    public var channels: [GroupChannel] { store.ordered }
    public func cachedChannel(_ url: String) -> GroupChannel? { store[url] }
    /// The user's unread messages over all channels.
    public var totalUnreadCount: Int { store.totalUnread }
    /// Channels with unread messages (among those loaded).
    public var unreadChannelCount: Int { store.unreadChannelCount }
    public func unreadCount(in url: String) -> Int { store[url]?.unreadMessageCount ?? 0 }
    /// Users typing in `url` now (expired typers removed).
    public func typers(in url: String) -> [User] { typing.typers(in: url) }

    var me: String { configuration.userId }
    var sessionKey: String? { machine.sessionKey }

    // MARK: - Connect and disconnect

    /// Connects and logs in; returns the user when the server's `LOGI` accepted us. Throws the
    /// server's refusal (e.g. 400302 bad token) or the connection failure (800210, 800190).
    @discardableResult
    public func connect() async throws -> User {
        if case .open = machine.state, let currentUser { return currentUser }
        if let tlsProblem { throw tlsProblem }
        if case .closed = machine.state {
            token = try configuration.token.resolve()
            wakes.start()
        }
        return try await withCheckedThrowingContinuation { cont in
            loginWaiters.append(cont)
            apply(machine.handle(.connect, now: clock.now()))
        }
    }

    /// Closes the connection; no reconnection follows.
    public func disconnect() {
        apply(machine.handle(.disconnect, now: clock.now()))
        wakes.stop()
        ticker?.cancel()
        ticker = nil
    }

    /// Disconnects and ends every event stream.
    public func shutdown() {
        disconnect()
        cache?.flushPending()
        hub.finish()
    }

    /// Drops the socket as a network failure would (the engine reconnects by itself).
    public func simulateNetworkLoss() {
        socket?.abort()
    }

    /// The earliest timer: the connection machine's deadline, a typing expiry, a deferred read.
    var nextWake: Millis? { [machine.nextDeadline, typing.nextExpiry, reads.nextDue, deliveryAcks.nextDue].compactMap { $0 }.min() }

    /// Sleeps until the earliest timer — nothing wakes while none is due (no polling). A timer set later than
    /// the armed one waits for it (the tick re-arms); an earlier one re-arms now.
    func armTicker() {
        guard let delay = wakes.arm(for: nextWake, now: clock.now(), minimumDelay: configuration.tickInterval / 10) else { return }
        ticker?.cancel()
        tickerArming += 1
        let tasks = home.tasks
        let arming = tickerArming
        ticker = home.after(milliseconds: delay) { [weak self] in
            Task(executorPreference: tasks) { await self?.tickerFired(arming) }
        }
    }

    func tickerFired(_ arming: Int) {
        guard arming == tickerArming, ticker != nil else { return }
        ticker = nil
        wakes.fired()
        tick()
    }

    /// Runs due timers: reconnection, ping watchdog, login timeout, typing expiry, deferred reads.
    public func tick() {
        let now = clock.now()
        if let due = machine.nextDeadline, now >= due {
            apply(machine.handle(.tick, now: now))
        }
        for (url, user) in typing.expire(now: now) {
            emit(.typingEnded(channelUrl: url, user: user, expired: true))
        }
        for url in reads.takeDue(now: now) {
            Task { try? await self.sendRead(url) }
        }
        for url in deliveryAcks.takeDue(now: now) { sendDeliveryAck(url) }
        armTicker()
    }

    // MARK: - Machine effects

    func apply(_ effects: [ConnectionMachine.Effect]) {
        defer { armTicker() }
        for effect in effects {
            switch effect {
            case .openSocket(let key):
                openSocket(sessionKey: key)
            case .closeSocket:
                closeSocket(SendbirdError(.webSocketConnectionClosed, "connection closed"))
            case .sendPing:
                let ping = try? Frame(command: .ping, PingPayload(id: clock.now(), ts: nil))
                if let ping { socket?.send([ping]) }
            case .stateChanged(let state):
                emit(.connectionStateChanged(state))
            case .connected:
                if let user = currentUser {
                    let waiters = loginWaiters
                    loginWaiters = []
                    for w in waiters { w.resume(returning: user) }
                    emit(.connected(user))
                }
                let ts = catchUp.loginTs
                Task {
                    if self.cache != nil {
                        await self.syncAfterLogin(loginTs: ts, first: true)
                    } else {
                        await self.runOutbox()
                    }
                }
            case .reconnectStarted:
                catchUp.connectionLost()
                for (url, user) in typing.clear() { emit(.typingEnded(channelUrl: url, user: user, expired: true)) }
                emit(.reconnectStarted)
            case .reconnectSucceeded:
                typingOut.reset()
                emit(.reconnectSucceeded)
                let ts = catchUp.loginTs
                Task {
                    await self.reenterOpenChannels()
                    await self.syncAfterLogin(loginTs: ts, first: false)
                }
            case .reconnectFailed(let error):
                emit(.reconnectFailed(error))
            case .closed(let reason):
                closeSocket(SendbirdError(.connectionCanceled, "disconnected"))
                let error: SendbirdError
                switch reason {
                case .requested: error = SendbirdError(.connectionCanceled, "disconnected")
                case .refused(let e), .connectFailed(let e), .reconnectFailed(let e): error = e
                }
                let waiters = loginWaiters
                loginWaiters = []
                for w in waiters { w.resume(throwing: error) }
                // No connection is coming: what waited in the outbox fails (kept in the cache for the next start).
                for o in outbox.drain() {
                    var failed = o.message
                    failed.status = .failed
                    failed.error = SendbirdError(.connectionRequired, "not connected")
                    emit(.messageFailed(failed))
                    for w in o.waiters { w.resume(returning: .failure(failed.error!)) }
                }
                emit(.disconnected(reason))
            }
        }
    }

    func openSocket(sessionKey key: String?) {
        closeSocket(SendbirdError(.webSocketConnectionClosed, "replaced by a new connection"))
        generation += 1
        let gen = generation
        var query: [(String, String)] = [
            ("p", "Tern"), ("pv", "Linux"), ("sv", TernKit.sdkVersion), ("ai", configuration.appId),
            ("active", "1"), ("expiring_session", "0"), ("use_local_cache", "0"),
            ("include_extra_data", "premium_feature_list,file_upload_size_limit,emoji_hash,multiple_file_send_max_size"),
        ]
        var headers: [String: String] = [:]
        if let key {
            headers["SENDBIRD-WS-AUTH"] = key
        } else {
            query.insert(("user_id", configuration.userId), at: 4)
            if let token { headers["SENDBIRD-WS-TOKEN"] = token }
        }
        if let locate = configuration.locateServer, let now = locate(), now != server {
            logger.info("the server moved from \(server.apiBase) to \(now.apiBase)")
            server = now
            rest.rebase(now.apiBase)
        }
        let url = RESTClient.path(server.webSocketBase + "/", query)
        // The socket reports on `home`'s loop, this actor's executor: each event is handled in the
        // same call, with no task or queue between the socket and the engine.
        socket = WebSocketConnection(url: url, headers: headers, tls: tls, logger: logger, home: home) { [weak self] event in
            self?.assumeIsolated { $0.transport(event, generation: gen) }
        }
    }

    /// How many reads of the current socket happened on ``home``'s thread, and how many elsewhere (tests).
    var socketReads: (onHome: Int, elsewhere: Int) {
        socket?.reads.counts ?? (0, 0)
    }

    func closeSocket(_ reason: SendbirdError) {
        if let s = socket {
            s.close()
            socket = nil
        }
        failAcks(reason)
    }

    func failAcks(_ error: SendbirdError) {
        let waiting = acks
        acks = [:]
        for (_, w) in waiting {
            w.timeout.cancel()
            w.continuation.resume(throwing: error)
        }
    }

    // MARK: - Transport events

    func transport(_ event: TransportEvent, generation gen: Int) {
        guard gen == generation else { return }
        let now = clock.now()
        switch event {
        case .opened:
            apply(machine.handle(.socketOpened, now: now))
        case .frames(let frames):
            batchingEvents {
                for frame in frames {
                    apply(machine.handle(.frameReceived, now: now))
                    handle(frame, now: now)
                    if gen != generation { return }
                }
            }
        case .closed(let error):
            socket = nil
            failAcks(error)
            apply(machine.handle(.socketClosed(error), now: now))
        }
    }

    func send(_ frames: [Frame]) {
        guard let socket else { return }
        socket.send(frames)
        apply(machine.handle(.frameSent, now: clock.now()))
    }

    /// Sends an acknowledged command and waits for the answer with the same `req_id` (or the
    /// `EROR` carrying it). Times out with 800180.
    func request(_ frame: Frame, reqId: String) async throws -> Frame {
        guard socket != nil, case .open = machine.state else {
            throw SendbirdError(.connectionRequired, "not connected")
        }
        let timeoutMs = configuration.ackTimeout
        return try await withCheckedThrowingContinuation { cont in
            let timeout = Task { [weak self] in
                try? await Task.sleep(for: .milliseconds(timeoutMs))
                guard !Task.isCancelled else { return }
                await self?.ackTimedOut(reqId)
            }
            acks[reqId] = AckWaiter(continuation: cont, timeout: timeout)
            send([frame])
        }
    }

    func ackTimedOut(_ reqId: String) {
        guard let w = acks.removeValue(forKey: reqId) else { return }
        w.continuation.resume(throwing: SendbirdError(.ackTimeout, "no answer from the server within \(configuration.ackTimeout / 1000) s"))
    }

    func resolveAck(_ reqId: String?, with frame: Frame) -> Bool {
        guard let reqId, let w = acks.removeValue(forKey: reqId) else { return false }
        w.timeout.cancel()
        w.continuation.resume(returning: frame)
        return true
    }

    func newRequestId() -> String { UUID().uuidString.lowercased() }
}
