public import TernProtocol

/// Milliseconds since the Unix epoch, as every engine clock and every wire timestamp counts.
public typealias Millis = Int64

/// The connection state an application shows (Sendbird's `connecting`/`open`/`closed`, plus the
/// reconnecting phase with the time of the next attempt).
public enum ConnectionState: Sendable, Equatable, CustomStringConvertible {
    case connecting
    case open
    /// Waiting to reconnect: `nextAttemptAt` is when the next attempt starts (nil while one is under way).
    case reconnecting(attempt: Int, nextAttemptAt: Millis?)
    case closed

    public var description: String {
        switch self {
        case .connecting: "connecting"
        case .open: "open"
        case .reconnecting(let attempt, let at): "reconnecting(attempt \(attempt)\(at.map { ", at \($0)" } ?? ""))"
        case .closed: "closed"
        }
    }
}

/// Why the connection closed for good.
public enum CloseReason: Sendable, Equatable {
    /// The application disconnected.
    case requested
    /// The server refused the login (bad token, deactivated user, wrong app…); no retry helps.
    case refused(SendbirdError)
    /// The first connection could not be made.
    case connectFailed(SendbirdError)
    /// Reconnection gave up after the policy's `retry_cnt` attempts.
    case reconnectFailed(SendbirdError)
}

/// Reconnection delays: the first retry at once, then `interval · mul^(n-1)` capped at
/// `max_interval` (2, 4, 8, 16, 20, 20… s with Sendbird's defaults), plus a random jitter.
public struct ReconnectSchedule: Sendable, Equatable {
    public var policy: ReconnectPolicy
    /// Up to this fraction of a delay is added at random, so clients cut off together do not return together.
    public var jitterRatio: Double

    public init(policy: ReconnectPolicy = ReconnectPolicy(), jitterRatio: Double = 0.1) {
        self.policy = policy
        self.jitterRatio = jitterRatio
    }

    /// The delay before attempt `attempt` (0-based), without jitter, in ms.
    public func baseDelay(attempt: Int) -> Millis {
        guard attempt > 0 else { return 0 }
        let interval = max(0, policy.interval)
        let growth = power(max(1, policy.mul), Double(attempt - 1))
        let seconds = min(interval * growth, max(interval, policy.maxInterval))
        return Millis((seconds * 1000).rounded())
    }

    /// The delay with jitter; `random` is a number in [0, 1).
    public func delay(attempt: Int, random: Double) -> Millis {
        let base = baseDelay(attempt: attempt)
        return base + Millis((Double(base) * jitterRatio * min(max(random, 0), 1)).rounded(.down))
    }

    /// Whether attempt `attempt` (0-based) is still allowed (`retry_cnt` -1 means unlimited).
    public func allows(attempt: Int) -> Bool {
        policy.retryCnt < 0 || attempt < policy.retryCnt
    }
}

private func power(_ base: Double, _ exp: Double) -> Double {
    var result = 1.0
    var n = Int(exp)
    while n > 0 {
        result *= base
        n -= 1
    }
    return result
}

/// The connection as a value: inputs (socket events, frames, the clock) go in, effects (open or
/// close the socket, send a ping, tell the application) come out. No sockets, no timers: the
/// driver calls ``handle(_:)`` and performs the effects, and calls it again at ``nextDeadline``.
public struct ConnectionMachine: Sendable {
    public enum Input: Sendable, Equatable {
        /// The application asks to connect.
        case connect
        /// The application asks to disconnect.
        case disconnect
        /// The transport upgraded to a WebSocket; the server's `LOGI` comes next.
        case socketOpened
        /// A successful `LOGI`.
        case loggedIn(sessionKey: String, pingInterval: Int, pongTimeout: Int, reconnect: ReconnectPolicy)
        /// A refused `LOGI` (or an `EROR` on the login path).
        case loginRefused(SendbirdError)
        /// The socket closed or could not be opened.
        case socketClosed(SendbirdError)
        /// Any frame arrived (the watchdog counts it as life).
        case frameReceived
        /// The engine wrote a frame (pings are due only after `ping_interval` of silence).
        case frameSent
        /// `BUSY`: the server asks us to come back after `retryAfter` seconds.
        case busy(retryAfter: Double)
        /// `EROR` 400309 / `EXPR`: the session key expired; log in again with the token.
        case sessionExpired
        /// `EROR` 400302/400310 outside the login: the session is over for good.
        case sessionRevoked(SendbirdError)
        /// Time passed; the driver calls this at ``nextDeadline``.
        case tick
    }

