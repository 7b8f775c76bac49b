import Foundation
import HTTPTypes
public import Logging
import NIOCore
import NIOPosix
public import NIOSSL
import NIOWebSocket
import Synchronization
public import TernProtocol
import WSCore

/// What one WebSocket reports, in order.
public enum TransportEvent: Sendable {
    case opened
    case frames([Frame])
    /// The socket is gone (or never came up); the error says why.
    case closed(SendbirdError)
}

/// One WebSocket to the server. Frames queued with ``send(_:)`` are written together as one
/// WebSocket message when several are waiting (batching out); a message holding several frames
/// is split into frames (batching in). Events arrive on ``events`` in order. Not reused: a
/// reconnect opens a new one.
public final class WebSocketConnection: Sendable {
    struct Queue {
        var frames: [Frame] = []
        var closing = false
    }

    public let events: AsyncStream<TransportEvent>
    /// Socket reads on the `home` loop's thread, and elsewhere (a frame that crossed threads to reach
    /// the engine); counted only when a home is given.
    let reads = ReadCounts()

    final class ReadCounts: Sendable {
        let onHome = Atomic<Int>(0)
        let elsewhere = Atomic<Int>(0)

        func count(onHome here: Bool) {
            if here { onHome.add(1, ordering: .relaxed) } else { elsewhere.add(1, ordering: .relaxed) }
        }

        var counts: (onHome: Int, elsewhere: Int) { (onHome.load(ordering: .relaxed), elsewhere.load(ordering: .relaxed)) }
    }
    private let queue = Locked(Queue())
    private let wake: AsyncStream<Void>.Continuation
    private let task: Task<Void, Never>

    public static let maxMessageSize = FrameCodec.maxMessageSize

    /// Starts connecting to `url` with `headers` (credentials travel as `SENDBIRD-WS-TOKEN` / `SENDBIRD-WS-AUTH`).
    /// A `wss://` URL uses `tls` (nil: the system's trust roots); the server's certificate is always verified.
    /// `home`: the event loop the socket and the task that reads it run on (nil: the shared group's and the
    /// cooperative pool).
    public init(url: String, headers: [String: String], tls: TLSConfiguration? = nil, logger: Logger, home: ClientLoop? = nil) {
        let (events, sink) = AsyncStream<TransportEvent>.makeStream()
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.events = events
        self.wake = wake
        var fields = HTTPFields()
        for (k, v) in headers { if let name = HTTPField.Name(k) { fields[name] = v } }
        var options = WebSocketDialer.Options(maxFrameSize: Self.maxMessageSize, headers: fields)
        options.closeTimeout = .seconds(2)
        if let name = Self.tlsServerName(url) { options.sniHostname = name }
        let queue = self.queue
        let reads = self.reads
        let group: any EventLoopGroup = home?.loop ?? MultiThreadedEventLoopGroup.singleton
        task = Task(executorPreference: home?.tasks) {
            let lost = Locked<SendbirdError?>(nil)
            var reason = SendbirdError(.webSocketConnectionClosed, "the server closed the connection")
            do {
                let close = try await WebSocketDialer.connect(url: url, options: options, tls: tls, eventLoopGroup: group, logger: logger) {
                    inbound, outbound, _ in
                    sink.yield(.opened)
                    await withTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await _ in wakes {
                                let (batch, closing) = queue.withLock { q in
                                    defer { q.frames = [] }
                                    return (q.frames, q.closing)
                                }
                                if !batch.isEmpty {
                                    do { try await outbound.write(.text(FrameCodec.encode(batch))) } catch { break }
                                }
                                if closing {
                                    try? await outbound.close(.normalClosure, reason: nil)
                                    break
                                }
                            }
                        }
                        do {
                            for try await message in inbound.messages(maxSize: Self.maxMessageSize) {
                                let frames: [Frame]
                                switch message {
                                case .text(let text): frames = FrameCodec.decode(text).compactMap { try? $0.get() }
                                case .binary(let buffer): frames = FrameCodec.decode(Array(buffer.readableBytesView)).compactMap { try? $0.get() }
                                }
                                if !frames.isEmpty { sink.yield(.frames(frames)) }
                                if let home { reads.count(onHome: home.loop.inEventLoop) }
                            }
                        } catch {
                            lost.value = SendbirdError(.webSocketConnectionClosed, "connection lost: \(error)")
                        }
                        wake.finish()
                        group.cancelAll()
                    }
                }
                if let error = lost.value {
                    reason = error
                } else if let close, close.closeCode != .normalClosure {
                    reason = SendbirdError(.webSocketConnectionClosed, "the server closed the connection (\(close.closeCode))")
                }
            } catch {
                reason = SendbirdError(.webSocketConnectionFailed, "cannot connect to \(Self.origin(of: url)): \(Self.describe(error))")
            }
            wake.finish()
            sink.yield(.closed(reason))
            sink.finish()
        }
    }

    /// Queues frames for the next write.
    public func send(_ frames: [Frame]) {
        guard !frames.isEmpty else { return }
        let accepted = queue.withLock { q in
            if q.closing { return false }
            q.frames += frames
            return true
        }
        if accepted { wake.yield() }
    }

    /// Sends what is queued, then a close frame; the socket's task ends soon after (or is cancelled).
    public func close() {
        queue.withLock { $0.closing = true }
        wake.yield()
        let task = self.task
        Task {
            try? await Task.sleep(for: .seconds(3))
            task.cancel()
        }
    }

    /// Drops the socket at once, without a close handshake.
    public func abort() {
        queue.withLock { $0.closing = true }
        wake.finish()
        task.cancel()
    }

    /// The TLS server name for a `wss://` URL whose host is an IP address (nil for any other URL).
    /// `WebSocketDialer` (as WSClient) hands the URL's host to NIOSSL as the server name, and NIOSSL refuses an IP address
    /// there (SNI carries host names only), so `wss://127.0.0.1:PORT` could never connect. Written
    /// with a trailing dot the address is no longer taken for one; the verification is as strict:
    /// NIOSSL still checks the certificate's chain, and matches its IP-address names against the
    /// address actually connected to (the one in the URL).
    static func tlsServerName(_ url: String) -> String? {
        guard let u = URL(string: url), u.scheme?.lowercased() == "wss", var host = u.host, !host.isEmpty else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        var v4 = in_addr()
        var v6 = in6_addr()
        let isAddress = host.withCString { inet_pton(AF_INET, $0, &v4) == 1 || inet_pton(AF_INET6, $0, &v6) == 1 }
        return isAddress ? host + "." : nil
    }

    static func origin(of url: String) -> String {
        guard let u = URL(string: url), let host = u.host else { return url }
        return "\(u.scheme ?? "ws")://\(host)\(u.port.map { ":\($0)" } ?? "")"
    }

    static func describe(_ error: any Error) -> String { TransportError.describe(error) }
}
