import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A TCP proxy on 127.0.0.1 between a client and a server, with faults a test switches on and off
/// while traffic flows: `drop` (close every connection and refuse new ones), `stall` (hold every
/// byte both ways, delivered in order on `heal`), `reset` (close with RST), `delay` (latency on
/// every chunk, order kept), `holdReplies` (hold the server's replies only, a one-way partition).
/// Each accepted connection is piped to `target` on a new connection.
public final class FaultProxy: Sendable {
    public let targetHost: String
    /// Where new connections go (``retarget(port:)`` moves it: a server started again elsewhere).
    public var targetPort: Int { state.withLock { $0.targetPort } }
    /// Its own thread, so the proxy never waits behind the servers and clients it sits between.
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let state: Mutex<State>
    let serverChannel = Mutex<(any Channel)?>(nil)

    struct State {
        var targetPort: Int
        var dropping = false
        var stalled = false
        var repliesHeld = false
        var delayMs: Int64 = 0
        var pipes: [ObjectIdentifier: Pipe] = [:]
        /// Connections accepted so far (tests check the clients really went through the proxy).
        var accepted = 0
        /// Bytes read and not yet passed on (a stall, or a connection still reaching the target).
        var held = 0
        /// Armed by ``cutAfter(_:then:)`` or ``stallAfter(_:then:)``: the bytes that mark the
        /// connection, the bytes after which the link is cut (or stalled), and which.
        var trap: (mark: [UInt8], then: [UInt8], stall: Bool)?
        /// The connection the mark was seen on.
        var marked: ObjectIdentifier?
        /// Cuts made by the trap.
        var cuts = 0
    }

    public init(targetHost: String = "127.0.0.1", targetPort: Int) {
        self.targetHost = targetHost
        state = Mutex(State(targetPort: targetPort))
    }

    /// New connections go to `port` from now on (a server started again on another port, with the
    /// same data: clients keep their address, and no test waits for a port to come free).
    public func retarget(port: Int) {
        state.withLock { $0.targetPort = port }
    }

