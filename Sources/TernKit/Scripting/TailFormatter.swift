import Foundation
import TernProtocol

/// Turns engine events into the lines `tern tail` prints: readable text, or one JSON object per
/// line with a `type` field (`--json`).
public struct TailFormatter: Sendable {
    public var json: Bool
    public var me: String
    /// Only events of this channel (connection events always pass).
    public var channelFilter: String?
    /// Channel URL → name to show, kept from channel events.
    public private(set) var names: [String: String] = [:]

    public init(json: Bool, me: String, channelFilter: String? = nil) {
        self.json = json
        self.me = me
        self.channelFilter = channelFilter
    }

    /// Remembers a channel's display name.
    public mutating func learn(_ channel: GroupChannel) {
        names[channel.url] = channel.displayName(me: me)
    }

    /// The lines for `event` at time `now` (ms); empty when the event is not shown.
    public mutating func lines(for event: ClientEvent, now: Millis) -> [String] {
        switch event {
        case .channelAdded(let c), .channelUpdated(let c):
            learn(c)
        default:
            break
        }
        if let filter = channelFilter, let url = Self.channelUrl(of: event), url != filter { return [] }
        guard let (fields, text) = describe(event, now: now) else { return [] }
        if json {
            var object = fields
            object["time"] = now
            guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return [] }
            return [String(decoding: data, as: UTF8.self)]
        }
        return ["\(Self.clock(now)) \(text)"]
    }

    static func channelUrl(of event: ClientEvent) -> String? {
        switch event {
        case .channelAdded(let c), .channelUpdated(let c): c.url
        case .channelDeleted(let url), .channelRemoved(let url, _), .channelEvent(let url, _): url
        case .openChannelEntered(let c), .openChannelUpdated(let c): c.url
        case .openChannelExited(let url, _): url
        case .messagePending(let m), .messageSent(let m), .messageFailed(let m), .messageReceived(let m): m.channelUrl
        case .typingStarted(let url, _), .typingEnded(let url, _, _): url
        case .readReceiptUpdated(let url, _, _), .deliveryReceiptUpdated(let url, _): url
        case .unreadCountChanged(let url, _, _, _): url
        default: nil
        }
    }

    func channelName(_ url: String) -> String { "#" + (names[url] ?? url) }

    /// The JSON fields and the text of an event, or nil to skip it.
    func describe(_ event: ClientEvent, now: Millis) -> ([String: Any], String)? {
        switch event {
        case .connectionStateChanged, .connected, .reconnectStarted, .reconnectSucceeded, .reconnectFailed, .disconnected, .serverError:
            return describeSession(event, now: now)
        case .channelAdded, .channelDeleted, .channelRemoved, .channelChangelog, .openChannelEntered, .openChannelExited, .userBlocked,
            .userUnblocked:
            return describeChannelList(event)
        case .messageReceived, .messageSent, .messageFailed, .messageUpdated, .messageDeleted, .reactionUpdated, .threadInfoUpdated, .messagesFilled,
            .hugeGap, .messageChangelog:
            return describeMessageEvent(event)
        case .typingStarted, .typingEnded, .readReceiptUpdated, .deliveryReceiptUpdated, .unreadCountChanged:
            return describeActivity(event)
        case .channelEvent(let url, let kind):
            return describeChannelEvent(url, kind)
        case .messagePending, .channelUpdated, .openChannelUpdated, .syncing:
            return nil
        }
    }

    /// The session: the connection, signing in, reconnection, disconnection, the server's errors.
    func describeSession(_ event: ClientEvent, now: Millis) -> ([String: Any], String)? {
        switch event {
        case .connectionStateChanged(let state):
            return describeConnection(state, now: now)
        case .connected(let user):
            return (["type": "connected", "user_id": user.userId, "nickname": user.nickname], "signed in as \(user.displayName)")
        case .reconnectStarted:
            return (["type": "reconnect_started"], "connection lost, reconnecting")
        case .reconnectSucceeded:
            return (["type": "reconnect_succeeded"], "reconnected")
        case .reconnectFailed(let e):
            return (
                ["type": "reconnect_failed", "code": e.code.rawValue, "message": e.message], "reconnection failed: \(e.code.rawValue) \(e.message)"
            )
        case .disconnected(let reason):
            var f: [String: Any] = ["type": "disconnected"]
            switch reason {
            case .requested: f["reason"] = "requested"
            case .refused(let e), .connectFailed(let e), .reconnectFailed(let e):
                f["reason"] = "error"
                f["code"] = e.code.rawValue
                f["message"] = e.message
            }
            return (f, "disconnected" + (f["code"].map { " (\($0): \(f["message"] ?? ""))" } ?? ""))
        case .serverError(let e):
            return (["type": "error", "code": e.code.rawValue, "message": e.message], "server error \(e.code.rawValue): \(e.message)")
        default:
            return nil
        }
    }

    /// The channel list and the people: channels added, gone, removed, changed while away; open channels entered and left; users blocked.
    func describeChannelList(_ event: ClientEvent) -> ([String: Any], String)? {
        switch event {
        case .channelAdded(let c):
            // The engine's list gained the channel: at start-up every existing one does, so the words say what
            // it is, not that anyone joined.
            let text =
                c.myMemberState == "invited"
                ? "\(channelName(c.url)): invitation from \(c.inviter?.displayName ?? "someone")"
                : "\(channelName(c.url)): \(c.unreadMessageCount) unread"
            return (
                ["type": "channel_added", "channel_url": c.url, "name": c.displayName(me: me), "unread_message_count": c.unreadMessageCount], text
            )
        case .channelDeleted(let url):
            return (["type": "channel_deleted", "channel_url": url], "\(channelName(url)) is gone")
        case .channelRemoved(let url, let reason):
            return (["type": "channel_removed", "channel_url": url, "reason": reason.rawValue], "\(channelName(url)) \(reason.rawValue)")
        case .channelChangelog(let updated, let deleted):
            return (
                ["type": "channel_changelog", "updated": updated.map(\.url), "deleted": deleted],
                "while away: \(updated.count) channels changed, \(deleted.count) gone"
            )
        case .openChannelEntered(let c):
            return (
                ["type": "open_channel_entered", "channel_url": c.url, "participant_count": c.participantCount],
                "entered \(channelName(c.url)) (\(c.participantCount) here)"
            )
        case .openChannelExited(let url, let reason):
            return (["type": "open_channel_exited", "channel_url": url, "reason": reason.rawValue], "\(channelName(url)) \(reason.rawValue)")
        case .userBlocked(let u):
            return (["type": "user_blocked", "user_id": u.userId], "blocked \(u.displayName)")
        case .userUnblocked(let u):
            return (["type": "user_unblocked", "user_id": u.userId], "unblocked \(u.displayName)")
        default:
            return nil
        }
    }

    /// Messages: received, sent, failed, edited, deleted, reacted to, replied to; fetched after a gap or changed while away.
    func describeMessageEvent(_ event: ClientEvent) -> ([String: Any], String)? {
        switch event {
        case .messageReceived(let m):
            return (Self.messageFields(m, type: "message"), "\(channelName(m.channelUrl)) \(m.sender?.displayName ?? "admin"): \(m.text)")
        case .messageSent(let m):
            return (Self.messageFields(m, type: "message_sent"), "\(channelName(m.channelUrl)) sent #\(m.messageId): \(m.text)")
        case .messageFailed(let m):
            var f = Self.messageFields(m, type: "message_failed")
            f["code"] = m.error?.code.rawValue ?? 0
            f["error"] = m.error?.message ?? ""
            return (f, "\(channelName(m.channelUrl)) failed (\(m.error?.code.rawValue ?? 0) \(m.error?.message ?? "")): \(m.text)")
        case .messageUpdated(let m):
            return (
                ["type": "message_updated", "channel_url": m.channelUrl, "message_id": m.messageId, "text": m.text],
                "\(channelName(m.channelUrl)) \(m.sender?.displayName ?? "admin") edited: \(m.text)"
            )
        case .messageDeleted(let url, let id):
            return (["type": "message_deleted", "channel_url": url, "message_id": id], "\(channelName(url)) message \(id) deleted")
        case .reactionUpdated(let url, let id, let key, let user, let added):
            return (
                ["type": "reaction", "channel_url": url, "message_id": id, "key": key, "user_id": user, "operation": added ? "add" : "delete"],
                "\(channelName(url)) \(user) \(added ? "reacted" : "took back") :\(key): on \(id)"
            )
        case .threadInfoUpdated(let url, let parent, let t):
            return (
                ["type": "thread", "channel_url": url, "parent_message_id": parent, "reply_count": t.replyCount],
                "\(channelName(url)) thread of \(parent): \(t.replyCount) replies"
            )
        case .messagesFilled(let url, let ms):
            return (
                ["type": "messages_filled", "channel_url": url, "count": ms.count, "message_ids": ms.map(\.messageId)],
                "\(channelName(url)) \(ms.count) missed messages fetched"
            )
        case .hugeGap(let url):
            return (["type": "huge_gap", "channel_url": url], "\(channelName(url)) more than 300 messages missed: starting at the newest")
        case .messageChangelog(let url, let updated, let deleted):
            return (
                ["type": "message_changelog", "channel_url": url, "updated": updated.map(\.messageId), "deleted": deleted],
                "\(channelName(url)) while away: \(updated.count) messages changed, \(deleted.count) deleted"
            )
        default:
            return nil
        }
    }

    /// What others do in a channel: typing, reading, receiving; the unread counts.
    func describeActivity(_ event: ClientEvent) -> ([String: Any], String)? {
        switch event {
        case .typingStarted(let url, let user):
            return (
                ["type": "typing_start", "channel_url": url, "user_id": user.userId, "nickname": user.nickname],
                "\(channelName(url)) \(user.displayName) is typing…"
            )
        case .typingEnded(let url, let user, let expired):
            return (
                ["type": "typing_end", "channel_url": url, "user_id": user.userId, "nickname": user.nickname, "expired": expired],
                "\(channelName(url)) \(user.displayName) stopped typing"
            )
        case .readReceiptUpdated(let url, let userId, let ts):
            return (["type": "read", "channel_url": url, "user_id": userId, "ts": ts], "\(channelName(url)) \(userId) read up to \(Self.clock(ts))")
        case .deliveryReceiptUpdated(let url, let updated):
            return (
                ["type": "delivery", "channel_url": url, "updated": updated],
                "\(channelName(url)) delivered to \(updated.keys.sorted().joined(separator: ", "))"
            )
        case .unreadCountChanged(let url, let count, let mentions, let total):
            var f: [String: Any] = ["type": "unread", "total": total]
            if let url {
                f["channel_url"] = url
                f["unread_message_count"] = count
                f["unread_mention_count"] = mentions
                return (f, "unread: \(channelName(url)) \(count), total \(total)")
            }
            return (f, "unread: total \(total)")
        default:
            return nil
        }
    }

    /// A change of the connection's state.
    func describeConnection(_ state: ConnectionState, now: Millis) -> ([String: Any], String) {
        var f: [String: Any] = ["type": "connection"]
        let text: String
        switch state {
        case .connecting:
            f["state"] = "connecting"
            text = "connecting…"
        case .open:
            f["state"] = "connected"
            text = "connected"
        case .closed:
            f["state"] = "closed"
            text = "offline"
        case .reconnecting(let attempt, let at):
            f["state"] = "reconnecting"
            f["attempt"] = attempt
            if let at {
                let ms = max(0, at - now)
                f["retry_in_ms"] = ms
                text = "reconnecting in \(Int((Double(ms) / 1000).rounded(.up)))s (attempt \(attempt + 1))"
            } else {
                text = "reconnecting… (attempt \(attempt + 1))"
            }
        }
        return (f, text)
    }

    /// Something that happened in a channel: members, invitations, metadata, operators, moderation, entering.
    func describeChannelEvent(_ url: String, _ kind: ChannelEventKind) -> ([String: Any], String) {
        var f: [String: Any] = ["type": "channel_event", "channel_url": url, "event": kind.name]
        let text: String
        switch kind {
        case .joined(let users):
            f["user_ids"] = users.map(\.userId)
            text = "\(users.map(\.displayName).joined(separator: ", ")) joined"
        case .left(let u):
            f["user_id"] = u.userId
            text = "\(u.displayName) left"
        case .invited(let inviter, let invitees):
            f["inviter_id"] = inviter?.userId ?? ""
            f["user_ids"] = invitees.map(\.userId)
            text = "\(inviter?.displayName ?? "the server") invited \(invitees.map(\.displayName).joined(separator: ", "))"
        case .declined(_, let invitee):
            f["user_id"] = invitee.userId
            text = "\(invitee.displayName) declined the invitation"
        case .metadataChanged(let created, let updated, let deleted):
            f["created"] = created
            f["updated"] = updated
            f["deleted"] = deleted
            text = "metadata changed"
        case .metacountersChanged(let created, let updated, let deleted):
            f["created"] = created
            f["updated"] = updated
            f["deleted"] = deleted
            text = "metacounters changed"
        case .operatorsChanged(let ops):
            f["operator_ids"] = ops.map(\.userId)
            text = "operators: " + (ops.isEmpty ? "none" : ops.map(\.displayName).joined(separator: ", "))
        case .muted(let u, let end), .banned(let u, let end):
            f["user_id"] = u.userId
            f["end_at"] = end
            text = "\(u.displayName) \(kind.name)" + (end < 0 ? "" : " until \(Self.clock(end))")
        case .unmuted(let u), .unbanned(let u):
            f["user_id"] = u.userId
            text = "\(u.displayName) \(kind.name)"
        case .entered(let u, let count), .exited(let u, let count):
            f["user_id"] = u.userId
            f["participant_count"] = count
            text = "\(u.displayName) \(kind.name) (\(count) here)"
        default:
            text = kind.name
        }
        return (f, "\(channelName(url)) \(text)")
    }

    static func messageFields(_ m: Message, type: String) -> [String: Any] {
        var f: [String: Any] = [
            "type": type, "channel_url": m.channelUrl, "message_id": m.messageId, "message": m.text,
            "created_at": m.createdAt, "kind": m.kind.rawValue, "custom_type": m.customType,
        ]
        if let s = m.sender {
            f["user_id"] = s.userId
            f["nickname"] = s.nickname
        }
        if let r = m.requestId { f["req_id"] = r }
        return f
    }

    static func clock(_ ms: Millis) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        return formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }
}
