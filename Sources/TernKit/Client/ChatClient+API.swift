import Foundation
import TernProtocol

/// One page of a channel's history.
public struct MessagePage: Sendable, Equatable {
    /// Oldest first.
    public var messages: [Message]
    /// More messages exist before the first one.
    public var hasPrevious: Bool

    public init(messages: [Message], hasPrevious: Bool) {
        self.messages = messages
        self.hasPrevious = hasPrevious
    }
}

extension ChatClient {
    // MARK: - Channels

    func requireSession() throws -> String {
        guard let key = sessionKey else { throw SendbirdError(.connectionRequired, "not connected: connect() first") }
        return key
    }

    static let channelQuery: [(String, String)] = [
        ("show_member", "true"), ("show_read_receipt", "true"), ("show_delivery_receipt", "true"),
    ]

    /// Reads one channel from the server (the current user's view of it).
    func fetchChannel(_ url: String) async throws -> GroupChannel {
        let key = try requireSession()
        let payload = try await rest.request(
            "GET", RESTClient.path("/v3/group_channels/\(RESTClient.segment(url))", Self.channelQuery), sessionKey: key,
            as: GroupChannelPayload.self)
        return GroupChannel(payload)
    }

    /// The channel with `url`: from memory, else from the server (then kept and announced).
    public func channel(_ url: String) async throws -> GroupChannel {
        if let c = store[url] { return c }
        return try await refreshedChannel(url)
    }

    /// The channel with `url` read again from the server.
    @discardableResult
    public func refreshedChannel(_ url: String) async throws -> GroupChannel {
        let c = try await fetchChannel(url)
        finishFetch(url, c)
        return store[url] ?? c
    }

    /// Loads the next page of the user's group channels (latest activity first); `reset` starts over.
    @discardableResult
    public func loadChannels(limit: Int = 20, reset: Bool = false) async throws -> [GroupChannel] {
        let key = try requireSession()
        if reset {
            channelListToken = nil
            hasMoreChannels = true
        }
        guard hasMoreChannels else { return [] }
        let query: [(String, String)] =
            [
                ("token", channelListToken ?? ""), ("limit", String(min(max(limit, 1), 100))), ("order", "latest_last_message"),
                ("show_empty", "true"), ("member_state_filter", "all"),
            ] + Self.channelQuery
        let page = try await rest.request(
            "GET", RESTClient.path("/v3/users/\(RESTClient.segment(me))/my_group_channels", query), sessionKey: key,
            as: GroupChannelPage.self)
        channelListToken = page.next
        hasMoreChannels = !page.next.isEmpty
        var loaded: [GroupChannel] = []
        for p in page.channels {
            let c = GroupChannel(p)
            let isNew = store.upsert(c)
            if let kept = store[c.url] {
                loaded.append(kept)
                emit(isNew ? .channelAdded(kept) : .channelUpdated(kept))
            }
        }
        return loaded
    }

    /// Loads every page of the user's channels.
    @discardableResult
    public func loadAllChannels() async throws -> [GroupChannel] {
        _ = try await loadChannels(limit: 100, reset: true)
        while hasMoreChannels { _ = try await loadChannels(limit: 100) }
        return store.ordered
    }

    /// The distinct 1:1 channel with `userId`, created if it does not exist yet.
    public func directChannel(with userId: String) async throws -> GroupChannel {
        guard !userId.isEmpty else { throw SendbirdError(.invalidParameter, "no user id given") }
        guard userId != me else { throw SendbirdError(.invalidParameter, "a 1:1 channel needs another user than yourself") }
        return try await createChannel(body: RESTClient.json(["user_ids": [me, userId], "is_distinct": true]))
    }

    /// Creates a group channel with the current user (its operator) and `userIds`.
    public func createGroupChannel(name: String, userIds: [String], isDistinct: Bool = false, isPublic: Bool = false) async throws -> GroupChannel {
        var ids = [me]
        for id in userIds where !ids.contains(id) { ids.append(id) }
        return try await createChannel(
            body: RESTClient.json(["user_ids": ids, "name": name, "is_distinct": isDistinct, "is_public": isPublic, "operator_ids": [me]]))
    }

    func createChannel(body: Data) async throws -> GroupChannel {
        let key = try requireSession()
        let payload = try await rest.request("POST", "/v3/group_channels", body: body, sessionKey: key, as: GroupChannelPayload.self)
        var c = GroupChannel(payload)
        // The creation answer may leave out the per-user view; read it if members are missing.
        if c.members.isEmpty, let full = try? await fetchChannel(c.url) { c = full }
        finishFetch(c.url, c)
        return store[c.url] ?? c
    }

    // MARK: - Messages

