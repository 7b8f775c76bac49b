/// Rows the ``Store`` hands back. They are storage-shaped; ``Presenter`` turns them into wire payloads.

/// A user row.
public struct UserRecord: Sendable, Equatable {
    public var userId: String
    public var nickname: String
    public var profileUrl: String
    public var metadata: [String: String]
    /// Unix seconds.
    public var createdAt: Int64
    /// Milliseconds; 0 when never seen.
    public var lastSeenAt: Int64
    public var hasEverLoggedIn: Bool
    public var isActive: Bool
}

/// A group channel row.
public struct ChannelRecord: Sendable, Equatable {
    public var channelUrl: String
    public var name: String
    public var coverUrl: String
    public var customType: String
    public var data: String
    /// Unix seconds.
    public var createdAt: Int64
    public var createdBy: String?
    public var isDistinct: Bool
    public var isPublic: Bool
    public var isSuper: Bool
    public var isEphemeral: Bool
    public var freeze: Bool
    public var lastMessageId: Int64?
    public var memberCount: Int
    public var joinedMemberCount: Int
}

/// One user's membership in one channel, with their receipts and counters.
public struct MemberRecord: Sendable, Equatable {
    public var channelUrl: String
    public var userId: String
    /// `joined` or `invited`.
    public var state: String
    /// `operator` or `none`.
    public var role: String
    public var joinedTs: Int64
    public var invitedAt: Int64
    /// Read receipt, ms.
    public var readTs: Int64
    /// Delivery receipt, ms.
    public var deliveredTs: Int64
    public var unreadCount: Int
    public var unreadMentionCount: Int
    /// Who invited this member (nil when created with the channel or joined by themselves).
    public var inviterId: String?
    /// `unhidden`, `hidden_allow_auto_unhide` or `hidden_prevent_auto_unhide`.
    public var hiddenState: String
    /// Messages at or before this ms are gone from this member's views (hide with previous messages, reset history).
    public var tsMessageOffset: Int64
}

/// One user to add to a channel by invitation (or by joining).
public struct MemberAdd: Sendable, Equatable {
    public var userId: String
    /// `joined` (auto-accepted, or joined) or `invited`.
    public var state: String
    public var inviterId: String?
    public init(userId: String, state: String, inviterId: String?) {
        self.userId = userId
        self.state = state
        self.inviterId = inviterId
    }
}

/// A stored message.
public struct MessageRecord: Sendable, Equatable {
    public var messageId: Int64
    public var channelUrl: String
    /// `MESG`, `FILE` or `ADMM`.
    public var type: String
    public var senderId: String?
    public var message: String
    public var customType: String
    public var data: String
    public var mentionType: String
    public var mentionedUserIds: [String]
    public var silent: Bool
    public var isOpMsg: Bool
    /// ms.
    public var createdAt: Int64
    public var updatedAt: Int64
    public var parentMessageId: Int64
    public var reqId: String?
}

/// What creating a group channel asks for.
public struct NewGroupChannel: Sendable {
    public var channelUrl: String
    public var name: String
    public var coverUrl: String
    public var customType: String
    public var data: String
    public var creator: String?
    public var userIds: [String]
    public var operatorIds: [String]
    public var isDistinct: Bool
    public var isPublic: Bool
    public var isSuper: Bool
    public var isEphemeral: Bool
    /// Unix seconds.
    public var createdAt: Int64
    /// ms, used for members' `joined_ts`.
    public var nowMs: Int64
}

/// What sending a message asks for.
public struct NewMessage: Sendable {
    public var channelUrl: String
    public var type: String
    public var senderId: String?
    public var message: String
    public var customType: String
    public var data: String
    public var mentionType: String
    public var mentionedUserIds: [String]
    public var silent: Bool
    public var isOpMsg: Bool
    public var createdAt: Int64
    public var reqId: String?
    /// Whether the message is stored (false in ephemeral channels: delivered, never kept).
    public var persist: Bool
    /// Whether the sender's read receipt moves to this message.
    public var markSenderRead: Bool
}

/// A page request over message history around a timestamp or a message id.
public struct MessageQuery: Sendable {
    public enum Anchor: Sendable { case timestamp(Int64), messageId(Int64) }
    public var anchor: Anchor
    public var prevLimit: Int
    public var nextLimit: Int
    public var inclusive: Bool
    public var reverse: Bool
    public var messageType: String?
    public var customTypes: [String]?
    public var senderIds: [String]?
    /// Only messages created after this ms (the viewer's `ts_message_offset`).
    public var createdAfter: Int64 = 0
    public init(
        anchor: Anchor, prevLimit: Int, nextLimit: Int, inclusive: Bool, reverse: Bool, messageType: String? = nil,
        customTypes: [String]? = nil, senderIds: [String]? = nil
    ) {
        self.anchor = anchor
        self.prevLimit = prevLimit
        self.nextLimit = nextLimit
        self.inclusive = inclusive
        self.reverse = reverse
        self.messageType = messageType
        self.customTypes = customTypes
        self.senderIds = senderIds
    }
}

/// Filters of the channel list queries (my channels, all channels).
public struct ChannelListQuery: Sendable {
    /// Only channels this user belongs to (my channels); nil for the Platform-wide list.
    public var memberId: String?
    public var offset: Int
    public var limit: Int
    /// `latest_last_message`, `chronological`, `channel_name_alphabetical`.
    public var order: String
    public var showEmpty: Bool
    public var channelUrls: [String]?
    public var customTypes: [String]?
    public var nameContains: String?
    /// `all`, `joined_only`, `invited_only`.
    public var memberStateFilter: String
    public var membersExactlyIn: [String]?
    public var membersIncludeIn: [String]?
    /// `unhidden_only` (default for my channels), `hidden_only`, `hidden_allow_auto_unhide`,
    /// `hidden_prevent_auto_unhide`, `all`.
    public var hiddenMode = "unhidden_only"
    /// `all`, `public`, `private`.
    public var publicMode = "all"
    /// `all`, `super`, `nonsuper`.
    public var superMode = "all"
    public init(memberId: String?, offset: Int = 0, limit: Int = 10) {
        self.memberId = memberId
        self.offset = offset
        self.limit = limit
        self.order = "latest_last_message"
        self.showEmpty = false
        self.memberStateFilter = "all"
    }
}
