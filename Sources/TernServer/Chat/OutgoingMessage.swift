public import TernProtocol

/// Where a request came from: codes differ between the WebSocket and REST.
public enum RequestOrigin: Sendable {
    case webSocket
    /// REST with the Platform API's `Api-Token`.
    case rest
    /// REST with an SDK user's `Session-Key`.
    case sessionREST

    /// SDK callers (the WebSocket, or REST with a Session-Key) are held to the flood limits; the
    /// Platform API is not (as Sendbird's is not).
    var isFloodLimited: Bool { self != .rest }

    var channelNotFound: ErrorCode { self == .webSocket ? .channelNotFound : .notFound }
}

/// What text and file messages to send share (``OutgoingMessage``, ``OutgoingFileMessage``).
protocol OutgoingMessageFields: Sendable {
    var channelUrl: String { get }
    var data: String { get set }
    var customType: String { get set }
    var mentionType: String { get set }
    var mentionedUserIds: [String] { get set }
    var reqId: String? { get set }
    var sortedMetaarray: [MetaArrayItem] { get set }
    var parentMessageId: Int64 { get set }
    var replyToChannel: Bool { get set }
}

/// A user message to send.
public struct OutgoingMessage: Sendable, OutgoingMessageFields {
    public var channelUrl: String
    public var message: String
    public var data: String = ""
    public var customType: String = ""
    public var mentionType: String = "users"
    public var mentionedUserIds: [String] = []
    public var silent = false
    public var reqId: String?
    public var sortedMetaarray: [MetaArrayItem] = []
    /// A reply to this message (0: none).
    public var parentMessageId: Int64 = 0
    /// A reply also shown in the channel.
    public var replyToChannel = false
    public init(channelUrl: String, message: String) {
        self.channelUrl = channelUrl
        self.message = message
    }
}
