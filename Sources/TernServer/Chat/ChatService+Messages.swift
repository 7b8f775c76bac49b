import Foundation
import Logging
import NIOCore
import Synchronization
public import TernProtocol

extension ChatService {
    /// Sends a user message from `userId`: checks, stores (durably), then fans out. The copy to
    /// `connection` (the sending socket) carries `req_id`; every other connection of every member,
    /// the sender's other devices included, gets the same bytes without it.
    /// `arrivedAt`: when the request reached this node (the flood limit counts arrivals, so sends
    /// that queued behind a slow one are not refused for coming through at once).
    /// - Returns: the stored message as the sender's acknowledgement shows it.
    @discardableResult
    public func sendUserMessage(
        from userId: String, _ outgoing: OutgoingMessage, connection: ClientConnection?, origin: RequestOrigin, arrivedAt: Int64? = nil
    ) async throws -> MessagePayload {
        var out = outgoing
        let t0 = arrivedAt ?? now()
        let (roster, me) = try await senderContext(userId, channelUrl: out.channelUrl, origin: origin)
        let channel = roster.channel
        if out.message.isEmpty { throw SendbirdError.missing("message") }
        try TextLimit.message(config.maxMessageLength).check(out.message)
        // The profanity and domain filters: asterisks, or 900060. The original of a message the
        // filter changed is kept for the Platform API's moderated-message view.
        let original = out.message
        out.message = try await filtered(out.message, channel: channel)
        let parentInfo = try await checkSend(out, from: userId, me: me, origin: origin, at: t0, limitsMentions: true)
        let senderPayload = try await sender(userId)
        var mentionedUsers: [String: UserRecord] = [:]
        if !out.mentionedUserIds.isEmpty {
            for u in try await store.users(out.mentionedUserIds) { mentionedUsers[u.userId] = u }
        }
        let online = onlineRecipients(roster.members, sender: userId)
        // A link preview already cached comes with the message; otherwise it follows as an update.
        let link = config.linkPreviews ? LinkPreviews.firstURL(in: out.message) : nil
        var cachedPreview: String?
        var fetchPreview = false
        if let link {
            if let cached = try await store.ogCache(link), now() - cached.fetchedAt < LinkPreviews.cacheLifetimeMs {
                cachedPreview = cached.json
            } else {
                fetchPreview = true
            }
        }
        var new = newMessage(
            "MESG", out, text: out.message, from: userId, me: me, in: roster,
            mentioned: Self.mentionable(out.mentionedUserIds.filter { mentionedUsers[$0] != nil }, in: channel), silent: out.silent,
            online: online, origin: origin)
        new.ogTag = cachedPreview
        let reqId = out.reqId
        let users = mentionedUsers
        let (stored, payload) = try await pipeline.submit(new) { stored in
            try self.deliverNow(
                stored, command: "MESG", sender: senderPayload, users: users, roster: roster, parentInfo: parentInfo,
                connection: connection, reqId: reqId)
        }
        if !stored.duplicate {
            if fetchPreview, let link, !channel.isEphemeral {
                let id = stored.message.messageId
                let url = channel.channelUrl
                // At most so many previews at once, and per sender: a link beyond gets none.
                if previews.enter(userId) {
                    Task {
                        defer { self.previews.leave(userId) }
                        await self.fetchPreview(link, messageId: id, channelUrl: url)
                    }
                }
            }
            if original != out.message {
                let kept = try JSONSerialization.data(withJSONObject: ["original": original, "filtered": out.message], options: [.sortedKeys])
                try await store.setSetting(
                    scope: "moderated_message", key: "\(channel.channelUrl)/\(stored.message.messageId)", json: String(decoding: kept, as: UTF8.self))
            }
        }
        try await afterDelivery(stored, roster: roster)
        return payload
    }

