import Synchronization

/// A value set once that any number of tasks can wait for.
final class OneShot<Value: Sendable>: Sendable {
    private let state = Mutex<(value: Value?, waiters: [CheckedContinuation<Value, Never>])>((nil, []))

    func fire(_ value: Value) {
        let waiters = state.withLock { s -> [CheckedContinuation<Value, Never>] in
            guard s.value == nil else { return [] }
            s.value = value
            defer { s.waiters = [] }
            return s.waiters
        }
        for w in waiters { w.resume(returning: value) }
    }

    var value: Value? { state.withLock { $0.value } }

    func wait() async -> Value {
        await withCheckedContinuation { c in
            let v = state.withLock { s -> Value? in
                if let v = s.value { return v }
                s.waiters.append(c)
                return nil
            }
            if let v { c.resume(returning: v) }
        }
    }
}

/// What every member connection shares with the coordinator: the schedule, the start and stop
/// signals, running counters (to know when delivery is complete) and, at the end, each
/// connection's ``ReceiverLog``.
final class RunState: Sendable {
    let schedule: Schedule
    let channelUrl: String
    /// The absolute start (`Mono.now()` ns) of the schedule; nil aborts the run before sending.
    let start = OneShot<UInt64?>()
    let stop = OneShot<Bool>()
    /// Set with `stop`: read loops check it per WebSocket message and stop recording at once.
    let stopped = Atomic<Bool>(false)

    let loggedIn = Atomic<Int>(0)
    let failed = Atomic<Int>(0)
    let sent = Atomic<Int>(0)
    let acked = Atomic<Int>(0)
    let rejected = Atomic<Int>(0)
    /// First-time deliveries to non-senders, warm-up included.
    let delivered = Atomic<Int>(0)
    let sendersDone = Atomic<Int>(0)

    private let logs = Mutex<[ReceiverLog]>([])
    private let failures = Mutex<[String]>([])

    init(schedule: Schedule, channelUrl: String) {
        self.schedule = schedule
        self.channelUrl = channelUrl
    }

    /// Ends the run: nothing received from now on is recorded, and every connection closes.
    func finish() {
        stopped.store(true, ordering: .releasing)
        stop.fire(true)
    }

    func fail(_ message: String) {
        failures.withLock { $0.append(message) }
        failed.add(1, ordering: .relaxed)
    }

    var failureMessages: [String] { failures.withLock { $0 } }

    func finish(_ log: ReceiverLog) { logs.withLock { $0.append(log) } }

    var allLogs: [ReceiverLog] { logs.withLock { $0 }.sorted { $0.member < $1.member } }
}
