import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

/// Issue 17's findings, each as a regression test: one identity per user id, byte limits, sessions
/// that end with their user or token, flood limits on every transport, the data directory's modes.
@Suite("Hardening: identity, limits, sessions", .serialized)
struct HardeningTests {
    static let nfc = "ren\u{E9}"  // "rené", precomposed
    static let nfd = "rene\u{301}"  // the same text, decomposed

    func enc(_ s: String) -> String { s.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? s }

    @Test("Identity: an id in another normalisation form is refused everywhere it comes in, never taken for the user it looks like")
    func oneIdentityPerId() async throws {
        #expect(Self.nfc == Self.nfd, "Swift calls them equal: the reason for the rule")
        #expect(Array(Self.nfc.utf8) != Array(Self.nfd.utf8))
        try await withServer(users: [Self.nfc, "mallory", "bob"], { $0.linkPreviews = false }) { s in
            let channel = try await s.createChannel([Self.nfc, "bob"])
            _ = try await s.request("POST", "/v3/group_channels/\(channel)/operators", body: ["operator_ids": [Self.nfc]])

            // 1. The decomposed twin cannot be created: not through the Platform API…
            let created = try await s.request("POST", "/v3/users", body: ["user_id": Self.nfd, "nickname": "twin"])
            #expect(created.status == 400 && created.json["code"] as? Int == 400111, "\(created.text)")
            // …nor by connecting (users are created on first connect without tokens).
            let twin = s.connect(Self.nfd)
            let refused = await twin.next("LOGI")
            #expect(refused?["code"] as? Int == 400111, "\(String(describing: refused))")
            await twin.close()
            let listed = try await s.request("GET", "/v3/users?limit=100")
            let ids = (listed.json["users"] as? [[String: Any]] ?? []).compactMap { $0["user_id"] as? String }
            #expect(ids.filter { $0 == Self.nfc }.count == 1, "one rené, stored once")

            // 2. Acting on the user by the other spelling is refused, whoever asks.
            let mallory = try await s.sessionHeaders("mallory")
            let rename = try await s.request("PUT", "/v3/users/\(enc(Self.nfd))", body: ["nickname": "owned"], headers: mallory)
            #expect(rename.status == 400 && rename.json["code"] as? Int == 400111, "\(rename.text)")
            let rene = try await s.sessionHeaders(Self.nfc)
            for (method, path, body) in [
                ("PUT", "/v3/users/\(enc(Self.nfd))", ["nickname": "x"] as [String: Any]),
                ("PUT", "/v3/users/\(enc(Self.nfd))/metadata", ["metadata": ["k": "v"]]),
                ("GET", "/v3/users/\(enc(Self.nfd))/unread_message_count", [:]),
                ("POST", "/v3/users/\(enc(Self.nfd))/block", ["target_id": "bob"]),
                ("POST", "/v3/group_channels/\(channel)/messages", ["message_type": "MESG", "user_id": Self.nfd, "message": "hi"]),
                ("POST", "/v3/group_channels/\(channel)/ban", ["user_id": Self.nfd]),
            ] {
                for headers in [rene, mallory] {
                    let r = try await s.request(method, path, body: body.isEmpty ? nil : body, headers: headers)
                    #expect(r.status >= 400 && r.status < 500, "\(method) \(path) naming the twin spelling: \(r.text)")
                }
            }
            let user = try await s.request("GET", "/v3/users/\(enc(Self.nfc))")
            #expect(user.json["nickname"] as? String == Self.nfc.capitalized, "nobody renamed rené")
            // Bob, a plain member, is neither banned nor blocked by anyone.
            let banned = try await s.request("GET", "/v3/group_channels/\(channel)/ban")
            #expect((banned.json["banned_list"] as? [Any])?.isEmpty ?? true, "\(banned.text)")

            // 3. Ids in bodies, query strings, metadata keys and WebSocket frames.
            let mixed = try await s.request("POST", "/v3/group_channels", body: ["user_ids": ["bob", Self.nfd]])
            #expect(mixed.json["code"] as? Int == 400111, "\(mixed.text)")
            let query = try await s.request("GET", "/v3/users?user_ids=\(enc(Self.nfd))")
            #expect(query.json["code"] as? Int == 400111, "\(query.text)")
            let meta = try await s.request("POST", "/v3/users/bob/metadata", body: ["metadata": ["caf\u{65}\u{301}": "1"]])
            #expect(meta.json["code"] as? Int == 400111, "\(meta.text)")
            let (bob, _) = try await s.login("bob")
            bob.send("MESG", ["channel_url": "cafe\u{301}_channel", "message": "x", "req_id": "r1"])
            let eror = await bob.next("EROR")
            #expect(eror?["code"] as? Int == 400111, "\(String(describing: eror))")
            await bob.close()
        }
    }

