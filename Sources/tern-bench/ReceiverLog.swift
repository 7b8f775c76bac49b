/// Everything one member connection observed. Owned by that connection's ``MemberHandler`` on its
/// event loop (no locks on the hot path) and handed to the coordinator when the run ends.
struct ReceiverLog: Sendable {
    let member: Int
    /// `seen[firstSeen[sender] + seq]`: how many times a push of that message reached this member
    /// (one flat array: no nested copy-on-write checks on the hot path).
    var seen: [UInt8]
    /// Where each sender's messages start in `seen`; one more entry marks the end.
    let firstSeen: [Int]
    /// `acks[seq]`: acknowledgements of this member's own messages (empty when not a sender).
    var acks: [UInt8]
    /// recv − scheduled, in µs, for pushes of messages due in the measured window.
    var latencyUs: [UInt32] = []
    /// ack − scheduled, in µs, for own messages due in the measured window.
    var ackLatencyUs: [UInt32] = []
    /// actual write − scheduled, in µs, for own messages due in the measured window.
    var senderLagUs: [UInt32] = []
    var lastSeq: [Int]
    var lastMsgId: Int64 = 0
    /// A push whose seq is below one already seen from the same sender.
    var orderViolations = 0
    /// A push or ack whose `msg_id` is below one already seen on this connection.
    var channelOrderViolations = 0
    /// `EROR` frames by code.
    var errors: [Int: Int] = [:]
    /// `MESG` frames that are unreadable, name an unknown sender or seq, or are the member's own
    /// message without `req_id`.
    var strays = 0

    init(member: Int, schedule: Schedule) {
        self.member = member
        var offsets = [0]
        for sender in 0..<schedule.senders { offsets.append(offsets[sender] + schedule.count(sender: sender)) }
        firstSeen = offsets
        seen = [UInt8](repeating: 0, count: offsets[schedule.senders])
        acks = member < schedule.senders ? [UInt8](repeating: 0, count: schedule.count(sender: member)) : []
        lastSeq = [Int](repeating: -1, count: schedule.senders)
    }

    /// How many times a push of message `seq` of `sender` reached this member.
    func seenCount(sender: Int, seq: Int) -> Int { Int(seen[firstSeen[sender] + seq]) }

    /// Totals of one socket read, added to the shared counters once per read.
    struct Counts {
        var delivered = 0
        var acked = 0
        var rejected = 0
    }

    /// Records one line the server sent; `now` is when its WebSocket message was read.
    mutating func record(_ event: ServerEvent, now: UInt64, start: UInt64, schedule: Schedule, into counts: inout Counts) {
        switch event {
        case .message(let sender, let seq, let scheduled, let msgId, let isAck):
            guard sender < lastSeq.count, seq >= 0, seq < firstSeen[sender + 1] - firstSeen[sender], scheduled >= start else {
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
                let at = firstSeen[sender] + seq
                if seen[at] == 0 { counts.delivered += 1 }
                seen[at] &+= 1
                if seq < lastSeq[sender] { orderViolations += 1 } else { lastSeq[sender] = seq }
                if measured { latencyUs.append(latency) }
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
}
