public import Foundation
public import TernKit

/// Draws the whole screen for a state into a cell grid.
public struct Screen: Sendable {
    public var theme: Theme
    public var keys: KeyTable
    /// The zone message times show in.
    public var zone: Zone
    /// How message times show (a date format: `HH:mm`, `HH:mm:ss`, `h:mm a`).
    public var timestampFormat: String
    /// Nicknames in their own colours.
    public var nickColors = true
    /// The message pane's last lines, reused while nothing they come from changed.
    let paneMemo = PaneMemo()
    /// The channel list as last drawn, reused while nothing it shows changed.
    let listMemo = ListMemo()
    /// The status bar as last drawn, likewise.
    let statusMemo = StatusMemo()

    /// - Parameter timeZone: nil: the machine's own (``Zone/system``).
    public init(theme: Theme = .builtin, keys: KeyTable = .standard, timeZone: TimeZone? = nil, timestampFormat: String = "HH:mm") {
        self.theme = theme
        self.keys = keys
        self.zone = timeZone.map(Zone.init) ?? .system
        self.timestampFormat = timestampFormat
    }

    /// The most rows the input grows to (multi-line messages).
    public static let maxInputRows = 5

    /// The rows the input takes for this state.
    public static func inputRows(_ state: AppState) -> Int {
        min(maxInputRows, state.input.reduce(1) { $0 + ($1 == "\n" ? 1 : 0) })
    }

    /// The terminal's title: unread counts first, so a tab or a tmux window shows them.
    public static func title(_ state: AppState) -> String {
        let (channels, mentions) = unreadSummary(state.channels)
        var t = "tern"
        if mentions > 0 { t = "(@\(mentions)) " + t }
        if state.totalUnread > 0 { t = "(\(state.totalUnread) in \(channels)) " + t }
        if let c = state.selectedChannel {
            t += " · #" + c.title(me: state.me.userId)
        } else if let o = state.selectedOpenChannel {
            t += " · #" + o.displayName
        }
        return t
    }

    public func render(_ state: AppState, width: Int, height: Int, now: Millis) -> CellGrid {
        var g = CellGrid(width: width, height: height, fill: theme.style("default"))
        guard width >= 24, height >= 6 else {
            g.write("terminal too small", x: 0, y: 0, style: theme.style("default"))
            return g
        }
        let listWidth = Self.listWidth(width)
        drawChannels(state, &g, width: listWidth, height: height - 1)
        for y in 0..<(height - 1) { g.write("│", x: listWidth, y: y, style: theme.style("border")) }
        let x0 = listWidth + 1
        let side = Self.sidePaneWidth(width, shown: state.sidePane)
        let paneWidth = width - x0 - (side > 0 ? side + 1 : 0)
        let rows = min(Self.inputRows(state), max(1, height - 5))
        let paneHeight = height - 2 - rows
        drawPanes(state, &g, x: x0, width: paneWidth, height: paneHeight, now: now)
        if side > 0 {
            for y in 0..<paneHeight { g.write("│", x: x0 + paneWidth, y: y, style: theme.style("border")) }
            drawSidePane(state, &g, x: x0 + paneWidth + 1, width: side, height: paneHeight)
        }
        drawTyping(state, &g, x: x0, y: paneHeight, width: paneWidth)
        drawInput(state, &g, x: x0, y: paneHeight + 1, width: paneWidth, rows: rows)
        drawStatus(state, &g, y: height - 1, width: width, now: now)
        if state.showHelp || state.sheet != nil {
            drawOverlay(state, &g)
        } else if let s = state.switcher {
            drawSwitcher(s, state, &g)
        } else if let p = state.people {
            drawPeople(p, state, &g)
        } else if let b = state.browser {
            drawBrowser(b, &g)
        } else if let url = state.info, let c = state.channels.first(where: { $0.url == url }) {
            drawInfo(c, state, &g)
        } else if let search = state.search {
            drawSearch(search, state, &g)
        } else if let p = state.picker, let r = p.reaction {
            drawReactions(selected: r, &g)
        } else if state.picker != nil {
            let hint = " r reply · t thread · + react · e edit · d delete · f save · y/Y copy · Esc "
            g.write(Self.clip(hint, width - x0 - 1), x: x0 + 1, y: height - 3, style: theme.style("help.key"))
        }
        return g
    }