    /// Listens on a free loopback port and returns it.
    public func start() async throws -> Int {
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.autoRead, value: false)
            .childChannelInitializer { [self] inbound in
                inbound.eventLoop.makeCompletedFuture { self.accept(inbound) }
            }
        let channel = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        serverChannel.withLock { $0 = channel }
        return channel.localAddress?.port ?? 0
    }

    public var acceptedConnections: Int { state.withLock { $0.accepted } }
    public var openConnections: Int { state.withLock { $0.pipes.count } }
    /// Bytes the proxy holds now, either way: a test waits for this to know a stall caught what was sent
    /// (instead of waiting some time and hoping).
    public var heldBytes: Int { state.withLock { $0.held } }

    /// Closes every connection and refuses new ones until ``heal()``.
    public func drop() {
        let pipes = state.withLock { s -> [Pipe] in
            s.dropping = true
            return Array(s.pipes.values)
        }
        for p in pipes { p.close(reset: false) }
    }

    /// Holds every byte, both ways, until ``heal()`` (then they go, in order).
    public func stall() {
        state.withLock { $0.stalled = true }
    }

    /// One direction only: the server's replies are held until ``heal()`` (then they go, in order),
    /// while the client's bytes still reach the server — a one-way partition, which TCP rides out
    /// by retransmitting: the database runs (and commits) what a node sends, the node hears nothing.
    public func holdReplies() {
        state.withLock { $0.repliesHeld = true }
    }

    /// Closes every current connection with a TCP reset (new ones are accepted).
    public func reset() {
        let pipes = state.withLock { Array($0.pipes.values) }
        for p in pipes { p.close(reset: true) }
    }

    /// Adds `ms` of latency to every chunk from now on (0: none).
    public func delay(_ ms: Int64) {
        state.withLock { $0.delayMs = max(0, ms) }
    }

    /// Arms a cut at a precise point of a conversation: once a client sends `mark` on a connection,
    /// and then `then` on the same connection (in the same chunk or a later one), that chunk still
    /// reaches the server, and the link is cut right after it — every connection closed, new ones
    /// refused until ``heal()``; the server's answer never reaches the client. (A node's `COMMIT` of
    /// one message's transaction: the database commits it, the node never hears so.)
    public func cutAfter(_ mark: String, then: String) {
        state.withLock {
            $0.trap = (Array(mark.utf8), Array(then.utf8), false)
            $0.marked = nil
        }
    }

    /// The same trap, but the link stalls instead (as ``stall()``) right after the chunk: the server
    /// has it, and the client's connections then hang — a node frozen mid-transaction, holding
    /// whatever locks it took.
    public func stallAfter(_ mark: String, then: String) {
        state.withLock {
            $0.trap = (Array(mark.utf8), Array(then.utf8), true)
            $0.marked = nil
        }
    }

    /// How many cuts the armed trap made.
    public var cuts: Int { state.withLock { $0.cuts } }

    /// What `bytes` trip on `pipe`: nil, or whether the link is to be cut (false) or stalled (true) after them.
    func trips(_ bytes: ByteBuffer, on pipe: ObjectIdentifier) -> Bool? {
        state.withLock { s in
            guard let trap = s.trap else { return nil }
            let view = bytes.readableBytesView
            if s.marked == nil, view.firstRange(of: trap.mark) != nil { s.marked = pipe }
            guard s.marked == pipe else { return nil }
            // The closing bytes after the mark (the mark's own chunk may hold both, in order).
            let from = view.firstRange(of: trap.mark)?.upperBound ?? view.startIndex
            guard view[from...].firstRange(of: trap.then) != nil else { return nil }
            s.trap = nil
            s.marked = nil
            s.cuts += 1
            if trap.stall { s.stalled = true } else { s.dropping = true }
            return trap.stall
        }
    }

    /// Back to normal: accepts again, delivers what a stall held, no delay.
    public func heal() {
        let pipes = state.withLock { s -> [Pipe] in
            s.dropping = false
            s.stalled = false
            s.repliesHeld = false
            s.delayMs = 0
            return Array(s.pipes.values)
        }
        for p in pipes { p.release() }
    }

    /// Closes everything and stops listening.
    public func stop() async {
        drop()
        let channel = serverChannel.withLock { c -> (any Channel)? in
            defer { c = nil }
            return c
        }
        try? await channel?.close()
        try? await group.shutdownGracefully()
    }

    // MARK: - Plumbing

    var faults: (stalled: Bool, repliesHeld: Bool, delayMs: Int64) { state.withLock { ($0.stalled, $0.repliesHeld, $0.delayMs) } }

    func accept(_ inbound: any Channel) {
        let refuse = state.withLock { s -> Bool in
            s.accepted += 1
            return s.dropping
        }
        if refuse {
            inbound.close(promise: nil)
            return
        }
        let pipe = Pipe(proxy: self, inbound: inbound)
        state.withLock { $0.pipes[ObjectIdentifier(pipe)] = pipe }
        try? inbound.pipeline.syncOperations.addHandler(Forwarder(pipe: pipe, inbound: true))
        ClientBootstrap(group: inbound.eventLoop)
            .channelOption(ChannelOptions.autoRead, value: false)
            .channelInitializer { outbound in
                outbound.eventLoop.makeCompletedFuture {
                    try outbound.pipeline.syncOperations.addHandler(Forwarder(pipe: pipe, inbound: false))
                }
            }
            .connect(host: targetHost, port: targetPort)
            .whenComplete { result in
                switch result {
                case .success(let outbound):
                    pipe.connected(outbound)
                case .failure:
                    pipe.close(reset: false)
                }
            }
    }

    func holding(_ bytes: Int) {
        state.withLock { $0.held += bytes }
    }

    func forget(_ pipe: Pipe) {
        _ = state.withLock { $0.pipes.removeValue(forKey: ObjectIdentifier(pipe)) }
    }
}

/// One proxied connection: the client's side and the server's side, all on one event loop.
final class Pipe: @unchecked Sendable {
    let proxy: FaultProxy
    let inbound: any Channel
    let loop: any EventLoop
    // Only touched on `loop`.
    var outbound: (any Channel)?
    var held: [(toServer: Bool, bytes: ByteBuffer)] = []
    var lastDeadline = NIODeadline.uptimeNanoseconds(0)
    var closed = false

    init(proxy: FaultProxy, inbound: any Channel) {
        self.proxy = proxy
        self.inbound = inbound
        self.loop = inbound.eventLoop
    }

