package import Logging
package import NIOCore
package import NIOPosix
package import NIOSSL
import NIOWebSocket
package import TernKit
@_spi(WSInternal) package import WSCore

/// The tests' WebSocket client: ``WebSocketDialer``'s upgrade with swift-websocket's frame handling
/// (WSCore's `messages(maxSize:)`, close handshake). tern itself handles its socket with a handler of
/// its own (`WebSocketConnection`), so the client links no WSCore.
extension WebSocketDialer {
    /// The context handed to the data handler (its logger).
    package struct Context: WebSocketContext {
        package let logger: Logger
    }

    /// Connects to `url` (`ws`, `wss`, `http`, `https`), upgrades, runs `handler` with the socket
    /// and returns the close frame the server sent (nil if none). Throws when it cannot connect or
    /// upgrade, and whatever the handler throws.
    @discardableResult
    package static func connect(
        url: String,
        options: Options,
        tls: TLSConfiguration? = nil,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger,
        handler: @escaping WebSocketDataHandler<Context>
    ) async throws -> WebSocketCloseFrame? {
        let asyncChannel = try await dial(url: url, options: options, tls: tls, eventLoopGroup: eventLoopGroup) { channel in
            try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel)
        }
        return try await WebSocketHandler.handle(
            type: .client,
            configuration: .init(
                extensions: [], autoPing: .disabled, closeTimeout: options.closeTimeout, validateUTF8: false,
                maxFrameSize: options.maxFrameSize),
            asyncChannel: asyncChannel,
            context: Context(logger: logger),
            handler: handler
        )
    }
}
