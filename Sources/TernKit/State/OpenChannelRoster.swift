/// The open channels the user is in on this connection, and those known to be open (from lists and lookups:
/// their messages take the open-channel REST paths and are not cached), as a value. No frames: ``ChatClient``
/// enters and exits, and announces what the roster says changed.
struct OpenChannelRoster: Sendable, Equatable {
    /// What an event did to an entered channel.
    enum Outcome: Sendable, Equatable {
        /// Nothing to announce (not entered, or nothing the roster keeps).
        case nothing
        case updated(OpenChannel)
        /// The user is out of it (the channel was deleted, the user banned).
        case exited(OpenChannelExit)
        /// The channel changed: read it again.
        case reread
    }

    private var entered: [String: OpenChannel] = [:]
    private var known: Set<String> = []

    /// Whether the channel is an open one (entered, or seen as open).
    func isOpen(_ url: String) -> Bool { entered[url] != nil || known.contains(url) }

    /// The entered channel, or nil.
    subscript(_ url: String) -> OpenChannel? { entered[url] }

    /// The channels entered, by URL.
    var channels: [OpenChannel] { entered.values.sorted { $0.url < $1.url } }

    /// The server described an open channel: it is known as open; an entered one takes the new description.
    /// Returns it when an entered channel changed (to announce).
    mutating func keep(_ channel: OpenChannel) -> OpenChannel? {
        known.insert(channel.url)
        guard let old = entered[channel.url], old != channel else { return nil }
        entered[channel.url] = channel
        return channel
    }

    /// The user entered the channel.
    mutating func enter(_ channel: OpenChannel) {
        known.insert(channel.url)
        entered[channel.url] = channel
    }

    /// Entered again after a reconnection, with the count the server gave; nil if it was left meanwhile.
    mutating func reentered(_ url: String, participantCount: Int) -> OpenChannel? {
        guard var c = entered[url] else { return nil }
        c.participantCount = participantCount
        entered[url] = c
        return c
    }

    /// The user is out of the channel; false when they were not in it.
    mutating func exit(_ url: String) -> Bool {
        entered.removeValue(forKey: url) != nil
    }

    /// A channel event about an entered channel (`me`: the user's id).
    mutating func apply(_ kind: ChannelEventKind, in url: String, me: String) -> Outcome {
        guard var c = entered[url] else { return .nothing }
        switch kind {
        case .deleted:
            entered[url] = nil
            return .exited(.deleted)
        case .banned(let u, _) where u.userId == me:
            entered[url] = nil
            return .exited(.banned)
        case .entered(_, let count), .exited(_, let count):
            c.participantCount = count
        case .frozen, .unfrozen:
            c.isFrozen = kind == .frozen
        case .operatorsChanged(let ops):
            c.operators = ops
        case .changed:
            return .reread
        default:
            return .nothing
        }
        entered[url] = c
        return .updated(c)
    }

    /// `MCNT`: an entered channel's participant count; the channel when it changed.
    mutating func participantCount(_ count: Int, in url: String) -> OpenChannel? {
        guard var c = entered[url], count != c.participantCount else { return nil }
        c.participantCount = count
        entered[url] = c
        return c
    }
}
