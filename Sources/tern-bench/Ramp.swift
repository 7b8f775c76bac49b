import Foundation
import NIOCore
import Synchronization

/// What the ramp's idle connections share: whether the bench is closing them (a close is then no
/// failure) and how many dropped while the bench still needed them.
final class RampState: Sendable {
    let closing = Atomic<Bool>(false)
    let dropped = Atomic<Int>(0)
}

/// `--ramp N`: N extra WebSockets, each a distinct user that logs in and stays idle (the server
/// creates the user at login when no access token is required, so no REST calls are needed).
/// Opened in batches after setup and kept open through the measured run, so the run shows how
/// the channel fares beside them; the server's RSS before and after gives memory per connection.
struct Ramp {
    struct Step {
        let connections: Int
        let rssKB: Int?
        let seconds: Double
    }

    let requested: Int
    var steps: [Step] = []
    var failed = 0
    var firstFailures: [String] = []
    var channels: [any Channel] = []
    let state = RampState()

    /// Opens `count` idle connections, `batch` at a time, printing a line at every quarter.
    static func open(
        count: Int, batch: Int, target: WebSocketTarget, group: any EventLoopGroup, serverPid: Int32?, userPrefix: String
    ) async -> Ramp {
        var ramp = Ramp(requested: count)
        let begin = Mono.now()
        ramp.steps.append(Step(connections: 0, rssKB: serverPid.flatMap(residentKB), seconds: 0))
        let quarter = max(1, count / 4)
        var nextReport = quarter
        var attempted = 0
        while attempted < count {
            let n = min(batch, count - attempted)
            var pending: [EventLoopFuture<any Channel>] = []
            for i in attempted..<(attempted + n) {
                pending.append(openIdle(userId: userPrefix + String(i), target: target, loop: group.next(), state: ramp.state))
            }
            for future in pending {
                do {
                    ramp.channels.append(try await future.get())
                } catch {
                    ramp.failed += 1
                    if ramp.firstFailures.count < 5 { ramp.firstFailures.append("\(error)") }
                }
            }
            attempted += n
            if attempted >= nextReport || attempted == count {
                let step = Step(connections: ramp.channels.count, rssKB: serverPid.flatMap(residentKB), seconds: Double(Mono.now() - begin) / 1e9)
                ramp.steps.append(step)
                print(
                    "ramp: \(step.connections)/\(count) idle connections open, \(ramp.failed) failed, "
                        + "server RSS \(megabytes(step.rssKB)), " + String(format: "%.1f s", step.seconds))
                while nextReport <= attempted { nextReport += quarter }
            }
        }
        return ramp
    }

    /// One idle connection; the future completes once it has its `LOGI`.
    static func openIdle(userId: String, target: WebSocketTarget, loop: any EventLoop, state: RampState) -> EventLoopFuture<any Channel> {
        let ready = loop.makePromise(of: Void.self)
        let connected = WebSocketClient.connect(
            on: loop, target: target, makeHandler: { IdleHandler(ready: ready, ramp: state, target: target, userId: userId) })
        connected.whenFailure { ready.fail($0) }
        connected.whenSuccess { channel in
            channel.closeFuture.whenComplete { _ in ready.fail(BenchError(description: "closed before LOGI")) }
        }
        return connected.and(ready.futureResult).map { channel, _ in channel }
    }

    /// The report's lines: RSS at each step, memory per connection, time, failures.
    var lines: [String] {
        guard let first = steps.first, let last = steps.last else { return [] }
        var out = [
            "ramp: \(requested) idle connections requested, \(last.connections) open, \(failed) failed to connect, "
                + "\(state.dropped.load(ordering: .relaxed)) dropped later; ramp took \(String(format: "%.1f", last.seconds)) s"
        ]
        out.append("  server RSS: " + steps.map { "\($0.connections) → \(Ramp.megabytes($0.rssKB))" }.joined(separator: ", "))
        if let a = first.rssKB, let b = last.rssKB, last.connections > 0 {
            out.append(
                String(
                    format: "  memory per idle connection: %.1f kB (ΔRSS %.1f MB ÷ %d)",
                    Double(b - a) / Double(last.connections), Double(b - a) / 1024, last.connections))
        }
        for f in firstFailures { out.append("  failed: \(f)") }
        return out
    }

    /// Closes every idle connection (not counted as drops).
    func close() async {
        state.closing.store(true, ordering: .relaxed)
        for channel in channels { channel.close(promise: nil) }
        for channel in channels { try? await channel.closeFuture.get() }
    }

    /// `VmRSS` of `pid` in kB, from `/proc/PID/status`.
    static func residentKB(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.dropFirst("VmRSS:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        }
        return nil
    }

    static func megabytes(_ kB: Int?) -> String {
        kB.map { String(format: "%.1f MB", Double($0) / 1024) } ?? "?"
    }
}

/// Raises this process's open-file limit to its hard limit (every socket is a descriptor; a
/// spawned server inherits the raised limit). Returns the limit now in force.
@discardableResult
func raiseOpenFileLimit() -> UInt64 {
    var limit = rlimit()
    guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
    if limit.rlim_cur < limit.rlim_max {
        var raised = limit
        raised.rlim_cur = limit.rlim_max
        if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
    }
    return UInt64(limit.rlim_cur)
}
