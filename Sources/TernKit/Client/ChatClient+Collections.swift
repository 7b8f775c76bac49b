import TernProtocol

/// A live window on one channel's messages (Sendbird's `MessageCollection`): ``start()`` shows the
/// cache first and then replaces it with the server's page; ``loadPrevious()`` / ``loadNext()``
/// page either way; every change arrives on ``events`` with its source. The state itself is the
/// value ``MessageCollectionState``.
public actor MessageCollection {
    public nonisolated let channelUrl: String
    /// The collection's changes, from the first time this is read (see ``ChangeOutlet``).
    public nonisolated var events: AsyncStream<MessageCollectionEvent> { outlet.stream }
    public private(set) var state: MessageCollectionState
    let client: ChatClient
    let limit: Int
    let outlet = ChangeOutlet<MessageCollectionEvent>()
    var listener: Task<Void, Never>?
    /// On the engine's own loop: an event reaches the collection on the thread that handled it.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { client.unownedExecutor }

    init(client: ChatClient, channelUrl: String, startingPoint: Millis, limit: Int, window: Int? = nil) {
        self.client = client
        self.channelUrl = channelUrl
        let page = min(max(limit, 1), 200)
        self.limit = page
        var state = MessageCollectionState(channelUrl: channelUrl, startingPoint: startingPoint)
        // A window is never smaller than one page.
        state.window = window.map { max($0, page) }
        self.state = state
    }

    func listen(_ stream: AsyncStream<[ClientEvent]>) {
        listener = Task(executorPreference: client.home.tasks) { [weak self] in
            for await batch in stream { await self?.handle(batch) }
        }
    }

    func handle(_ batch: [ClientEvent]) {
        for event in batch {
            for change in state.apply(event) { outlet.yield(change) }
        }
    }

    func report(_ changes: [CollectionChange<Message>]) {
        for c in changes { outlet.yield(.messages(c)) }
    }

    public var succeededMessages: [Message] { state.succeeded }
    public var pendingMessages: [Message] { state.pending }
    public var failedMessages: [Message] { state.failed }
    public var hasPrevious: Bool { state.hasPrevious }
    public var hasNext: Bool { state.hasNext }

    /// The cache's messages first (reported with source `cache`, and handed to `cacheResult` with
    /// our unsent ones — also offline), then the server's page replaces them (source `api`) and is
    /// returned (Sendbird's `startCollection(initPolicy: .cacheAndReplaceByApi, cacheResultHandler:,
    /// apiResultHandler:)`). Throws the server's error (the cached messages stay).
    @discardableResult
    public func start(cacheResult: (@Sendable (MessagePage) async -> Void)? = nil) async throws -> [Message] {
        if state.startingPoint == .max, let cached = await client.cachedMessages(in: channelUrl, limit: limit) {
            report(state.replace(with: cached.messages, hasPrevious: cached.hasPrevious, hasNext: false, source: .cache))
            await cacheResult?(cached)
        }
        let unsent = await client.unsentMessages(in: channelUrl)
        if state.startingPoint == .max {
            let page = try await client.latestMessages(in: channelUrl, limit: limit)
            report(state.replace(with: page.messages + unsent, hasPrevious: page.hasPrevious, hasNext: false, source: .api))
        } else {
            var params = MessageListParams(anchor: .timestamp(state.startingPoint))
            params.previous = limit
            params.next = limit
            params.inclusive = true
            let list = try await client.messages(in: channelUrl, params).sorted(by: MessageCollectionState.before)
            let older = list.filter { $0.createdAt < state.startingPoint }.count
            let newer = list.filter { $0.createdAt > state.startingPoint }.count
            report(state.replace(with: list, hasPrevious: older >= limit, hasNext: newer >= limit, source: .api))
        }
        return state.succeeded
    }

    /// Older messages before the oldest held: from the cache when it holds a full page, else the server.
    @discardableResult
    public func loadPrevious() async throws -> [Message] {
        guard state.hasPrevious else { return [] }
        let before = state.succeeded.first?.createdAt
        if let before, let cached = await client.cachedMessages(in: channelUrl, before: before, limit: limit),
            cached.messages.count >= limit || !cached.hasPrevious
        {
            report(state.prepend(cached.messages, hasPrevious: cached.hasPrevious, source: .cache))
            return cached.messages
        }
        let page = try await client.previousMessages(in: channelUrl, before: before, limit: limit)
        report(state.prepend(page.messages, hasPrevious: page.hasPrevious, source: .api))
        return page.messages
    }

    /// Newer messages after the newest held (a collection started in the past).
    @discardableResult
    public func loadNext() async throws -> [Message] {
        guard state.hasNext, let after = state.succeeded.last?.createdAt else { return [] }
        var params = MessageListParams(anchor: .timestamp(after))
        params.previous = 0
        params.next = limit
        params.inclusive = false
        let list = try await client.messages(in: channelUrl, params).sorted(by: MessageCollectionState.before)
        report(state.append(list, hasNext: list.count >= limit, source: .api))
        return list
    }

    /// Forgets a failed message of ours (it will not be resent).
    public func removeFailed(_ message: Message) async {
        guard let id = message.requestId else { return }
        await client.cancelUnsent(id)
        for e in state.removeFailed(id) { outlet.yield(e) }
    }

    /// Stops listening; the event stream ends.
    public func dispose() {
        listener?.cancel()
        listener = nil
        outlet.finish()
    }
}

