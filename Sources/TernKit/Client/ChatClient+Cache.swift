import Foundation
import Logging
public import TernProtocol

/// A send waiting in the outbox for its message's answer.
typealias OutboxWaiter = CheckedContinuation<Result<Message, SendbirdError>, Never>

extension ChatClient {
    /// Errors after which a message goes again by itself once connected (Sendbird's auto-resend set,
    /// plus 800180: the server may have stored it, and the same `req_id` makes a second send harmless).
    static let autoResendCodes: Set<ErrorCode> = [
        .connectionRequired, .networkError, .ackTimeout, .webSocketConnectionClosed, .webSocketConnectionFailed, .requestFailed,
        .channelFrozen,
    ]

    /// Errors a user may resend a failed message after (Sendbird's `isResendable`).
    public static func isResendable(_ error: SendbirdError?) -> Bool {
        guard let code = error?.code else { return false }
        return autoResendCodes.contains(code) || [800240, 800250, 800400, 500901, 500910, 900200].contains(code.rawValue)
    }

    // MARK: - Publishing

    /// Every event goes through here: the cache records it, then subscribers hear it (at the end of
    /// the socket read being handled, with the read's other events, when there is one).
    func emit(_ event: ClientEvent) {
        if let cache { record(event, cache) }
        if eventBatch != nil {
            eventBatch?.append(event)
        } else {
            hub.emit([event])
        }
    }

    /// Runs `body` with the events it emits held back, then publishes them as one batch.
    func batchingEvents(_ body: () -> Void) {
        guard eventBatch == nil else { return body() }
        eventBatch = []
        body()
        let batch = eventBatch ?? []
        eventBatch = nil
        hub.emit(batch)
    }

    func record(_ event: ClientEvent, _ cache: LocalCache) {
        switch event {
        case .connected(let user):
            cache.user = user
        case .channelAdded(let c), .channelUpdated(let c):
            cache.saveChannels([c])
        case .unreadCountChanged(let url?, _, _, _):
            if let c = store[url] { cache.saveChannels([c]) }
        case .channelDeleted(let url), .channelRemoved(let url, _):
            cache.removeChannel(url)
            catchUp.forget(url)
        case .messagePending(let m), .messageFailed(let m):
            if isCached(m.channelUrl) { cache.saveUnsent(m) }
        case .messageSent(let m):
            if let id = m.requestId { cache.removeUnsent(id) }
            if isCached(m.channelUrl) { cache.saveLive(m, extend: catchUp.isSynced(m.channelUrl)) }
        case .messageReceived(let m):
            if isCached(m.channelUrl) { cache.saveLive(m, extend: catchUp.isSynced(m.channelUrl)) }
            liveWrites += 1
            if liveWrites >= 500 {
                // A busy session grows the cache too: check its size now and then.
                liveWrites = 0
                cache.enforceLimit(keep: onScreen.all)
            }
        case .messageUpdated(let m):
            cache.updateMessage(m)
        case .messageDeleted(let url, let id):
            cache.deleteMessage(url, id)
        case .messageChangelog(let url, let updated, let deleted):
            for m in updated { cache.updateMessage(m) }
            for id in deleted { cache.deleteMessage(url, id) }
        case .channelChangelog(let updated, let deleted):
            cache.saveChannels(updated)
            for url in deleted {
                cache.removeChannel(url)
                catchUp.forget(url)
            }
        case .reactionUpdated(let url, let id, let key, let user, let added):
            cache.modifyMessage(url, id) { $0.applyReaction(key: key, userId: user, added: added) }
        case .threadInfoUpdated(let url, let parent, let summary):
            cache.modifyMessage(url, parent) { $0.thread = summary.replyCount > 0 ? summary : nil }
        default:
            break
        }
    }

    /// Group channels' messages are cached; open channels' are not (they are a live room).
    func isCached(_ url: String) -> Bool {
        cache != nil && !openChannels.isOpen(url)
    }

    // MARK: - Reading the cache

    /// Channels as the cache last saw them (empty without a cache): an offline start paints these.
    public func cachedChannels() -> [GroupChannel] {
        cache?.channels() ?? []
    }

