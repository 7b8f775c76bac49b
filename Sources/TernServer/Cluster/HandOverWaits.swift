import Synchronization

/// Where the cluster's event reader waits for this node's send path, by channel.
///
/// The reader can reach this node's own message in the log before the send path has handed it
/// over (the commit's doorbell is as quick as the commit's answer); other nodes' messages behind it
/// must then wait, or a member here would get them first. The reader waits here until the send path
/// says something changed for that channel (``signal(_:)``: a message handed over, a batch done),
/// rather than polling: a poll every millisecond cost the reader 2.4 ms on average each time it
/// had to wait (a quarter of this node's own messages at 100 msg/s across two nodes), and every
/// other node's message behind it waited as long.
final class HandOverWaits: Sendable {
    private struct Parked {
        var continuation: CheckedContinuation<Void, Never>
        /// Ends the park at the deadline; cancelled when a signal ends it first.
        var timer: Task<Void, Never>?
    }
    private struct State {
        var next = 0
        var waiting: [String: [Int: Parked]] = [:]
    }
    private let state = Mutex(State())

    /// Returns once `ready()` holds (it is asked now and after every ``signal(_:)`` of `channel`)
    /// or `timeout` has passed; true when it held.
    @discardableResult
    func wait(for channel: String, timeout: Duration, until ready: @Sendable () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            if ready() { return true }
            if ContinuousClock.now >= deadline { return false }
            await once(channel, until: deadline, ready)
        }
    }

    /// Wakes every wait on `channel` to ask its question again. Call it after the change, outside
    /// any lock that `ready()` takes.
    func signal(_ channel: String) {
        let woken = state.withLock { s -> [Parked] in
            guard let w = s.waiting.removeValue(forKey: channel) else { return [] }
            return Array(w.values)
        }
        for p in woken {
            p.timer?.cancel()
            p.continuation.resume()
        }
    }

    /// How many waits are parked (tests).
    var parked: Int { state.withLock { $0.waiting.values.reduce(0) { $0 + $1.count } } }

    /// One park: until the next signal of `channel` or the deadline (`ready()` is asked under the
    /// lock first, so a signal between the question and the park is not missed).
    private func once(_ channel: String, until deadline: ContinuousClock.Instant, _ ready: @Sendable () -> Bool) async {
        let id = state.withLock { s in
            s.next += 1
            return s.next
        }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let parked = state.withLock { s -> Bool in
                if ready() { return false }
                s.waiting[channel, default: [:]][id] = Parked(continuation: c)
                return true
            }
            guard parked else { return c.resume() }
            let timer = Task {
                try? await Task.sleep(until: deadline, clock: .continuous)
                let late = self.state.withLock { s -> Parked? in
                    let p = s.waiting[channel]?.removeValue(forKey: id)
                    if s.waiting[channel]?.isEmpty == true { s.waiting[channel] = nil }
                    return p
                }
                late?.continuation.resume()
            }
            // A signal that came first already resumed it: the timer is not needed.
            let unneeded = state.withLock { s -> Bool in
                guard s.waiting[channel]?[id] != nil else { return true }
                s.waiting[channel]![id]!.timer = timer
                return false
            }
            if unneeded { timer.cancel() }
        }
    }
}
