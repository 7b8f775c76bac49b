/// Everything one member connection observed, handed to the coordinator when the run ends (a copy
/// of its ``ReceiverRecorder``).
struct ReceiverLog: Sendable {
    let member: Int
    /// `seen[seq × senders + sender]`: how many times a push of that message reached this member.
    let seen: [UInt8]
    let senders: Int
    /// `acks[seq]`: acknowledgements of this member's own messages (empty when not a sender).
    let acks: [UInt8]
    /// recv − scheduled, in µs, for pushes of messages due in the measured window.
    let latencyUs: [UInt32]
    /// The same, split by whether the sender was connected to another node than this member.
    let crossNodeLatencyUs: [UInt32]
    let sameNodeLatencyUs: [UInt32]
    /// ack − scheduled, in µs, for own messages due in the measured window.
    let ackLatencyUs: [UInt32]
    /// actual write − scheduled, in µs, for own messages due in the measured window.
    let senderLagUs: [UInt32]
    /// A push whose seq is below one already seen from the same sender.
    let orderViolations: Int
    /// A push or ack whose `msg_id` is below one already seen on this connection.
    let channelOrderViolations: Int
    /// `EROR` frames by code.
    let errors: [Int: Int]
    /// `MESG` frames that are unreadable, name an unknown sender or seq, or are the member's own
    /// message without `req_id`.
    let strays: Int

    /// How many times a push of message `seq` of `sender` reached this member.
    func seenCount(sender: Int, seq: Int) -> Int { Int(seen[seq * senders + sender]) }
}

/// What one member connection records as it reads, owned by that connection's event loop (no
/// locks). The hot path touches only memory allocated here once: flat buffers instead of arrays (no
/// copy-on-write or uniqueness check per message), fields exempt from dynamic exclusivity checks
/// (only the loop touches them), latency buffers sized for every message due in the measured window
/// (no allocation per message). ``log()`` copies it out as a ``ReceiverLog``.
final class ReceiverRecorder {
    /// Totals not yet added to the run-wide counters (added at the end of each socket read).
    struct Counts {
        var delivered = 0
        var acked = 0
        var rejected = 0
    }

    let member: Int
    let schedule: Schedule
    /// `seen[seq × senders + sender]`, as in ``ReceiverLog``: in the order the channel's messages
    /// are due (senders take turns), so consecutive deliveries touch consecutive bytes.
    let seen: UnsafeMutableBufferPointer<UInt8>
    /// How many messages each sender sends.
    let sendCounts: UnsafeMutableBufferPointer<Int>
    let acks: UnsafeMutableBufferPointer<UInt8>
    /// The highest seq seen from each sender (-1: none yet).
    let lastSeq: UnsafeMutableBufferPointer<Int>
    @exclusivity(unchecked) var latencyUs: SampleBuffer
    @exclusivity(unchecked) var crossNodeLatencyUs: SampleBuffer
    @exclusivity(unchecked) var sameNodeLatencyUs: SampleBuffer
    @exclusivity(unchecked) var ackLatencyUs: SampleBuffer
    /// Appended once per send, not per delivery: an ordinary array.
    var senderLagUs: [UInt32] = []
    /// The start of the schedule (absolute `Mono.now()` ns); 0 until the run begins.
    @exclusivity(unchecked) var start: UInt64 = 0
    @exclusivity(unchecked) var lastMsgId: Int64 = 0
    @exclusivity(unchecked) var orderViolations = 0
    @exclusivity(unchecked) var channelOrderViolations = 0
    @exclusivity(unchecked) var strays = 0
    @exclusivity(unchecked) var counts = Counts()
    var errors: [Int: Int] = [:]

