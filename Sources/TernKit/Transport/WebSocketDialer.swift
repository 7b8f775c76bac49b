import Foundation
package import HTTPTypes
package import NIOCore
import NIOHTTP1
import NIOPosix
package import NIOSSL
import NIOWebSocket

/// Dials a client WebSocket and upgrades it, as WSClient's `WebSocketClient.connect` does, with one
/// difference that matters: nothing the server sends with or right after its `101` is lost. What
/// handles the upgraded socket is the caller's (tern: ``WebSocketConnection``'s handler; the tests'
/// sockets: WSCore's, in TernTestSupport).
///
/// WSClient (1.6.2, over NIO 2.101) loses the frames and the end of the stream when the server's
/// `101`, its first frames and its FIN reach a busy client in one read: a refused login (`LOGI`
/// with an error, then a close) is exactly that. The HTTP decoder is removed one event-loop tick
/// after the `101` is parsed, and the frames after it are handed on only then; but the FIN
/// (`inputClosed`, the socket being half-closable) is read in the same tick, so it reaches the
/// decoder first, which drops the bytes it still holds, and passes the close on to a pipeline
/// with no WebSocket handler yet. The client then sees an open socket with no frames until its
/// own timeout. ``EndOfInputHold`` sits in front of the HTTP handlers and keeps the FIN back
/// until the upgrade is done, so the frames come first and the end after them.
package enum WebSocketDialer {
    /// What a dial is made with (WSClient's `WebSocketClientConfiguration`, the parts tern uses;
    /// `closeTimeout` is for the tests' WSCore sockets).
    package struct Options: Sendable {
        package var maxFrameSize: Int
        package var headers: HTTPFields
        package var closeTimeout: Duration = .seconds(15)
        /// The TLS server name when it is not the URL's host.
        package var sniHostname: String?

        package init(maxFrameSize: Int, headers: HTTPFields = [:]) {
            self.maxFrameSize = maxFrameSize
            self.headers = headers
        }
    }

    package enum DialError: Error, CustomStringConvertible {
        case invalidURL(String)
        case upgradeRefused

        package var description: String {
            switch self {
            case .invalidURL(let url): "not a WebSocket URL: \(url)"
            case .upgradeRefused: "the server did not switch to WebSocket"
            }
        }
    }

    enum Upgrade<Socket: Sendable>: Sendable {
        case websocket(Socket)
        case refused
    }

    /// Connects to `url` (`ws`, `wss`, `http`, `https`), upgrades, and hands the upgraded channel to
    /// `install` on its event loop, in the upgrade's own step: the handlers it adds see every frame,
    /// those that came with the `101` included. Returns what
    /// `install` returns once the upgrade is done; throws when it cannot connect or upgrade (or is
    /// cancelled first: the socket is closed).
    package static func dial<Socket: Sendable>(
        url: String,
        options: Options,
        tls: TLSConfiguration? = nil,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        install: @escaping @Sendable (any Channel) throws -> Socket
    ) async throws -> Socket {
        let target = try Target(url)
        var headers = HTTPHeaders([("Host", target.hostHeader), ("Origin", target.origin)])
        // HTTPFields has already made each value one line (a line break becomes a space).
        for field in options.headers { headers.add(name: field.name.rawName, value: field.value) }
        let request = HTTPRequestHead(version: .http1_1, method: .GET, uri: target.path, headers: headers)
        let sslContext = try target.secure ? NIOSSLContext(configuration: tls ?? .makeClientConfiguration()) : nil
        let serverName = options.sniHostname ?? target.host
        let maxFrameSize = options.maxFrameSize
        let (channel, upgraded) = try await ClientBootstrap(group: eventLoopGroup)
            .channelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .connect(host: target.host, port: target.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let sslContext {
                        try sync.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: serverName))
                    }
                    let hold = NIOLoopBound(EndOfInputHold(), eventLoop: channel.eventLoop)
                    try sync.addHandler(hold.value)
                    let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade<Socket>>(maxFrameSize: maxFrameSize) { channel, _ in
                        channel.eventLoop.makeCompletedFuture { .websocket(try install(channel)) }
                    }
                    var configuration = NIOUpgradableHTTPClientPipelineConfiguration(
                        upgradeConfiguration: .init(upgradeRequestHead: request, upgraders: [upgrader]) { channel in
                            channel.eventLoop.makeSucceededFuture(.refused)
                        }
                    )
                    configuration.leftOverBytesStrategy = .forwardBytes
                    let result = try sync.configureUpgradableHTTPClientPipeline(configuration: configuration)
                    // The upgrade hands its buffered bytes on right after it completes, in the same call;
                    // the held end goes after them, on the next tick.
                    result.whenComplete { _ in
                        hold.value.upgradeDone = true
                        channel.eventLoop.execute { channel.pipeline.syncOperations.removeHandler(hold.value, promise: nil) }
                    }
                    return (channel, result)
                }
            }
        do {
            // A stalled upgrade (a server that never answers) ends when the task is cancelled: the
            // socket is closed, which fails the upgrade.
            let result = try await withTaskCancellationHandler {
                try await upgraded.get()
            } onCancel: {
                channel.close(promise: nil)
            }
            switch result {
            case .websocket(let socket): return socket
            case .refused: throw DialError.upgradeRefused
            }
        } catch {
            try? await channel.close()
            throw error
        }
    }

    /// Where a URL dials, and what its upgrade request names.
    struct Target {
        let host: String
        let port: Int
        let secure: Bool
        let path: String
        let hostHeader: String
        let origin: String

        init(_ url: String) throws {
            guard let u = URLComponents(string: url), let scheme = u.scheme?.lowercased(), var host = u.host, !host.isEmpty else {
                throw DialError.invalidURL(url)
            }
            switch scheme {
            case "ws", "http": secure = false
            case "wss", "https": secure = true
            default: throw DialError.invalidURL(url)
            }
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            self.host = host
            port = u.port ?? (secure ? 443 : 80)
            let named = host.contains(":") ? "[\(host)]" : host
            hostHeader = u.port.map { "\(named):\($0)" } ?? named
            origin = "\(scheme)://\(named)"
            let p = u.percentEncodedPath.isEmpty ? "/" : u.percentEncodedPath
            path = p + (u.percentEncodedQuery.map { "?\($0)" } ?? "")
        }
    }
}

