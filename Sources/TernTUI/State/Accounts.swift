import Foundation
public import TernKit

/// One account of several in one tern (config.toml `[[accounts]]`): who it signs in as, where, and how its
/// connection is. With one account (the environment's login) tern keeps none of these.
public struct AccountState: Sendable, Equatable {
    /// The account's name in the config (`name`), shown as its header in the channel list.
    public var name: String
    public var me: User
    /// The server's address as the status bar and `/account` say it.
    public var server: String
    public var connection: ConnectionState = .connecting
    public var syncing = false
    /// The unread messages of the account's channels (the server's total).
    public var totalUnread = 0
    /// A theme colour for the account's header and name (`color`; nil: the theme's header style).
    public var color: String?
    /// The channel list shows only the header (`/fold`).
    public var folded = false

    public init(name: String, me: User, server: String, color: String? = nil) {
        self.name = name
        self.me = me
        self.server = server
        self.color = color
    }
}

/// With several accounts a channel is named by its account and its URL, in one string: the same URL on two
/// accounts (two users of one server, or two servers that both have a `general`) is two channels. The
/// reducer and the views keep using the string as a URL; only the edges (``AccountRoute``) and the few
/// places that show a URL take it apart. With one account, keys are plain URLs.
public enum AccountKey {
    /// U+001F (unit separator): never in a channel URL or an account name.
    public static let separator = "\u{1F}"
    /// The same as one character: found by the standard library (Foundation's `range(of:)` goes through
    /// NSString and CoreFoundation, on every message tern reads).
    static let separatorCharacter: Character = "\u{1F}"

    public static func make(account: String, url: String) -> String { account + separator + url }

    /// The account a key names (nil: a plain URL, one account).
    public static func account(of key: String) -> String? {
        guard let i = key.firstIndex(of: separatorCharacter) else { return nil }
        return String(key[..<i])
    }

    /// The channel's URL on its server.
    public static func url(of key: String) -> String {
        guard let i = key.firstIndex(of: separatorCharacter) else { return key }
        return String(key[key.index(after: i)...])
    }
}

extension GroupChannel {
    /// Its name as tern shows it to `me` (``GroupChannel/displayName(me:)``), with its URL on its server when it
    /// has no name and no one else in it — never its key in tern.
    public func title(me: String) -> String {
        let name = displayName(me: me)
        return name == url ? AccountKey.url(of: url) : name
    }
}

extension AppState {
    /// The account of a channel (by its key), else the first; nil with one account.
    public func accountIndex(of key: String?) -> Int? {
        guard !accounts.isEmpty else { return nil }
        if let key, let name = AccountKey.account(of: key), let i = accounts.firstIndex(where: { $0.name == name }) { return i }
        return 0
    }

    /// The account of the channel on screen (nil with one account).
    public var currentAccount: Int? { accountIndex(of: selected) }

    /// The user in the channel on screen: the one account's, or the account's that the channel belongs to.
    public var me: User {
        get { currentAccount.map { accounts[$0].me } ?? ownUser }
        set {
            if let i = currentAccount { accounts[i].me = newValue } else { ownUser = newValue }
        }
    }

    /// The connection of the channel on screen's account (the one account's).
    public var connection: ConnectionState {
        get { currentAccount.map { accounts[$0].connection } ?? ownConnection }
        set {
            if let i = currentAccount { accounts[i].connection = newValue } else { ownConnection = newValue }
        }
    }

    /// The user as seen in a channel that may not be on screen (its account's user).
    public func me(for key: String?) -> User {
        accountIndex(of: key).map { accounts[$0].me } ?? ownUser
    }

    /// A channel's URL as a person reads it (without its account).
    public func plainURL(_ key: String) -> String { AccountKey.url(of: key) }
}

/// One account's edge between the engine and the reducer: what comes from its `ChatClient` gets its channel
/// keys (``tagged(_:)-(Action)``); what goes to it loses them (``untagged(_:)``). With one account (`name`
/// nil) both are the identity.
public struct AccountRoute: Sendable, Equatable {
    public let name: String?
    public init(_ name: String?) { self.name = name }

    // MARK: Into the app

    public func key(_ url: String) -> String { name.map { AccountKey.make(account: $0, url: url) } ?? url }
    public func tagged(_ m: Message) -> Message { rewritten(m, \.channelUrl, key) }
    public func tagged(_ c: GroupChannel) -> GroupChannel { rewritten(c, \.url, key) }
    public func tagged(_ o: OpenChannel) -> OpenChannel { rewritten(o, \.url, key) }

    /// `value` with its channel URL at `path` passed through `change` (with one account: as it is).
    func rewritten<T>(_ value: T, _ path: WritableKeyPath<T, String>, _ change: (String) -> String) -> T {
        guard name != nil else { return value }
        var v = value
        v[keyPath: path] = change(v[keyPath: path])
        return v
    }
    public func tagged(_ p: MessagePage) -> MessagePage {
        guard name != nil else { return p }
        return MessagePage(messages: p.messages.map(tagged), hasPrevious: p.hasPrevious)
    }
    public func tagged(_ t: MessageThread) -> MessageThread {
        guard name != nil else { return t }
        var t = t
        t.parent = tagged(t.parent)
        t.replies = t.replies.map(tagged)
        return t
    }

