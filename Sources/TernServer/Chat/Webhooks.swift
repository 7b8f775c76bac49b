import AsyncHTTPClient
import Crypto
public import Foundation
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1
public import Synchronization
import TernProtocol

/// Sendbird webhooks: the settings `/v3/applications/settings/webhook` keeps, and the delivery of
/// events to the configured URL — a JSON body with `category`, signed in `x-sendbird-signature`
/// (HMAC-SHA256 of the body, keyed with the API token, hex).
///
/// Delivery never blocks the send path: events go into a bounded queue (``capacity``; beyond it
/// they are dropped, counted and logged) that one worker empties in order, so each channel's
/// events arrive in the order they happened. A failed POST (no answer within ``timeout``, or a
/// status other than 2xx) is retried with back-off (0.5 s, 1 s, 2 s), then given up and logged.
public final class WebhookDispatcher: Sendable {
    /// The settings, as stored and answered.
    public struct Settings: Codable, Sendable, Equatable {
        public var enabled = false
        public var url = ""
        public var includeMembers = false
        public var includeUnreadCount = false
        public var enabledEvents: [String] = []
        enum CodingKeys: String, CodingKey {
            case enabled, url
            case includeMembers = "include_members"
            case includeUnreadCount = "include_unread_count"
            case enabledEvents = "enabled_events"
        }
        public init() {}

        /// Whether an event of `category` goes out (`*` subscribes to every category).
        func wants(_ category: String) -> Bool {
            enabled && !url.isEmpty && (enabledEvents.contains("*") || enabledEvents.contains(category))
        }
    }

    /// Every category ternd sends.
    public static let categories = [
        "group_channel:create", "group_channel:changed", "group_channel:remove", "group_channel:invite", "group_channel:join",
        "group_channel:leave", "group_channel:message_send", "group_channel:message_update", "group_channel:message_delete",
        "open_channel:create", "open_channel:message_send", "open_channel:message_update", "open_channel:message_delete",
    ]

    public static let capacity = 10_000
    static let timeout: TimeAmount = .seconds(5)
    /// Most of a receiver's answer that is read (the rest is not: the connection is closed).
    static let maxAnswer = 64 * 1024