    public enum Effect: Sendable, Equatable {
        /// Open a new socket; with `sessionKey` it authenticates with that key, else with the user's token.
        case openSocket(sessionKey: String?)
        case closeSocket
        case sendPing
        case stateChanged(ConnectionState)
        case connected
        case reconnectStarted
        case reconnectSucceeded
        case reconnectFailed(SendbirdError)
        /// The connection closed for good (disconnect, refusal, failure).
        case closed(CloseReason)
    }

    enum Phase: Sendable, Equatable {
        case idle
        /// First connection; `retried` once after a non-auth failure, as the SDKs do.
        case connecting(retried: Bool)
        case open
        /// `attempt` counts failed attempts since the connection was lost; `due` is when the next
        /// starts (nil while one is in flight).
        case reconnecting(attempt: Int, due: Millis?)
        case closed(CloseReason)
    }

    /// Time allowed from opening a socket to the server's `LOGI` (the SDKs wait 10 s).
    public var loginTimeout: Millis = 10_000
    public var schedule: ReconnectSchedule
    public private(set) var sessionKey: String?
    public private(set) var pingInterval: Millis = 15_000
    public private(set) var pongTimeout: Millis = 5_000
    /// The reason of the last lost connection or failed attempt.
    public private(set) var lastError: SendbirdError?
    /// An offline start (the engine has a cache to show): a first connection that fails for a
    /// reason that may pass (no network, server down) turns into reconnecting instead of closing,
    /// and its eventual login counts as the first connection (`connected`).
    public var keepTrying = false

    /// Whether a login has succeeded since the last `connect` from idle or closed.
    private var everConnected = false

    private(set) var phase: Phase = .idle
    private var socketOpen = false
    private var attemptStartedAt: Millis?
    private var lastSentAt: Millis = 0
    private var lastReceivedAt: Millis = 0
    private var pingSentAt: Millis?
    private var random: SplitMix64

    public init(schedule: ReconnectSchedule = ReconnectSchedule(), seed: UInt64 = 0x7E52_4E00) {
        self.schedule = schedule
        self.random = SplitMix64(seed: seed)
    }

    /// The state an application shows.
    public var state: ConnectionState {
        switch phase {
        case .idle, .closed: .closed
        case .connecting: .connecting
        case .open: .open
        case .reconnecting(let attempt, let due): .reconnecting(attempt: attempt, nextAttemptAt: due)
        }
    }

    public var isClosedForGood: Bool {
        if case .closed = phase { return true }
        return false
    }

    /// When the driver must call ``handle(_:now:)`` with `.tick` next, or nil if nothing is pending.
    public var nextDeadline: Millis? {
        switch phase {
        case .idle, .closed:
            return nil
        case .connecting:
            return attemptStartedAt.map { $0 + loginTimeout }
        case .reconnecting(_, let due):
            if let due { return due }
            return attemptStartedAt.map { $0 + loginTimeout }
        case .open:
            if let pingSentAt { return pingSentAt + pongTimeout }
            return lastSentAt + pingInterval
        }
    }

    /// Feeds one input at time `now`; returns the effects to perform, in order.
    public mutating func handle(_ input: Input, now: Millis) -> [Effect] {
        var effects: [Effect] = []
        let before = state
        switch input {
        case .connect: connect(now: now, &effects)
        case .disconnect: disconnect(&effects)
        case .socketOpened:
            socketOpen = true
            lastReceivedAt = now
        case .loggedIn(let key, let ping, let pong, let policy):
            loggedIn(sessionKey: key, pingInterval: ping, pongTimeout: pong, policy: policy, now: now, &effects)
        case .loginRefused(let error): loginRefused(error, now: now, &effects)
        case .socketClosed(let error): socketClosed(error, now: now, &effects)
        case .frameReceived:
            lastReceivedAt = now
            pingSentAt = nil
        case .frameSent:
            lastSentAt = now
        case .busy(let retryAfter): busy(retryAfter: retryAfter, now: now, &effects)
        case .sessionExpired: sessionExpired(now: now, &effects)
        case .sessionRevoked(let error): sessionRevoked(error, &effects)
        case .tick: tick(now: now, &effects)
        }
        let after = state
        if after != before { effects.insert(.stateChanged(after), at: 0) }
        return effects
    }

    // MARK: - Inputs

