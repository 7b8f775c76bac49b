import NIOCore
import Synchronization

/// One channel member's WebSocket as the coordinator holds it. Its ``MemberHandler`` lives on the
/// channel's event loop; the coordinator reaches it only through that loop.
struct MemberConnection: Sendable {
    let member: Int
    let channel: any Channel

    /// Connects, logs in and (open channels) enters. The future completes when the member is
    /// ready to send and receive: after `LOGI`, or after the `ENTR` acknowledgement.
    static func open(member: Int, userId: String, target: WebSocketTarget, run: RunState, on loop: any EventLoop)
        -> EventLoopFuture<MemberConnection>
    {
        let ready = loop.makePromise(of: Void.self)
        let connected = WebSocketClient.connect(
            on: loop, target: target, readBufferSize: MemberHandler.readBufferSize, readsPerEvent: MemberHandler.readsPerEvent,
            makeHandler: { MemberHandler(member: member, run: run, ready: ready, target: target, userId: userId) })
        connected.whenFailure { ready.fail($0) }
        connected.whenSuccess { channel in
            channel.closeFuture.whenComplete { _ in ready.fail(BenchError(description: "closed before it was ready")) }
        }
        return connected.and(ready.futureResult).map { channel, _ in MemberConnection(member: member, channel: channel) }
    }

    /// Starts the schedule (`start`: absolute `Mono.now()` ns); a sender arms its first timer.
    func begin(start: UInt64) {
        let channel = channel
        channel.eventLoop.execute {
            try? channel.pipeline.syncOperations.handler(type: MemberHandler.self).begin(start: start)
        }
    }

    /// Stops recording and sending, hands back what the member saw, and closes the socket.
    func finish() -> EventLoopFuture<ReceiverLog> {
        let channel = channel
        return channel.eventLoop.submit {
            let log = try channel.pipeline.syncOperations.handler(type: MemberHandler.self).finish()
            channel.close(promise: nil)
            return log
        }
    }
}

/// The receive and send side of one member, on its channel's event loop. Every text message is
/// scanned where it is read, into this member's own ``ReceiverRecorder`` (no lock, no task); the
/// run-wide counters get one atomic add per socket read. A sender writes each message from a timer
/// on the same loop when it falls due.
final class MemberHandler: WebSocketClient {
    /// Each socket read gets a buffer this large, and up to `readsPerEvent` of them are filled per
    /// readiness: a read takes whatever is waiting (a burst of a few hundred deliveries) at once.
    static let readBufferSize = 16 * 1024
    static let readsPerEvent: UInt = 16

    enum Phase {
        /// Waiting for `LOGI`.
        case loggingIn
        /// Open channels: `ENTR` sent, waiting for its acknowledgement.
        case entering
        /// Logged in (and entered): recording.
        case ready
        /// The coordinator took the log: nothing more is recorded or sent, and a close is expected.
        case finished
    }

    let member: Int
    let run: RunState
    let schedule: Schedule
    let ready: EventLoopPromise<Void>
    @exclusivity(unchecked) var phase = Phase.loggingIn
    let recorder: ReceiverRecorder

    // Sending (the first `schedule.senders` members only).
    let sendCount: Int
    var nextSeq = 0
    var timer: Scheduled<Void>?
    /// `MESG{"channel_url":"…","message":"` — every frame this member sends starts with it.
    let framePrefix: String

    init(member: Int, run: RunState, ready: EventLoopPromise<Void>, target: WebSocketTarget, userId: String) {
        self.member = member
        self.run = run
        self.schedule = run.schedule
        self.ready = ready
        recorder = ReceiverRecorder(member: member, schedule: run.schedule)
        sendCount = member < run.schedule.senders ? run.schedule.count(sender: member) : 0
        framePrefix = #"MESG{"channel_url":"\#(run.channelUrl)","message":""#
        super.init(target: target, userId: userId)
    }

    override func channelReadComplete(context: ChannelHandlerContext) {
        flushCounts()
        context.fireChannelReadComplete()
    }