    /// Held messages of `url` before `before` (nil: the newest), oldest first, with our unsent ones
    /// (pending or failed) after them when `before` is nil. Nil when nothing is held.
    public func cachedMessages(in url: String, before: Millis? = nil, limit: Int = 50) -> MessagePage? {
        guard let cache,
            var page = cache.messages(url, before: before, limit: limit) ?? (before == nil ? MessagePage(messages: [], hasPrevious: true) : nil)
        else { return nil }
        if before == nil {
            let unsent = cache.unsent(url)
            if page.messages.isEmpty && unsent.isEmpty { return nil }
            page.messages += unsent
        }
        return page
    }

    /// Messages of ours not stored by the server yet (pending, or failed with their error), oldest first.
    public func unsentMessages(in url: String? = nil) -> [Message] {
        var list = cache?.unsent(url) ?? []
        for m in outbox.messages where url == nil || m.channelUrl == url {
            if !list.contains(where: { $0.requestId == m.requestId }) { list.append(m) }
        }
        return list.sorted { $0.createdAt < $1.createdAt }
    }

    /// Remembers a page the server gave, so the run held stays continuous. `before` nil: the newest
    /// page, after which live messages extend the run (the channel is synced).
    func remember(_ page: MessagePage, url: String, before: Millis?) {
        guard let cache, isCached(url) else { return }
        let from: Millis = page.hasPrevious ? (page.messages.first?.createdAt ?? 0) : 0
        if let before {
            guard !page.messages.isEmpty || !page.hasPrevious else { return }
            cache.savePage(page.messages, url: url, from: from, to: before - 1)
        } else {
            if let last = page.messages.last {
                cache.savePage(page.messages, url: url, from: from, to: last.createdAt)
            } else if !page.hasPrevious {
                // No messages yet: the run is empty and starts at the beginning; live messages extend it.
                cache.savePage([], url: url, from: 0, to: 0)
            }
            // Held messages newer than the newest page came live on this connection while it was asked
            // for (ours sent meanwhile, say): they continue the run.
            if case .open = machine.state { cache.extendToHeld(url) }
            catchUp.markSynced(url)
        }
        cache.enforceLimit(keep: onScreen.all.union([url]))
    }

    // MARK: - Sending while offline

    /// Whether a send now should wait for the connection instead of failing.
    var shouldQueue: Bool {
        switch machine.state {
        case .connecting, .reconnecting: true
        case .open: socket == nil
        case .closed: false
        }
    }

    /// Waits in the outbox until the connection is back and it is this message's turn.
    func enqueue(_ pending: Message, _ params: UserMessageParams) async -> Result<Message, SendbirdError> {
        await withCheckedContinuation { outbox.wait(pending, params, $0) }
    }

    /// After a (re)connection: messages written offline go out in order, then failed ones with an
    /// auto-resend code (from this run or a cached earlier one), one at a time `resendSpacing` apart;
    /// failed messages of frozen channels wait. A message left unanswered while the socket stays up is
    /// asked for again (its `req_id` makes that harmless) before anything behind it. Stops when the
    /// connection goes.
    func runOutbox() async {
        guard !outbox.isRunning else {
            outbox.askedAgain = true
            return
        }
        outbox.isRunning = true
        defer { outbox.isRunning = false }
        if let cache, !outbox.restored { outbox.restore(cache.unsent()) }
        var index = 0
        var first = true
        while true {
            guard let i = outbox.next(from: index, isFrozen: { store[$0]?.isFrozen ?? false }) else {
                guard outbox.askedAgain else { return }
                outbox.askedAgain = false
                index = 0
                continue
            }
            guard case .open = machine.state, socket != nil else { return }
            var message = outbox.items[i].message
            let params = outbox.items[i].params
            if !first { try? await Task.sleep(for: .milliseconds(configuration.resendSpacing)) }
            first = false
            if message.status == .failed {
                message.status = .pending
                message.error = nil
                emit(.messagePending(message))
            }
            let result = await transmit(message, params)
            let (waiters, step) = outbox.settle(message.requestId, result, at: i, keepFrozen: cache != nil)
            for w in waiters { w.resume(returning: result) }
            switch step {
            case .next(let at):
                index = at
            case .stop:
                // No answer, yet the socket is still up (an answer lost or slow): the same message again, first.
                guard case .failure(let e) = result, e.code == .ackTimeout, case .open = machine.state, socket != nil,
                    let at = outbox.items.firstIndex(where: { $0.message.requestId == message.requestId })
                else { return }
                index = at
            }
        }
    }

    // MARK: - Catching up after a (re)connection

