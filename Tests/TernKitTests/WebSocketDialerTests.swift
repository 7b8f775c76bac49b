import Crypto
import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import NIOWebSocket
import Synchronization
import TernProtocol
import TernTestSupport
import Testing
import WSCore

@testable import TernKit

/// The WebSocket client against a server that answers in raw bytes: whatever comes with or right
/// after the `101`, and however soon the server hangs up, reaches the client in order.
@Suite("WebSocketDialer: what the server sends with its 101 is never lost", .serialized)
struct WebSocketDialerTests {
    static let refusal = #"LOGI{"error":true,"code":400309,"message":"expired"}"# + "\n"

    @Test("101, a frame, a close frame and the end of the stream in one write: the frame, then the close")
    func refusalInOneWrite() async throws {
        let server = try await RawServer.start { key in
            RawServer.switching(key) + RawServer.frame(0x1, Array(Self.refusal.utf8)) + RawServer.frame(0x8, [0x03, 0xE8])
        }
        defer { server.stop() }
        let (texts, close) = try await Self.within(.seconds(10)) { try await Self.collect(port: server.port) }
        #expect(texts == [Self.refusal])
        #expect(close?.closeCode == .normalClosure)
    }

    @Test("Over TLS too: 101, a frame, a close frame, close_notify and the end in one go")
    func refusalInOneWriteOverTLS() async throws {
        let ca = try TestCertificates.make()
        defer { ca.remove() }
        let serverTLS = try NIOSSLContext(
            configuration: .makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(ca.serverCertificate).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: ca.serverKey, format: .pem))))
        let server = try await RawServer.start(tls: serverTLS) { key in
            RawServer.switching(key) + RawServer.frame(0x1, Array(Self.refusal.utf8)) + RawServer.frame(0x8, [0x03, 0xE8])
        }
        defer { server.stop() }
        var clientTLS = TLSConfiguration.makeClientConfiguration()
        clientTLS.trustRoots = .file(ca.caCertificate)
        let tls = clientTLS
        let (texts, close) = try await Self.within(.seconds(10)) { try await Self.collect(port: server.port, tls: tls) }
        #expect(texts == [Self.refusal])
        #expect(close?.closeCode == .normalClosure)
    }

    @Test("101 and a frame, then the end of the stream without a close frame: the frame arrives and the socket ends")
    func frameThenEndOfStream() async throws {
        let server = try await RawServer.start { key in RawServer.switching(key) + RawServer.frame(0x1, Array(Self.refusal.utf8)) }
        defer { server.stop() }
        let (texts, close) = try await Self.within(.seconds(10)) { try await Self.collect(port: server.port) }
        #expect(texts == [Self.refusal])
        #expect(close == nil)
    }

    @Test("The stream ends in the middle of the 101, or before it: the dial fails at once, it does not wait")
    func endInsideTheResponse() async throws {
        for answer in ["HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n", ""] {
            let server = try await RawServer.start { _ in Array(answer.utf8) }
            defer { server.stop() }
            let failed = try await Self.within(.seconds(10)) {
                do {
                    try await WebSocketDialer.connect(
                        url: "ws://127.0.0.1:\(server.port)/", options: .init(maxFrameSize: 1 << 20), logger: Logger(label: "t")
                    ) { _, _, _ in }
                    return false
                } catch {
                    return true
                }
            }
            #expect(failed, "answer \(answer.debugDescription)")
        }
    }

    @Test("A server that never answers: cancelling the dial ends it (tern gives up on a login that never comes)")
    func cancelledWhileWaitingForThe101() async throws {
        let server = try await RawServer.start { _ in nil }
        defer { server.stop() }
        let dial = Task {
            try await WebSocketDialer.connect(
                url: "ws://127.0.0.1:\(server.port)/", options: .init(maxFrameSize: 1 << 20), logger: Logger(label: "t")
            ) { _, _, _ in }
        }
        while server.requests.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        dial.cancel()
        let ended = try await Self.within(.seconds(10)) { (try? await dial.value) == nil }
        #expect(ended, "the dial throws once cancelled")
    }

    @Test("An HTTP answer other than 101 is a refused upgrade")
    func notSwitching() async throws {
        let server = try await RawServer.start { _ in Array("HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n".utf8) }
        defer { server.stop() }
        await #expect(throws: WebSocketDialer.DialError.self) {
            try await WebSocketDialer.connect(
                url: "ws://127.0.0.1:\(server.port)/", options: .init(maxFrameSize: 1 << 20), logger: Logger(label: "t")
            ) { _, _, _ in }
        }
    }

    @Test("A header value with a line break stays one header: nothing is smuggled into the request")
    func headerInjection() async throws {
        let server = try await RawServer.start { key in RawServer.switching(key) }
        defer { server.stop() }
        let options = WebSocketDialer.Options(maxFrameSize: 1 << 20, headers: [.init("SENDBIRD-WS-TOKEN")!: "a\r\nX-Evil: 1"])
        // The request is what is checked, and the server has logged it before answering. How the socket
        // ends does not matter here: the server hangs up right after its 101, so the client's close
        // frame may meet a closed socket and the dial end with "connection reset" (it did, once in a
        // while).
        _ = try? await WebSocketDialer.connect(url: "ws://127.0.0.1:\(server.port)/p?q=1", options: options, logger: Logger(label: "t")) {
            _, _, _ in
        }
        #expect(server.requests.count == 1)
        let lines = server.requests.first?.split(separator: "\r\n") ?? []
        #expect(lines.first == "GET /p?q=1 HTTP/1.1")
        #expect(lines.contains("Host: 127.0.0.1:\(server.port)"))
        #expect(!lines.contains { $0.lowercased().hasPrefix("x-evil") }, "\(lines)")
        #expect(lines.filter { $0.lowercased().hasPrefix("sendbird-ws-token:") }.count == 1, "\(lines)")
    }

    @Test("tern's transport: a login refused at once shows as the LOGI frame and then the close, not as silence")
    func transportSeesTheRefusal() async throws {
        let server = try await RawServer.start { key in
            RawServer.switching(key) + RawServer.frame(0x1, Array(Self.refusal.utf8)) + RawServer.frame(0x8, [0x03, 0xE8])
        }
        defer { server.stop() }
        let connection = WebSocketConnection(url: "ws://127.0.0.1:\(server.port)/?user_id=x", headers: [:], logger: Logger(label: "t"))
        let seen = try await Self.within(.seconds(10)) {
            var seen: [String] = []
            for await event in connection.events {
                switch event {
                case .opened: seen.append("opened")
                case .frames(let frames): seen += frames.map { $0.command.rawValue }
                case .closed: seen.append("closed")
                }
            }
            return seen
        }
        connection.abort()
        #expect(seen == ["opened", "LOGI", "closed"])
    }

    @Test("URLs: the scheme's default port, IPv6 in brackets in Host, path and query as given")
    func targets() throws {
        let plain = try WebSocketDialer.Target("ws://127.0.0.1:8080/?p=Tern&user_id=a%20b")
        #expect(plain.host == "127.0.0.1" && plain.port == 8080 && !plain.secure)
        #expect(plain.path == "/?p=Tern&user_id=a%20b" && plain.hostHeader == "127.0.0.1:8080" && plain.origin == "ws://127.0.0.1")
        let secure = try WebSocketDialer.Target("wss://chat.example.com")
        #expect(secure.port == 443 && secure.secure && secure.path == "/" && secure.hostHeader == "chat.example.com")
        let v6 = try WebSocketDialer.Target("ws://[::1]:9000/ws")
        #expect(v6.host == "::1" && v6.port == 9000 && v6.hostHeader == "[::1]:9000" && v6.path == "/ws")
        #expect(try WebSocketDialer.Target("http://localhost").port == 80)
        #expect(throws: WebSocketDialer.DialError.self) { try WebSocketDialer.Target("ftp://example.com/") }
        #expect(throws: WebSocketDialer.DialError.self) { try WebSocketDialer.Target("not a url") }
    }

    /// `body`'s result, or a failure once `limit` has passed (a lost end of stream would hang); a body
    /// that ignores cancellation is left behind rather than waited for.
    static func within<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let slot = Slot<T>()
        return try await withCheckedThrowingContinuation { continuation in
            slot.fill(continuation)
            let work = Task {
                do { slot.finish(.success(try await body())) } catch { slot.finish(.failure(error)) }
            }
            Task {
                try? await Task.sleep(for: limit)
                work.cancel()
                slot.finish(.failure(TestFailure("nothing within \(limit)")))
            }
        }
    }

    /// A continuation resumed once, by whoever comes first.
    final class Slot<T: Sendable>: Sendable {
        let continuation = Mutex<CheckedContinuation<T, any Error>?>(nil)
        func fill(_ c: CheckedContinuation<T, any Error>) { continuation.withLock { $0 = c } }
        func finish(_ result: Result<T, any Error>) { continuation.withLock { $0.take() }?.resume(with: result) }
    }

    static func collect(port: Int, tls: TLSConfiguration? = nil) async throws -> ([String], WebSocketCloseFrame?) {
        let texts = Mutex<[String]>([])
        var options = WebSocketDialer.Options(maxFrameSize: 1 << 20)
        if tls != nil { options.sniHostname = "localhost" }
        let close = try await WebSocketDialer.connect(
            url: "\(tls == nil ? "ws" : "wss")://127.0.0.1:\(port)/?user_id=x", options: options, tls: tls, logger: Logger(label: "t")
        ) { inbound, _, _ in
            for try await message in inbound.messages(maxSize: 1 << 20) {
                if case .text(let text) = message { texts.withLock { $0.append(text) } }
            }
        }
        return (texts.withLock { $0 }, close)
    }
}

