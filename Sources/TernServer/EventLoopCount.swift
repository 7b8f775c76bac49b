import Foundation
import NIOCore

/// How many event loops ternd runs: one per CPU it may run on.
///
/// SwiftNIO sizes its shared group (which Hummingbird serves on) by the CPUs the cgroup allows, not
/// by the process's own CPU affinity: `taskset -c 0 ternd serve` ran two loop threads on one CPU, so
/// a message from a connection on one loop to a connection on the other woke the other thread, and
/// the two took turns on the one core (issue 35: wake-ups and preemptions per message).
/// ``matchAffinity()`` sets NIO's `NIO_SINGLETON_GROUP_LOOP_COUNT` to the affinity's CPU count when
/// that is fewer, before the group exists; a value set by hand is kept.
public enum EventLoopCount {
    /// The CPUs this process may run on (its affinity mask, `Cpus_allowed` in `/proc/self/status`),
    /// nil when it cannot be read.
    public static func allowedCPUs() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        return cpus(inStatus: status)
    }

    /// The CPU count of a `/proc/PID/status` text's `Cpus_allowed:` mask (hex, in comma-separated groups).
    static func cpus(inStatus status: String) -> Int? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) else { return nil }
        var count = 0
        for c in line.dropFirst("Cpus_allowed:".count) where c != "," && !c.isWhitespace {
            guard let digit = c.hexDigitValue else { return nil }
            count += digit.nonzeroBitCount
        }
        return count > 0 ? count : nil
    }

    /// Call first thing in a command that serves: the shared event loop group reads the variable when
    /// it is first used. Returns the count set, if any.
    @discardableResult
    public static func matchAffinity() -> Int? {
        guard getenv("NIO_SINGLETON_GROUP_LOOP_COUNT") == nil, let allowed = allowedCPUs(),
            allowed < System.coreCount
        else { return nil }
        setenv("NIO_SINGLETON_GROUP_LOOP_COUNT", String(allowed), 1)
        return allowed
    }
}