    /// Channel changelogs (or a full list on the first connection without a token), then the
    /// outbox, then each channel on screen: message changelogs and a gap fill.
    func syncAfterLogin(loginTs: Millis, first: Bool) async {
        let run = catchUp.startRun()
        emit(.syncing(true))
        // What waited goes first, so later sends stay behind it.
        Task { await self.runOutbox() }
        await syncChannels(loginTs: loginTs, first: first)
        for url in onScreen.all.sorted() where isCached(url) {
            guard catchUp.isCurrent(run), case .open = machine.state else { break }
            await syncChannelMessages(url)
        }
        cache?.setValue(String(loginTs), for: "login_ts")
        if catchUp.isCurrent(run) { emit(.syncing(false)) }
    }

    /// Brings the channel list up to date: by changelog token when there is one, else by reading the
    /// whole list (dropping cached channels the server no longer lists) and taking a token.
    func syncChannels(loginTs: Millis, first: Bool) async {
        let tokenKey = "channel_changelog_token"
        if let token = cache?.value(tokenKey) ?? catchUp.channelChangelogToken {
            if await applyChannelChangelogs([("token", token)]) { return }
        }
        guard first || cache == nil else {
            await resync()
            return
        }
        do {
            let before = Set(store.channels.keys)
            let loaded = try await loadAllChannels()
            let kept = Set(loaded.map(\.url))
            for url in before.subtracting(kept) { removeFromList(url, .left) }
            _ = await applyChannelChangelogs([("change_ts", String(loginTs))])
        } catch {
            logger.warning("channel list after login: \(error)")
        }
    }

    /// Applies channel changelogs from `start` until `has_more` ends; keeps the last token. False if
    /// the server refused (an old token, a server without changelogs).
    func applyChannelChangelogs(_ start: [(String, String)]) async -> Bool {
        guard let key = sessionKey else { return false }
        var cursor = start
        for _ in 0..<100 {
            let query = cursor + [("limit", "100"), ("show_empty", "true"), ("show_frozen", "true")] + Self.channelQuery
            guard
                let page = try? await rest.request(
                    "GET", RESTClient.path("/v3/users/\(RESTClient.segment(me))/my_group_channels/changelogs", query), sessionKey: key,
                    as: GroupChannelChangelog.self)
            else { return false }
            var updated: [GroupChannel] = []
            var gone: [String] = []
            for p in page.updated {
                let c = GroupChannel(p)
                if c.myMemberState == "none" || c.hiddenState != "unhidden" {
                    gone.append(c.url)
                } else {
                    store.upsert(c)
                    if let kept = store[c.url] { updated.append(kept) }
                }
            }
            gone += page.deleted
            gone = gone.filter { store[$0] != nil }
            for url in gone {
                closeChannel(url)
                channelReads.removed(url)
                store.remove(url)
            }
            if !updated.isEmpty || !gone.isEmpty {
                emit(.channelChangelog(updated: updated, deleted: gone))
                emit(.unreadCountChanged(channelUrl: nil, unreadMessageCount: 0, unreadMentionCount: 0, total: store.totalUnread))
            }
            if case let next = page.next, !next.isEmpty {
                catchUp.channelChangelogToken = next
                cache?.setValue(next, for: "channel_changelog_token")
                cursor = [("token", next)]
            }
            if !page.hasMore { return true }
        }
        return true
    }

