import Synchronization

/// Today's peak of open connections (`GET /v3/applications/peak_connections`): the highest count
/// seen in the current UTC day, and when it should be written to the store — when it rises, at
/// most every 10 s (a later peak of the same day is written by the next rise). Time is passed in
/// (ms), so it is tested without waiting.
final class ConnectionPeaks: Sendable {
    /// The day's peak and what of it was written.
    struct Day: Sendable, Equatable {
        /// UTC day number (ms / 86 400 000).
        var day: Int64 = 0
        var peak = 0
        var savedAt: Int64 = 0
        var saved = 0
    }

    private let state = Mutex(Day())

    /// Notes `count` connections at `t`; returns the day and peak to write, when one is due.
    func note(_ count: Int, at t: Int64) -> (day: Int64, peak: Int)? {
        let day = t / 86_400_000
        return state.withLock { p in
            if p.day != day { p = Day(day: day) }
            guard count > p.peak else { return nil }
            p.peak = count
            guard t - p.savedAt >= 10_000 || p.saved == 0 else { return nil }
            p.savedAt = t
            p.saved = count
            return (day, count)
        }
    }

    /// The current day's peak as kept in memory.
    var today: Day { state.withLock { $0 } }
}