    /// The application asks to connect: from idle or closed a first connection; while waiting to reconnect, at once.
    private mutating func connect(now: Millis, _ effects: inout [Effect]) {
        switch phase {
        case .idle, .closed:
            sessionKey = nil
            everConnected = false
            phase = .connecting(retried: false)
            startAttempt(now: now, &effects)
        case .reconnecting(let attempt, .some):
            // An explicit connect while waiting: try now.
            phase = .reconnecting(attempt: attempt, due: nil)
            startAttempt(now: now, &effects)
        case .connecting, .open, .reconnecting(_, .none):
            break
        }
    }

    /// The application asks to disconnect: the socket closes, the connection is over.
    private mutating func disconnect(_ effects: inout [Effect]) {
        switch phase {
        case .idle, .closed:
            break
        default:
            if socketOpen || attemptStartedAt != nil { effects.append(.closeSocket) }
            finish(.requested, &effects)
        }
    }

    /// A successful `LOGI`: the session's key, ping timings and reconnection policy; open.
    private mutating func loggedIn(
        sessionKey key: String, pingInterval ping: Int, pongTimeout pong: Int, policy: ReconnectPolicy, now: Millis, _ effects: inout [Effect]
    ) {
        lastReceivedAt = now
        lastSentAt = now
        pingSentAt = nil
        attemptStartedAt = nil
        lastError = nil
        sessionKey = key.isEmpty ? sessionKey : key
        pingInterval = Millis(max(1, ping)) * 1000
        pongTimeout = Millis(max(1, pong)) * 1000
        schedule.policy = policy
        switch phase {
        case .connecting:
            phase = .open
            everConnected = true
            effects.append(.connected)
        case .reconnecting:
            phase = .open
            effects.append(everConnected ? .reconnectSucceeded : .connected)
            everConnected = true
        case .open, .idle, .closed:
            break
        }
    }

    /// A refused `LOGI`: a stale session key is dropped and the token tried at once; a passing problem is retried; anything else closes for good.
    private mutating func loginRefused(_ error: SendbirdError, now: Millis, _ effects: inout [Effect]) {
        attemptStartedAt = nil
        if socketOpen { effects.append(.closeSocket) }
        socketOpen = false
        lastError = error
        if Self.isSessionKeyProblem(error.code), sessionKey != nil {
            // The key is stale: log in again with the token, at once.
            sessionKey = nil
            switch phase {
            case .connecting, .reconnecting:
                startAttempt(now: now, &effects)
            default:
                break
            }
        } else if Self.isTransient(error.code) {
            attemptFailed(error, now: now, &effects)
        } else {
            switch phase {
            case .reconnecting: effects.append(.reconnectFailed(error))
            default: break
            }
            finish(.refused(error), &effects)
        }
    }

    /// The socket closed: an open connection is lost, an attempt in flight failed.
    private mutating func socketClosed(_ error: SendbirdError, now: Millis, _ effects: inout [Effect]) {
        let wasOpen = socketOpen
        socketOpen = false
        switch phase {
        case .open:
            lastError = error
            lostConnection(now: now, &effects)
        case .connecting, .reconnecting(_, .none):
            guard wasOpen || attemptStartedAt != nil else { break }
            attemptStartedAt = nil
            attemptFailed(error, now: now, &effects)
        default:
            break
        }
    }

    /// `BUSY`: the socket closes and the next attempt waits `retryAfter` seconds.
    private mutating func busy(retryAfter: Double, now: Millis, _ effects: inout [Effect]) {
        switch phase {
        case .open, .connecting, .reconnecting(_, .none):
            if socketOpen || attemptStartedAt != nil { effects.append(.closeSocket) }
            socketOpen = false
            attemptStartedAt = nil
            let wasReconnecting: Bool
            if case .reconnecting = phase { wasReconnecting = true } else { wasReconnecting = false }
            let attempt: Int
            if case .reconnecting(let a, _) = phase { attempt = a } else { attempt = 0 }
            phase = .reconnecting(attempt: attempt, due: now + Millis(max(0, retryAfter) * 1000))
            if !wasReconnecting { effects.append(.reconnectStarted) }
        default:
            break
        }
    }

    /// The session key expired: log in again with the token.
    private mutating func sessionExpired(now: Millis, _ effects: inout [Effect]) {
        sessionKey = nil
        if case .open = phase {
            effects.append(.closeSocket)
            socketOpen = false
            lastError = SendbirdError(.sessionKeyExpired, "session key expired")
            lostConnection(now: now, &effects)
        }
    }

