import Foundation
public import TernKit

/// The channel list on the left: rows, badges, what a click hits.
extension Screen {
    /// The list into `g` from its top-left corner: drawn into a grid of its own, kept for the next frame while
    /// nothing it shows changed (a key typed, the pane scrolled, a message in the channel on screen).
    func drawChannels(_ state: AppState, _ g: inout CellGrid, width: Int, height: Int) {
        let list = listMemo.drawn(slot: 0, ListKey(state, width: width, height: height, screen: self)) {
            var list = CellGrid(width: width, height: height, fill: theme.style("default"))
            drawChannelRows(state, &list, width: width, height: height)
            return list
        }
        g.blit(list, x: 0, y: 0)
    }

    func drawChannelRows(_ state: AppState, _ g: inout CellGrid, width: Int, height: Int) {
        if state.channels.isEmpty && state.openChannels.isEmpty && state.accounts.isEmpty {
            g.write("Channels", x: 1, y: 0, style: theme.style("roomlist.header"), limit: width)
            g.write("none yet:", x: 1, y: 2, style: theme.style("timeline.event"), limit: width)
            g.write("/dm USER", x: 1, y: 3, style: theme.style("timeline.event"), limit: width)
            return
        }
        let rows = Self.listRows(state)
        let first = Self.firstListRow(rows, state, height: height)
        for (i, row) in rows.dropFirst(first).prefix(height).enumerated() {
            let y = i
            switch row {
            case .header(let title):
                g.write(title, x: 1, y: y, style: theme.style("roomlist.header"), limit: width)
            case .account(let i):
                drawAccountHeader(state, i, &g, y: y, width: width)
            case .open(let o):
                let isSelected = o.url == state.selected
                let style = theme.style(isSelected ? "roomlist.selected" : "roomlist")
                g.fill(x: 0, y: y, width: width, height: 1, style: style)
                // Who is in it now, not unread messages (open channels keep no unread count): "3 in", dim.
                let count = (o.participantCount > 999 ? "999+" : String(o.participantCount)) + " in"
                g.write((isSelected ? "▸" : " ") + o.displayName, x: 0, y: y, style: style, limit: width - CellWidth.of(count) - 1)
                var b = theme.style("timeline.event")
                b.bg = style.bg
                if isSelected { b.reverse = style.reverse }
                g.write(count, x: width - CellWidth.of(count), y: y, style: b)
            case .channel(let c):
                let isSelected = c.url == state.selected
                let unread = c.unreadMessageCount
                let mentions = c.unreadMentionCount
                let active = unread > 0 || mentions > 0
                var style = theme.style(
                    isSelected ? "roomlist.selected" : active ? (mentions > 0 ? "roomlist.mention" : "roomlist.unread") : "roomlist")
                if isSelected && active { style.bold = true }
                g.fill(x: 0, y: y, width: width, height: 1, style: style)
                let badge = Self.badge(unread: unread, mentions: mentions)
                let nameLimit = width - (badge.isEmpty ? 0 : CellWidth.of(badge) + 1)
                let from = c.myMemberState == "invited" ? " · " + (c.inviter?.displayName ?? "invitation") : ""
                g.write((isSelected ? "▸" : " ") + c.title(me: state.me(for: c.url).userId) + from, x: 0, y: y, style: style, limit: nameLimit)
                if !badge.isEmpty {
                    var b = theme.style(mentions > 0 ? "roomlist.mention" : "roomlist.count")
                    if isSelected { b.reverse = true }
                    g.write(badge, x: width - CellWidth.of(badge), y: y, style: b)
                }
            }
        }
    }

    /// An account's header (several accounts): ▾ or ▹ (folded), its name in its colour, its connection as
    /// a mark (● connected, ◌ connecting or reconnecting, ○ offline) and, folded, its unread total.
    func drawAccountHeader(_ state: AppState, _ i: Int, _ g: inout CellGrid, y: Int, width: Int) {
        let a = state.accounts[i]
        var style = theme.style("roomlist.header")
        if let c = a.color.flatMap({ Theme.color($0, palette: [:]) }) { style.fg = c }
        let (mark, markKey) = Self.accountMark(a.connection)
        var col = g.write((a.folded ? "▹" : "▾") + a.name, x: 0, y: y, style: style, limit: width - 2)
        col = g.write(" " + mark, x: col, y: y, style: theme.style(markKey), limit: width)
        if a.folded {
            let mine = state.channels.filter { state.accountIndex(of: $0.url) == i }
            let badge = Self.badge(unread: mine.reduce(0) { $0 + $1.unreadMessageCount }, mentions: mine.reduce(0) { $0 + $1.unreadMentionCount })
            if !badge.isEmpty, col + 1 + CellWidth.of(badge) <= width {
                g.write(badge, x: width - CellWidth.of(badge), y: y, style: theme.style(badge.hasPrefix("@") ? "roomlist.mention" : "roomlist.count"))
            }
        }
    }

