import Foundation
public import TernProtocol

/// Everything that changes in the engine, as one stream of typed events.
public enum ClientEvent: Sendable, Equatable {
    case connectionStateChanged(ConnectionState)
    case connected(User)
    case reconnectStarted
    case reconnectSucceeded
    /// Reconnection gave up (the policy's `retry_cnt` ran out, or the server refused the session).
    case reconnectFailed(SendbirdError)
    /// The connection closed for good.
    case disconnected(CloseReason)

    case channelAdded(GroupChannel)
    case channelUpdated(GroupChannel)
    case channelDeleted(url: String)
    /// The channel left the user's list without being deleted: they left it, declined its invitation, or hid it.
    case channelRemoved(url: String, reason: ChannelRemoval)

    /// A message of ours is on its way (status `pending`).
    case messagePending(Message)
    /// The server stored a message of ours (status `succeeded`; `requestId` names the pending one).
    case messageSent(Message)
    /// A message of ours was refused or timed out (status `failed`, with the error).
    case messageFailed(Message)
    /// A message from someone else, or from ourselves on another device.
    case messageReceived(Message)
    /// A message changed (text, data, custom type, mentions, metaarray, link preview).
    case messageUpdated(Message)
    case messageDeleted(channelUrl: String, messageId: Int64)
    /// `userId` added (or took away) reaction `key` on a message.
    case reactionUpdated(channelUrl: String, messageId: Int64, key: String, userId: String, added: Bool)
    /// A parent's thread changed (a reply came or went).
    case threadInfoUpdated(channelUrl: String, parentMessageId: Int64, ThreadSummary)

    case typingStarted(channelUrl: String, user: User)
    /// `expired`: no end came within the expiry after the last start.
    case typingEnded(channelUrl: String, user: User, expired: Bool)

    /// `user` read the channel up to `ts` (ms).
    case readReceiptUpdated(channelUrl: String, userId: String, ts: Millis)
    case deliveryReceiptUpdated(channelUrl: String, updated: [String: Millis])
    /// The unread counts of a channel, and the user's total, after a change.
    case unreadCountChanged(channelUrl: String?, unreadMessageCount: Int, unreadMentionCount: Int, total: Int)

    /// A channel event (`SYEV`) other than typing: membership, freeze, properties, metadata, hiding.
    /// The channel itself follows as `channelUpdated` (or leaves the list) once re-read.
    case channelEvent(channelUrl: String, ChannelEventKind)

    /// Open channels: the user entered one (also again after a reconnection), its properties or
    /// participant count changed, or the user is out of it (`exited`, banned, or the channel was deleted).
    case openChannelEntered(OpenChannel)
    case openChannelUpdated(OpenChannel)
    case openChannelExited(url: String, reason: OpenChannelExit)

    /// The user blocked someone (here or on another device): their messages no longer count as unread.
    case userBlocked(User)
    case userUnblocked(User)

    /// An error the server reported outside any request (an `EROR` without `req_id`).
    case serverError(SendbirdError)

    /// The engine is catching up after a (re)connection — channel changelogs, message changelogs,
    /// gap fills — (`true`), or has caught up (`false`).
    case syncing(Bool)
    /// Messages that arrived while the user was away, fetched to fill the hole after the newest one
    /// held (oldest first; collection source `messageFill`).
    case messagesFilled(channelUrl: String, [Message])
    /// More than 300 messages were missed in a channel: what was held is dropped and the history
    /// starts again at the newest page (Sendbird's `didDetectHugeGap`).
    case hugeGap(channelUrl: String)
    /// Message changes missed while away (message changelogs): edited messages and deleted ids.
    case messageChangelog(channelUrl: String, updated: [Message], deleted: [Int64])
    /// Channel changes missed while away (channel changelogs): channels to show as they are now, and
    /// channels gone from the user's list (deleted, left, removed, hidden).
    case channelChangelog(updated: [GroupChannel], deleted: [String])
}