    func connected(_ channel: any Channel) {
        loop.execute {
            // Connecting to a port nobody listens on can connect a socket to itself (TCP simultaneous
            // open on the same port), which would keep the server from binding it again: drop it.
            guard !self.closed, channel.localAddress?.port != self.proxy.targetPort else {
                channel.close(promise: nil)
                self.close(reset: false)
                return
            }
            guard !self.closed else {
                channel.close(promise: nil)
                return
            }
            self.outbound = channel
            self.inbound.read()
            channel.read()
            self.flushHeld()
        }
    }

    /// Bytes read on one side, for the other.
    func forward(_ bytes: ByteBuffer, toServer: Bool) {
        loop.preconditionInEventLoop()
        if toServer, let stall = proxy.trips(bytes, on: ObjectIdentifier(self)) {
            if stall {
                // This chunk reaches the server; then every byte, both ways, is held until `heal()`.
                if let outbound, held.isEmpty {
                    outbound.writeAndFlush(bytes, promise: nil)
                } else {
                    held.append((true, bytes))
                    proxy.holding(bytes.readableBytes)
                }
            } else if let outbound {
                // This chunk reaches the server; then the link goes, both ways, on every connection.
                outbound.writeAndFlush(bytes).whenComplete { _ in self.proxy.drop() }
            } else {
                proxy.drop()
            }
            return
        }
        let (stalled, repliesHeld, delay) = proxy.faults
        // Each direction keeps its own order: a chunk waits behind what waits in its direction.
        if stalled || outbound == nil || (repliesHeld && !toServer) || held.contains(where: { $0.toServer == toServer }) {
            held.append((toServer, bytes))
            proxy.holding(bytes.readableBytes)
            if !stalled { flushHeld() }
            return
        }
        send(bytes, toServer: toServer, delayMs: delay)
    }

    func send(_ bytes: ByteBuffer, toServer: Bool, delayMs: Int64) {
        guard let target = toServer ? outbound : inbound else { return }
        if delayMs <= 0 && lastDeadline <= .now() {
            target.writeAndFlush(bytes, promise: nil)
            return
        }
        // Later than the chunk before, so the order holds.
        var deadline = NIODeadline.now() + .milliseconds(delayMs)
        if deadline <= lastDeadline { deadline = lastDeadline + .nanoseconds(1) }
        lastDeadline = deadline
        loop.scheduleTask(deadline: deadline) { target.writeAndFlush(bytes, promise: nil) }
    }

    func flushHeld() {
        let (stalled, repliesHeld, delay) = proxy.faults
        guard outbound != nil, !stalled else { return }
        // Replies still held stay, in order; everything else goes.
        let queued = held.filter { $0.toServer || !repliesHeld }
        held = held.filter { !$0.toServer && repliesHeld }
        proxy.holding(-queued.reduce(0) { $0 + $1.bytes.readableBytes })
        for (toServer, bytes) in queued { send(bytes, toServer: toServer, delayMs: delay) }
    }

    /// A stall ended.
    func release() {
        loop.execute { self.flushHeld() }
    }

    func close(reset: Bool) {
        loop.execute {
            guard !self.closed else { return }
            self.closed = true
            self.proxy.holding(-self.held.reduce(0) { $0 + $1.bytes.readableBytes })
            self.held = []
            self.proxy.forget(self)
            for c in [self.inbound, self.outbound].compactMap({ $0 }) {
                if reset {
                    // SO_LINGER 0: close sends RST instead of FIN.
                    _ = (c as? any SocketOptionProvider)?.setSoLinger(linger(l_onoff: 1, l_linger: 0))
                }
                c.close(promise: nil)
            }
        }
    }
}

/// Reads one side and hands the bytes to its pipe; a close on either side closes both.
final class Forwarder: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    let pipe: Pipe
    let inbound: Bool

    init(pipe: Pipe, inbound: Bool) {
        self.pipe = pipe
        self.inbound = inbound
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        pipe.forward(unwrapInboundIn(data), toServer: inbound)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.read()
    }

    func channelInactive(context: ChannelHandlerContext) {
        pipe.close(reset: false)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        pipe.close(reset: false)
    }
}