    static func listWidth(_ width: Int) -> Int { min(26, max(14, width / 4)) }

    /// The size of the message pane's text area on a terminal of this size (what scrolling pages through).
    /// With a split, the focused pane's text area.
    public static func messagePane(width: Int, height: Int, sidePane: Bool = false, inputRows: Int = 1, split: SplitView? = nil) -> PaneSize {
        guard width >= 24, height >= 6 else { return PaneSize() }
        let side = sidePaneWidth(width, shown: sidePane)
        let areaWidth = width - listWidth(width) - 1 - (side > 0 ? side + 1 : 0)
        let areaHeight = height - 2 - min(inputRows, max(1, height - 5))
        let (focused, other) = paneAreas(x: 0, width: areaWidth, height: areaHeight, split: split)
        let text = textArea(focused, split: other != nil)
        return PaneSize(width: text.width - 1, height: text.height)
    }

    /// The people pane's width: only on terminals wide enough to keep the messages readable.
    public static func sidePaneWidth(_ width: Int, shown: Bool) -> Int {
        guard shown, width >= 64 else { return 0 }
        return min(24, max(14, width / 5))
    }

    /// The people pane's rows for the channel on screen: a group channel's joined members (operators first),
    /// an open channel's participants as last read.
    public static func paneRows(_ state: AppState) -> [PeopleView.Row] {
        if let c = state.selectedChannel {
            return c.members.filter { $0.state == "joined" }
                .sorted { a, b in
                    a.isOperator != b.isOperator
                        ? a.isOperator : (a.user.displayName.lowercased(), a.userId) < (b.user.displayName.lowercased(), b.userId)
                }
                .map {
                    PeopleView.Row(user: $0.user, online: $0.isOnline || $0.userId == state.me.userId, isOperator: $0.isOperator, isMuted: $0.isMuted)
                }
        }
        guard let o = state.selectedOpenChannel else { return [] }
        let ops = Set(o.operators.map(\.userId))
        return (state.paneRows[o.url] ?? []).map { r in
            var row = r
            row.isOperator = ops.contains(r.user.userId)
            return row
        }
        .sorted { a, b in a.isOperator != b.isOperator ? a.isOperator : a.user.displayName.lowercased() < b.user.displayName.lowercased() }
    }

    func drawSidePane(_ state: AppState, _ g: inout CellGrid, x: Int, width: Int, height: Int) {
        let rows = Self.paneRows(state)
        let title: String
        if let o = state.selectedOpenChannel {
            title = "Here (\(o.participantCount))"
        } else if let c = state.selectedChannel {
            title = "Members (\(c.joinedMemberCount))"
        } else {
            title = "People"
        }
        g.write(" " + title, x: x, y: 0, style: theme.style("roomlist.header"), limit: x + width)
        let room = height - 1
        for (i, r) in rows.prefix(room).enumerated() {
            let y = 1 + i
            if i == room - 1 && rows.count > room {
                g.write(" … \(rows.count - room + 1) more", x: x, y: y, style: theme.style("timeline.event"), limit: x + width)
                break
            }
            var col = g.write(
                r.online == true ? " ●" : " ○", x: x, y: y, style: theme.style(r.online == true ? "status.connected" : "timeline.event"))
            col = g.write(r.isOperator ? "★" : " ", x: col, y: y, style: theme.style("status.activity"))
            let name = r.user.displayName + (r.isMuted ? " (muted)" : "")
            g.write(name, x: col, y: y, style: theme.style(r.user.userId == state.me.userId ? "timeline.nick.self" : "roomlist"), limit: x + width)
        }
    }

    /// How many lines the selected channel's messages take in a pane this wide.
    public func lineCount(_ state: AppState, width: Int) -> Int {
        guard state.selected != nil, width > 0 else { return 0 }
        return lines(for: state, width: width).count
    }
}
