import Foundation
import NIOCore
import NIOPosix
import Synchronization
import TernServer

/// Tells why a test's wait ran out: a thread of its own runs a no-op every 100 ms on each of
/// NIO's shared event loops and on the Swift cooperative pool, and remembers each time one of
/// them took longer than half a second. A test that timed out prints ``report()``: a loop or the
/// pool that stood still explains a silence; none that did points at the code under test.
/// With `TERN_STALL_WATCH` set, each stall is also printed as it ends.
public enum StallWatch {
    struct Stall {
        var place: String
        var at: ContinuousClock.Instant
        var took: Duration
    }

    static let stalls = Mutex<[Stall]>([])
    /// The most descriptors the process had open at one look.
    static let peakDescriptors = Atomic<Int>(0)
    static let started = Atomic<Bool>(false)
    static let origin = ContinuousClock.now
    static let printing = ProcessInfo.processInfo.environment["TERN_STALL_WATCH"] != nil

    /// Starts the watching thread (once per process).
    public static func start() {
        guard !started.exchange(true, ordering: .relaxed) else { return }
        _ = origin  // times are told from here
        let thread = Thread {
            let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
            while true {
                for (i, loop) in loops.enumerated() {
                    probe("event loop \(i)") { done in loop.execute { done() } }
                }
                probe("cooperative pool") { done in Task.detached { done() } }
                peakDescriptors.max(ConnectionGate.openDescriptorCount(), ordering: .relaxed)
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        thread.name = "StallWatch"
        thread.start()
    }

    /// Runs `work` and waits (this thread only) until it calls back: up to 60 s, then the stall
    /// is noted as at least that.
    static func probe(_ place: String, _ work: (@escaping @Sendable () -> Void) -> Void) {
        let semaphore = DispatchSemaphore(value: 0)
        let start = ContinuousClock.now
        work { semaphore.signal() }
        _ = semaphore.wait(timeout: .now() + 60)
        let took = ContinuousClock.now - start
        guard took > .milliseconds(500) else { return }
        if printing {
            FileHandle.standardError.write(Data("StallWatch: \(place) stalled \(took) at +\(start - origin)\n".utf8))
        }
        stalls.withLock { s in
            s.append(Stall(place: place, at: start, took: took))
            if s.count > 50 { s.removeFirst(s.count - 50) }
        }
    }

    /// The stalls seen since `since` (all when nil), one line each, or a line saying there were none.
    public static func report(since: ContinuousClock.Instant? = nil) -> String {
        let seen = stalls.withLock { $0 }.filter { since == nil || $0.at + $0.took >= since! }
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        let descriptors =
            "descriptors open \(ConnectionGate.openDescriptorCount()), at most \(peakDescriptors.load(ordering: .relaxed)), limit \(limit.rlim_cur)"
        guard !seen.isEmpty else { return "no event loop or cooperative-pool stall over 0.5 s seen; \(descriptors)" }
        return seen.map { "\($0.place) stalled \($0.took) at +\($0.at - origin)" }.joined(separator: "; ") + "; " + descriptors
    }
}
