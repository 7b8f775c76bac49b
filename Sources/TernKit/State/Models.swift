public import TernProtocol

/// A user as the engine shows it.
public struct User: Sendable, Equatable, Hashable, Codable {
    public var userId: String
    public var nickname: String
    public var profileUrl: String

    public init(userId: String, nickname: String = "", profileUrl: String = "") {
        self.userId = userId
        self.nickname = nickname
        self.profileUrl = profileUrl
    }

    init(_ p: SenderPayload) { self.init(userId: p.userId, nickname: p.nickname, profileUrl: p.profileUrl) }
    init(_ p: MemberPayload) { self.init(userId: p.userId, nickname: p.nickname, profileUrl: p.profileUrl) }

    /// The nickname, or the user id when there is none.
    public var displayName: String { nickname.isEmpty ? userId : nickname }
}

extension User {
    public init(_ p: UserPayload) { self.init(userId: p.userId, nickname: p.nickname, profileUrl: p.profileUrl) }
}

/// A user as the user list and `/whois` show them: the profile plus presence and metadata.
public struct UserProfile: Sendable, Equatable {
    public var user: User
    public var isOnline: Bool
    /// ms; 0 when never seen or online now.
    public var lastSeenAt: Millis
    public var isActive: Bool
    public var metadata: [String: String]
    /// Unix seconds.
    public var createdAt: Int64

    init(_ p: UserPayload) {
        user = User(p)
        isOnline = p.isOnline
        lastSeenAt = p.lastSeenAt
        isActive = p.isActive
        metadata = p.metadata
        createdAt = p.createdAt
    }
}

/// An open channel (seed 001): a public room anyone may enter.
public struct OpenChannel: Sendable, Equatable, Identifiable {
    public var url: String
    public var name: String
    public var coverUrl: String
    public var customType: String
    public var data: String
    /// Unix seconds.
    public var createdAt: Int64
    public var operators: [User]
    public var participantCount: Int
    public var isFrozen: Bool
    public var isEphemeral: Bool

    public var id: String { url }

    public init(
        url: String, name: String = "", coverUrl: String = "", customType: String = "", data: String = "", createdAt: Int64 = 0,
        operators: [User] = [], participantCount: Int = 0, isFrozen: Bool = false, isEphemeral: Bool = false
    ) {
        self.url = url
        self.name = name
        self.coverUrl = coverUrl
        self.customType = customType
        self.data = data
        self.createdAt = createdAt
        self.operators = operators
        self.participantCount = participantCount
        self.isFrozen = isFrozen
        self.isEphemeral = isEphemeral
    }

    init(_ p: OpenChannelPayload) {
        self.init(
            url: p.channelUrl, name: p.name, coverUrl: p.coverUrl, customType: p.customType, data: p.data, createdAt: p.createdAt,
            operators: p.operators.map(User.init), participantCount: p.participantCount, isFrozen: p.freeze, isEphemeral: p.isEphemeral)
    }

    public func isOperator(_ userId: String) -> Bool { operators.contains { $0.userId == userId } }
    public var displayName: String { name.isEmpty ? url : name }
}

/// A ban or a mute: who, why, until when.
public struct Restriction: Sendable, Equatable {
    public var user: User
    public var description: String
    /// ms.
    public var startAt: Millis
    /// ms; -1 for ever.
    public var endAt: Millis

    public init(user: User, description: String = "", startAt: Millis = 0, endAt: Millis = -1) {
        self.user = user
        self.description = description
        self.startAt = startAt
        self.endAt = endAt
    }
}

/// A channel member: the user plus their state in that channel.
public struct Member: Sendable, Equatable, Codable {
    public var user: User
    /// `joined` or `invited`.
    public var state: String
    /// `operator` or `none`/empty.
    public var role: String
    public var isOnline: Bool
    public var isMuted = false

    public init(user: User, state: String = "joined", role: String = "", isOnline: Bool = false, isMuted: Bool = false) {
        self.user = user
        self.state = state
        self.role = role
        self.isOnline = isOnline
        self.isMuted = isMuted
    }

