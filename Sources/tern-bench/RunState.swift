import Synchronization

/// What every member connection shares with the coordinator: the schedule, the channel, and the
/// run-wide counters the coordinator polls to know when delivery is complete. Connections add to
/// the counters once per socket read (a batch), never per message; everything else a connection
/// records lives in its own ``ReceiverRecorder``, owned by its event loop.
final class RunState: Sendable {
    let schedule: Schedule
    let channelUrl: String
    /// `"group"` or `"open"`: which kind of channel the members are in.
    let channelType: ChannelType

    let failed = Atomic<Int>(0)
    let sent = Atomic<Int>(0)
    let acked = Atomic<Int>(0)
    let rejected = Atomic<Int>(0)
    /// First-time deliveries to non-senders, warm-up included.
    let delivered = Atomic<Int>(0)
    let sendersDone = Atomic<Int>(0)

    private let failures = Mutex<[String]>([])

    init(schedule: Schedule, channelUrl: String, channelType: ChannelType) {
        self.schedule = schedule
        self.channelUrl = channelUrl
        self.channelType = channelType
    }

    func fail(_ message: String) {
        failures.withLock { $0.append(message) }
        failed.add(1, ordering: .relaxed)
    }

    var failureMessages: [String] { failures.withLock { $0 } }
}

/// The kind of channel the measured members share.
enum ChannelType: String, Sendable, CaseIterable {
    /// A group channel: members through the Platform API, at most 100 (ternd's and Sendbird's limit).
    case group
    /// An open channel: every connection enters it with `ENTR`; as many participants as the server allows.
    case open
}