/// Keeps the end of the server's stream (`inputClosed`) back while the HTTP upgrade runs, and lets it
/// go when removed, after the upgrade has handed on the frames that came with the `101`.
///
/// The end is held only if the upgrade is under way: the `101` was read whole before the end (the
/// decoder reads each chunk as it comes), so the upgrade's next step, the decoder's removal, is
/// already queued on the loop ahead of a check queued now. If the check finds the upgrade done, the
/// removal that follows lets the end go; if not, the response never came whole and the end goes on
/// at once, failing the upgrade as it would without this handler (a server that hangs up on the
/// request is not waited for).
final class EndOfInputHold: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    /// Set (on the loop) when the upgrade has completed, succeeded or failed.
    var upgradeDone = false
    private var held = false

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let event = event as? ChannelEvent, event == .inputClosed, !upgradeDone else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        held = true
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let (hold, context) = bound.value
            guard hold.held, !hold.upgradeDone else { return }
            hold.held = false
            context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            // Half-closed before a whole response, the upgrade can never complete: closing fails it
            // (NIO's upgrade handler would otherwise wait on the socket for good).
            context.close(promise: nil)
        }
    }

    func removeHandler(context: ChannelHandlerContext, removalToken: ChannelHandlerContext.RemovalToken) {
        if held {
            held = false
            context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        }
        context.leavePipeline(removalToken: removalToken)
    }
}
