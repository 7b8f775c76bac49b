/// Readers for what a client receives. Servers differ in which keys they send (Sendbird's hosted
/// service sends more, older servers fewer, some send `null`), so every key but the identifying
/// one is optional on the way in; what is written is unchanged.

extension KeyedDecodingContainer {
    /// The value at `key`, or `fallback` when it is missing, `null` or of another type.
    func lenient<T: Decodable>(_ key: Key, _ fallback: T) -> T {
        ((try? decodeIfPresent(T.self, forKey: key)) ?? nil) ?? fallback
    }

    /// An integer that may arrive as a number, a float or a numeric string.
    func lenientInt64(_ key: Key, _ fallback: Int64 = 0) -> Int64 {
        ((try? decodeIfPresent(FlexibleInt64.self, forKey: key)) ?? nil)?.value ?? fallback
    }
}

extension SenderPayload {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            userId: try c.decode(String.self, forKey: .userId), nickname: c.lenient(.nickname, ""),
            profileUrl: c.lenient(.profileUrl, ""), metadata: c.lenient(.metadata, [:]), role: c.lenient(.role, "")
        )
        isActive = c.lenient(.isActive, true)
        requireAuthForProfileImage = c.lenient(.requireAuthForProfileImage, false)
    }
}

extension MemberPayload {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            userId: try c.decode(String.self, forKey: .userId), nickname: c.lenient(.nickname, ""),
            profileUrl: c.lenient(.profileUrl, ""), metadata: c.lenient(.metadata, [:]), isOnline: c.lenient(.isOnline, false),
            lastSeenAt: c.lenientInt64(.lastSeenAt), state: c.lenient(.state, "joined"), role: c.lenient(.role, ""),
            readTs: (try? c.decodeIfPresent(FlexibleInt64.self, forKey: .readTs))??.value,
            deliveredTs: (try? c.decodeIfPresent(FlexibleInt64.self, forKey: .deliveredTs))??.value
        )
        isActive = c.lenient(.isActive, true)
        requireAuthForProfileImage = c.lenient(.requireAuthForProfileImage, false)
        isMuted = c.lenient(.isMuted, false)
        isBlockedByMe = c.lenient(.isBlockedByMe, false)
        isBlockingMe = c.lenient(.isBlockingMe, false)
    }
}

extension MessagePayload {
    /// Accepts both spellings of the id and the time (`message_id`/`msg_id`, `created_at`/`ts`).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let id = c.lenientInt64(.msgId, c.lenientInt64(.messageId, -1))
        guard id >= 0 else {
            throw DecodingError.keyNotFound(
                CodingKeys.messageId, .init(codingPath: c.codingPath, debugDescription: "a message needs message_id or msg_id"))
        }
        let created = c.lenientInt64(.ts, c.lenientInt64(.createdAt))
        self.init(
            type: c.lenient(.type, "MESG"), id: id, message: c.lenient(.message, ""), channelUrl: c.lenient(.channelUrl, ""),
            channelType: c.lenient(.channelType, "group"), createdAt: created, updatedAt: c.lenientInt64(.updatedAt),
            user: c.lenient(.user, nil), customType: c.lenient(.customType, ""), data: c.lenient(.data, ""),
            sortedMetaarray: c.lenient(.sortedMetaarray, []), mentionType: c.lenient(.mentionType, "users"),
            mentionedUsers: c.lenient(.mentionedUsers, []), silent: c.lenient(.silent, false), isOpMsg: c.lenient(.isOpMsg, false),
            parentMessageId: c.lenientInt64(.parentMessageId), isReplyToChannel: c.lenient(.isReplyToChannel, false),
            reqId: c.lenient(.reqId, nil)
        )
        isRemoved = c.lenient(.isRemoved, false)
        messageSurvivalSeconds = c.lenient(.messageSurvivalSeconds, -1)
        threadInfo = c.lenient(.threadInfo, nil)
        parentMessageInfo = c.lenient(.parentMessageInfo, nil)
        reactions = c.lenient(.reactions, nil)
        ogTag = c.lenient(.ogTag, nil)
        files = c.lenient(.files, nil)
        requireAuth = c.lenient(.requireAuth, nil)
        oldValues = c.lenient(.oldValues, nil)
        translations = c.lenient(.translations, nil)
        if let f: FilePayload = c.lenient(.file, nil) {
            file = f
        } else if type == "FILE", let url: String = c.lenient(.url, nil) {
            file = FilePayload(url: url, name: c.lenient(.name, ""), size: c.lenient(.size, 0), type: "", thumbnails: c.lenient(.thumbnails, []))
        }
    }
}

extension UnreadCount {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(all: c.lenient(.all, 0), customTypes: c.lenient(.customTypes, [:]), ts: c.lenientInt64(.ts))
    }
}

extension ReconnectPolicy {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let fallback = ReconnectPolicy()
        self.init(
            interval: c.lenient(.interval, fallback.interval), maxInterval: c.lenient(.maxInterval, fallback.maxInterval),
            mul: c.lenient(.mul, fallback.mul), retryCnt: c.lenient(.retryCnt, fallback.retryCnt)
        )
    }
}

extension LoginPayload {
    /// A successful `LOGI`; a refusal (`"error":true`) is an ``ErrorPayload`` instead.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let user = UserPayload(
            userId: try c.decode(String.self, forKey: .userId), nickname: c.lenient(.nickname, ""),
            profileUrl: c.lenient(.profileUrl, ""), metadata: c.lenient(.metadata, [:])
        )
        let key = c.lenient(.key, "")
        self.init(
            user: user, key: key, loginTs: c.lenientInt64(.loginTs),
            unread: c.lenient(.unreadCnt, UnreadCount(all: 0, ts: 0)), appId: c.lenient(.appId, "")
        )
        ekey = c.lenient(.ekey, "")
        pingInterval = c.lenient(.pingInterval, 15)
        pongTimeout = c.lenient(.pongTimeout, 5)
        reconnect = c.lenient(.reconnect, ReconnectPolicy())
        fileUploadSizeLimit = c.lenient(.fileUploadSizeLimit, 25)
        multipleFileSendMaxSize = c.lenient(.multipleFileSendMaxSize, 30)
        maxUnreadCntOnSuperGroup = c.lenient(.maxUnreadCntOnSuperGroup, 100)
        useReaction = c.lenient(.useReaction, true)
        disableSupergroupMack = c.lenient(.disableSupergroupMack, false)
        requestDedupIntervalMs = c.lenient(.requestDedupIntervalMs, 500)
        concurrentCallLimit = c.lenient(.concurrentCallLimit, 0)
        premiumFeatureList = c.lenient(.premiumFeatureList, [])
        applicationAttributes = c.lenient(.applicationAttributes, [])
        services = c.lenient(.services, [])
        emojiHash = c.lenient(.emojiHash, "")
        reqId = c.lenient(.reqId, nil)
    }
}
