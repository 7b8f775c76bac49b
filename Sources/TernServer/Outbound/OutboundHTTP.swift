import Foundation
public import NIOCore
public import NIOHTTP1
public import NIOPosix
import NIOSSL
public import Synchronization

/// A small HTTP/1.1 client for requests the server makes on its users' behalf (link previews),
/// where every limit is the server's own:
///
/// - **Addresses.** Each hop's host is resolved once; every address it resolves to must pass
///   ``Policy`` (see ``PrivateAddresses``), and the connection goes to that checked address — no
///   second lookup that DNS rebinding could answer differently. TLS still verifies the name.
/// - **Redirects** are followed by hand, at most ``Limits/maxRedirects``, each hop checked as the
///   first, to http(s) only.
/// - **Bytes.** At most ``Limits/maxBody`` bytes of body are kept; when a response goes past it,
///   the connection is closed. Everything read from the socket (headers, TLS) is capped too
///   (``Limits/maxRaw``), so a peer cannot make it hold more.
/// - **Time.** One deadline for the whole fetch — resolution, connection, every hop and every
///   byte — not an idle timer that a page dripping a byte a second keeps alive.
public enum OutboundHTTP {
    /// Which addresses a fetch may reach.
    public struct Policy: Sendable {
        /// Reach private addresses and this machine too (`--link-previews-private-hosts`).
        public var allowPrivate = false
        /// `IP:port` endpoints reachable although private (tests stand a "public" page on
        /// loopback this way; a redirect to any other private endpoint is still refused).
        public var exceptions: Set<String> = []
        public init(allowPrivate: Bool = false, exceptions: Set<String> = []) {
            self.allowPrivate = allowPrivate
            self.exceptions = exceptions
        }

        func allows(_ address: SocketAddress) -> Bool {
            if allowPrivate { return true }
            guard let ip = address.ipAddress, let port = address.port else { return false }
            let key = ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
            if exceptions.contains(key) { return true }
            return !PrivateAddresses.isPrivate(ip: ip)
        }
    }

    /// How much a fetch may take.
    public struct Limits: Sendable {
        public var maxBody = 1 << 20
        /// Bytes read from the socket past ``maxBody`` (headers, TLS records, chunk framing).
        public var rawAllowance = 256 * 1024
        public var maxRedirects = 5
        /// The whole fetch, every hop included.
        public var timeout: TimeAmount = .seconds(5)
        public var maxRaw: Int { maxBody + rawAllowance }
        public init(maxBody: Int = 1 << 20, maxRedirects: Int = 5, timeout: TimeAmount = .seconds(5)) {
            self.maxBody = maxBody
            self.maxRedirects = maxRedirects
            self.timeout = timeout
        }
    }

    /// A final response (never a redirect).
    public struct Response: Sendable {
        public var status: Int
        public var headers: HTTPHeaders
        /// At most ``Limits/maxBody`` bytes.
        public var body: ByteBuffer
        /// The body went past ``Limits/maxBody`` and the connection was closed there.
        public var truncated: Bool
        /// Bytes read from sockets over every hop.
        public var bytesRead: Int
        public var url: String
    }

    public enum FetchError: Error, Equatable, CustomStringConvertible {
        case badURL(String)
        case refusedAddress(String)
        case unresolved(String)
        case tooManyRedirects
        case deadline
        case closed

        public var description: String {
            switch self {
            case .badURL(let u): "not an http(s) URL: \(u)"
            case .refusedAddress(let a): "refused: \(a) is on this machine or a private network"
            case .unresolved(let h): "cannot resolve \(h)"
            case .tooManyRedirects: "too many redirects"
            case .deadline: "the deadline passed"
            case .closed: "the connection closed before a response"
            }
        }
    }

    /// Bytes read from sockets by every fetch of this process (tests assert on it).
    public static let totalBytesRead = Atomic<Int>(0)

    static let tls: NIOSSLContext? = try? NIOSSLContext(configuration: .makeClientConfiguration())

