import Foundation
public import TernProtocol

/// What a user message carries besides its text.
public struct UserMessageParams: Sendable, Equatable {
    public var text: String
    public var data = ""
    public var customType = ""
    /// `users` (those in ``mentionedUserIds``) or `channel` (everyone).
    public var mentionType = "users"
    public var mentionedUserIds: [String] = []
    public var metaarray: [MetaArrayItem] = []
    /// Reply to this message (0: not a reply).
    public var parentMessageId: Int64 = 0
    /// A reply that also shows in the channel.
    public var replyToChannel = false
    public init(_ text: String) { self.text = text }
}

/// What an update changes (nil: unchanged).
public struct MessageUpdateParams: Sendable, Equatable {
    public var text: String?
    public var data: String?
    public var customType: String?
    public var mentionedUserIds: [String]?
    public init(text: String? = nil) { self.text = text }
}

/// A parent message and its replies.
public struct MessageThread: Sendable, Equatable {
    public var parent: Message
    /// Oldest first.
    public var replies: [Message]
    public var hasMore: Bool
}

extension ChatClient {
    func messagePath(_ url: String, _ id: Int64, _ suffix: String = "") -> String {
        channelBase(url) + "/messages/\(id)" + suffix
    }

    /// Changes a message (own, or any as an operator): every member sees the update.
    @discardableResult
    public func updateMessage(_ message: Message, _ params: MessageUpdateParams) async throws -> Message {
        guard message.messageId > 0 else { throw SendbirdError(.invalidParameter, "the message is not stored yet") }
        if let t = params.text, t.isEmpty { throw SendbirdError(.invalidParameter, "the message is empty") }
        let reqId = newRequestId()
        var body = UpdateMessageRequest(channelUrl: message.channelUrl, msgId: message.messageId, reqId: reqId)
        body.message = params.text
        body.data = params.data
        body.customType = params.customType
        if let ids = params.mentionedUserIds {
            body.mentionType = "users"
            body.mentionedUserIds = ids
        }
        return try await sendUpdate(body, command: message.kind == .file ? .updateFileMessage : .updateMessage)
    }

    /// Adds values under metaarray keys (creating the keys), or with `remove` takes them away (a key
    /// given without values goes entirely).
    @discardableResult
    public func changeMetaArray(_ message: Message, _ items: [MetaArrayItem], remove: Bool = false) async throws -> Message {
        let reqId = newRequestId()
        var body = UpdateMessageRequest(channelUrl: message.channelUrl, msgId: message.messageId, reqId: reqId)
        body.metaarray = .init(array: items, mode: remove ? "remove" : "add", upsert: true)
        return try await sendUpdate(body, command: message.kind == .file ? .updateFileMessage : .updateMessage)
    }

    func sendUpdate(_ body: UpdateMessageRequest, command: Command) async throws -> Message {
        let reply = try await request(try Frame(command: command, body), reqId: body.reqId ?? "")
        if reply.command == .error {
            let e = try reply.decode(ErrorPayload.self)
            throw SendbirdError(ErrorCode(e.code), e.message)
        }
        var updated = Message(try reply.decode(MessagePayload.self))
        updated.requestId = nil
        applyUpdated(updated)
        return updated
    }

    /// Deletes a message (own, or any as an operator); every member's copy goes.
    public func deleteMessage(_ message: Message) async throws {
        guard message.messageId > 0 else { throw SendbirdError(.invalidParameter, "the message is not stored yet") }
        try await call("DELETE", messagePath(message.channelUrl, message.messageId), [:])
        applyDeleted(url: message.channelUrl, id: message.messageId)
    }

    /// Adds the user's reaction `key` to a message.
    public func addReaction(_ message: Message, key: String) async throws {
        guard !key.isEmpty else { throw SendbirdError(.invalidParameter, "no reaction given") }
        try await call("POST", messagePath(message.channelUrl, message.messageId, "/reactions"), ["reaction": key, "user_id": me])
    }

