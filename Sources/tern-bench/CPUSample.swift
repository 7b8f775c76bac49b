import Foundation

#if canImport(Glibc)
import Glibc
import Synchronization
#endif

/// CPU time used so far by the server (utime+stime from `/proc/PID/stat`, all threads) and by this
/// process (`getrusage`), with the wall time and the run's delivery and ack counters at that moment.
struct CPUSample {
    let wallNs: UInt64
    /// Server CPU in µs; nil when the server's PID is unknown or unreadable.
    let serverUs: Double?
    let clientUs: Double
    let delivered: Int
    let acked: Int
    /// The server's context switches so far, by thread id: voluntary (a thread went to sleep and was
    /// woken again: a wake-up) and involuntary (preempted); nil when unreadable.
    var serverSwitches: [String: (voluntary: Int, involuntary: Int)]? = nil

    static func take(serverPid: Int32?, run: RunState) -> CPUSample {
        CPUSample(
            wallNs: Mono.now(), serverUs: serverPid.flatMap(processCPUMicros), clientUs: selfCPUMicros(),
            delivered: run.delivered.load(ordering: .relaxed), acked: run.acked.load(ordering: .relaxed),
            serverSwitches: serverPid.flatMap(contextSwitches))
    }

    /// `voluntary_ctxt_switches` and `nonvoluntary_ctxt_switches` of every thread of `pid`
    /// (`/proc/PID/task/*/status`), by thread id.
    static func contextSwitches(_ pid: Int32) -> [String: (voluntary: Int, involuntary: Int)]? {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return nil }
        var out: [String: (voluntary: Int, involuntary: Int)] = [:]
        for task in tasks {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else { continue }
            var counts = (voluntary: 0, involuntary: 0)
            for line in status.split(separator: "\n") {
                if line.hasPrefix("voluntary_ctxt_switches:") {
                    counts.voluntary = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
                } else if line.hasPrefix("nonvoluntary_ctxt_switches:") {
                    counts.involuntary = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            out[task] = counts
        }
        return out
    }

    /// utime+stime of `pid` in µs (clock-tick resolution, usually 10 ms).
    static func processCPUMicros(_ pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after "(comm)": state is field 3, utime field 14, stime field 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let utime = Double(fields[11]), let stime = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return (utime + stime) / ticks * 1e6
    }

    static func selfCPUMicros() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let u = Double(usage.ru_utime.tv_sec) * 1e6 + Double(usage.ru_utime.tv_usec)
        let s = Double(usage.ru_stime.tv_sec) * 1e6 + Double(usage.ru_stime.tv_usec)
        return u + s
    }

    /// `Cpus_allowed_list` of a process ("self" or a PID), e.g. "0" or "0-1".
    static func allowedCPUs(_ pid: String) -> String? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("Cpus_allowed_list:") {
            return line.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }
}
