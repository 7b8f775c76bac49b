import Foundation
import TernProtocol

/// `SYEV` as the engine reads it: `data` stays loose because its shape depends on `cat`.
struct SystemEvent: Decodable {
    var cat: Int
    var channelUrl: String
    var channelType: String?
    var ts: Int64?
    var user: SenderPayload?
    /// 10022: who declined.
    var invitee: SenderPayload?
    enum CodingKeys: String, CodingKey {
        case cat
        case channelUrl = "channel_url"
        case channelType = "channel_type"
        case ts, data
    }
    struct DeclineData: Decodable { var invitee: SenderPayload? }
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        cat = try c.decode(Int.self, forKey: .cat)
        channelUrl = try c.decode(String.self, forKey: .channelUrl)
        channelType = try? c.decodeIfPresent(String.self, forKey: .channelType)
        ts = (try? c.decodeIfPresent(FlexibleInt64.self, forKey: .ts))??.value
        user = (try? c.decodeIfPresent(SenderPayload.self, forKey: .data)) ?? nil
        invitee = ((try? c.decodeIfPresent(DeclineData.self, forKey: .data)) ?? nil)?.invitee
    }
}

/// `SYEV` `data` for the categories that carry users or key/value changes.
struct ChannelEventData: Decodable {
    var users: [SenderPayload]?
    var inviter: SenderPayload?
    var invitees: [SenderPayload]?
    var invitee: SenderPayload?
    var user: SenderPayload?
    var created: [String: String]?
    var updated: [String: String]?
    var deleted: [String]?
    var createdCounters: [String: Int64]?
    var updatedCounters: [String: Int64]?
    var operators: [UserPayload]?
    var endAt: Int64?
    var participantCount: Int?
    enum CodingKeys: String, CodingKey {
        case users, inviter, invitees, invitee, created, updated, deleted, operators
        case endAt = "end_at"
        case participantCount = "participant_count"
    }
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        users = try? c.decodeIfPresent([SenderPayload].self, forKey: .users)
        inviter = try? c.decodeIfPresent(SenderPayload.self, forKey: .inviter)
        invitees = try? c.decodeIfPresent([SenderPayload].self, forKey: .invitees)
        invitee = try? c.decodeIfPresent(SenderPayload.self, forKey: .invitee)
        user = try? SenderPayload(from: decoder)
        created = try? c.decodeIfPresent([String: String].self, forKey: .created)
        updated = try? c.decodeIfPresent([String: String].self, forKey: .updated)
        deleted = try? c.decodeIfPresent([String].self, forKey: .deleted)
        createdCounters = try? c.decodeIfPresent([String: Int64].self, forKey: .created)
        updatedCounters = try? c.decodeIfPresent([String: Int64].self, forKey: .updated)
        operators = try? c.decodeIfPresent([UserPayload].self, forKey: .operators)
        endAt = (try? c.decodeIfPresent(FlexibleInt64.self, forKey: .endAt))??.value
        participantCount = ((try? c.decodeIfPresent(FlexibleInt64.self, forKey: .participantCount))??.value).map { Int($0) }
    }

    struct Envelope: Decodable { var data: ChannelEventData? }
    init() {}
    static let empty = ChannelEventData()

    /// The event as the engine names it.
    func kind(_ cat: Int) -> ChannelEventKind {
        switch cat {
        case ChannelEvent.joined: .joined((users ?? []).map(User.init))
        case ChannelEvent.left: .left(user.map(User.init) ?? User(userId: ""))
        case ChannelEvent.invited: .invited(inviter: inviter.map(User.init), invitees: (invitees ?? []).map(User.init))
        case ChannelEvent.declined: .declined(inviter: inviter.map(User.init), invitee: invitee.map(User.init) ?? User(userId: ""))
        case ChannelEvent.frozen: .frozen
        case ChannelEvent.unfrozen: .unfrozen
        case ChannelEvent.changed: .changed
        case ChannelEvent.deleted: .deleted
        case ChannelEvent.hidden: .hidden
        case ChannelEvent.unhidden: .unhidden
        case ChannelEvent.metadataChanged: .metadataChanged(created: created ?? [:], updated: updated ?? [:], deleted: deleted ?? [])
        case ChannelEvent.metacountersChanged:
            .metacountersChanged(created: createdCounters ?? [:], updated: updatedCounters ?? [:], deleted: deleted ?? [])
        case ChannelEvent.operatorsChanged: .operatorsChanged((operators ?? []).map(User.init))
        case ChannelEvent.muted: .muted(user.map(User.init) ?? User(userId: ""), endAt: endAt ?? -1)
        case ChannelEvent.unmuted: .unmuted(user.map(User.init) ?? User(userId: ""))
        case ChannelEvent.banned: .banned(user.map(User.init) ?? User(userId: ""), endAt: endAt ?? -1)
        case ChannelEvent.unbanned: .unbanned(user.map(User.init) ?? User(userId: ""))
        case ChannelEvent.entered: .entered(user.map(User.init) ?? User(userId: ""), count: participantCount ?? 0)
        case ChannelEvent.exited: .exited(user.map(User.init) ?? User(userId: ""), count: participantCount ?? 0)
        default: .other(cat)
        }
    }
}

