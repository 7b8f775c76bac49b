import TernProtocol

/// What caused a collection change (Sendbird's `CollectionEventSource`).
public enum CollectionEventSource: String, Sendable, Equatable {
    // Catching up.
    case messageChangelog, messageFill, channelChangelog, channelRefresh
    /// The cache answered first; `api`: the server's answer replaced it.
    case cache, api
    // Our own messages on their way.
    case localMessagePendingCreated, localMessageFailed, localMessageCanceled, localMessageResendStarted
    // Live events.
    case eventMessageSent, eventMessageReceived, eventMessageUpdated, eventMessageDeleted
    case eventReactionUpdated, eventThreadInfoUpdated
    case eventChannelChanged, eventChannelDeleted, eventChannelHidden, eventChannelMemberCountChanged
    case eventReadStatusUpdated, eventDeliveryStatusUpdated, eventUserJoined, eventUserLeft
}

/// A change a collection reports.
public enum CollectionChange<Item: Sendable & Equatable>: Sendable, Equatable {
    case added([Item], CollectionEventSource)
    case updated([Item], CollectionEventSource)
    case deleted([Item], CollectionEventSource)
}

/// What a message collection reports besides its messages.
public enum MessageCollectionEvent: Sendable, Equatable {
    case messages(CollectionChange<Message>)
    case channelUpdated(GroupChannel, CollectionEventSource)
    /// The channel is gone for the user (deleted, left, banned, hidden): the collection is over.
    case channelDeleted(url: String, CollectionEventSource)
    /// More than 300 messages were missed: dispose of this collection and start a new one at the newest.
    case hugeGap
}

/// A window on one channel's messages as a value (Sendbird's `MessageCollection`): stored
/// messages in time order from a starting point, ours not stored yet apart, whether more exist
/// either side, and one function that turns engine events into the collection's changes. No
/// sockets: the ``MessageCollection`` actor feeds it.
public struct MessageCollectionState: Sendable, Equatable {
    public let channelUrl: String
    /// Where the collection started (ms); `Millis.max` = at the newest message.
    public let startingPoint: Millis
    /// Stored messages, oldest first.
    public private(set) var succeeded: [Message] = []
    /// Ours on their way, oldest first.
    public private(set) var pending: [Message] = []
    /// Ours the server refused (or that could not go), oldest first.
    public private(set) var failed: [Message] = []
    /// Older messages exist than the oldest held.
    public var hasPrevious = true
    /// Newer messages exist than the newest held (false once the collection reaches the present:
    /// new messages then join it as they arrive).
    public var hasNext: Bool
    /// At most this many stored messages held while new ones arrive (nil: no limit, as Sendbird's
    /// collection). Past it (and a quarter more, so that this is not a move of the whole list per
    /// message) the oldest leave the window — no change is reported for them — and ``hasPrevious``
    /// says that ``MessageCollection/loadPrevious()`` brings them back.
    public var window: Int?

    public init(channelUrl: String, startingPoint: Millis = .max) {
        self.channelUrl = channelUrl
        self.startingPoint = startingPoint
        hasNext = startingPoint != .max
    }

    static func before(_ a: Message, _ b: Message) -> Bool { (a.createdAt, a.messageId) < (b.createdAt, b.messageId) }

    /// A first page (the cache's, then the server's, which replaces it): reports what was added,
    /// changed and dropped relative to what was held.
    public mutating func replace(with page: [Message], hasPrevious: Bool, hasNext: Bool, source: CollectionEventSource) -> [CollectionChange<Message>]
    {
        let stored = page.filter { $0.messageId > 0 && $0.status == .succeeded }.sorted(by: Self.before)
        let old = Dictionary(succeeded.map { ($0.messageId, $0) }, uniquingKeysWith: { a, _ in a })
        let new = Set(stored.map(\.messageId))
        // Messages that arrived live after the page was asked for stay (they are newer than it).
        let newest = stored.last.map { ($0.createdAt, $0.messageId) } ?? (0, 0)
        let kept = hasNext ? [] : succeeded.filter { !new.contains($0.messageId) && ($0.createdAt, $0.messageId) > newest }
        let keptIds = Set(kept.map(\.messageId))
        let added = stored.filter { old[$0.messageId] == nil }
        let updated = stored.filter { m in old[m.messageId].map { $0 != m } ?? false }
        let gone = succeeded.filter { !new.contains($0.messageId) && !keptIds.contains($0.messageId) }
        succeeded = stored + kept
        self.hasPrevious = hasPrevious
        self.hasNext = hasNext
        for m in page where m.status != .succeeded { _ = place(m) }
        var out: [CollectionChange<Message>] = []
        if !added.isEmpty { out.append(.added(added, source)) }
        if !updated.isEmpty { out.append(.updated(updated, source)) }
        if !gone.isEmpty { out.append(.deleted(gone, source)) }
        return out
    }

    /// Older messages loaded (`loadPrevious`).
    public mutating func prepend(_ older: [Message], hasPrevious: Bool, source: CollectionEventSource) -> [CollectionChange<Message>] {
        self.hasPrevious = hasPrevious
        return insert(older, source: source)
    }

