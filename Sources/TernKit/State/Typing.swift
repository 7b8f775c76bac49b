/// Who is typing where, as the receiving side sees it: a typer is added by a typing-start event,
/// removed by a typing-end event, and expires `expiry` ms after their last start (Sendbird: 10 s).
public struct TypingTracker: Sendable, Equatable {
    struct Entry: Sendable, Equatable {
        var user: User
        var startedAt: Millis
        var expiresAt: Millis
    }

    public var expiry: Millis
    private var typers: [String: [String: Entry]] = [:]

    public init(expiry: Millis = 10_000) { self.expiry = expiry }

    /// `user` started (or is still) typing in `url`. Returns true if they were not typing before.
    public mutating func start(_ user: User, in url: String, now: Millis) -> Bool {
        let isNew = typers[url]?[user.userId] == nil
        let startedAt = typers[url]?[user.userId]?.startedAt ?? now
        typers[url, default: [:]][user.userId] = Entry(user: user, startedAt: startedAt, expiresAt: now + expiry)
        return isNew
    }

    /// `userId` stopped typing in `url`. Returns the user if they were typing.
    public mutating func end(_ userId: String, in url: String) -> User? {
        guard let entry = typers[url]?.removeValue(forKey: userId) else { return nil }
        if typers[url]?.isEmpty == true { typers[url] = nil }
        return entry.user
    }

    /// Removes typers whose last start is older than the expiry; returns them with their channel.
    public mutating func expire(now: Millis) -> [(url: String, user: User)] {
        var gone: [(String, User)] = []
        for (url, users) in typers {
            for (id, entry) in users where entry.expiresAt <= now {
                gone.append((url, entry.user))
                typers[url]?[id] = nil
            }
            if typers[url]?.isEmpty == true { typers[url] = nil }
        }
        return gone.sorted { ($0.0, $0.1.userId) < ($1.0, $1.1.userId) }
    }

    /// The users typing in `url`, in the order they started.
    public func typers(in url: String) -> [User] {
        (typers[url] ?? [:]).values.sorted { ($0.startedAt, $0.user.userId) < ($1.startedAt, $1.user.userId) }.map(\.user)
    }

    /// Forgets every typer (the connection was lost: their end events may never come).
    public mutating func clear() -> [(url: String, user: User)] {
        let all = typers.flatMap { url, users in users.values.map { (url, $0.user) } }
        typers = [:]
        return all
    }

    /// When the next typer expires, if any.
    public var nextExpiry: Millis? { typers.values.flatMap(\.values).map(\.expiresAt).min() }
}

/// The sending side's throttle: a start or an end for the same channel repeated within
/// `interval` ms is not sent again (Sendbird's `typingIndicatorThrottle`, 1 s). An end is sent only
/// after a start, so a user who never typed sends nothing.
public struct TypingThrottle: Sendable, Equatable {
    public var interval: Millis
    private var lastStart: [String: Millis] = [:]
    private var lastEnd: [String: Millis] = [:]
    private var typing: Set<String> = []

    public init(interval: Millis = 1000) { self.interval = interval }

    /// Whether a typing-start for `url` should go out now.
    public mutating func start(_ url: String, now: Millis) -> Bool {
        if let last = lastStart[url], now - last < interval, typing.contains(url) { return false }
        lastStart[url] = now
        typing.insert(url)
        return true
    }

    /// Whether a typing-end for `url` should go out now.
    public mutating func end(_ url: String, now: Millis) -> Bool {
        guard typing.contains(url) else { return false }
        if let last = lastEnd[url], now - last < interval { return false }
        lastEnd[url] = now
        typing.remove(url)
        return true
    }

    /// After a reconnect nobody sees us typing any more.
    public mutating func reset() {
        typing = []
        lastStart = [:]
    }
}

/// Marks as read at most once per `interval` per channel: a request inside the interval is
/// kept and sent when the interval ends (one trailing send, however many requests came).
///
/// With a `grid`, a trailing send is due at the first multiple of `grid` at or after the interval's
/// end: the trailing sends of many channels fall due together, in one wake-up of the engine and one
/// socket write (busy channels each had a timer of their own: ~100 wake-ups a second at 200 lines a
/// second over 50 channels, issue 36).
public struct ReadThrottle: Sendable, Equatable {
    public var interval: Millis
    public var grid: Millis
    private var lastSent: [String: Millis] = [:]
    private var due: [String: Millis] = [:]

    public init(interval: Millis = 1000, grid: Millis = 0) {
        self.interval = interval
        self.grid = grid
    }

    public enum Decision: Sendable, Equatable {
        case sendNow
        /// Sent later, at this time (by ``takeDue(now:)``).
        case deferred(until: Millis)
    }

    public mutating func request(_ url: String, now: Millis) -> Decision {
        if let at = due[url] { return .deferred(until: at) }
        if let last = lastSent[url], now - last < interval {
            var at = last + interval
            if grid > 0 { at = (at + grid - 1) / grid * grid }
            due[url] = at
            return .deferred(until: at)
        }
        lastSent[url] = now
        return .sendNow
    }

    /// The channels whose deferred mark-as-read is due now; they count as sent.
    public mutating func takeDue(now: Millis) -> [String] {
        let ready = due.filter { $0.value <= now }.map(\.key).sorted()
        for url in ready {
            due[url] = nil
            lastSent[url] = now
        }
        return ready
    }

    public var nextDue: Millis? { due.values.min() }
}
