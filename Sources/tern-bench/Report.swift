import Foundation

/// The merged result of a run: latency distributions over the measured window, counts, the
/// correctness checks and CPU use.
struct Report {
    var latencyUs: [UInt32] = []
    var crossNodeLatencyUs: [UInt32] = []
    var sameNodeLatencyUs: [UInt32] = []
    var ackLatencyUs: [UInt32] = []
    var senderLagUs: [UInt32] = []
    /// Messages written to the server (warm-up included) and distinct acknowledgements of them.
    var sent = 0
    var acked = 0
    var rejected = 0
    var errors: [Int: Int] = [:]
    /// Messages due in the measured window, sent or not.
    var measuredScheduled = 0
    /// Expected deliveries (acked message × every other member) that never arrived.
    var lost = 0
    var duplicates = 0
    var duplicateAcks = 0
    /// Deliveries of a message its sender never saw acknowledged.
    var deliveredUnacked = 0
    var orderViolations = 0
    var channelOrderViolations = 0
    var strays = 0
    var missingLogs = 0

    /// Merges every member's log. `sent` comes from the senders' counter.
    init(logs: [ReceiverLog], schedule: Schedule, sent: Int) {
        self.sent = sent
        var byMember = [ReceiverLog?](repeating: nil, count: schedule.members)
        for log in logs { byMember[log.member] = log }
        missingLogs = byMember.filter { $0 == nil }.count
        for log in logs {
            latencyUs += log.latencyUs
            crossNodeLatencyUs += log.crossNodeLatencyUs
            sameNodeLatencyUs += log.sameNodeLatencyUs
            ackLatencyUs += log.ackLatencyUs
            senderLagUs += log.senderLagUs
            orderViolations += log.orderViolations
            channelOrderViolations += log.channelOrderViolations
            strays += log.strays
            for (code, n) in log.errors {
                errors[code, default: 0] += n
                rejected += n
            }
        }
        for sender in 0..<schedule.senders {
            let acks = byMember[sender]?.acks ?? []
            for seq in 0..<schedule.count(sender: sender) {
                let ackCount = seq < acks.count ? Int(acks[seq]) : 0
                let measured = schedule.isMeasured(schedule.due(sender: sender, seq: seq))
                if measured { measuredScheduled += 1 }
                var distinct = 0
                for case let log? in byMember where log.member != sender {
                    let n = log.seenCount(sender: sender, seq: seq)
                    if n > 0 { distinct += 1 }
                    duplicates += max(0, n - 1)
                }
                duplicateAcks += max(0, ackCount - 1)
                if ackCount > 0 {
                    acked += 1
                    lost += (schedule.members - 1) - distinct
                } else {
                    deliveredUnacked += distinct
                }
            }
        }
        latencyUs.sort()
        crossNodeLatencyUs.sort()
        sameNodeLatencyUs.sort()
        ackLatencyUs.sort()
        senderLagUs.sort()
    }

    /// Whether the run found no correctness problem.
    var passed: Bool {
        lost == 0 && duplicates == 0 && duplicateAcks == 0 && deliveredUnacked == 0 && rejected == 0 && acked == sent
            && orderViolations == 0 && channelOrderViolations == 0 && strays == 0 && missingLogs == 0
    }

    /// The `q` quantile in ms of `expected` values of which `sorted` were observed; the missing ones
    /// (never received) count as infinitely late, so they cannot flatter the percentiles. nil: infinite.
    static func percentile(_ sorted: [UInt32], expected: Int, _ q: Double) -> Double? {
        let n = max(expected, sorted.count)
        guard n > 0 else { return nil }
        let i = min(n - 1, max(0, Int((q * Double(n)).rounded(.up)) - 1))
        return i < sorted.count ? Double(sorted[i]) / 1000 : nil
    }

    static func distribution(_ sorted: [UInt32], expected: Int) -> String {
        func f(_ q: Double) -> String { percentile(sorted, expected: expected, q).map { String(format: "%.3f", $0) } ?? "∞" }
        let missing = max(0, expected - sorted.count)
        let max = missing > 0 ? "∞" : sorted.last.map { String(format: "%.3f", Double($0) / 1000) } ?? "n/a"
        return "p50 \(f(0.5))  p90 \(f(0.9))  p99 \(f(0.99))  p99.9 \(f(0.999))  max \(max) ms  "
            + "(\(sorted.count) of \(expected)\(missing > 0 ? "; \(missing) never arrived, counted as ∞" : ""))"
    }
}

/// CPU use and work done over the measured window, from two ``CPUSample``s: deliveries and acks
/// *received during* the window, whatever their due time, so CPU per delivery stays consistent
/// when the server falls behind.
struct CPUWindow {
    let wallSeconds: Double
    let serverUs: Double?
    let clientUs: Double
    let deliveries: Int
    let acks: Int
    /// The server's wake-ups (voluntary context switches) and preemptions over the window, summed
    /// over the threads alive at its end (a thread started meanwhile counts from zero); and how many
    /// threads ended during it, whose switches in the window are not counted.
    let serverSwitches: (voluntary: Int, involuntary: Int, endedThreads: Int)?

    init(_ a: CPUSample, _ b: CPUSample) {
        if let x = a.serverSwitches, let y = b.serverSwitches {
            var sum = (voluntary: 0, involuntary: 0, endedThreads: 0)
            for (tid, end) in y {
                let start = x[tid] ?? (0, 0)
                sum.voluntary += end.voluntary - start.voluntary
                sum.involuntary += end.involuntary - start.involuntary
            }
            sum.endedThreads = x.keys.filter { y[$0] == nil }.count
            serverSwitches = sum
        } else {
            serverSwitches = nil
        }
        wallSeconds = Double(b.wallNs - a.wallNs) / 1e9
        if let x = a.serverUs, let y = b.serverUs { serverUs = y - x } else { serverUs = nil }
        clientUs = b.clientUs - a.clientUs
        deliveries = b.delivered - a.delivered
        acks = b.acked - a.acked
    }

    var serverCoreShare: Double? { serverUs.map { $0 / 1e6 / wallSeconds } }
    var clientCoreShare: Double { clientUs / 1e6 / wallSeconds }
}
