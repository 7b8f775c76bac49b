import ArgumentParser
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// `tern-bench fanout-server`: the least server the bench can run against — just the REST calls
/// and WebSocket commands a run uses, on one NIO event loop, with no storage. It exists to measure
/// the bench itself: its fan-out costs far less than ternd's, so the bench's own CPU per delivery
/// can be read at rates ternd cannot reach (`tern-bench --spawn-fanout`).
///
/// REST (`Api-Token` checked when `--api-token` is given): `POST /v3/users`, `POST
/// /v3/group_channels` (`user_ids`), `POST /v3/open_channels` (`channel_url`). WebSocket at
/// `/?user_id=U`: `LOGI{"user_id":…}` at once; `ENTR` → its ack with `req_id`; `MESG` → the
/// sender's copy with `req_id`, every other member's (or participant's) copy without, all with one
/// channel-wide increasing `msg_id`. Frames for a connection are gathered during a loop turn and
/// written once at its end (one write per connection per turn), or `--coalescing-us` after the first
/// of them (several messages per write, as ternd's write coalescing does).
struct FanoutServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fanout-server",
        abstract: "A trivial fan-out server (just what tern-bench uses) to measure the bench's own cost.")

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on; 0 takes any free port.")
    var port = 0

    @Option(name: .customLong("api-token"), help: "Platform API token REST calls must carry (none: not checked).")
    var apiToken: String?

    @Option(name: .customLong("app-id"), help: "Accepted for symmetry with ternd; not checked.")
    var appId = "LOCAL"

    @Option(
        name: .customLong("coalescing-us"), help: "Write a connection's frames this many µs after the first of them (0: at the end of the loop turn)."
    )
    var coalescingUs = 0

    func run() async throws {
        raiseOpenFileLimit()
        // One loop: the hub is that loop's alone, so it needs no lock.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let hub = try await loop.submit { NIOLoopBound(FanoutHub(loop: loop, coalescing: .microseconds(Int64(coalescingUs))), eventLoop: loop) }.get()
        let token = apiToken
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: WebSocketClient.maxFrameSize,
            shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    let userId = FanoutHub.queryValue("user_id", in: head.uri) ?? "anonymous"
                    try channel.pipeline.syncOperations.addHandler(FanoutSocket(hub: hub.value, userId: userId))
                }
            })
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 4096)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrade: NIOHTTPServerUpgradeConfiguration = (
                        upgraders: [upgrader],
                        completionHandler: { context in context.pipeline.removeHandler(name: FanoutREST.name, promise: nil) }
                    )
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withServerUpgrade: upgrade)
                    try channel.pipeline.syncOperations.addHandler(FanoutREST(hub: hub.value, apiToken: token), name: FanoutREST.name)
                }
            }
            .bind(host: host, port: port).get()
        print("listening \(host):\(server.localAddress?.port ?? port)")
        try await server.closeFuture.get()
    }
}

/// The fan-out server's whole state, owned by its one event loop.
final class FanoutHub {
    final class Room {
        let url: String
        let isOpen: Bool
        /// Group channels: the members' user ids.
        var members: [String] = []
        /// Open channels: the connections that entered.
        var participants: [ObjectIdentifier: FanoutSocket] = [:]
        var lastMsgId: Int64 = 0

        init(url: String, isOpen: Bool) {
            self.url = url
            self.isOpen = isOpen
        }
    }

    let loop: any EventLoop
    /// How long after the first frame waiting connections are written (zero: at the end of the turn).
    let coalescing: TimeAmount
    var rooms: [String: Room] = [:]
    var socketsByUser: [String: [FanoutSocket]] = [:]
    /// Connections with frames waiting for the end of this loop turn.
    var dirty: [FanoutSocket] = []
    var roomCount = 0

    init(loop: any EventLoop, coalescing: TimeAmount) {
        self.loop = loop
        self.coalescing = coalescing
    }

    func createRoom(url: String?, isOpen: Bool, members: [String]) -> String {
        roomCount += 1
        let url = url ?? "fanout_\(isOpen ? "open" : "group")_\(roomCount)"
        let room = Room(url: url, isOpen: isOpen)
        room.members = members
        rooms[url] = room
        return url
    }

