// The per-message event frames (`READ`, `DLVR`, `DELM`, `MRCT`) and `unread_cnt`, read by
// ``JSONReader``. Required keys are required here as in their `Decodable` readers; a missing one
// gives up, and `JSONDecoder` then throws as before.

extension UnreadCount: ByteDecodable {
    static let keys: [StaticString] = ["all", "custom_types", "ts"]

    package init(reading r: inout JSONReader) throws(JSONReader.Unrecognised) {
        var all = 0
        var customTypes: [String: Int] = [:]
        var ts: Int64 = 0
        try r.object(Self.keys) { (k, r: inout JSONReader) throws(JSONReader.Unrecognised) in
            switch k {
            case 0: all = try r.int() ?? 0
            case 1: customTypes = try r.dictionary { (r: inout JSONReader) throws(JSONReader.Unrecognised) in try r.int() } ?? [:]
            case 2: ts = try r.flexibleInt64() ?? 0
            default: try r.skipValue()
            }
        }
        self.init(all: all, customTypes: customTypes, ts: ts)
    }
}

/// Any frame's `unread_cnt`, when a server sends one: read on every message (ternd puts each
/// recipient's totals in front of it).
package struct UnreadCarrier: Decodable, Equatable, ByteDecodable {
    package var unreadCnt: UnreadCount?
    enum CodingKeys: String, CodingKey { case unreadCnt = "unread_cnt" }
    static let keys: [StaticString] = ["unread_cnt"]

    package init(reading r: inout JSONReader) throws(JSONReader.Unrecognised) {
        try r.object(Self.keys) { (k, r: inout JSONReader) throws(JSONReader.Unrecognised) in
            if k == 0 { unreadCnt = try r.optional(UnreadCount.self) } else { try r.skipValue() }
        }
    }
}

extension ReadEvent: ByteDecodable {
    static let keys: [StaticString] = ["channel_url", "channel_type", "user", "ts", "req_id", "unread_cnt"]

    package init(reading r: inout JSONReader) throws(JSONReader.Unrecognised) {
        var channelUrl: String?
        var channelType: String?
        var reqId: String?
        var user: SenderPayload?
        var ts: Int64?
        var unread: UnreadCount?
        try r.object(Self.keys) { (k, r: inout JSONReader) throws(JSONReader.Unrecognised) in
            switch k {
            case 0: channelUrl = try r.string()
            case 1: channelType = try r.string()
            case 2: user = try r.optional(SenderPayload.self)
            case 3: ts = try r.int64()
            case 4: reqId = try r.string()
            case 5: unread = try r.optional(UnreadCount.self)
            default: try r.skipValue()
            }
        }
        guard let channelUrl, let channelType, let user, let ts else { throw JSONReader.Unrecognised() }
        self.init(channelUrl: channelUrl, user: user, ts: ts, reqId: reqId, unreadCnt: unread)
        self.channelType = channelType
    }
}

extension DeliveryEvent: ByteDecodable {
    static let keys: [StaticString] = ["channel_url", "channel_type", "updated"]

    package init(reading r: inout JSONReader) throws(JSONReader.Unrecognised) {
        var channelUrl: String?
        var channelType: String?
        var updated: [String: Int64]?
        try r.object(Self.keys) { (k, r: inout JSONReader) throws(JSONReader.Unrecognised) in
            switch k {
            case 0: channelUrl = try r.string()
            case 1: channelType = try r.string()
            case 2: updated = try r.dictionary { (r: inout JSONReader) throws(JSONReader.Unrecognised) in try r.int64() }
            default: try r.skipValue()
            }
        }
        guard let channelUrl, let channelType, let updated else { throw JSONReader.Unrecognised() }
        self.init(channelUrl: channelUrl, updated: updated)
        self.channelType = channelType
    }
}

extension DeleteMessageEvent: ByteDecodable {
    static let keys: [StaticString] = ["channel_url", "channel_type", "msg_id", "message_id"]

    package init(reading r: inout JSONReader) throws(JSONReader.Unrecognised) {
        var channelUrl: String?
        var channelType: String?
        var msgId: Int64?
        var messageId: Int64?
        try r.object(Self.keys) { (k, r: inout JSONReader) throws(JSONReader.Unrecognised) in
            switch k {
            case 0: channelUrl = try r.string()
            case 1: channelType = try r.string()
            case 2: msgId = try r.flexibleInt64()
            case 3: messageId = try r.flexibleInt64()
            default: try r.skipValue()
            }
        }
        guard let channelUrl, let id = msgId ?? messageId else { throw JSONReader.Unrecognised() }
        self.init(channelUrl: channelUrl, channelType: channelType ?? "group", msgId: id)
    }
}

extension ReactionEvent: ByteDecodable {
    static let keys: [StaticString] = ["channel_url", "channel_type", "msg_id", "reaction", "user_id", "operation", "success", "updated_at"]

    package init(reading r: inout JSONReader) throws(JSONReader.Unrecognised) {
        var text: [String?] = Array(repeating: nil, count: 6)
        var msgId: Int64?
        var updatedAt: Int64?
        var success: Bool?
        try r.object(Self.keys) { (k, r: inout JSONReader) throws(JSONReader.Unrecognised) in
            switch k {
            case 0, 1, 3, 4, 5: text[k] = try r.string()
            case 2: msgId = try r.flexibleInt64()
            case 6: success = try r.bool()
            case 7: updatedAt = try r.flexibleInt64()
            default: try r.skipValue()
            }
        }
        guard let channelUrl = text[0], let msgId, let reaction = text[3], let userId = text[4], let operation = text[5] else {
            throw JSONReader.Unrecognised()
        }
        self.init(
            channelUrl: channelUrl, channelType: text[1] ?? "group", msgId: msgId, reaction: reaction, userId: userId,
            operation: operation, success: success ?? true, updatedAt: updatedAt ?? 0)
    }
}