extension ChatClient {
    static let unreadKey = Array("\"unread_cnt\"".utf8)
    static let errorKey = Array("\"error\":true".utf8)

    func handle(_ frame: Frame, now: Millis) {
        // The user's totals, when the frame carries them: messages and reads apply them with their own
        // change (so nothing is counted twice); any other frame applies them here.
        var serverTotal: UnreadCount?
        var message: MessageFrame?
        switch frame.command {
        case .login: break
        case .message, .file, .adminMessage, .broadcastMessage:
            // The message and its totals in one pass.
            message = try? frame.decode(MessageFrame.self)
            serverTotal = message?.unreadCnt
        default:
            if frame.payload.contains(bytes: Self.unreadKey) { serverTotal = (try? frame.decode(UnreadCarrier.self))?.unreadCnt }
        }
        switch frame.command {
        case .login, .message, .file, .adminMessage, .broadcastMessage, .read: break
        default:
            if let count = serverTotal, store.setTotal(count) {
                emit(.unreadCountChanged(channelUrl: nil, unreadMessageCount: 0, unreadMentionCount: 0, total: store.totalUnread))
            }
        }
        switch frame.command {
        case .login: handleLogin(frame, now: now)
        case .message, .file, .adminMessage, .broadcastMessage:
            if let message { handleMessage(frame, message.payload, now: now, server: serverTotal) }
        case .read: handleRead(frame, server: serverTotal)
        case .userEvent: handleUserEvent(frame)
        case .updateMessage, .updateFileMessage, .deleteMessage, .reaction, .threadInfo: handleMessageChange(frame)
        case .delivery:
            guard let e = try? frame.decode(DeliveryEvent.self) else { return }
            if store.applyDelivery(url: e.channelUrl, updated: e.updated) {
                emit(.deliveryReceiptUpdated(channelUrl: e.channelUrl, updated: e.updated))
                // The channel carries the receipts its messages' ticks are drawn from (as a read does).
                if let c = store[e.channelUrl] { emit(.channelUpdated(c)) }
            }
        case .systemEvent: handleSystemEvent(frame, now: now, server: serverTotal)
        case .memberCount:
            guard let e = try? frame.decode(MemberCountFrame.self) else { return }
            applyParticipantCounts(e.openChannels)
            for g in e.groupChannels {
                guard let old = store[g.channelUrl] else { continue }
                if store.applyMemberCount(
                    url: g.channelUrl, memberCount: g.memberCount ?? old.memberCount, joinedMemberCount: g.joinedMemberCount ?? old.joinedMemberCount),
                    let c = store[g.channelUrl]
                {
                    emit(.channelUpdated(c))
                }
            }
        case .error: handleError(frame, now: now)
        case .busy:
            let b = try? frame.decode(BusyNotice.self)
            apply(machine.handle(.busy(retryAfter: b?.retryAfter ?? 5), now: now))
        case .expiring:
            let e = try? frame.decode(SessionExpiry.self)
            if e?.reason == ErrorCode.sessionTokenRevoked.rawValue || (e?.expiresIn ?? 0) < 0 {
                apply(machine.handle(.sessionRevoked(SendbirdError(.sessionTokenRevoked, "the session was revoked")), now: now))
            } else {
                apply(machine.handle(.sessionExpired, now: now))
            }
        case .pong, .ping:
            break
        default:
            _ = resolveAck(try? frame.decode(ReqIdOnly.self).reqId, with: frame)
        }
    }

    struct ReqIdOnly: Decodable {
        var reqId: String?
        enum CodingKeys: String, CodingKey { case reqId = "req_id" }
    }

