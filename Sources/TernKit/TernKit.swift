import TernProtocol

/// The Tern client engine. The engine issue fills this target: connection state machine,
/// reconnection, local cache, collections, unread counts and receipts.
public enum TernKit {
    /// The protocol version string the engine announces as `sv` on the WebSocket query.
    public static let sdkVersion = "0.1.0"
}
