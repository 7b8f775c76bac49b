import TernProtocol
/// Rows the ``Store`` hands back. They are storage-shaped; ``Presenter`` turns them into wire payloads.

/// A session key's row, with what its validity depends on.
public struct SessionRecord: Sendable, Equatable {
    public var userId: String
    /// ms; 0 = never.
    public var expiresAt: Int64
    /// The access token the session was made from; nil when the user connected without one.
    public var tokenHash: String?
    /// That token's expiry (ms, 0 = never); nil when the session has no token or the token is gone.
    public var tokenExpiresAt: Int64?
    public var userExists: Bool
    public var userActive: Bool

    public init(userId: String, expiresAt: Int64, tokenHash: String?, tokenExpiresAt: Int64?, userExists: Bool, userActive: Bool) {
        self.userId = userId
        self.expiresAt = expiresAt
        self.tokenHash = tokenHash
        self.tokenExpiresAt = tokenExpiresAt
        self.userExists = userExists
        self.userActive = userActive
    }

    /// When the session ends: its own expiry or its token's, whichever comes first (0 = never).
    public var effectiveExpiry: Int64 {
        let ends = [expiresAt, tokenExpiresAt ?? 0].filter { $0 != 0 }
        return ends.min() ?? 0
    }
}

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
    /// In a 1:1 channel, the member who had blocked the sender when it was sent: the message is
    /// never shown to them (seed 003), not even after they unblock.
    public var hiddenFor: String? = nil
    public var sortedMetaarray: [MetaArrayItem] = []
    /// A reply also shown in the channel.
    public var replyToChannel = false
    /// A parent's thread: replies, when the last came, the latest repliers (newest first).
    public var replyCount = 0
    public var lastRepliedAt: Int64 = 0
    public var mostReplies: [String] = []
    /// The link preview (`og_tag` JSON), once read.
    public var ogTag: String? = nil
    /// When it last changed after being sent (ms; 0: never) — edits, reactions, thread, preview.
    public var changedAt: Int64 = 0
    /// `FILE`: the files (JSON array of ``FilePayload``).
    public var files: String? = nil
}

/// A change to a stored message; nil leaves a field as it is.
public struct MessageChange: Sendable {
    public var message: String?
    public var data: String?
    public var customType: String?
    public var mentionType: String?
    public var mentionedUserIds: [String]?
    public var metaarray: MetaArrayChange?
    public var updatedAt: Int64
    public init(updatedAt: Int64) { self.updatedAt = updatedAt }
}

/// `metaarray` in an update: `add` puts values under keys (creating keys with `upsert`); `remove`
/// takes values away, or the whole key when no value is given; `replace` sets the whole metaarray.
public struct MetaArrayChange: Sendable {
    public enum Mode: Sendable { case add, remove, replace }
    public var items: [MetaArrayItem]
    public var mode: Mode
    public var upsert: Bool
    public init(items: [MetaArrayItem], mode: Mode, upsert: Bool = true) {
        self.items = items
        self.mode = mode
        self.upsert = upsert
    }

    /// `items` after this change: keys keep their first-seen order, values theirs.
    func applied(to items: [MetaArrayItem]) -> [MetaArrayItem] {
        var out = mode == .replace ? [] : items
        for item in self.items {
            let index = out.firstIndex { $0.key == item.key }
            if mode != .remove {
                if let i = index {
                    for v in item.value where !out[i].value.contains(v) { out[i].value.append(v) }
                } else if upsert || mode == .replace || item.value.isEmpty {
                    var unique: [String] = []
                    for v in item.value where !unique.contains(v) { unique.append(v) }
                    out.append(MetaArrayItem(key: item.key, value: unique))
                }
            } else if let i = index {
                if item.value.isEmpty { out.remove(at: i) } else { out[i].value.removeAll { item.value.contains($0) } }
            }
        }
        return out
    }
}

extension MessageRecord {
    /// The message as an update leaves it, in either store: the fields the change names, its
    /// metaarray change applied, and `updatedAt` never before the message was created.
    func applying(_ change: MessageChange) -> MessageRecord {
        var new = self
        if let v = change.message { new.message = v }
        if let v = change.data { new.data = v }
        if let v = change.customType { new.customType = v }
        if let v = change.mentionType { new.mentionType = v }
        if let v = change.mentionedUserIds { new.mentionedUserIds = v }
        if let meta = change.metaarray { new.sortedMetaarray = meta.applied(to: sortedMetaarray) }
        new.updatedAt = max(change.updatedAt, createdAt)
        return new
    }
}

