import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

@Suite("WebSocket gateway: handshake, LOGI, commands", .serialized)
struct WebSocketTests {
    @Test("LOGI carries the user, session key, ping and reconnect settings, unread counts and limits")
    func loginPayload() async throws {
        try await withServer { s in
            let (socket, logi) = try await s.login("newbie")
            #expect(logi["user_id"] as? String == "newbie", "created on first connect")
            #expect((logi["key"] as? String ?? "").count >= 32)
            #expect(logi["login_ts"] as? Int ?? 0 > 1_600_000_000_000)
            #expect(logi["ping_interval"] as? Int == 15)
            #expect(logi["pong_timeout"] as? Int == 5)
            let reconnect = logi["reconnect"] as? [String: Any] ?? [:]
            #expect(reconnect["interval"] as? Double == 2 && reconnect["max_interval"] as? Double == 20)
            #expect(reconnect["mul"] as? Double == 2 && reconnect["retry_cnt"] as? Int == -1)
            #expect((logi["unread_cnt"] as? [String: Any])?["all"] as? Int == 0)
            #expect(logi["file_upload_size_limit"] as? Int == 25)
            #expect(logi["multiple_file_send_max_size"] as? Int == 30)
            socket.send("PING", ["id": 42, "active": 1, "req_id": "p1"])
            let pong = await socket.next("PONG")
            #expect(pong?["id"] as? Int == 42)
            await socket.close()
        }
    }

    @Test("Refusals come as LOGI errors after the upgrade, then the socket closes")
    func refusals() async throws {
        try await withServer { s in
            let wrongApp = s.connect("u1", appId: "OTHER")
            let e1 = await wrongApp.next("LOGI")
            #expect(e1?["error"] as? Bool == true)
            #expect(e1?["code"] as? Int == 400304)
            #expect(await wrongApp.waitClosed())

            let badToken = s.connect("u2", headers: ["SENDBIRD-WS-TOKEN": "forged"])
            #expect(await badToken.next("LOGI")?["code"] as? Int == 400302)
            #expect(await badToken.waitClosed())

            let noUser = s.connect(nil)
            #expect(await noUser.next("LOGI")?["code"] as? Int == 900010)

            let badKey = s.connect(nil, headers: ["Sec-WebSocket-Protocol": "%7B%22auth%22%3A%22nope%22%7D"])
            #expect(await badKey.next("LOGI")?["code"] as? Int == 400302)
            for sock in [wrongApp, badToken, noUser, badKey] { await sock.close() }
        }
    }

    @Test("With --require-access-token only issued tokens log in (header or subprotocol); a presented token is always checked")
    func accessTokens() async throws {
        try await withServer({ $0.requireAccessToken = true }) { s in
            let created = try await s.request(
                "POST", "/v3/users", body: ["user_id": "t1", "nickname": "", "profile_url": "", "issue_access_token": true])
            let token = created.json["access_token"] as? String ?? ""
            let without = s.connect("t1")
            #expect(await without.next("LOGI")?["code"] as? Int == 400302)
            let stranger = s.connect("stranger")
            #expect(await stranger.next("LOGI")?["code"] as? Int == 400302)
            let (viaHeader, _) = try await s.login("t1", headers: ["SENDBIRD-WS-TOKEN": token])
            let proto = "{\"token\":\"\(token)\"}".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let (viaProtocol, _) = try await s.login("t1", headers: ["Sec-WebSocket-Protocol": proto])
            let wrongUser = s.connect("stranger", headers: ["SENDBIRD-WS-TOKEN": token])
            #expect(await wrongUser.next("LOGI")?["code"] as? Int == 400302)
            for sock in [without, stranger, viaHeader, viaProtocol, wrongUser] { await sock.close() }
        }
    }

    @Test("A session-key reconnect carries no user_id and is mapped to its user")
    func sessionKeyReconnect() async throws {
        try await withServer { s in
            let (first, logi) = try await s.login("rita")
            let key = logi["key"] as? String ?? ""
            await first.close()
            let proto = "{\"auth\":\"\(key)\"}".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let again = s.connect(nil, headers: ["Sec-WebSocket-Protocol": proto])
            let relogi = await again.next("LOGI")
            #expect(relogi?["error"] == nil)
            #expect(relogi?["user_id"] as? String == "rita")
            let viaHeader = s.connect(nil, headers: ["SENDBIRD-WS-AUTH": key])
            #expect(await viaHeader.next("LOGI")?["user_id"] as? String == "rita")
            await again.close()
            await viaHeader.close()
        }
    }

