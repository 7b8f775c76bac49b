import Testing

@testable import TernKit

/// The engine's one timer as a value: armed for the earliest timer, never polling, off when disconnected.
@Suite("Wake schedule (value type: one timer, armed for the earliest)")
struct WakeScheduleTests {
    @Test func armsForTheEarliestTimerOnly() {
        var w = WakeSchedule()
        // Timers off (not connected): nothing is armed.
        let off = w.arm(for: 1000, now: 0, minimumDelay: 2)
        #expect(off == nil && w.armedFor == nil)
        w.start()
        let none = w.arm(for: nil, now: 0, minimumDelay: 2)
        let first = w.arm(for: 1000, now: 100, minimumDelay: 2)
        #expect(none == nil && first == 900 && w.armedFor == 1000)
        // A later timer waits for the armed wake-up; an earlier one arms now.
        let later = w.arm(for: 5000, now: 200, minimumDelay: 2)
        let earlier = w.arm(for: 300, now: 200, minimumDelay: 2)
        #expect(later == nil && earlier == 100 && w.armedFor == 300)
        // Due already: the shortest sleep, not a busy loop.
        w.fired()
        let overdue = w.arm(for: 250, now: 300, minimumDelay: 2)
        #expect(overdue == 2)
    }

    @Test func firedAndStopped() {
        var w = WakeSchedule()
        w.start()
        _ = w.arm(for: 1000, now: 0, minimumDelay: 2)
        w.fired()
        #expect(w.armedFor == nil && w.isOn)
        let next = w.arm(for: 2000, now: 1000, minimumDelay: 2)
        #expect(next == 1000)
        w.stop()
        let stopped = w.arm(for: 1500, now: 1000, minimumDelay: 2)
        #expect(stopped == nil && w == WakeSchedule())
    }
}
