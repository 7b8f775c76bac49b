import Logging
import WSClient

/// One channel member's WebSocket: logs in, sends on its fixed schedule if it is one of the
/// senders, and records every frame it receives into a ``ReceiverLog`` until told to stop.
struct MemberConnection: Sendable {
    let member: Int
    let url: String
    let run: RunState

    static let maxFrameSize = 1 << 20

    /// Runs the connection to its end. Failures are reported to ``RunState/fail(_:)``.
    func run() async {
        var config = WebSocketClientConfiguration(maxFrameSize: Self.maxFrameSize)
        config.closeTimeout = .seconds(2)
        var logger = Logger(label: "tern-bench.ws")
        logger.logLevel = .critical
        do {
            try await WebSocketClient.connect(url: url, configuration: config, logger: logger) { inbound, outbound, _ in
                await session(inbound, outbound)
            }
        } catch {
            run.fail("member \(member): \(error)")
        }
    }

    func session(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter) async {
        let schedule = run.schedule
        var log = ReceiverLog(member: member, schedule: schedule)
        let isSender = member < schedule.senders
        let lag: [UInt32] = await withTaskGroup(of: [UInt32].self) { group in
            group.addTask {
                _ = await run.stop.wait()
                try? await outbound.close(.normalClosure, reason: nil)
                return []
            }
            if isSender {
                group.addTask { await sendLoop(outbound) }
            }
            var start: UInt64 = 0
            var loggedIn = false
            do {
                for try await message in inbound.messages(maxSize: Self.maxFrameSize) {
                    if run.stopped.load(ordering: .acquiring) { break }
                    guard case .text(let text) = message else { continue }
                    let now = Mono.now()
                    if start == 0, let s = run.start.value { start = s ?? 0 }
                    var counts = ReceiverLog.Counts()
                    FrameScanner.scan(text) { event in
                        if case .login(let ok) = event, !loggedIn {
                            loggedIn = true
                            if ok { run.loggedIn.add(1, ordering: .relaxed) } else { run.fail("member \(member): login refused: \(text.prefix(200))") }
                        } else {
                            log.record(event, now: now, start: start, schedule: schedule, into: &counts)
                        }
                    }
                    if counts.delivered > 0 { run.delivered.add(counts.delivered, ordering: .relaxed) }
                    if counts.acked > 0 { run.acked.add(counts.acked, ordering: .relaxed) }
                    if counts.rejected > 0 { run.rejected.add(counts.rejected, ordering: .relaxed) }
                }
            } catch {
                if !run.stopped.load(ordering: .relaxed) { run.fail("member \(member): read failed: \(error)") }
            }
            if !run.stopped.load(ordering: .relaxed) && !loggedIn { run.fail("member \(member): closed before LOGI") }
            var lag: [UInt32] = []
            for await part in group { lag += part }
            return lag
        }
        log.senderLagUs = lag
        run.finish(log)
    }

    /// Sends this member's messages at their due times. A late message is sent at once, still
    /// stamped with its due time. Returns the send lag (µs) of messages in the measured window.
    func sendLoop(_ outbound: WebSocketOutboundWriter) async -> [UInt32] {
        defer { run.sendersDone.add(1, ordering: .relaxed) }
        guard let start = await run.start.wait() else { return [] }
        let schedule = run.schedule
        let count = schedule.count(sender: member)
        let prefix = #"MESG{"channel_url":"\#(run.channelUrl)","message":""#
        var lag: [UInt32] = []
        lag.reserveCapacity(count)
        for seq in 0..<count {
            let rel = schedule.due(sender: member, seq: seq)
            let due = start + rel
            do { try await Mono.sleep(until: due) } catch { return lag }
            if run.stopped.load(ordering: .relaxed) { return lag }
            let now = Mono.now()
            if schedule.isMeasured(rel) { lag.append(UInt32(clamping: now > due ? (now - due) / 1000 : 0)) }
            let text = BenchText.make(sender: member, seq: seq, scheduled: due, size: schedule.payloadBytes)
            let frame = prefix + text + #"","req_id":"\#(seq)"}"# + "\n"
            do {
                try await outbound.write(.text(frame))
            } catch {
                run.fail("member \(member): send failed: \(error)")
                return lag
            }
            run.sent.add(1, ordering: .relaxed)
        }
        return lag
    }
}
