import Foundation
import TernKit

/// The engine's events, into the state.
extension Reducer {
    /// One event from `ChatClient`: the state follows; some events bring effects (an alert, a selection, a page).
    func apply(_ event: ClientEvent, _ state: inout AppState) -> [Effect] {
        switch event {
        case .connectionStateChanged(let s):
            state.connection = s
        case .connected(let user):
            state.me = user
        case .channelAdded(let c), .channelUpdated(let c):
            if case .channelAdded = event, c.myMemberState == "invited" {
                state.notice = "\(c.inviter?.displayName ?? "someone") invited you to #\(c.title(me: state.me(for: c.url).userId))"
            }
            upsert(c, &state)
            if state.selected == nil { return select(c.url, &state) }
        case .channelDeleted(let url), .channelRemoved(let url, _):
            state.channels.removeAll { $0.url == url }
            state.messages[url] = nil
            forget(url, &state)
            if state.selected == url {
                state.selected = nil
                if let first = state.channels.first { return select(first.url, &state) }
            }
        case .channelEvent(let url, let kind):
            if let text = Self.describe(kind, channel: url, state) { state.notice = text }
            moderationLine(kind, url: url, &state, now: Millis(Date().timeIntervalSince1970 * 1000))
            switch kind {
            case .entered, .exited, .banned, .muted, .unmuted, .operatorsChanged: return paneRefresh(url, state)
            default: break
            }
        case .openChannelEntered, .openChannelUpdated, .openChannelExited:
            return applyOpenChannelEvent(event, &state)
        case .messagePending(let m):
            return applyPending(m, &state)
        case .messageSent(let m), .messageFailed(let m):
            applySent(m, &state)
        case .messageReceived(let m):
            return applyReceived(m, &state)
        case .typingStarted(let url, let user):
            if !(state.typers[url] ?? []).contains(where: { $0.userId == user.userId }) { state.typers[url, default: []].append(user) }
        case .typingEnded(let url, let user, _):
            state.typers[url]?.removeAll { $0.userId == user.userId }
        case .unreadCountChanged(_, _, _, let total):
            state.totalUnread = total
        case .reconnectFailed(let e):
            state.notice = "reconnection failed: " + ErrorText.describe(e, .connect)
        case .disconnected(let reason):
            switch reason {
            case .refused(let e), .connectFailed(let e), .reconnectFailed(let e):
                state.notice = "disconnected: " + ErrorText.describe(e, .connect)
            case .requested:
                break
            }
        case .serverError(let e):
            state.notice = "server: " + ErrorText.describe(e)
        case .userBlocked(let u):
            state.notice = "blocked \(u.displayName): their messages no longer count as unread"
        case .userUnblocked(let u):
            state.notice = "unblocked \(u.displayName)"
        case .messageUpdated, .messageDeleted, .reactionUpdated, .threadInfoUpdated:
            applyMessageChange(event, &state)
        case .syncing(let on):
            state.syncing = on
        case .messageChangelog(let url, let updated, let deleted):
            for m in updated { applyMessageChange(.messageUpdated(m), &state) }
            for id in deleted { applyMessageChange(.messageDeleted(channelUrl: url, messageId: id), &state) }
        case .channelChangelog(let updated, let deleted):
            return applyChannelChangelog(updated: updated, deleted: deleted, &state)
        case .messagesFilled(let url, let filled):
            Self.merge(filled, into: url, &state)
        case .hugeGap(let url):
            state.notice = "more than 300 messages missed in \(Self.channelLabel(url, state)): showing the newest"
            guard state.messages[url] != nil else { return [] }
            state.messages[url] = nil
            state.hasPrevious[url] = nil
            if url == state.selected {
                state.scroll = 0
                state.loadingHistory.insert(url)
                return [.loadHistory(channelUrl: url, before: nil)]
            }
        case .readReceiptUpdated, .deliveryReceiptUpdated, .reconnectStarted, .reconnectSucceeded:
            break
        }
        return []
    }

    /// A message on its way: a resend's failed line turns pending again in place; a new one is added.
    func applyPending(_ m: Message, _ state: inout AppState) -> [Effect] {
        // A resend keeps its request id: the failed line turns pending again in place.
        if let i = state.messages[m.channelUrl]?.firstIndex(where: { $0.requestId != nil && $0.requestId == m.requestId }) {
            state.messages[m.channelUrl]![i] = m
            return []
        }
        if let t = state.thread, t.channelUrl == m.channelUrl, m.parentMessageId == t.parent.messageId { state.thread?.replies.append(m) }
        state.messages[m.channelUrl, default: []].append(m)
        return []
    }

