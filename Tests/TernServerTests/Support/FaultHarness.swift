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