    /// A reply's parent must be one the sender can read: not hidden from them and not older than
    /// their history (`ts_message_offset`); the reply carries the parent's text (and its sender) to
    /// everyone. (The store checks that it is in the same channel and not itself a reply.)
    /// - Returns: what the reply shows of its parent; nil for a message that is no reply.
    func visibleParentInfo(_ parentId: Int64, channelUrl: String, for me: MemberRecord, origin: RequestOrigin) async throws
        -> ParentMessageInfo?
    {
        guard parentId != 0 else { return nil }
        guard let parent = try await store.message(channelUrl, id: parentId),
            parent.hiddenFor != me.userId, parent.createdAt > me.tsMessageOffset
        else {
            throw SendbirdError(origin == .webSocket ? .messageNotFound : .notFound, "\"Message\" not found: \(parentId) (the parent).")
        }
        return Presenter.parentInfo(parent, users: try await usersById([parent.senderId].compactMap { $0 }))
    }

    /// The channel and the sender's membership for a send: unknown channel (900500 / 400201), not a
    /// member (900020), frozen for all but operators (900050).
    /// In an open channel: a participant (over the WebSocket; the Platform API may send as anyone who is not
    /// banned); muted users are refused (900041) in both types.
    /// The checks text and file messages share, in order: custom type, data, mentions (when
    /// `limitsMentions`), `req_id`, metaarray, the parent (returned, as the reply shows it), and
    /// the flood limit (the excess is refused and not stored).
    func checkSend(
        _ out: some OutgoingMessageFields, from userId: String, me: MemberRecord, origin: RequestOrigin, at t0: Int64, limitsMentions: Bool
    ) async throws -> ParentMessageInfo? {
        try TextLimit.customType.check(out.customType)
        try TextLimit.data.check(out.data)
        if limitsMentions && out.mentionedUserIds.count > 100 { throw SendbirdError(.tooManyItems, "Too many mentioned users (at most 100).") }
        if let r = out.reqId { try TextLimit.reqId.check(r) }
        try Self.checkMetaarray(out.sortedMetaarray)
        let parentInfo = try await visibleParentInfo(out.parentMessageId, channelUrl: out.channelUrl, for: me, origin: origin)
        try floodLimits.check(.messages, userId: userId, channelUrl: out.channelUrl, origin: origin, at: t0)
        return parentInfo
    }

    /// The message to store for a text or file message `userId` sends in `roster`'s channel now.
    func newMessage(
        _ type: String, _ out: some OutgoingMessageFields, text: String, from userId: String, me: MemberRecord, in roster: ChannelRoster,
        mentioned: [String], silent: Bool, online: [String], origin: RequestOrigin
    ) -> NewMessage {
        let channel = roster.channel
        return NewMessage(
            channelUrl: channel.channelUrl, type: type, senderId: userId, message: text, customType: out.customType, data: out.data,
            mentionType: out.mentionType == "channel" ? "channel" : "users", mentionedUserIds: mentioned, silent: silent,
            isOpMsg: me.role == "operator", createdAt: 0, reqId: out.reqId, persist: !channel.isEphemeral,
            markSenderRead: !channel.isSuper, totalsFor: online, sortedMetaarray: out.sortedMetaarray,
            parentMessageId: out.parentMessageId, replyToChannel: out.replyToChannel,
            countingMembers: channel.isSuper ? nil : roster.counting, channelCustomType: channel.customType,
            floodLimited: origin.isFloodLimited)
    }

    func senderContext(_ userId: String, channelUrl: String, origin: RequestOrigin) async throws -> (ChannelRoster, MemberRecord) {
        do {
            return try await senderContext(userId, channelUrl: channelUrl, origin: origin, fresh: false)
        } catch is SendbirdError where cluster != nil {
            // Another node may have lifted a ban or mute, or added the member, a moment ago
            // (its invalidation is on its way): a refusal is checked against the store first.
            return try await senderContext(userId, channelUrl: channelUrl, origin: origin, fresh: true)
        }
    }