    /// Newer messages loaded (`loadNext`).
    public mutating func append(_ newer: [Message], hasNext: Bool, source: CollectionEventSource) -> [CollectionChange<Message>] {
        self.hasNext = hasNext
        return insert(newer, source: source)
    }

    /// With a ``window``, the oldest held leave once the newest pass it.
    mutating func slide() {
        guard let window, succeeded.count > window + window / 4 else { return }
        succeeded.removeFirst(succeeded.count - window)
        hasPrevious = true
    }

    /// Stored messages join in time order (those already held are reported as updated if they changed).
    mutating func insert(_ messages: [Message], source: CollectionEventSource) -> [CollectionChange<Message>] {
        var added: [Message] = []
        var updated: [Message] = []
        for m in messages where m.messageId > 0 {
            if let last = succeeded.last, Self.before(last, m) {
                // Newer than all held (a live message, nearly always): it cannot be held already.
                succeeded.append(m)
                added.append(m)
            } else if let i = succeeded.firstIndex(where: { $0.messageId == m.messageId }) {
                if succeeded[i] != m {
                    succeeded[i] = m
                    updated.append(m)
                }
            } else {
                let at = succeeded.firstIndex { Self.before(m, $0) } ?? succeeded.count
                succeeded.insert(m, at: at)
                added.append(m)
            }
            // One of ours that was pending or failed is now stored: it leaves those lists.
            if let r = m.requestId {
                pending.removeAll { $0.requestId == r }
                failed.removeAll { $0.requestId == r }
            }
        }
        var out: [CollectionChange<Message>] = []
        if !added.isEmpty { out.append(.added(added.sorted(by: Self.before), source)) }
        if !updated.isEmpty { out.append(.updated(updated, source)) }
        return out
    }

    /// One of ours not stored: pending or failed, replacing an earlier copy with its request id.
    mutating func place(_ m: Message) -> Bool {
        let existed = pending.contains { $0.requestId == m.requestId } || failed.contains { $0.requestId == m.requestId }
        pending.removeAll { $0.requestId == m.requestId }
        failed.removeAll { $0.requestId == m.requestId }
        if m.status == .pending { pending.append(m) } else { failed.append(m) }
        return existed
    }

    /// An engine event: the collection's changes it causes (none if it is about another channel,
    /// or about messages outside the window).
    public mutating func apply(_ event: ClientEvent) -> [MessageCollectionEvent] {
        switch event {
        case .messagePending(let m) where m.channelUrl == channelUrl:
            let resend = place(m)
            return [.messages(resend ? .updated([m], .localMessageResendStarted) : .added([m], .localMessagePendingCreated))]
        case .messageFailed(let m) where m.channelUrl == channelUrl:
            _ = place(m)
            return [.messages(.updated([m], .localMessageFailed))]
        case .messageSent(let m) where m.channelUrl == channelUrl:
            let wasPending = pending.contains { $0.requestId == m.requestId } || failed.contains { $0.requestId == m.requestId }
            pending.removeAll { $0.requestId == m.requestId }
            failed.removeAll { $0.requestId == m.requestId }
            // Past the window's newest end (the user scrolled back in time): it waits for loadNext.
            guard !hasNext else { return wasPending ? [.messages(.deleted([m], .eventMessageSent))] : [] }
            defer { slide() }
            return insert([m], source: .eventMessageSent).map { change in
                // The pending line turns into the stored message: an update for whoever shows it.
                if case .added(let ms, let s) = change, wasPending { return .messages(.updated(ms, s)) }
                return .messages(change)
            }
        case .messageReceived(let m) where m.channelUrl == channelUrl:
            guard !hasNext else { return [] }
            defer { slide() }
            return insert([m], source: .eventMessageReceived).map { .messages($0) }
        case .messagesFilled(let url, let ms) where url == channelUrl:
            guard !hasNext else { return [] }
            defer { slide() }
            return insert(ms, source: .messageFill).map { .messages($0) }
        case .messageUpdated(let m) where m.channelUrl == channelUrl:
            return replaceHeld([m], source: .eventMessageUpdated)
        case .messageChangelog(let url, let updated, let deleted) where url == channelUrl:
            return replaceHeld(updated, source: .messageChangelog) + remove(deleted, source: .messageChangelog)
        case .messageDeleted(let url, let id) where url == channelUrl:
            return remove([id], source: .eventMessageDeleted)
        case .reactionUpdated(let url, let id, let key, let user, let added) where url == channelUrl:
            guard let i = succeeded.firstIndex(where: { $0.messageId == id }) else { return [] }
            succeeded[i].applyReaction(key: key, userId: user, added: added)
            return [.messages(.updated([succeeded[i]], .eventReactionUpdated))]
        case .threadInfoUpdated(let url, let parent, let summary) where url == channelUrl:
            guard let i = succeeded.firstIndex(where: { $0.messageId == parent }) else { return [] }
            succeeded[i].thread = summary.replyCount > 0 ? summary : nil
            return [.messages(.updated([succeeded[i]], .eventThreadInfoUpdated))]
        case .channelUpdated(let c) where c.url == channelUrl:
            return [.channelUpdated(c, .eventChannelChanged)]
        case .channelChangelog(let updated, let deleted):
            if deleted.contains(channelUrl) { return [.channelDeleted(url: channelUrl, .channelChangelog)] }
            return updated.filter { $0.url == channelUrl }.map { .channelUpdated($0, .channelChangelog) }
        case .channelDeleted(let url) where url == channelUrl:
            return [.channelDeleted(url: url, .eventChannelDeleted)]
        case .channelRemoved(let url, let reason) where url == channelUrl:
            return [.channelDeleted(url: url, reason == .hidden ? .eventChannelHidden : .eventChannelDeleted)]
        case .hugeGap(let url) where url == channelUrl:
            return [.hugeGap]
        default:
            return []
        }
    }

