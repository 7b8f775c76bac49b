/// The catch-up after each login, as a value: the login's time, the last channel changelog token, which
/// catch-up run is current (a newer login supersedes an older run), and the channels whose held messages are
/// current on this connection (live messages extend their run in the cache). No requests: ``ChatClient`` reads
/// the changelogs and fills the gaps.
struct CatchUp: Sendable, Equatable {
    /// The current connection's `LOGI` `login_ts`.
    var loginTs: Millis = 0
    /// The last channel changelog token (the cache keeps it across runs too).
    var channelChangelogToken: String?
    /// Catch-up runs started.
    private(set) var runs = 0
    private var synced: Set<String> = []

    /// A login: a new run starts (the one before it stops at its next step) and no channel is current yet.
    /// Returns the run's number.
    mutating func startRun() -> Int {
        runs += 1
        synced.removeAll()
        return runs
    }

    /// Whether `run` is still the latest.
    func isCurrent(_ run: Int) -> Bool { run == runs }

    /// Whether the channel's held messages are current on this connection.
    func isSynced(_ url: String) -> Bool { synced.contains(url) }

    /// The channel's newest page came from the server (or its gap was filled): it is current.
    mutating func markSynced(_ url: String) {
        synced.insert(url)
    }

    /// The channel left the list.
    mutating func forget(_ url: String) {
        synced.remove(url)
    }

    /// The connection went: what comes next may have been missed, nothing is current.
    mutating func connectionLost() {
        synced.removeAll()
    }
}
