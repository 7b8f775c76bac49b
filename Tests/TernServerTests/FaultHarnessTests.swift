import Foundation
import Logging
import Synchronization
import TernProtocol
import TernTestSupport
import Testing
import WSClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The fault harness (issue 34): two real `ternd` processes on one PostgreSQL, each through a TCP
/// proxy that can cut, delay or refuse its link; users on both nodes sending all the time; and a
/// series of faults, each a phase with the load running through it. A recorder keeps every send
/// (its `req_id`), every acknowledgement and error, and every message each live connection
/// received, with times; a checker then proves what ternd promises (docs/reliability.md):
///
/// - every acknowledged message is in both nodes' history exactly once, and both histories are
///   the same, in the same order; a send never acknowledged is stored at most once;
/// - every connection receives its channels' messages in order, without duplicates; one that
///   stayed connected through the run received every stored message it did not send; one that
///   reconnected fills its gap from the history;
/// - unread counts are the same on both nodes, and what the history says they must be.
///
/// It prints a table a phase a row (sends, acknowledgements, errors, unanswered, the slowest
/// acknowledgement on each node, the time to the first acknowledgement after the fault ended);
/// `TERN_FAULT_REPORT=FILE` writes it to FILE too. Run it with
/// `TERN_CLUSTER_TESTS=1 swift test --filter FaultHarnessTests`.
@Suite(
    "Fault harness: two ternd processes on one PostgreSQL, faults in phases under load", .serialized,
    .enabled(if: PostgresTestCluster.clusterTestsEnabled))
struct FaultHarnessTests {
    @Test(
        "Cut, latency, pause, database restart, kill -9, client restart: nothing acknowledged lost or doubled, same history on both nodes, every member served"
    )
    func phasesUnderLoad() async throws {
        let pg = try await PostgresTestCluster.offPool { try PostgresTestCluster.start() }
        defer { pg.destroy() }
        let db = try await PostgresTestCluster.offPool { try pg.createDatabase() }
        let harness = try await FaultHarness.start(database: db, postgresPort: pg.port)
        do {
            try await harness.run(pg)
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }
}

extension FaultHarnessTests {
    @Test(
        "A node frozen while it holds one channel's lock holds up that channel only: the other node's sends to other channels are acknowledged meanwhile"
    )
    func stalledLockHoldsOneChannel() async throws {
        let cluster = try await PostgresTestCluster.shared()
        let db = try await PostgresTestCluster.offPool { try cluster.createDatabase() }
        // Node B talks to PostgreSQL through a proxy that freezes its link mid-transaction.
        let (proxy, viaProxy) = try await ClusterTests.proxied(db, postgresPort: cluster.port)
        let a = try await ClusterTests.startNodes(1, database: db)[0]
        let b = try await ClusterTests.startNodes(1, database: viaProxy)[0]
        do {
            try await a.createUsers(["alice", "bob", "carol"])
            let x = try await a.createChannel(["alice", "bob"])
            let y = try await a.createChannel(["alice", "carol"])
            let (alice, _) = try await a.login("alice")
            let (bob, _) = try await b.login("bob")
            // Bob's message to X: node B's transaction takes X's lock, stores the message, and its
            // link freezes right after (the counters' UPDATE reached the database, nothing more).
            proxy.stallAfter("frozen-marker", then: "UPDATE")
            bob.send("MESG", ["channel_url": x, "message": "frozen-marker", "req_id": "b1"])
            for _ in 0..<200 where proxy.cuts == 0 { try await Task.sleep(for: .milliseconds(50)) }
            #expect(proxy.cuts == 1, "node B froze inside the transaction")
            // Alice, on node A: X waits for B's lock (its own fault); Y must not wait with it.
            alice.send("MESG", ["channel_url": x, "message": "x1", "req_id": "a1"])
            alice.send("MESG", ["channel_url": y, "message": "y1", "req_id": "a2"])
            let y1 = await alice.next("MESG", timeout: .seconds(10)) { $0["req_id"] as? String == "a2" }
            #expect(y1 != nil, "the send to Y was acknowledged while node B held X's lock")
            #expect(!alice.all("MESG").contains { $0["req_id"] as? String == "a1" }, "X's send waits for the lock")
            proxy.heal()
            let x1 = await alice.next("MESG", timeout: .seconds(30)) { $0["req_id"] as? String == "a1" }
            let marker = await bob.next("MESG", timeout: .seconds(30)) { $0["req_id"] as? String == "b1" }
            #expect(x1 != nil && marker != nil, "both of X's sends are acknowledged once B goes on")
            let history = try await a.request("GET", "/v3/group_channels/\(x)/messages?message_ts=0&prev_limit=0&next_limit=10")
            let texts = ((history.json["messages"] as? [[String: Any]]) ?? []).compactMap { $0["message"] as? String }
            #expect(texts == ["frozen-marker", "x1"], "X in lock order: \(texts)")
            for s in [alice, bob] { await s.close() }
        } catch {
            for n in [a, b] { await n.stop() }
            await proxy.stop()
            throw error
        }
        for n in [a, b] { await n.stop() }
        await proxy.stop()
    }
}

/// One node: a `ternd` child process whose PostgreSQL link goes through its own proxy.
final class HarnessNode: @unchecked Sendable {
    let name: String
    let proxy: FaultProxy
    let database: String
    let dataDirectory = makeTempDirectory()
    let token: String
    private let current = Mutex<TerndProcess?>(nil)

