import Foundation
import TernServer
import TernTestSupport
import Testing

/// Several `ternd` nodes on one PostgreSQL database (BRIEF §6 scale-out): each test starts two
/// in-process nodes on a fresh database of the test cluster (a real PostgreSQL on loopback),
/// users connected to different nodes.
@Suite("Cluster: two nodes on one PostgreSQL", .serialized, .enabled(if: PostgresTestCluster.clusterTestsEnabled))
struct ClusterTests {
    /// Starts `count` nodes on one database, each with a data directory of its own (as on
    /// separate machines: uploaded files are in the database).
    static func startNodes(
        _ count: Int = 2, database: String? = nil, _ configure: @escaping (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> [TestServer] {
        let db: String
        if let database {
            db = database
        } else {
            let cluster = try await PostgresTestCluster.shared()
            db = try await PostgresTestCluster.offPool { try cluster.createDatabase() }
        }
        let token = "test-api-token-\(UUID().uuidString)"
        var nodes: [TestServer] = []
        for i in 0..<count {
            let dir = makeTempDirectory()
            var config = ServerConfiguration(port: 0, dataDirectory: dir, apiToken: token, maxMessagesPerSecond: 0)
            config.databaseURL = db
            config.nodeId = "node-\(i)-\(UUID().uuidString.prefix(6))"
            configure(&config)
            nodes.append(try await InProcessServer.start(config))
        }
        return nodes
    }

    static func withNodes(
        _ count: Int = 2, database: String? = nil, _ configure: @escaping (inout ServerConfiguration) -> Void = { _ in },
        _ body: ([TestServer]) async throws -> Void
    ) async throws {
        let nodes = try await startNodes(count, database: database, configure)
        do {
            try await body(nodes)
        } catch {
            for n in nodes { await n.stop() }
            throw error
        }
        for n in nodes { await n.stop() }
    }

    /// Waits until `node` sees `userId` online (their node's presence event arrived).
    static func waitOnline(_ node: TestServer, _ userId: String, _ online: Bool = true) async throws {
        for _ in 0..<600 {
            let r = try await node.request("GET", "/v3/users/\(userId)")
            if r.json["is_online"] as? Bool == online { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("\(userId) never became \(online ? "online" : "offline") on node \(node.port)")
    }

    /// Waits (up to 5 s, then goes on: the test's own checks follow) until `node` lists `count`
    /// participants in the open channel `channel`.
    static func waitParticipants(_ node: TestServer, _ channel: String, count: Int) async throws {
        for _ in 0..<100 {
            let p = try await node.request("GET", "/v3/open_channels/\(channel)/participants")
            if (p.json["participants"] as? [[String: Any]])?.count == count { return }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test("A message sent through node A reaches a member on node B, in order, with their unread_cnt; typing, receipts and channel events cross too")
    func messagesCross() async throws {
        try await Self.withNodes { nodes in
            let (a, b) = (nodes[0], nodes[1])
            try await a.createUsers(["alice", "bob", "carol"])
            let url = try await a.createChannel(["alice", "bob"], name: "pair")
            let (alice, _) = try await a.login("alice")
            let (bob, _) = try await b.login("bob")
            try await Self.waitOnline(a, "bob")
            try await Self.waitOnline(b, "alice")
            for i in 1...30 { alice.send("MESG", ["channel_url": url, "message": "m\(i)", "req_id": "r\(i)"]) }
            var texts: [String] = []
            var counts: [Int] = []
            for _ in 1...30 {
                guard let m = await bob.next("MESG") else { break }
                texts.append(m["message"] as? String ?? "")
                counts.append(((m["unread_cnt"] as? [String: Any])?["all"] as? Int) ?? -1)
            }
            #expect(texts == (1...30).map { "m\($0)" }, "bob on node B got every message in order: \(texts)")
            // Each copy carries bob's totals as they stood when node B sent it out (their `ts` orders them).
            #expect(
                counts.count == 30 && counts.last == 30 && zip(counts, 1...30).allSatisfy { $0 >= $1 } && counts == counts.sorted(),
                "each with bob's unread count: \(counts)")
            // Typing on B reaches A; a read receipt on B reaches A.
            bob.send("TPST", ["channel_url": url, "time": 1])
            let typing = await alice.next("SYEV") { $0["cat"] as? Int == 10900 }
            #expect(typing != nil, "typing crossed")
            bob.send("READ", ["channel_url": url, "req_id": "rd"])
            let read = await alice.next("READ") { ($0["user"] as? [String: Any])?["user_id"] as? String == "bob" }
            #expect(read != nil, "the read receipt crossed")
            // A channel event made on node B's REST API reaches alice on A; the roster cache on A
            // learns of the new member, whose messages then reach alice.
            let invite = try await b.request("POST", "/v3/group_channels/\(url)/invite", body: ["user_ids": ["carol"]])
            #expect(invite.status == 200, "\(invite.text)")
            let event = await alice.next("SYEV") { $0["cat"] as? Int == 10000 || $0["cat"] as? Int == 10020 }
            #expect(event != nil, "the invitation event crossed")
            let (carol, _) = try await b.login("carol")
            try await Self.waitOnline(a, "carol")
            _ = try await b.request("PUT", "/v3/group_channels/\(url)/accept", body: ["user_id": "carol"])
            carol.send("MESG", ["channel_url": url, "message": "hi from carol", "req_id": "c1"])
            let fromCarol = await alice.next("MESG") { $0["message"] as? String == "hi from carol" }
            #expect(fromCarol != nil, "carol (joined on B) reaches alice on A")
            // Presence: when bob leaves node B, node A says he is offline.
            await bob.close()
            try await Self.waitOnline(a, "bob", false)
            for x in [alice, carol] { await x.close() }
        }
    }

    @Test("Two senders on two nodes at once: every member, on either node, gets the channel's messages in the order they were stored")
    func channelOrderAcrossNodes() async throws {
        try await Self.withNodes { nodes in
            let (a, b) = (nodes[0], nodes[1])
            try await a.createUsers(["alice", "bob", "carol", "dave"])
            let url = try await a.createChannel(["alice", "bob", "carol", "dave"], name: "busy")
            let (alice, _) = try await a.login("alice")
            let (carol, _) = try await a.login("carol")
            let (bob, _) = try await b.login("bob")
            let (dave, _) = try await b.login("dave")
            for u in ["bob", "dave"] { try await Self.waitOnline(a, u) }
            for u in ["alice", "carol"] { try await Self.waitOnline(b, u) }
            // Both nodes write to the channel at the same time, in interleaved bursts.
            for round in 0..<8 {
                for i in 0..<10 {
                    alice.send("MESG", ["channel_url": url, "message": "a\(round)-\(i)", "req_id": "a\(round)-\(i)"])
                    bob.send("MESG", ["channel_url": url, "message": "b\(round)-\(i)", "req_id": "b\(round)-\(i)"])
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            for (name, member) in [("carol on A", carol), ("dave on B", dave)] {
                var ids: [Int64] = []
                for _ in 0..<160 {
                    guard let m = await member.next("MESG", timeout: .seconds(20)) else { break }
                    ids.append((m["message_id"] as? NSNumber)?.int64Value ?? -1)
                }
                #expect(ids.count == 160, "\(name) got every message: \(ids.count)")
                #expect(ids == ids.sorted() && Set(ids).count == ids.count, "\(name) got them in the channel's order: \(ids)")
            }
            // The history agrees.
            let history = try await a.request("GET", "/v3/group_channels/\(url)/messages?message_ts=0&prev_limit=0&next_limit=200")
            let stored = ((history.json["messages"] as? [[String: Any]]) ?? []).compactMap { ($0["message_id"] as? NSNumber)?.int64Value }
            #expect(stored.count == 160 && stored == stored.sorted(), "\(history.text.prefix(300))")
            for x in [alice, bob, carol, dave] { await x.close() }
        }
    }

    @Test("The flood limit is the cluster's: messages a user sent through node A count on node B too")
    func floodLimitAcrossNodes() async throws {
        try await Self.withNodes(2, { $0.maxMessagesPerSecond = 2 }) { nodes in
            let (a, b) = (nodes[0], nodes[1])
            try await a.createUsers(["alice", "bob"])
            let url = try await a.createChannel(["alice", "bob"], name: "flood")
            // alice on two devices: one on each node; bob watches on node B.
            let (onA, _) = try await a.login("alice")
            let (onB, _) = try await b.login("alice")
            let (bob, _) = try await b.login("bob")
            for i in 1...2 {
                let req = "a\(i)"
                onA.send("MESG", ["channel_url": url, "message": req, "req_id": req])
                let acked = await onA.next("MESG") { $0["req_id"] as? String == req }
                #expect(acked != nil, "within the limit on A")
            }
            // Node B delivered both (so it has read their events)...
            for i in 1...2 {
                let text = "a\(i)"
                let seen = await bob.next("MESG") { $0["message"] as? String == text }
                #expect(seen != nil, "bob on B got \(text)")
            }
            // ...and counts them: the next send through B is over the limit.
            onB.send("MESG", ["channel_url": url, "message": "b1", "req_id": "b1"])
            let refused = await onB.next("EROR") { $0["req_id"] as? String == "b1" }
            #expect(refused?["code"] as? Int == 900200, "refused on B: \(String(describing: refused)) \(onB.all("MESG").count)")
            // A second later the limit allows a message again, on either node.
            try await Task.sleep(for: .milliseconds(1100))
            onB.send("MESG", ["channel_url": url, "message": "b2", "req_id": "b2"])
            #expect(await onB.next("MESG") { $0["req_id"] as? String == "b2" } != nil, "allowed again after a second")
            for x in [onA, onB, bob] { await x.close() }
        }
    }

    @Test("Open channels: participants and counts are the cluster's; messages, bans and deletion reach every node")
    func openChannelsCross() async throws {
        try await Self.withNodes { nodes in
            let (a, b) = (nodes[0], nodes[1])
            try await a.createUsers(["alice", "bob"])
            let created = try await a.request("POST", "/v3/open_channels", body: ["channel_url": "lobby", "name": "Lobby"])
            #expect(created.status == 200, "\(created.text)")
            let (alice, _) = try await a.login("alice")
            let (bob, _) = try await b.login("bob")
            try await Self.waitOnline(a, "bob")
            try await Self.waitOnline(b, "alice")
            alice.send("ENTR", ["channel_url": "lobby", "req_id": "e1"])
            #expect(await alice.next("ENTR") { $0["req_id"] as? String == "e1" }?["participant_count"] as? Int == 1)
            // Wait until node B knows alice entered.
            try await Self.waitParticipants(b, "lobby", count: 1)
            bob.send("ENTR", ["channel_url": "lobby", "req_id": "e2"])
            let entered = await bob.next("ENTR") { $0["req_id"] as? String == "e2" }
            #expect(entered?["participant_count"] as? Int == 2, "the count is the cluster's: \(String(describing: entered))")
            let seen = await alice.next("SYEV") { $0["cat"] as? Int == 10102 }
            #expect(seen != nil, "alice on A hears bob enter on B")
            let mcnt = await alice.next("MCNT") { (($0["open_channels"] as? [[String: Any]])?.first?["participant_count"] as? Int) == 2 }
            #expect(mcnt != nil, "alice's MCNT says 2")
            let list = try await a.request("GET", "/v3/open_channels/lobby/participants")
            #expect(
                Set(((list.json["participants"] as? [[String: Any]]) ?? []).compactMap { $0["user_id"] as? String }) == ["alice", "bob"],
                "\(list.text)")
            alice.send("MESG", ["channel_url": "lobby", "message": "hello lobby", "req_id": "m1"])
            #expect(await bob.next("MESG") { $0["message"] as? String == "hello lobby" } != nil, "an open-channel message crossed")
            // A ban made through node A takes bob (on B) out of the channel; his send is refused.
            let ban = try await a.request("POST", "/v3/open_channels/lobby/ban", body: ["user_id": "bob", "seconds": 60])
            #expect(ban.status == 200, "\(ban.text)")
            #expect(await bob.next("SYEV") { $0["cat"] as? Int == 10601 } != nil, "bob hears of his ban")
            bob.send("MESG", ["channel_url": "lobby", "message": "let me in", "req_id": "m2"])
            let refused = await bob.next("EROR") { $0["req_id"] as? String == "m2" }
            #expect(
                refused?["code"] as? Int == 900100,
                "a banned user's send is refused on his node: \(String(describing: refused)) \(bob.all("EROR")) \(bob.all("MESG"))")
            try await Self.waitParticipants(a, "lobby", count: 1)
            let after = try await a.request("GET", "/v3/open_channels/lobby/participants")
            #expect((after.json["participants"] as? [[String: Any]])?.count == 1, "\(after.text)")
            // Deleting the channel through node B tells alice on node A.
            #expect(try await b.request("DELETE", "/v3/open_channels/lobby").status == 200)
            #expect(await alice.next("SYEV") { $0["cat"] as? Int == 10800 || $0["cat"] as? Int == 12000 } != nil, "the deletion crossed")
            for x in [alice, bob] { await x.close() }
        }
    }

    @Test("An open channel's participant cap counts the participants on every node")
    func participantCapAcrossNodes() async throws {
        try await Self.withNodes(2, { $0.maxOpenChannelParticipants = 1 }) { nodes in
            let (a, b) = (nodes[0], nodes[1])
            try await a.createUsers(["alice", "bob"])
            let created = try await a.request("POST", "/v3/open_channels", body: ["channel_url": "small", "name": "Small"])
            #expect(created.status == 200, "\(created.text)")
            let (alice, _) = try await a.login("alice")
            let (bob, _) = try await b.login("bob")
            alice.send("ENTR", ["channel_url": "small", "req_id": "e1"])
            #expect(await alice.next("ENTR") { $0["req_id"] as? String == "e1" } != nil)
            try await Self.waitParticipants(b, "small", count: 1)
            bob.send("ENTR", ["channel_url": "small", "req_id": "e2"])
            let refused = await bob.next("EROR") { $0["req_id"] as? String == "e2" }
            #expect(refused?["code"] as? Int == 400203, "the channel is full across the nodes: \(String(describing: refused))")
            // alice leaves on A: bob may enter on B.
            alice.send("EXIT", ["channel_url": "small", "req_id": "x1"])
            var entered = false
            for i in 0..<60 where !entered {
                bob.send("ENTR", ["channel_url": "small", "req_id": "e3-\(i)"])
                let r = await bob.next("ENTR", timeout: .milliseconds(200)) { ($0["req_id"] as? String)?.hasPrefix("e3-") == true }
                entered = r != nil
            }
            #expect(entered, "room again once alice left on the other node")
            for x in [alice, bob] { await x.close() }
        }
    }

    @Test("The cap on connections per user counts the user's connections on every node")
    func connectionCapAcrossNodes() async throws {
        try await Self.withNodes(2, { $0.maxConnectionsPerUser = 2 }) { nodes in
            let (a, b) = (nodes[0], nodes[1])
            try await a.createUsers(["alice"])
            let (first, _) = try await a.login("alice")
            let (second, _) = try await a.login("alice")
            // Wait until node B knows alice has two connections on A.
            var refused: Int?
            for _ in 0..<60 where refused == nil {
                let third = b.connect("alice")
                let logi = await third.next("LOGI")
                if let code = logi?["code"] as? Int {
                    refused = code
                } else {
                    await third.close()
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            #expect(refused == 400500, "a third connection, on the other node, is over the cap")
            // One closes on A: there is room on B again.
            await first.close()
            var allowed = false
            for _ in 0..<60 where !allowed {
                let again = b.connect("alice")
                allowed = (await again.next("LOGI"))?["user_id"] as? String == "alice"
                if allowed { await again.close() } else { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(allowed, "room again once a connection on A closed")
            await second.close()
        }
    }

    @Test("Moderation and sessions are the cluster's: a mute on A refuses a send on B; deactivating on A ends the socket on B")
    func moderationCrosses() async throws {
        try await Self.withNodes { nodes in
            let (a, b) = (nodes[0], nodes[1])
            try await a.createUsers(["alice", "bob"])
            let url = try await a.createChannel(["alice", "bob"])
            let (bob, _) = try await b.login("bob")
            bob.send("MESG", ["channel_url": url, "message": "before", "req_id": "b1"])
            #expect(await bob.next("MESG") { $0["req_id"] as? String == "b1" }?["message_id"] != nil)
            let mute = try await a.request("POST", "/v3/group_channels/\(url)/mute", body: ["user_id": "bob", "seconds": 60])
            #expect(mute.status == 200, "\(mute.text)")
            var refused = false
            for i in 0..<50 where !refused {
                bob.send("MESG", ["channel_url": url, "message": "muted?", "req_id": "m\(i)"])
                let r = await bob.next("EROR", timeout: .milliseconds(300)) { $0["req_id"] as? String == "m\(i)" }
                refused = (r?["code"] as? Int) == 900041
                if !refused { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(refused, "node B refuses the muted user (its roster cache was invalidated)")
            try await Self.waitOnline(a, "bob")
            let off = try await a.request("PUT", "/v3/users/bob", body: ["is_active": false])
            #expect(off.status == 200, "\(off.text)")
            let eror = await bob.next("EROR")
            #expect(eror?["code"] as? Int == 400300, "bob's socket on B is told: \(String(describing: eror))")
            #expect(await bob.waitClosed(), "and closed")
        }
    }

    @Test(
        "A file uploaded through node A downloads through node B (no shared data directory), with its thumbnail, and so does a data export; outsiders are refused"
    )
    func filesCross() async throws {
        try await Self.withNodes { nodes in
            let (a, b) = (nodes[0], nodes[1])
            #expect(a.dataDirectory != b.dataDirectory)
            try await a.createUsers(["alice", "bob", "eve"])
            let url = try await a.createChannel(["alice", "bob"])
            let (alice, aliceLogi) = try await a.login("alice")
            let (bob, bobLogi) = try await b.login("bob")
            let (eve, eveLogi) = try await b.login("eve")
            let helper = SearchFileTests()
            let image = TestImages.png(width: 64, height: 32)
            let (body, type) = helper.multipart([("channel_url", url), ("thumbnail1", "32,32")], file: image, name: "pic.png", type: "image/png")
            let (status, answer) = try await helper.upload(a, key: aliceLogi["key"] as? String ?? "", body, type)
            #expect(status == 200, "\(answer)")
            // The URL names node A; the same path through node B (as behind a balancer).
            let path = URL(string: answer["url"] as? String ?? "")?.path ?? ""
            let thumbPath = URL(string: (answer["thumbnails"] as? [[String: Any]])?.first?["url"] as? String ?? "")?.path ?? ""
            let bobKey = bobLogi["ekey"] as? String ?? ""
            let (got, data) = try await helper.get(b.baseURL + path + "?auth=\(bobKey)")
            #expect(got == 200 && data == image, "node B serves the file node A stored: \(got)")
            let (thumb, thumbData) = try await helper.get(b.baseURL + thumbPath + "?auth=\(bobKey)")
            #expect(thumb == 200 && thumbData.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            #expect(try await helper.get(b.baseURL + path + "?auth=\(eveLogi["ekey"] as? String ?? "")").0 == 403)
            // Both nodes seal with the one master key, and nothing is in the clear.
            let stored = try await b.app.service.files?.storedBytes() ?? []
            #expect(stored.count == 2 && stored.allSatisfy { $0.range(of: Data([0x89, 0x50, 0x4E, 0x47])) == nil })
            #expect(!FileManager.default.fileExists(atPath: a.dataDirectory + "/files/files.key"))
            // A data export made through node A downloads through node B as well.
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let export = try await a.request("POST", "/v3/export/channels", body: ["start_ts": 0, "end_ts": now + 60_000])
            #expect(export.json["status"] as? String == "done", "\(export.text)")
            let exportPath = URL(string: (export.json["file"] as? [String: Any])?["url"] as? String ?? "")?.path ?? ""
            let fetched = try await b.request("GET", exportPath)
            #expect(fetched.status == 200 && fetched.text.contains(url), "\(exportPath): \(fetched.status) \(fetched.text.prefix(200))")
            for c in [alice, bob, eve] { await c.close() }
        }
    }

    // MARK: - Faults

    /// A fault proxy in front of PostgreSQL at `postgresPort`, and `database`'s URL through it.
    static func proxied(_ database: String, postgresPort: Int) async throws -> (proxy: FaultProxy, url: String) {
        let proxy = FaultProxy(targetPort: postgresPort)
        let port = try await proxy.start()
        return (proxy, database.replacingOccurrences(of: "127.0.0.1:\(postgresPort)/", with: "127.0.0.1:\(port)/"))
    }

    enum Node { case a, b }

    /// Nodes A and B (started in that order) on a new database of the shared cluster, `proxying`
    /// one of them through a fault proxy to PostgreSQL, the other directly: runs `body` with them
    /// and always stops all three.
    static func withTwoNodes(
        proxying node: Node, _ body: (_ a: TestServer, _ b: TestServer, _ proxy: FaultProxy) async throws -> Void
    ) async throws {
        let cluster = try await PostgresTestCluster.shared()
        let db = try await PostgresTestCluster.offPool { try cluster.createDatabase() }
        let (proxy, viaProxy) = try await proxied(db, postgresPort: cluster.port)
        let a = try await startNodes(1, database: node == .a ? viaProxy : db)[0]
        let b = try await startNodes(1, database: node == .b ? viaProxy : db)[0]
        do {
            try await body(a, b, proxy)
        } catch {
            for n in [a, b] { await n.stop() }
            await proxy.stop()
            throw error
        }
        for n in [a, b] { await n.stop() }
        await proxy.stop()
    }

    static func messageIds(_ frames: [[String: Any]], reqIds: Bool) -> [Int64] {
        frames.filter { ($0["req_id"] != nil) == reqIds }.compactMap { ($0["message_id"] as? NSNumber)?.int64Value }
    }

    @Test("A message whose COMMIT answer node A never hears (its link cut right after the COMMIT) reaches A's own members once, as it reaches B's")
    func commitAnswerLost() async throws {
        // Node A talks to PostgreSQL through a proxy that can cut its link; node B directly.
        try await Self.withTwoNodes(proxying: .a) { a, b, proxy in
            try await a.createUsers(["alice", "bob", "carol"])
            let url = try await a.createChannel(["alice", "bob", "carol"])
            let (alice, _) = try await a.login("alice")
            let (carol, _) = try await a.login("carol")
            let (bob, _) = try await b.login("bob")
            try await Self.waitOnline(a, "bob")
            try await Self.waitOnline(b, "alice")
            alice.send("MESG", ["channel_url": url, "message": "before the cut", "req_id": "r1"])
            for x in [carol, bob] { #expect(await x.next("MESG") { $0["message"] as? String == "before the cut" } != nil) }

            // The statement storing this message reaches the database and commits (the protocol's
            // Sync ends it); the link goes right after, so node A never hears that it did.
            proxy.cutAfter("lost-answer-marker", then: "S\u{0}\u{0}\u{0}\u{4}")
            alice.send("MESG", ["channel_url": url, "message": "lost-answer-marker", "req_id": "r2"])
            for _ in 0..<200 where proxy.cuts == 0 { try await Task.sleep(for: .milliseconds(50)) }
            #expect(proxy.cuts == 1, "the link was cut after the statement")
            try await Task.sleep(for: .milliseconds(300))
            proxy.heal()
            // Node B's member gets it from the log; so does node A's own member, once A reads its log again.
            let onB = await bob.next("MESG", timeout: .seconds(30)) { $0["message"] as? String == "lost-answer-marker" }
            let onA = await carol.next("MESG", timeout: .seconds(30)) { $0["message"] as? String == "lost-answer-marker" }
            #expect(onB != nil, "node B's member got the committed message")
            #expect(onA != nil, "node A's own member got the committed message: \(carol.all("MESG").map { $0["message"] ?? "" })")
            let id = (onB?["msg_id"] as? NSNumber)?.int64Value

            // The sender's resend under the same req_id is answered with the stored message, and
            // nobody gets it twice; the conversation goes on in order.
            for _ in 0..<100 {
                if alice.all("MESG").contains(where: { $0["req_id"] as? String == "r2" }) || !alice.all("EROR").isEmpty { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            if !alice.all("MESG").contains(where: { $0["req_id"] as? String == "r2" }) {
                alice.send("MESG", ["channel_url": url, "message": "lost-answer-marker", "req_id": "r2"])
            }
            let ack = await alice.next("MESG", timeout: .seconds(30)) { $0["req_id"] as? String == "r2" }
            #expect((ack?["msg_id"] as? NSNumber)?.int64Value == id, "the resend is answered with the stored message")
            alice.send("MESG", ["channel_url": url, "message": "after the cut", "req_id": "r3"])
            for x in [carol, bob] {
                _ = await x.next("MESG", timeout: .seconds(30)) { $0["message"] as? String == "after the cut" }
                let texts = x.all("MESG").compactMap { $0["message"] as? String }
                #expect(texts == ["before the cut", "lost-answer-marker", "after the cut"], "once each, in order: \(texts)")
            }
            for x in [alice, bob, carol] { await x.close() }
        }
    }

    @Test(
        "PostgreSQL restarted -m immediate during a steady send: no acknowledged message is lost or out of order on the other node; the nodes reconnect by themselves"
    )
    func databaseRestart() async throws {
        let pg = try await PostgresTestCluster.offPool { try PostgresTestCluster.start() }
        defer { pg.destroy() }
        try await Self.withNodes(2, database: try await PostgresTestCluster.offPool { try pg.createDatabase() }) { nodes in
            let (a, b) = (nodes[0], nodes[1])
            try await a.createUsers(["alice", "bob"])
            let url = try await a.createChannel(["alice", "bob"])
            let (alice, _) = try await a.login("alice")
            let (bob, _) = try await b.login("bob")
            try await Self.waitOnline(a, "bob")
            for i in 0..<150 {
                alice.send("MESG", ["channel_url": url, "message": "steady \(i)", "req_id": "r\(i)"])
                try await Task.sleep(for: .milliseconds(10))
                if i == 50 {
                    try await PostgresTestCluster.offPool { pg.crash() }
                    try await Task.sleep(for: .milliseconds(800))
                    try await PostgresTestCluster.offPool { try pg.launch() }
                }
            }
            // Every send is answered: an ack (committed) or an error (not stored).
            var answered = 0
            for _ in 0..<600 {
                answered = alice.all("MESG").filter { $0["req_id"] != nil }.count + alice.all("EROR").count
                if answered >= 150 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            let acked = Self.messageIds(alice.all("MESG"), reqIds: true)
            #expect(answered >= 150, "every send was answered (\(answered))")
            #expect(acked.count > 60, "sends after the restart were acknowledged: the nodes reconnected (\(acked.count) acks)")
            // Bob on node B gets every acknowledged message, in order, without gaps.
            var got: [Int64] = []
            for _ in 0..<300 {
                got = Self.messageIds(bob.all("MESG"), reqIds: false)
                if Set(acked).isSubset(of: got) { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            let missing = Set(acked).subtracting(got)
            #expect(missing.isEmpty, "acknowledged but never delivered on node B: \(missing.sorted())")
            #expect(got == got.sorted(), "delivered in order")
            #expect(Set(got).count == got.count, "and once each")
            // And the history has them all.
            let history = try await a.request("GET", "/v3/group_channels/\(url)/messages?message_ts=0&prev_limit=0&next_limit=200")
            let stored = Set(((history.json["messages"] as? [[String: Any]]) ?? []).compactMap { ($0["message_id"] as? NSNumber)?.int64Value })
            #expect(Set(acked).isSubset(of: stored), "every acknowledged message is stored")
            for x in [alice, bob] { await x.close() }
        }
    }

    @Test(
        "kill -9 of a node: its users reconnect to the other node and resume from the database without gaps; the survivor forgets the dead node's users"
    )
    func nodeKilled() async throws {
        let shared = try await PostgresTestCluster.shared()
        let db = try await PostgresTestCluster.offPool { try shared.createDatabase() }
        let a = try await Self.startNodes(1, database: db)[0]
        let dirB = makeTempDirectory()
        let token = a.apiToken
        let b = try await TerndChild.start(dataDirectory: dirB, apiToken: token, extra: ["--database", db, "--node-id", "killed-b"])
        var killed = false
        defer { if !killed { b.stopBlocking() } }
        do {
            try await a.createUsers(["alice", "bob", "carol"])
            let url = try await a.createChannel(["alice", "bob", "carol"])
            let (alice, _) = try await a.login("alice")
            func onB(_ user: String) async throws -> TestSocket {
                let sock = TestSocket(url: "ws://127.0.0.1:\(b.port)", query: "p=JS&pv=test&sv=4.22.7&ai=LOCAL&user_id=\(user)")
                guard let logi = await sock.next("LOGI"), logi["error"] == nil else { throw TestFailure("login on node B failed") }
                return sock
            }
            let bob = try await onB("bob")
            _ = try await onB("carol")
            try await Self.waitOnline(a, "bob")
            try await Self.waitOnline(a, "carol")
            for i in 1...10 { alice.send("MESG", ["channel_url": url, "message": "m\(i)", "req_id": "a\(i)"]) }
            var live: [String] = []
            for _ in 1...10 { if let m = await bob.next("MESG") { live.append(m["message"] as? String ?? "") } }
            #expect(live == (1...10).map { "m\($0)" })
            let lastTs = (bob.all("MESG").last?["created_at"] as? NSNumber)?.int64Value ?? 0
            // Node B dies without a word.
            await b.stop(SIGKILL)
            killed = true
            #expect(await bob.waitClosed(), "bob's socket on the dead node closes")
            for i in 11...20 { alice.send("MESG", ["channel_url": url, "message": "m\(i)", "req_id": "a\(i)"]) }
            for i in 11...20 { _ = await alice.next("MESG") { $0["req_id"] as? String == "a\(i)" } }
            // Bob reconnects (to the surviving node, as the balancer would send him) and catches up from the database.
            let (bob2, _) = try await a.login("bob")
            let missed = try await a.request(
                "GET", "/v3/group_channels/\(url)/messages?message_ts=\(lastTs)&prev_limit=0&next_limit=50")
            let texts = ((missed.json["messages"] as? [[String: Any]]) ?? []).compactMap { $0["message"] as? String }
            #expect(texts.filter { $0 != "m10" } == (11...20).map { "m\($0)" }, "what was sent while he was away, in order: \(texts)")
            alice.send("MESG", ["channel_url": url, "message": "m21", "req_id": "a21"])
            #expect(await bob2.next("MESG") { $0["message"] as? String == "m21" } != nil, "and live messages flow again")
            // The dead node's heartbeat stops: carol (only on B) is offline after a few seconds.
            try await Self.waitOnline(a, "carol", false)
            for x in [alice, bob2] { await x.close() }
        } catch {
            await a.stop()
            throw error
        }
        await a.stop()
    }
}