    /// Sends a user message: returns at once with the pending copy (also published as
    /// `messagePending`); `messageSent` or `messageFailed` follows with the same `requestId`.
    @discardableResult
    public func sendMessage(_ text: String, to url: String) -> Message {
        sendMessage(UserMessageParams(text), to: url)
    }

    /// Sends a user message with its options (mentions, data, custom type, metaarray, a parent to
    /// reply to): returns the pending copy at once, like ``sendMessage(_:to:)``.
    @discardableResult
    public func sendMessage(_ params: UserMessageParams, to url: String) -> Message {
        let pending = makePending(params, to: url)
        emit(.messagePending(pending))
        Task { _ = await self.deliver(pending, params) }
        return pending
    }

    /// Sends a user message and waits for the server: returns the stored message or throws the
    /// server's error (900020 not a member, 900500 unknown channel, 900200 flooding…).
    public func sendMessageAndWait(_ text: String, to url: String) async throws -> Message {
        try await sendMessageAndWait(UserMessageParams(text), to: url)
    }

    public func sendMessageAndWait(_ params: UserMessageParams, to url: String) async throws -> Message {
        let pending = makePending(params, to: url)
        emit(.messagePending(pending))
        let result = await deliver(pending, params)
        switch result {
        case .success(let m): return m
        case .failure(let e): throw e
        }
    }

    /// Sends a failed message again under its request id, so a message the server did store (its
    /// answer was lost) comes back as it is instead of twice.
    @discardableResult
    public func resend(_ failed: Message) -> Message {
        let params = UserMessageParams(resending: failed)
        var pending = failed
        pending.status = .pending
        pending.error = nil
        if pending.requestId == nil { pending.requestId = "rq-" + newRequestId() }
        outbox.dropUnawaited(pending.requestId)
        emit(.messagePending(pending))
        Task { _ = await self.deliver(pending, params) }
        return pending
    }

    func makePending(_ params: UserMessageParams, to url: String) -> Message {
        var m = Message(
            messageId: 0, requestId: "rq-" + newRequestId(), channelUrl: url, text: params.text,
            sender: currentUser ?? User(userId: me), createdAt: clock.now(), customType: params.customType, data: params.data,
            mentionedUserIds: params.mentionedUserIds, status: .pending)
        m.mentionType = params.mentionType
        m.parentMessageId = params.parentMessageId
        m.isReplyToChannel = params.replyToChannel
        m.metaarray = params.metaarray
        return m
    }

    /// Sends now when connected; while (re)connecting the message waits in the outbox and goes once the
    /// connection is back.
    func deliver(_ pending: Message, _ params: UserMessageParams) async -> Result<Message, SendbirdError> {
        // Behind what waits for this channel already, so one sender's messages keep their order.
        if shouldQueue || outbox.holdsBack(pending) {
            if case .open = machine.state, !outbox.isRunning { Task { await self.runOutbox() } }
            return await enqueue(pending, params)
        }
        return await transmit(pending, params)
    }

    func transmit(_ pending: Message, _ params: UserMessageParams) async -> Result<Message, SendbirdError> {
        let reqId = pending.requestId ?? newRequestId()
        do {
            guard !pending.text.isEmpty else { throw SendbirdError(.invalidParameter, "the message is empty") }
            guard !pending.channelUrl.isEmpty else { throw SendbirdError(.invalidParameter, "no channel given") }
            var body = SendMessageRequest(channelUrl: pending.channelUrl, message: pending.text, reqId: reqId)
            body.mentionType = params.mentionType
            body.mentionedUserIds = params.mentionedUserIds
            if !params.data.isEmpty { body.data = params.data }
            if !params.customType.isEmpty { body.customType = params.customType }
            if !params.metaarray.isEmpty { body.metaarray = FlexibleMetaArray(params.metaarray) }
            if params.parentMessageId != 0 {
                body.parentMessageId = FlexibleInt64(params.parentMessageId)
                body.replyToChannel = params.replyToChannel
            }
            let reply = try await request(try Frame(command: .message, body), reqId: reqId)
            if reply.command == .error {
                let e = try reply.decode(ErrorPayload.self)
                throw SendbirdError(ErrorCode(e.code), e.message)
            }
            var sent = Message(try reply.decode(MessagePayload.self))
            sent.requestId = reqId
            sent.status = .succeeded
            store.applySent(sent)
            if typingOut.end(pending.channelUrl, now: clock.now()) {
                send([Frame(command: .typingEnd, ChannelRequest(channelUrl: pending.channelUrl, time: clock.now()))])
            }
            emit(.messageSent(sent))
            if let c = store[sent.channelUrl] { emit(.channelUpdated(c)) }
            return .success(sent)
        } catch {
            var failed = pending
            failed.status = .failed
            let e = (error as? SendbirdError) ?? SendbirdError(.malformedData, "\(error)")
            failed.error = e
            emit(.messageFailed(failed))
            // With a cache, a message the connection failed goes again by itself after the next login.
            if cache != nil, isCached(failed.channelUrl), Self.autoResendCodes.contains(e.code), outbox.requeue(failed, params) {
                // No answer while the connection stayed up: try again shortly (a lost connection waits for the login).
                if e.code == .ackTimeout {
                    Task {
                        try? await Task.sleep(for: .milliseconds(self.configuration.resendSpacing))
                        await self.runOutbox()
                    }
                }
            }
            return .failure(e)
        }
    }

