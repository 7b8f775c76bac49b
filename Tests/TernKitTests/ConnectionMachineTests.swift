import TernProtocol
import Testing

@testable import TernKit

@Suite("Connection state machine (no sockets, test clock)")
struct ConnectionMachineTests {
    typealias M = ConnectionMachine

    /// A machine without jitter, so delays are exact.
    func machine(_ policy: ReconnectPolicy = ReconnectPolicy()) -> M {
        M(schedule: ReconnectSchedule(policy: policy, jitterRatio: 0))
    }

    func loggedIn(_ key: String = "key-1", ping: Int = 15, pong: Int = 5) -> M.Input {
        .loggedIn(sessionKey: key, pingInterval: ping, pongTimeout: pong, reconnect: ReconnectPolicy())
    }

    /// Connects `m` at `now` and returns the effects of the whole handshake.
    func open(_ m: inout M, at now: Millis = 0) {
        expectTrue(m.handle(.connect, now: now) == [.stateChanged(.connecting), .openSocket(sessionKey: nil)])
        expectTrue(m.handle(.socketOpened, now: now).isEmpty)
        expectTrue(m.handle(loggedIn(), now: now) == [.stateChanged(.open), .connected])
    }

    @Test func scheduleFollowsSendbirdsPolicy() {
        let s = ReconnectSchedule(policy: ReconnectPolicy(), jitterRatio: 0)
        #expect((0...7).map { s.baseDelay(attempt: $0) } == [0, 2000, 4000, 8000, 16000, 20000, 20000, 20000])
        #expect(s.allows(attempt: 1_000_000))
        let limited = ReconnectSchedule(policy: ReconnectPolicy(retryCnt: 3))
        #expect(limited.allows(attempt: 2) && !limited.allows(attempt: 3))
        let jittered = ReconnectSchedule(policy: ReconnectPolicy(), jitterRatio: 0.1)
        #expect(jittered.delay(attempt: 0, random: 0.99) == 0)
        #expect(jittered.delay(attempt: 2, random: 0) == 4000)
        #expect(jittered.delay(attempt: 2, random: 0.5) == 4200)
        #expect(jittered.delay(attempt: 5, random: 0.999) < 22000)
    }