    func handleLogin(_ frame: Frame, now: Millis) {
        if frame.payload.contains(bytes: Self.errorKey), let e = try? frame.decode(ErrorPayload.self) {
            apply(machine.handle(.loginRefused(SendbirdError(ErrorCode(e.code), e.message)), now: now))
            return
        }
        guard let login = try? frame.decode(LoginPayload.self) else {
            apply(machine.handle(.loginRefused(SendbirdError(.malformedData, "the server's LOGI could not be read")), now: now))
            return
        }
        if login.reqId != nil, resolveAck(login.reqId, with: frame) { return }
        currentUser = User(userId: login.userId, nickname: login.nickname, profileUrl: login.profileUrl)
        catchUp.loginTs = login.loginTs
        fileKey = login.ekey.isEmpty ? nil : login.ekey
        fileSizeLimitMB = login.fileUploadSizeLimit > 0 ? login.fileUploadSizeLimit : 25
        if store.me != login.userId { store = ChannelStore(me: login.userId) }
        store.resetTotal(login.unreadCnt)
        store.maxUnreadOnSuper = login.maxUnreadCntOnSuperGroup > 0 ? login.maxUnreadCntOnSuperGroup : 100
        loadBlockedUsers()
        let policy = configuration.reconnectPolicy ?? login.reconnect
        apply(
            machine.handle(
                .loggedIn(sessionKey: login.key, pingInterval: login.pingInterval, pongTimeout: login.pongTimeout, reconnect: policy), now: now))
        emit(.unreadCountChanged(channelUrl: nil, unreadMessageCount: 0, unreadMentionCount: 0, total: store.totalUnread))
    }

    func handleMessage(_ frame: Frame, _ payload: MessagePayload, now: Millis, server: UnreadCount?) {
        if resolveAck(payload.reqId, with: frame) { return }
        if payload.channelType == "open" {
            // Open channels: no unread counts and no delivery receipts; only channels this connection is in.
            var message = Message(payload)
            message.requestId = nil
            if openChannels[message.channelUrl] != nil { emit(.messageReceived(message)) }
            return
        }
        guard payload.channelType == "group" else { return }
        var message = Message(payload)
        message.requestId = nil
        let isViewing = onScreen.isViewing(message.channelUrl)
        let effect = store.applyIncoming(message, viewing: isViewing, server: server)
        let fromOthers = message.sender?.userId != me
        if fromOthers, let sender = message.sender, typing.end(sender.userId, in: message.channelUrl) != nil {
            emit(.typingEnded(channelUrl: message.channelUrl, user: sender, expired: false))
        }
        emit(.messageReceived(message))
        if fromOthers && message.kind != .admin && !(store[message.channelUrl]?.isSuper ?? false) {
            acknowledgeDelivery(message.channelUrl, upTo: message.messageId)
        }
        if effect.unknownChannel {
            fetchUnknownChannel(message.channelUrl)
        } else if let c = store[message.channelUrl] {
            emit(.channelUpdated(c))
        }
        if effect.unreadChanged, let c = store[message.channelUrl] {
            emit(
                .unreadCountChanged(
                    channelUrl: c.url, unreadMessageCount: c.unreadMessageCount, unreadMentionCount: c.unreadMentionCount, total: store.totalUnread))
        } else if effect.unreadChanged {
            emit(.unreadCountChanged(channelUrl: nil, unreadMessageCount: 0, unreadMentionCount: 0, total: store.totalUnread))
        }
        if fromOthers && isViewing { requestRead(message.channelUrl) }
    }

    /// Delivery receipt: tells the server this device has the channel's messages up to `id`; in a
    /// burst, at most one receipt per channel per ``deliveryAckInterval`` (see ``deliveryAcks``).
    func acknowledgeDelivery(_ url: String, upTo id: Int64) {
        undeliveredUpTo[url] = max(undeliveredUpTo[url] ?? 0, id)
        if case .sendNow = deliveryAcks.request(url, now: clock.now()) {
            sendDeliveryAck(url)
        } else {
            armTicker()
        }
    }

    func sendDeliveryAck(_ url: String) {
        guard let id = undeliveredUpTo.removeValue(forKey: url) else { return }
        deliveryAcksSent += 1
        send([Frame(command: .messageAck, ChannelRequest(channelUrl: url, msgId: id))])
    }

