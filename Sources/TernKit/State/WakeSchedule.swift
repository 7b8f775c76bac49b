/// The engine's one timer as a value: whether timers run at all (between connect and disconnect) and when the
/// armed wake-up is for. ``ChatClient`` asks ``arm(for:now:minimumDelay:)`` whether to sleep anew and how long,
/// and keeps the sleeping task; nothing wakes while nothing is due (no polling).
struct WakeSchedule: Sendable, Equatable {
    private(set) var isOn = false
    /// When the armed wake-up fires; nil: none is armed.
    private(set) var armedFor: Millis?

    /// Timers run (a connection was asked for).
    mutating func start() {
        isOn = true
    }

    /// Timers stop (disconnected); the armed wake-up is forgotten.
    mutating func stop() {
        isOn = false
        armedFor = nil
    }

    /// The earliest timer is due at `wake` (nil: none): the delay to sleep before the next tick, or nil to keep
    /// the armed wake-up. A timer later than the armed one waits for it (the tick arms again); an earlier one
    /// arms now.
    mutating func arm(for wake: Millis?, now: Millis, minimumDelay: Millis) -> Millis? {
        guard isOn, let wake else { return nil }
        if let armed = armedFor, armed <= wake { return nil }
        armedFor = wake
        return max(minimumDelay, wake - now)
    }

    /// The armed wake-up came.
    mutating func fired() {
        armedFor = nil
    }
}
