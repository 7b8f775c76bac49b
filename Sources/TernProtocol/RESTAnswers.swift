import Foundation

// Single answers that ternd writes and TernKit reads: one type for both sides. Reading is lenient
// where Sendbird's answers vary (a key left out reads as its default).

/// `POST /v3/storage/file` → `{url, file_size, name, type, thumbnails, require_auth}`.
public struct UploadAnswer: Codable, Sendable {
    public var url: String
    public var fileSize: Int
    public var name: String
    public var type: String
    public var thumbnails: [ThumbnailPayload]
    /// Whether downloading needs the user's key (ternd: always).
    public var requireAuth: Bool
    enum CodingKeys: String, CodingKey {
        case url
        case fileSize = "file_size"
        case name, type, thumbnails
        case requireAuth = "require_auth"
    }

    public init(url: String, fileSize: Int, name: String, type: String, thumbnails: [ThumbnailPayload], requireAuth: Bool = true) {
        self.url = url
        self.fileSize = fileSize
        self.name = name
        self.type = type
        self.thumbnails = thumbnails
        self.requireAuth = requireAuth
    }

    /// `url` and `file_size` are needed; the rest may be left out.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            url: try c.decode(String.self, forKey: .url), fileSize: try c.decode(Int.self, forKey: .fileSize), name: c.lenient(.name, ""),
            type: c.lenient(.type, ""), thumbnails: c.lenient(.thumbnails, []), requireAuth: c.lenient(.requireAuth, true))
    }
}

/// A channel's metadata read or changed with `include_ts` → `{channel_url, metadata, ts}`.
public struct MetadataAnswer: Codable, Sendable {
    public var channelUrl: String
    public var metadata: [String: String]
    public var ts: Int64
    enum CodingKeys: String, CodingKey {
        case channelUrl = "channel_url"
        case metadata, ts
    }

    public init(channelUrl: String, metadata: [String: String], ts: Int64) {
        self.channelUrl = channelUrl
        self.metadata = metadata
        self.ts = ts
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(channelUrl: c.lenient(.channelUrl, ""), metadata: c.lenient(.metadata, [:]), ts: c.lenientInt64(.ts))
    }
}

/// A member's push preference for one channel (`GET`/`PUT /v3/users/{id}/push_preference/{url}`)
/// → `{enable, push_sound, push_trigger_option}`.
public struct ChannelPushPreferenceAnswer: Codable, Sendable {
    /// `default`, `all`, `mention_only` or `off`.
    public var pushTriggerOption: String
    public var pushSound: String
    /// Whether the trigger is other than `off`.
    public var enable: Bool
    enum CodingKeys: String, CodingKey {
        case enable
        case pushSound = "push_sound"
        case pushTriggerOption = "push_trigger_option"
    }

    public init(pushTriggerOption: String, pushSound: String) {
        self.pushTriggerOption = pushTriggerOption
        self.pushSound = pushSound
        self.enable = pushTriggerOption != "off"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(pushTriggerOption: c.lenient(.pushTriggerOption, "default"), pushSound: c.lenient(.pushSound, "default"))
        enable = c.lenient(.enable, enable)
    }
}

/// One emoji of the application's catalog.
public struct EmojiPayload: Codable, Sendable {
    public var id: Int
    public var key: String
    public var url: String
    enum CodingKeys: String, CodingKey { case id, key, url }

    public init(id: Int, key: String, url: String) {
        self.id = id
        self.key = key
        self.url = url
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: c.lenient(.id, 0), key: try c.decode(String.self, forKey: .key), url: c.lenient(.url, ""))
    }
}

/// One category of the application's emojis.
public struct EmojiCategoryPayload: Codable, Sendable {
    public var id: Int
    public var name: String
    public var url: String
    public var emojis: [EmojiPayload]
    enum CodingKeys: String, CodingKey { case id, name, url, emojis }

    public init(id: Int, name: String, url: String, emojis: [EmojiPayload]) {
        self.id = id
        self.name = name
        self.url = url
        self.emojis = emojis
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: c.lenient(.id, 0), name: c.lenient(.name, ""), url: c.lenient(.url, ""),
            emojis: try c.decode([EmojiPayload].self, forKey: .emojis))
    }
}

/// `GET /v3/emoji_categories` → `{emoji_hash, emoji_categories}`.
public struct EmojiCategoryList: Codable, Sendable {
    /// Changes whenever the catalog does: the SDKs refetch it then.
    public var emojiHash: String
    public var emojiCategories: [EmojiCategoryPayload]
    enum CodingKeys: String, CodingKey {
        case emojiHash = "emoji_hash"
        case emojiCategories = "emoji_categories"
    }