    /// GETs `url`, following redirects within the policy and limits.
    /// - Throws: ``FetchError``, or a connection or TLS error.
    public static func get(
        _ url: String, policy: Policy, limits: Limits = Limits(), headers: [(String, String)] = [],
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> Response {
        let deadline = NIODeadline.now() + limits.timeout
        var current = url
        var bytesRead = 0
        for _ in 0...limits.maxRedirects {
            let target = try Target(current)
            let address = try await resolve(target, policy: policy, deadline: deadline, loop: group.next())
            var response = try await exchange(target, address: address, headers: headers, limits: limits, deadline: deadline, group: group)
            bytesRead += response.bytesRead
            response.bytesRead = bytesRead
            if [301, 302, 303, 307, 308].contains(response.status), let location = response.headers.first(name: "Location") {
                guard let next = URL(string: location, relativeTo: URL(string: current))?.absoluteURL.absoluteString else {
                    throw FetchError.badURL(location)
                }
                current = next
                continue
            }
            return response
        }
        throw FetchError.tooManyRedirects
    }

    /// One hop's URL, taken apart.
    struct Target {
        var tls: Bool
        var host: String
        var port: Int
        var pathAndQuery: String
        var hostHeader: String

        init(_ url: String) throws {
            guard let c = URLComponents(string: url), let scheme = c.scheme?.lowercased(), scheme == "http" || scheme == "https",
                var host = c.host, !host.isEmpty
            else { throw FetchError.badURL(url) }
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            tls = scheme == "https"
            self.host = host
            port = c.port ?? (tls ? 443 : 80)
            guard (1...65535).contains(port) else { throw FetchError.badURL(url) }
            let path = c.percentEncodedPath.isEmpty ? "/" : c.percentEncodedPath
            pathAndQuery = path + (c.percentEncodedQuery.map { "?" + $0 } ?? "")
            let shown = host.contains(":") ? "[\(host)]" : host
            hostHeader = c.port == nil ? shown : "\(shown):\(port)"
        }
    }

    /// Resolves the host once and checks every address it gives; returns the first.
    static func resolve(_ t: Target, policy: Policy, deadline: NIODeadline, loop: any EventLoop) async throws -> SocketAddress {
        let host = t.host
        let port = t.port
        let lookup = NIOThreadPool.singleton.runIfActive(eventLoop: loop) { try addresses(host, port: port) }
        let found = try await withDeadline(lookup, deadline: deadline, loop: loop)
        guard let first = found.first else { throw FetchError.unresolved(host) }
        for a in found where !policy.allows(a) { throw FetchError.refusedAddress(a.ipAddress ?? host) }
        return first
    }

    /// Every address `host` resolves to (TCP), as NIO socket addresses.
    static func addresses(_ host: String, port: Int) throws -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { throw FetchError.unresolved(host) }
        defer { freeaddrinfo(list) }
        var out: [SocketAddress] = []
        var p: UnsafeMutablePointer<addrinfo>? = first
        while let a = p {
            if let sa = a.pointee.ai_addr {
                if a.pointee.ai_family == AF_INET {
                    out.append(SocketAddress(sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }, host: host))
                } else if a.pointee.ai_family == AF_INET6 {
                    out.append(SocketAddress(sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee }, host: host))
                }
            }
            p = a.pointee.ai_next
        }
        return out
    }

    /// `future`'s value, or ``FetchError/deadline`` once the deadline passes (the work itself is
    /// not waited for).
    static func withDeadline<T: Sendable>(_ future: EventLoopFuture<T>, deadline: NIODeadline, loop: any EventLoop) async throws -> T {
        let promise = loop.makePromise(of: T.self)
        let once = Mutex(false)
        @Sendable func complete(_ r: Result<T, any Error>) {
            guard
                once.withLock({ done in
                    defer { done = true }
                    return !done
                })
            else { return }
            promise.completeWith(r)
        }
        let timer = loop.scheduleTask(deadline: deadline) { complete(.failure(FetchError.deadline)) }
        future.whenComplete { r in
            timer.cancel()
            complete(r)
        }
        return try await promise.futureResult.get()
    }

    /// One request and its response on a new connection to `address`.
    static func exchange(
        _ t: Target, address: SocketAddress, headers extra: [(String, String)], limits: Limits, deadline: NIODeadline,
        group: any EventLoopGroup
    ) async throws -> Response {
        // Past the deadline (a slow earlier hop) nothing starts; the promise is made only after
        // this, so every promise made is completed (NIO traps on one that is dropped).
        let remaining = deadline - .now()
        guard remaining > .zero else { throw FetchError.deadline }
        let loop = group.next()
        let promise = loop.makePromise(of: Response.self)
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: t.pathAndQuery)
        head.headers.add(name: "Host", value: t.hostHeader)
        head.headers.add(name: "Connection", value: "close")
        head.headers.add(name: "Accept-Encoding", value: "identity")
        for (k, v) in extra { head.headers.add(name: k, value: v) }
        let url = (t.tls ? "https://" : "http://") + t.hostHeader + t.pathAndQuery
        let requestHead = head
        let serverName = PrivateAddresses.parse(t.host) == nil ? t.host : nil
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(remaining)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture(withResultOf: {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(RawByteLimiter(limit: limits.maxRaw))
                    if t.tls {
                        guard let tls = Self.tls else { throw FetchError.closed }
                        try sync.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: serverName))
                    }
                    try sync.addHTTPClientHandlers()
                    try sync.addHandler(ResponseReader(head: requestHead, url: url, maxBody: limits.maxBody, promise: promise))
                })
            }
        let connect = bootstrap.connect(to: address)
        // The deadline closes the connection wherever it is: connecting, waiting, or reading.
        let timer = loop.scheduleTask(deadline: deadline) {
            promise.fail(FetchError.deadline)
            connect.whenSuccess { $0.close(promise: nil) }
        }
        connect.whenFailure { promise.fail($0) }
        promise.futureResult.whenComplete { _ in
            timer.cancel()
            connect.whenSuccess { $0.close(promise: nil) }
        }
        return try await promise.futureResult.get()
    }
}