    @Test("Identity: acting as a user compares bytes, not Swift's canonical equivalence")
    func callerComparesBytes() throws {
        #expect(throws: SendbirdError.self) { try Caller.user(Self.nfd).require(actingAs: Self.nfc) }
        #expect(throws: Never.self) { try Caller.user(Self.nfc).require(actingAs: Self.nfc) }
        #expect(Identifier.isNFC(Self.nfc) && !Identifier.isNFC(Self.nfd))
        #expect(Identifier.isNFC("plain-ascii_id") && Identifier.isNFC("東京") && Identifier.isNFC("😀"))
        #expect(throws: SendbirdError.self) { try Identifier.check("a\u{0}b", field: "user_id") }
    }

    @Test("Limits count bytes as well as characters: combining marks do not stretch a character")
    func byteLimits() async throws {
        try await withServer({ $0.linkPreviews = false }) { s in
            let zalgo = "Z" + String(repeating: "\u{301}", count: 200_000)
            #expect(zalgo.count == 1 && zalgo.utf8.count > 400_000)
            let bigNick = String(repeating: "a" + String(repeating: "\u{300}", count: 500), count: 80)
            #expect(bigNick.count == 80)
            let user = try await s.request("POST", "/v3/users", body: ["user_id": "n1", "nickname": bigNick])
            #expect(user.status == 400 && user.json["code"] as? Int == 400110, "\(user.text.prefix(200))")
            let longId = String(repeating: "x" + String(repeating: "\u{300}", count: 400), count: 70)
            let id = try await s.request("POST", "/v3/users", body: ["user_id": longId])
            #expect(id.json["code"] as? Int == 400305, "\(id.text.prefix(200))")

            let channel = try await s.newChannel(of: ["alice", "bob"])
            let sent = try await s.request(
                "POST", "/v3/group_channels/\(channel)/messages", body: ["message_type": "MESG", "user_id": "alice", "message": zalgo])
            #expect(sent.status == 400 && sent.json["code"] as? Int == 400110, "\(sent.text.prefix(200))")
            // What a real user writes still goes: 5,000 accented letters (10,000 bytes), 1,000 emoji.
            for text in [String(repeating: "\u{E9}", count: 5000), String(repeating: "😀", count: 1000)] {
                let ok = try await s.request(
                    "POST", "/v3/group_channels/\(channel)/messages", body: ["message_type": "MESG", "user_id": "alice", "message": text])
                #expect(ok.status == 200, "\(ok.text.prefix(200))")
            }
            let profile = try await s.request("PUT", "/v3/users/alice", body: ["profile_url": "https://x/" + zalgo])
            #expect(profile.json["code"] as? Int == 400110)
            let meta = try await s.request("POST", "/v3/users/alice/metadata", body: ["metadata": ["k": zalgo]])
            #expect(meta.json["code"] as? Int == 400110)
            let rename = try await s.request("PUT", "/v3/group_channels/\(channel)", body: ["name": zalgo])
            #expect(rename.json["code"] as? Int == 400110)
            let search = try await s.request("GET", "/v3/search/messages?query=\(enc("Z" + String(repeating: "\u{301}", count: 2500)))")
            #expect(search.status == 400, "\(search.text.prefix(200))")

            let (alice, _) = try await s.login("alice")
            alice.send("MESG", ["channel_url": channel, "message": zalgo, "req_id": "z"])
            let eror = await alice.next("EROR")
            #expect(eror?["code"] as? Int == 400110)
            alice.send("MESG", ["channel_url": channel, "message": "ok", "req_id": String(repeating: "r", count: 129)])
            #expect(await alice.next("EROR") { $0["code"] as? Int == 400110 } != nil, "req_id over 128 bytes")
            await alice.close()
            let history = try await s.request("GET", "/v3/group_channels/\(channel)/messages?message_ts=9999999999999&prev_limit=20&next_limit=0")
            #expect((history.json["messages"] as? [Any])?.count == 2, "only the two acceptable messages were stored")
        }
    }

