import Foundation
public import TernKit

/// The status bar: who, the connection, the channel, unread totals, activity, the help key.
extension Screen {
    func drawStatus(_ state: AppState, _ g: inout CellGrid, y: Int, width: Int, now: Millis) {
        g.fill(x: 0, y: y, width: width, height: 1, style: theme.style("status"))
        // With several accounts: the user and the account of the channel on screen, its connection.
        let account = state.currentAccount
        let who = state.me.displayName + (account.map { "@" + state.accounts[$0].name } ?? "") + (state.accountFocus.map { " → " + $0 } ?? "")
        var col = g.write(" \(who) ", x: 0, y: y, style: theme.style("status.user"))
        // After `/account NAME` (no channels there yet): that account's connection, where commands go.
        let commands = state.accountFocus.flatMap { n in state.accounts.firstIndex { $0.name == n } } ?? account
        let connection = commands.map { state.accounts[$0].connection } ?? state.connection
        var (text, key) = Self.connectionText(connection, now: now)
        if commands.map({ state.accounts[$0].syncing }) ?? state.syncing, case .open = connection {
            (text, key) = ("syncing…", "status.reconnecting")
        } else if state.offlineStart, case .connecting = connection {
            (text, key) = ("offline", "status.offline")
        }
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
        let channels = state.channels.filter { $0.myMemberState != "invited" && $0.unreadMessageCount > 0 }.count
        let mentions = state.channels.reduce(0) { $0 + $1.unreadMentionCount }
        var parts: [String] = []
        if state.totalUnread > 0 { parts.append(channels > 0 ? "\(state.totalUnread) unread in \(channels)" : "\(state.totalUnread) unread") }
        if mentions > 0 { parts.append("@\(mentions)") }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
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
