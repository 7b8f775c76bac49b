public import TernProtocol

/// Rows the ``Store`` hands back and the queries it takes: messages, their changes, reactions and history queries (``MessageStore``, ``ReceiptStore``, ``SearchStore``).
/// They are storage-shaped; ``Presenter`` turns them into wire payloads.

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
    /// ms; set by the service when it stores the change.
    public var updatedAt: Int64
    public init(updatedAt: Int64 = 0) { self.updatedAt = updatedAt }
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
    public enum Anchor: Sendable {
        case timestamp(Int64)
        case messageId(Int64)
    }
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

/// Where a message changelog continues: after this change time, and after this message id within it.
public struct MessageChangeCursor: Sendable, Equatable, Codable {
    public var ts: Int64
    public var messageId: Int64
    public init(ts: Int64, messageId: Int64 = 0) {
        self.ts = ts
        self.messageId = messageId
    }
}
