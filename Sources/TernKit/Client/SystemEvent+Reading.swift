import TernProtocol

/// `SYEV` read by ``JSONReader`` (typing starts and ends arrive as these, one per keystroke burst).
/// The reader takes what is plainly there: `data` a sender with an id, or `null`; `invitee` absent
/// or `null`. Anything else (a `data` without a user id, a value of another type) is left to
/// `init(from:)`, whose `try?`s decide.
extension SystemEvent: ByteDecodable {
    static let keys: [StaticString] = ["cat", "channel_url", "channel_type", "ts", "data"]
    static let inviteeKey: [StaticString] = ["invitee"]

    init(reading r: inout JSONReader) throws(JSONReader.Unrecognised) {
        var cat: Int?
        var channelUrl: String?
        var channelType: String?
        var ts: Int64?
        var user: SenderPayload?
        try r.object(Self.keys) { (k, r: inout JSONReader) throws(JSONReader.Unrecognised) in
            switch k {
            case 0: cat = try r.int()
            case 1: channelUrl = try r.string()
            case 2: channelType = try r.string()
            case 3: ts = try r.flexibleInt64()
            case 4:
                if try r.takeNull() { return }
                // Read twice: as the sender, then for an `invitee` (which this reader leaves alone).
                var again = r
                user = try SenderPayload(reading: &r)
                try again.object(Self.inviteeKey) { (k, r: inout JSONReader) throws(JSONReader.Unrecognised) in
                    if k == 0 { try r.onlyNull() } else { try r.skipValue() }
                }
            default: try r.skipValue()
            }
        }
        guard let cat, let channelUrl else { throw JSONReader.Unrecognised() }
        self.cat = cat
        self.channelUrl = channelUrl
        self.channelType = channelType
        self.ts = ts
        self.user = user
        self.invitee = nil
    }
}