    init(_ p: MemberPayload) { self.init(user: User(p), state: p.state, role: p.role, isOnline: p.isOnline, isMuted: p.isMuted) }

    public var isOperator: Bool { role == "operator" }

    public var userId: String { user.userId }
}

/// Where a message stands on its way to the server (Sendbird's `MessageSendingStatus`).
public enum SendingStatus: String, Sendable, Equatable, Codable {
    case pending, failed, succeeded
}

/// A message as the engine shows it: one the server has (`succeeded`), or one of ours on its way
/// (`pending`) or refused (`failed`, with the error).
public struct Message: Sendable, Equatable, Identifiable, Codable {
    public enum Kind: String, Sendable, Equatable, Codable {
        case user = "MESG"
        case file = "FILE"
        case admin = "ADMM"
    }

    /// 0 until the server has stored it.
    public var messageId: Int64
    /// The `req_id` of a message this client sent (also kept after it succeeded).
    public var requestId: String?
    public var channelUrl: String
    public var kind: Kind
    public var text: String
    /// nil for admin messages.
    public var sender: User?
    /// Milliseconds.
    public var createdAt: Millis
    public var updatedAt: Millis
    public var customType: String
    public var data: String
    public var silent: Bool
    public var mentionedUserIds: [String]
    /// `users` (those in ``mentionedUserIds``) or `channel` (everyone).
    public var mentionType = "users"
    /// A reply: its parent's id (0: not a reply), and whether it also shows in the channel.
    public var parentMessageId: Int64 = 0
    public var isReplyToChannel = false
    /// A reply's parent as the server described it.
    @OutOfLine public var parent: ParentSummary?
    /// A parent's thread.
    @OutOfLine public var thread: ThreadSummary?
    /// Reactions: each key with who reacted, in the order keys first appeared.
    public var reactions: [Reaction] = []
    /// The link preview of the first URL in the text.
    @OutOfLine public var preview: OGMetaData?
    /// `FILE`: the files.
    public var files: [FilePayload] = []
    public var metaarray: [MetaArrayItem] = []
    public var status: SendingStatus
    @OutOfLine public var error: SendbirdError?

    public init(
        messageId: Int64, requestId: String? = nil, channelUrl: String, kind: Kind = .user, text: String, sender: User?,
        createdAt: Millis, updatedAt: Millis = 0, customType: String = "", data: String = "", silent: Bool = false,
        mentionedUserIds: [String] = [], status: SendingStatus = .succeeded, error: SendbirdError? = nil
    ) {
        self.messageId = messageId
        self.requestId = requestId
        self.channelUrl = channelUrl
        self.kind = kind
        self.text = text
        self.sender = sender
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.customType = customType
        self.data = data
        self.silent = silent
        self.mentionedUserIds = mentionedUserIds
        self.status = status
        self.error = error
    }

    init(_ p: MessagePayload) {
        self.init(
            messageId: p.messageId, requestId: p.reqId, channelUrl: p.channelUrl, kind: Kind(rawValue: p.type) ?? .user,
            text: p.message, sender: p.user.map(User.init), createdAt: p.createdAt, updatedAt: p.updatedAt,
            customType: p.customType, data: p.data, silent: p.silent, mentionedUserIds: p.mentionedUsers.map(\.userId)
        )
        mentionType = p.mentionType
        parentMessageId = p.parentMessageId
        isReplyToChannel = p.isReplyToChannel
        parent = p.parentMessageInfo.map {
            ParentSummary(messageId: $0.messageId, text: $0.message, sender: $0.user.map(User.init), createdAt: $0.ts)
        }
        thread = p.threadInfo.flatMap { $0.replyCount > 0 ? ThreadSummary($0) : nil }
        reactions = (p.reactions ?? []).map { Reaction(key: $0.key, userIds: $0.userIds) }
        preview = p.ogTag
        files = p.files ?? p.file.map { [$0] } ?? []
        metaarray = p.sortedMetaarray
    }

    /// Whether the message was changed after it was sent.
    public var isEdited: Bool { updatedAt > createdAt && kind != .admin }