    /// The session is over for good.
    private mutating func sessionRevoked(_ error: SendbirdError, _ effects: inout [Effect]) {
        switch phase {
        case .idle, .closed:
            break
        default:
            if socketOpen { effects.append(.closeSocket) }
            socketOpen = false
            finish(.refused(error), &effects)
        }
    }

    // MARK: - Steps

    private mutating func tick(now: Millis, _ effects: inout [Effect]) {
        switch phase {
        case .idle, .closed:
            break
        case .connecting, .reconnecting(_, .none):
            if let started = attemptStartedAt, now >= started + loginTimeout {
                effects.append(.closeSocket)
                socketOpen = false
                attemptStartedAt = nil
                attemptFailed(SendbirdError(.loginTimeout, "no LOGI from the server within \(loginTimeout / 1000) s"), now: now, &effects)
            }
        case .reconnecting(let attempt, .some(let due)):
            if now >= due {
                phase = .reconnecting(attempt: attempt, due: nil)
                startAttempt(now: now, &effects)
            }
        case .open:
            if let sent = pingSentAt {
                if now >= sent + pongTimeout {
                    effects.append(.closeSocket)
                    socketOpen = false
                    lastError = SendbirdError(.webSocketConnectionClosed, "no answer to PING within \(pongTimeout / 1000) s")
                    lostConnection(now: now, &effects)
                }
            } else if now >= lastSentAt + pingInterval {
                effects.append(.sendPing)
                pingSentAt = now
                lastSentAt = now
            }
        }
    }

    private mutating func startAttempt(now: Millis, _ effects: inout [Effect]) {
        attemptStartedAt = now
        socketOpen = false
        pingSentAt = nil
        effects.append(.openSocket(sessionKey: sessionKey))
    }

    /// The open connection was lost: start reconnecting, the first attempt at once.
    private mutating func lostConnection(now: Millis, _ effects: inout [Effect]) {
        pingSentAt = nil
        attemptStartedAt = nil
        phase = .reconnecting(attempt: 0, due: now)
        effects.append(.reconnectStarted)
        tick(now: now, &effects)
    }

    /// A connection attempt failed (socket refused, closed before LOGI, LOGI timeout, transient refusal).
    private mutating func attemptFailed(_ error: SendbirdError, now: Millis, _ effects: inout [Effect]) {
        lastError = error
        switch phase {
        case .connecting(let retried):
            if !retried && Self.isTransient(error.code) {
                phase = .connecting(retried: true)
                startAttempt(now: now, &effects)
            } else if keepTrying && Self.isTransient(error.code) {
                // Offline start: keep trying on the reconnection schedule.
                phase = .reconnecting(attempt: 1, due: now + schedule.delay(attempt: 1, random: random.nextUnit()))
                effects.append(.reconnectStarted)
            } else {
                finish(.connectFailed(error), &effects)
            }
        case .reconnecting(let attempt, _):
            let next = attempt + 1
            if schedule.allows(attempt: next) {
                phase = .reconnecting(attempt: next, due: now + schedule.delay(attempt: next, random: random.nextUnit()))
            } else {
                effects.append(.reconnectFailed(error))
                finish(.reconnectFailed(error), &effects)
            }
        default:
            break
        }
    }

    private mutating func finish(_ reason: CloseReason, _ effects: inout [Effect]) {
        phase = .closed(reason)
        socketOpen = false
        attemptStartedAt = nil
        pingSentAt = nil
        if case .refused = reason { sessionKey = nil }
        effects.append(.closed(reason))
    }

    /// Errors after which logging in again with the token may succeed. 400302 is among them: a
    /// server that lost or purged the session (a restart after it expired) does not know the key.
    static func isSessionKeyProblem(_ code: ErrorCode) -> Bool {
        code == .sessionKeyExpired || code == .invalidSessionKey || code == .invalidAccessToken
    }

    /// Errors a later attempt may not repeat (network, timeouts, server trouble, too many connections).
    static func isTransient(_ code: ErrorCode) -> Bool {
        switch code {
        case .invalidAccessToken, .sessionTokenRevoked, .userDeactivated, .userNotFoundForLogin, .applicationNotFound,
            .invalidApiToken, .unauthorizedRequest, .userIdTooLong, .invalidValue, .missingParameter:
            false
        default:
            true
        }
    }
}

/// A small deterministic random source, so a machine's jitter is reproducible from its seed.
struct SplitMix64: Sendable, Equatable {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// A number in [0, 1).
    mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
