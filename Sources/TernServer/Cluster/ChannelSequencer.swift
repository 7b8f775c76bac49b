/// Keeps one node's deliveries of a channel's messages in the channel's commit order when
/// several nodes send to it.
///
/// A node delivers its own users' messages as soon as they commit, and another node's when its
/// event log says so. When the log lags, a member here could get this node's message 105 before
/// the other node's 104. So each message this node stores carries the channel's newest message
/// before it (``StoredMessage/previousMessageId``, read under the channel's lock), and is held
/// until that one has passed here:
/// - the previous message is the newest one passed in the channel (a chain), or older;
/// - or the event reader reached this message's own event in the log: every event before it,
///   the previous message's included, has been handled;
/// - or it waited `wait` ms (the log cannot be read): it goes anyway, in order.
///
/// A value type with an injected clock (`now` in ms): no sockets, no timers of its own.
struct ChannelSequencer<Item: Sendable>: Sendable {
    struct Held: Sendable {
        var id: Int64
        var previous: Int64
        var deadline: Int64
        var item: Item
    }

    /// How long a message is held at most, in ms.
    let wait: Int64
    /// How many channels' positions are remembered; beyond it the idle ones are forgotten (their
    /// next message then waits for its own event).
    var capacity = 50_000
    /// The newest message passed here, by channel.
    private(set) var last: [String: Int64] = [:]
    /// Messages of this node waiting for their predecessors, by channel, oldest first.
    private(set) var held: [String: [Held]] = [:]
    /// The newest message of this node handed over (``local(_:id:previous:now:item:)``), by channel.
    private(set) var handed: [String: Int64] = [:]
    /// This node's messages handed over whose own event the reader has not reached yet, by channel.
    private(set) var handedIds: [String: Set<Int64>] = [:]
    /// This node's messages the event reader delivered itself (their commit was acknowledged to the
    /// log but never to this node's send path), by channel: if the send path hands one over after
    /// all, only its acknowledgement goes.
    private(set) var deliveredFromLog: [String: Set<Int64>] = [:]

    init(wait: Int64) { self.wait = wait }

    var heldCount: Int { held.values.reduce(0) { $0 + $1.count } }

    /// A message this node stored: returns what is due now (it, or nothing while it is held).
    /// `ackOnly`, when given, is what goes instead of `item` for a message the reader already
    /// delivered from the log (``claimForLog(_:id:)``).
    mutating func local(_ channel: String, id: Int64, previous: Int64, now: Int64, item: Item, ackOnly: Item? = nil) -> [Item] {
        if deliveredFromLog[channel]?.remove(id) != nil {
            if deliveredFromLog[channel]?.isEmpty == true { deliveredFromLog[channel] = nil }
            return ackOnly.map { [$0] } ?? []
        }
        handed[channel] = max(handed[channel] ?? 0, id)
        handedIds[channel, default: []].insert(id)
        if held[channel] == nil, previous == 0 || (last[channel].map { $0 >= previous } ?? false) {
            last[channel] = max(last[channel] ?? 0, id)
            return [item]
        }
        if last.count >= capacity { forgetIdle() }
        held[channel, default: []].append(Held(id: id, previous: previous, deadline: now + wait, item: item))
        return drain(channel)
    }

    /// Whether this node's message `id` was handed over already (the event reader can reach a
    /// message's event before the sending path hands it over; it waits for it then).
    func handedOver(_ channel: String, id: Int64) -> Bool { (handed[channel] ?? 0) >= id }

    /// This node delivered its message `id` without holding it (nothing to order it after).
    mutating func markHanded(_ channel: String, id: Int64) {
        handed[channel] = max(handed[channel] ?? 0, id)
        handedIds[channel, default: []].insert(id)
    }

    /// The reader reached this node's own message `id` and the send path never handed it over (the
    /// commit's answer was lost, say): returns true and remembers it, so that the reader delivers it
    /// from the store and a late hand-over only acknowledges it. False when it was handed over.
    mutating func claimForLog(_ channel: String, id: Int64) -> Bool {
        guard handedIds[channel]?.contains(id) != true else { return false }
        deliveredFromLog[channel, default: []].insert(id)
        if deliveredFromLog[channel]!.count > 1024 { deliveredFromLog[channel]!.remove(deliveredFromLog[channel]!.min()!) }
        return true
    }

    /// Another node's message was handled here (delivered, or nobody here to get it): what it
    /// held back is due.
    mutating func passed(_ channel: String, id: Int64) -> [Item] {
        last[channel] = max(last[channel] ?? 0, id)
        return drain(channel)
    }

    /// The event reader reached this node's own event for message `id`: every event before it is
    /// handled, so it and everything held before it are due.
    mutating func reached(_ channel: String, id: Int64) -> [Item] {
        var out: [Item] = []
        handedIds[channel] = handedIds[channel]?.filter { $0 > id }
        if handedIds[channel]?.isEmpty == true { handedIds[channel] = nil }
        while let first = held[channel]?.first, first.id <= id {
            held[channel]!.removeFirst()
            out.append(first.item)
        }
        if held[channel]?.isEmpty == true { held[channel] = nil }
        last[channel] = max(last[channel] ?? 0, id)
        return out + drain(channel)
    }

    /// Held messages whose wait is over, in order (with whatever was held behind them).
    mutating func expire(now: Int64) -> [Item] {
        var out: [Item] = []
        for channel in held.keys.sorted() {
            guard let first = held[channel]?.first, first.deadline <= now else { continue }
            // Everything held up to the last expired one goes, in order.
            let through = held[channel]!.lastIndex { $0.deadline <= now }!
            let due = held[channel]![...through]
            held[channel]!.removeFirst(through + 1)
            if held[channel]!.isEmpty { held[channel] = nil }
            last[channel] = max(last[channel] ?? 0, due.last!.id)
            out += due.map(\.item)
            out += drain(channel)
        }
        return out
    }

    /// Releases the held messages of `channel` whose predecessor has passed, in order.
    private mutating func drain(_ channel: String) -> [Item] {
        var out: [Item] = []
        while let first = held[channel]?.first, first.previous == 0 || (last[channel].map { $0 >= first.previous } ?? false) {
            held[channel]!.removeFirst()
            last[channel] = max(last[channel] ?? 0, first.id)
            out.append(first.item)
        }
        if held[channel]?.isEmpty == true { held[channel] = nil }
        return out
    }

    private mutating func forgetIdle() {
        last = last.filter { held[$0.key] != nil }
        handed = handed.filter { held[$0.key] != nil }
        handedIds = handedIds.filter { held[$0.key] != nil }
    }
}