    /// The client of webhooks and bot callbacks: no redirects (a 3xx is a failed delivery, never
    /// a second POST somewhere else), 5 s to connect and between reads, and ``timeout`` for the
    /// whole request. The URL is the application's own (Platform API), so a receiver on this
    /// machine or a private network is allowed, unlike link previews.
    static let client = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(5)), decompression: .disabled))
    static let backoff: [Duration] = [.milliseconds(500), .seconds(1), .seconds(2)]

    struct Job: Sendable {
        let url: String
        let body: Data
    }

    let apiToken: String
    let logger: Logger
    let current = Mutex<Settings?>(nil)
    let queue: AsyncStream<Job>.Continuation
    let stream: AsyncStream<Job>
    let started = Atomic<Bool>(false)
    /// Events dropped because the queue was full, and deliveries given up after every retry.
    public let dropped = Atomic<Int>(0)
    public let failed = Atomic<Int>(0)
    public let delivered = Atomic<Int>(0)

    init(apiToken: String, logger: Logger) {
        self.apiToken = apiToken
        self.logger = logger
        (stream, queue) = AsyncStream.makeStream(of: Job.self, bufferingPolicy: .bufferingOldest(Self.capacity))
    }

    /// The settings in memory (loaded from the store once).
    func settings(_ store: any PlatformStore) async throws -> Settings {
        if let s = current.withLock({ $0 }) { return s }
        var s = Settings()
        if let json = try await store.setting(scope: "application", key: "webhook") {
            s = (try? JSONDecoder().decode(Settings.self, from: Data(json.utf8))) ?? Settings()
        }
        current.withLock { $0 = s }
        return s
    }

    func save(_ s: Settings, _ store: any PlatformStore) async throws {
        let json = String(decoding: try JSONEncoder().encode(s), as: UTF8.self)
        try await store.setSetting(scope: "application", key: "webhook", json: json)
        current.withLock { $0 = s }
    }

    /// Drops the settings in memory (another node changed them): read again on next use.
    func forget() { current.withLock { $0 = nil } }

    /// Whether an event of `category` would go out now (cheap: no store read after the first).
    func wants(_ category: String, _ store: any PlatformStore) async -> Settings? {
        guard let s = try? await settings(store), s.wants(category) else { return nil }
        return s
    }

    /// Queues an event for delivery (never waits).
    func emit(_ body: [String: Any], to url: String) {
        guard let data = try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys]) else { return }
        startWorker()
        if case .dropped = queue.yield(Job(url: url, body: data)) {
            let n = dropped.add(1, ordering: .relaxed).newValue
            if n == 1 || n % 1000 == 0 { logger.warning("webhook queue full: \(n) events dropped so far") }
        }
    }

    public static func signature(_ body: Data, key: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data(key.utf8)))
        return mac.map { String(format: "%02x", $0) }.joined()
    }

    func startWorker() {
        guard started.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        Task.detached { [self] in
            for await job in stream { await deliver(job) }
        }
    }

    /// Ends the worker once the queue is empty (at shutdown).
    func finish() { queue.finish() }

    func deliver(_ job: Job) async {
        var request = HTTPClientRequest(url: job.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "x-sendbird-signature", value: Self.signature(job.body, key: apiToken))
        request.headers.add(name: "User-Agent", value: "ternd-webhook")
        request.body = .bytes(ByteBuffer(data: job.body))
        for attempt in 0...Self.backoff.count {
            do {
                let response = try await Self.client.execute(request, timeout: Self.timeout)
                _ = try? await response.body.collect(upTo: Self.maxAnswer)
                if (200..<300).contains(Int(response.status.code)) {
                    delivered.add(1, ordering: .relaxed)
                    return
                }
                logger.notice("webhook \(job.url) answered \(response.status.code) (attempt \(attempt + 1))")
            } catch {
                logger.notice("webhook \(job.url) failed: \(error) (attempt \(attempt + 1))")
            }
            if attempt < Self.backoff.count { try? await Task.sleep(for: Self.backoff[attempt]) }
        }
        failed.add(1, ordering: .relaxed)
        logger.warning("webhook \(job.url): an event was given up after \(Self.backoff.count + 1) attempts")
    }
}

extension ChatService {
    /// The webhook settings (kept in memory after the first read).
    func webhookSettings() async throws -> WebhookDispatcher.Settings { try await webhooks.settings(store) }

    /// Stores new webhook settings; the other nodes read them again.
    func saveWebhookSettings(_ s: WebhookDispatcher.Settings) async throws {
        try await webhooks.save(s, store)
        settingsChanged()
    }

    static let autoEventKinds = ["join": "user_join", "leave": "user_leave", "create": "channel_create", "changed": "channel_change"]

    /// Auto event messages (`PUT /v3/applications/settings/auto_event_message`): an admin message
    /// (custom type `SENDBIRD:AUTO_EVENT_MESSAGE`, `data` naming the event) in a group channel when
    /// a user joins or leaves, or the channel is created or changed, for each kind turned on.
    func autoEventMessage(_ action: String, _ channel: ChannelRecord, users: [String], actor: String?) async {
        guard !channel.isOpen, let kind = Self.autoEventKinds[action], (try? await autoEventKindsOn())?.contains(kind) == true else { return }
        var names: [String] = []
        for id in users { names.append((try? await store.user(id))?.nickname.nonEmpty ?? id) }
        let who = names.joined(separator: ", ")
        let text: String
        switch kind {
        case "user_join": text = "\(who) joined."
        case "user_leave": text = "\(who) left."
        case "channel_create":
            if let actor {
                let name = (try? await store.user(actor))?.nickname.nonEmpty ?? actor
                text = "\(name) created the channel."
            } else {
                text = "The channel was created."
            }
        default: text = "The channel was changed."
        }
        let data =
            (try? JSONSerialization.data(withJSONObject: ["type": kind.uppercased(), "details": ["user_ids": users]], options: [.sortedKeys]))
            .map { String(decoding: $0, as: UTF8.self) } ?? ""
        _ = try? await sendAdminMessage(channelUrl: channel.channelUrl, message: text, customType: "SENDBIRD:AUTO_EVENT_MESSAGE", data: data)
    }