    func senderContext(_ userId: String, channelUrl: String, origin: RequestOrigin, fresh: Bool) async throws -> (ChannelRoster, MemberRecord) {
        if fresh { rosters.remove(channelUrl) }
        guard let roster = try await roster(channelUrl) else {
            throw SendbirdError(origin.channelNotFound, "\"Channel\" not found: \(channelUrl).")
        }
        let t = now()
        let me: MemberRecord
        if roster.channel.isOpen {
            if let end = roster.banned[userId], roster.isBanned(userId, at: t) {
                throw Self.banned(end, webSocket: origin == .webSocket)
            }
            if origin == .webSocket && !openChannels.rooms.isParticipant(channelUrl, userId) {
                throw SendbirdError(.notAMember, "Enter the open channel before sending to it: \(channelUrl).")
            }
            me = MemberRecord.participant(roster.channel, userId)
        } else {
            guard let m = roster.member(userId), m.state == "joined" else {
                if let end = roster.banned[userId], roster.isBanned(userId, at: t) { throw Self.banned(end, webSocket: origin == .webSocket) }
                throw SendbirdError(.notAMember, "Not a member of the channel: \(channelUrl).")
            }
            me = m
        }
        if roster.isMuted(userId, at: t) {
            throw SendbirdError(.mutedInChannel, "Muted in the channel.")
        }
        if roster.channel.freeze && me.role != "operator" {
            throw SendbirdError(.channelFrozen, "The channel is frozen.")
        }
        return (roster, me)
    }

    /// Delivers a message just stored (in commit order, without waiting): presented and encoded
    /// once (a reply with its parent), the copy with `req_id` to the sending socket, the same bytes
    /// (each with the recipient's `unread_cnt`) to every member. Returns the sender's view of it.
    func deliverNow(
        _ stored: StoredMessage, command: String, sender: SenderPayload?, users known: [String: UserRecord], roster: ChannelRoster,
        parentInfo: ParentMessageInfo?, connection: ClientConnection?, reqId: String?
    ) throws -> MessagePayload {
        var users = known
        if let s = sender {
            users[s.userId] = UserRecord(
                userId: s.userId, nickname: s.nickname, profileUrl: s.profileUrl, metadata: s.metadata, createdAt: 0,
                lastSeenAt: 0, hasEverLoggedIn: true, isActive: true)
        }
        var payload = Presenter.message(stored.message, users: users, channelType: roster.channel.channelType)
        if stored.message.parentMessageId != 0 { payload.parentMessageInfo = parentInfo }
        let json = String(decoding: try payload.jsonBytes(), as: UTF8.self)
        let ack = connection.flatMap { conn in reqId.map { (conn, command + Self.withReqId(json, $0) + "\n") } }
        if stored.duplicate || roster.channel.isOpen, let (conn, frame) = ack { conn.send(frame) }
        if !stored.duplicate {
            if roster.channel.isOpen {
                // At most so many messages a second are broadcast in an open channel; the rest reach operators only.
                let everyone = openChannels.mayBroadcast(roster.channel.channelUrl, nowMs: now())
                broadcast(command + json + "\n", in: roster, except: connection, include: everyone ? nil : { roster.isOperator($0) })
            } else {
                fanOutMessage(command, json, to: roster.members, except: connection, stored: stored, ack: ack)
                // A stored message reaches the other nodes through the messages table (its
                // event is written with it); one that is not stored goes as it is.
                if roster.channel.isEphemeral { relayUnstored(command, json, roster.members, stored) }
            }
        }
        payload.reqId = reqId
        return payload
    }

    /// What follows a delivery and may wait: the parent's thread (`MTHD`), webhooks, bots.
    func afterDelivery(_ stored: StoredMessage, roster: ChannelRoster) async throws {
        guard !stored.duplicate else { return }
        if let parent = stored.parent { try await pushThreadInfo(parent, in: roster) }
        await webhookMessage("message_send", stored.message, roster: roster)
        await notifyBots(stored.message, roster: roster)
    }

    /// Who a message mentions: in an open channel at most the first 10 (seed 001), elsewhere all.
    static func mentionable(_ ids: [String], in channel: ChannelRecord) -> [String] {
        channel.isOpen ? Array((NSOrderedSet(array: ids).array as! [String]).prefix(10)) : ids
    }

    /// Sends one frame to everyone who follows the channel: a group channel's joined members (every device), an
    /// open channel's participants (the connections that entered), those `include` accepts.
    func broadcast(
        _ frame: String, in roster: ChannelRoster, except: ClientConnection? = nil, exceptUser: String? = nil,
        include: ((String) -> Bool)? = nil
    ) {
        if roster.channel.isOpen {
            for c in openChannels.rooms.connections(in: roster.channel.channelUrl)
            where c.id != except?.id && c.userId != exceptUser && include?(c.userId) ?? true {
                if !c.send(frame) { logger.debug("slow consumer cut off", metadata: ["user": "\(c.userId)"]) }
            }
            relay(frame, toRoom: roster.channel.channelUrl, exceptUser: exceptUser, include: include)
        } else {
            fanOut(frame, to: include.map { f in roster.members.filter { f($0.userId) } } ?? roster.members, except: except, exceptUser: exceptUser)
        }
    }

