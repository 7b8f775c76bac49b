// `MESG`/`MEDI` payloads read by ``JSONReader``: each default below is the one
// `MessagePayload.init(from:)` (LenientDecoding.swift) gives for a missing or `null` key; a value of
// another type, and the rarer parts (threads, reactions, link previews, files), are left to it.

extension SenderPayload: ByteDecodable {
    static let keys: [StaticString] = [
        "user_id", "nickname", "profile_url", "metadata", "role", "is_active", "require_auth_for_profile_image",
    ]

    package init(reading r: inout JSONReader) throws(JSONReader.Unrecognised) {
        var userId: String?
        var nickname = ""
        var profileUrl = ""
        var role = ""
        var metadata: [String: String] = [:]
        var isActive = true
        var requireAuth = false
        try r.object(Self.keys) { (k, r: inout JSONReader) throws(JSONReader.Unrecognised) in
            switch k {
            case 0: userId = try r.string()
            case 1: nickname = try r.string() ?? ""
            case 2: profileUrl = try r.string() ?? ""
            case 3: metadata = try r.dictionary { (r: inout JSONReader) throws(JSONReader.Unrecognised) in try r.string() } ?? [:]
            case 4: role = try r.string() ?? ""
            case 5: isActive = try r.bool() ?? true
            case 6: requireAuth = try r.bool() ?? false
            default: try r.skipValue()
            }
        }
        // Without an id the sender is not one (`Decodable` throws, or drops the sender).
        guard let userId else { throw JSONReader.Unrecognised() }
        self.init(userId: userId, nickname: nickname, profileUrl: profileUrl, metadata: metadata, role: role)
        self.isActive = isActive
        self.requireAuthForProfileImage = requireAuth
    }
}

extension MetaArrayItem: ByteDecodable {
    static let keys: [StaticString] = ["key", "value"]

    package init(reading r: inout JSONReader) throws(JSONReader.Unrecognised) {
        var key: String?
        var value: [String]?
        try r.object(Self.keys) { (k, r: inout JSONReader) throws(JSONReader.Unrecognised) in
            switch k {
            case 0: key = try r.string()
            case 1: value = try r.stringArray()
            default: try r.skipValue()
            }
        }
        guard let key, let value else { throw JSONReader.Unrecognised() }
        self.init(key: key, value: value)
    }
}

extension JSONReader {
    /// An array of `T`; nil for `null`. One element this reader cannot read gives up on the whole.
    package mutating func array<T: ByteDecodable>(of type: T.Type) throws(Unrecognised) -> [T]? {
        if try takeNull() { return nil }
        var result: [T] = []
        try forEachElement { (r: inout JSONReader) throws(Unrecognised) in result.append(try T(reading: &r)) }
        return result
    }

    /// An object `T`, or nil for `null`.
    package mutating func optional<T: ByteDecodable>(_ type: T.Type) throws(Unrecognised) -> T? {
        if try takeNull() { return nil }
        return try T(reading: &self)
    }
}

/// What a message's keys gave so far, with `MessagePayload.init(from:)`'s defaults.
private struct MessageFields {
    static let keys: [StaticString] = [
        "type", "msg_id", "message_id", "message", "channel_url", "channel_type", "created_at", "ts", "updated_at", "custom_type", "data",
        "mention_type", "silent", "is_op_msg", "is_removed", "is_reply_to_channel", "require_auth", "message_survival_seconds",
        "parent_message_id", "req_id", "user", "sorted_metaarray", "mentioned_users", "old_values", "translations",
        // Built by `Decodable` only: this reader takes them when `null`.
        "thread_info", "parent_message_info", "reactions", "og_tag", "file", "files",
    ]
    var type: String?
    var msgId: Int64?, messageId: Int64?, ts: Int64?, createdAt: Int64?
    var updatedAt: Int64 = 0, parentMessageId: Int64 = 0
    var message = "", channelUrl = "", channelType = "group", customType = "", data = "", mentionType = "users"
    var user: SenderPayload?
    var sortedMetaarray: [MetaArrayItem] = []
    var mentionedUsers: [SenderPayload] = []
    var silent = false, isOpMsg = false, isRemoved = false, isReplyToChannel = false
    var requireAuth: Bool?
    var messageSurvivalSeconds = -1
    var reqId: String?
    var oldValues: [String: String]?, translations: [String: String]?

