import Foundation
import TernKit
import TernProtocol

/// Chat logs (`log = true`): each channel's messages as plain text, one file per channel and month under
/// `$XDG_STATE_HOME/tern/logs/ACCOUNT/`, named `NAME-HASH.YYYY-MM.log`. This is the pure part: which lines
/// an engine event adds (each message once, edits and deletions as lines of their own) and where they go;
/// ``ChatApp`` writes them off the actor.
///
/// A line: `2026-11-27 06:40:12 <alice> text` in local time; a message's further lines are indented under
/// it; a file is `📎 name (url)`; an edit `… * edited: <alice> new text`, a deletion
/// `… * deleted message from alice: first line`.
struct ChatLog {
    /// Lines bound for one channel's log.
    struct Entry: Sendable, Equatable {
        var channelUrl: String
        /// The channel's name as tern shows it, for the file name.
        var channelName: String
        /// When it happened (ms): picks the month's file.
        var at: Millis
        /// One or more lines, each ending in a newline.
        var text: String
    }

    var zone: Zone
    /// A message in one channel (by key: with several accounts on one server, the same message is in
    /// each account's channel, and each account's log gets it).
    struct Logged: Hashable {
        var channel: String
        var id: Int64
    }
    /// The messages logged while tern runs, with the text last written: each message is logged once, an
    /// edit only when the text changed. The newest ``memory`` are kept (an all-day tern does not grow).
    private(set) var logged: [Logged: String] = [:]
    /// The deletions logged (a changelog after a reconnection may tell one again).
    private(set) var deleted: Set<Logged> = []
    /// What was remembered, oldest first (``remember(_:)``).
    private var order: [Logged] = []
    /// How many messages (and deletions) are remembered; past it, the oldest half is forgotten (an edit of
    /// one of them is still logged when its text differs from what is on screen).
    var memory = 20_000

    init(zone: Zone = .system) { self.zone = zone }

    /// What an engine event adds to the logs, given the state before the reducer applied it. Only live
    /// messages count (received or sent while tern runs): history pages never come here.
    mutating func entries(for event: ClientEvent, in state: AppState, now: Millis) -> [Entry] {
        switch event {
        case .messageReceived(let m), .messageSent(let m):
            let key = Logged(channel: m.channelUrl, id: m.messageId)
            guard m.status == .succeeded, m.messageId != 0, logged[key] == nil else { return [] }
            logged[key] = Self.body(m)
            remember(key)
            return [entry(m.channelUrl, state, at: m.createdAt, Self.messageLine(m, zone: zone))]
        case .messageUpdated(let m):
            return edit(m, state, now: now)
        case .messageChangelog(let url, let updated, let removed):
            return updated.flatMap { edit($0, state, now: now) } + removed.flatMap { deletion(url, $0, state, now: now) }
        case .messageDeleted(let url, let id):
            return deletion(url, id, state, now: now)
        default:
            return []
        }
    }

    /// An edit: logged when the text differs from what was logged or shown before (a reaction, a link
    /// preview or a changelog telling it again adds nothing).
    private mutating func edit(_ m: Message, _ state: AppState, now: Millis) -> [Entry] {
        let key = Logged(channel: m.channelUrl, id: m.messageId)
        guard m.messageId != 0, let before = logged[key] ?? Self.known(m.channelUrl, m.messageId, state).map(Self.body) else {
            return []
        }
        let after = Self.body(m)
        guard after != before else { return [] }
        if logged.updateValue(after, forKey: key) == nil { remember(key) }
        let at = m.updatedAt > 0 ? m.updatedAt : now
        return [entry(m.channelUrl, state, at: at, Self.editLine(m, at: at, zone: zone))]
    }

    /// A deletion of a message logged or on screen, once.
    private mutating func deletion(_ url: String, _ id: Int64, _ state: AppState, now: Millis) -> [Entry] {
        let key = Logged(channel: url, id: id)
        guard !deleted.contains(key) else { return [] }
        let shown = Self.known(url, id, state)
        guard logged[key] != nil || shown != nil else { return [] }
        deleted.insert(key)
        remember(key)
        let nick = shown?.sender?.displayName
        let text = logged[key] ?? shown.map(Self.body) ?? ""
        return [entry(url, state, at: now, Self.deleteLine(id: id, nick: nick, text: text, at: now, zone: zone))]
    }

    /// A message (or deletion) newly remembered; past ``memory``, the older half is forgotten, in the order
    /// they came (ids are per server: with several accounts, an order by id would favour one server).
    private mutating func remember(_ key: Logged) {
        order.append(key)
        guard order.count > memory else { return }
        for old in order.prefix(order.count - memory / 2) {
            logged[old] = nil
            deleted.remove(old)
        }
        order.removeFirst(order.count - memory / 2)
    }

    private func entry(_ url: String, _ state: AppState, at: Millis, _ text: String) -> Entry {
        Entry(channelUrl: url, channelName: Self.channelName(url, state), at: at, text: text)
    }

