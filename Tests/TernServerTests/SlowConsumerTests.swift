import Foundation
import TernTestSupport
import Testing

@testable import TernServer

#if canImport(Glibc)
import Glibc
#endif

/// Guarantee G6 (research/backend.md §3): a reader that stops reading is cut off once its
/// outbound queue passes the limit, and the others keep receiving everything.
@Suite("Slow consumers", .serialized)
struct SlowConsumerTests {
    /// Opens a WebSocket by hand (a tiny receive buffer, then never reads) and returns the fd.
    func stalledSocket(port: Int, userId: String) throws -> Int32 {
        let fd = try connectLoopback(port: port) { fd in
            var small: Int32 = 4096
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        }
        let request =
            "GET /?ai=LOCAL&user_id=\(userId) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        return fd
    }

    @Test("A socket that never reads is closed by the server; the other members still get every message")
    func slowReaderIsCutOff() async throws {
        try await withServer({ $0.outboundQueueLimit = 1 << 20 }) { s in
            let url = try await s.newChannel(of: ["fast", "slow", "sender"])
            let fd = try stalledSocket(port: s.port, userId: "slow")
            defer { close(fd) }
            let (fast, _) = try await s.login("fast")
            let (sender, _) = try await s.login("sender")
            // Wait until the stalled socket is registered.
            for _ in 0..<100 where s.app.service.registry.connections(of: "slow").isEmpty {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(!s.app.service.registry.connections(of: "slow").isEmpty)
            let body = String(repeating: "z", count: 4000)
            // About 12 MB: more than the kernel's socket buffers plus the 1 MB queue. Sent in
            // steps the fast reader keeps up with, so only the stalled socket falls behind.
            let count = 3000
            var received = 0
            for step in stride(from: 0, to: count, by: 50) {
                for i in step..<(step + 50) { sender.send("MESG", ["channel_url": url, "message": body, "req_id": "s\(i)"]) }
                while received < step + 50, await fast.next("MESG", timeout: .seconds(20)) != nil { received += 1 }
                if received < step + 50 { break }
            }
            #expect(received == count, "the fast reader got \(received) of \(count)")
            var cutOff = false
            for _ in 0..<250 {
                if s.app.service.registry.connections(of: "slow").isEmpty {
                    cutOff = true
                    break
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            let reason = s.app.service.registry.connections(of: "slow").first?.outbox.closeReason
            #expect(cutOff, "the stalled connection was not closed (outbox: \(String(describing: reason)))")
            // The server's end is gone: the stalled socket reads the end of the stream (or a reset)
            // once its buffered bytes are drained.
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            var total = 0
            var limit = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            while true {
                let n = recv(fd, &buffer, buffer.count, 0)
                if n <= 0 { break }
                total += n
            }
            #expect(total > 0)
            await fast.close()
            await sender.close()
        }
    }
}
