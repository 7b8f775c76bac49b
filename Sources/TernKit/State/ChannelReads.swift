/// The reads of single channels that events ask for, as a value: a channel an event names before the list
/// has it is fetched once (and read again, up to ``maxRounds`` more times, when more events name it while the
/// read is on its way); a listed channel is read again after an event about it. Every removal from the list
/// starts a new generation of the channel, and an answer to a read started before it is stale. No tasks:
/// ``ChatClient`` reads and reports the answers.
struct ChannelReads: Sendable, Equatable {
    /// What to do when a fetch of an unknown channel answers.
    enum FetchAnswer: Sendable, Equatable {
        /// Another event named the channel meanwhile: the answer may be older than it; read again.
        case readAgain
        /// Done: `current` is false when the channel left the list since the fetch started (the answer is stale).
        case finish(current: Bool)
    }

    /// More reads of an unknown channel that events keep naming (a busy channel), at most.
    static let maxRounds = 3

    private var fetching: Set<String> = []
    private var fetchAgain: Set<String> = []
    private var rounds: [String: Int] = [:]
    private var generations: [String: Int] = [:]
    private var refreshing: [String: Int] = [:]

    /// The channel's generation now: an answer counts when it is still the same once the answer comes.
    func generation(_ url: String) -> Int { generations[url, default: 0] }

    /// The channel left the list (left, declined, hidden, deleted, forgotten): reads on their way are stale.
    mutating func removed(_ url: String) {
        generations[url, default: 0] += 1
    }

    /// Whether a read of the channel is on its way (it is about to be listed).
    func isReading(_ url: String) -> Bool {
        fetching.contains(url) || refreshing[url] != nil
    }

    /// An event named a channel the list lacks: true when a fetch must start; false when one is on its way
    /// (it will read again before announcing the channel).
    mutating func startFetch(_ url: String) -> Bool {
        guard !fetching.contains(url) else {
            fetchAgain.insert(url)
            return false
        }
        fetching.insert(url)
        return true
    }

    /// The fetch started at `generation` answered.
    mutating func fetchAnswered(_ url: String, generation: Int) -> FetchAnswer {
        if fetchAgain.remove(url) != nil, rounds[url, default: 0] < Self.maxRounds {
            rounds[url, default: 0] += 1
            fetching.remove(url)
            return .readAgain
        }
        rounds[url] = nil
        return .finish(current: self.generation(url) == generation)
    }

    /// The channel's fetch is over (listed or not).
    mutating func fetchFinished(_ url: String) {
        fetching.remove(url)
    }

    /// A listed channel is read again after an event; returns the generation its answer must match.
    mutating func startRefresh(_ url: String) -> Int {
        refreshing[url, default: 0] += 1
        return generation(url)
    }

    /// A re-read answered (whatever it said).
    mutating func refreshAnswered(_ url: String) {
        refreshing[url, default: 1] -= 1
        if refreshing[url] == 0 { refreshing[url] = nil }
    }
}