    /// One channel catches up: what changed in the messages held (message changelogs since the last
    /// login), then what arrived after the newest held (gap fill), or — past 300 missing — a huge
    /// gap: the held messages go and the newest page replaces them.
    func syncChannelMessages(_ url: String) async {
        guard let cache, let key = sessionKey else { return }
        guard let range = cache.range(url) else {
            // Nothing held: the newest page is the start.
            if let page = try? await previousMessages(in: url, before: nil, limit: 50) { emit(.messagesFilled(channelUrl: url, page.messages)) }
            return
        }
        if let since = cache.value("login_ts").flatMap(Millis.init) {
            await applyMessageChangelogs(url, since: since, key: key)
        }
        var start = range.newest
        var filled: [Message] = []
        for _ in 0..<10 {
            let query: [(String, String)] = [
                ("next_start_ts", String(start)), ("next_end_ts", "9007199254740991"), ("next_cache_count", "1"),
                ("reverse", "false"), ("include_reply_type", "only_reply_to_channel"), ("include_thread_info", "true"),
                ("include_reactions", "true"), ("include_parent_message_info", "true"),
            ]
            let gap: MessageGap
            do {
                gap = try await rest.request(
                    "GET", RESTClient.path("/v3/group_channels/\(RESTClient.segment(url))/messages_gap", query), sessionKey: key,
                    as: MessageGap.self)
            } catch {
                logger.warning("gap fill of \(url): \(error)")
                return
            }
            if gap.isHugeGap {
                cache.resetMessages(url)
                emit(.hugeGap(channelUrl: url))
                _ = try? await previousMessages(in: url, before: nil, limit: 50)
                return
            }
            let fresh = gap.nextMessages.map(Message.init).filter { $0.createdAt >= start }
            let last = fresh.map(\.createdAt).max() ?? start
            cache.savePage(fresh, url: url, from: range.oldest, to: last)
            filled += fresh
            start = last
            if !gap.nextHasmore { break }
        }
        // Live messages that came while the fill ran are part of the run now (the socket was up all along).
        guard case .open = machine.state else { return }
        cache.extendToHeld(url)
        catchUp.markSynced(url)
        var seen = Set<Int64>()
        let unique = filled.filter { seen.insert($0.messageId).inserted }.sorted { ($0.createdAt, $0.messageId) < ($1.createdAt, $1.messageId) }
        emit(.messagesFilled(channelUrl: url, unique))
    }

    func applyMessageChangelogs(_ url: String, since: Millis, key: String) async {
        var cursor: [(String, String)] = [("change_ts", String(since))]
        for _ in 0..<50 {
            let query = cursor + [("include_reply_type", "all"), ("include_thread_info", "true"), ("include_parent_message_info", "true")]
            guard
                let page = try? await rest.request(
                    "GET", RESTClient.path(channelBase(url) + "/messages/changelogs", query), sessionKey: key, as: MessageChangelog.self)
            else { return }
            let updated = page.updated.map { p -> Message in
                var m = Message(p)
                m.requestId = nil
                return m
            }
            var lastGone = false
            for m in updated { _ = store.applyUpdated(m) }
            for d in page.deleted where !deletedSeen.contains(d.messageId) {
                deletedSeen.append(d.messageId)
                lastGone = store.applyDeleted(url: url, id: d.messageId) || lastGone
            }
            if !updated.isEmpty || !page.deleted.isEmpty {
                emit(.messageChangelog(channelUrl: url, updated: updated, deleted: page.deleted.map(\.messageId)))
                if let c = store[url] { emit(.channelUpdated(c)) }
            }
            if lastGone { refreshChannel(url) }
            guard page.hasMore, case let next = page.next, !next.isEmpty else { return }
            cursor = [("token", next)]
        }
    }

    /// Opens a channel's history for display: the newest page from the server (kept in the cache),
    /// or — when the channel was synced on this connection already — from the cache; a channel
    /// with messages held but not synced catches up first (changelogs, gap fill).
    public func latestMessages(in url: String, limit: Int = 50) async throws -> MessagePage {
        cache?.markOpened(url, at: clock.now())
        if isCached(url), catchUp.isSynced(url), let page = cache?.messages(url, limit: limit), !page.messages.isEmpty {
            return page
        }
        if isCached(url), cache?.range(url) != nil, case .open = machine.state {
            await syncChannelMessages(url)
            if catchUp.isSynced(url), let page = cache?.messages(url, limit: limit), !page.messages.isEmpty { return page }
        }
        return try await previousMessages(in: url, before: nil, limit: limit)
    }
}

extension UserMessageParams {
    /// What sending `m` again needs.
    init(resending m: Message) {
        self.init(m.text)
        data = m.data
        customType = m.customType
        mentionedUserIds = m.mentionedUserIds
        mentionType = m.mentionType
        metaarray = m.metaarray
        parentMessageId = m.parentMessageId
        replyToChannel = m.isReplyToChannel
    }
}

extension Message {
    /// `userId` added (or took away) reaction `key`.
    public mutating func applyReaction(key: String, userId: String, added: Bool) {
        if let i = reactions.firstIndex(where: { $0.key == key }) {
            if added {
                if !reactions[i].userIds.contains(userId) { reactions[i].userIds.append(userId) }
            } else {
                reactions[i].userIds.removeAll { $0 == userId }
                if reactions[i].userIds.isEmpty { reactions.remove(at: i) }
            }
        } else if added {
            reactions.append(Reaction(key: key, userIds: [userId]))
        }
    }
}
