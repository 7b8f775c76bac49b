import Synchronization
import Testing

@testable import TernServer

/// The event reader's wait for this node's send path (``HandOverWaits``): woken by the change it
/// waits for, not by a clock. The waits below time out after 10 minutes: a signal lost in a race
/// would hold one past the suite's one-minute limit and fail it.
@Suite("HandOverWaits: the reader waits for the send path's signal", .timeLimit(.minutes(1)))
struct HandOverWaitsTests {
    @Test("A wait whose answer is already yes does not park")
    func readyAtOnce() async {
        let waits = HandOverWaits()
        #expect(await waits.wait(for: "c", timeout: .seconds(30)) { true })
        #expect(waits.parked == 0)
    }

    @Test("A parked wait returns when its channel is signalled after the change, not before, and not for another channel")
    func signalWakes() async throws {
        let waits = HandOverWaits()
        let handed = Atomic<Bool>(false)
        let task = Task { await waits.wait(for: "c", timeout: .seconds(600)) { handed.load(ordering: .acquiring) } }
        while waits.parked == 0 { await Task.yield() }
        // Signals that change nothing, or of another channel, leave it waiting.
        waits.signal("other")
        waits.signal("c")
        while waits.parked == 0 { await Task.yield() }
        #expect(waits.parked == 1)
        handed.store(true, ordering: .releasing)
        waits.signal("c")
        #expect(await task.value, "it returned because the answer became yes (its timeout is 10 minutes; the suite's limit is one)")
        #expect(waits.parked == 0)
    }

    @Test("A wait nobody signals ends at its timeout with false, and leaves nothing parked")
    func timeout() async {
        let waits = HandOverWaits()
        #expect(await waits.wait(for: "c", timeout: .milliseconds(20)) { false } == false)
        #expect(waits.parked == 0)
    }

    @Test("Many waits on several channels, the changes and signals racing from other tasks: every wait sees its change")
    func racingSignals() async {
        let waits = HandOverWaits()
        let channels = ["a", "b", "c", "d"]
        // Each channel's hand-overs so far; wait i on channel c returns once c has handed i over.
        let handed = Handed()
        let results = await withTaskGroup(of: Bool.self) { group in
            for i in 1...200 {
                let channel = channels[i % channels.count]
                group.addTask {
                    await waits.wait(for: channel, timeout: .seconds(600)) { handed.count.withLock { ($0[channel] ?? 0) >= i } }
                }
            }
            for channel in channels {
                group.addTask {
                    for i in 1...200 {
                        handed.count.withLock { $0[channel] = i }
                        waits.signal(channel)
                        if i % 7 == 0 { await Task.yield() }
                    }
                    return true
                }
            }
            var all: [Bool] = []
            for await r in group { all.append(r) }
            return all
        }
        #expect(results.count == 204 && results.allSatisfy { $0 })
        #expect(waits.parked == 0)
    }
}

/// Each channel's hand-overs so far (shared by the racing tasks).
private final class Handed: Sendable {
    let count = Mutex<[String: Int]>([:])
}
