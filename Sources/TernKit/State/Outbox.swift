import TernProtocol

/// The messages waiting to go out, as a value: those written while (re)connecting, and failed ones the engine
/// sends again by itself (an auto-resend code, a frozen channel), in the order written. No sockets, no sleeping:
/// ``ChatClient`` sends the item ``next(from:isFrozen:)`` names, reports the server's answer with
/// ``settle(_:_:at:keepFrozen:)`` and resumes the waiters it gets back; `Waiter` is whoever waits for an
/// item's answer (a continuation in the engine, anything in the tests).
struct Outbox<Waiter> {
    struct Item {
        var message: Message
        var params: UserMessageParams
        /// The sends waiting for this message's answer.
        var waiters: [Waiter] = []
    }

    /// After an answer: go on from the item at this index, or stop until the next connection.
    enum Step: Equatable {
        case next(Int)
        case stop
    }

    /// Errors after which a message goes again by itself once connected.
    let autoResendCodes: Set<ErrorCode>
    /// Waiting, in the order written.
    private(set) var items: [Item] = []
    /// A run is sending, one message at a time: a new message waits behind it.
    var isRunning = false
    /// A run was asked for while one was under way (a failed message joined, maybe before the point the run has
    /// reached): the run looks again from the start before it ends.
    var askedAgain = false
    /// Whether the cache's unsent messages from an earlier run have joined.
    private(set) var restored = false

    init(autoResendCodes: Set<ErrorCode>) {
        self.autoResendCodes = autoResendCodes
    }

    var messages: [Message] { items.map(\.message) }

    func contains(_ requestId: String?) -> Bool {
        items.contains { $0.message.requestId == requestId }
    }

    /// Whether a new message must wait behind the outbox (so one sender's messages keep their order): a run is
    /// sending, or another message of its channel waits.
    func holdsBack(_ m: Message) -> Bool {
        isRunning || items.contains { $0.message.channelUrl == m.channelUrl && $0.message.requestId != m.requestId }
    }

    /// `waiter` waits for `m`'s answer: behind the others, or with those already waiting for it.
    mutating func wait(_ m: Message, _ params: UserMessageParams, _ waiter: Waiter) {
        if let i = items.firstIndex(where: { $0.message.requestId == m.requestId }) {
            items[i].waiters.append(waiter)
        } else {
            items.append(Item(message: m, params: params, waiters: [waiter]))
        }
    }

    /// Once: the cache's unsent messages from an earlier run join, those still pending and those that failed with
    /// an auto-resend code; all in the order written.
    mutating func restore(_ unsent: [Message]) {
        guard !restored else { return }
        restored = true
        for m in unsent where !contains(m.requestId) {
            if m.status == .pending || (m.error.map { autoResendCodes.contains($0.code) } ?? false) {
                items.append(Item(message: m, params: UserMessageParams(resending: m)))
            }
        }
        sortByTime()
    }

    /// A message that failed with an auto-resend code joins, in its place in time; false when it waits already.
    mutating func requeue(_ failed: Message, _ params: UserMessageParams) -> Bool {
        guard !contains(failed.requestId) else { return false }
        items.append(Item(message: failed, params: params))
        sortByTime()
        return true
    }

    /// A resend by hand: the message stops waiting here unless someone waits for its answer.
    mutating func dropUnawaited(_ requestId: String?) {
        items.removeAll { $0.message.requestId == requestId && $0.waiters.isEmpty }
    }

    /// The message leaves for good (cancelled); its waiters are the caller's to answer.
    mutating func remove(_ requestId: String) -> Item? {
        guard let i = items.firstIndex(where: { $0.message.requestId == requestId }) else { return nil }
        return items.remove(at: i)
    }

    /// Everything leaves (no connection is coming).
    mutating func drain() -> [Item] {
        defer { items = [] }
        return items
    }

    /// The index of the next message to send, from `index` on: failed messages of frozen channels wait.
    func next(from index: Int, isFrozen: (String) -> Bool) -> Int? {
        var i = index
        while i < items.count {
            let m = items[i].message
            if m.status == .failed, isFrozen(m.channelUrl) {
                i += 1
                continue
            }
            return i
        }
        return nil
    }

    /// The answer to the message sent from `index`: it leaves when stored or refused for good; it stays, failed,
    /// when the connection went (then the run stops) or, with `keepFrozen`, when its channel is frozen. Returns the
    /// waiters to answer and where the run goes on.
    mutating func settle(_ requestId: String?, _ result: Result<Message, SendbirdError>, at index: Int, keepFrozen: Bool)
        -> (waiters: [Waiter], step: Step)
    {
        guard let at = items.firstIndex(where: { $0.message.requestId == requestId }) else { return ([], .next(index)) }
        let waiters = items[at].waiters
        items[at].waiters = []
        switch result {
        case .success:
            items.remove(at: at)
        case .failure(let e):
            items[at].message.status = .failed
            items[at].message.error = e
            // Goes again once the channel is no longer frozen.
            if e.code == .channelFrozen && keepFrozen { return (waiters, .next(at + 1)) }
            // The connection went: it (and the rest) wait for the next one.
            if autoResendCodes.contains(e.code) { return (waiters, .stop) }
            items.remove(at: at)
        }
        return (waiters, .next(at))
    }

    private mutating func sortByTime() {
        items.sort { $0.message.createdAt < $1.message.createdAt }
    }
}
