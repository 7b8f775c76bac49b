import Foundation
import TernProtocol

/// `sorted_metaarray`: `[{key, value: [string]}]`. An item that is not an object with a string
/// `key` is 400100; a `value` that is not a list, and its items that are not strings, are left out.
struct MetaArrayList: Decodable {
    let items: [MetaArrayItem]

    init(from decoder: any Decoder) throws {
        var list = try decoder.unkeyedContainer()
        var items: [MetaArrayItem] = []
        while !list.isAtEnd {
            guard let o = try? list.nestedContainer(keyedBy: AnyKey.self), let key = try? o.decode(String.self, forKey: AnyKey("key")) else {
                throw SendbirdErrorFactory.wrongType("sorted_metaarray", "array of {key, value}")
            }
            var values: [String] = []
            if var v = try? o.nestedUnkeyedContainer(forKey: AnyKey("value")) {
                while !v.isAtEnd {
                    let at = v.currentIndex
                    if let s = try? v.decode(String.self) { values.append(s) } else { _ = try? v.decode(IgnoredValue.self) }
                    if v.currentIndex == at { break }
                }
            }
            items.append(MetaArrayItem(key: key, value: values))
        }
        self.items = items
    }
}

/// `POST …/messages/{id}/sorted_metaarray`: `sorted_metaarray`, the keys and values to add,
/// required.
struct MetaArrayAddBody: Decodable {
    let items: [MetaArrayItem]
    enum CodingKeys: String, CodingKey { case sortedMetaarray = "sorted_metaarray" }

    init(from decoder: any Decoder) throws {
        guard let items = try decoder.container(keyedBy: CodingKeys.self).metaArray(.sortedMetaarray) else {
            throw SendbirdError.missing("sorted_metaarray")
        }
        self.items = items
    }
}

/// `PUT …/messages/{id}/sorted_metaarray`: `sorted_metaarray` (``MetaArrayAddBody``), required;
/// `mode` `add` (the default) or `remove`; `upsert` (false).
struct MetaArrayChangeBody: Decodable {
    let items: [MetaArrayItem]
    let mode: MetaArrayChange.Mode
    let upsert: Bool
    enum CodingKeys: String, CodingKey { case mode, upsert }

    init(from decoder: any Decoder) throws {
        items = try MetaArrayAddBody(from: decoder).items
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.string(.mode) ?? "add" {
        case "add": mode = .add
        case "remove": mode = .remove
        default: throw SendbirdError(.invalidValue, "Invalid value: \"mode\" must be add or remove.")
        }
        upsert = try c.bool(.upsert) ?? false
    }
}

/// `PUT …/messages/{id}`: what changes, all optional: `message`, `data`, `custom_type`,
/// `mention_type`, `mentioned_user_ids`, and `sorted_metaarray` with `metaarray_mode` (`add`,
/// `remove`, else the whole metaarray is replaced).
struct MessageUpdateBody: Decodable {
    var update = MessageUpdate()
    enum CodingKeys: String, CodingKey {
        case message, data
        case customType = "custom_type"
        case mentionType = "mention_type"
        case mentionedUserIds = "mentioned_user_ids"
        case sortedMetaarray = "sorted_metaarray"
        case metaarrayMode = "metaarray_mode"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        update.message = try c.string(.message)
        update.data = try c.string(.data)
        update.customType = try c.string(.customType)
        update.mentionType = try c.string(.mentionType)
        update.mentionedUserIds = try c.stringArray(.mentionedUserIds)
        if let items = try c.metaArray(.sortedMetaarray) {
            switch try c.string(.metaarrayMode) ?? "replace" {
            case "add": update.metaarray = MetaArrayChange(items: items, mode: .add)
            case "remove": update.metaarray = MetaArrayChange(items: items, mode: .remove)
            default: update.metaarray = MetaArrayChange(items: items, mode: .replace)
            }
        }
    }
}

/// What text and file messages to send share, as the REST bodies (``SendMessageBody``,
/// ``FileMessageBody``) and the WebSocket's `MESG` and `FILE` give it: read once, set on the
/// outgoing message by `apply(to:)`. From REST: `custom_type`, `data` (a file's
/// `custom_field` first); then, but for an admin message, `mention_type` (`users`),
/// `mentioned_user_ids` (a text's `mentioned_users` else), a text's `is_silent`, `dedup_id`,
/// `sorted_metaarray`, `parent_message_id`, `reply_to_channel`.
struct MessageFieldsBody: Sendable {
    /// What a body sends: the keys read differ a little.
    enum Kind { case admin, text, file }
    var customType = ""
    var data = ""
    var mentionType = "users"
    var mentionedUserIds: [String] = []
    /// Text messages only.
    var silent = false
    /// `dedup_id` (REST) or `req_id` (WebSocket).
    var reqId: String?
    var sortedMetaarray: [MetaArrayItem] = []
    var parentMessageId: Int64 = 0
    var replyToChannel = false
    enum CodingKeys: String, CodingKey {
        case customType = "custom_type"
        case customField = "custom_field"
        case data
        case mentionType = "mention_type"
        case mentionedUserIds = "mentioned_user_ids"
        case mentionedUsers = "mentioned_users"
        case isSilent = "is_silent"
        case dedupId = "dedup_id"
        case sortedMetaarray = "sorted_metaarray"
        case parentMessageId = "parent_message_id"
        case replyToChannel = "reply_to_channel"
    }

