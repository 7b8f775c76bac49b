import Foundation
import TernKit
import TernProtocol

/// When `tern` alerts (the terminal bell and an OSC 777 desktop notification) for a message from
/// someone else: a mention or a 1-on-1 message, in a channel that is not on screen — as the
/// user's push preferences on the server allow (`/v3/users/{me}/push_preference` and its
/// per-channel form): the trigger option (`all`, `mention_only`, `off`; a channel's `default`
/// follows the global one), do-not-disturb (a daily window in the user's time zone) and snooze.
/// A pure function of the state and the message's own time, so it can be tested without a clock.
public struct NotificationRules: Sendable, Equatable {
    public var triggerOption = "all"
    public var doNotDisturb = false
    public var startHour = 0, startMinute = 0, endHour = 0, endMinute = 0
    public var timeZone = "UTC"
    public var snoozeEnabled = false
    /// ms.
    public var snoozeStart: Int64 = 0, snoozeEnd: Int64 = 0
    /// Per channel: `default`, `all`, `mention_only` or `off`.
    public var channelTriggers: [String: String] = [:]
    public init() {}

    /// Whether `at` (ms) falls in the do-not-disturb window (which may wrap past midnight) or the snooze.
    public func quiet(at ms: Int64) -> Bool {
        if snoozeEnabled && ms >= snoozeStart && ms <= snoozeEnd { return true }
        guard doNotDisturb else { return false }
        return Self.inWindow(
            ms, start: startHour * 60 + startMinute, end: endHour * 60 + endMinute,
            zone: Zone(identifier: timeZone) ?? .utc)
    }

    /// Whether `ms` falls in the daily window from minute `start` to minute `end` (may pass midnight; an
    /// empty window never) in `zone`.
    public static func inWindow(_ ms: Int64, start: Int, end: Int, zone: Zone) -> Bool {
        guard start != end else { return false }
        let instant = Int(ms / 1000)
        let local = instant + zone.secondsFromGMT(at: instant)
        let minute = ((local % 86_400 + 86_400) % 86_400) / 60
        return start < end ? (minute >= start && minute < end) : (minute >= start || minute < end)
    }

    /// The trigger for a channel: its own, or the global one when it says `default`.
    public func trigger(for url: String) -> String {
        let own = channelTriggers[url] ?? "default"
        return own == "default" ? triggerOption : own
    }
}

extension Reducer {
    /// Whether `text` names one of the highlight words (case-insensitive, whole words).
    public static func highlighted(_ text: String, words: [String]) -> Bool {
        guard !words.isEmpty else { return false }
        let lower = text.lowercased()
        for w in words where !w.isEmpty {
            var from = lower.startIndex
            let needle = w.lowercased()
            while let r = lower.range(of: needle, range: from..<lower.endIndex) {
                let before = r.lowerBound == lower.startIndex ? nil : lower[lower.index(before: r.lowerBound)]
                let after = r.upperBound == lower.endIndex ? nil : lower[r.upperBound]
                if !(before.map(isWord) ?? false) && !(after.map(isWord) ?? false) { return true }
                from = r.upperBound
            }
        }
        return false
    }

    /// Whether `ms` falls in the config's do-not-disturb window (local time).
    static func locallyQuiet(_ settings: Settings, at ms: Int64, zone: Zone) -> Bool {
        guard let (start, end) = settings.quietWindow else { return false }
        return NotificationRules.inWindow(ms, start: start, end: end, zone: zone)
    }

    /// The alert a received message raises, if any: not for the channel being looked at; by the channel's
    /// notify level (`all`, `mentions`: mentions, highlight words and 1-on-1s, `none`), the server's push
    /// preferences (trigger option, do-not-disturb, snooze) and the config's do-not-disturb window.
    static func alertEffects(_ m: Message, _ state: AppState, zone: Zone = .system) -> [Effect] {
        guard m.kind != .admin, let sender = m.sender, sender.userId != state.me(for: m.channelUrl).userId, !m.silent else { return [] }
        // On screen and seen already: nothing to call attention to.
        if state.selected == m.channelUrl && state.seeing { return [] }
        let highlight = highlighted(m.text, words: state.settings.highlights)
        let mentioned = m.mentionedUserIds.contains(state.me(for: m.channelUrl).userId) || m.mentionType == "channel" || highlight
        // Per incoming line: no channel copied, and the label (a title) made only when a setting is
        // by channel name or an alert is raised.
        let direct = state.channels.firstIndex { $0.url == m.channelUrl }.map { state.channels[$0].memberCount == 2 } ?? false
        let url = AccountKey.url(of: m.channelUrl)
        let level =
            state.settings.channels.isEmpty
            ? state.settings.notify : state.settings.notifyLevel(url: url, name: String(channelLabel(m.channelUrl, state).dropFirst()))
        switch level {
        case "none": return []
        case "all": break
        default: guard mentioned || direct else { return [] }
        }
        let rules = state.notificationRules
        switch rules.trigger(for: m.channelUrl) {
        case "off": return []
        case "mention_only" where !mentioned: return []
        default: break
        }
        if rules.quiet(at: m.createdAt) || locallyQuiet(state.settings, at: m.createdAt, zone: zone) { return [] }
        let name = sender.nickname.isEmpty ? sender.userId : sender.nickname
        let text = m.kind == .file ? (m.files.first?.name ?? "a file") : m.text
        // With several accounts, which one it came to.
        let account = state.accounts.isEmpty ? "" : state.accountIndex(of: m.channelUrl).map { " · " + state.accounts[$0].name } ?? ""
        return [.alert(title: (direct ? name : "\(name) in \(channelLabel(m.channelUrl, state))") + account, body: String(text.prefix(200)))]
    }
}