    /// Joined members other than the sender who are online now: they get their unread totals with the message.
    func onlineRecipients(_ members: [MemberRecord], sender: String?) -> [String] {
        members.filter { $0.state == "joined" && $0.userId != sender && registry.isOnline($0.userId) }.map(\.userId)
    }

    /// Fans a new message out to the channel's members: each recipient's copy carries their new
    /// unread totals (`unread_cnt`); a member the message is hidden from (a 1:1 block) gets nothing.
    /// `ack` (the sending socket's copy with its `req_id`) goes first.
    /// On several nodes, a message this node stored waits, its ack with it, until the channel's
    /// earlier messages from other nodes are delivered here (``ChannelSequencer``): every member's
    /// socket, the sender's too, gets the channel's messages in the stored order.
    func fanOutMessage(
        _ command: String, _ json: String, to members: [MemberRecord], except: ClientConnection?, stored: StoredMessage,
        ack: (ClientConnection, String)? = nil
    ) {
        guard cluster != nil, !stored.duplicate, let previous = stored.previousMessageId else {
            if cluster != nil && !stored.duplicate {
                // Handed over here: the event reader must not deliver it again from the log.
                clusterState.sequencer.withLock { $0.markHanded(stored.message.channelUrl, id: stored.message.messageId) }
                clusterState.handOvers.signal(stored.message.channelUrl)
            }
            if let (conn, frame) = ack { conn.send(frame) }
            fanOutNow(command, json, to: members, except: except, stored: stored)
            return
        }
        // Released and handed to the outboxes under one lock: another thread's release must not
        // overtake one made before it.
        clusterState.sequencer.withLock { q in
            let due = q.local(
                stored.message.channelUrl, id: stored.message.messageId, previous: previous, now: now(),
                item: {
                    if let (conn, frame) = ack { conn.send(frame) }
                    self.fanOutNow(command, json, to: members, except: except, stored: stored)
                },
                ackOnly: { if let (conn, frame) = ack { conn.send(frame) } })
            for deliver in due { deliver() }
        }
        clusterState.handOvers.signal(stored.message.channelUrl)
    }

    /// Fans a message out at once (see ``fanOutMessage(_:_:to:except:stored:)``).
    func fanOutNow(_ command: String, _ json: String, to members: [MemberRecord], except: ClientConnection?, stored: StoredMessage) {
        // Encoded once; each recipient's copy is spliced on bytes straight into its outbox.
        let whole = ByteBuffer(string: json)
        let spliceable = json.utf8.first == UInt8(ascii: "{") && json.utf8.count > 2
        let afterBrace = whole.getSlice(at: whole.readerIndex + 1, length: max(0, whole.readableBytes - 1)) ?? whole
        for m in members where m.state == "joined" && m.userId != stored.message.hiddenFor {
            let totals = spliceable ? stored.totals[m.userId] : nil
            for c in registry.connections(of: m.userId) where c.id != except?.id {
                let queued = c.outbox.enqueue { buffer in
                    buffer.writeString(command)
                    if let totals {
                        buffer.writeStaticString("{\"unread_cnt\":")
                        Self.writeUnread(totals, into: &buffer)
                        buffer.writeInteger(UInt8(ascii: ","))
                        buffer.writeImmutableBuffer(afterBrace)
                    } else {
                        buffer.writeImmutableBuffer(whole)
                    }
                    buffer.writeInteger(UInt8(ascii: "\n"))
                }
                if !queued { logger.debug("slow consumer cut off", metadata: ["user": "\(c.userId)"]) }
            }
        }
    }

    /// A message of an ephemeral channel (not stored) to the members on the other nodes.
    func relayUnstored(_ command: String, _ json: String, _ members: [MemberRecord], _ stored: StoredMessage) {
        guard cluster?.hasPeers == true else { return }
        relay(command + json + "\n", toUsers: members.filter { $0.state == "joined" && $0.userId != stored.message.hiddenFor }.map(\.userId))
    }

