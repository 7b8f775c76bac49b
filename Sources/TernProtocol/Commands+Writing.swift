import Foundation

// The commands a client sends once per message it receives or reads (`MACK`, `READ`, `TPST`/`TPEN`),
// written by ``JSONWriter``: the members `ChannelRequest`'s synthesized `Encodable` writes, nil ones
// left out. tern sent each through a new `JSONEncoder` (2 % of its CPU per incoming line, issue 36).

extension Frame {
    /// A command that names one channel, its payload written without `JSONEncoder`.
    public init(command: Command, _ request: ChannelRequest) {
        var w = JSONWriter(capacity: 96 + (request.channelUrl?.utf8.count ?? 0))
        w.beginObject()
        if let url = request.channelUrl {
            w.key("channel_url")
            w.string(url)
        }
        if let reqId = request.reqId {
            w.key("req_id")
            w.string(reqId)
        }
        if let time = request.time {
            w.key("time")
            w.int(time.value)
        }
        if let msgId = request.msgId {
            w.key("msg_id")
            w.int(msgId.value)
        }
        w.endObject()
        self.init(command: command, payload: Data(w.bytes))
    }
}
