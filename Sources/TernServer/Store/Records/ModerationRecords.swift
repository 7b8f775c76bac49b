import TernProtocol

/// Rows the ``Store`` hands back and the queries it takes: bans, mutes and reports (``ModerationStore``).
/// They are storage-shaped; ``Presenter`` turns them into wire payloads.

/// A ban or a mute of one user in one channel.
public struct RestrictionRecord: Sendable, Equatable {
    public enum Kind: String, Sendable { case ban, mute }
    public var channelUrl: String
    public var userId: String
    public var kind: Kind
    /// ms.
    public var startAt: Int64
    /// ms; -1 forever.
    public var endAt: Int64
    public var description: String

    public init(channelUrl: String, userId: String, kind: Kind, startAt: Int64, endAt: Int64, description: String) {
        self.channelUrl = channelUrl
        self.userId = userId
        self.kind = kind
        self.startAt = startAt
        self.endAt = endAt
        self.description = description
    }

    /// Whether it still holds at `now` (ms).
    public func isActive(at now: Int64) -> Bool { endAt < 0 || endAt > now }
}

/// A user's report of a message, a user or a channel.
public struct ReportRecord: Sendable, Equatable {
    public var reportId: Int64 = 0
    /// `suspicious`, `harassing`, `inappropriate` or `spam`.
    public var category: String
    public var description: String
    /// nil: reported through the Platform API without a reporter.
    public var reportingUserId: String?
    public var offendingUserId: String?
    public var channelUrl: String?
    /// `group_channels` or `open_channels`.
    public var channelType: String?
    public var messageId: Int64?
    /// The reported message as it was (JSON), kept when the message changes or goes.
    public var reportedMessage: String?
    /// ms.
    public var createdAt: Int64
}

/// Which reports a listing returns; nil filters are not applied.
public struct ReportQuery: Sendable {
    public var channelUrl: String?
    public var messageId: Int64?
    public var offendingUserId: String?
    /// Reports created at or after / before these ms.
    public var startTs: Int64?
    public var endTs: Int64?
    /// Continue after this report id (newest first).
    public var beforeId: Int64?
    public var limit = 10
    public init() {}
}
