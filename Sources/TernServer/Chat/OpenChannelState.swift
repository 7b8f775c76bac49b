import Synchronization

/// What this node holds in memory for open channels: who entered which channel (``OpenRooms``),
/// the limit on messages broadcast per channel per second, and the channels whose participant
/// count changed and waits to be pushed (`MCNT`, at most once per interval per channel). Nothing
/// here is stored: a restart empties every channel.
final class OpenChannelState: Sendable {
    /// Who is in which open channel (entering lasts as long as the connection).
    let rooms = OpenRooms()
    /// Messages broadcast per open channel per second; the rest reach operators only.
    let broadcast: RateLimiter
    /// Open channels whose participant count changed since the last `MCNT`.
    private let countsToPush = Mutex<Set<String>>([])

    init(messagesPerSecond: Double) {
        self.broadcast = RateLimiter(perSecond: messagesPerSecond)
    }

    /// Whether a message sent now in `channelUrl` goes to every participant (else to operators only).
    func mayBroadcast(_ channelUrl: String, nowMs: Int64) -> Bool {
        broadcast.allow(channelUrl, nowMs: nowMs)
    }

    /// Notes that a channel's participant count changed; true when no push is pending for it yet
    /// (the caller schedules one, and calls ``countPushed(_:)`` when it goes).
    func countChanged(_ channelUrl: String) -> Bool {
        countsToPush.withLock { $0.insert(channelUrl).inserted }
    }

    /// The pending count push of a channel goes now: a later change schedules the next one.
    func countPushed(_ channelUrl: String) {
        countsToPush.withLock { _ = $0.remove(channelUrl) }
    }
}
