import Foundation
import TernKit

/// The layout saved between runs (`layout = "restore"`): the channel typed in and the split beside it.
public struct SavedLayout: Sendable, Equatable, Codable {
    public var focused: String
    public var split: SplitView
    public init(focused: String, split: SplitView) {
        self.focused = focused
        self.split = split
    }
}

/// Split panes: `/split [-h] [CHANNEL]`, `/unsplit`, and the key that moves where you type (Alt-W, or
/// Ctrl-W w in vi's normal mode).
extension Reducer {
    /// `/split [-h] [CHANNEL]`: CHANNEL (the best match, as `/go` finds it; alone: the next channel in the
    /// list) in a second pane beside the one on screen (`-h`: below it). You keep typing where you were.
    func splitCommand(_ c: SlashCommand.Invocation, _ state: inout AppState) -> [Effect] {
        var words = Array(c.words.dropFirst())
        let stacked = words.first == "-h"
        if stacked { words.removeFirst() }
        guard let current = state.selected else {
            state.notice = "open a channel first: /split shows a second one beside it"
            return []
        }
        let url: String
        if words.isEmpty {
            let order = Self.channelOrder(state)
            guard order.count > 1, let i = order.firstIndex(of: current) else {
                state.notice = "no other channel to show"
                return []
            }
            url = order[(i + 1) % order.count]
        } else {
            let query = words.joined(separator: " ")
            guard let best = Self.switcherMatches(query, state).first else {
                state.notice = "no channel matches \(query)"
                return []
            }
            url = best.url
        }
        guard url != current else {
            state.notice = "that is the channel on screen: /split NAME shows another beside it"
            return []
        }
        return split(SplitView(channelUrl: url, stacked: stacked), &state)
    }

    /// Shows `split` beside the channel on screen: its history loads, it stays unread until you type there.
    func split(_ split: SplitView, _ state: inout AppState) -> [Effect] {
        state.split = split
        let url = split.channelUrl
        var effects: [Effect] = state.channels.contains { $0.url == url } ? [.show(channelUrl: url)] : []
        if state.messages[url] == nil, !state.loadingHistory.contains(url) {
            state.loadingHistory.insert(url)
            effects.append(.loadHistory(channelUrl: url, before: nil))
        }
        state.notice = "Alt-W types in the other pane · /unsplit"
        return effects
    }

    /// `/unsplit`: one pane again, the one you type in.
    func unsplitCommand(_ state: inout AppState) -> [Effect] {
        if state.split == nil { state.notice = "one pane already" }
        state.split = nil
        return []
    }

    /// Alt-W: you type in the other pane now; each keeps its channel and how far it was scrolled.
    func focusOtherPane(_ state: inout AppState) -> [Effect] {
        guard var split = state.split, let current = state.selected else {
            state.notice = "one pane: /split CHANNEL shows a second"
            return []
        }
        let (url, scroll) = (split.channelUrl, split.scroll)
        split.channelUrl = current
        split.scroll = state.scroll
        split.otherFirst.toggle()
        state.split = nil
        let effects = select(url, &state)
        state.scroll = scroll
        state.split = split
        return effects + (state.channels.contains { $0.url == current } ? [.show(channelUrl: current)] : [])
    }

    /// At start, with `layout = "restore"`: the channel typed in last time and the split beside it, once
    /// both channels are known (nil when they are not: the usual start).
    func restoreLayout(_ state: inout AppState) -> [Effect]? {
        guard let saved = state.pendingLayout else { return nil }
        let known = Set(state.channels.map(\.url) + state.openChannels.map(\.url))
        // Several accounts: a pane of an account whose channels have not come yet waits for them.
        let waiting = [saved.focused, saved.split.channelUrl].contains { key in
            guard !known.contains(key), let account = AccountKey.account(of: key) else { return false }
            return !known.contains { AccountKey.account(of: $0) == account }
        }
        if waiting { return nil }
        state.pendingLayout = nil
        guard known.contains(saved.focused), known.contains(saved.split.channelUrl), saved.focused != saved.split.channelUrl else { return nil }
        let effects = select(saved.focused, &state)
        return effects + split(saved.split, &state)
    }

    /// What is saved for the next start (nil: one pane).
    public static func layoutToSave(_ state: AppState) -> SavedLayout? {
        guard let split = state.split, let focused = state.selected else { return nil }
        return SavedLayout(focused: focused, split: SplitView(channelUrl: split.channelUrl, stacked: split.stacked, otherFirst: split.otherFirst))
    }
}