    /// The auto event kinds turned on (read from the store once; ``autoEventSettingsChanged()`` forgets it).
    func autoEventKindsOn() async throws -> Set<String> { try await settingsCache.autoEventKinds() }

    /// A route wrote the auto event settings: every node forgets the cached ones.
    func autoEventSettingsChanged() { settingsCache.settingsChanged() }

    /// The `channel` object of a webhook event.
    func webhookChannel(_ c: ChannelRecord) -> [String: Any] {
        [
            "channel_url": c.channelUrl, "name": c.name, "custom_type": c.customType, "data": c.data, "is_distinct": c.isDistinct,
            "is_public": c.isPublic, "is_super": c.isSuper, "is_ephemeral": c.isEphemeral, "is_discoverable": c.isPublic,
        ]
    }

    func webhookUser(_ id: String?) async -> [String: Any] {
        guard let id else { return [:] }
        guard let u = try? await store.user(id) else { return ["user_id": id] }
        return ["user_id": u.userId, "nickname": u.nickname, "profile_url": u.profileUrl, "metadata": u.metadata]
    }

    func webhookMembers(_ roster: ChannelRoster, _ s: WebhookDispatcher.Settings) async -> [[String: Any]]? {
        guard s.includeMembers, !roster.channel.isOpen else { return nil }
        var out: [[String: Any]] = []
        for m in roster.members {
            var u = await webhookUser(m.userId)
            u["state"] = m.state
            if s.includeUnreadCount { u["unread_message_count"] = m.unreadCount }
            out.append(u)
        }
        return out
    }

    /// A message was sent, changed or deleted (`action`: message_send, message_update, message_delete).
    func webhookMessage(_ action: String, _ m: MessageRecord, roster: ChannelRoster) async {
        let category = (roster.channel.isOpen ? "open_channel:" : "group_channel:") + action
        guard let s = await webhooks.wants(category, store) else { return }
        var body: [String: Any] = [
            "category": category, "app_id": config.appId, "type": m.type, "custom_type": m.customType, "silent": m.silent,
            "mention_type": m.mentionType, "channel": webhookChannel(roster.channel),
            "sender": await webhookUser(m.senderId),
            "payload": [
                "message_id": m.messageId, "message": m.message, "custom_type": m.customType, "data": m.data,
                "created_at": m.createdAt, "updated_at": m.updatedAt, "parent_message_id": m.parentMessageId,
            ] as [String: Any],
        ]
        var mentioned: [[String: Any]] = []
        for id in m.mentionedUserIds { mentioned.append(await webhookUser(id)) }
        body["mentioned_users"] = mentioned
        if let members = await webhookMembers(roster, s) { body["members"] = members }
        webhooks.emit(body, to: s.url)
    }

    /// A channel event (`action`: create, changed, remove, invite, join, leave) with its users, for
    /// what follows one: the automatic event message the application asked for, and the webhook.
    func channelEventHappened(_ action: String, _ channel: ChannelRecord, users: [String] = [], inviter: String? = nil) async {
        await autoEventMessage(action, channel, users: users, actor: inviter)
        await webhookChannelEvent(action, channel, users: users, inviter: inviter)
    }

    /// The webhook of a channel event.
    func webhookChannelEvent(_ action: String, _ channel: ChannelRecord, users: [String], inviter: String?) async {
        let category = (channel.isOpen ? "open_channel:" : "group_channel:") + action
        guard let s = await webhooks.wants(category, store) else { return }
        var body: [String: Any] = ["category": category, "app_id": config.appId, "channel": webhookChannel(channel), "created_at": now()]
        var list: [[String: Any]] = []
        for id in users { list.append(await webhookUser(id)) }
        switch action {
        case "invite":
            body["invitees"] = list
            body["inviter"] = await webhookUser(inviter)
        case "create":
            body["members"] = list
            if let inviter { body["inviter"] = await webhookUser(inviter) }
        default: body["users"] = list
        }
        if let roster = try? await roster(channel.channelUrl), let members = await webhookMembers(roster, s) { body["members"] = members }
        webhooks.emit(body, to: s.url)
    }
}

extension String {
    /// The string, or nil when it is empty.
    var nonEmpty: String? { isEmpty ? nil : self }
}