    @Test("Deactivation ends every session at once: REST refuses the key (400300) and the open socket is told and closed")
    func deactivationEndsSessions() async throws {
        try await withServer { s in
            let channel = try await s.newChannel(of: ["alice", "bob"])
            let (sock, login) = try await s.login("alice")
            let key = ["Session-Key": login["key"] as? String ?? ""]
            let before = try await s.request("GET", "/v3/group_channels/\(channel)", headers: key)
            #expect(before.status == 200)
            let off = try await s.request("PUT", "/v3/users/alice", body: ["is_active": false])
            #expect(off.status == 200)
            let eror = await sock.next("EROR")
            #expect(eror?["code"] as? Int == 400300, "\(String(describing: eror))")
            #expect(await sock.waitClosed(timeout: .seconds(10)))
            for (method, path, body) in [
                ("GET", "/v3/group_channels/\(channel)", nil as [String: Any]?),
                ("POST", "/v3/group_channels/\(channel)/messages", ["message_type": "MESG", "message": "still here?"]),
            ] {
                let r = try await s.request(method, path, body: body, headers: key)
                #expect(r.status == 403 || r.status == 400, "\(method) \(path): \(r.text)")
                #expect([400300, 400302].contains(r.json["code"] as? Int ?? 0), "\(r.text)")
            }
            // Reactivated, she logs in afresh; the old key stays dead.
            _ = try await s.request("PUT", "/v3/users/alice", body: ["is_active": true])
            let old = try await s.request("GET", "/v3/group_channels/\(channel)", headers: key)
            #expect(old.status != 200)
            let (again, _) = try await s.login("alice")
            await again.close()
        }
    }

    @Test("Re-issuing a token ends the sessions made from the old one, on REST and on the open socket")
    func reissueEndsSessions() async throws {
        try await withServer({ $0.requireAccessToken = true }) { s in
            let created = try await s.request("POST", "/v3/users", body: ["user_id": "alice", "issue_access_token": true])
            let token = created.json["access_token"] as? String ?? ""
            #expect(!token.isEmpty)
            let (sock, login) = try await s.login("alice", headers: ["SENDBIRD-WS-TOKEN": token])
            let key = ["Session-Key": login["key"] as? String ?? ""]
            #expect(try await s.request("GET", "/v3/users/alice", headers: key).status == 200)
            let reissued = try await s.request("PUT", "/v3/users/alice", body: ["issue_access_token": true])
            let newToken = reissued.json["access_token"] as? String ?? ""
            #expect(!newToken.isEmpty && newToken != token)
            let eror = await sock.next("EROR")
            #expect(eror?["code"] as? Int == 400310, "\(String(describing: eror))")
            #expect(await sock.waitClosed(timeout: .seconds(10)))
            let stale = try await s.request("GET", "/v3/users/alice", headers: key)
            #expect(stale.status == 403, "\(stale.text)")
            // The old token no longer logs in; the new one does.
            let old = s.connect("alice", headers: ["SENDBIRD-WS-TOKEN": token])
            #expect(await old.next("LOGI")?["code"] as? Int == 400302)
            await old.close()
            let (fresh, _) = try await s.login("alice", headers: ["SENDBIRD-WS-TOKEN": newToken])
            await fresh.close()
        }
    }

    @Test("A session ends with the token it was made from, and an expired token cannot refresh it over the socket")
    func tokenExpiryEndsSessions() async throws {
        let clock = StillClock()
        try await withServer(clock: clock, { $0.requireAccessToken = true }) { s in
            _ = try await s.request("POST", "/v3/users", body: ["user_id": "alice"])
            let expiresAt = clock.nowMs() + 60_000
            let issued = try await s.request("POST", "/v3/users/alice/token", body: ["expires_at": expiresAt])
            let token = issued.json["token"] as? String ?? ""
            let (sock, login) = try await s.login("alice", headers: ["SENDBIRD-WS-TOKEN": token])
            let key = ["Session-Key": login["key"] as? String ?? ""]
            #expect(try await s.request("GET", "/v3/users/alice", headers: key).status == 200)
            clock.advance(ms: 61_000)
            let expired = try await s.request("GET", "/v3/users/alice", headers: key)
            #expect(expired.json["code"] as? Int == 400309, "\(expired.text)")
            sock.send("LOGI", ["token": token, "req_id": "refresh"])
            let refused = await sock.next("EROR") { $0["req_id"] as? String == "refresh" }
            #expect(refused?["code"] as? Int == 400310, "\(String(describing: refused))")
            // Without a token the refresh is refused too (the app requires tokens).
            sock.send("LOGI", ["req_id": "bare"])
            #expect(await sock.next("EROR") { $0["req_id"] as? String == "bare" }?["code"] as? Int == 400302)
            await sock.close()
        }
    }

