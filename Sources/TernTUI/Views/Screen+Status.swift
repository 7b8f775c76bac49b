import Foundation
public import TernKit

/// The status bar: who, the connection, the channel, unread totals, activity, the help key.
extension Screen {
    /// The bar into row `y` of `g`: drawn into a grid of its own, kept for the next frame while nothing it
    /// shows changed (a key typed, the pane scrolled).
    func drawStatus(_ state: AppState, _ g: inout CellGrid, y: Int, width: Int, now: Millis) {
        let connection = Self.statusConnection(state, now: now)
        let bar = statusMemo.drawn(slot: 0, StatusKey(state, width: width, connection: connection, screen: self)) {
            var bar = CellGrid(width: width, height: 1, fill: theme.style("default"))
            drawStatusBar(state, &bar, width: width, connection: connection)
            return bar
        }
        g.blit(bar, x: 0, y: y)
    }

    /// The connection as the bar says it: that of the account commands go to (the channel on screen's, or the
    /// one `/account NAME` chose), "syncing…" while it catches up, "offline" for a start from the cache.
    static func statusConnection(_ state: AppState, now: Millis) -> (text: String, key: String) {
        let commands = state.accountFocus.flatMap { n in state.accounts.firstIndex { $0.name == n } } ?? state.currentAccount
        let connection = commands.map { state.accounts[$0].connection } ?? state.connection
        if commands.map({ state.accounts[$0].syncing }) ?? state.syncing, case .open = connection {
            return ("syncing…", "status.reconnecting")
        } else if state.offlineStart, case .connecting = connection {
            return ("offline", "status.offline")
        }
        return Self.connectionText(connection, now: now)
    }

    func drawStatusBar(_ state: AppState, _ g: inout CellGrid, width: Int, connection: (text: String, key: String)) {
        let y = 0
        g.fill(x: 0, y: y, width: width, height: 1, style: theme.style("status"))
        // With several accounts: the user and the account of the channel on screen, its connection.
        let account = state.currentAccount
        let who = state.me.displayName + (account.map { "@" + state.accounts[$0].name } ?? "") + (state.accountFocus.map { " → " + $0 } ?? "")
        var col = g.write(" \(who) ", x: 0, y: y, style: theme.style("status.user"))
        let (text, key) = connection
        col = g.write("│ ", x: col, y: y, style: theme.style("status"))
        col = g.write(text, x: col, y: y, style: theme.style(key))
        if let c = state.selectedChannel {
            col = g.write(" │ #" + c.title(me: state.me.userId), x: col, y: y, style: theme.style("status"))
            if c.isFrozen { col = g.write(" [frozen]", x: col, y: y, style: theme.style("status.activity")) }
            if c.myMemberState == "invited" {
                col = g.write(" [invited: Ctrl-O, then a accepts, d declines]", x: col, y: y, style: theme.style("status.activity"))
            }
        } else if let o = state.selectedOpenChannel {
            col = g.write(" │ #" + o.displayName + " · \(o.participantCount) here", x: col, y: y, style: theme.style("status"))
            if o.isFrozen { col = g.write(" [frozen]", x: col, y: y, style: theme.style("status.activity")) }
            if o.isOperator(state.me.userId) { col = g.write(" [operator]", x: col, y: y, style: theme.style("status.activity")) }
        }
        if let account {
            // The other accounts' connections, a mark each.
            col = g.write(" │", x: col, y: y, style: theme.style("status"))
            for (i, a) in state.accounts.enumerated() where i != account {
                let (mark, markKey) = Self.accountMark(a.connection)
                col = g.write(" " + a.name + " ", x: col, y: y, style: theme.style("status"))
                col = g.write(mark, x: col, y: y, style: theme.style(markKey))
            }
        }
        if let activity = Self.activityText(state) {
            col = g.write(" │ ", x: col, y: y, style: theme.style("status"))
            col = g.write(activity, x: col, y: y, style: theme.style("status.activity"))
        }
        let hot = Reducer.hotlist(state)
        if !hot.isEmpty {
            // weechat's hotlist: the channel numbers (Alt-N) with news, mentions first.
            let entries = hot.prefix(8).map { h in
                "\(h.number):" + String(Reducer.channelLabel(h.url, state).dropFirst().prefix(10)) + (h.mentions > 0 ? "@" : "")
            }
            col = g.write(" │ Act: ", x: col, y: y, style: theme.style("status"))
            col = g.write(entries.joined(separator: " ") + (hot.count > 8 ? " …" : ""), x: col, y: y, style: theme.style("status.activity"))
        }
        if let notice = state.notice {
            col = g.write(" │ " + notice, x: col, y: y, style: theme.style("status"))
        } else {
            let helpKey = Self.helpKeyName(keys, mode: state.mode)
            let hint = "\(helpKey): help "
            if col + CellWidth.of(hint) + 1 < width { g.write(hint, x: width - CellWidth.of(hint), y: y, style: theme.style("status")) }
        }
    }

    /// The key the status bar names for help: Esc when it is one, else the shortest.
    static func helpKeyName(_ keys: KeyTable, mode: KeyTable.Mode) -> String {
        let names: [String] = keys.table(mode).filter { $0.value == .help }.keys.map { KeyTable.name($0) }
        if names.contains("Esc") { return "Esc" }
        return names.min { a, b in a.count != b.count ? a.count < b.count : a < b } ?? "/help"
    }

    /// The status bar's unread summary: the user's total as the server counts it, the channels with
    /// unread messages, and mentions ("5 unread in 2 · @1"); nil when there is nothing unread.
    public static func activityText(_ state: AppState) -> String? {
        let (channels, mentions) = unreadSummary(state.channels)
        var parts: [String] = []
        if state.totalUnread > 0 { parts.append(channels > 0 ? "\(state.totalUnread) unread in \(channels)" : "\(state.totalUnread) unread") }
        if mentions > 0 { parts.append("@\(mentions)") }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    /// How many channels (invitations aside) have unread messages, and the mentions of all: read field by field
    /// (a channel is a large value, and copying each, as `filter` does, showed in every frame's profile).
    static func unreadSummary(_ channels: [GroupChannel]) -> (channels: Int, mentions: Int) {
        var withUnread = 0
        var mentions = 0
        for i in channels.indices {
            if channels[i].unreadMessageCount > 0 && channels[i].myMemberState != "invited" { withUnread += 1 }
            mentions += channels[i].unreadMentionCount
        }
        return (withUnread, mentions)
    }

    /// The connection as the status bar says it, and its style key.
    public static func connectionText(_ state: ConnectionState, now: Millis) -> (String, String) {
        switch state {
        case .open: ("connected", "status.connected")
        case .connecting: ("connecting…", "status.reconnecting")
        case .closed: ("offline", "status.offline")
        case .reconnecting(_, let at):
            if let at {
                ("reconnecting in \(max(1, Int((Double(at - now) / 1000).rounded(.up))))s", "status.reconnecting")
            } else {
                ("reconnecting…", "status.reconnecting")
            }
        }
    }
}