    /// Sends an admin message (Platform API only): no sender, counted as unread for every member.
    public func sendAdminMessage(channelUrl: String, message: String, customType: String, data: String) async throws
        -> MessagePayload
    {
        guard let channel = try await store.channel(channelUrl) else {
            throw SendbirdError(.notFound, "\"Channel\" not found: \(channelUrl).")
        }
        if message.isEmpty { throw SendbirdError.missing("message") }
        try TextLimit.adminMessage.check(message)
        try TextLimit.customType.check(customType)
        let members = try await store.members(channel.channelUrl)
        let new = NewMessage(
            channelUrl: channel.channelUrl, type: "ADMM", senderId: nil, message: message, customType: customType,
            data: data, mentionType: "users", mentionedUserIds: [], silent: false, isOpMsg: false, createdAt: 0,
            reqId: nil, persist: !channel.isEphemeral, markSenderRead: false,
            totalsFor: onlineRecipients(members, sender: nil))
        return try await pipeline.submit(new) { stored in
            let payload = Presenter.message(stored.message, users: [:])
            let json = String(decoding: try WireCoding.encoder.encode(payload), as: UTF8.self)
            self.fanOutMessage(Command.adminMessage.rawValue, json, to: members, except: nil, stored: stored)
            if channel.isEphemeral { self.relayUnstored(Command.adminMessage.rawValue, json, members, stored) }
            return payload
        }.1
    }

    /// History of a channel for a viewer (nil: the Platform API, which may read any channel).
    public func listMessages(_ channelUrl: String, query: MessageQuery, viewer: String?, extras: MessageExtras = []) async throws -> [MessagePayload]
    {
        let channel = try await requireChannel(channelUrl)
        var query = query
        var historyStart: Int64 = 0
        if let viewer {
            let me = try await requireMember(channel, viewer, code: .unauthorizedRequest)
            historyStart = me.tsMessageOffset
            query.createdAfter = max(query.createdAfter, me.tsMessageOffset)
            query.viewer = viewer
        }
        var records = try await store.messages(channelUrl, query: query)
        // A thread: the parent comes first (the SDKs read `messages[0]` as the parent), unless it
        // is hidden from the viewer or older than their history (`ts_message_offset`).
        if let parentId = query.parentMessageId, let parent = try await store.message(channelUrl, id: parentId),
            viewer == nil || (parent.hiddenFor != viewer && parent.createdAt > historyStart)
        {
            records.insert(parent, at: 0)
        }
        return try await presentMessages(records, extras: extras)
    }

    /// One message by id.
    public func getMessage(_ channelUrl: String, id: Int64, viewer: String?, extras: MessageExtras = .all) async throws -> MessagePayload {
        let channel = try await requireChannel(channelUrl)
        var me: MemberRecord?
        if let viewer { me = try await requireMember(channel, viewer, code: .unauthorizedRequest) }
        guard let m = try await store.message(channelUrl, id: id),
            me == nil || (m.hiddenFor != me?.userId && m.createdAt > me?.tsMessageOffset ?? 0)
        else { throw SendbirdError(.notFound, "\"Message\" not found: \(id).") }
        return try await presentMessages([m], extras: extras)[0]
    }

    // MARK: - Read, delivery, typing

