import TernProtocol

/// Rows the ``Store`` hands back and the queries it takes: channels and their members (``ChannelStore``).
/// They are storage-shaped; ``Presenter`` turns them into wire payloads.

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
    /// `group` or `open`.
    public var channelType: String = "group"
    /// An open channel's operators (a group channel's are members with the operator role).
    public var operatorIds: [String] = []

    public var isOpen: Bool { channelType == "open" }
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
    /// What this member's unread counts count: `all`, `unread_message_count_only`, `unread_mention_count_only` or `off`.
    public var countPreference: String = "all"
}

extension MemberRecord {
    /// A participant of an open channel seen as a member (for the paths both channel types share).
    public static func participant(_ channel: ChannelRecord, _ userId: String) -> MemberRecord {
        MemberRecord(
            channelUrl: channel.channelUrl, userId: userId, state: "joined",
            role: channel.operatorIds.contains(userId) ? "operator" : "none", joinedTs: 0, invitedAt: 0, readTs: 0,
            deliveredTs: 0, unreadCount: 0, unreadMentionCount: 0, inviterId: nil, hiddenState: "unhidden", tsMessageOffset: 0)
    }
}

/// One user to add to a channel by invitation (or by joining).
public struct MemberAdd: Sendable, Equatable {
    public var userId: String
    /// `joined` (auto-accepted, or joined) or `invited`.
    public var state: String
    public var inviterId: String?
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
    /// Members who are only invited (by `creator`), not joined.
    public var invitedIds: [String] = []
}

/// Where a channel list page ends: the sort key of its last channel, and the moment the listing began
/// (later changes do not move channels between pages already read and pages still to come).
public struct ChannelCursor: Sendable, Equatable, Codable {
    /// ms: the listing's snapshot time.
    public var snapshot: Int64
    /// The last channel's key: a number (times) or text (names, metadata values).
    public var number: Int64?
    public var text: String?
    public var url: String
    public init(snapshot: Int64, number: Int64? = nil, text: String? = nil, url: String) {
        self.snapshot = snapshot
        self.number = number
        self.text = text
        self.url = url
    }
    enum CodingKeys: String, CodingKey {
        case snapshot = "t"
        case number = "n"
        case text = "s"
        case url = "u"
    }
}

/// Filters of the channel list queries (my channels, public channels, all channels).
public struct ChannelListQuery: Sendable {
    /// Only channels this user belongs to (my channels); nil for the Platform-wide list.
    public var memberId: String?
    /// Where the previous page ended (nil: the first page).
    public var after: ChannelCursor?
    /// ms: the listing's snapshot time for the first page (later pages take the cursor's).
    public var snapshot: Int64 = 0
    public var limit: Int
    /// `latest_last_message`, `chronological`, `channel_name_alphabetical`, `metadata_value_alphabetical`.
    public var order: String
    /// The metadata key `metadata_value_alphabetical` sorts by.
    public var metadataOrderKey: String?
    public var showEmpty: Bool
    public var showFrozen = true
    public var channelUrls: [String]?
    public var customTypes: [String]?
    public var customTypeStartsWith: String?
    public var nameContains: String?
    /// `all`, `joined_only`, `invited_only`.
    public var memberStateFilter: String
    public var membersExactlyIn: [String]?
    public var membersIncludeIn: [String]?
    /// `AND` (channels including all of `membersIncludeIn`) or `OR` (including any of them).
    public var queryType = "AND"
    public var membersNicknameContains: String?
    /// `unhidden_only` (default for my channels), `hidden_only`, `hidden_allow_auto_unhide`,
    /// `hidden_prevent_auto_unhide`, `all`.
    public var hiddenMode = "unhidden_only"
    /// `all`, `public`, `private`.
    public var publicMode = "all"
    /// `all`, `super`, `nonsuper`.
    public var superMode = "all"
    /// `all`, `distinct`, `nondistinct`.
    public var distinctMode = "all"
    /// `all` or `unread_message` (my channels with unread messages).
    public var unreadFilter = "all"
    /// Channels with this metadata key, optionally with one of these values or a value starting with a prefix.
    public var metadataKey: String?
    public var metadataValues: [String]?
    public var metadataValueStartsWith: String?
    /// Unix seconds, exclusive.
    public var createdAfter: Int64?
    public var createdBefore: Int64?
    /// Public channel list: `all`, or `joined` (only those `publicMember` has joined).
    public var publicMembershipMode = "all"
    public var publicMember: String?
    public init(memberId: String?, limit: Int = 10) {
        self.memberId = memberId
        self.limit = limit
        self.order = "latest_last_message"
        self.showEmpty = false
        self.memberStateFilter = "all"
    }
}

/// Where a channel changelog page ended: the change time (ms) and the channel URL (ties at one ms).
public struct ChannelChangeCursor: Sendable, Equatable, Codable {
    public var ts: Int64
    public var url: String
    public init(ts: Int64, url: String = "") {
        self.ts = ts
        self.url = url
    }
}

/// The open channel list query: one page of channels, newest first.
public struct OpenChannelListQuery: Sendable {
    public var offset = 0
    public var limit = 10
    public var nameContains: String?
    public var urlContains: String?
    public var customTypes: [String]?
    public var channelUrls: [String]?
    public var showFrozen = true
    public init() {}
}
