#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one clock every timestamp in a run is read from: `CLOCK_MONOTONIC` in nanoseconds.
///
/// Senders and receivers live in the same process, so a scheduled send time written into a
/// message by one task can be subtracted from the receive time read by another.
enum Mono {
    /// Nanoseconds since an arbitrary fixed point (boot).
    @inline(__always)
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Sleeps until `deadline` (a `now()` value); returns at once when it has passed. Zero
    /// tolerance: the default lets the timer fire up to a millisecond late, which would show up as
    /// sender lag and latency.
    static func sleep(until deadline: UInt64) async throws {
        let t = now()
        if deadline > t {
            try await Task.sleep(for: .nanoseconds(Int64(deadline - t)), tolerance: .zero, clock: ContinuousClock())
        }
    }
}
