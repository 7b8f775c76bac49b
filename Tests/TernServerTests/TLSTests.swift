import Foundation
import Logging
import NIOSSL
import NIOWebSocket
import Synchronization
import TernServer
import TernTestSupport
import Testing
import WSClient

/// Issue 17 §9: `ternd serve --tls-cert --tls-key` serves `https://` and `wss://`; a client that
/// trusts the CA logs in, one that does not is refused by the handshake.
@Suite("TLS", .serialized)
struct TLSTests {
    /// Connects over `wss://` and returns the first frame's command (LOGI) or the error.
    func firstFrame(port: Int, trusting ca: String?) async -> Result<String, any Error> {
        var logger = Logger(label: "tls-test")
        logger.logLevel = .critical
        var tls = TLSConfiguration.makeClientConfiguration()
        if let ca, let roots = try? NIOSSLCertificate.fromPEMFile(ca) { tls.trustRoots = .certificates(roots) }
        let got = SharedText()
        // NIOSSL refuses an IP address as SNI; the trailing dot makes it a name while the
        // certificate's IP SAN still matches (the same workaround as TernKit's transport).
        var config = WebSocketClientConfiguration()
        config.sniHostname = "127.0.0.1."
        do {
            _ = try await WebSocketClient.connect(
                url: "wss://127.0.0.1:\(port)/?p=JS&pv=test&sv=4.22.7&ai=LOCAL&user_id=alice", configuration: config, tlsConfiguration: tls,
                logger: logger
            ) { inbound, outbound, _ in
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    if case .text(let t) = message {
                        got.set(String(t.prefix(4)))
                        break
                    }
                }
                try await outbound.close(.normalClosure, reason: nil)
            }
            return .success(got.get())
        } catch {
            return .failure(error)
        }
    }

    @Test("ternd with --tls-cert/--tls-key: wss:// logs in with the CA trusted, fails without it; plain ws:// to the TLS port gets nothing")
    func tlsServer() async throws {
        let certs = try TestCertificates.make()
        defer { certs.remove() }
        let dir = makeTempDirectory()
        let server = try await TerndChild.start(
            dataDirectory: dir, extra: ["--tls-cert", certs.serverCertificate, "--tls-key", certs.serverKey], followingTestDatabase: true)
        defer {
            server.stopBlocking()
            try? FileManager.default.removeItem(atPath: dir)
        }
        let trusted = await firstFrame(port: server.port, trusting: certs.caCertificate)
        #expect((try? trusted.get()) == "LOGI", "\(trusted)")
        let untrusted = await firstFrame(port: server.port, trusting: nil)
        if case .success(let frame) = untrusted { Issue.record("a client that does not trust the CA got \(frame)") }
        // A plain-text WebSocket upgrade to the TLS port is never answered with 101: the TLS
        // layer refuses the bytes and the connection is closed.
        let plain = try RawSocket(port: server.port)
        plain.send(
            "GET /?p=JS&pv=test&sv=4.22.7&ai=LOCAL&user_id=bob HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        let answer = plain.waitClosed(seconds: 15)
        #expect(answer.closed, "the server closes a plain-text connection to its TLS port")
        #expect(!answer.data.contains("101"), "no upgrade over plain text: \(answer.data.prefix(80))")
    }

    @Test("A certificate without its key (or a file that is not PEM) is refused at start")
    func badConfiguration() async throws {
        let dir = makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var config = ServerConfiguration(port: 0, dataDirectory: dir, apiToken: "t")
        config.tlsCertificatePath = dir + "/missing.pem"
        await #expect(throws: ServerStartError.self) { _ = try await buildApplication(config) }
        config.tlsKeyPath = dir + "/missing.key"
        await #expect(throws: ServerStartError.self) { _ = try await buildApplication(config) }
    }
}

final class SharedText: Sendable {
    let value = Mutex<String>("")
    func set(_ s: String) { value.withLock { $0 = s } }
    func get() -> String { value.withLock { $0 } }
}