/// The user's group channels, live (Sendbird's `GroupChannelCollection`): ``loadMore()`` shows the
/// cache first and then pages from the server; changes arrive on ``events`` with their source.
public actor GroupChannelCollection {
    /// The collection's changes, from the first time this is read (see ``ChangeOutlet``).
    public nonisolated var events: AsyncStream<CollectionChange<GroupChannel>> { outlet.stream }
    public private(set) var state: GroupChannelCollectionState
    let client: ChatClient
    let limit: Int
    let outlet = ChangeOutlet<CollectionChange<GroupChannel>>()
    var listener: Task<Void, Never>?
    var started = false
    /// On the engine's own loop: an event reaches the collection on the thread that handled it.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { client.unownedExecutor }

    init(client: ChatClient, state: GroupChannelCollectionState, limit: Int) {
        self.client = client
        self.state = state
        self.limit = min(max(limit, 1), 100)
    }

    func listen(_ stream: AsyncStream<[ClientEvent]>) {
        listener = Task(executorPreference: client.home.tasks) { [weak self] in
            for await batch in stream { await self?.handle(batch) }
        }
    }

    func handle(_ batch: [ClientEvent]) {
        for event in batch {
            for c in state.apply(event) { outlet.yield(c) }
        }
    }

    public var channels: [GroupChannel] { state.channels }
    public var hasMore: Bool { state.hasMore }

    /// The next page: the first call shows the cached channels at once (source `cache`), then every
    /// call reads a page from the server (source `api`).
    @discardableResult
    public func loadMore() async throws -> [GroupChannel] {
        if !started {
            started = true
            for c in state.upsert(await client.cachedChannels(), source: .cache) { outlet.yield(c) }
            let page = try await client.loadChannels(limit: limit, reset: true)
            for c in state.upsert(page, source: .api) { outlet.yield(c) }
            state.hasMore = await client.hasMoreChannels
            return page
        }
        guard state.hasMore else { return [] }
        let page = try await client.loadChannels(limit: limit)
        for c in state.upsert(page, source: .api) { outlet.yield(c) }
        state.hasMore = await client.hasMoreChannels
        return page
    }

    public func dispose() {
        listener?.cancel()
        listener = nil
        outlet.finish()
    }
}

extension ChatClient {
    /// A message collection on `url` from `startingPoint` (ms; default: the newest), `limit` a page;
    /// `window`: at most that many stored messages held as new ones arrive (``MessageCollectionState/window``).
    public func messageCollection(_ url: String, startingPoint: Millis = .max, limit: Int = 30, window: Int? = nil) -> MessageCollection {
        let c = MessageCollection(client: self, channelUrl: url, startingPoint: startingPoint, limit: limit, window: window)
        let stream = eventBatches()
        Task { await c.listen(stream) }
        return c
    }

    /// A collection of the user's group channels (only `customTypes` when given).
    public func groupChannelCollection(customTypes: Set<String> = [], includeEmpty: Bool = true, limit: Int = 20) -> GroupChannelCollection {
        let c = GroupChannelCollection(
            client: self, state: GroupChannelCollectionState(customTypes: customTypes, includeEmpty: includeEmpty), limit: limit)
        let stream = eventBatches()
        Task { await c.listen(stream) }
        return c
    }

    /// Forgets an unsent message of ours: it leaves the outbox and the cache and is never resent.
    public func cancelUnsent(_ requestId: String) {
        cache?.removeUnsent(requestId)
        if let o = outbox.remove(requestId) {
            var m = o.message
            m.status = .failed
            m.error = SendbirdError(.connectionCanceled, "cancelled")
            for w in o.waiters { w.resume(returning: .failure(m.error!)) }
        }
    }
}