    init(member: Int, schedule: Schedule) {
        self.member = member
        self.schedule = schedule
        sendCounts = .allocate(capacity: schedule.senders)
        lastSeq = .allocate(capacity: schedule.senders)
        lastSeq.initialize(repeating: -1)
        var measuredPushes = 0
        var measuredOwn = 0
        for sender in 0..<schedule.senders {
            let count = schedule.count(sender: sender)
            sendCounts[sender] = count
            let measured = (0..<count).count(where: { schedule.isMeasured(schedule.due(sender: sender, seq: $0)) })
            if sender == member { measuredOwn = measured } else { measuredPushes += measured }
        }
        // Sender 0 is due first, so it sends the most.
        seen = .allocate(capacity: schedule.senders * sendCounts[0])
        seen.initialize(repeating: 0)
        acks = .allocate(capacity: member < schedule.senders ? sendCounts[member] : 0)
        acks.initialize(repeating: 0)
        latencyUs = SampleBuffer(capacity: measuredPushes)
        crossNodeLatencyUs = SampleBuffer(capacity: schedule.nodes > 1 ? measuredPushes : 0)
        sameNodeLatencyUs = SampleBuffer(capacity: schedule.nodes > 1 ? measuredPushes : 0)
        ackLatencyUs = SampleBuffer(capacity: measuredOwn)
    }

    deinit {
        seen.deallocate()
        acks.deallocate()
        sendCounts.deallocate()
        lastSeq.deallocate()
        latencyUs.deallocate()
        crossNodeLatencyUs.deallocate()
        sameNodeLatencyUs.deallocate()
        ackLatencyUs.deallocate()
    }

    /// Records one line the server sent; `now` is when its WebSocket message was read.
    @inline(__always)
    func record(_ event: ServerEvent, now: UInt64) {
        switch event {
        case .message(let sender, let seq, let scheduled, let msgId, let isAck):
            guard sender >= 0, sender < schedule.senders, seq >= 0, seq < sendCounts[sender], scheduled >= start else {
                strays += 1
                return
            }
            if msgId < lastMsgId { channelOrderViolations += 1 } else { lastMsgId = msgId }
            let measured = schedule.isMeasured(scheduled - start)
            let latency = UInt32(clamping: now > scheduled ? (now - scheduled) / 1000 : 0)
            if sender == member {
                guard isAck else {
                    strays += 1
                    return
                }
                if acks[seq] == 0 { counts.acked += 1 }
                acks[seq] &+= 1
                if measured { ackLatencyUs.append(latency) }
            } else {
                let at = seq * schedule.senders + sender
                if seen[at] == 0 { counts.delivered += 1 }
                seen[at] &+= 1
                if seq < lastSeq[sender] { orderViolations += 1 } else { lastSeq[sender] = seq }
                if measured {
                    latencyUs.append(latency)
                    if schedule.nodes > 1 {
                        if schedule.node(of: sender) != schedule.node(of: member) {
                            crossNodeLatencyUs.append(latency)
                        } else {
                            sameNodeLatencyUs.append(latency)
                        }
                    }
                }
            }
        case .error(let code):
            errors[code, default: 0] += 1
            counts.rejected += 1
        case .unreadableMessage:
            strays += 1
        case .login, .entered, .other:
            break
        }
    }

    /// Takes the totals gathered since the last call.
    func takeCounts() -> Counts {
        defer { counts = Counts() }
        return counts
    }

    /// A copy of everything recorded.
    func log() -> ReceiverLog {
        ReceiverLog(
            member: member, seen: Array(seen), senders: schedule.senders, acks: Array(acks),
            latencyUs: latencyUs.array, crossNodeLatencyUs: crossNodeLatencyUs.array, sameNodeLatencyUs: sameNodeLatencyUs.array,
            ackLatencyUs: ackLatencyUs.array, senderLagUs: senderLagUs,
            orderViolations: orderViolations, channelOrderViolations: channelOrderViolations, errors: errors, strays: strays)
    }
}

/// A growable run of `UInt32` in memory its owner frees (``deallocate()``): appending checks only
/// the capacity, and grows (doubling) only past the expected count.
struct SampleBuffer {
    var base: UnsafeMutablePointer<UInt32>
    var count = 0
    var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    @inline(__always)
    mutating func append(_ value: UInt32) {
        if count == capacity { grow() }
        base[count] = value
        count += 1
    }

    mutating func grow() {
        let bigger = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity *= 2
    }

    var array: [UInt32] { Array(UnsafeBufferPointer(start: base, count: count)) }

    func deallocate() { base.deallocate() }
}
