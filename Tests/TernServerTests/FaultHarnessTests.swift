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
        // Node B talks to PostgreSQL through a proxy that freezes its link mid-transaction.
        try await ClusterTests.withTwoNodes(proxying: .b) { a, b, proxy in
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
        }
    }
}

/// One node: a `ternd` child process whose PostgreSQL link goes through its own proxy.
final class HarnessNode: @unchecked Sendable {
    let name: String
    let proxy: FaultProxy
    let database: String
    let dataDirectory = makeTempDirectory()
    let token: String
    private let current = Mutex<TerndChild?>(nil)

    init(name: String, proxy: FaultProxy, database: String, token: String) {
        self.name = name
        self.proxy = proxy
        self.database = database
        self.token = token
    }

    var process: TerndChild? { current.withLock { $0 } }
    var port: Int { process?.port ?? 0 }

    func launch() async throws {
        let (dir, token, db, id) = (dataDirectory, token, database, "\(name)-\(UUID().uuidString.prefix(6))")
        let p = try await TerndChild.start(dataDirectory: dir, apiToken: token, extra: ["--database", db, "--node-id", id])
        current.withLock { $0 = p }
    }

    func signal(_ sig: Int32) {
        if let p = process, p.process.isRunning { kill(p.process.processIdentifier, sig) }
    }

    func kill9() async {
        guard let p = process else { return }
        await p.stop(SIGKILL)
    }

    func stop() async {
        guard let p = process else { return }
        signal(SIGCONT)
        await p.stop()
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