    mutating func replaceHeld(_ messages: [Message], source: CollectionEventSource) -> [MessageCollectionEvent] {
        var changed: [Message] = []
        for m in messages {
            guard let i = succeeded.firstIndex(where: { $0.messageId == m.messageId }) else { continue }
            succeeded[i] = m
            changed.append(m)
        }
        return changed.isEmpty ? [] : [.messages(.updated(changed, source))]
    }

    mutating func remove(_ ids: [Int64], source: CollectionEventSource) -> [MessageCollectionEvent] {
        let gone = succeeded.filter { ids.contains($0.messageId) }
        succeeded.removeAll { ids.contains($0.messageId) }
        return gone.isEmpty ? [] : [.messages(.deleted(gone, source))]
    }

    /// Drops a failed message of ours (Sendbird's `removeFailedMessages`).
    public mutating func removeFailed(_ requestId: String) -> [MessageCollectionEvent] {
        let gone = failed.filter { $0.requestId == requestId }
        failed.removeAll { $0.requestId == requestId }
        return gone.isEmpty ? [] : [.messages(.deleted(gone, .localMessageCanceled))]
    }
}

/// The user's group channels as a value (Sendbird's `GroupChannelCollection`): ordered by latest
/// activity, optionally only some custom types, with engine events turned into added / updated /
/// deleted changes and their sources.
public struct GroupChannelCollectionState: Sendable, Equatable {
    public private(set) var channels: [GroupChannel] = []
    /// More channels exist on the server than loaded.
    public var hasMore = true
    /// Only channels of these custom types (empty: all).
    public var customTypes: Set<String>
    /// Channels without messages too.
    public var includeEmpty: Bool

    public init(customTypes: Set<String> = [], includeEmpty: Bool = true) {
        self.customTypes = customTypes
        self.includeEmpty = includeEmpty
    }

    func accepts(_ c: GroupChannel) -> Bool {
        (customTypes.isEmpty || customTypes.contains(c.customType)) && (includeEmpty || c.lastMessage != nil)
            && c.myMemberState != "none" && c.hiddenState == "unhidden"
    }

    /// Channels from a page, the cache, or an event: new ones are added, known ones updated, ones
    /// that no longer belong (left, hidden, filtered out) deleted.
    public mutating func upsert(_ list: [GroupChannel], source: CollectionEventSource) -> [CollectionChange<GroupChannel>] {
        var added: [GroupChannel] = []
        var updated: [GroupChannel] = []
        var gone: [GroupChannel] = []
        for c in list {
            let i = channels.firstIndex { $0.url == c.url }
            if !accepts(c) {
                if let i { gone.append(channels.remove(at: i)) }
            } else if let i {
                if channels[i] != c {
                    channels[i] = c
                    updated.append(c)
                }
            } else {
                channels.append(c)
                added.append(c)
            }
        }
        channels.sort(by: GroupChannel.newerFirst)
        var out: [CollectionChange<GroupChannel>] = []
        if !added.isEmpty { out.append(.added(added, source)) }
        if !updated.isEmpty { out.append(.updated(updated, source)) }
        if !gone.isEmpty { out.append(.deleted(gone, source)) }
        return out
    }

    public mutating func remove(_ urls: [String], source: CollectionEventSource) -> [CollectionChange<GroupChannel>] {
        let gone = channels.filter { urls.contains($0.url) }
        channels.removeAll { urls.contains($0.url) }
        return gone.isEmpty ? [] : [.deleted(gone, source)]
    }

    /// An engine event: the changes it causes.
    public mutating func apply(_ event: ClientEvent) -> [CollectionChange<GroupChannel>] {
        switch event {
        case .channelAdded(let c), .channelUpdated(let c):
            return upsert([c], source: .eventChannelChanged)
        case .channelChangelog(let updated, let deleted):
            return upsert(updated, source: .channelChangelog) + remove(deleted, source: .channelChangelog)
        case .channelDeleted(let url):
            return remove([url], source: .eventChannelDeleted)
        case .channelRemoved(let url, let reason):
            return remove([url], source: reason == .hidden ? .eventChannelHidden : .eventUserLeft)
        default:
            return []
        }
    }
}