    func handleRead(_ frame: Frame, server: UnreadCount?) {
        guard let e = try? frame.decode(ReadEvent.self) else {
            _ = resolveAck(try? frame.decode(ReqIdOnly.self).reqId, with: frame)
            return
        }
        _ = resolveAck(e.reqId, with: frame)
        let before = store[e.channelUrl]
        let totalBefore = store.totalUnread
        guard store.applyRead(url: e.channelUrl, userId: e.user.userId, ts: e.ts, server: e.user.userId == me ? server : nil) else { return }
        if store[e.channelUrl] == nil, totalBefore != store.totalUnread {
            emit(.unreadCountChanged(channelUrl: nil, unreadMessageCount: 0, unreadMentionCount: 0, total: store.totalUnread))
            return
        }
        if e.user.userId != me {
            emit(.readReceiptUpdated(channelUrl: e.channelUrl, userId: e.user.userId, ts: e.ts))
        } else if let c = store[e.channelUrl],
            before?.unreadMessageCount != c.unreadMessageCount || before?.unreadMentionCount != c.unreadMentionCount
                || totalBefore != store.totalUnread
        {
            emit(.unreadCountChanged(channelUrl: c.url, unreadMessageCount: 0, unreadMentionCount: 0, total: store.totalUnread))
        }
        if let c = store[e.channelUrl] { emit(.channelUpdated(c)) }
    }

    func handleSystemEvent(_ frame: Frame, now: Millis, server: UnreadCount?) {
        guard let e = try? frame.decode(SystemEvent.self) else { return }
        if e.channelType == "open" {
            handleOpenChannelEvent(frame, e)
            return
        }
        guard e.channelType ?? "group" == "group" else { return }
        // Already applied in `handle`; a removal this event causes must not take the channel's count off again.
        if let server { serverTotals[e.channelUrl] = server }
        switch e.cat {
        case ChannelEvent.typingStart:
            guard let u = e.user, u.userId != me else { return }
            defer { armTicker() }
            if typing.start(User(u), in: e.channelUrl, now: now) {
                emit(.typingStarted(channelUrl: e.channelUrl, user: User(u)))
            }
        case ChannelEvent.typingEnd:
            guard let u = e.user, let user = typing.end(u.userId, in: e.channelUrl) else { return }
            emit(.typingEnded(channelUrl: e.channelUrl, user: user, expired: false))
        case ChannelEvent.changed where server != nil:
            // Our own change on another device (count preference, reset history): read the channel again;
            // the total already came with the event.
            emit(.channelEvent(channelUrl: e.channelUrl, .changed))
            refreshChannel(e.channelUrl)
        default:
            let data = (try? frame.decode(ChannelEventData.Envelope.self))?.data
            emit(.channelEvent(channelUrl: e.channelUrl, (data ?? ChannelEventData.empty).kind(e.cat)))
            applyChannelEvent(e)
        }
    }

    func applyChannelEvent(_ e: SystemEvent) {
        switch e.cat {
        // Left, declined or hidden (here or on another device): the server's current view decides, so an
        // event that arrives after the user rejoined or unhid does not remove the channel.
        case ChannelEvent.left where e.user?.userId == me:
            refreshChannel(e.channelUrl, removal: .left)
        case ChannelEvent.declined where e.invitee?.userId == me:
            refreshChannel(e.channelUrl, removal: .declined)
        case ChannelEvent.hidden:
            refreshChannel(e.channelUrl, removal: .hidden)
        case ChannelEvent.banned where e.user?.userId == me:
            refreshChannel(e.channelUrl, removal: .banned)
        case ChannelEvent.deleted:
            // The channel was deleted.
            channelReads.removed(e.channelUrl)
            store.remove(e.channelUrl, server: serverTotals.removeValue(forKey: e.channelUrl))
            emit(.channelDeleted(url: e.channelUrl))
        default:
            // Membership, properties, freeze…: read the channel again from the server.
            refreshChannel(e.channelUrl)
        }
    }

    func handleError(_ frame: Frame, now: Millis) {
        guard let e = try? frame.decode(ErrorPayload.self) else { return }
        if resolveAck(e.reqId, with: frame) { return }
        let error = SendbirdError(ErrorCode(e.code), e.message)
        switch error.code {
        case .sessionKeyExpired:
            apply(machine.handle(.sessionExpired, now: now))
        case .invalidAccessToken, .sessionTokenRevoked, .userDeactivated:
            apply(machine.handle(.sessionRevoked(error), now: now))
        default:
            emit(.serverError(error))
        }
    }