    /// Marks the channel read for `userId` and tells the other members and the reader's other
    /// devices (`READ`); the copy to `connection` carries `req_id`.
    ///
    /// The receipt's `ts` is always later than the millisecond the request arrived in: the JS SDK
    /// ignores a `READ` ack stamped with the moment it sent `READ` (research/sendbird.md §7).
    @discardableResult
    public func markRead(
        userId: String, channelUrl: String, connection: ClientConnection?, reqId: String?, origin: RequestOrigin,
        arrivedAt: Int64? = nil
    ) async throws -> Int64 {
        guard let channel = try await store.channel(channelUrl) else {
            throw SendbirdError(origin.channelNotFound, "\"Channel\" not found: \(channelUrl).")
        }
        _ = try await requireMember(channel, userId, code: .notAMember)
        let arrived = arrivedAt ?? now()
        var ts = now()
        var spins = 0
        while ts <= arrived && spins < 20 {
            try? await Task.sleep(for: .microseconds(250))
            ts = now()
            spins += 1
        }
        if channel.isOpen {
            // Open channels keep no receipts: the reader gets the acknowledgement and nobody else hears of it.
            if let conn = connection, let req = reqId {
                let s = try await sender(userId) ?? SenderPayload(userId: userId)
                var event = ReadEvent(channelUrl: channelUrl, user: s, ts: ts, reqId: req)
                event.channelType = "open"
                conn.send(Self.frameText(.read, event))
            }
            return ts
        }
        if channel.isSuper {
            // Supergroups have no read receipts: only the reader's own devices hear of it.
            let totals = try await store.markRead(channelUrl, userId: userId, ts: ts)
            let s = try await sender(userId) ?? SenderPayload(userId: userId)
            if let conn = connection, let req = reqId {
                conn.send(Self.frameText(.read, ReadEvent(channelUrl: channelUrl, user: s, ts: ts, reqId: req, unreadCnt: totals)))
            }
            let own = Self.frameText(.read, ReadEvent(channelUrl: channelUrl, user: s, ts: ts, unreadCnt: totals))
            send(own, toUser: userId, except: connection)
            return ts
        }
        return try await sendQueue.run(channelUrl) {
            // The reader's own connections also get their new totals (`unread_cnt`), so every device agrees.
            let totals = try await store.markRead(channelUrl, userId: userId, ts: ts)
            let s = try await sender(userId) ?? SenderPayload(userId: userId)
            if let conn = connection, let req = reqId {
                conn.send(Self.frameText(.read, ReadEvent(channelUrl: channelUrl, user: s, ts: ts, reqId: req, unreadCnt: totals)))
            }
            let members = try await store.members(channelUrl)
            fanOut(Self.frameText(.read, ReadEvent(channelUrl: channelUrl, user: s, ts: ts)), to: members, except: connection, exceptUser: userId)
            let own = Self.frameText(.read, ReadEvent(channelUrl: channelUrl, user: s, ts: ts, unreadCnt: totals))
            send(own, toUser: userId, except: connection)
            return ts
        }
    }

    /// Marks all (or the listed) channels of the user read, telling each channel's members.
    public func markAllRead(userId: String, channelUrls: [String]?) async throws {
        let ts = now()
        let (changed, totals) = try await store.markAllRead(userId: userId, channelUrls: channelUrls, ts: ts)
        let s = try await sender(userId) ?? SenderPayload(userId: userId)
        for url in changed {
            let members = try await store.members(url)
            if try await store.channel(url)?.isSuper == false {
                fanOut(Self.frameText(.read, ReadEvent(channelUrl: url, user: s, ts: ts)), to: members, exceptUser: userId)
            }
            let own = Self.frameText(.read, ReadEvent(channelUrl: url, user: s, ts: ts, unreadCnt: totals))
            send(own, toUser: userId)
        }
    }

    /// Typing start/end: `SYEV` 10900/10901 to the other members, never to the typer's own devices.
    public func typing(userId: String, channelUrl: String, start: Bool) async throws {
        guard let roster = try await roster(channelUrl) else {
            throw SendbirdError(.channelNotFound, "\"Channel\" not found: \(channelUrl).")
        }
        guard roster.member(userId)?.state == "joined" else {
            throw SendbirdError(.notAMember, "Not a member of the channel: \(channelUrl).")
        }
        let s = try await sender(userId) ?? SenderPayload(userId: userId)
        let event = ChannelEventFrame(cat: start ? ChannelEvent.typingStart : ChannelEvent.typingEnd, channelUrl: channelUrl, data: s, ts: now())
        fanOut(Self.frameText(.systemEvent, event), to: roster.members, exceptUser: userId)
    }

    /// A delivery acknowledgement (`MACK`) from a receiver. Receipts are written and pushed as
    /// `DLVR` in batches, a quarter second after the first unflushed one per channel.
    public func acknowledgeDelivery(userId: String, channelUrl: String) async throws {
        guard let roster = try await roster(channelUrl), !roster.channel.isSuper else { return }
        guard roster.member(userId)?.state == "joined" else { return }
        if deliveries.add(channelUrl: channelUrl, userId: userId, ts: now()) {
            Task {
                try? await Task.sleep(for: .milliseconds(250))
                await self.flushDeliveries(channelUrl)
            }
        }
    }

