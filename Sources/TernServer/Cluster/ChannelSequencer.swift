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

    init(wait: Int64) { self.wait = wait }

    var heldCount: Int { held.values.reduce(0) { $0 + $1.count } }

    /// A message this node stored: returns what is due now (it, or nothing while it is held).
    mutating func local(_ channel: String, id: Int64, previous: Int64, now: Int64, item: Item) -> [Item] {
        handed[channel] = max(handed[channel] ?? 0, id)
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
    }
}