/// One user's reaction with one key.
public struct ReactionRecord: Sendable, Equatable {
    public var messageId: Int64
    public var key: String
    public var userId: String
    public var updatedAt: Int64
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
    /// Members whose unread totals to return (those online, who get them pushed with the message).
    public var totalsFor: [String] = []
    public var sortedMetaarray: [MetaArrayItem] = []
    /// A reply to this message (0: none); it must be in the same channel and not a reply itself.
    public var parentMessageId: Int64 = 0
    public var replyToChannel = false
    /// `FILE`: the files as JSON.
    public var files: String? = nil
    /// A cached link preview (JSON) of the first URL in the text.
    public var ogTag: String? = nil
    /// What the sender's view of the channel (its roster) says, when it has one: the joined members
    /// other than the sender whose count preference counts messages, and the channel's custom type.
    /// With it the store moves the cached unread totals without reading the rows back (nil: it reads
    /// them back; supergroups always do, for their cap at 100).
    public var countingMembers: [String]? = nil
    public var channelCustomType: String = ""
    /// Sent by an SDK user held to the flood limits: the other nodes of a cluster count it too
    /// (``RateLimiter/charge(_:nowMs:)``), so that the limit is the cluster's, not a node's.
    public var floodLimited = false
    /// `createdAt` is the clock's now, set by the send pipeline (not a time given by an import or
    /// a test): the store may move it up to the channel's newest message, so that a channel's
    /// messages are in time order as in id order whichever node stored them.
    public var stampedNow = false
}

/// What storing a message did.
public struct StoredMessage: Sendable {
    public var message: MessageRecord
    /// The `(channel, sender, req_id)` was seen before: `message` is the original, nothing changed.
    public var duplicate: Bool
    /// The new unread totals of the members asked for in ``NewMessage/totalsFor``.
    public var totals: [String: UnreadCount]
    /// A reply's parent with its thread as this reply left it.
    public var parent: MessageRecord? = nil
    /// The channel's newest message before this one, as the store saw it under the channel's
    /// lock (nil: not known). Several nodes deliver a channel's messages in this chain's order.
    public var previousMessageId: Int64? = nil
}

/// The unread counters of one user, by kind (the Platform API's `unread_item_count`).
public struct UnreadItems: Sendable, Equatable {
    public var nonSuperMessages = 0
    public var superMessages = 0
    public var nonSuperMentions = 0
    public var superMentions = 0
    public var nonSuperInvitations = 0
    public var superInvitations = 0
    public init() {}
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
    /// The user reading: messages hidden from them (1:1 blocks) are left out.
    public var viewer: String? = nil
    /// `none` (default: no replies), `all`, or `only_reply_to_channel`.
    public var replyType = "none"
    /// Only the replies of this parent (a thread); `replyType` is then ignored.
    public var parentMessageId: Int64? = nil
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
    enum CodingKeys: String, CodingKey { case snapshot = "t", number = "n", text = "s", url = "u" }
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

/// A change to a channel's metadata.
public enum MetadataChange: Sendable {
    case create([String: String])
    case update([String: String], upsert: Bool)
    /// nil: every key.
    case delete([String]?)
}

/// What a metadata change did.
public struct MetadataResult: Sendable, Equatable {
    public var created: [String: String] = [:]
    public var updated: [String: String] = [:]
    public var deleted: [String] = []
    public init() {}
}

/// A change to a channel's metacounters.
public enum MetacounterChange: Sendable {
    case create([String: Int64])
    /// `mode`: `set`, `increase` or `decrease`.
    case update([String: Int64], mode: String, upsert: Bool)
    case delete([String]?)
}

public struct MetacounterResult: Sendable, Equatable {
    public var created: [String: Int64] = [:]
    public var updated: [String: Int64] = [:]
    public var deleted: [String] = []
    public init() {}
}

/// A message search: an FTS5 expression and the filters around it.
public struct MessageSearch: Sendable {
    public var match: String
    /// Only channels this user has joined (and what their history shows); nil: every channel.
    public var userId: String?
    public var channelUrl: String?
    public var channelCustomType: String?
    public var from: Int64?
    public var to: Int64?
    /// Best match first; else by time.
    public var byScore = true
    /// By time: newest first.
    public var newestFirst = false
    public var offset = 0
    public var limit = 20
    public init(match: String) { self.match = match }
}

/// An uploaded file (or one of its thumbnails), kept encrypted by the ``FileVault``.
public struct FileRecord: Sendable, Equatable {
    public var fileId: String
    /// The channel it was uploaded for: its members may download it.
    public var channelUrl: String
    public var uploaderId: String?
    public var name: String
    public var type: String
    public var size: Int
    public var createdAt: Int64
    /// The thumbnails' payloads (JSON), for the original.
    public var thumbnails: String = "[]"
}

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

    public init(
        category: String, description: String, reportingUserId: String?, offendingUserId: String?, channelUrl: String?,
        channelType: String?, messageId: Int64?, reportedMessage: String?, createdAt: Int64
    ) {
        self.category = category
        self.description = description
        self.reportingUserId = reportingUserId
        self.offendingUserId = offendingUserId
        self.channelUrl = channelUrl
        self.channelType = channelType
        self.messageId = messageId
        self.reportedMessage = reportedMessage
        self.createdAt = createdAt
    }
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

/// Where a message changelog continues: after this change time, and after this message id within it.
public struct MessageChangeCursor: Sendable, Equatable, Codable {
    public var ts: Int64
    public var messageId: Int64
    public init(ts: Int64, messageId: Int64 = 0) {
        self.ts = ts
        self.messageId = messageId
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

/// The application's user list query.
public struct UserListQuery: Sendable {
    public var afterUserId: String?
    public var limit = 10
    public var userIds: [String]?
    public var nicknameStartsWith: String?
    public var nickname: String?
    public var metadataKey: String?
    public var metadataValues: [String]?
    /// `activated` (default), `deactivated` or `all`.
    public var activeMode = "activated"
    public init() {}
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