    init(name: String, proxy: FaultProxy, database: String, token: String) {
        self.name = name
        self.proxy = proxy
        self.database = database
        self.token = token
    }

    var process: TerndProcess? { current.withLock { $0 } }
    var port: Int { process?.port ?? 0 }

    func launch() async throws {
        let (dir, token, db, id) = (dataDirectory, token, database, "\(name)-\(UUID().uuidString.prefix(6))")
        let p = try await PostgresTestCluster.offPool {
            try TerndProcess.start(dataDirectory: dir, apiToken: token, extra: ["--database", db, "--node-id", id])
        }
        current.withLock { $0 = p }
    }

    func signal(_ sig: Int32) {
        if let p = process, p.process.isRunning { kill(p.process.processIdentifier, sig) }
    }

    func kill9() async {
        guard let p = process else { return }
        _ = try? await PostgresTestCluster.offPool { p.stop(signal: SIGKILL) }
    }

    func stop() async {
        guard let p = process else { return }
        signal(SIGCONT)
        _ = try? await PostgresTestCluster.offPool { p.stop() }
    }

    /// A Platform API call to this node.
    func request(_ method: String, _ path: String, body: Any? = nil) async throws -> [String: Any] {
        var req = URLRequest(url: URL(string: "http://127.0.0.1:\(port)" + path)!)
        req.httpMethod = method
        req.setValue(token, forHTTPHeaderField: "Api-Token")
        req.timeoutInterval = 30
        if let body {
            req.httpBody = try JSONSerialization.data(withJSONObject: body)
            req.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: req)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else { throw TestFailure("\(method) \(path) on \(name): \(status) \(String(decoding: data, as: UTF8.self))") }
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }
}

/// A user's WebSocket connection that records every frame with the time it arrived.
final class RecordingSocket: Sendable {
    struct Received: @unchecked Sendable {
        var command: String
        var json: [String: Any]
        var at: ContinuousClock.Instant
    }
    struct State: @unchecked Sendable {
        var received: [Received] = []
        var logi: [String: Any]?
        var closed = false
    }
    final class Box: Sendable { let lock = Mutex(State()) }
    let user: String
    let box = Box()
    let outgoing: AsyncStream<String>.Continuation
    let task: Task<Void, Never>

