import Testing

@testable import TernServer

/// ``CheckpointSchedule``: when SQLite's WAL is checkpointed, by the commits made since the last
/// checkpoint (a clock of instants built from one base, no waiting).
@Suite("CheckpointSchedule: a checkpoint a quarter second after the last under load, two seconds at low rates, none when idle")
struct CheckpointScheduleTests {
    let base = ContinuousClock.now

    @Test("A few commits: one checkpoint, two seconds after the last; later commits do not move it")
    func fewCommits() {
        var s = CheckpointSchedule(last: base)
        let r1 = s.committed()
        #expect(r1 == base + .seconds(2))
        for _ in 0..<10 {
            let r = s.committed()
            #expect(r == nil)
        }
        let due = s.due
        #expect(due == base + .seconds(2))
    }

    @Test("Many commits: the checkpoint moves up to a quarter second after the last")
    func manyCommits() {
        var s = CheckpointSchedule(last: base)
        _ = s.committed()
        for _ in 2..<CheckpointSchedule.busyCommits {
            let r = s.committed()
            #expect(r == nil)
        }
        let r2 = s.committed()
        #expect(r2 == base + .milliseconds(250))
        let r3 = s.committed()
        #expect(r3 == nil)
        // The one scheduled first finds an earlier one took its place.
        let r4 = s.start(base + .seconds(2), now: base + .seconds(2))
        #expect(r4 == false)
    }

    @Test("A checkpoint starts the count again; with no commit after it, nothing is scheduled")
    func afterACheckpoint() {
        var s = CheckpointSchedule(last: base)
        let due = s.committed()!
        let r5 = s.start(due, now: due)
        #expect(r5)
        let (commits, next, last) = (s.commits, s.due, s.last)
        #expect(commits == 0 && next == nil && last == due)
        let r6 = s.start(due, now: due + .seconds(1))
        #expect(r6 == false, "it runs once")
        let r7 = s.committed()
        #expect(r7 == due + .seconds(2))
    }

    @Test("Stopped: no checkpoint is scheduled or started")
    func stopped() {
        var s = CheckpointSchedule(last: base)
        let due = s.committed()!
        s.stopped = true
        let r8 = s.committed()
        #expect(r8 == nil)
        let r9 = s.start(due, now: due)
        #expect(r9 == false)
    }
}