    override func failed(_ why: String) {
        if phase != .finished { run.fail("member \(member): \(why)") }
        ready.fail(BenchError(description: why))
        phase = .finished
        timer?.cancel()
    }

    /// Scans one complete text message (one or more `CMD4{json}\n` lines).
    override func receivedText(_ bytes: UnsafeRawBufferPointer) {
        guard phase != .finished else { return }
        let now = Mono.now()
        FrameScanner.scan(bytes) { event in
            switch (event, phase) {
            case (_, .ready):
                recorder.record(event, now: now)
            case (.login(let ok), .loggingIn):
                guard ok else {
                    refuse("login refused: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
                    return
                }
                if run.channelType == .open {
                    phase = .entering
                    write(text: #"ENTR{"channel_url":"\#(run.channelUrl)","req_id":"enter-\#(member)"}"# + "\n")
                } else {
                    phase = .ready
                    ready.succeed()
                }
            case (.entered, .entering):
                phase = .ready
                ready.succeed()
            case (.error(let code), .entering):
                refuse("ENTR refused with code \(code): \(String(decoding: bytes.prefix(200), as: UTF8.self))")
            default:
                break
            }
        }
    }

    func flushCounts() {
        let counts = recorder.takeCounts()
        if counts.delivered > 0 { run.delivered.add(counts.delivered, ordering: .relaxed) }
        if counts.acked > 0 { run.acked.add(counts.acked, ordering: .relaxed) }
        if counts.rejected > 0 { run.rejected.add(counts.rejected, ordering: .relaxed) }
    }

    // MARK: Sending

    func begin(start: UInt64) {
        recorder.start = start
        if sendCount > 0 { sendDue() }
    }

    /// Sends every message that is due (a late one at once, still stamped with its due time: no
    /// coordinated omission), then arms a timer for the next one.
    func sendDue() {
        timer = nil
        guard phase == .ready, let context else { return }
        let start = recorder.start
        var now = Mono.now()
        while nextSeq < sendCount {
            let rel = schedule.due(sender: member, seq: nextSeq)
            let due = start + rel
            if due > now {
                timer = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(due - now))) { [self] in sendDue() }
                return
            }
            if schedule.isMeasured(rel) { recorder.senderLagUs.append(UInt32(clamping: (now - due) / 1000)) }
            let text = BenchText.make(sender: member, seq: nextSeq, scheduled: due, size: schedule.payloadBytes)
            write(text: framePrefix + text + #"","req_id":"\#(nextSeq)"}"# + "\n")
            run.sent.add(1, ordering: .relaxed)
            nextSeq += 1
            now = Mono.now()
        }
        run.sendersDone.add(1, ordering: .relaxed)
    }

    /// Ends the member's part in the run and returns its log.
    func finish() -> ReceiverLog {
        timer?.cancel()
        flushCounts()
        phase = .finished
        return recorder.log()
    }
}

/// An idle connection of the ramp (`--ramp`): logs in, answers pings (``WebSocketClient`` does),
/// and otherwise only notices being closed. The server keeps it as it would any client that is
/// online and quiet.
final class IdleHandler: WebSocketClient {
    let ready: EventLoopPromise<Void>
    let ramp: RampState
    var loggedIn = false

    init(ready: EventLoopPromise<Void>, ramp: RampState, target: WebSocketTarget, userId: String) {
        self.ready = ready
        self.ramp = ramp
        super.init(target: target, userId: userId)
    }

    override func receivedText(_ bytes: UnsafeRawBufferPointer) {
        guard !loggedIn else { return }
        loggedIn = true
        var login = false
        FrameScanner.scan(bytes) { event in
            if case .login(let ok) = event { login = ok }
        }
        if login {
            ready.succeed()
        } else {
            refuse("login refused: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
        }
    }

    override func failed(_ why: String) { ready.fail(BenchError(description: why)) }

    override func channelInactive(context: ChannelHandlerContext) {
        if !ramp.closing.load(ordering: .relaxed) && loggedIn { ramp.dropped.add(1, ordering: .relaxed) }
        super.channelInactive(context: context)
    }
}
