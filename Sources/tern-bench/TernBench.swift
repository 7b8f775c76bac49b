import ArgumentParser
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// `tern-bench`: open-loop send→receive latency, fan-out and CPU per delivery for one group
/// channel on a running (or spawned) `ternd`. See docs/benchmarks.md.
@main
struct TernBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tern-bench",
        abstract: "Measure send→receive latency and fan-out of one group or open channel on ternd (open loop).",
        discussion: """
            N members join one channel, each on its own WebSocket (NIO channel handlers on --threads event loops). \
            The first S members send on a fixed schedule (R msg/s in all); every message carries its scheduled send \
            time, and each receiver records receive − scheduled. Pin the processes: \
            `taskset -c 1 tern-bench --spawn ternd --server-cpu 0 …`. `--spawn-fanout` runs the same against \
            `tern-bench fanout-server`, a trivial server, to show what the bench itself costs.
            Exits non-zero when a message was lost, duplicated, rejected or delivered out of order.
            """,
        subcommands: [FanoutServer.self, DecodeBench.self]
    )

    @Option(help: "Base URL of a running ternd, e.g. http://127.0.0.1:8080.")
    var server: String?

    @Option(help: "Path of a ternd binary to start (on a free port and a fresh data directory) and stop at the end.")
    var spawn: String?

    @Flag(
        name: .customLong("spawn-fanout"),
        help: "Start `tern-bench fanout-server` (a trivial fan-out server, to measure the bench itself) and stop it at the end.")
    var spawnFanout = false

    @Option(
        name: .customLong("fanout-coalescing-us"),
        help:
            "With --spawn-fanout: the server writes each connection's frames this many µs after the first (several messages per read, like ternd's write coalescing); 0: once per loop turn."
    )
    var fanoutCoalescingUs = 0

    @Option(name: .customLong("server-cpu"), help: "With --spawn or --spawn-fanout: CPUs to pin the server to (taskset -c), e.g. 0.")
    var serverCPU: String?

    @Option(name: .customLong("api-token"), help: "With --server: the Platform API token.")
    var apiToken: String?

    @Option(name: .customLong("server-pid"), help: "With --server: ternd's PID, to report its CPU per delivery.")
    var serverPid: Int32?

    @Option(name: .customLong("app-id"), help: "Application id (`ai`).")
    var appId = "LOCAL"

    @Option(
        name: .customLong("channel-type"),
        help: "group (members through the Platform API, 2–100) or open (each connection enters with ENTR, 2–\(Self.maxOpenMembers)).")
    var channelType = ChannelType.group

    @Option(help: "Channel members, each with one WebSocket.")
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

    @Option(help: "Event-loop threads for the bench's sockets (1 when the bench is pinned to one core).")
    var threads = 1

    @Option(
        help:
            "Before the run, open this many extra idle WebSockets (distinct users) and keep them open through it; reports the server's RSS per connection."
    )
    var ramp = 0

    @Option(name: .customLong("ramp-batch"), help: "Idle connections opened at once during --ramp.")
    var rampBatch = 500

    @Option(help: "perf record -g the server for this many seconds from the start of the measured window, and print the top of perf report.")
    var profile: Double?

    @Option(
        name: .customLong("node"),
        help:
            "With --server: another node of the same cluster (http://HOST:PORT; repeat for more). Members connect to --server and these in turn (member i to node i mod n); latency is also reported for deliveries across nodes and within a node."
    )
    var nodes: [String] = []

    @Option(name: .customLong("rest-probe"), help: "After the run, time this many calls each of a few Platform API listing/history calls (p50/p99).")
    var restProbe = 0

    /// Per-user flood limit of a ternd started without `--max-messages-per-second`.
    static let defaultFloodLimit = 5.0
    /// Most members an open-channel run takes (each is a socket of the bench's).
    static let maxOpenMembers = 10_000
    /// Members (and ramp connections) connecting at once.
    static let connectBatch = 200

    var senderCount: Int { senders ?? min(members, Int((rate / 4).rounded(.up))) }

    /// The options' checks. Not `validate()`: ArgumentParser validates the root command before a
    /// subcommand (`fanout-server`) too, and these checks are for a bench run only.
    func check() throws {
        guard [server != nil, spawn != nil, spawnFanout].filter({ $0 }).count == 1 else {
            throw ValidationError("Give exactly one of --server, --spawn and --spawn-fanout.")
        }
        if server != nil && apiToken == nil { throw ValidationError("--server needs --api-token.") }
        if server == nil && !nodes.isEmpty { throw ValidationError("--node is for --server (a running cluster).") }
        if server == nil && serverPid != nil { throw ValidationError("--server-pid is for --server; a spawned server's PID is known.") }
        if !spawnFanout && fanoutCoalescingUs != 0 { throw ValidationError("--fanout-coalescing-us is for --spawn-fanout.") }
        guard fanoutCoalescingUs >= 0 else { throw ValidationError("--fanout-coalescing-us must not be negative.") }
        if server != nil && serverCPU != nil { throw ValidationError("--server-cpu is for a spawned server; pin your own server with taskset.") }
        switch channelType {
        case .group:
            guard (2...100).contains(members) else { throw ValidationError("--members must be 2…100 (a group channel holds at most 100).") }
        case .open:
            guard (2...Self.maxOpenMembers).contains(members) else {
                throw ValidationError("--members must be 2…\(Self.maxOpenMembers) for an open channel.")
            }
        }
        guard rate > 0, duration > 0, warmup >= 0, drainTimeout >= 0 else { throw ValidationError("--rate and --duration must be positive.") }
        guard (1...members).contains(senderCount) else { throw ValidationError("--senders must be 1…--members.") }
        guard payloadBytes >= 1 else { throw ValidationError("--payload-bytes must be at least 1.") }
        guard threads >= 1, ramp >= 0, rampBatch >= 1, restProbe >= 0 else {
            throw ValidationError("--threads, --ramp-batch must be positive; --ramp, --rest-probe not negative.")
        }
        if let profile, profile <= 0 { throw ValidationError("--profile must be positive.") }
    }

    func run() async throws {
        try check()
        let fileLimit = raiseOpenFileLimit()
        // The bench's own sockets, plus some for the REST session, perf and stdio.
        guard UInt64(members + ramp + 64) <= fileLimit else {
            throw ValidationError("--members + --ramp need \(members + ramp + 64) file descriptors; the open-file limit is \(fileLimit).")
        }
        var schedule = Schedule(
            members: members, senders: senderCount, rate: rate, warmupNs: UInt64(warmup * 1e9),
            durationNs: UInt64(duration * 1e9), payloadBytes: payloadBytes)
        schedule.nodes = 1 + nodes.count
        let perSender = rate / Double(schedule.senders)
        // Spread over enough senders to stay under the per-user flood limit; when the channel has
        // too few members for that, a spawned server runs with the limit off.
        let floodLimitOff = perSender > Self.defaultFloodLimit * 0.8
        var spawned: SpawnedServer?
        if let spawn {
            var extra = floodLimitOff ? ["--max-messages-per-second", "0"] : []
            if channelType == .open {
                // ternd broadcasts 5 messages a second per open channel and holds 1000 participants by default.
                extra += ["--open-channel-messages-per-second", "0", "--max-open-channel-participants", String(max(1000, members))]
            }
            spawned = try await SpawnedServer.startTernd(spawn, cpus: serverCPU, appId: appId, extraArguments: extra)
        } else if spawnFanout {
            spawned = try await SpawnedServer.startFanout(cpus: serverCPU, appId: appId, coalescingUs: fanoutCoalescingUs)
        } else {
            if floodLimitOff {
                print(
                    "warning: \(fmt(perSender)) msg/s per sender is over ternd's default flood limit (5/s per user); "
                        + "run the server with --max-messages-per-second 0 or messages will be rejected.")
            }
            if channelType == .open {
                print(
                    "warning: ternd broadcasts at most 5 messages a second per open channel and holds 1000 participants "
                        + "by default; run it with --open-channel-messages-per-second 0 and --max-open-channel-participants ≥ --members.")
            }
        }
        if let spawned { SignalGuard.install(spawned) }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        let passed: Bool
        do {
            passed = try await bench(schedule, spawned: spawned, group: group, floodLimitOff: floodLimitOff, fileLimit: fileLimit)
        } catch {
            try? await group.shutdownGracefully()
            spawned?.stop()
            throw error
        }
        try? await group.shutdownGracefully()
        spawned?.stop()
        if !passed { throw ExitCode(1) }
    }

    func bench(_ schedule: Schedule, spawned: SpawnedServer?, group: any EventLoopGroup, floodLimitOff: Bool, fileLimit: UInt64)
        async throws -> Bool
    {
        let base = spawned?.baseURL ?? server!.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let pid = spawned?.pid ?? serverPid
        let api = PlatformAPI(base: base, apiToken: spawned?.apiToken ?? apiToken!)
        guard let parsed = URL(string: base), parsed.scheme == "http", let host = parsed.host else {
            throw BenchError(description: "--server must be http://HOST:PORT (the bench speaks plain ws://), not \(base)")
        }
        let target = WebSocketTarget(host: host, port: parsed.port ?? 80, appId: appId)
        var targets = [target]
        for node in nodes {
            guard let u = URL(string: node), u.scheme == "http", let h = u.host else {
                throw BenchError(description: "--node must be http://HOST:PORT, not \(node)")
            }
            targets.append(WebSocketTarget(host: h, port: u.port ?? 80, appId: appId))
        }

        printHeader(schedule, spawned: spawned, pid: pid, floodLimitOff: floodLimitOff, fileLimit: fileLimit)
        let setupStart = Mono.now()
        let prefix = "bench-" + SpawnedServer.randomHex(4) + "-"
        let userIds = (0..<schedule.members).map { prefix + String(format: "%03d", $0) }
        let channelUrl: String
        switch channelType {
        case .group:
            for id in userIds { try await api.createUser(id) }
            channelUrl = try await api.createChannel(userIds: userIds, name: "tern-bench")
        case .open:
            // Users are created by their WebSocket login (no access token required).
            channelUrl = try await api.createOpenChannel(url: prefix + "open", name: "tern-bench")
        }
        let run = RunState(schedule: schedule, channelUrl: channelUrl, channelType: channelType)

        // Every member logged in (and entered), or give up.
        var connections: [MemberConnection] = []
        var connectErrors: [String] = []
        for first in stride(from: 0, to: schedule.members, by: Self.connectBatch) {
            let batch = first..<min(schedule.members, first + Self.connectBatch)
            let opening = batch.map {
                MemberConnection.open(member: $0, userId: userIds[$0], target: targets[$0 % targets.count], run: run, on: group.next())
            }
            for (i, future) in zip(batch, opening) {
                do { connections.append(try await future.get()) } catch { connectErrors.append("member \(i): \(error)") }
            }
        }
        guard connectErrors.isEmpty else {
            for c in connections { _ = try? await c.finish().get() }
            throw BenchError(
                description: "not every member got ready (\(connections.count)/\(schedule.members)): "
                    + connectErrors.prefix(5).joined(separator: "; "))
        }
        print(
            "setup: \(channelType == .group ? "\(schedule.members) users" : "users created at login"), 1 \(channelType.rawValue) channel, "
                + "\(schedule.members) sockets logged in\(channelType == .open ? " and entered" : ""), "
                + String(format: "%.2f s", Double(Mono.now() - setupStart) / 1e9))

        var idle: Ramp?
        if ramp > 0 {
            idle = await Ramp.open(
                count: ramp, batch: rampBatch, target: target, group: group, serverPid: pid,
                userPrefix: "idle-" + SpawnedServer.randomHex(4) + "-")
        }

        print("running: \(fmt(warmup)) s warm-up + \(fmt(duration)) s measured, then up to \(fmt(drainTimeout)) s drain…")
        let start = Mono.now() + 200_000_000
        for c in connections { c.begin(start: start) }
        try? await Mono.sleep(until: start + schedule.warmupNs)
        let a = CPUSample.take(serverPid: pid, run: run)
        let profiler = profile.flatMap { Profiler.start(pid: pid, seconds: $0) }
        try? await Mono.sleep(until: start + schedule.totalNs)
        let b = CPUSample.take(serverPid: pid, run: run)
        let window = CPUWindow(a, b)

        // Senders that fell behind finish late; then wait for outstanding acks and pushes.
        let sendDeadline = Mono.now() + 60_000_000_000
        while run.sendersDone.load(ordering: .relaxed) < schedule.senders && run.failed.load(ordering: .relaxed) == 0
            && Mono.now() < sendDeadline
        {
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
        let drainSeconds = Double(Mono.now() - drainStart) / 1e9

        // Stop recording, collect every member's log, close.
        var logs: [ReceiverLog] = []
        for c in connections {
            if let log = try? await c.finish().get() { logs.append(log) }
        }
        var extra: [String] = []
        if let idle {
            extra += idle.lines
            await idle.close()
        }
        if let profiler { extra += await profiler.finish() }
        if restProbe > 0 {
            extra += await RestProbe.run(api, calls: restProbe, channelUrl: channelUrl, channelType: channelType)
        }
        let report = Report(logs: logs, schedule: schedule, sent: run.sent.load(ordering: .relaxed))
        let failures =
            run.failureMessages
            + (idle.map { $0.state.dropped.load(ordering: .relaxed) > 0 } == true
                ? ["\(idle!.state.dropped.load(ordering: .relaxed)) idle ramp connections dropped during the run"] : [])
        printReport(report, schedule: schedule, window: window, drainSeconds: drainSeconds, extra: extra, failures: failures)
        return report.passed && failures.isEmpty
    }

    func printHeader(_ s: Schedule, spawned: SpawnedServer?, pid: Int32?, floodLimitOff: Bool, fileLimit: UInt64) {
        print(
            "tern-bench: \(s.members) members of one \(channelType.rawValue) channel, \(fmt(s.rate)) msg/s from \(s.senders) senders "
                + "(\(fmt(s.rate / Double(s.senders))) msg/s each), \(s.payloadBytes) B text, "
                + "warm-up \(fmt(warmup)) s, measured \(fmt(duration)) s")
        let pinned = pid.flatMap { CPUSample.allowedCPUs(String($0)) } ?? "?"
        if let spawned, spawned.name == "ternd" {
            print(
                "server: spawned ternd pid \(spawned.pid) at \(spawned.baseURL), CPUs \(pinned), "
                    + "flood limit \(floodLimitOff ? "off (--max-messages-per-second 0)" : "on (5/s per user)")"
                    + (channelType == .open ? ", open-channel broadcast limit off, \(max(1000, s.members)) participants allowed" : ""))
        } else if let spawned {
            print(
                "server: spawned \(spawned.name) pid \(spawned.pid) at \(spawned.baseURL), CPUs \(pinned) (the trivial fan-out server: this run measures the bench; "
                    + (fanoutCoalescingUs > 0 ? "writes coalesced for \(fanoutCoalescingUs) µs)" : "one write per connection per loop turn)"))
        } else {
            print("server: \(server ?? "") pid \(pid.map(String.init) ?? "unknown (no --server-pid: no server CPU figures)"), CPUs \(pinned)")
        }
        print(
            "client: pid \(getpid()), CPUs \(CPUSample.allowedCPUs("self") ?? "?"), nproc \(ProcessInfo.processInfo.activeProcessorCount), "
                + "\(threads) event-loop thread\(threads == 1 ? "" : "s"), open-file limit \(fileLimit)")
    }

    func printReport(_ r: Report, schedule: Schedule, window: CPUWindow?, drainSeconds: Double, extra: [String], failures: [String]) {
        let others = schedule.members - 1
        print("")
        print("latency, scheduled send → receive, deliveries of messages due in the measured window:")
        print("  " + Report.distribution(r.latencyUs, expected: r.measuredScheduled * others))
        if r.latencyUs.count < r.measuredScheduled * others {
            print("  received ones only: " + Report.distribution(r.latencyUs, expected: r.latencyUs.count))
        }
        if schedule.nodes > 1 {
            print("  across nodes (sender on another node): " + Report.distribution(r.crossNodeLatencyUs, expected: r.crossNodeLatencyUs.count))
            print("  within a node:                         " + Report.distribution(r.sameNodeLatencyUs, expected: r.sameNodeLatencyUs.count))
        }
        print("ack latency, scheduled send → sender's ack:")
        print("  " + Report.distribution(r.ackLatencyUs, expected: r.measuredScheduled))
        print("sender lag, actual − scheduled write (client side):")
        print("  " + Report.distribution(r.senderLagUs, expected: r.measuredScheduled))
        print("")
        print("offered: \(fmt(schedule.rate)) msg/s → \(fmt(schedule.rate * Double(others))) deliveries/s")
        if let w = window {
            print(
                "done during the measured window: \(fmt(Double(w.acks) / w.wallSeconds)) msg/s acked, "
                    + "\(fmt(Double(w.deliveries) / w.wallSeconds)) deliveries/s received")
        }
        print(
            "messages: sent \(r.sent), acked \(r.acked), rejected \(r.rejected)"
                + (r.errors.isEmpty ? "" : " (codes \(r.errors.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: ", ")))")
                + String(format: ", drain %.2f s of %.0f s allowed", drainSeconds, drainTimeout))
        print(
            "correctness: lost \(r.lost) (acked, but not received within the drain timeout), duplicates \(r.duplicates), "
                + "duplicate acks \(r.duplicateAcks), delivered-but-unacked \(r.deliveredUnacked), "
                + "order violations \(r.orderViolations) (per sender seq) / \(r.channelOrderViolations) (channel msg_id), strays \(r.strays)")
        if let w = window {
            if let server = w.serverUs, let share = w.serverCoreShare {
                let perDelivery = w.deliveries > 0 ? String(format: "%.2f", server / Double(w.deliveries)) : "n/a"
                let perMessage = w.acks > 0 ? String(format: "%.0f", server / Double(w.acks)) : "n/a"
                print(
                    String(format: "server CPU: %.2f s over %.1f s = %.0f%% of a core; ", server / 1e6, w.wallSeconds, share * 100)
                        + "\(perDelivery) µs per delivery, \(perMessage) µs per message")
                if let s = w.serverSwitches, w.acks > 0 {
                    // Issue 35: how many times a message puts a server thread to sleep and wakes it.
                    print(
                        String(
                            format: "server threads: %.1f wake-ups (voluntary context switches) and %.1f preemptions per message",
                            Double(s.voluntary) / Double(w.acks), Double(s.involuntary) / Double(w.acks))
                            + (s.endedThreads > 0 ? " (\(s.endedThreads) thread(s) ended during the window, not counted)" : ""))
                }
                if share > 0.9 {
                    print(
                        "NOTE: the server was saturated (>90% of a core): the offered rate exceeds its capacity, so "
                            + "latency grows with the length of the run and is not a steady-state figure.")
                }
            } else {
                print("server CPU: unknown (pass --server-pid)")
            }
            let clientPerDelivery = w.deliveries > 0 ? String(format: "%.2f", w.clientUs / Double(w.deliveries)) : "n/a"
            print(
                String(format: "client CPU: %.0f%% of a core; ", w.clientCoreShare * 100)
                    + "\(clientPerDelivery) µs per delivery (the bench's own CPU, getrusage, ÷ deliveries received in the window)")
            if w.clientCoreShare > 0.8 {
                print("WARNING: the client used more than 80% of a core: the run is INVALID (the latency is the client's).")
            }
        }
        for line in extra { print(line) }
        for f in failures.prefix(10) { print("failure: \(f)") }
        print(r.passed && failures.isEmpty ? "RESULT: PASS (nothing lost, duplicated, rejected or reordered)" : "RESULT: FAIL")
    }

    func fmt(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int(x)) : String(format: "%.1f", x)
    }
}

extension ChannelType: ExpressibleByArgument {}

/// A run that could not be carried out (as opposed to one that ran and found problems).
struct BenchError: Error, CustomStringConvertible {
    let description: String
}

/// Writes a line straight to standard output (unbuffered, so progress shows at once when piped).
func print(_ line: String = "") {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