    init(user: String, port: Int) {
        self.user = user
        let (stream, cont) = AsyncStream<String>.makeStream()
        outgoing = cont
        var logger = Logger(label: "harness-socket")
        logger.logLevel = .critical
        let url = "ws://127.0.0.1:\(port)/?p=JS&pv=test&sv=4.22.7&ai=LOCAL&user_id=\(user)"
        let box = self.box
        task = Task {
            _ = try? await WebSocketClient.connect(url: url, configuration: .init(maxFrameSize: 1 << 20), logger: logger) { inbound, outbound, _ in
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { for await text in stream { try? await outbound.write(.text(text)) } }
                    do {
                        for try await message in inbound.messages(maxSize: 1 << 20) {
                            guard case .text(let text) = message else { continue }
                            let now = ContinuousClock.now
                            let frames = FrameCodec.decode(text).compactMap { try? $0.get() }.compactMap { f -> Received? in
                                guard let json = (try? JSONSerialization.jsonObject(with: f.payload)) as? [String: Any] else { return nil }
                                return Received(command: f.command.rawValue, json: json, at: now)
                            }
                            box.lock.withLock { s in
                                for f in frames where f.command == "LOGI" && s.logi == nil { s.logi = f.json }
                                s.received += frames
                            }
                        }
                    } catch {}
                    group.cancelAll()
                }
            }
            box.lock.withLock { $0.closed = true }
        }
    }

    func send(_ command: String, _ json: [String: Any]) {
        let data = (try? JSONSerialization.data(withJSONObject: json)) ?? Data()
        outgoing.yield(command + String(decoding: data, as: UTF8.self) + "\n")
    }

    var isClosed: Bool { box.lock.withLock { $0.closed } }
    var received: [Received] { box.lock.withLock { $0.received } }