    /// Reads the value of the key at `index` of ``keys``.
    mutating func read(_ index: Int, _ r: inout JSONReader) throws(JSONReader.Unrecognised) {
        switch index {
        case 0:
            type = try r.string()
            // A file message's flat `url`/`name`/`size` are `Decodable`'s: give up at once.
            if type == "FILE" { throw JSONReader.Unrecognised() }
        case 1: msgId = try r.flexibleInt64()
        case 2: messageId = try r.flexibleInt64()
        case 3: message = try r.string() ?? ""
        case 4: channelUrl = try r.string() ?? ""
        case 5: channelType = try r.string() ?? "group"
        case 6: createdAt = try r.flexibleInt64()
        case 7: ts = try r.flexibleInt64()
        case 8: updatedAt = try r.flexibleInt64() ?? 0
        case 9: customType = try r.string() ?? ""
        case 10: data = try r.string() ?? ""
        case 11: mentionType = try r.string() ?? "users"
        case 12: silent = try r.bool() ?? false
        case 13: isOpMsg = try r.bool() ?? false
        case 14: isRemoved = try r.bool() ?? false
        case 15: isReplyToChannel = try r.bool() ?? false
        case 16: requireAuth = try r.bool()
        case 17: messageSurvivalSeconds = try r.int() ?? -1
        case 18: parentMessageId = try r.flexibleInt64() ?? 0
        case 19: reqId = try r.string()
        case 20: user = try r.optional(SenderPayload.self)
        case 21: sortedMetaarray = try r.array(of: MetaArrayItem.self) ?? []
        case 22: mentionedUsers = try r.array(of: SenderPayload.self) ?? []
        case 23: oldValues = try r.dictionary { (r: inout JSONReader) throws(JSONReader.Unrecognised) in try r.string() }
        case 24: translations = try r.dictionary { (r: inout JSONReader) throws(JSONReader.Unrecognised) in try r.string() }
        case 25..<Self.keys.count: try r.onlyNull()
        default: try r.skipValue()
        }
    }
}

extension MessagePayload: ByteDecodable {
    package init(reading r: inout JSONReader) throws(JSONReader.Unrecognised) {
        var f = MessageFields()
        try r.object(MessageFields.keys) { (k, r: inout JSONReader) throws(JSONReader.Unrecognised) in try f.read(k, &r) }
        try self.init(f)
    }

    fileprivate init(_ f: MessageFields) throws(JSONReader.Unrecognised) {
        let id = f.msgId ?? f.messageId ?? -1
        let type = f.type ?? "MESG"
        // No id: `Decodable` throws.
        guard id >= 0 else { throw JSONReader.Unrecognised() }
        self.init(
            type: type, id: id, message: f.message, channelUrl: f.channelUrl, channelType: f.channelType, createdAt: f.ts ?? f.createdAt ?? 0,
            updatedAt: f.updatedAt, user: f.user, customType: f.customType, data: f.data, sortedMetaarray: f.sortedMetaarray,
            mentionType: f.mentionType, mentionedUsers: f.mentionedUsers, silent: f.silent, isOpMsg: f.isOpMsg,
            parentMessageId: f.parentMessageId, isReplyToChannel: f.isReplyToChannel, reqId: f.reqId)
        isRemoved = f.isRemoved
        messageSurvivalSeconds = f.messageSurvivalSeconds
        requireAuth = f.requireAuth
        oldValues = f.oldValues
        translations = f.translations
    }
}

/// A message frame as the engine takes it: the message and, when the server put them in front of it
/// (ternd does, per recipient), the user's totals (`unread_cnt`), read in one pass (it was a second
/// pass over every message frame, issue 36). What the reader gives up on, `JSONDecoder` reads as the
/// two values it always was.
package struct MessageFrame: Decodable, Equatable, ByteDecodable {
    package var payload: MessagePayload
    package var unreadCnt: UnreadCount?

    static let keys: [StaticString] = MessageFields.keys + ["unread_cnt"]

    package init(from decoder: any Decoder) throws {
        payload = try MessagePayload(from: decoder)
        // Totals that do not read leave the message as it was: handled, without them.
        unreadCnt = (try? UnreadCarrier(from: decoder))?.unreadCnt
    }

    package init(reading r: inout JSONReader) throws(JSONReader.Unrecognised) {
        var f = MessageFields()
        var unread: UnreadCount?
        let unreadKey = MessageFields.keys.count
        try r.object(Self.keys) { (k, r: inout JSONReader) throws(JSONReader.Unrecognised) in
            if k == unreadKey { unread = try r.optional(UnreadCount.self) } else { try f.read(k, &r) }
        }
        payload = try MessagePayload(f)
        unreadCnt = unread
    }
}