    /// The server stored a message (it takes its place in time) or refused it (it stays, marked).
    func applySent(_ m: Message, _ state: inout AppState) {
        if let id = m.requestId, let upload = state.uploads.removeValue(forKey: id) {
            state.notice =
                m.status == .succeeded
                ? "\(upload.name) sent" : "\(upload.name): " + (m.error.map { ErrorText.describe($0, .upload(upload.name)) } ?? "not sent")
        }
        var list = state.messages[m.channelUrl] ?? []
        if m.status == .succeeded {
            // Stored: it takes its place in time among the stored ones (others may have come first).
            list.removeAll { $0.requestId != nil && $0.requestId == m.requestId }
            Self.placeStored(m, in: &list)
        } else if let i = list.firstIndex(where: { $0.requestId != nil && $0.requestId == m.requestId }) {
            list[i] = m
        } else if !list.contains(where: { $0.messageId == m.messageId && m.messageId > 0 }) {
            list.append(m)
        }
        state.messages[m.channelUrl] = list
        keepScrollback(m.channelUrl, &state)
        if let i = state.thread?.replies.firstIndex(where: { $0.requestId != nil && $0.requestId == m.requestId }) {
            state.thread?.replies[i] = m
        }
    }

    /// Someone's message: into the channel and the open thread; its sender stops typing; perhaps an alert.
    func applyReceived(_ m: Message, _ state: inout AppState) -> [Effect] {
        if state.messages[m.channelUrl] != nil, !(state.messages[m.channelUrl]!.contains { $0.messageId == m.messageId }) {
            Self.placeStored(m, in: &state.messages[m.channelUrl]!)
            keepScrollback(m.channelUrl, &state)
        }
        if let t = state.thread, t.channelUrl == m.channelUrl, m.parentMessageId == t.parent.messageId,
            !t.replies.contains(where: { $0.messageId == m.messageId })
        {
            state.thread?.replies.append(m)
        }
        if let i = state.typers[m.channelUrl]?.firstIndex(where: { $0.userId == m.sender?.userId }) {
            state.typers[m.channelUrl]?.remove(at: i)
        }
        return Self.alertEffects(m, state, zone: layout.zone)
    }

    /// Messages a channel keeps in memory: as a channel that stays open fills, the oldest leave (paging
    /// back reads them again, from the cache or the server), so neither memory nor the work per incoming
    /// line grows with a session's length. irssi keeps 500 lines a window, weechat 4,096.
    public static let defaultScrollback = 1_000

    /// The oldest stored messages of `url` past ``scrollback`` leave, a quarter of it at a time (not a move
    /// of the whole list per message), unless the user is reading back in that channel or has picked a
    /// message there (what is on screen must not move).
    func keepScrollback(_ url: String, _ state: inout AppState) {
        guard let count = state.messages[url]?.count, count > scrollback + scrollback / 4 else { return }
        if url == state.selected, state.scroll > 0 || state.picker != nil { return }
        let stored = state.messages[url]!.prefix { $0.status == .succeeded }.count
        let drop = min(count - scrollback, stored)
        guard drop > 0 else { return }
        state.messages[url]!.removeFirst(drop)
        state.hasPrevious[url] = true
    }

    /// Channels changed and gone while away; the selection moves off a channel that is gone.
    func applyChannelChangelog(updated: [GroupChannel], deleted: [String], _ state: inout AppState) -> [Effect] {
        for c in updated { upsert(c, &state) }
        for url in deleted {
            state.channels.removeAll { $0.url == url }
            state.messages[url] = nil
            forget(url, &state)
        }
        if let s = state.selected, deleted.contains(s) {
            state.selected = nil
            if let first = state.channels.first { return select(first.url, &state) }
        } else if state.selected == nil, let first = state.channels.first {
            return select(first.url, &state)
        }
        return []
    }

    /// A status line for a channel event the user should hear of: invitations to them anywhere, anything
    /// about the channel on screen.
    static func describe(_ kind: ChannelEventKind, channel url: String, _ state: AppState) -> String? {
        let name = channelLabel(url, state)
        let me = state.me(for: url).userId
        if case .invited(let inviter, let invitees) = kind, invitees.contains(where: { $0.userId == me }) {
            // An unknown channel is announced once it is read (channelAdded), with its name.
            guard state.channels.contains(where: { $0.url == url }) else { return nil }
            return "\(inviter?.displayName ?? "someone") invited you to \(name)"
        }
        guard url == state.selected else { return nil }
        switch kind {
        case .joined(let users): return "\(users.map(\.displayName).joined(separator: ", ")) joined \(name)"
        case .left(let u): return u.userId == me ? nil : "\(u.displayName) left \(name)"
        case .invited(_, let invitees): return "\(invitees.map(\.displayName).joined(separator: ", ")) invited to \(name)"
        case .declined(_, let u): return "\(u.displayName) declined the invitation to \(name)"
        case .frozen: return "\(name) is frozen: only operators can send"
        case .unfrozen: return "\(name) is no longer frozen"
        case .metadataChanged: return "\(name): metadata changed"
        default: return nil
        }
    }
}