    public init(emojiHash: String, emojiCategories: [EmojiCategoryPayload]) {
        self.emojiHash = emojiHash
        self.emojiCategories = emojiCategories
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            emojiHash: c.lenient(.emojiHash, ""), emojiCategories: try c.decode([EmojiCategoryPayload].self, forKey: .emojiCategories))
    }
}

/// A ban or a mute as the lists and answers show it: the user's keys flat with the restriction's beside
/// them (`restriction_type`, `description`, `start_at`, `end_at`, `remaining_duration`), and the same
/// under `user` (the Platform API's shape, and where the JS SDK reads a banned user). Read from either:
/// Sendbird's banned lists nest the user, its muted lists do not.
public struct RestrictedUser: Codable, Sendable {
    public var restriction: RestrictionPayload
    /// Whether this is a ban (`banned`) rather than a mute (`muted`).
    public var isBan: Bool
    /// ms; -1 forever.
    public var remainingDuration: Int64
    enum CodingKeys: String, CodingKey {
        case user, description
        case startAt = "start_at"
        case endAt = "end_at"
        case remainingDuration = "remaining_duration"
        case restrictionType = "restriction_type"
    }

    /// The restriction as it stands at `now` (ms).
    public init(_ restriction: RestrictionPayload, isBan: Bool, now: Int64) {
        self.restriction = restriction
        self.isBan = isBan
        self.remainingDuration = restriction.endAt < 0 ? -1 : max(0, restriction.endAt - now)
    }

    /// The user under `user`, else the item's own keys.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let nested: UserPayload? = c.lenient(.user, nil)
        let user = try nested ?? UserPayload(from: decoder)
        restriction = RestrictionPayload(
            user: user, description: c.lenient(.description, ""), startAt: c.lenientInt64(.startAt), endAt: c.lenientInt64(.endAt, -1))
        isBan = c.lenient(.restrictionType, "banned") == "banned"
        remainingDuration = c.lenientInt64(.remainingDuration, restriction.endAt < 0 ? -1 : 0)
    }

    func encodeFlat(to encoder: any Encoder) throws {
        try restriction.user.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(isBan ? "banned" : "muted", forKey: .restrictionType)
        try c.encode(restriction.description, forKey: .description)
        try c.encode(restriction.startAt, forKey: .startAt)
        try c.encode(restriction.endAt, forKey: .endAt)
        try c.encode(remainingDuration, forKey: .remainingDuration)
    }

    struct Flat: Encodable {
        let item: RestrictedUser
        func encode(to encoder: any Encoder) throws { try item.encodeFlat(to: encoder) }
    }

    public func encode(to encoder: any Encoder) throws {
        try encodeFlat(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Flat(item: self), forKey: .user)
    }
}

/// `GET …/{url}/ban` → `{banned_list, total_ban_count, next}`; `GET …/{url}/mute` → `{muted_list, total_mute_count, next}`.
public struct RestrictionListPage: Codable, Sendable {
    public var isBan: Bool
    public var items: [RestrictedUser]
    public var total: Int
    /// The next page's token ("" at the end).
    public var next: String
    enum CodingKeys: String, CodingKey {
        case bannedList = "banned_list"
        case mutedList = "muted_list"
        case totalBanCount = "total_ban_count"
        case totalMuteCount = "total_mute_count"
        case next
    }

    public init(isBan: Bool, items: [RestrictedUser], total: Int, next: String) {
        self.isBan = isBan
        self.items = items
        self.total = total
        self.next = next
    }

    /// A list that is missing or unreadable reads as empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let b = try? c.decodeIfPresent([RestrictedUser].self, forKey: .bannedList) {
            self.init(isBan: true, items: b, total: c.lenient(.totalBanCount, b.count), next: c.lenient(.next, ""))
        } else if let m = try? c.decodeIfPresent([RestrictedUser].self, forKey: .mutedList) {
            self.init(isBan: false, items: m, total: c.lenient(.totalMuteCount, m.count), next: c.lenient(.next, ""))
        } else {
            self.init(isBan: true, items: [], total: 0, next: c.lenient(.next, ""))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(items, forKey: isBan ? .bannedList : .mutedList)
        try c.encode(total, forKey: isBan ? .totalBanCount : .totalMuteCount)
        try c.encode(next, forKey: .next)
    }
}