    @Test("An expired session key is refused with 400309, over REST and on reconnect")
    func expiredSession() async throws {
        let clock = AdjustableClock()
        try await withServer({
            $0.clock = clock
            $0.sessionLifetime = 3600
        }) { s in
            let (socket, logi) = try await s.login("eve")
            let key = logi["key"] as? String ?? ""
            let fresh = try await s.request("GET", "/v3/users/eve/unread_message_count", headers: ["Session-Key": key])
            #expect(fresh.json["unread_count"] as? Int == 0)
            clock.advance(seconds: 3601)
            let expired = try await s.request("GET", "/v3/users/eve/unread_message_count", headers: ["Session-Key": key])
            #expect(expired.status == 403)
            #expect(expired.json["code"] as? Int == 400309)
            let reconnect = s.connect(nil, headers: ["SENDBIRD-WS-AUTH": key])
            #expect(await reconnect.next("LOGI")?["code"] as? Int == 400309)
            await socket.close()
            await reconnect.close()
        }
    }

    @Test("MESG: ack with req_id to the sending connection only; every other device of every member gets it")
    func messageFanOut() async throws {
        try await withServer { s in
            let url = try await s.newChannel(of: ["a", "b"])
            let (a1, _) = try await s.login("a")
            let (a2, _) = try await s.login("a")
            let (b1, _) = try await s.login("b")
            let (b2, _) = try await s.login("b")
            a1.send("MESG", ["channel_url": url, "message": "hello", "req_id": "rq-1"])
            let ack = await a1.next("MESG")
            #expect(ack?["req_id"] as? String == "rq-1")
            #expect(ack?["message"] as? String == "hello")
            let id = ack?["msg_id"] as? Int
            #expect(id != nil && ack?["message_id"] as? Int == id)
            #expect((ack?["user"] as? [String: Any])?["user_id"] as? String == "a")
            for other in [a2, b1, b2] {
                let got = await other.next("MESG")
                #expect(got?["msg_id"] as? Int == id)
                #expect(got?["req_id"] == nil, "req_id only on the sender's copy")
            }
            #expect(a1.all("MESG").count == 1, "the sender gets exactly one copy")
            // The same req_id again returns the original message and stores nothing new.
            a1.send("MESG", ["channel_url": url, "message": "hello", "req_id": "rq-1"])
            let replay = await a1.next("MESG")
            #expect(replay?["msg_id"] as? Int == id)
            let history = try await s.request(
                "GET", "/v3/group_channels/\(url)/messages?message_ts=\(Int(Date().timeIntervalSince1970 * 1000) + 1000)&prev_limit=10&next_limit=0")
            #expect((history.json["messages"] as? [Any])?.count == 1)
            for sock in [a1, a2, b1, b2] { await sock.close() }
        }
    }

    @Test("Errors: non-member 900020, unknown channel 900500, malformed frames 400403 while the connection stays up")
    func commandErrors() async throws {
        try await withServer(users: ["a", "b", "outsider"]) { s in
            let url = try await s.createChannel(["a", "b"])
            let (out, _) = try await s.login("outsider")
            out.send("MESG", ["channel_url": url, "message": "let me in", "req_id": "r1"])
            let e1 = await out.next("EROR")
            #expect(e1?["code"] as? Int == 900020)
            #expect(e1?["req_id"] as? String == "r1")
            out.send("MESG", ["channel_url": "no_such_channel", "message": "x", "req_id": "r2"])
            let e2 = await out.next("EROR")
            #expect(e2?["code"] as? Int == 900500)
            #expect(e2?["req_id"] as? String == "r2")
            out.sendRaw("MESG{not json\n")
            #expect(await out.next("EROR")?["code"] as? Int == 400403)
            out.sendRaw("xx\n")
            #expect(await out.next("EROR")?["code"] as? Int == 400403)
            out.sendRaw("MESG[1,2]\n")
            #expect(await out.next("EROR")?["code"] as? Int == 400403)
            // Still connected: several frames in one WebSocket message are all answered.
            out.sendRaw("PING{\"id\":1}\nPING{\"id\":2}\n")
            #expect(await out.next("PONG")?["id"] as? Int == 1)
            #expect(await out.next("PONG")?["id"] as? Int == 2)
            #expect(!out.isClosed)
            await out.close()
        }
    }