    /// Takes the user's reaction `key` off a message.
    public func deleteReaction(_ message: Message, key: String) async throws {
        let path = RESTClient.path(messagePath(message.channelUrl, message.messageId, "/reactions"), [("user_id", me), ("reaction", key)])
        try await call("DELETE", path, nil)
    }

    /// Sends a copy of one's own user or file message to another channel (its text or files, data,
    /// custom type, mentions and metaarray; not its thread).
    @discardableResult
    public func copyMessage(_ message: Message, to url: String) async throws -> Message {
        guard message.sender?.userId == me else { throw SendbirdError(.invalidParameter, "only your own messages can be copied") }
        if message.kind == .file { return try await copyFileMessage(message, to: url) }
        guard message.kind == .user else { throw SendbirdError(.invalidParameter, "only user and file messages can be copied") }
        var params = UserMessageParams(message.text)
        params.data = message.data
        params.customType = message.customType
        params.mentionType = message.mentionType
        params.mentionedUserIds = message.mentionedUserIds
        params.metaarray = message.metaarray
        return try await sendMessageAndWait(params, to: url)
    }

    func copyFileMessage(_ message: Message, to url: String) async throws -> Message {
        guard !message.files.isEmpty else { throw SendbirdError(.invalidParameter, "the message has no file") }
        return try await sendFiles(message.files, to: url, data: message.data, customType: message.customType, metaarray: message.metaarray)
    }

    /// One message by id, with its thread, parent and reactions.
    public func message(_ id: Int64, in url: String) async throws -> Message {
        let query: [(String, String)] = [
            ("include_thread_info", "true"), ("include_parent_message_info", "true"), ("include_reactions", "true"),
        ]
        return Message(
            try await rest.request("GET", RESTClient.path(messagePath(url, id), query), sessionKey: try requireSession(), as: MessagePayload.self))
    }

    /// A parent and up to `limit` of its replies, oldest first, after `after` (ms; default: from the start).
    public func thread(of parent: Message, after: Millis = 0, limit: Int = 50) async throws -> MessageThread {
        try await threadedMessages(of: parent, at: after, previous: 0, next: min(max(limit, 1), 200))
    }

    // MARK: - Events

    func applyUpdated(_ message: Message) {
        if store.applyUpdated(message), let c = store[message.channelUrl] { emit(.channelUpdated(c)) }
        emit(.messageUpdated(message))
    }

    func applyDeleted(url: String, id: Int64) {
        guard !deletedSeen.contains(id) else { return }
        deletedSeen.append(id)
        if deletedSeen.count > 1000 { deletedSeen.removeFirst(500) }
        emit(.messageDeleted(channelUrl: url, messageId: id))
        // The last message went: the server knows which one came before it.
        if store.applyDeleted(url: url, id: id) { refreshChannel(url) }
    }

    func handleMessageChange(_ frame: Frame) {
        switch frame.command {
        case .updateMessage, .updateFileMessage:
            guard let p = try? frame.decode(MessagePayload.self) else { return }
            if resolveAck(p.reqId, with: frame) { return }
            var m = Message(p)
            m.requestId = nil
            applyUpdated(m)
        case .deleteMessage:
            guard let e = try? frame.decode(DeleteMessageEvent.self) else { return }
            applyDeleted(url: e.channelUrl, id: e.msgId)
        case .reaction:
            guard let e = try? frame.decode(ReactionEvent.self) else { return }
            emit(
                .reactionUpdated(
                    channelUrl: e.channelUrl, messageId: e.msgId, key: e.reaction, userId: e.userId, added: e.added))
        case .threadInfo:
            guard let e = try? frame.decode(ThreadInfoEvent.self) else { return }
            emit(.threadInfoUpdated(channelUrl: e.channelUrl, parentMessageId: e.parentMessageId, ThreadSummary(e.threadInfo)))
        default:
            break
        }
    }
}