    @Test("Flood limits hold on REST with a Session-Key (500910, 429) and for edits; the Platform API is not limited")
    func floodLimitsOnEveryTransport() async throws {
        try await withFloodLimitedServer { s in
            let channel = try await s.newChannel(of: ["alice", "bob"])
            let key = try await s.sessionHeaders("alice")
            var statuses: [Int] = []
            var ids: [Int64] = []
            for i in 0..<8 {
                let r = try await s.request(
                    "POST", "/v3/group_channels/\(channel)/messages", body: ["message_type": "MESG", "message": "m\(i)"], headers: key)
                statuses.append(r.status)
                if let id = r.json["message_id"] as? Int64 { ids.append(id) } else if let id = r.json["message_id"] as? Int { ids.append(Int64(id)) }
                if r.status == 429 { #expect(r.json["code"] as? Int == 500910) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 5 && statuses.filter { $0 == 429 }.count == 3, "\(statuses)")
            // The Platform API sends as alice without a limit.
            for i in 0..<8 {
                let r = try await s.request(
                    "POST", "/v3/group_channels/\(channel)/messages", body: ["message_type": "MESG", "user_id": "alice", "message": "p\(i)"])
                #expect(r.status == 200)
            }
            // Edits over the socket (MEDI) have their own budget of 5 a second.
            let (alice, _) = try await s.login("alice")
            let target = ids.first ?? 0
            for i in 0..<7 { alice.send("MEDI", ["channel_url": channel, "msg_id": target, "message": "edit \(i)", "req_id": "e\(i)"]) }
            for i in 0..<7 { _ = await alice.next("MEDI", timeout: .milliseconds(300)) { $0["req_id"] as? String == "e\(i)" } }
            let limited = alice.all("EROR").filter { $0["code"] as? Int == 900200 }
            #expect(limited.count == 2, "\(alice.all("EROR"))")
            await alice.close()
        }
    }

    @Test("The data directory is its owner's only: 0700, the database files 0600; an open existing directory is reported")
    func dataDirectoryModes() async throws {
        let parent = makeTempDirectory()
        let dir = parent + "/data"
        let server = try await TestServer.start(dataDirectory: dir)
        await server.stop()
        func mode(_ p: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: p))?[.posixPermissions] as? NSNumber)?.intValue ?? -1 }
        #expect(mode(dir) == 0o700)
        for f in ["ternd.sqlite", "ternd.sqlite-wal", "ternd.sqlite-shm"] where FileManager.default.fileExists(atPath: dir + "/" + f) {
            #expect(mode(dir + "/" + f) == 0o600, "\(f)")
        }
        let open = parent + "/open"
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: open)
        #expect(try DataDirectory.prepare(open)?.contains("readable by other users") == true)
        #expect(try DataDirectory.prepare(dir) == nil)
        try? FileManager.default.removeItem(atPath: parent)
    }

    @Test("Fuzzing a live server: mutated JSON bodies and frames get 4xx or EROR, never a 500 or a crash, and honest clients go on")
    func fuzzLiveServer() async throws {
        try await withServer({ $0.linkPreviews = false }) { s in
            let channel = try await s.newChannel(of: ["alice", "bob", "carol"])
            let bodies: [(String, String, String)] = [
                ("POST", "/v3/users", #"{"user_id":"u1","nickname":"n","profile_url":"","metadata":{"a":"b"},"issue_access_token":true}"#),
                ("POST", "/v3/group_channels", #"{"user_ids":["alice","bob"],"name":"x","is_distinct":false,"custom_type":"t","data":"{}"}"#),
                (
                    "POST", "/v3/group_channels/\(channel)/messages",
                    #"{"message_type":"MESG","user_id":"alice","message":"hi","mentioned_user_ids":["bob"],"sorted_metaarray":[{"key":"k","value":["v"]}]}"#
                ),
                ("PUT", "/v3/users/alice/metadata", #"{"metadata":{"k":"v"},"upsert":true}"#),
                ("PUT", "/v3/group_channels/\(channel)", #"{"name":"renamed","cover_url":"https://x","data":"d"}"#),
                ("POST", "/v3/group_channels/\(channel)/ban", #"{"user_id":"carol","seconds":60,"description":"why"}"#),
            ]
            var rng = SeededGenerator(seed: 0xB0D1E5)
            var statuses: [Int: Int] = [:]
            for i in 0..<400 {
                let (method, path, body) = bodies[i % bodies.count]
                let mutated = FuzzCorpus.mutate(Array(body.utf8), &rng)
                let r = try await s.request(method, path, rawBody: String(decoding: mutated, as: UTF8.self))
                statuses[r.status, default: 0] += 1
                #expect(r.status < 500, "\(method) \(path) with \(String(decoding: mutated, as: UTF8.self).prefix(120)): \(r.text.prefix(200))")
            }
            #expect(statuses.keys.contains(400), "\(statuses)")

            let (alice, _) = try await s.login("alice")
            let frames = [
                #"MESG{"channel_url":"\#(channel)","message":"m","req_id":"r"}"#, #"READ{"channel_url":"\#(channel)","req_id":"q"}"#,
                #"MEDI{"channel_url":"\#(channel)","msg_id":1,"message":"e","req_id":"e"}"#, #"TPST{"channel_url":"\#(channel)","time":1}"#,
                #"MACK{"channel_url":"\#(channel)","msg_id":1}"#, #"ENTR{"channel_url":"x","req_id":"n"}"#, #"PING{"id":1}"#,
            ]
            for i in 0..<500 {
                let mutated = FuzzCorpus.mutate(Array(frames[i % frames.count].utf8), &rng)
                alice.sendRaw(String(decoding: mutated, as: UTF8.self))
            }
            // The socket is still served: a ping is answered, and bob still gets alice's messages.
            alice.send("PING", ["id": 42])
            #expect(await alice.next("PONG") != nil)
            #expect(!alice.all("EROR").contains { $0["code"] as? Int == 500901 }, "no internal errors")
            let (bob, _) = try await s.login("bob")
            alice.send("MESG", ["channel_url": channel, "message": "after the storm", "req_id": "final"])
            #expect(await bob.next("MESG") { $0["message"] as? String == "after the storm" } != nil)
            for x in [alice, bob] { await x.close() }
        }
    }
}

/// The mutation engine of the protocol fuzz tests, for bodies and frames sent to a live server.
enum FuzzCorpus {
    static let pieces: [[UInt8]] = [
        Array("{".utf8), Array("}".utf8), Array("\"".utf8), Array("\\".utf8), Array("\\u0000".utf8), Array("\\ud800".utf8),
        [0xFF], [0xC3], Array("1e999".utf8), Array("null".utf8), Array("[]".utf8), Array(":".utf8), Array(",".utf8), Array("\n".utf8),
        Array("-1".utf8), Array("99999999999999999999".utf8), Array("true".utf8), Array("{}".utf8),
    ]

    static func mutate(_ input: [UInt8], _ rng: inout SeededGenerator) -> [UInt8] {
        var b = input
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            switch Int.random(in: 0..<5, using: &rng) {
            case 0 where !b.isEmpty:
                let i = Int.random(in: 0..<b.count, using: &rng)
                b[i] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))
            case 1 where !b.isEmpty:
                let i = Int.random(in: 0..<b.count, using: &rng)
                b.removeSubrange(i..<min(b.count, i + Int.random(in: 1...6, using: &rng)))
            case 2:
                b.insert(contentsOf: pieces.randomElement(using: &rng)!, at: Int.random(in: 0...b.count, using: &rng))
            case 3 where !b.isEmpty:
                b = Array(b.prefix(Int.random(in: 0..<b.count, using: &rng)))
            default:
                if let i = b.indices.filter({ b[$0] == UInt8(ascii: ":") }).randomElement(using: &rng) {
                    b.insert(contentsOf: pieces.randomElement(using: &rng)!, at: i + 1)
                }
            }
        }
        return b
    }
}