    @Test("READ: the ack carries req_id and a later ts; others and the reader's other devices get READ")
    func readReceipts() async throws {
        try await withServer { s in
            let url = try await s.newChannel(of: ["a", "b"])
            _ = try await s.request("POST", "/v3/group_channels/\(url)/messages", body: ["message_type": "MESG", "user_id": "a", "message": "hi"])
            let (a, _) = try await s.login("a")
            let (b1, logiB) = try await s.login("b")
            #expect((logiB["unread_cnt"] as? [String: Any])?["all"] as? Int == 1)
            let (b2, _) = try await s.login("b")
            let sentAt = Int(Date().timeIntervalSince1970 * 1000)
            b1.send("READ", ["channel_url": url, "req_id": "read-1"])
            let ack = await b1.next("READ")
            #expect(ack?["req_id"] as? String == "read-1")
            #expect(ack?["ts"] as? Int ?? 0 > sentAt)
            #expect((ack?["user"] as? [String: Any])?["user_id"] as? String == "b")
            let seenByA = await a.next("READ")
            #expect((seenByA?["user"] as? [String: Any])?["user_id"] as? String == "b")
            #expect(seenByA?["req_id"] == nil)
            #expect((ack?["unread_cnt"] as? [String: Any])?["all"] as? Int == 0)
            let onB2 = await b2.next("READ")
            #expect(onB2?["ts"] as? Int == ack?["ts"] as? Int)
            #expect((onB2?["unread_cnt"] as? [String: Any])?["all"] as? Int == 0)  // the other device's total follows
            #expect(seenByA?["unread_cnt"] == nil)  // others' totals are theirs
            let unread = try await s.request("GET", "/v3/users/b/unread_message_count")
            #expect(unread.json["unread_count"] as? Int == 0)
            for sock in [a, b1, b2] { await sock.close() }
        }
    }

    @Test("Typing: TPST/TPEN become SYEV 10900/10901 with ts in ms, never echoed to the typer's devices")
    func typing() async throws {
        try await withServer { s in
            let url = try await s.newChannel(of: ["a", "b"])
            let (a1, _) = try await s.login("a")
            let (a2, _) = try await s.login("a")
            let (b, _) = try await s.login("b")
            a1.send("TPST", ["channel_url": url, "time": 1, "req_id": "t1"])
            let start = await b.next("SYEV")
            #expect(start?["cat"] as? Int == 10900)
            #expect(start?["ts"] as? Int ?? 0 > 1_600_000_000_000)
            #expect((start?["data"] as? [String: Any])?["user_id"] as? String == "a")
            a1.send("TPEN", ["channel_url": url, "time": 0, "req_id": "t2"])
            #expect(await b.next("SYEV")?["cat"] as? Int == 10901)
            #expect(await a2.next("SYEV", timeout: .milliseconds(300)) == nil)
            #expect(await a1.next("SYEV", timeout: .milliseconds(100)) == nil)
            for sock in [a1, a2, b] { await sock.close() }
        }
    }

    @Test("MACK: delivery receipts are pushed as DLVR and kept")
    func delivery() async throws {
        try await withServer { s in
            let url = try await s.newChannel(of: ["a", "b"])
            let (a, _) = try await s.login("a")
            let (b, _) = try await s.login("b")
            a.send("MESG", ["channel_url": url, "message": "ping", "req_id": "m1"])
            let msg = await b.next("MESG")
            b.send("MACK", ["channel_url": url, "msg_id": msg?["msg_id"] as? Int ?? 0, "req_id": "k1"])
            let dlvr = await a.next("DLVR")
            #expect(dlvr?["channel_url"] as? String == url)
            #expect((dlvr?["updated"] as? [String: Int])?["b"] ?? 0 > 0)
            let channel = try await s.request("GET", "/v3/group_channels/\(url)")
            #expect((channel.json["delivery_receipt"] as? [String: Int])?["b"] ?? 0 > 0)
            for sock in [a, b] { await sock.close() }
        }
    }

    @Test("Flood protection: past the per-user rate a send is refused with 900200")
    func floodProtection() async throws {
        // One a second: a socket's sends are handled one after another, each after the one
        // before is stored, so a higher rate would make the test depend on how fast the store is.
        try await withServer({ $0.maxMessagesPerSecond = 1 }) { s in
            let url = try await s.newChannel(of: ["a", "b"])
            let (a, _) = try await s.login("a")
            for i in 0..<4 { a.send("MESG", ["channel_url": url, "message": "m\(i)", "req_id": "f\(i)"]) }
            let refused = await a.next("EROR")
            #expect(refused?["code"] as? Int == 900200)
            await a.close()
        }
    }

    @Test("A user may hold at most the configured number of connections (400500)")
    func connectionLimit() async throws {
        try await withServer({ $0.maxConnectionsPerUser = 2 }) { s in
            let (c1, _) = try await s.login("many")
            let (c2, _) = try await s.login("many")
            let third = s.connect("many")
            #expect(await third.next("LOGI")?["code"] as? Int == 400500)
            for sock in [c1, c2, third] { await sock.close() }
        }
    }
}