/// A message search (seed 002's `MessageSearchQuery`).
public struct MessageSearchQuery: Sendable, Equatable {
    public enum Order: String, Sendable {
        case score
        case timestamp = "ts"
    }
    public var keyword: String
    public var channelUrl: String?
    public var channelCustomType: String?
    public var limit = 20
    public var exactMatch = false
    /// Wildcards (`*`, `?`), fuzzy terms (`~`), `AND`/`OR` with parentheses, `custom_type:` / `data:`.
    public var advanced = false
    public var timestampFrom: Millis?
    public var timestampTo: Millis?
    public var order: Order = .score
    /// By time: newest first.
    public var reverse = false
    /// Continue after the page that returned this cursor.
    public var after: String?
    public init(keyword: String) { self.keyword = keyword }

    /// Whether a keyword uses the advanced syntax.
    public static func looksAdvanced(_ q: String) -> Bool {
        q.contains("*") || q.contains("?") || q.contains("~") || q.contains(" AND ") || q.contains(" OR ") || q.contains("(")
            || q.contains("custom_type:") || q.contains("data:")
    }
}

/// One page of search results.
public struct MessageSearchResult: Sendable, Equatable {
    public var messages: [Message]
    public var hasNext: Bool
    /// Pass as ``MessageSearchQuery/after`` for the next page.
    public var endCursor: String?
    public var totalCount: Int
}

extension ChatClient {
    /// Searches the messages of the user's channels.
    public func searchMessages(_ q: MessageSearchQuery) async throws -> MessageSearchResult {
        let keyword = q.keyword.trimmingCharacters(in: .whitespaces)
        guard !keyword.isEmpty else { throw SendbirdError(.invalidParameter, "nothing to search for") }
        var query: [(String, String)] = [
            ("query", keyword), ("limit", String(min(max(q.limit, 1), 100))), ("reverse", String(q.reverse)),
            ("exact_match", String(q.exactMatch)), ("sort_field", q.order.rawValue), ("advanced_query", String(q.advanced)),
        ]
        if let url = q.channelUrl { query.append(("channel_url", url)) }
        if let t = q.channelCustomType { query.append(("custom_type", t)) }
        if let from = q.timestampFrom { query.append(("message_ts_from", String(from))) }
        if let to = q.timestampTo { query.append(("message_ts_to", String(to))) }
        if let after = q.after { query.append(("after", after)) }
        let r = try await rest.request(
            "GET", RESTClient.path("/v3/search/messages", query), sessionKey: try requireSession(), as: MessageSearchPage.self)
        return MessageSearchResult(
            messages: r.results.map(Message.init), hasNext: r.hasNext, endCursor: r.endCursor.isEmpty ? nil : r.endCursor, totalCount: r.totalCount)
    }

    /// The history around a message: up to `before` older and `after` newer ones, with it, oldest first.
    public func messages(around message: Message, before: Int = 30, after: Int = 30) async throws -> MessagePage {
        var params = MessageListParams(anchor: .timestamp(message.createdAt))
        params.previous = before
        params.next = after
        params.inclusive = true
        let messages = try await self.messages(in: message.channelUrl, params).sorted { ($0.createdAt, $0.messageId) < ($1.createdAt, $1.messageId) }
        let older = messages.filter { $0.createdAt < message.createdAt }.count
        return MessagePage(messages: messages, hasPrevious: older >= before)
    }
}

/// A history query around a timestamp or a message (Sendbird's `MessageListParams`).
public struct MessageListParams: Sendable, Equatable {
    public enum Anchor: Sendable, Equatable {
        case timestamp(Millis)
        case messageId(Int64)
    }
    public enum ReplyType: String, Sendable {
        case none, all
        case onlyReplyToChannel = "only_reply_to_channel"
    }
    public var anchor: Anchor
    public var previous = 20
    public var next = 0
    public var inclusive = false
    /// Newest first.
    public var reverse = false
    public var messageType: Message.Kind?
    public var customTypes: [String] = []
    public var senderIds: [String] = []
    public var replyType: ReplyType = .onlyReplyToChannel
    public var includeThreadInfo = true
    public var includeParentInfo = true
    public var includeReactions = true
    public init(anchor: Anchor) { self.anchor = anchor }
}