    /// Writes and pushes the pending delivery receipts of one channel.
    public func flushDeliveries(_ channelUrl: String) async {
        let updates = deliveries.take(channelUrl)
        if updates.isEmpty { return }
        var moved: [String: Int64] = [:]
        for (uid, ts) in updates {
            if (try? await store.markDelivered(channelUrl, userId: uid, ts: ts)) == true { moved[uid] = ts }
        }
        guard !moved.isEmpty, let roster = try? await roster(channelUrl) else { return }
        fanOut(Self.frameText(.delivery, DeliveryEvent(channelUrl: channelUrl, updated: moved)), to: roster.members)
    }

    /// The user's unread totals as `LOGI` and pushes carry them.
    public func unreadCount(userId: String) async throws -> UnreadCount {
        try await store.unreadTotals([userId], at: now())[userId] ?? UnreadCount(all: 0, ts: now())
    }

    /// Total unread messages of the user over joined channels, optionally only some custom types
    /// and only super (`super`) or other (`nonsuper`) channels.
    func unreadMessageTotal(userId: String, customTypes: [String]?, superMode: String?) async throws -> Int {
        try await store.unreadMessageTotal(userId: userId, customTypes: customTypes, superMode: superMode)
    }

    func unreadChannelCount(userId: String, customTypes: [String]?, superMode: String?) async throws -> Int {
        try await store.unreadChannelCount(userId: userId, customTypes: customTypes, superMode: superMode)
    }

    /// Unread messages, mentions and invitations of the user by channel kind.
    func unreadItems(userId: String, customTypes: [String]?) async throws -> UnreadItems {
        try await store.unreadItems(userId: userId, customTypes: customTypes)
    }

    /// How many messages a channel keeps.
    func messageCount(_ channelUrl: String) async throws -> Int { try await store.messageCount(channelUrl) }

    /// Reads a link's preview, caches it, and delivers it as an update of the message (`MEDI`).
    func fetchPreview(_ link: String, messageId: Int64, channelUrl: String) async {
        let policy = OutboundHTTP.Policy(allowPrivate: config.linkPreviewsPrivateHosts, exceptions: config.linkPreviewsExceptions)
        let og = await LinkPreviews.fetch(link, policy: policy, limits: config.linkPreviewLimits)
        let json = og.flatMap { try? String(decoding: JSONEncoder().encode($0), as: UTF8.self) }
        try? await store.setOGCache(link, json: json, at: now())
        guard let json, let roster = try? await roster(channelUrl) else { return }
        do {
            try await sendQueue.run(channelUrl) {
                guard let updated = try await store.setOGTag(messageId, json, updatedAt: now()) else { return }
                let payload = try await presentMessages([updated], extras: [.parentInfo])[0]
                let frame = Self.frameText(.updateMessage, payload)
                broadcast(frame, in: roster) { $0 != updated.hiddenFor }
            }
        } catch {
            logger.debug("link preview not delivered: \(error)")
        }
    }

    /// `unread_cnt` as JSON, written directly (this runs once per recipient of every message, where
    /// a `JSONEncoder` per recipient showed in the benchmark's CPU per delivery).
    static func unreadJSON(_ u: UnreadCount) -> String {
        var buffer = ByteBuffer()
        writeUnread(u, into: &buffer)
        return String(buffer: buffer)
    }

    /// Writes `{"all":N,"custom_types":{…},"ts":T}` (keys sorted) without building a String.
    static func writeUnread(_ u: UnreadCount, into buffer: inout ByteBuffer) {
        buffer.writeStaticString("{\"all\":")
        buffer.writeString(String(u.all))
        buffer.writeStaticString(",\"custom_types\":{")
        if !u.customTypes.isEmpty {
            var first = true
            for key in u.customTypes.keys.sorted() {
                if !first { buffer.writeInteger(UInt8(ascii: ",")) }
                first = false
                buffer.writeString(jsonString(key))
                buffer.writeInteger(UInt8(ascii: ":"))
                buffer.writeString(String(u.customTypes[key] ?? 0))
            }
        }
        buffer.writeStaticString("},\"ts\":")
        buffer.writeString(String(u.ts))
        buffer.writeInteger(UInt8(ascii: "}"))
    }

    /// A JSON string literal.
    static func jsonString(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