    /// An engine event: the account-wide ones (connection, user, unread total, errors) become
    /// ``Action/account(name:_:)`` with several accounts; the others name their channels by key.
    public func action(for event: ClientEvent) -> Action {
        guard let name else { return .event(event) }
        switch event {
        case .connectionStateChanged, .connected, .reconnectStarted, .reconnectSucceeded, .reconnectFailed, .disconnected, .serverError,
            .userBlocked, .userUnblocked, .syncing:
            return .account(name: name, event)
        case .unreadCountChanged(let url, let messages, let mentions, let total):
            return .account(
                name: name, .unreadCountChanged(channelUrl: url.map(key), unreadMessageCount: messages, unreadMentionCount: mentions, total: total))
        default:
            return .event(tagged(event))
        }
    }

    /// A channel event with its channels named by key.
    public func tagged(_ event: ClientEvent) -> ClientEvent {
        guard name != nil else { return event }
        switch event {
        case .channelAdded(let c): return .channelAdded(tagged(c))
        case .channelUpdated(let c): return .channelUpdated(tagged(c))
        case .channelDeleted(let url): return .channelDeleted(url: key(url))
        case .channelRemoved(let url, let reason): return .channelRemoved(url: key(url), reason: reason)
        case .messagePending(let m): return .messagePending(tagged(m))
        case .messageSent(let m): return .messageSent(tagged(m))
        case .messageFailed(let m): return .messageFailed(tagged(m))
        case .messageReceived(let m): return .messageReceived(tagged(m))
        case .messageUpdated(let m): return .messageUpdated(tagged(m))
        case .messageDeleted(let url, let id): return .messageDeleted(channelUrl: key(url), messageId: id)
        case .reactionUpdated(let url, let id, let k, let user, let added):
            return .reactionUpdated(channelUrl: key(url), messageId: id, key: k, userId: user, added: added)
        case .threadInfoUpdated(let url, let parent, let summary):
            return .threadInfoUpdated(channelUrl: key(url), parentMessageId: parent, summary)
        case .typingStarted(let url, let user): return .typingStarted(channelUrl: key(url), user: user)
        case .typingEnded(let url, let user, let expired): return .typingEnded(channelUrl: key(url), user: user, expired: expired)
        case .readReceiptUpdated(let url, let user, let ts): return .readReceiptUpdated(channelUrl: key(url), userId: user, ts: ts)
        case .deliveryReceiptUpdated(let url, let updated): return .deliveryReceiptUpdated(channelUrl: key(url), updated: updated)
        case .unreadCountChanged(let url, let messages, let mentions, let total):
            return .unreadCountChanged(channelUrl: url.map(key), unreadMessageCount: messages, unreadMentionCount: mentions, total: total)
        case .channelEvent(let url, let kind): return .channelEvent(channelUrl: key(url), kind)
        case .openChannelEntered(let o): return .openChannelEntered(tagged(o))
        case .openChannelUpdated(let o): return .openChannelUpdated(tagged(o))
        case .openChannelExited(let url, let reason): return .openChannelExited(url: key(url), reason: reason)
        case .messagesFilled(let url, let ms): return .messagesFilled(channelUrl: key(url), ms.map(tagged))
        case .hugeGap(let url): return .hugeGap(channelUrl: key(url))
        case .messageChangelog(let url, let updated, let deleted):
            return .messageChangelog(channelUrl: key(url), updated: updated.map(tagged), deleted: deleted)
        case .channelChangelog(let updated, let deleted): return .channelChangelog(updated: updated.map(tagged), deleted: deleted.map(key))
        case .connectionStateChanged, .connected, .reconnectStarted, .reconnectSucceeded, .reconnectFailed, .disconnected, .userBlocked,
            .userUnblocked, .serverError, .syncing:
            return event
        }
    }

    /// An answer of the engine, with its channels named by key.
    public func tagged(_ action: Action) -> Action {
        guard name != nil else { return action }
        switch action {
        case .event(let e): return self.action(for: e)
        case .channelsLoaded(let cs): return .channelsLoaded(cs.map(tagged))
        case .historyLoaded(let url, let page, let replace): return .historyLoaded(url: key(url), page: tagged(page), replace: replace)
        case .historyFailed(let url, let error): return .historyFailed(url: key(url), error: error)
        case .opened(let c): return .opened(tagged(c))
        case .browserResults(let kind, let query, let cs): return .browserResults(kind: kind, query: query, cs.map(tagged))
        case .openBrowserResults(let query, let os): return .openBrowserResults(query: query, os.map(tagged))
        case .peopleLoaded(let kind, let query, let rows): return .peopleLoaded(tagged(kind), query: query, rows)
        case .paneLoaded(let url, let rows): return .paneLoaded(url: key(url), rows)
        case .threadLoaded(let t): return .threadLoaded(tagged(t))
        case .searchResults(let query, let ms, let more): return .searchResults(query: query, ms.map(tagged), hasMore: more)
        case .jumped(let url, let page, let id): return .jumped(url: key(url), page: tagged(page), messageId: id)
        case .uploadStarted(let id, var upload):
            upload.channelUrl = key(upload.channelUrl)
            return .uploadStarted(requestId: id, upload)
        default: return action
        }
    }