/// What happened to a channel, as its `SYEV` says.
public enum ChannelEventKind: Sendable, Equatable {
    case joined([User])
    case left(User)
    case invited(inviter: User?, invitees: [User])
    case declined(inviter: User?, invitee: User)
    case frozen, unfrozen
    /// Name, cover, data or custom type changed.
    case changed
    case deleted
    case hidden, unhidden
    case metadataChanged(created: [String: String], updated: [String: String], deleted: [String])
    case metacountersChanged(created: [String: Int64], updated: [String: Int64], deleted: [String])
    /// The channel's operators now.
    case operatorsChanged([User])
    /// Someone was muted (until `endAt` ms, -1 for ever) or unmuted, banned or unbanned.
    case muted(User, endAt: Millis)
    case unmuted(User)
    case banned(User, endAt: Millis)
    case unbanned(User)
    /// Open channels: someone entered or left; the channel now has `count` participants.
    case entered(User, count: Int)
    case exited(User, count: Int)
    /// A category this engine does not name yet.
    case other(Int)

    /// The name scripts see (`tern tail --json`).
    public var name: String {
        switch self {
        case .joined: "joined"
        case .left: "left"
        case .invited: "invited"
        case .declined: "declined"
        case .frozen: "frozen"
        case .unfrozen: "unfrozen"
        case .changed: "changed"
        case .deleted: "deleted"
        case .hidden: "hidden"
        case .unhidden: "unhidden"
        case .metadataChanged: "metadata_changed"
        case .metacountersChanged: "metacounters_changed"
        case .operatorsChanged: "operators_changed"
        case .muted: "muted"
        case .unmuted: "unmuted"
        case .banned: "banned"
        case .unbanned: "unbanned"
        case .entered: "entered"
        case .exited: "exited"
        case .other(let cat): "event_\(cat)"
        }
    }
}

/// Fans events out to every subscriber; each gets its own unbounded stream, of single events or of
/// batches (what one read from the socket brought: a message arrives as three events, and a
/// subscriber that takes them as one batch is resumed once, not three times — issue 36).
final class EventHub: Sendable {
    private enum Subscriber {
        case single(AsyncStream<ClientEvent>.Continuation)
        case batches(AsyncStream<[ClientEvent]>.Continuation)
    }

    private let subscribers = Locked<[UUID: Subscriber]>([:])

    func subscribe() -> AsyncStream<ClientEvent> {
        let (stream, cont) = AsyncStream<ClientEvent>.makeStream()
        let id = add(.single(cont))
        cont.onTermination = { [weak self] _ in self?.remove(id) }
        return stream
    }

    func subscribeBatches() -> AsyncStream<[ClientEvent]> {
        let (stream, cont) = AsyncStream<[ClientEvent]>.makeStream()
        let id = add(.batches(cont))
        cont.onTermination = { [weak self] _ in self?.remove(id) }
        return stream
    }

    private func add(_ s: Subscriber) -> UUID {
        let id = UUID()
        subscribers.withLock { $0[id] = s }
        return id
    }

    private func remove(_ id: UUID) { subscribers.withLock { $0[id] = nil } }

    /// Events in order: one batch to each batch subscriber, each event to each single one.
    func emit(_ events: [ClientEvent]) {
        guard !events.isEmpty else { return }
        for s in subscribers.value.values {
            switch s {
            case .single(let c): for e in events { c.yield(e) }
            case .batches(let c): c.yield(events)
            }
        }
    }

    func finish() {
        let all = subscribers.withLock { s in
            defer { s = [:] }
            return Array(s.values)
        }
        for s in all {
            switch s {
            case .single(let c): c.finish()
            case .batches(let c): c.finish()
            }
        }
    }
}

/// The engine's time source. Tests inject one they can move forward.
public protocol EngineClock: Sendable {
    /// Milliseconds since the Unix epoch.
    func now() -> Millis
}

public struct SystemEngineClock: EngineClock {
    public init() {}
    public func now() -> Millis { Millis((Date().timeIntervalSince1970 * 1000).rounded()) }
}

/// Why a channel left the user's list.
public enum ChannelRemoval: String, Sendable, Equatable {
    case left, declined, hidden, banned
}

/// Why the user is out of an open channel.
public enum OpenChannelExit: String, Sendable, Equatable {
    case exited, banned, deleted
}