    init() {}

    init(from decoder: any Decoder, kind: Kind) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        customType = try c.string(.customType) ?? ""
        data = try (kind == .file ? c.string(.customField) : nil) ?? c.string(.data) ?? ""
        guard kind != .admin else { return }
        mentionType = try c.string(.mentionType) ?? "users"
        mentionedUserIds = try c.stringArray(.mentionedUserIds) ?? (kind == .text ? c.stringArray(.mentionedUsers) : nil) ?? []
        if kind == .text { silent = try c.bool(.isSilent) ?? false }
        reqId = try c.string(.dedupId)
        sortedMetaarray = try c.metaArray(.sortedMetaarray) ?? []
        parentMessageId = try c.int(.parentMessageId) ?? 0
        replyToChannel = try c.bool(.replyToChannel) ?? false
    }

    /// A WebSocket `MESG`'s fields.
    init(_ r: SendMessageRequest) {
        self.init(
            customType: r.customType, data: r.data, mentionType: r.mentionType, mentionedUserIds: r.mentionedUserIds, reqId: r.reqId,
            metaarray: r.metaarray, parentMessageId: r.parentMessageId, replyToChannel: r.replyToChannel)
        silent = r.silent ?? false
    }

    /// A WebSocket `FILE`'s fields (the JS SDK sends `data` as `custom`).
    init(_ r: FileMessageRequest) {
        self.init(
            customType: r.customType, data: r.custom ?? r.data, mentionType: r.mentionType, mentionedUserIds: r.mentionedUserIds,
            reqId: r.reqId, metaarray: r.metaarray, parentMessageId: r.parentMessageId, replyToChannel: r.replyToChannel)
    }

    private init(
        customType: String?, data: String?, mentionType: String?, mentionedUserIds: [String]?, reqId: String?, metaarray: FlexibleMetaArray?,
        parentMessageId: FlexibleInt64?, replyToChannel: Bool?
    ) {
        self.customType = customType ?? ""
        self.data = data ?? ""
        self.mentionType = mentionType ?? "users"
        self.mentionedUserIds = mentionedUserIds ?? []
        self.reqId = reqId
        self.sortedMetaarray = metaarray?.items ?? []
        self.parentMessageId = parentMessageId?.value ?? 0
        self.replyToChannel = replyToChannel ?? false
    }

    /// Sets the fields on a text message to send.
    func apply(to out: inout OutgoingMessage) {
        setShared(&out)
        out.silent = silent
    }

    /// Sets the fields on a file message to send.
    func apply(to out: inout OutgoingFileMessage) { setShared(&out) }

    private func setShared(_ out: inout some OutgoingMessageFields) {
        out.customType = customType
        out.data = data
        out.mentionType = mentionType
        out.mentionedUserIds = mentionedUserIds
        out.reqId = reqId
        out.sortedMetaarray = sortedMetaarray
        out.parentMessageId = parentMessageId
        out.replyToChannel = replyToChannel
    }
}

/// `POST /v3/{group_channels|open_channels}/{url}/messages`: `message_type` (`MESG`, the
/// default, or `ADMM`), then what that type reads. `ADMM` (the Platform API's only; an SDK
/// user's is not read): `message`, required, `custom_type`, `data`. `MESG`: `user_id` (the
/// sender, required of the Platform API), `message`, required, `custom_type`, `data`,
/// `mention_type` (`users`), `mentioned_user_ids` (else `mentioned_users`), `is_silent`,
/// `dedup_id`, `sorted_metaarray`, `parent_message_id`, `reply_to_channel`. From an SDK user,
/// the handler requires `message` after it has checked `user_id`.
struct SendMessageBody: PlatformFieldsBody {
    var messageType = "MESG"
    var userId: String?
    var message: String?
    var fields = MessageFieldsBody()
    enum CodingKeys: String, CodingKey {
        case messageType = "message_type"
        case userId = "user_id"
        case message
    }

    init(from decoder: any Decoder) throws { try self.init(from: decoder, platform: true) }