/// A loopback server answering in raw bytes: reads an HTTP request, writes what `answer` makes of
/// its `Sec-WebSocket-Key` in one write, and closes the socket at once.
final class RawServer: Sendable {
    final class Requests: Sendable { let all = Mutex<[String]>([]) }
    let channel: any Channel
    /// The requests read, as text.
    let log: Requests
    var requests: [String] { log.all.withLock { $0 } }
    var port: Int { channel.localAddress?.port ?? 0 }

    init(channel: any Channel, log: Requests) {
        self.channel = channel
        self.log = log
    }

    /// `answer` nil: the server reads the request and says nothing, the socket left open.
    static func start(tls: NIOSSLContext? = nil, _ answer: @escaping @Sendable (String) -> [UInt8]?) async throws -> RawServer {
        let log = Requests()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    if let tls { try child.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                    try child.pipeline.syncOperations.addHandler(
                        Answer { text in
                            log.all.withLock { $0.append(text) }
                            return answer(RawServer.key(in: text))
                        })
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return RawServer(channel: channel, log: log)
    }

    func stop() { channel.close(promise: nil) }

    static func key(in request: String) -> String {
        request.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }
            .map { $0.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces) } ?? ""
    }

    static func switching(_ key: String) -> [UInt8] {
        let accept = Data(Insecure.SHA1.hash(data: Data((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
        return Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n".utf8)
    }

    /// One unmasked, final frame (payloads under 126 bytes).
    static func frame(_ opcode: UInt8, _ payload: [UInt8]) -> [UInt8] {
        precondition(payload.count < 126)
        return [0x80 | opcode, UInt8(payload.count)] + payload
    }

    /// Collects the request; once its head is in, writes the answer and closes.
    final class Answer: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let answer: @Sendable (String) -> [UInt8]?
        let request = Mutex<[UInt8]>([])

        init(_ answer: @escaping @Sendable (String) -> [UInt8]?) { self.answer = answer }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = Array(unwrapInboundIn(data).readableBytesView)
            let text: String? = request.withLock { r in
                r += bytes
                let s = String(decoding: r, as: UTF8.self)
                return s.contains("\r\n\r\n") ? s : nil
            }
            guard let text, let out = answer(text) else { return }
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: out))).whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