    func tagged(_ kind: PeopleView.Kind) -> PeopleView.Kind {
        switch kind {
        case .members(let url): .members(key(url))
        case .participants(let url): .participants(key(url))
        case .operators(let url): .operators(key(url))
        case .banned(let url): .banned(key(url))
        case .muted(let url): .muted(key(url))
        case .users: .users
        }
    }

    // MARK: Out to the engine

    /// The account an effect is for: the one its channel or message belongs to (nil: none named, the
    /// channel on screen's account then).
    public static func account(of effect: Effect) -> String? {
        switch effect {
        case .openLog(let url), .send(_, let url), .sendMessage(_, let url), .upload(_, let url), .loadHistory(let url, _),
            .view(let url), .unview(let url), .show(let url), .typing(let url, _), .channel(_, let url), .loadPane(let url),
            .moderate(_, let url), .exitOpen(let url), .enterOpen(let url), .joinPublic(let url):
            return AccountKey.account(of: url)
        case .openFile(let m), .editMessage(let m, _), .deleteMessage(let m), .react(let m, _, _), .openThread(let m), .jump(let m),
            .download(let m, _):
            return AccountKey.account(of: m.channelUrl)
        case .people(let kind, _):
            switch kind {
            case .members(let url), .participants(let url), .operators(let url), .banned(let url), .muted(let url):
                return AccountKey.account(of: url)
            case .users: return nil
            }
        case .report(let target, _, _):
            switch target {
            case .channel(let url), .user(_, let url): return AccountKey.account(of: url)
            case .message(let m): return AccountKey.account(of: m.channelUrl)
            }
        default:
            return nil
        }
    }

    public func url(_ key: String) -> String { name == nil ? key : AccountKey.url(of: key) }
    public func untagged(_ m: Message) -> Message { rewritten(m, \.channelUrl, url) }

    /// An effect as the engine takes it: plain URLs.
    public func untagged(_ effect: Effect) -> Effect {
        guard name != nil else { return effect }
        switch effect {
        case .openLog: return effect  // the log is the app's, named by key
        case .openFile(let m): return .openFile(untagged(m))
        case .send(let text, let u): return .send(text: text, channelUrl: url(u))
        case .sendMessage(let p, let u): return .sendMessage(p, channelUrl: url(u))
        case .editMessage(let m, let text): return .editMessage(untagged(m), text: text)
        case .deleteMessage(let m): return .deleteMessage(untagged(m))
        case .react(let m, let k, let add): return .react(untagged(m), key: k, add: add)
        case .openThread(let m): return .openThread(untagged(m))
        case .jump(let m): return .jump(untagged(m))
        case .upload(let path, let u): return .upload(path: path, channelUrl: url(u))
        case .download(let m, let dir): return .download(untagged(m), directory: dir)
        case .loadHistory(let u, let before): return .loadHistory(channelUrl: url(u), before: before)
        case .view(let u): return .view(channelUrl: url(u))
        case .unview(let u): return .unview(channelUrl: url(u))
        case .show(let u): return .show(channelUrl: url(u))
        case .typing(let u, let started): return .typing(channelUrl: url(u), started: started)
        case .channel(let c, let u): return .channel(c, channelUrl: url(u))
        case .loadPane(let u): return .loadPane(channelUrl: url(u))
        case .moderate(let m, let u): return .moderate(m, channelUrl: url(u))
        case .exitOpen(let u): return .exitOpen(url(u))
        case .enterOpen(let u): return .enterOpen(url(u))
        case .joinPublic(let u): return .joinPublic(url(u))
        case .people(let kind, let query):
            switch kind {
            case .members(let u): return .people(.members(url(u)), query: query)
            case .participants(let u): return .people(.participants(url(u)), query: query)
            case .operators(let u): return .people(.operators(url(u)), query: query)
            case .banned(let u): return .people(.banned(url(u)), query: query)
            case .muted(let u): return .people(.muted(url(u)), query: query)
            case .users: return effect
            }
        case .report(let target, let category, let description):
            switch target {
            case .channel(let u): return .report(.channel(url(u)), category: category, description: description)
            case .user(let user, let u): return .report(.user(user, channelUrl: url(u)), category: category, description: description)
            case .message(let m): return .report(.message(untagged(m)), category: category, description: description)
            }
        default:
            return effect
        }
    }
}
