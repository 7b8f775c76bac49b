import ArgumentParser
import Foundation

/// `tern-bench`: open-loop send→receive latency, fan-out and CPU per delivery for one group
/// channel on a running (or spawned) `ternd`. See docs/benchmarks.md.
@main
struct TernBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tern-bench",
        abstract: "Measure send→receive latency and fan-out of one group channel on ternd (open loop).",
        discussion: """
            N members join one group channel, each on its own WebSocket. The first S members send on a fixed \
            schedule (R msg/s in all); every message carries its scheduled send time, and each receiver records \
            receive − scheduled. Pin the processes: `taskset -c 1 tern-bench --spawn ternd --server-cpu 0 …`.
            Exits non-zero when a message was lost, duplicated, rejected or delivered out of order.
            """
    )

    @Option(help: "Base URL of a running ternd, e.g. http://127.0.0.1:8080.")
    var server: String?

    @Option(help: "Path of a ternd binary to start (on a free port and a fresh data directory) and stop at the end.")
    var spawn: String?

    @Option(name: .customLong("server-cpu"), help: "With --spawn: CPUs to pin ternd to (taskset -c), e.g. 0.")
    var serverCPU: String?

    @Option(name: .customLong("api-token"), help: "With --server: the Platform API token.")
    var apiToken: String?

    @Option(name: .customLong("server-pid"), help: "With --server: ternd's PID, to report its CPU per delivery.")
    var serverPid: Int32?

    @Option(name: .customLong("app-id"), help: "Application id (`ai`).")
    var appId = "LOCAL"

    @Option(help: "Channel members, each with one WebSocket (2–100: a group channel's limit).")
    var members = 100

    @Option(help: "Messages per second, all senders together.")
    var rate = 1000.0

    @Option(help: "Measured window, seconds.")
    var duration = 10.0

    @Option(help: "Warm-up before the measured window, seconds (sent, checked, not in the statistics).")
    var warmup = 2.0

    @Option(help: "How many members send (default: ceil(rate / 4), at most --members).")
    var senders: Int?

    @Option(name: .customLong("payload-bytes"), help: "Length of each message's text.")
    var payloadBytes = 100

    @Option(name: .customLong("drain-timeout"), help: "Seconds to wait for outstanding deliveries after the last send.")
    var drainTimeout = 5.0

    /// Per-user flood limit of a ternd started without `--max-messages-per-second`.
    static let defaultFloodLimit = 5.0

    var senderCount: Int { senders ?? min(members, Int((rate / 4).rounded(.up))) }

    func validate() throws {
        guard (server == nil) != (spawn == nil) else { throw ValidationError("Give exactly one of --server and --spawn.") }
        if server != nil && apiToken == nil { throw ValidationError("--server needs --api-token.") }
        if spawn != nil && serverPid != nil { throw ValidationError("--server-pid is for --server; --spawn knows the PID.") }
        if server != nil && serverCPU != nil { throw ValidationError("--server-cpu is for --spawn; pin your own server with taskset.") }
        guard (2...100).contains(members) else { throw ValidationError("--members must be 2…100 (a group channel holds at most 100).") }
        guard rate > 0, duration > 0, warmup >= 0, drainTimeout >= 0 else { throw ValidationError("--rate and --duration must be positive.") }
        guard (1...members).contains(senderCount) else { throw ValidationError("--senders must be 1…--members.") }
        guard payloadBytes >= 1 else { throw ValidationError("--payload-bytes must be at least 1.") }
    }

    func run() async throws {
        let schedule = Schedule(
            members: members, senders: senderCount, rate: rate, warmupNs: UInt64(warmup * 1e9),
            durationNs: UInt64(duration * 1e9), payloadBytes: payloadBytes)
        let perSender = rate / Double(schedule.senders)
        // Spread over enough senders to stay under the per-user flood limit; when the channel has
        // too few members for that, a spawned server runs with the limit off.
        let floodLimitOff = perSender > Self.defaultFloodLimit * 0.8
        var spawned: SpawnedServer?
        if let spawn {
            let s = try await SpawnedServer.start(ternd: spawn, cpus: serverCPU, appId: appId, floodLimitOff: floodLimitOff)
            SignalGuard.install(s)
            spawned = s
        } else if floodLimitOff {
            print("warning: \(fmt(perSender)) msg/s per sender is over ternd's default flood limit (5/s per user); "
                + "run the server with --max-messages-per-second 0 or messages will be rejected.")
        }
        let passed: Bool
        do {
            passed = try await bench(schedule, spawned: spawned, floodLimitOff: floodLimitOff)
        } catch {
            spawned?.stop()
            throw error
        }
        spawned?.stop()
        if !passed { throw ExitCode(1) }
    }

    func bench(_ schedule: Schedule, spawned: SpawnedServer?, floodLimitOff: Bool) async throws -> Bool {
        let base = spawned?.baseURL ?? server!.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let pid = spawned?.pid ?? serverPid
        let api = PlatformAPI(base: base, apiToken: spawned?.apiToken ?? apiToken!)
        let wsBase = base.replacingOccurrences(of: "https://", with: "wss://").replacingOccurrences(of: "http://", with: "ws://")

        printHeader(schedule, spawned: spawned, pid: pid, floodLimitOff: floodLimitOff)
        let setupStart = Mono.now()
        let prefix = "bench-" + SpawnedServer.randomHex(4) + "-"
        let userIds = (0..<schedule.members).map { prefix + String(format: "%03d", $0) }
        for id in userIds { try await api.createUser(id) }
        let channelUrl = try await api.createChannel(userIds: userIds, name: "tern-bench")

        let run = RunState(schedule: schedule, channelUrl: channelUrl)
        var window: CPUWindow?
        var drainSeconds = 0.0
        var abort: String?
        await withTaskGroup(of: Void.self) { group in
            for (i, id) in userIds.enumerated() {
                let url = "\(wsBase)/?ai=\(appId)&user_id=\(id)"
                group.addTask { await MemberConnection(member: i, url: url, run: run).run() }
            }
            defer { run.start.fire(nil); run.finish() }
            // Every socket logged in, or give up.
            let loginDeadline = Mono.now() + 30_000_000_000
            while run.loggedIn.load(ordering: .relaxed) < schedule.members {
                if run.failed.load(ordering: .relaxed) > 0 || Mono.now() > loginDeadline {
                    abort = "not every member logged in (\(run.loggedIn.load(ordering: .relaxed))/\(schedule.members))"
                    return
                }
                try? await Task.sleep(nanoseconds: 5_000_000)
            }
            print(String(format: "setup: %d users, 1 channel, %d sockets logged in, %.2f s", schedule.members, schedule.members,
                Double(Mono.now() - setupStart) / 1e9))

            print("running: \(fmt(warmup)) s warm-up + \(fmt(duration)) s measured, then up to \(fmt(drainTimeout)) s drain…")
            let start = Mono.now() + 200_000_000
            run.start.fire(start)
            try? await Mono.sleep(until: start + schedule.warmupNs)
            let a = CPUSample.take(serverPid: pid, run: run)
            try? await Mono.sleep(until: start + schedule.totalNs)
            let b = CPUSample.take(serverPid: pid, run: run)
            window = CPUWindow(a, b)

            // Senders that fell behind finish late; then wait for outstanding acks and pushes.
            let sendDeadline = Mono.now() + 60_000_000_000
            while run.sendersDone.load(ordering: .relaxed) < schedule.senders && Mono.now() < sendDeadline {
                try? await Task.sleep(nanoseconds: 5_000_000)
            }
            let drainStart = Mono.now()
            let drainDeadline = drainStart + UInt64(drainTimeout * 1e9)
            while Mono.now() < drainDeadline {
                let sent = run.sent.load(ordering: .relaxed)
                let acked = run.acked.load(ordering: .relaxed)
                let answered = acked + run.rejected.load(ordering: .relaxed)
                if answered >= sent && run.delivered.load(ordering: .relaxed) >= acked * (schedule.members - 1) { break }
                try? await Task.sleep(nanoseconds: 5_000_000)
            }
            drainSeconds = Double(Mono.now() - drainStart) / 1e9
        }
        let failures = run.failureMessages
        if let abort {
            throw BenchError(description: "\(abort): \(failures.prefix(5).joined(separator: "; "))")
        }
        let report = Report(logs: run.allLogs, schedule: schedule, sent: run.sent.load(ordering: .relaxed))
        printReport(report, schedule: schedule, window: window, drainSeconds: drainSeconds, failures: failures)
        return report.passed && failures.isEmpty
    }

    func printHeader(_ s: Schedule, spawned: SpawnedServer?, pid: Int32?, floodLimitOff: Bool) {
        print("tern-bench: \(s.members) members, \(fmt(s.rate)) msg/s from \(s.senders) senders "
            + "(\(fmt(s.rate / Double(s.senders))) msg/s each), \(s.payloadBytes) B text, "
            + "warm-up \(fmt(warmup)) s, measured \(fmt(duration)) s")
        let pinned = pid.flatMap { CPUSample.allowedCPUs(String($0)) } ?? "?"
        if let spawned {
            print("server: spawned ternd pid \(spawned.pid) at \(spawned.baseURL), CPUs \(pinned), "
                + "flood limit \(floodLimitOff ? "off (--max-messages-per-second 0)" : "on (5/s per user)")")
        } else {
            print("server: \(server ?? "") pid \(pid.map(String.init) ?? "unknown (no --server-pid: no server CPU figures)"), CPUs \(pinned)")
        }
        print("client: pid \(getpid()), CPUs \(CPUSample.allowedCPUs("self") ?? "?"), nproc \(ProcessInfo.processInfo.activeProcessorCount)")
    }

    func printReport(_ r: Report, schedule: Schedule, window: CPUWindow?, drainSeconds: Double, failures: [String]) {
        let others = schedule.members - 1
        print("")
        print("latency, scheduled send → receive, deliveries of messages due in the measured window:")
        print("  " + Report.distribution(r.latencyUs, expected: r.measuredScheduled * others))
        if r.latencyUs.count < r.measuredScheduled * others {
            print("  received ones only: " + Report.distribution(r.latencyUs, expected: r.latencyUs.count))
        }
        print("ack latency, scheduled send → sender's ack:")
        print("  " + Report.distribution(r.ackLatencyUs, expected: r.measuredScheduled))
        print("sender lag, actual − scheduled write (client side):")
        print("  " + Report.distribution(r.senderLagUs, expected: r.measuredScheduled))
        print("")
        print("offered: \(fmt(schedule.rate)) msg/s → \(fmt(schedule.rate * Double(others))) deliveries/s")
        if let w = window {
            print("done during the measured window: \(fmt(Double(w.acks) / w.wallSeconds)) msg/s acked, "
                + "\(fmt(Double(w.deliveries) / w.wallSeconds)) deliveries/s received")
        }
        print("messages: sent \(r.sent), acked \(r.acked), rejected \(r.rejected)"
            + (r.errors.isEmpty ? "" : " (codes \(r.errors.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: ", ")))")
            + String(format: ", drain %.2f s of %.0f s allowed", drainSeconds, drainTimeout))
        print("correctness: lost \(r.lost) (acked, but not received within the drain timeout), duplicates \(r.duplicates), "
            + "duplicate acks \(r.duplicateAcks), delivered-but-unacked \(r.deliveredUnacked), "
            + "order violations \(r.orderViolations) (per sender seq) / \(r.channelOrderViolations) (channel msg_id), strays \(r.strays)")
        if let w = window {
            if let server = w.serverUs, let share = w.serverCoreShare {
                let perDelivery = w.deliveries > 0 ? String(format: "%.2f", server / Double(w.deliveries)) : "n/a"
                let perMessage = w.acks > 0 ? String(format: "%.0f", server / Double(w.acks)) : "n/a"
                print(String(format: "server CPU: %.2f s over %.1f s = %.0f%% of a core; ", server / 1e6, w.wallSeconds, share * 100)
                    + "\(perDelivery) µs per delivery, \(perMessage) µs per message")
                if share > 0.9 {
                    print("NOTE: the server was saturated (>90% of a core): the offered rate exceeds its capacity, so "
                        + "latency grows with the length of the run and is not a steady-state figure.")
                }
            } else {
                print("server CPU: unknown (pass --server-pid)")
            }
            print(String(format: "client CPU: %.0f%% of a core", w.clientCoreShare * 100))
            if w.clientCoreShare > 0.8 {
                print("WARNING: the client used more than 80% of a core: the run is INVALID (the latency is the client's).")
            }
        }
        for f in failures.prefix(10) { print("failure: \(f)") }
        print(r.passed && failures.isEmpty ? "RESULT: PASS (nothing lost, duplicated, rejected or reordered)" : "RESULT: FAIL")
    }

    func fmt(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int(x)) : String(format: "%.1f", x)
    }
}

/// A run that could not be carried out (as opposed to one that ran and found problems).
struct BenchError: Error, CustomStringConvertible {
    let description: String
}

/// Writes a line straight to standard output (unbuffered, so progress shows at once when piped).
func print(_ line: String = "") {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