/// Counts the bytes read from the socket and closes the connection once they pass a limit.
final class RawByteLimiter: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    let limit: Int
    var count = 0

    init(limit: Int) { self.limit = limit }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let n = unwrapInboundIn(data).readableBytes
        count += n
        OutboundHTTP.totalBytesRead.add(n, ordering: .relaxed)
        context.fireChannelRead(data)
        if count > limit { context.close(promise: nil) }
    }

}

/// Sends the request, keeps at most `maxBody` bytes of the response body, and completes the
/// promise at the end of the response, when the body passes the limit (closing the connection),
/// or at a redirect's head (its body is not read).
final class ResponseReader: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    let head: HTTPRequestHead
    let url: String
    let maxBody: Int
    let promise: EventLoopPromise<OutboundHTTP.Response>
    var response: HTTPResponseHead?
    var body = ByteBuffer()
    var done = false

    init(head: HTTPRequestHead, url: String, maxBody: Int, promise: EventLoopPromise<OutboundHTTP.Response>) {
        self.head = head
        self.url = url
        self.maxBody = maxBody
        self.promise = promise
    }

    func channelActive(context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func rawBytes(_ context: ChannelHandlerContext) -> Int {
        (try? context.pipeline.syncOperations.handler(type: RawByteLimiter.self).count) ?? 0
    }

    func finish(_ context: ChannelHandlerContext, truncated: Bool) {
        guard !done, let r = response else { return }
        done = true
        promise.succeed(
            OutboundHTTP.Response(
                status: Int(r.status.code), headers: r.headers, body: body, truncated: truncated, bytesRead: rawBytes(context), url: url))
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return }
        switch unwrapInboundIn(data) {
        case .head(let h):
            // 1xx heads are informational: the decoder passes the final one on.
            response = h
            if (300..<400).contains(Int(h.status.code)) { finish(context, truncated: false) }
        case .body(var chunk):
            let room = maxBody - body.readableBytes
            if chunk.readableBytes > room {
                if let part = chunk.readSlice(length: max(0, room)) { body.writeImmutableBuffer(part) }
                finish(context, truncated: true)
            } else {
                body.writeBuffer(&chunk)
            }
        case .end:
            finish(context, truncated: false)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !done {
            done = true
            promise.fail(OutboundHTTP.FetchError.closed)
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !done {
            done = true
            promise.fail(error)
        }
        context.close(promise: nil)
    }
}