    @Test func offlineStartKeepsTryingAndItsFirstLoginIsTheConnection() {
        var m = machine()
        m.keepTrying = true
        _ = m.handle(.connect, now: 0)
        let refused = SendbirdError(.webSocketConnectionFailed, "connection refused")
        // The first attempt and its one immediate retry fail: reconnecting on the schedule, not closed.
        #expect(m.handle(.socketClosed(refused), now: 10) == [.openSocket(sessionKey: nil)])
        #expect(
            m.handle(.socketClosed(refused), now: 20) == [
                .stateChanged(.reconnecting(attempt: 1, nextAttemptAt: 2020)), .reconnectStarted,
            ])
        #expect(m.handle(.tick, now: 2020) == [.stateChanged(.reconnecting(attempt: 1, nextAttemptAt: nil)), .openSocket(sessionKey: nil)])
        _ = m.handle(.socketOpened, now: 2030)
        // The login that finally works is the first connection (the application's connect() returns).
        #expect(m.handle(loggedIn(), now: 2040) == [.stateChanged(.open), .connected])
        // A later loss is an ordinary reconnection.
        _ = m.handle(.socketClosed(refused), now: 3000)
        _ = m.handle(.socketOpened, now: 3001)
        #expect(m.handle(loggedIn(), now: 3002) == [.stateChanged(.open), .reconnectSucceeded])
        // Without a cache the same failure closes for good.
        var plain = machine()
        _ = plain.handle(.connect, now: 0)
        _ = plain.handle(.socketClosed(refused), now: 10)
        #expect(plain.handle(.socketClosed(refused), now: 20) == [.stateChanged(.closed), .closed(.connectFailed(refused))])
    }

    @Test func connectAndLogIn() {
        var m = machine()
        open(&m)
        #expect(m.state == .open)
        #expect(m.sessionKey == "key-1")
    }

    @Test func lostConnectionRetriesAtOnceThenBacksOff() {
        var m = machine()
        open(&m)
        var now: Millis = 1000
        // The socket closes: reconnection starts and the first attempt goes out at once, with the session key.
        #expect(
            m.handle(.socketClosed(SendbirdError(.webSocketConnectionClosed, "gone")), now: now) == [
                .stateChanged(.reconnecting(attempt: 0, nextAttemptAt: nil)), .reconnectStarted, .openSocket(sessionKey: "key-1"),
            ])
        var delays: [Millis] = []
        for attempt in 1...7 {
            let effects = m.handle(.socketClosed(SendbirdError(.webSocketConnectionFailed, "refused")), now: now)
            guard case .reconnecting(let a, .some(let due)) = m.state else {
                Issue.record("expected a scheduled attempt, got \(m.state)")
                return
            }
            #expect(a == attempt)
            #expect(effects == [.stateChanged(.reconnecting(attempt: attempt, nextAttemptAt: due))])
            delays.append(due - now)
            // Nothing happens before the due time…
            expectTrue(m.handle(.tick, now: due - 1).isEmpty)
            // …and at it, the next attempt starts.
            expectTrue(m.handle(.tick, now: due).contains(.openSocket(sessionKey: "key-1")))
            now = due
        }
        #expect(delays == [2000, 4000, 8000, 16000, 20000, 20000, 20000])
        // The attempt succeeds.
        _ = m.handle(.socketOpened, now: now)
        expectTrue(m.handle(loggedIn("key-2"), now: now) == [.stateChanged(.open), .reconnectSucceeded])
        #expect(m.sessionKey == "key-2")
    }

    @Test func jitterStaysWithinItsShare() {
        var m = M(schedule: ReconnectSchedule(policy: ReconnectPolicy(), jitterRatio: 0.1), seed: 42)
        open(&m)
        _ = m.handle(.socketClosed(SendbirdError(.webSocketConnectionClosed, "gone")), now: 0)
        _ = m.handle(.socketClosed(SendbirdError(.webSocketConnectionFailed, "refused")), now: 0)
        guard case .reconnecting(_, .some(let due)) = m.state else {
            Issue.record("not scheduled")
            return
        }
        #expect(due >= 2000 && due <= 2200)
    }

    @Test func pingWatchdog() {
        var m = machine()
        open(&m, at: 0)
        #expect(m.nextDeadline == 15000)
        // Outgoing frames postpone the ping.
        _ = m.handle(.frameSent, now: 10000)
        expectTrue(m.handle(.tick, now: 15000).isEmpty)
        expectTrue(m.handle(.tick, now: 25000) == [.sendPing])
        // A PONG (any frame) within pong_timeout keeps the connection.
        _ = m.handle(.frameReceived, now: 26000)
        expectTrue(m.handle(.tick, now: 30001).isEmpty)
        #expect(m.state == .open)
        // No answer to the next ping within 5 s: the socket is dropped and reconnection starts.
        expectTrue(m.handle(.tick, now: 40000) == [.sendPing])
        let effects = m.handle(.tick, now: 45000)
        #expect(effects.contains(.closeSocket))
        #expect(effects.contains(.reconnectStarted))
        #expect(effects.contains(.openSocket(sessionKey: "key-1")))
        #expect(m.lastError?.code == .webSocketConnectionClosed)
    }

    @Test func pingIntervalComesFromLogin() {
        var m = machine()
        _ = m.handle(.connect, now: 0)
        _ = m.handle(.socketOpened, now: 0)
        _ = m.handle(loggedIn(ping: 3, pong: 1), now: 0)
        expectTrue(m.handle(.tick, now: 3000) == [.sendPing])
        expectTrue(m.handle(.tick, now: 4000).contains(.reconnectStarted))
    }

    @Test func loginTimeoutRetriesOnceThenFails() {
        var m = machine()
        _ = m.handle(.connect, now: 0)
        _ = m.handle(.socketOpened, now: 0)
        expectTrue(m.handle(.tick, now: 9999).isEmpty)
        expectTrue(m.handle(.tick, now: 10000) == [.closeSocket, .openSocket(sessionKey: nil)])
        let effects = m.handle(.tick, now: 20000)
        #expect(effects.contains(.closeSocket))
        guard case .closed(.connectFailed(let e))? = effects.last else {
            Issue.record("expected connectFailed, got \(effects)")
            return
        }
        #expect(e.code == .loginTimeout)
        #expect(m.state == .closed)
    }

    @Test func refusedLoginIsFinal() {
        var m = machine()
        _ = m.handle(.connect, now: 0)
        _ = m.handle(.socketOpened, now: 0)
        let bad = SendbirdError(.invalidAccessToken, "Invalid access token.")
        expectTrue(m.handle(.loginRefused(bad), now: 5) == [.stateChanged(.closed), .closeSocket, .closed(.refused(bad))])
        #expect(m.nextDeadline == nil)
        expectTrue(m.handle(.tick, now: 100_000).isEmpty)
    }

    @Test func expiredSessionKeyFallsBackToTheToken() {
        var m = machine()
        open(&m)
        _ = m.handle(.socketClosed(SendbirdError(.webSocketConnectionClosed, "gone")), now: 100)
        _ = m.handle(.socketOpened, now: 100)
        let effects = m.handle(.loginRefused(SendbirdError(.sessionKeyExpired, "expired")), now: 110)
        #expect(effects == [.closeSocket, .openSocket(sessionKey: nil)])
        #expect(m.sessionKey == nil)
        _ = m.handle(.socketOpened, now: 120)
        expectTrue(m.handle(loggedIn("fresh"), now: 130) == [.stateChanged(.open), .reconnectSucceeded])
    }

    @Test func aSessionKeyTheServerNoLongerKnowsFallsBackToTheToken() {
        // A server restarted after the session expired (and was purged) says 400302 to the key.
        var m = machine()
        open(&m)
        _ = m.handle(.socketClosed(SendbirdError(.webSocketConnectionClosed, "gone")), now: 100)
        _ = m.handle(.socketOpened, now: 100)
        let unknown = SendbirdError(.invalidAccessToken, "Invalid value: \"Session-Key\".")
        #expect(m.handle(.loginRefused(unknown), now: 110) == [.closeSocket, .openSocket(sessionKey: nil)])
        // With the token, the same refusal is final.
        _ = m.handle(.socketOpened, now: 120)
        let effects = m.handle(.loginRefused(unknown), now: 130)
        #expect(effects.contains(.closed(.refused(unknown))))
    }

    @Test func sessionExpiredWhileOpenReconnectsWithToken() {
        var m = machine()
        open(&m)
        let effects = m.handle(.sessionExpired, now: 50)
        #expect(effects.contains(.closeSocket))
        #expect(effects.contains(.openSocket(sessionKey: nil)))
    }

    @Test func busyWaitsRetryAfter() {
        var m = machine()
        open(&m)
        let effects = m.handle(.busy(retryAfter: 7), now: 1000)
        #expect(effects == [.stateChanged(.reconnecting(attempt: 0, nextAttemptAt: 8000)), .closeSocket, .reconnectStarted])
        expectTrue(m.handle(.tick, now: 7999).isEmpty)
        expectTrue(m.handle(.tick, now: 8000).contains(.openSocket(sessionKey: "key-1")))
    }

    @Test func retryCountRunsOut() {
        var m = machine(ReconnectPolicy(interval: 1, maxInterval: 1, mul: 1, retryCnt: 2))
        _ = m.handle(.connect, now: 0)
        _ = m.handle(.socketOpened, now: 0)
        _ = m.handle(
            .loggedIn(
                sessionKey: "k", pingInterval: 15, pongTimeout: 5, reconnect: ReconnectPolicy(interval: 1, maxInterval: 1, mul: 1, retryCnt: 2)),
            now: 0)
        let gone = SendbirdError(.webSocketConnectionFailed, "refused")
        _ = m.handle(.socketClosed(gone), now: 0)  // attempt 0 at once
        _ = m.handle(.socketClosed(gone), now: 0)  // attempt 1 due at 1000
        _ = m.handle(.tick, now: 1000)
        let effects = m.handle(.socketClosed(gone), now: 1000)
        #expect(effects.contains(.reconnectFailed(gone)))
        #expect(effects.last == .closed(.reconnectFailed(gone)))
    }

    @Test func disconnectStopsEverything() {
        var m = machine()
        open(&m)
        expectTrue(m.handle(.disconnect, now: 10) == [.stateChanged(.closed), .closeSocket, .closed(.requested)])
        expectTrue(m.handle(.socketClosed(SendbirdError(.webSocketConnectionClosed, "x")), now: 20).isEmpty)
        expectTrue(m.handle(.tick, now: 60_000).isEmpty)
    }

    @Test func revokedSessionCloses() {
        var m = machine()
        open(&m)
        let e = SendbirdError(.sessionTokenRevoked, "revoked")
        expectTrue(m.handle(.sessionRevoked(e), now: 5).last == .closed(.refused(e)))
    }
}