    func connected(_ socket: FanoutSocket) {
        socketsByUser[socket.userId, default: []].append(socket)
        socket.queue(#"LOGI{"user_id":"\#(socket.userId)","key":"fanout","ts":\#(Self.millis())}"# + "\n")
    }

    func disconnected(_ socket: FanoutSocket) {
        socketsByUser[socket.userId]?.removeAll { $0 === socket }
        for url in socket.entered { rooms[url]?.participants[ObjectIdentifier(socket)] = nil }
    }

    func enter(_ socket: FanoutSocket, channelUrl: String, reqId: String) {
        guard let room = rooms[channelUrl], room.isOpen else {
            socket.queue(#"EROR{"req_id":"\#(reqId)","code":400201,"message":"Channel not found."}"# + "\n")
            return
        }
        room.participants[ObjectIdentifier(socket)] = socket
        socket.entered.insert(channelUrl)
        socket.queue(#"ENTR{"req_id":"\#(reqId)","channel_url":"\#(channelUrl)","participant_count":\#(room.participants.count)}"# + "\n")
    }

    /// `MESG`: the sender's copy with `req_id`, everyone else's without; one `msg_id` for all.
    func message(from sender: FanoutSocket, channelUrl: String, text: ByteBufferView, reqId: String) {
        guard let room = rooms[channelUrl] else {
            sender.queue(#"EROR{"req_id":"\#(reqId)","code":400201,"message":"Channel not found."}"# + "\n")
            return
        }
        room.lastMsgId += 1
        var tail = ByteBuffer()
        tail.writeString(
            #""msg_id":\#(room.lastMsgId),"channel_url":"\#(channelUrl)","channel_type":"\#(room.isOpen ? "open" : "group")","message":""#)
        tail.writeBytes(text)
        tail.writeString(#"","user":{"user_id":"\#(sender.userId)"},"created_at":\#(Self.millis())}"# + "\n")
        sender.queue(#"MESG{"req_id":"\#(reqId)","#, tail)
        if room.isOpen {
            for socket in room.participants.values where socket !== sender { socket.queue("MESG{", tail) }
        } else {
            for member in room.members {
                for socket in socketsByUser[member] ?? [] where socket !== sender { socket.queue("MESG{", tail) }
            }
        }
    }

    /// Called by a socket that just got its first frame since the last flush: the flush runs once,
    /// after this turn's reads (or `coalescing` later), and writes each waiting connection's frames
    /// in one WebSocket message.
    func markDirty(_ socket: FanoutSocket) {
        if dirty.isEmpty {
            if coalescing > .zero {
                loop.assumeIsolated().scheduleTask(in: coalescing) { [self] in flush() }
            } else {
                loop.assumeIsolated().execute { [self] in flush() }
            }
        }
        dirty.append(socket)
    }

    func flush() {
        let sockets = dirty
        dirty = []
        for socket in sockets { socket.flush() }
    }

    static func millis() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// The value of `name` in a request URI's query (no percent-decoding: the bench sends plain ids).
    static func queryValue(_ name: String, in uri: String) -> String? {
        guard let q = uri.firstIndex(of: "?") else { return nil }
        for pair in uri[uri.index(after: q)...].split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            if kv.count == 2, kv[0] == name { return String(kv[1]) }
        }
        return nil
    }
}

/// One WebSocket of the fan-out server.
final class FanoutSocket: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    let hub: FanoutHub
    let userId: String
    var entered: Set<String> = []
    var context: ChannelHandlerContext?
    /// Frames queued this turn (with 14 bytes of headroom for the WebSocket header).
    var pending: ByteBuffer?
    var partial: ByteBuffer?

    init(hub: FanoutHub, userId: String) {
        self.hub = hub
        self.userId = userId
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        hub.connected(self)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        hub.disconnected(self)
        self.context = nil
    }

    func queue(_ head: String, _ tail: ByteBuffer? = nil) {
        if pending == nil {
            var buffer = ByteBuffer()
            buffer.reserveCapacity(1024)
            buffer.moveWriterIndex(forwardBy: 14)
            buffer.moveReaderIndex(forwardBy: 14)
            pending = buffer
            hub.markDirty(self)
        }
        pending!.writeString(head)
        if var tail { pending!.writeBuffer(&tail) }
    }

    func flush() {
        guard let data = pending else { return }
        pending = nil
        context?.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: data)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            if frame.fin { received(frame.unmaskedData) } else { partial = frame.unmaskedData }
        case .continuation:
            guard partial != nil else { return }
            var more = frame.unmaskedData
            partial!.writeBuffer(&more)
            if frame.fin, let whole = partial {
                partial = nil
                received(whole)
            }
        case .ping:
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .connectionClose:
            context.close(promise: nil)
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// One client text message: `MESG{…}` or `ENTR{…}` lines; anything else is ignored.
    func received(_ buffer: ByteBuffer) {
        let view = buffer.readableBytesView
        var lineStart = view.startIndex
        while lineStart < view.endIndex {
            let lineEnd = view[lineStart...].firstIndex(of: 10) ?? view.endIndex
            let line = view[lineStart..<lineEnd]
            lineStart = lineEnd + 1
            guard line.count > 4 else { continue }
            let command = String(decoding: line.prefix(4), as: UTF8.self)
            let json = line.dropFirst(4)
            let channelUrl = Self.stringValue("channel_url", in: json).map { String(decoding: $0, as: UTF8.self) } ?? ""
            let reqId = Self.stringValue("req_id", in: json).map { String(decoding: $0, as: UTF8.self) } ?? ""
            switch command {
            case "MESG":
                guard let text = Self.stringValue("message", in: json) else { continue }
                hub.message(from: self, channelUrl: channelUrl, text: text, reqId: reqId)
            case "ENTR":
                hub.enter(self, channelUrl: channelUrl, reqId: reqId)
            default:
                continue
            }
        }
    }

    /// The raw (still JSON-escaped) bytes of the string value of `"key":"…"` in `json`.
    static func stringValue(_ key: String, in json: ByteBufferView.SubSequence) -> ByteBufferView? {
        let pattern = Array(#""\#(key)":""#.utf8)
        guard let at = json.firstRange(of: pattern) else { return nil }
        var i = at.upperBound
        let start = i
        while i < json.endIndex, json[i] != 34 {  // "
            i += json[i] == 92 ? 2 : 1  // a backslash escapes the next byte
        }
        return ByteBufferView(json[start..<min(i, json.endIndex)])
    }
}

/// The fan-out server's REST side: the three `POST`s a run makes, answered with the JSON the bench
/// reads. Anything else gets 404.
final class FanoutREST: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    static let name = "fanout-rest"

    let hub: FanoutHub
    let apiToken: String?
    var head: HTTPRequestHead?
    var body = ByteBuffer()

    init(hub: FanoutHub, apiToken: String?) {
        self.hub = hub
        self.apiToken = apiToken
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
            body.clear()
        case .body(var chunk):
            body.writeBuffer(&chunk)
        case .end:
            guard let head else { return }
            let (status, reply) = answer(head)
            var out = context.channel.allocator.buffer(capacity: reply.utf8.count)
            out.writeString(reply)
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
            headers.add(name: "Content-Length", value: String(out.readableBytes))
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(out))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            self.head = nil
        }
    }

    func answer(_ head: HTTPRequestHead) -> (HTTPResponseStatus, String) {
        if let apiToken, head.headers.first(name: "Api-Token") != apiToken {
            return (.unauthorized, #"{"error":true,"code":400401,"message":"Invalid API token."}"#)
        }
        let json = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any] ?? [:]
        let path = head.uri.split(separator: "?").first.map(String.init) ?? head.uri
        switch (head.method, path) {
        case (.POST, "/v3/users"):
            return (.ok, Self.encode(["user_id": json["user_id"] as? String ?? "", "nickname": json["nickname"] as? String ?? ""]))
        case (.POST, "/v3/group_channels"):
            let url = hub.createRoom(url: json["channel_url"] as? String, isOpen: false, members: json["user_ids"] as? [String] ?? [])
            return (.ok, Self.encode(["channel_url": url, "channel_type": "group"]))
        case (.POST, "/v3/open_channels"):
            let url = hub.createRoom(url: json["channel_url"] as? String, isOpen: true, members: [])
            return (.ok, Self.encode(["channel_url": url, "channel_type": "open"]))
        default:
            return (.notFound, #"{"error":true,"code":400201,"message":"fanout-server serves only what tern-bench's setup uses."}"#)
        }
    }

    static func encode(_ object: [String: String]) -> String {
        (try? JSONSerialization.data(withJSONObject: object)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