    /// Whether the message mentions `userId` (by name, or everyone with a channel mention).
    public func mentions(_ userId: String) -> Bool {
        mentionType == "channel" ? sender?.userId != userId : mentionedUserIds.contains(userId)
    }

    /// Stable across the pending → succeeded change: the request id when there is one.
    public var id: String { requestId ?? "m\(messageId)" }
}

extension SendbirdError: Codable {
    enum CodingKeys: String, CodingKey { case code, message }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(ErrorCode(try c.decode(Int.self, forKey: .code)), try c.decode(String.self, forKey: .message))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(code.rawValue, forKey: .code)
        try c.encode(message, forKey: .message)
    }
}

/// What a reply shows of its parent.
public struct ParentSummary: Sendable, Equatable, Codable {
    public var messageId: Int64
    public var text: String
    public var sender: User?
    public var createdAt: Millis
    public init(messageId: Int64, text: String, sender: User?, createdAt: Millis) {
        self.messageId = messageId
        self.text = text
        self.sender = sender
        self.createdAt = createdAt
    }
}

/// A parent's thread: replies, when the last came, the latest repliers.
public struct ThreadSummary: Sendable, Equatable, Codable {
    public var replyCount: Int
    public var lastRepliedAt: Millis
    public var repliers: [User]
    public init(_ t: ThreadInfo) {
        replyCount = t.replyCount
        lastRepliedAt = t.lastRepliedAt
        repliers = t.mostReplies.map(User.init)
    }
}

/// One reaction key and who reacted with it.
public struct Reaction: Sendable, Equatable, Codable {
    public var key: String
    public var userIds: [String]
    public init(key: String, userIds: [String]) {
        self.key = key
        self.userIds = userIds
    }
}

/// A group channel as the engine keeps it: the server's view for the current user, kept current
/// from events.
public struct GroupChannel: Sendable, Equatable, Identifiable, Codable {
    public var url: String
    public var name: String
    public var coverUrl: String
    public var customType: String
    public var data: String
    /// Seconds (Sendbird's unit for channels).
    public var createdAt: Int64
    public var isDistinct: Bool
    public var isPublic: Bool
    public var isSuper: Bool
    public var isEphemeral: Bool
    public var isFrozen: Bool
    public var members: [Member]
    public var memberCount: Int
    public var joinedMemberCount: Int
    public var unreadMessageCount: Int
    public var unreadMentionCount: Int
    @OutOfLine public var lastMessage: Message?
    /// user id → the time (ms) up to which they have read.
    public var readReceipt: [String: Millis]
    /// user id → the time (ms) up to which messages reached them.
    public var deliveryReceipt: [String: Millis]
    /// `joined`, `invited` or `none`.
    public var myMemberState: String
    public var myRole: String
    /// `unhidden`, `hidden_allow_auto_unhide` (hidden) or `hidden_prevent_auto_unhide` (archived).
    public var hiddenState = "unhidden"
    /// Channel metadata (key → value), as last read.
    public var metadata: [String: String] = [:]
    /// Who invited the current user (for an invitation).
    public var inviter: User?
    /// Messages at or before this time (ms) are gone from the user's views (reset history, hide
    /// with previous messages).
    public var messageOffset: Millis = 0
    /// What the user's unread counts count here: `all`, `unread_message_count_only`,
    /// `unread_mention_count_only` or `off`.
    public var countPreference = "all"

    public var id: String { url }

    public init(url: String, name: String = "", members: [Member] = []) {
        self.url = url
        self.name = name
        coverUrl = ""
        customType = ""
        data = ""
        createdAt = 0
        isDistinct = false
        isPublic = false
        isSuper = false
        isEphemeral = false
        isFrozen = false
        self.members = members
        memberCount = members.count
        joinedMemberCount = members.filter { $0.state == "joined" }.count
        unreadMessageCount = 0
        unreadMentionCount = 0
        lastMessage = nil
        readReceipt = [:]
        deliveryReceipt = [:]
        myMemberState = "joined"
        myRole = ""
    }

