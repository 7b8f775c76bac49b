import TernProtocol

/// The Tern client engine: connection state machine, reconnection, REST + WebSocket transport,
/// channels, messages, unread counts, receipts and typing. Start with ``ChatClient``.
///
/// Its errors are the protocol's own: ``ChatClient``'s calls throw `SendbirdError` (code and message, the codes
/// of `ErrorCode`) and its events carry them, so the files that declare them say `public import TernProtocol`,
/// and a client that looks at an error imports TernProtocol and declares it in its target (TernTUI, tern).
public enum TernKit {
    /// The protocol version string the engine announces as `sv` on the WebSocket query.
    public static let sdkVersion = "0.1.0"
}