    /// A message the state holds (the channel's messages, or the thread on screen).
    static func known(_ url: String, _ id: Int64, _ state: AppState) -> Message? {
        if let m = state.messages[url]?.last(where: { $0.messageId == id }) { return m }
        guard let t = state.thread, t.channelUrl == url else { return nil }
        return t.parent.messageId == id ? t.parent : t.replies.last { $0.messageId == id }
    }

    /// A channel's name as tern shows it (its URL when tern does not know it).
    static func channelName(_ url: String, _ state: AppState) -> String {
        if let c = state.channels.first(where: { $0.url == url }) { return c.title(me: state.me(for: url).userId) }
        if let o = state.openChannels.first(where: { $0.url == url }) { return o.displayName }
        return AccountKey.url(of: url)
    }

    // MARK: - Lines

    /// What a message says: its text, and each file as `📎 name (url)`.
    static func body(_ m: Message) -> String {
        let files = m.files.map { "📎 \($0.name.isEmpty ? "file" : $0.name) (\($0.url))" }
        return ([m.text].filter { !$0.isEmpty } + files).joined(separator: "\n")
    }

    /// `2026-11-27 06:40:12 <alice> text`; an admin message `… * text`; further lines indented.
    static func messageLine(_ m: Message, zone: Zone) -> String {
        let head = m.sender.map { "<\($0.displayName)>" } ?? "*"
        return lines(stamp(m.createdAt, zone), head + " ", body(m))
    }

    static func editLine(_ m: Message, at: Millis, zone: Zone) -> String {
        lines(stamp(at, zone), "* edited: <\(m.sender?.displayName ?? "?")> ", body(m))
    }

    static func deleteLine(id: Int64, nick: String?, text: String, at: Millis, zone: Zone) -> String {
        let from = nick.map { " from \($0)" } ?? ""
        let first = text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return stamp(at, zone) + " * deleted message\(from)" + (first.isEmpty ? " (id \(id))" : ": " + first) + "\n"
    }

    /// The first line after the stamp and head; the others indented by the stamp's width and two spaces.
    static func lines(_ stamp: String, _ head: String, _ text: String) -> String {
        let parts = text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
        let indent = String(repeating: " ", count: stamp.count + 3)
        var out = stamp + " " + head + (parts.first.map(String.init) ?? "") + "\n"
        for p in parts.dropFirst() { out += indent + p + "\n" }
        return out
    }

    /// `2026-11-27 06:40:12` in `zone`.
    static func stamp(_ ms: Millis, _ zone: Zone) -> String {
        TimeFormat("yyyy-MM-dd HH:mm:ss", zone: zone).string(from: date(ms))
    }

    /// `2026-11`: the month a line's file is for.
    static func month(_ ms: Millis, _ zone: Zone) -> String {
        TimeFormat("yyyy-MM", zone: zone).string(from: date(ms))
    }

    private static func date(_ ms: Millis) -> Date { Date(timeIntervalSince1970: Double(ms) / 1000) }

    // MARK: - Where

    /// Letters, digits, `.`, `_`, `-`, `@` and `+` kept, anything else `_`; no `..`, no leading `.` and at
    /// most `limit` characters: safe as one file name.
    static func safe(_ text: String, limit: Int = 60) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-@+")
        var s = String(text.map { allowed.contains($0) ? $0 : "_" }.prefix(limit))
        while s.contains("..") { s = s.replacingOccurrences(of: "..", with: "._") }
        if s.hasPrefix(".") { s = "_" + s.dropFirst() }
        return s.isEmpty ? "_" : s
    }

    /// The account's directory name: `USER@HOST` (`USER@HOST_PORT` with a port), made safe.
    static func accountName(user: String, server: String) -> String {
        let url = URL(string: server)
        let host = url?.host.map { h in url?.port.map { "\(h)_\($0)" } ?? h } ?? server
        return safe(user, limit: 80) + "@" + safe(host, limit: 80)
    }

    /// `NAME-HASH.YYYY-MM.log`: the channel's name made safe, then 8 hex digits of its URL's FNV-1a hash
    /// (two channels with one name have two files; a renamed channel starts a new one).
    static func fileName(channelName: String, url: String, month: String) -> String {
        "\(safe(channelName, limit: 40))-\(hash(url)).\(month).log"
    }

    /// FNV-1a, 32 bits, as 8 hex digits: the same on every run (Swift's `Hasher` is not).
    static func hash(_ text: String) -> String {
        var h: UInt32 = 0x811c_9dc5
        for b in text.utf8 {
            h ^= UInt32(b)
            h = h &* 0x0100_0193
        }
        return String(format: "%08x", h)
    }

    /// `$XDG_STATE_HOME/tern/logs/ACCOUNT` (else `~/.local/state/tern/logs/ACCOUNT`).
    static func directory(environment env: [String: String], user: String, server: String) -> String {
        let base = env["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? ((env["HOME"] ?? NSTemporaryDirectory()) + "/.local/state")
        return base + "/tern/logs/" + accountName(user: user, server: server)
    }
}