    init(_ p: GroupChannelPayload) {
        self.init(url: p.channelUrl, name: p.name, members: p.members.map(Member.init))
        coverUrl = p.coverUrl
        customType = p.customType
        data = p.data
        createdAt = p.createdAt
        isDistinct = p.isDistinct
        isPublic = p.isPublic
        isSuper = p.isSuper
        isEphemeral = p.isEphemeral
        isFrozen = p.freeze
        memberCount = p.memberCount
        joinedMemberCount = p.joinedMemberCount
        unreadMessageCount = p.unreadMessageCount
        unreadMentionCount = p.unreadMentionCount
        lastMessage = p.lastMessage.map(Message.init)
        readReceipt = p.readReceipt ?? Dictionary(p.members.compactMap { m in m.readTs.map { (m.userId, $0) } }, uniquingKeysWith: max)
        deliveryReceipt = p.deliveryReceipt ?? Dictionary(p.members.compactMap { m in m.deliveredTs.map { (m.userId, $0) } }, uniquingKeysWith: max)
        myMemberState = p.memberState
        myRole = p.myRole
        hiddenState = p.hiddenState.isEmpty ? "unhidden" : p.hiddenState
        metadata = p.metadata
        inviter = p.inviter.map(User.init)
        countPreference = p.countPreference == "false" ? "off" : p.countPreference
        messageOffset = p.tsMessageOffset
    }

    /// Whether new messages count as unread here (the count preference).
    public var countsMessages: Bool { countPreference == "all" || countPreference == "unread_message_count_only" }
    /// Whether mentions count here.
    public var countsMentions: Bool { countPreference == "all" || countPreference == "unread_mention_count_only" }

    /// The time of the latest activity: the last message, else the creation.
    public var lastActivity: Millis { lastMessage?.createdAt ?? createdAt * 1000 }

    /// The order of channel lists: latest activity first, then by URL (so that the order is total).
    public static func newerFirst(_ a: GroupChannel, _ b: GroupChannel) -> Bool {
        a.lastActivity != b.lastActivity ? a.lastActivity > b.lastActivity : a.url < b.url
    }

    /// A 1:1 channel: distinct, with two members.
    public var isDirect: Bool { isDistinct && members.count == 2 }

    /// The name to show `me`: a 1:1 channel (or an unnamed one) is named after its other members.
    public func displayName(me: String) -> String {
        let others = members.filter { $0.userId != me }.map(\.user.displayName)
        if isDirect || name.isEmpty || name == "Group Channel" {
            if !others.isEmpty { return others.joined(separator: ", ") }
        }
        return name.isEmpty ? url : name
    }

    /// Members other than `me` and the sender who have not read `message` (0 for admin messages
    /// and supergroups, which have no receipts).
    public func unreadMemberCount(of message: Message, me: String) -> Int {
        unreadMembers(of: message, me: me).count
    }

    /// Members other than `me` and the sender whose read receipt is before `message`.
    public func unreadMembers(of message: Message, me: String) -> [Member] {
        receiptMembers(of: message, me: me).filter { (readReceipt[$0.userId] ?? 0) < message.createdAt }
    }

    /// Members other than `me` and the sender who have read `message`.
    public func readMembers(of message: Message, me: String) -> [Member] {
        receiptMembers(of: message, me: me).filter { (readReceipt[$0.userId] ?? 0) >= message.createdAt }
    }

    /// Members other than `me` and the sender that `message` has not reached yet.
    public func undeliveredMemberCount(of message: Message, me: String) -> Int {
        receiptMembers(of: message, me: me).filter {
            max(deliveryReceipt[$0.userId] ?? 0, readReceipt[$0.userId] ?? 0) < message.createdAt
        }.count
    }

    /// The joined members receipts are counted for: none for admin messages, supergroups and
    /// messages not stored yet; never `me` or the sender.
    func receiptMembers(of message: Message, me: String) -> [Member] {
        guard !isSuper, message.kind != .admin, message.status == .succeeded else { return [] }
        return members.filter { $0.state == "joined" && $0.userId != me && $0.userId != message.sender?.userId }
    }
}