    init(from decoder: any Decoder, platform: Bool) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        messageType = try c.string(.messageType) ?? "MESG"
        guard messageType == "MESG" || (messageType == "ADMM" && platform) else { return }
        if messageType == "MESG" { userId = platform ? try c.requiredString(.userId) : try c.string(.userId) }
        message = platform ? try c.requiredString(.message) : try c.string(.message)
        fields = try MessageFieldsBody(from: decoder, kind: messageType == "MESG" ? .text : .admin)
    }
}

/// `POST /v3/{channel_type}/{url}/messages` with `message_type` `FILE`: a file message by URL —
/// `url` (required), `file_name`, `file_type`, `file_size`, `thumbnails` (URLs, or objects with
/// `url`, `width`, `height`), `custom_type`, `custom_field` or `data`, `mention_type`,
/// `mentioned_user_ids`, `dedup_id`, `sorted_metaarray`, `parent_message_id`,
/// `reply_to_channel`; `user_id` as for ``SendMessageBody``.
struct FileMessageBody: PlatformFieldsBody {
    var userId: String?
    var file = OutgoingFile(url: "", name: "", type: "", size: 0)
    var fields = MessageFieldsBody()
    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case url
        case fileName = "file_name"
        case fileType = "file_type"
        case fileSize = "file_size"
        case thumbnails
    }

    /// A thumbnail given as its URL, or as an object.
    struct Thumbnail: Decodable {
        var payload: ThumbnailPayload
        enum CodingKeys: String, CodingKey {
            case url, width, height
            case realWidth = "real_width"
            case realHeight = "real_height"
        }
        init(from decoder: any Decoder) throws {
            if let url = try? decoder.singleValueContainer().decode(String.self) {
                payload = ThumbnailPayload(url: url, width: 0, height: 0, realWidth: 0, realHeight: 0)
                return
            }
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let width = Int(try c.int(.width) ?? 0)
            let height = Int(try c.int(.height) ?? 0)
            payload = ThumbnailPayload(
                url: try c.requiredString(.url), width: width, height: height, realWidth: Int(try c.int(.realWidth) ?? Int64(width)),
                realHeight: Int(try c.int(.realHeight) ?? Int64(height)))
        }
    }

    init(from decoder: any Decoder) throws { try self.init(from: decoder, platform: true) }

    init(from decoder: any Decoder, platform: Bool) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        userId = platform ? try c.requiredString(.userId) : try c.string(.userId)
        let url = try c.requiredString(.url)
        let name = try c.string(.fileName) ?? (URL(string: url)?.lastPathComponent ?? "")
        let size = try c.int(.fileSize) ?? 0
        guard size >= 0, size <= Int64(Int32.max) else { throw SendbirdErrorFactory.outOfRange("file_size", 0...Int(Int32.max)) }
        let thumbnails = try c.nested([Thumbnail].self, .thumbnails, as: "list of thumbnails") ?? []
        file = OutgoingFile(url: url, name: name, type: try c.string(.fileType) ?? "", size: Int(size), thumbnails: thumbnails.map(\.payload))
        fields = try MessageFieldsBody(from: decoder, kind: .file)
    }
}

/// `PUT /v3/group_channels/{url}/messages/{mark_as_read,mark_as_delivered}`: `user_id`, the
/// user acting: required of the Platform API; an SDK user's own id, if given.
struct ActingUserBody: Decodable {
    let userId: String?
    enum CodingKeys: String, CodingKey { case userId = "user_id" }

    init(from decoder: any Decoder) throws { userId = try decoder.container(keyedBy: CodingKeys.self).string(.userId) }
}

/// `POST …/messages/{id}/reactions`: `user_id` (``ActingUserBody``), then `reaction`; both
/// required of the Platform API, `reaction` of an SDK user by the handler after it has checked
/// `user_id`.
struct ReactionBody: PlatformFieldsBody {
    let userId: String?
    let reaction: String?
    enum CodingKeys: String, CodingKey {
        case userId = "user_id"
        case reaction
    }

    init(from decoder: any Decoder) throws { try self.init(from: decoder, platform: true) }

    init(from decoder: any Decoder, platform: Bool) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        userId = platform ? try c.requiredString(.userId) : try c.string(.userId)
        reaction = platform ? try c.requiredString(.reaction) : try c.string(.reaction)
    }
}

/// `POST …/messages/{id}/translation`: `target_langs`, the languages (the handler requires one
/// at least).
struct TranslateBody: Decodable {
    let targetLangs: [String]
    enum CodingKeys: String, CodingKey { case targetLangs = "target_langs" }

    init(from decoder: any Decoder) throws {
        targetLangs = try decoder.container(keyedBy: CodingKeys.self).stringArray(.targetLangs) ?? []
    }
}