    /// Up to `limit` messages of `url` before `before` (ms; default: the newest), oldest first.
    public func previousMessages(in url: String, before: Millis? = nil, limit: Int = 30) async throws -> MessagePage {
        let key = try requireSession()
        let n = min(max(limit, 1), 200)
        let query: [(String, String)] = [
            ("message_ts", String(before ?? 9_007_199_254_740_991)), ("prev_limit", String(n)), ("next_limit", "0"),
            ("include", "false"), ("reverse", "false"), ("include_reply_type", "only_reply_to_channel"),
            ("include_thread_info", "true"), ("include_reactions", "true"), ("include_parent_message_info", "true"),
        ]
        let page = try await rest.request(
            "GET", RESTClient.path(channelBase(url) + "/messages", query), sessionKey: key,
            as: MessageListPage.self)
        let messages = page.messages.map(Message.init).sorted { ($0.createdAt, $0.messageId) < ($1.createdAt, $1.messageId) }
        let result = MessagePage(messages: messages, hasPrevious: page.messages.count >= n)
        remember(result, url: url, before: before)
        return result
    }

    // MARK: - Reading

    /// Marks `url` read now (throttled to once a second per channel; a request inside that second
    /// is sent when it ends).
    public func markAsRead(_ url: String) async throws {
        switch reads.request(url, now: clock.now()) {
        case .sendNow: try await sendRead(url)
        case .deferred: armTicker()
        }
    }

    func requestRead(_ url: String) {
        if case .sendNow = reads.request(url, now: clock.now()) {
            Task { try? await self.sendRead(url) }
        } else {
            armTicker()
        }
    }

    func sendRead(_ url: String) async throws {
        let reqId = newRequestId()
        let reply = try await request(Frame(command: .read, ChannelRequest(channelUrl: url, reqId: reqId)), reqId: reqId)
        if reply.command == .error {
            let e = try reply.decode(ErrorPayload.self)
            throw SendbirdError(ErrorCode(e.code), e.message)
        }
    }

    /// The user has `url` open: it is marked read now and whenever a message arrives in it
    /// (at most once a second) until ``closeChannel(_:)``.
    public func openChannel(_ url: String) async {
        onScreen.open(url)
        if (store[url]?.unreadMessageCount ?? 0) > 0 || store[url] == nil { requestRead(url) }
    }

    public func closeChannel(_ url: String) {
        onScreen.close(url)
    }

    /// `url` is on screen but not seen yet (the terminal is not focused, the user is away): kept current
    /// (caught up after a reconnection, its cache kept) like an open channel, but not marked read.
    public func showChannel(_ url: String) {
        onScreen.show(url)
    }

    // MARK: - Receipts

    /// Members (other than the user and the sender) who have not read `message`.
    public func unreadMemberCount(of message: Message) -> Int {
        store[message.channelUrl]?.unreadMemberCount(of: message, me: me) ?? 0
    }

    public func readMembers(of message: Message) -> [Member] {
        store[message.channelUrl]?.readMembers(of: message, me: me) ?? []
    }

    public func unreadMembers(of message: Message) -> [Member] {
        store[message.channelUrl]?.unreadMembers(of: message, me: me) ?? []
    }

    public func undeliveredMemberCount(of message: Message) -> Int {
        store[message.channelUrl]?.undeliveredMemberCount(of: message, me: me) ?? 0
    }

    // MARK: - Typing

    /// The user is typing in `url` (repeat calls within a second send nothing).
    public func startTyping(_ url: String) {
        let now = clock.now()
        guard typingOut.start(url, now: now) else { return }
        send([Frame(command: .typingStart, ChannelRequest(channelUrl: url, time: now))])
    }

    /// The user stopped typing in `url`.
    public func endTyping(_ url: String) {
        let now = clock.now()
        guard typingOut.end(url, now: now) else { return }
        send([Frame(command: .typingEnd, ChannelRequest(channelUrl: url, time: now))])
    }
}
