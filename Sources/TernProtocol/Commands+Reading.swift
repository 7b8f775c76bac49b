// The commands a client sends once per message or keystroke, read by ``JSONReader`` on ternd's
// event loop (`MESG`, `READ`, `TPST`/`TPEN`, `MACK`, `PING`): each gives what its synthesized
// `Decodable` gives (every member optional: absent or `null` is nil), or gives up and leaves the
// frame to `JSONDecoder`, which then accepts it or refuses it (a value of another type, a
// metaarray written as an object, a number with a fraction).

extension SendMessageRequest: ByteDecodable {
    static let keys: [StaticString] = [
        "channel_url", "message", "data", "custom_type", "mention_type", "mentioned_user_ids", "metaarray", "parent_message_id",
        "reply_to_channel", "silent", "req_id",
    ]

    package init(reading r: inout JSONReader) throws(JSONReader.Unrecognised) {
        var out = SendMessageRequest()
        try r.object(Self.keys) { (k, r: inout JSONReader) throws(JSONReader.Unrecognised) in
            switch k {
            case 0: out.channelUrl = try r.string()
            case 1: out.message = try r.string()
            case 2: out.data = try r.string()
            case 3: out.customType = try r.string()
            case 4: out.mentionType = try r.string()
            case 5: out.mentionedUserIds = try r.stringArray()
            case 6: out.metaarray = try r.array(of: MetaArrayItem.self).map(FlexibleMetaArray.init)
            case 7: out.parentMessageId = try r.flexibleInt64().map(FlexibleInt64.init)
            case 8: out.replyToChannel = try r.bool()
            case 9: out.silent = try r.bool()
            case 10: out.reqId = try r.string()
            default: try r.skipValue()
            }
        }
        self = out
    }
}

extension ChannelRequest: ByteDecodable {
    static let keys: [StaticString] = ["channel_url", "req_id", "time", "msg_id"]

    package init(reading r: inout JSONReader) throws(JSONReader.Unrecognised) {
        var out = ChannelRequest()
        try r.object(Self.keys) { (k, r: inout JSONReader) throws(JSONReader.Unrecognised) in
            switch k {
            case 0: out.channelUrl = try r.string()
            case 1: out.reqId = try r.string()
            case 2: out.time = try r.flexibleInt64().map(FlexibleInt64.init)
            case 3: out.msgId = try r.flexibleInt64().map(FlexibleInt64.init)
            default: try r.skipValue()
            }
        }
        self = out
    }
}

extension PingPayload: ByteDecodable {
    static let keys: [StaticString] = ["id", "ts", "req_id"]

    package init(reading r: inout JSONReader) throws(JSONReader.Unrecognised) {
        var out = PingPayload(id: nil, ts: nil)
        try r.object(Self.keys) { (k, r: inout JSONReader) throws(JSONReader.Unrecognised) in
            switch k {
            case 0: out.id = try r.flexibleInt64().map(FlexibleInt64.init)
            case 1: out.ts = try r.int64()
            case 2: out.reqId = try r.string()
            default: try r.skipValue()
            }
        }
        self = out
    }
}
