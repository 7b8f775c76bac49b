import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The request context of the WebSocket route: Hummingbird's basic one plus the connection's
/// NIO channel, so that a slow consumer can be cut off at once (a close handshake would wait
/// behind the very bytes the peer is not reading).
struct GatewayRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.webSocket = .init()
        self.channel = source.channel
    }
}
