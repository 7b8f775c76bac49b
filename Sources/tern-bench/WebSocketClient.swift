import Foundation
import NIOCore
import NIOPosix

/// Where the server's WebSocket endpoint is: `ws://HOST:PORT/?ai=APP&user_id=U`.
struct WebSocketTarget: Sendable {
    let host: String
    let port: Int
    let appId: String

    func uri(userId: String) -> String { "/?ai=\(appId)&user_id=\(userId)" }
}

/// A client WebSocket as one NIO channel handler over the socket's own bytes: it writes the
/// HTTP/1.1 upgrade request (no subprotocol, no extension offered), reads the `101`, then scans
/// RFC 6455 frame headers in place in each buffer read from the socket. No HTTP codec, no frame
/// decoder, no `WebSocketFrame` or `NIOAny` per frame and no copy, except for a frame split across
/// two reads and for fragmented messages. At ~100k deliveries a second, each usually alone in its
/// read, the NIO codecs' per-read work cost the bench more than its own scanning and recording.
///
/// Subclasses get each complete text message (its fragments joined) in ``receivedText(_:)``, on
/// the channel's event loop, and every way the connection ends in ``failed(_:)``. Pings are
/// answered here; a close frame, a protocol error or a refused upgrade closes the connection.
/// The server is the one being measured, so its `Sec-WebSocket-Accept` is not checked.
class WebSocketClient: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Largest frame accepted from the server.
    static let maxFrameSize = 1 << 20
    /// Longest upgrade response accepted.
    static let maxResponseHead = 16 * 1024

    /// Connects on `loop` with `makeHandler()`'s handler alone on the pipeline. The returned future
    /// completes with the channel once TCP is up; the handler reports the rest itself.
    /// `readBufferSize`: every socket read gets a buffer this large (nil: NIO's adaptive one, which
    /// suits idle connections); `readsPerEvent` such buffers are filled before the loop moves on.
    static func connect(
        on loop: any EventLoop, target: WebSocketTarget, readBufferSize: Int? = nil, readsPerEvent: UInt = 4,
        makeHandler: @escaping @Sendable () -> WebSocketClient
    ) -> EventLoopFuture<any Channel> {
        var bootstrap = ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelOption(.maxMessagesPerRead, value: readsPerEvent)
        if let readBufferSize {
            bootstrap = bootstrap.channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: readBufferSize))
        }
        return
            bootstrap
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(makeHandler()) }
            }
            .connect(host: target.host, port: target.port)
    }

    /// The upgrade request, written when the connection is up.
    let request: String
    var context: ChannelHandlerContext?
    /// Whether the server's `101` has been read: until then bytes are the HTTP response.
    var upgraded = false
    /// Whether this side closed (or is closing) the connection: nothing more is read.
    var closing = false
    /// The bytes of an incomplete frame (or upgrade response) at the end of a read, kept for the next.
    var carry: ByteBuffer?
    /// A text message whose later fragments (continuation frames) have not all arrived.
    var partial: ByteBuffer?

    init(target: WebSocketTarget, userId: String) {
        var key = [UInt8](repeating: 0, count: 16)
        for i in key.indices { key[i] = .random(in: .min ... .max) }
        request =
            "GET \(target.uri(userId: userId)) HTTP/1.1\r\nHost: \(target.host):\(target.port)\r\n"
            + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(Data(key).base64EncodedString())\r\n"
            + "Sec-WebSocket-Version: 13\r\nContent-Length: 0\r\n\r\n"
    }

    // MARK: What subclasses handle

    /// One complete text message; the bytes are valid only during the call.
    func receivedText(_ text: UnsafeRawBufferPointer) {}

    /// The connection failed or ended: refused upgrade, protocol error, the server's close frame,
    /// an I/O error, or the socket closing (also after ``close()``; may come more than once).
    func failed(_ why: String) {}

    // MARK: Channel events

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: request)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        guard !closing else { return }
        if !upgraded {
            if var held = carry.take() {
                held.writeBuffer(&buffer)
                buffer = held
            }
            guard readUpgradeResponse(&buffer) else { return }
        } else if carry != nil {
            guard completeCarriedFrame(from: &buffer) else { return }
        }
        buffer.withUnsafeReadableBytes { bytes in
            let used = frames(bytes)
            // A frame cut by the end of the read: its bytes go to a buffer of ours, so the socket's
            // read buffer is free for NIO to reuse.
            if used < bytes.count && !closing { keep(UnsafeRawBufferPointer(rebasing: bytes[used...])) }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) { context.fireChannelReadComplete() }

    func channelInactive(context: ChannelHandlerContext) {
        failed("connection closed")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        failed("\(error)")
        close()
    }

    /// Closes the connection (without a close frame: the run is over or has failed).
    final func close() {
        closing = true
        context?.close(promise: nil)
    }

    // MARK: Reading

    /// Consumes the upgrade response at the front of `buffer`: true once a `101` was read (the
    /// frames after it stay in `buffer`); false while incomplete (kept for the next read) or when
    /// the upgrade was refused (the connection is closed).
    final func readUpgradeResponse(_ buffer: inout ByteBuffer) -> Bool {
        let view = buffer.readableBytesView
        guard let end = view.firstRange(of: [13, 10, 13, 10]) else {
            if view.count > Self.maxResponseHead {
                refuse("no end of the upgrade response in \(view.count) bytes")
            } else {
                buffer.withUnsafeReadableBytes { keep($0) }
            }
            return false
        }
        let head = String(decoding: view[..<end.lowerBound], as: UTF8.self)
        let status = head.prefix { $0 != "\r" }.split(separator: " ", maxSplits: 2)
        guard status.count >= 2, status[0].hasPrefix("HTTP/1."), status[1] == "101" else {
            refuse("WebSocket upgrade refused: \(head.prefix { $0 != "\r" })")
            return false
        }
        buffer.moveReaderIndex(to: end.upperBound)
        upgraded = true
        return true
    }

    /// Completes the frame cut by the end of the last read with just the bytes it lacks from the
    /// front of `buffer`, and handles it; the rest of `buffer` is then scanned in place (copying a
    /// whole read behind a cut frame cost more than the scanning). False when `buffer` did not
    /// complete it (all of it is kept) or the connection is closing.
    final func completeCarriedFrame(from buffer: inout ByteBuffer) -> Bool {
        guard var held = carry.take() else { return true }
        while true {
            // Its header first (its length says how long it is), then the rest of it.
            let extent = held.withUnsafeReadableBytes(Self.frameExtent)
            if held.readableBytes >= extent || extent > Self.maxFrameSize + 10 { break }
            let lacking = extent - held.readableBytes
            guard lacking <= buffer.readableBytes else {
                held.writeBuffer(&buffer)
                carry = held
                return false
            }
            held.writeImmutableBuffer(buffer.readSlice(length: lacking)!)
        }
        _ = held.withUnsafeReadableBytes { frames($0) }
        return !closing
    }

    /// How many bytes the frame at the front of `bytes` takes (header and payload, past the
    /// largest accepted when it is larger) or, while its header is incomplete, how many the header
    /// needs to tell.
    static func frameExtent(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard bytes.count >= 2 else { return 2 }
        switch bytes[1] & 0x7F {
        case 126:
            guard bytes.count >= 4 else { return 4 }
            return 4 + (Int(bytes[2]) << 8 | Int(bytes[3]))
        case 127:
            guard bytes.count >= 10 else { return 10 }
            var long: UInt64 = 0
            for i in 2..<10 { long = long << 8 | UInt64(bytes[i]) }
            return 10 + Int(min(long, UInt64(maxFrameSize) + 1))
        case let short:
            return 2 + Int(short)
        }
    }

    /// Handles every whole frame at the front of `bytes`; returns how many bytes they took.
    final func frames(_ bytes: UnsafeRawBufferPointer) -> Int {
        var at = 0
        while !closing && bytes.count - at >= 2 {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[at...])
            let b0 = rest[0]
            let b1 = rest[1]
            guard b0 & 0x70 == 0, b1 & 0x80 == 0 else {
                refuse("protocol error: a server frame with reserved bits or a mask (header \(b0), \(b1))")
                break
            }
            let extent = Self.frameExtent(rest)
            let header =
                switch b1 & 0x7F {
                case 126: 4
                case 127: 10
                default: 2
                }
            guard extent - header <= Self.maxFrameSize else {
                refuse("protocol error: a server frame over \(Self.maxFrameSize) bytes")
                break
            }
            guard extent <= rest.count else { break }
            at += extent
            frame(fin: b0 & 0x80 != 0, opcode: b0 & 0x0F, UnsafeRawBufferPointer(rebasing: rest[header..<extent]))
        }
        return at
    }

    /// One whole frame from the server.
    final func frame(fin: Bool, opcode: UInt8, _ payload: UnsafeRawBufferPointer) {
        switch opcode {
        case 0x1:  // text
            if fin {
                receivedText(payload)
            } else {
                var first = ByteBuffer()
                first.writeBytes(payload)
                partial = first
            }
        case 0x0:  // continuation (of a binary message when there is no partial text: skipped)
            guard partial != nil else { return }
            partial!.writeBytes(payload)
            if fin, let whole = partial.take() { whole.withUnsafeReadableBytes { receivedText($0) } }
        case 0x8:  // close
            refuse("the server closed the WebSocket")
        case 0x9:  // ping
            write(opcode: 0xA, payload)
        default:  // binary, pong
            break
        }
    }

    /// Keeps `bytes` for the next read.
    final func keep(_ bytes: UnsafeRawBufferPointer) {
        var held = ByteBuffer()
        held.reserveCapacity(max(bytes.count, 4096))
        held.writeBytes(bytes)
        carry = held
    }

    /// Reports `why` and closes the connection.
    final func refuse(_ why: String) {
        failed(why)
        close()
    }

    // MARK: Writing

    /// Writes one text message in one frame and flushes it.
    final func write(text: String) {
        var text = text
        text.withUTF8 { write(opcode: 0x1, UnsafeRawBufferPointer($0)) }
    }

    /// Writes one final frame, masked with a fresh key (as RFC 6455 requires of a client), and flushes it.
    final func write(opcode: UInt8, _ payload: UnsafeRawBufferPointer) {
        guard let context, !closing else { return }
        var out = context.channel.allocator.buffer(capacity: 14 + payload.count)
        out.writeInteger(0x80 | opcode)
        if payload.count < 126 {
            out.writeInteger(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            out.writeInteger(UInt8(0x80 | 126))
            out.writeInteger(UInt16(payload.count))
        } else {
            out.writeInteger(UInt8(0x80 | 127))
            out.writeInteger(UInt64(payload.count))
        }
        let key = UInt32.random(in: .min ... .max)
        out.writeInteger(key)
        out.writeWithUnsafeMutableBytes(minimumWritableBytes: payload.count) { masked in
            for i in 0..<payload.count {
                // The key's bytes in the order written (big-endian): byte i is masked with key byte i % 4.
                masked[i] = payload[i] ^ UInt8(truncatingIfNeeded: key >> (24 - 8 * UInt32(i & 3)))
            }
            return payload.count
        }
        context.writeAndFlush(wrapOutboundOut(out), promise: nil)
    }
}