    /// An account's connection as one mark and its style key.
    static func accountMark(_ s: ConnectionState) -> (String, String) {
        switch s {
        case .open: ("●", "status.connected")
        case .connecting, .reconnecting: ("◌", "status.reconnecting")
        case .closed: ("○", "status.offline")
        }
    }

    /// The channel list's rows: invitations in their own section first, then the channels, then open channels.
    /// With several accounts, each account's header and under it its channels in the same order (a folded
    /// account: only the channel on screen, if it is there).
    public enum ListRow: Sendable {
        case header(String)
        /// An account's header (its index in ``AppState/accounts``).
        case account(Int)
        case channel(GroupChannel)
        case open(OpenChannel)
        public var url: String? {
            switch self {
            case .channel(let c): c.url
            case .open(let o): o.url
            case .header, .account: nil
            }
        }
    }

    public static func listRows(_ state: AppState) -> [ListRow] {
        guard !state.accounts.isEmpty else { return sectionRows(state.channels, state.openChannels, headers: true) }
        var rows: [ListRow] = []
        for (i, a) in state.accounts.enumerated() {
            rows.append(.account(i))
            let mine = state.channels.filter { state.accountIndex(of: $0.url) == i && (!a.folded || $0.url == state.selected) }
            let open = state.openChannels.filter { state.accountIndex(of: $0.url) == i && (!a.folded || $0.url == state.selected) }
            rows += sectionRows(mine, open, headers: false)
        }
        return rows
    }

    /// Invitations, then channels, then open channels; with `headers`, each section under its title.
    static func sectionRows(_ channels: [GroupChannel], _ open: [OpenChannel], headers: Bool) -> [ListRow] {
        let invited = channels.filter { $0.myMemberState == "invited" }
        let joined = channels.filter { $0.myMemberState != "invited" }
        var rows: [ListRow] = []
        if headers, !invited.isEmpty { rows.append(.header("Invitations")) }
        rows += invited.map(ListRow.channel)
        if headers { rows.append(.header("Channels")) }
        rows += joined.map(ListRow.channel)
        if headers, !open.isEmpty { rows.append(.header("Open")) }
        rows += open.map(ListRow.open)
        return rows
    }

    /// The account whose header is on row `y` of the list (a click folds it).
    public static func account(atRow y: Int, _ state: AppState, height: Int) -> Int? {
        let rows = listRows(state)
        let i = firstListRow(rows, state, height: height - 1) + y
        guard y >= 0, y < height - 1, rows.indices.contains(i), case .account(let a) = rows[i] else { return nil }
        return a
    }

    /// The first row shown, so the selected channel stays visible.
    static func firstListRow(_ rows: [ListRow], _ state: AppState, height: Int) -> Int {
        let index = rows.firstIndex { $0.url != nil && $0.url == state.selected } ?? 0
        return max(0, min(index - height + 1, rows.count - height))
    }

    /// The channel on row `y` of the list on a terminal `height` rows tall (a click).
    public static func channel(atRow y: Int, _ state: AppState, height: Int) -> String? {
        let rows = listRows(state)
        let i = firstListRow(rows, state, height: height - 1) + y
        guard y >= 0, y < height - 1, rows.indices.contains(i) else { return nil }
        return rows[i].url
    }

    /// A channel's badge: its unread count ("99+" past 99), with "@N" first when it has mentions.
    public static func badge(unread: Int, mentions: Int) -> String {
        func n(_ v: Int) -> String { v > 99 ? "99+" : String(v) }
        switch (unread > 0, mentions > 0) {
        case (true, true): return "@\(n(mentions)) \(n(unread))"
        case (false, true): return "@\(n(mentions))"
        case (true, false): return n(unread)
        case (false, false): return ""
        }
    }
}