    /// An event named a channel we do not have: fetch it once, then announce it.
    /// Another event for it while the read is on its way (a message after the invitation that named
    /// the channel): the answer may be older than that event, so it is read again before it is announced
    /// (else the channel would come with an unread count the message did not reach).
    func fetchUnknownChannel(_ url: String) {
        guard channelReads.startFetch(url) else { return }
        let generation = channelReads.generation(url)
        Task {
            let fetched = try? await self.fetchChannel(url)
            switch self.channelReads.fetchAnswered(url, generation: generation) {
            case .readAgain:
                // A few more reads at most (a busy channel): each one is newer than the events before it.
                self.fetchUnknownChannel(url)
            case .finish(let current):
                // Removed meanwhile (left, declined, hidden, deleted): the answer is stale.
                self.finishFetch(url, current ? fetched : nil)
            }
        }
    }

    func finishFetch(_ url: String, _ channel: GroupChannel?) {
        channelReads.fetchFinished(url)
        guard var channel else { return }
        // Hidden and archived channels stay out of the list until unhidden.
        guard channel.hiddenState == "unhidden" else {
            if store[url] != nil { removeFromList(url, .hidden) }
            return
        }
        if onScreen.isViewing(url), channel.unreadMessageCount > 0 || channel.unreadMentionCount > 0 {
            // On screen and seen: nothing there is unread. The server's answer may predate the read that
            // the messages on screen asked for (sent, or on its way); ask again in case it does not.
            channel.unreadMessageCount = 0
            channel.unreadMentionCount = 0
            requestRead(url)
        }
        let before = store[url]
        let isNew = store.upsert(channel)
        if let c = store[url] { emit(isNew ? .channelAdded(c) : .channelUpdated(c)) }
        if let c = store[url], isNew ? c.unreadMessageCount > 0 : before?.unreadMessageCount != c.unreadMessageCount {
            emit(
                .unreadCountChanged(
                    channelUrl: url, unreadMessageCount: c.unreadMessageCount, unreadMentionCount: c.unreadMentionCount, total: store.totalUnread))
        }
    }

    /// Reads a channel again after an event. The server's answer decides: a channel that is hidden, or that the
    /// user is no longer in, leaves the list (`removal` says why); one removed meanwhile stays removed.
    func refreshChannel(_ url: String, removal: ChannelRemoval? = nil) {
        // A channel the list lacks (an invitation names it first) has one read path, the fetch: a message
        // that names it while that read is on its way then reads it again, instead of a second read in
        // parallel whose older answer could land last.
        if removal == nil, store[url] == nil {
            fetchUnknownChannel(url)
            return
        }
        let generation = channelReads.startRefresh(url)
        Task {
            let outcome: Result<GroupChannel, any Error>
            do { outcome = .success(try await self.fetchChannel(url)) } catch { outcome = .failure(error) }
            self.channelReads.refreshAnswered(url)
            guard self.channelReads.generation(url) == generation else { return }
            switch outcome {
            case .success(let c) where c.hiddenState != "unhidden":
                self.removeFromList(url, .hidden)
            case .success(let c) where c.myMemberState != "joined" && c.myMemberState != "invited":
                self.removeFromList(url, removal ?? .left)
            case .success(let c):
                self.finishFetch(url, c)
            case .failure(let e as SendbirdError) where e.code == .unauthorizedRequest || e.code == .notFound || e.code == .channelNotFound:
                if let removal { self.removeFromList(url, removal) } else { self.forget(url) }
            case .failure:
                break
            }
        }
    }

    func forget(_ url: String) {
        channelReads.removed(url)
        guard store[url] != nil else { return }
        store.remove(url, server: serverTotals.removeValue(forKey: url))
        emit(.channelDeleted(url: url))
    }

    /// After a reconnection: the channels we show may have moved while we were away.
    func resync() async {
        let urls = store.ordered.map(\.url)
        for url in urls.prefix(100) {
            if let c = try? await fetchChannel(url) {
                let before = store[url]
                store.upsert(c)
                if let after = store[url], after != before {
                    emit(.channelUpdated(after))
                    if before?.unreadMessageCount != after.unreadMessageCount {
                        emit(
                            .unreadCountChanged(
                                channelUrl: url, unreadMessageCount: after.unreadMessageCount, unreadMentionCount: after.unreadMentionCount,
                                total: store.totalUnread))
                    }
                }
            }
        }
    }
}
