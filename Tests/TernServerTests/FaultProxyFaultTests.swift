import Foundation
import TernTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The test TCP fault proxy (`TernTestSupport.FaultProxy`) between plain clients and a real in-process
/// ternd: REST and WebSocket traffic through it, and what each fault does to them. No timing is
/// asserted: a stall is known to have caught a frame when the proxy holds bytes.
@Suite("Fault proxy", .serialized)
struct FaultProxyFaultTests {
    /// Waits (20 s at most, as a safety net) until `condition` holds.
    func eventually(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition() {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// `GET /v3/users` through `port` on a fresh session (no connection kept from earlier calls).
    func listUsers(_ port: Int, token: String) async throws -> Int {
        var req = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v3/users")!)
        req.timeoutInterval = 20
        req.setValue(token, forHTTPHeaderField: "Api-Token")
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (_, response) = try await session.data(for: req)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    func socket(_ port: Int, _ user: String) -> TestSocket {
        TestSocket(url: "ws://127.0.0.1:\(port)", query: "p=JS&pv=test&sv=4.22.7&ai=LOCAL&user_id=\(user)")
    }

    /// Starts a server and a proxy in front of it, runs `body`, and stops both whatever happens.
    func withProxy(_ body: (TestServer, FaultProxy, Int) async throws -> Void) async throws {
        try await withServer { s in
            let proxy = FaultProxy(targetPort: s.port)
            let port = try await proxy.start()
            do {
                try await body(s, proxy, port)
            } catch {
                await proxy.stop()
                throw error
            }
            await proxy.stop()
        }
    }

    @Test("REST through the proxy: works, fails while dropped, works again once healed")
    func restDropAndHeal() async throws {
        try await withProxy { s, proxy, port in
            let before = try await listUsers(port, token: s.apiToken)
            #expect(before == 200 && proxy.acceptedConnections == 1)
            proxy.drop()
            await #expect(throws: (any Error).self) { _ = try await listUsers(port, token: s.apiToken) }
            proxy.heal()
            let after = try await listUsers(port, token: s.apiToken)
            #expect(after == 200)
        }
    }

    @Test("A connection through the proxy: drop closes it (FIN) and new ones are closed at once; reset sends RST")
    func dropIsFinResetIsRst() async throws {
        try await withProxy { s, proxy, port in
            let request = "GET /v3/users HTTP/1.1\r\nHost: 127.0.0.1\r\nApi-Token: \(s.apiToken)\r\n\r\n"
            let first = try RawConnection(port: port)
            first.send(request)
            #expect(await first.readResponse()?.hasPrefix("HTTP/1.1 200") == true)
            proxy.reset()
            #expect(await first.read() == .reset)

            let second = try RawConnection(port: port)
            second.send(request)
            #expect(await second.readResponse()?.hasPrefix("HTTP/1.1 200") == true, "reset refuses nothing new")
            proxy.drop()
            #expect(await second.read() == .end)
            let refused = try RawConnection(port: port)
            #expect(await refused.read() == .end, "accepted and closed while dropped")
            proxy.heal()
            let third = try RawConnection(port: port)
            third.send(request)
            #expect(await third.readResponse()?.hasPrefix("HTTP/1.1 200") == true)
        }
    }

    @Test("A WebSocket through the proxy: LOGI; a stall holds a MESG until healed; delay keeps order; reset closes; drop refuses")
    func webSocketFaults() async throws {
        try await withProxy { s, proxy, port in
            let url = try await s.newChannel(of: ["alice", "bob"])
            let bob = socket(port, "bob")
            #expect(await bob.next("LOGI")?["key"] as? String != nil)
            #expect(proxy.openConnections == 1)

            // Stalled: the server's MESG reaches the proxy and stays there until heal.
            proxy.stall()
            let sent = try await s.request("POST", "/v3/group_channels/\(url)/messages", body: ["user_id": "alice", "message": "held"])
            #expect(sent.status == 200)
            #expect(await eventually { proxy.heldBytes > 0 })
            #expect(bob.all("MESG").isEmpty, "nothing passes a stall")
            proxy.heal()
            #expect(await bob.next("MESG")?["message"] as? String == "held")
            #expect(await eventually { proxy.heldBytes == 0 })

            // Delayed: every chunk late, in the order sent; a PING still gets its PONG.
            proxy.delay(20)
            for i in 0..<5 {
                _ = try await s.request("POST", "/v3/group_channels/\(url)/messages", body: ["user_id": "alice", "message": "d\(i)"])
            }
            bob.send("PING", ["id": 7])
            var got: [String] = []
            for _ in 0..<5 { got.append(await bob.next("MESG")?["message"] as? String ?? "") }
            #expect(got == ["d0", "d1", "d2", "d3", "d4"])
            #expect(await bob.next("PONG")?["id"] as? Int == 7)
            proxy.heal()

            // Reset: the socket closes; a new one through the proxy logs in.
            proxy.reset()
            #expect(await bob.waitClosed())
            let again = socket(port, "bob")
            #expect(await again.next("LOGI")?["key"] as? String != nil)

            // Dropped: the socket closes and a new one gets no LOGI; healed, one does.
            proxy.drop()
            #expect(await again.waitClosed())
            let refused = socket(port, "bob")
            #expect(await refused.next("LOGI") == nil)
            proxy.heal()
            let healed = socket(port, "bob")
            #expect(await healed.next("LOGI")?["key"] as? String != nil)
            for sock in [bob, again, refused, healed] { await sock.close() }
        }
    }
}

extension FaultProxyFaultTests {
    @Test("Replies held (a one-way partition): the client's MESG reaches the server and is stored; its answer waits until healed")
    func repliesHeld() async throws {
        try await withProxy { s, proxy, port in
            try await s.createUsers(["alice", "bob"])
            let url = try await s.createChannel(["alice", "bob"])
            let bob = socket(port, "bob")
            #expect(await bob.next("LOGI")?["key"] as? String != nil)

            proxy.holdReplies()
            bob.send("MESG", ["channel_url": url, "message": "one way", "req_id": "r1"])
            // The server has it (stored, listed for alice), while bob's answer waits in the proxy.
            var stored = false
            for _ in 0..<200 where !stored {
                let page = try await s.request("GET", "/v3/group_channels/\(url)/messages?message_ts=9999999999999&prev_limit=5")
                stored = (page.json["messages"] as? [[String: Any]] ?? []).contains { $0["message"] as? String == "one way" }
                if !stored { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(stored, "the request went through")
            #expect(await eventually { proxy.heldBytes > 0 })
            #expect(bob.all("MESG").isEmpty, "no reply passes while held")
            proxy.heal()
            let ack = await bob.next("MESG")
            #expect(ack?["message"] as? String == "one way" && ack?["req_id"] as? String == "r1")
            #expect(await eventually { proxy.heldBytes == 0 })
            await bob.close()
        }
    }
}

/// A plain blocking TCP client, so a test sees how a connection ended: an orderly close (FIN, `end`) or a
/// reset (RST, `reset`). Reads run on their own thread, not on the concurrency pool.
final class RawConnection: @unchecked Sendable {
    enum ReadResult: Equatable {
        case data(String)
        case end
        case reset
        case failed(Int32)
    }

    let fd: Int32

    init(port: Int) throws {
        fd = try connectLoopback(port: port) { fd in
            var timeout = timeval(tv_sec: 20, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
    }

    deinit { Glibc.close(fd) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// One HTTP response, whole (head and `Content-Length` body); nil when the connection ended first.
    func readResponse() async -> String? {
        var text = ""
        while true {
            guard case .data(let chunk) = await read() else { return nil }
            text += chunk
            guard let headEnd = text.range(of: "\r\n\r\n") else { continue }
            let lengthLine = text[..<headEnd.lowerBound].lowercased().split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            let length = lengthLine.flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            if text[headEnd.upperBound...].utf8.count >= length { return text }
        }
    }

    /// One `recv`: what arrived, or how the connection ended.
    func read() async -> ReadResult {
        let fd = self.fd
        return await withCheckedContinuation { (c: CheckedContinuation<ReadResult, Never>) in
            Thread.detachNewThread {
                var buffer = [UInt8](repeating: 0, count: 65_536)
                let n = buffer.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
                if n > 0 {
                    c.resume(returning: .data(String(decoding: buffer[0..<n], as: UTF8.self)))
                } else if n == 0 {
                    c.resume(returning: .end)
                } else {
                    let e = errno
                    c.resume(returning: e == ECONNRESET ? .reset : .failed(e))
                }
            }
        }
    }
}
