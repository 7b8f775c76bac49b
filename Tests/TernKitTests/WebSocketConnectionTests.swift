import Logging
import NIOCore
import NIOPosix
import Synchronization
import TernProtocol
import Testing

@testable import TernKit

/// tern's transport: what the socket reads reaches the engine in the same call on the socket's loop,
/// in order, whole, and the end of the socket once, with why.
@Suite("WebSocketConnection: events handed on at once, on the socket's loop", .serialized)
struct WebSocketConnectionTests {
    /// The events seen, as names, and whether each was handed on on the home loop.
    final class Seen: Sendable {
        let all = Mutex<[(String, Bool)]>([])
        let reason = Mutex<SendbirdError?>(nil)
        var names: [String] { all.withLock { $0.map(\.0) } }
        var onLoop: Bool { all.withLock { $0.allSatisfy(\.1) } }
        var ended: Bool { all.withLock { $0.last?.0 == "closed" } }
    }

    static func open(port: Int, home: ClientLoop) -> (WebSocketConnection, Seen) {
        let seen = Seen()
        let connection = WebSocketConnection(url: "ws://127.0.0.1:\(port)/?user_id=x", headers: [:], logger: Logger(label: "t"), home: home) {
            event in
            let here = home.loop.inEventLoop
            switch event {
            case .opened: seen.all.withLock { $0.append(("opened", here)) }
            case .frames(let frames): seen.all.withLock { $0 += frames.map { ($0.command.rawValue, here) } }
            case .closed(let reason):
                seen.reason.withLock { $0 = reason }
                seen.all.withLock { $0.append(("closed", here)) }
            }
        }
        return (connection, seen)
    }

    static func untilEnded(_ seen: Seen) async throws {
        _ = try await WebSocketDialerTests.within(.seconds(10)) {
            while !seen.ended { try await Task.sleep(for: .milliseconds(5)) }
            return true
        }
    }

    @Test("A message in two fragments, a second message and a close: opened, both frames, closed; all on the loop")
    func fragmentsAndOrder() async throws {
        let first = Array(#"LOGI{"user_id":"x"}"#.utf8)
        let second = Array(("MESG{\"message\":\"hi\"}\n" + "MESG{\"message\":\"there\"}\n").utf8)
        let server = try await RawServer.start { key in
            RawServer.switching(key)
                + [0x01, UInt8(6)] + first[0..<6]  // text, not final
                + [0x80, UInt8(first.count - 6)] + first[6...]  // continuation, final
                + RawServer.frame(0x1, second) + RawServer.frame(0x8, [0x03, 0xE8])
        }
        defer { server.stop() }
        let home = ClientLoop.next()
        let (connection, seen) = Self.open(port: server.port, home: home)
        try await Self.untilEnded(seen)
        connection.abort()
        #expect(seen.names == ["opened", "LOGI", "MESG", "MESG", "closed"])
        #expect(seen.onLoop, "every event is handed on on the socket's loop")
        #expect(seen.reason.withLock { $0?.message } == "the server closed the connection")
        #expect(connection.reads.counts.onHome == 2 && connection.reads.counts.elsewhere == 0)
    }

    @Test("The server's close frame with another code than 1000: the reason names it")
    func closeCode() async throws {
        let server = try await RawServer.start { key in
            RawServer.switching(key) + RawServer.frame(0x8, [0x03, 0xF3])  // 1011
        }
        defer { server.stop() }
        let (connection, seen) = Self.open(port: server.port, home: ClientLoop.next())
        try await Self.untilEnded(seen)
        connection.abort()
        #expect(seen.names == ["opened", "closed"])
        let message = seen.reason.withLock { $0?.message } ?? ""
        #expect(message.hasPrefix("the server closed the connection (") && message != "the server closed the connection", "\(message)")
    }

    @Test("No server at the port: one closed event saying it could not connect, on the loop")
    func cannotConnect() async throws {
        let server = try await RawServer.start { _ in nil }
        let port = server.port
        server.stop()
        try await Task.sleep(for: .milliseconds(50))
        let (connection, seen) = Self.open(port: port, home: ClientLoop.next())
        try await Self.untilEnded(seen)
        connection.abort()
        #expect(seen.names == ["closed"])
        #expect(seen.onLoop)
        #expect(seen.reason.withLock { $0?.code } == .webSocketConnectionFailed)
    }

    @Test("Aborted while the server has not answered: the dial ends, closed is reported once")
    func abortWhileDialing() async throws {
        let server = try await RawServer.start { _ in nil }
        defer { server.stop() }
        let (connection, seen) = Self.open(port: server.port, home: ClientLoop.next())
        while server.requests.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        connection.abort()
        try await Self.untilEnded(seen)
        try await Task.sleep(for: .milliseconds(50))
        #expect(seen.names == ["closed"])
    }
}