/// Pages back through a channel's history: each `load()` continues where the last one ended
/// (Sendbird's `PreviousMessageListQuery`).
public actor PreviousMessageListQuery {
    let client: ChatClient
    let channelUrl: String
    public let limit: Int
    public let reverse: Bool
    var params: MessageListParams
    /// The oldest message returned so far.
    var oldest: Message?
    public private(set) var hasMore = true

    init(client: ChatClient, channelUrl: String, limit: Int, reverse: Bool, filter: MessageListParams) {
        self.client = client
        self.channelUrl = channelUrl
        self.limit = limit
        self.reverse = reverse
        params = filter
    }

    /// The next (older) page: oldest first, or newest first with `reverse`.
    public func load() async throws -> [Message] {
        guard hasMore else { return [] }
        var p = params
        p.anchor = oldest.map { .messageId($0.messageId) } ?? .timestamp(9_007_199_254_740_991)
        p.previous = limit
        p.next = 0
        p.inclusive = false
        p.reverse = false
        let page = try await client.messages(in: channelUrl, p)
        if page.count < limit { hasMore = false }
        if let first = page.first { oldest = first }
        return reverse ? page.reversed() : page
    }
}

extension ChatClient {
    /// Messages around a timestamp or a message, with the filters of `params`.
    public func messages(in url: String, _ params: MessageListParams) async throws -> [Message] {
        var q: [(String, String)] = []
        switch params.anchor {
        case .timestamp(let ts): q.append(("message_ts", String(ts)))
        case .messageId(let id): q.append(("message_id", String(id)))
        }
        q += [
            ("prev_limit", String(min(max(params.previous, 0), 200))), ("next_limit", String(min(max(params.next, 0), 200))),
            ("include", String(params.inclusive)), ("reverse", String(params.reverse)), ("include_reply_type", params.replyType.rawValue),
            ("include_thread_info", String(params.includeThreadInfo)), ("include_parent_message_info", String(params.includeParentInfo)),
            ("include_reactions", String(params.includeReactions)),
        ]
        if let t = params.messageType { q.append(("message_type", t.rawValue)) }
        if !params.customTypes.isEmpty { q.append(("custom_types", params.customTypes.joined(separator: ","))) }
        if !params.senderIds.isEmpty { q.append(("sender_ids", params.senderIds.joined(separator: ","))) }
        let page = try await rest.request(
            "GET", RESTClient.path(channelBase(url) + "/messages", q), sessionKey: try requireSession(),
            as: MessageListPage.self)
        return page.messages.map(Message.init)
    }

    /// A query that pages back through `url`'s history `limit` (1–100) messages at a time; `filter`
    /// sets message type, custom types, senders and reply type.
    public nonisolated func previousMessageListQuery(
        _ url: String, limit: Int = 20, reverse: Bool = false, filter: MessageListParams = MessageListParams(anchor: .timestamp(0))
    ) -> PreviousMessageListQuery {
        PreviousMessageListQuery(client: self, channelUrl: url, limit: min(max(limit, 1), 100), reverse: reverse, filter: filter)
    }

    /// A parent's replies around a timestamp (Sendbird's `getThreadedMessagesByTimestamp`).
    public func threadedMessages(of parent: Message, at ts: Millis, previous: Int = 0, next: Int = 30, inclusive: Bool = false, reverse: Bool = false)
        async throws -> MessageThread
    {
        let query: [(String, String)] = [
            ("message_ts", String(ts)), ("prev_limit", String(min(max(previous, 0), 200))), ("next_limit", String(min(max(next, 0), 200))),
            ("include", String(inclusive)), ("reverse", String(reverse)), ("include_reply_type", "all"),
            ("parent_message_id", String(parent.messageId)), ("include_thread_info", "true"), ("include_reactions", "true"),
            ("include_parent_message_info", "true"),
        ]
        let page = try await rest.request(
            "GET", RESTClient.path(channelBase(parent.channelUrl) + "/messages", query),
            sessionKey: try requireSession(), as: MessageListPage.self)
        var messages = page.messages.map(Message.init)
        let head = messages.first { $0.messageId == parent.messageId } ?? parent
        messages.removeAll { $0.messageId == parent.messageId }
        return MessageThread(parent: head, replies: messages, hasMore: messages.count >= previous + next)
    }
}