    /// Waits for a successful login.
    func loggedIn() async -> Bool {
        for _ in 0..<400 {
            let (logi, closed) = box.lock.withLock { s -> ([String: Any]?, Bool) in (s.logi, s.closed) }
            if let logi { return logi["error"] == nil }
            if closed { return false }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    func close() async {
        outgoing.finish()
        task.cancel()
        _ = await task.value
    }
}

/// Every send and what became of it.
struct SendRecord {
    var reqId: String
    var user: String
    var channel: String
    var text: String
    var node: String
    var phase: Int
    var sentAt: ContinuousClock.Instant
    var ackAt: ContinuousClock.Instant?
    var messageId: Int64?
    var error: Int?
}

/// A phase's figures, one row of the report.
struct PhaseRow {
    var name: String
    var sends = 0
    var acked = 0
    var errors = 0
    var unanswered = 0
    var slowestAck: [String: Double] = [:]
    var recoveryMs: Double?
}

final class FaultHarness: @unchecked Sendable {
    let nodes: [HarnessNode]
    /// Users and the node each connects through: three on each node.
    let placement: [(user: String, node: Int)] = [("u0", 0), ("u1", 0), ("u2", 0), ("u3", 1), ("u4", 1), ("u5", 1)]
    /// `shared` has everyone; `onA` only users on node A, `onB` only users on node B (the channels a
    /// fault on the other node must not hold up).
    var channels: [String: [String]] = [:]
    let sockets = Mutex<[String: RecordingSocket]>([:])
    /// Sockets that were replaced (their deliveries still count for order and duplicates).
    let retired = Mutex<[RecordingSocket]>([])
    /// Sockets replaced or paused: they are not expected to have received everything live.
    let interrupted = Mutex<Set<String>>([])
    let sends = Mutex<[String: SendRecord]>([:])
    let phase = Atomic<Int>(0)
    let loadOn = Atomic<Bool>(false)
    var rows: [PhaseRow] = []

    init(nodes: [HarnessNode]) { self.nodes = nodes }

    static func start(database: String, postgresPort: Int) async throws -> FaultHarness {
        let token = "harness-\(UUID().uuidString)"
        var nodes: [HarnessNode] = []
        for name in ["A", "B"] {
            let (proxy, viaProxy) = try await ClusterTests.proxied(database, postgresPort: postgresPort)
            let node = HarnessNode(name: name, proxy: proxy, database: viaProxy, token: token)
            nodes.append(node)
            try await node.launch()
        }
        return FaultHarness(nodes: nodes)
    }

    func stop() async {
        loadOn.store(false, ordering: .relaxed)
        for s in sockets.withLock({ Array($0.values) }) + retired.withLock({ $0 }) { await s.close() }
        for n in nodes {
            await n.stop()
            await n.proxy.stop()
        }
    }

    // MARK: - The run

    func run(_ pg: PostgresTestCluster) async throws {
        let (a, b) = (nodes[0], nodes[1])
        let users = placement.map(\.user)
        for u in users { _ = try await a.request("POST", "/v3/users", body: ["user_id": u, "nickname": u, "profile_url": ""]) }
        for (name, members) in [("shared", users), ("onA", ["u0", "u1", "u2"]), ("onB", ["u3", "u4", "u5"])] {
            let r = try await a.request("POST", "/v3/group_channels", body: ["user_ids": members, "name": name])
            channels[r["channel_url"] as? String ?? ""] = members
        }
        for (u, n) in placement { try await connect(u, to: nodes[n]) }
        try await waitOnline(a, "u3")
        try await waitOnline(b, "u0")

        let load = Task { await self.sendLoad() }
        loadOn.store(true, ordering: .relaxed)
        try await phase(0, "steady load") {}
        try await phase(1, "A's database link cut for 3 s") {
            a.proxy.drop()
            try await Task.sleep(for: .seconds(3))
            a.proxy.heal()
        }
        try await phase(2, "200 ms latency on A's database link for 3 s") {
            a.proxy.delay(100)
            try await Task.sleep(for: .seconds(3))
            a.proxy.delay(0)
        }
        try await phase(3, "node B paused (SIGSTOP) for 3 s") {
            self.interrupted.withLock { $0.formUnion(["u3", "u4", "u5"]) }
            b.signal(SIGSTOP)
            try await Task.sleep(for: .seconds(3))
            b.signal(SIGCONT)
        }
        try await phase(4, "PostgreSQL restarted -m immediate") {
            try await PostgresTestCluster.offPool { pg.crash() }
            try await Task.sleep(for: .milliseconds(800))
            try await PostgresTestCluster.offPool { try pg.launch() }
        }
        try await phase(5, "kill -9 of node B; B started again, its users reconnect") {
            await b.kill9()
            try await b.launch()
            for (u, n) in self.placement where n == 1 { try await self.reconnect(u, to: b) }
        }
        try await phase(6, "a client (u1) drops its connection mid-send and resends") {
            try await self.reconnect("u1", to: a)
        }
        try await phase(7, "A's database replies held for 3 s (one-way partition: PostgreSQL runs A's queries, A hears nothing)") {
            a.proxy.holdReplies()
            try await Task.sleep(for: .seconds(3))
            a.proxy.heal()
        }
        try await phase(8, "steady load again") {}
        loadOn.store(false, ordering: .relaxed)
        await load.value

        // Every send answered or given up on: the clients resend what was never answered under the
        // same req_id once everything is healthy, as the SDK does after reconnecting.
        try await resendUnanswered()
        try await check(pg)
        report()
    }

    /// One phase: a second of load before the fault, the fault, then load until things recover.
    func phase(_ index: Int, _ name: String, fault: () async throws -> Void) async throws {
        phase.store(index, ordering: .relaxed)
        try await Task.sleep(for: .seconds(1))
        try await fault()
        let healed = ContinuousClock.now
        try await Task.sleep(for: .seconds(2))
        // Wait (bounded) for the sends of this phase to be answered before the next fault.
        for _ in 0..<300 {
            if unanswered(phase: index).isEmpty { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        rows.append(row(index, name, healed: healed))
    }

    func connect(_ user: String, to node: HarnessNode) async throws {
        let s = RecordingSocket(user: user, port: node.port)
        guard await s.loggedIn() else { throw TestFailure("\(user) could not log in on node \(node.name)") }
        sockets.withLock { $0[user] = s }
    }

    /// Replaces a user's connection (its old one is closed, or already dead).
    func reconnect(_ user: String, to node: HarnessNode) async throws {
        interrupted.withLock { _ = $0.insert(user) }
        if let old = sockets.withLock({ $0[user] }) {
            await old.close()
            retired.withLock { $0.append(old) }
        }
        for attempt in 0..<50 {
            let s = RecordingSocket(user: user, port: node.port)
            if await s.loggedIn() {
                sockets.withLock { $0[user] = s }
                // As the SDK does once connected again: what was never answered goes again, same req_id.
                collectAnswers()
                let pending = sends.withLock { $0.values.filter { $0.user == user && $0.ackAt == nil }.sorted { $0.sentAt < $1.sentAt } }
                for r in pending { s.send("MESG", ["channel_url": r.channel, "message": r.text, "req_id": r.reqId]) }
                return
            }
            await s.close()
            try await Task.sleep(for: .milliseconds(100 * (attempt < 10 ? 1 : 5)))
        }
        throw TestFailure("\(user) could not log in again on node \(node.name)")
    }

    func waitOnline(_ node: HarnessNode, _ user: String) async throws {
        for _ in 0..<600 {
            if try await node.request("GET", "/v3/users/\(user)")["is_online"] as? Bool == true { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("\(user) never online on \(node.name)")
    }

    // MARK: - Load and recorder

    /// Each user sends every 200 ms, to its channels in turn (≈ 30 messages a second in all).
    func sendLoad() async {
        await withTaskGroup(of: Void.self) { group in
            for (user, node) in placement {
                let mine = channels.filter { $0.value.contains(user) }.map(\.key).sorted()
                group.addTask {
                    var i = 0
                    while !self.loadOn.load(ordering: .relaxed) { try? await Task.sleep(for: .milliseconds(10)) }
                    while self.loadOn.load(ordering: .relaxed) {
                        let channel = mine[i % mine.count]
                        let reqId = "\(user)-\(i)"
                        let record = SendRecord(
                            reqId: reqId, user: user, channel: channel, text: "msg \(reqId)", node: self.nodes[node].name,
                            phase: self.phase.load(ordering: .relaxed), sentAt: .now)
                        self.sends.withLock { $0[reqId] = record }
                        self.sockets.withLock { $0[user] }?.send("MESG", ["channel_url": channel, "message": record.text, "req_id": reqId])
                        i += 1
                        try? await Task.sleep(for: .milliseconds(200))
                    }
                }
            }
        }
    }

    /// Reads the answers every socket received into the send records (the first answer counts).
    func collectAnswers() {
        let all = sockets.withLock { Array($0.values) } + retired.withLock { $0 }
        var answers: [String: (Int64?, Int?, ContinuousClock.Instant)] = [:]
        for s in all {
            for f in s.received where f.command == "MESG" || f.command == "EROR" {
                guard let req = f.json["req_id"] as? String, req.hasPrefix(s.user + "-") else { continue }
                let id = (f.json["msg_id"] as? NSNumber)?.int64Value
                let code = (f.json["code"] as? NSNumber)?.intValue
                if let earlier = answers[req], earlier.0 != nil || id == nil { continue }
                answers[req] = (id, f.command == "EROR" ? code ?? -1 : nil, f.at)
            }
        }
        sends.withLock { all in
            for (req, (id, code, at)) in answers {
                guard var r = all[req] else { continue }
                if let id {
                    if r.messageId != nil && r.messageId != id { r.error = -2 }  // two ids for one req_id: the checker reports it
                    r.messageId = r.messageId ?? id
                    r.error = r.error == -2 ? -2 : nil
                } else if r.messageId == nil {
                    r.error = code
                }
                r.ackAt = r.ackAt.map { min($0, at) } ?? at
                all[req] = r
            }
        }
    }

    func unanswered(phase: Int) -> [SendRecord] {
        collectAnswers()
        return sends.withLock { $0.values.filter { $0.phase == phase && $0.ackAt == nil } }
    }

    /// What a client does once it is connected again: every send with no acknowledgement goes again
    /// under its `req_id` (an error answer included: the SDK's resend of a failed message).
    func resendUnanswered() async throws {
        collectAnswers()
        let pending = sends.withLock { $0.values.filter { $0.messageId == nil } }
        for r in pending { sockets.withLock { $0[r.user] }?.send("MESG", ["channel_url": r.channel, "message": r.text, "req_id": r.reqId]) }
        for _ in 0..<300 {
            collectAnswers()
            if sends.withLock({ $0.values.allSatisfy { $0.messageId != nil } }) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    // MARK: - Checker

    func history(_ node: HarnessNode, _ channel: String) async throws -> [(id: Int64, text: String, user: String)] {
        var out: [(Int64, String, String)] = []
        var anchor = "message_ts=0"
        while true {
            let r = try await node.request("GET", "/v3/group_channels/\(channel)/messages?\(anchor)&prev_limit=0&next_limit=200&include=false")
            let page = ((r["messages"] as? [[String: Any]]) ?? []).compactMap { m -> (Int64, String, String)? in
                guard let id = (m["message_id"] as? NSNumber)?.int64Value else { return nil }
                return (id, m["message"] as? String ?? "", (m["user"] as? [String: Any])?["user_id"] as? String ?? "")
            }
            out += page
            guard page.count >= 200, let last = page.last else { return out }  // a full page may carry ties beyond 200
            anchor = "message_id=\(last.0)"
        }
    }

    func check(_ pg: PostgresTestCluster) async throws {
        collectAnswers()
        let records = sends.withLock { $0 }
        // Both nodes' histories, channel by channel: identical, each message once.
        var stored: [String: [(id: Int64, text: String, user: String)]] = [:]
        for channel in channels.keys.sorted() {
            var histories: [[(id: Int64, text: String, user: String)]] = []
            for _ in 0..<100 {
                histories = []
                for n in nodes { histories.append(try await history(n, channel)) }
                if histories[0].map(\.id) == histories[1].map(\.id) { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(histories[0].map(\.id) == histories[1].map(\.id), "both nodes return the same history of \(channel)")
            let h = histories[0]
            print("history of \(channels[channel]!.joined(separator: ",")): \(h.count) messages, ids \(h.first?.id ?? 0)…\(h.last?.id ?? 0)")
            stored[channel] = h
            #expect(Set(h.map(\.id)).count == h.count, "each message once in \(channel)")
            let texts = h.map(\.text)
            #expect(
                Set(texts).count == texts.count,
                "no send stored twice in \(channel): \(Dictionary(grouping: texts, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted())")
        }
        // Every acknowledged message is stored, under the id it was acknowledged with.
        let byId = Dictionary(stored.values.flatMap { $0 }.map { ($0.id, $0.text) }, uniquingKeysWith: { a, _ in a })
        let acked = records.values.filter { $0.messageId != nil }
        let lost = acked.filter { byId[$0.messageId!] != $0.text }
        #expect(
            lost.isEmpty,
            "\(lost.count) acknowledged and not stored as acknowledged, e.g. \(lost.prefix(5).map { "\($0.reqId) as \($0.messageId!): \(byId[$0.messageId!] ?? "absent")" })"
        )
        if !lost.isEmpty {
            let ids = lost.prefix(5).map { String($0.messageId!) }.joined(separator: ",")
            let db = String(nodes[0].database.split(separator: "/").last ?? "")
            print(
                "checker: the store has",
                (try? pg.psql("SELECT message_id, channel_url, message, created_at, req_id FROM messages WHERE message_id IN (\(ids))", database: db))?
                    .output ?? "")
            print("checker: count, max id:", (try? pg.psql("SELECT count(*), max(message_id) FROM messages", database: db))?.output ?? "")
        }
        #expect(!records.values.contains { $0.error == -2 }, "one req_id answered with two ids")
        let neverAcked = records.values.filter { $0.messageId == nil }
        #expect(neverAcked.isEmpty, "\(neverAcked.count) sends still unanswered after the resend, e.g. \(neverAcked.prefix(10).map(\.reqId))")

        // Live delivery: in order, no duplicates; connections that stayed got everything else.
        let interrupted = interrupted.withLock { $0 }
        let live = sockets.withLock { $0 }
        for s in Array(live.values) + retired.withLock({ $0 }) {
            var perChannel: [String: [Int64]] = [:]
            for f in s.received where f.command == "MESG" && f.json["req_id"] == nil {
                guard let ch = f.json["channel_url"] as? String, let id = (f.json["msg_id"] as? NSNumber)?.int64Value else { continue }
                perChannel[ch, default: []].append(id)
            }
            for (ch, ids) in perChannel {
                #expect(ids == ids.sorted() && Set(ids).count == ids.count, "\(s.user) received \(ch) in order, once each")
            }
            guard live[s.user] === s else { continue }
            for (ch, members) in channels where members.contains(s.user) {
                var expected = (stored[ch] ?? []).filter { $0.user != s.user }
                if interrupted.contains(s.user) {
                    // Paused or connected again: from the first message it received on, no gap (what
                    // came before is the history's, which both nodes return whole).
                    guard let first = perChannel[ch]?.first, let start = expected.firstIndex(where: { $0.id == first }) else { continue }
                    expected = Array(expected[start...])
                }
                let missing = Set(expected.map(\.id)).subtracting(perChannel[ch] ?? [])
                #expect(
                    missing.isEmpty,
                    "\(s.user) (\(interrupted.contains(s.user) ? "since its first live message" : "connected throughout")) missed \(missing.count) of \(ch)'s messages"
                )
            }
        }
        // Unread counts: the same on both nodes, and what the history says.
        for (user, _) in placement {
            var expected = 0
            // Sending marks the channel read for the sender (as Sendbird does): what others sent after
            // the user's own last message is unread.
            for (ch, members) in channels where members.contains(user) {
                let h = stored[ch] ?? []
                let after = (h.lastIndex { $0.user == user }).map { $0 + 1 } ?? 0
                expected += h[after...].filter { $0.user != user }.count
            }
            var counts: [Int] = []
            for _ in 0..<100 {
                counts = []
                for n in nodes {
                    counts.append((try await n.request("GET", "/v3/users/\(user)/unread_message_count")["unread_count"] as? NSNumber)?.intValue ?? -1)
                }
                if counts.allSatisfy({ $0 == expected }) { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(counts.allSatisfy { $0 == expected }, "\(user)'s unread count on A and B \(counts), from the history \(expected)")
        }
    }

    // MARK: - Report

    func row(_ index: Int, _ name: String, healed: ContinuousClock.Instant) -> PhaseRow {
        collectAnswers()
        let mine = sends.withLock { $0.values.filter { $0.phase == index } }
        var row = PhaseRow(name: name)
        row.sends = mine.count
        row.acked = mine.filter { $0.messageId != nil }.count
        row.errors = mine.filter { $0.error != nil && $0.messageId == nil }.count
        // (Sends made in the last second, after the wait for answers ended, are not counted as unanswered.)
        let cutoff = ContinuousClock.now - .seconds(1)
        row.unanswered = mine.filter { $0.ackAt == nil && $0.sentAt < cutoff }.count
        for node in ["A", "B"] {
            let waits = mine.filter { $0.node == node }.compactMap { r in r.ackAt.map { ms($0 - r.sentAt) } }
            row.slowestAck[node] = waits.max()
        }
        let afterHeal = sends.withLock {
            $0.values.compactMap { r -> ContinuousClock.Instant? in
                guard let at = r.ackAt, r.messageId != nil, r.sentAt >= healed else { return nil }
                return at
            }
        }.min()
        row.recoveryMs = afterHeal.map { ms($0 - healed) }
        return row
    }

    func ms(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }

    func report() {
        var lines = [
            "| phase | sends | acknowledged | errors | unanswered at the phase's end | slowest ack via A | slowest ack via B | first ack after the fault |",
            "|---|---|---|---|---|---|---|---|",
        ]
        func f(_ v: Double?) -> String { v.map { String(format: "%.0f ms", $0) } ?? "–" }
        for r in rows {
            lines.append(
                "| \(r.name) | \(r.sends) | \(r.acked) | \(r.errors) | \(r.unanswered) | \(f(r.slowestAck["A"])) | \(f(r.slowestAck["B"])) | \(f(r.recoveryMs)) |"
            )
        }
        let total = sends.withLock { $0.count }
        lines.append("")
        lines.append("\(total) sends in all; after the final resend every one acknowledged, stored once, on both nodes in the same order.")
        let text = lines.joined(separator: "\n")
        print(text)
        if let path = ProcessInfo.processInfo.environment["TERN_FAULT_REPORT"] {
            try? text.write(toFile: path, atomically: true, encoding: .utf8)
        }
    }
}
