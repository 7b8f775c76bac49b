import TernProtocol

/// The Tern client engine: connection state machine, reconnection, REST + WebSocket transport,
/// channels, messages, unread counts, receipts and typing. Start with ``ChatClient``.
public enum TernKit {
    /// The protocol version string the engine announces as `sv` on the WebSocket query.
    public static let sdkVersion = "0.1.0"
}
