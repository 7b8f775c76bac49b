import Foundation
import TernKit

/// Draws the whole screen for a state into a cell grid.
public struct Screen: Sendable {
    public var theme: Theme
    public var keys: KeyTable
    public var timeZone: TimeZone
    /// How message times show (a date format: `HH:mm`, `HH:mm:ss`, `h:mm a`).
    public var timestampFormat: String
    /// Nicknames in their own colours.
    public var nickColors = true

    public init(theme: Theme = .builtin, keys: KeyTable = .standard, timeZone: TimeZone = .current, timestampFormat: String = "HH:mm") {
        self.theme = theme
        self.keys = keys
        self.timeZone = timeZone
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
        let channels = state.channels.filter { $0.myMemberState != "invited" && $0.unreadMessageCount > 0 }.count
        let mentions = state.channels.reduce(0) { $0 + $1.unreadMentionCount }
        var t = "tern"
        if mentions > 0 { t = "(@\(mentions)) " + t }
        if state.totalUnread > 0 { t = "(\(state.totalUnread) in \(channels)) " + t }
        if let c = state.selectedChannel {
            t += " · #" + c.displayName(me: state.me.userId)
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
        drawMessages(state, &g, x: x0, width: paneWidth, height: paneHeight, now: now)
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
            let hint = " r reply · t thread · + react · e edit · d delete · f save · Esc "
            g.write(Self.clip(hint, width - x0 - 1), x: x0 + 1, y: height - 3, style: theme.style("help.key"))
        }
        return g
    }

    static func listWidth(_ width: Int) -> Int { min(26, max(14, width / 4)) }

    /// The size of the message pane's text area on a terminal of this size (what scrolling pages through).
    public static func messagePane(width: Int, height: Int, sidePane: Bool = false, inputRows: Int = 1) -> PaneSize {
        guard width >= 24, height >= 6 else { return PaneSize() }
        let side = sidePaneWidth(width, shown: sidePane)
        return PaneSize(width: width - listWidth(width) - 2 - (side > 0 ? side + 1 : 0), height: height - 2 - min(inputRows, max(1, height - 5)))
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
                .map { PeopleView.Row(user: $0.user, online: $0.isOnline || $0.userId == state.me.userId, isOperator: $0.isOperator, isMuted: $0.isMuted) }
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
            var col = g.write(r.online == true ? " ●" : " ○", x: x, y: y, style: theme.style(r.online == true ? "status.connected" : "timeline.event"))
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

    // MARK: Channel list

    func drawChannels(_ state: AppState, _ g: inout CellGrid, width: Int, height: Int) {
        if state.channels.isEmpty && state.openChannels.isEmpty {
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
                var style = theme.style(isSelected ? "roomlist.selected" : active ? (mentions > 0 ? "roomlist.mention" : "roomlist.unread") : "roomlist")
                if isSelected && active { style.bold = true }
                g.fill(x: 0, y: y, width: width, height: 1, style: style)
                let badge = Self.badge(unread: unread, mentions: mentions)
                let nameLimit = width - (badge.isEmpty ? 0 : CellWidth.of(badge) + 1)
                let from = c.myMemberState == "invited" ? " · " + (c.inviter?.displayName ?? "invitation") : ""
                g.write((isSelected ? "▸" : " ") + c.displayName(me: state.me.userId) + from, x: 0, y: y, style: style, limit: nameLimit)
                if !badge.isEmpty {
                    var b = theme.style(mentions > 0 ? "roomlist.mention" : "roomlist.count")
                    if isSelected { b.reverse = true }
                    g.write(badge, x: width - CellWidth.of(badge), y: y, style: b)
                }
            }
        }
    }

    /// The channel list's rows: invitations in their own section first, then the channels, then open channels.
    public enum ListRow: Sendable {
        case header(String), channel(GroupChannel), open(OpenChannel)
        public var url: String? {
            switch self {
            case .channel(let c): c.url
            case .open(let o): o.url
            case .header: nil
            }
        }
    }

    public static func listRows(_ state: AppState) -> [ListRow] {
        let invited = state.channels.filter { $0.myMemberState == "invited" }
        let joined = state.channels.filter { $0.myMemberState != "invited" }
        var rows: [ListRow] = []
        if !invited.isEmpty { rows.append(.header("Invitations")) }
        rows += invited.map(ListRow.channel)
        rows.append(.header("Channels"))
        rows += joined.map(ListRow.channel)
        if !state.openChannels.isEmpty {
            rows.append(.header("Open"))
            rows += state.openChannels.map(ListRow.open)
        }
        return rows
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

    // MARK: Messages

    struct Line {
        var parts: [(String, Style)]
    }

    func formatter(_ format: String) -> TimeFormat { TimeFormat(format, timeZone: timeZone) }

    /// The message pane's lines; with `last`, only enough for the newest `last` lines (each message takes at
    /// least one): a frame lays out what it shows, not the whole history.
    func lines(for state: AppState, width: Int, last: Int? = nil) -> [Line] {
        guard let url = state.selected else { return [] }
        let channel = state.selectedChannel
        let time = formatter(timestampFormat)
        let day = formatter("EEE d MMM yyyy")
        var out: [Line] = []
        let all = Reducer.visibleMessages(state)
        let start = last.map { max(0, all.count - $0) } ?? 0
        var lastDay = ""
        var newLineShown = false
        if start > 0 {
            // Lines above the ones laid out: the day they end on, whether the new-messages line is among them.
            lastDay = day.string(from: Date(timeIntervalSince1970: Double(all[start - 1].createdAt) / 1000))
            if let since = state.unreadSince[url] {
                newLineShown = all[..<start].contains { $0.createdAt > since && $0.sender?.userId != state.me.userId && $0.status == .succeeded }
            }
        } else if state.loadingHistory.contains(url) {
            out.append(Line(parts: [("loading history…", theme.style("timeline.event"))]))
        } else if state.hasPrevious[url] == false {
            out.append(Line(parts: [("— beginning of the conversation —", theme.style("timeline.event"))]))
        }
        if start == 0, let t = state.thread {
            let label = "── thread: \(t.parent.sender?.displayName ?? "*") · \(t.replies.count) \(t.replies.count == 1 ? "reply" : "replies") · Esc: back "
            out.append(Line(parts: [(label + String(repeating: "─", count: max(0, width - CellWidth.of(label))), theme.style("timeline.thread"))]))
            if t.loading { out.append(Line(parts: [("loading the thread…", theme.style("timeline.event"))])) }
        }
        let picked = Reducer.picked(state)?.messageId
        for m in all[start...] {
            // Above the first message that was unread when the channel was opened.
            if !newLineShown, let since = state.unreadSince[url], m.createdAt > since, m.sender?.userId != state.me.userId,
                m.status == .succeeded
            {
                newLineShown = true
                let label = "── new messages "
                out.append(Line(parts: [(label + String(repeating: "─", count: max(0, width - CellWidth.of(label))), theme.style("timeline.read_marker"))]))
            }
            let date = Date(timeIntervalSince1970: Double(m.createdAt) / 1000)
            let d = day.string(from: date)
            if d != lastDay {
                lastDay = d
                let label = "── \(d) "
                out.append(Line(parts: [(label + String(repeating: "─", count: max(0, width - CellWidth.of(label))), theme.style("timeline.date_separator"))]))
            }
            let mine = m.sender?.userId == state.me.userId
            let stamp = time.string(from: date) + " "
            let nick = m.kind == .admin ? "*" : (m.sender?.displayName ?? "?")
            let head = stamp + nick + ": "
            var mark = ""
            var markStyle = theme.style("timeline.receipt")
            if mine {
                switch m.status {
                case .pending:
                    mark = " ⋯"
                    markStyle = theme.style("timeline.pending")
                case .failed:
                    mark = " ✗ not sent" + (m.error.map { ": \(ErrorText.short($0)) (\($0.code.rawValue))" } ?? "")
                    markStyle = theme.style("timeline.failed")
                case .succeeded:
                    // ✓ stored, ✓✓ delivered to everyone, then who read it.
                    mark = " ✓"
                    if let channel, m.kind != .admin, !channel.isSuper {
                        let unread = channel.unreadMemberCount(of: m, me: state.me.userId)
                        let others = channel.members.filter { $0.userId != state.me.userId && $0.state == "joined" }.count
                        let delivered = others > 0 && channel.undeliveredMemberCount(of: m, me: state.me.userId) == 0
                        if delivered { mark = " ✓✓" }
                        if others > 0 && unread == 0 {
                            mark = channel.isDirect ? " ✓✓ read" : " ✓✓ read by all"
                        } else if others > 1 && unread < others {
                            mark += " read by \(others - unread)"
                        }
                    }
                }
            }
            var textStyle = theme.style(m.kind == .admin ? "timeline.admin" : mine ? "timeline.text.self" : "timeline.text")
            if !mine, m.kind != .admin, m.mentions(state.me.userId) || Reducer.highlighted(m.text, words: state.settings.highlights) {
                textStyle = theme.style("timeline.mention")
            }
            if m.messageId != 0 && m.messageId == state.highlight { textStyle = theme.style("timeline.highlight") }
            if m.messageId != 0 && m.messageId == picked { textStyle = theme.style("timeline.picked") }
            let indent = CellWidth.of(stamp)
            let pad = String(repeating: " ", count: min(indent, max(0, width - 1)))
            // A reply in the channel shows what it answers.
            if state.thread == nil, m.parentMessageId != 0, let p = m.parent {
                let quote = "↱ \(p.sender?.displayName ?? "*"): " + p.text.replacingOccurrences(of: "\n", with: " ")
                out.append(Line(parts: [(pad, theme.style("timeline")), (Self.clip(quote, max(1, width - indent)), theme.style("timeline.quote"))]))
            }
            var body = m.text
            if m.kind == .file {
                body = m.files.map { "📎 \($0.name) (\(Self.byteCount($0.size)))" }.joined(separator: ", ")
                if m.status == .pending, let u = state.uploads[m.requestId ?? ""], u.total > 0 {
                    body += " " + Self.progressBar(sent: u.sent, total: u.total, width: 12)
                }
                if m.kind == .file, textStyle == theme.style(mine ? "timeline.text.self" : "timeline.text") { textStyle = theme.style("timeline.file") }
            }
            if m.isEdited { body += " (edited)" }
            let bodyWidth = max(1, width - CellWidth.of(head))
            let wrapped = CellWidth.wrap(body + mark, width: bodyWidth)
            // The receipt mark is drawn in its own style: split it off the last wrapped line.
            for (i, text) in wrapped.enumerated() {
                var parts: [(String, Style)] = []
                if i == 0 {
                    parts.append((stamp, theme.style("timeline.timestamp")))
                    parts.append((nick, mine ? theme.style("timeline.nick.self") : nickColors && m.kind != .admin ? theme.nickStyle(m.sender?.userId ?? nick) : theme.style("timeline.nick")))
                    parts.append((": ", theme.style("timeline.text")))
                } else {
                    parts.append((String(repeating: " ", count: min(indent, width - 1)), theme.style("timeline")))
                }
                if i == wrapped.count - 1, !mark.isEmpty, text.hasSuffix(mark.trimmingCharacters(in: .whitespaces)) {
                    let trimmedMark = mark.trimmingCharacters(in: .whitespaces)
                    let body = String(text.dropLast(trimmedMark.count))
                    parts.append((body, textStyle))
                    parts.append((trimmedMark, markStyle))
                } else {
                    parts.append((text, textStyle))
                }
                out.append(Line(parts: parts))
            }
            let room = max(1, width - indent)
            if let image = state.previews[m.messageId] {
                for row in image.rows {
                    var parts: [(String, Style)] = [(pad, theme.style("timeline"))]
                    for cell in row.prefix(room) { parts.append((cell.text, cell.style)) }
                    out.append(Line(parts: parts))
                }
            }
            if let og = m.preview, og.title != nil || og.description != nil {
                let text = "🔗 " + [og.title, og.description].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " — ")
                out.append(Line(parts: [(pad, theme.style("timeline")), (Self.clip(text, room), theme.style("timeline.preview"))]))
            }
            if !m.reactions.isEmpty {
                let text = m.reactions.map { "\(Reducer.glyph($0.key)) \($0.userIds.count)" }.joined(separator: "  ")
                out.append(Line(parts: [(pad, theme.style("timeline")), (Self.clip(text, room), theme.style("timeline.reaction"))]))
            }
            if state.thread == nil, let t = m.thread, t.replyCount > 0 {
                let names = t.repliers.prefix(3).map(\.displayName).joined(separator: ", ")
                let last = t.lastRepliedAt > 0 ? " · last " + time.string(from: Date(timeIntervalSince1970: Double(t.lastRepliedAt) / 1000)) : ""
                let text = "↳ \(t.replyCount) \(t.replyCount == 1 ? "reply" : "replies")\(last)\(names.isEmpty ? "" : " · " + names)"
                out.append(Line(parts: [(pad, theme.style("timeline")), (Self.clip(text, room), theme.style("timeline.thread"))]))
            }
        }
        return out
    }

    /// `text` cut to `width` cells, with an ellipsis when cut.
    static func clip(_ text: String, _ width: Int) -> String {
        guard CellWidth.of(text) > width else { return text }
        var out = ""
        for ch in text {
            if CellWidth.of(out + String(ch)) > width - 1 { break }
            out.append(ch)
        }
        return out + "…"
    }

    static func byteCount(_ n: Int) -> String {
        if n < 1024 { return "\(n) B" }
        if n < 1024 * 1024 { return String(format: "%.1f KB", Double(n) / 1024) }
        return String(format: "%.1f MB", Double(n) / 1024 / 1024)
    }

    /// `[#####-----] 50%`.
    public static func progressBar(sent: Int64, total: Int64, width: Int) -> String {
        let fraction = total > 0 ? min(1, max(0, Double(sent) / Double(total))) : 0
        let filled = Int((fraction * Double(width)).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] \(Int((fraction * 100).rounded(.down)))%"
    }

    func drawMessages(_ state: AppState, _ g: inout CellGrid, x: Int, width: Int, height: Int, now: Millis) {
        guard state.selected != nil else {
            g.write("Welcome to Tern. /dm USER opens a conversation; /help lists keys and commands.", x: x + 1, y: 0, style: theme.style("timeline.event"))
            return
        }
        if let c = state.selectedChannel, c.myMemberState == "invited" {
            let who = c.inviter?.displayName ?? "Someone"
            let text = [
                "\(who) invited you to #\(c.displayName(me: state.me.userId)) (\(c.memberCount) members).",
                "Ctrl-O, then a accepts or d declines (or /accept, /decline).",
            ]
            for (i, line) in text.enumerated() {
                g.write(line, x: x + 1, y: max(0, height / 2 - 1) + i, style: theme.style("timeline.event"), limit: x + width)
            }
            return
        }
        let all = lines(for: state, width: width - 1, last: height + state.scroll)
        let maxScroll = max(0, all.count - height)
        let scroll = min(state.scroll, maxScroll)
        let end = all.count - scroll
        let start = max(0, end - height)
        let visible = Array(all[start..<end])
        let top = height - visible.count
        for (i, line) in visible.enumerated() {
            var col = x + 1
            for (text, style) in line.parts { col = g.write(text, x: col, y: top + i, style: style) }
        }
        if scroll > 0 {
            let more = "-- \(scroll) more below (PgDn) --"
            g.write(more, x: x + max(1, width - CellWidth.of(more) - 1), y: height - 1, style: theme.style("timeline.event"))
        }
    }

    func drawTyping(_ state: AppState, _ g: inout CellGrid, x: Int, y: Int, width: Int) {
        guard let url = state.selected, let typers = state.typers[url], !typers.isEmpty else { return }
        g.write(Self.typingText(typers.map(\.displayName)), x: x + 1, y: y, style: theme.style("typing"))
    }

    /// "bob is typing…", "bob and carol are typing…", "several people are typing…".
    public static func typingText(_ names: [String]) -> String {
        switch names.count {
        case 0: ""
        case 1: "\(names[0]) is typing…"
        case 2: "\(names[0]) and \(names[1]) are typing…"
        default: "several people are typing…"
        }
    }

    func drawInput(_ state: AppState, _ g: inout CellGrid, x: Int, y: Int, width: Int, rows: Int) {
        var prompt = "> "
        if state.confirmSend {
            prompt = "send? y/n> "
        } else if state.editing != nil {
            prompt = "edit> "
        } else if let r = state.replyingTo {
            prompt = "↱ \(Self.clip(r.sender?.displayName ?? "*", 12))> "
        } else if state.thread != nil {
            prompt = "thread> "
        }
        if keys.preset == .vi && state.mode == .normal { prompt = "[N] " + prompt }
        let px = g.write(prompt, x: x, y: y, style: theme.style("input.prompt"))
        // The length counter near Sendbird's limit.
        var counter = ""
        if state.input.count > Reducer.messageLimit * 4 / 5 { counter = " \(state.input.count)/\(Reducer.messageLimit)" }
        let room = max(1, width - CellWidth.of(prompt) - 1 - CellWidth.of(counter))
        let style = theme.style(state.input.first == "/" ? "input.command" : "input")
        // Lines of the input; the rows shown keep the cursor's line in view.
        var lines: [(start: Int, end: Int)] = []
        var s = 0
        for (i, c) in state.input.enumerated() where c == "\n" {
            lines.append((s, i))
            s = i + 1
        }
        lines.append((s, state.input.count))
        let cursorLine = lines.firstIndex { state.cursor >= $0.start && state.cursor <= $0.end } ?? lines.count - 1
        let firstLine = max(0, min(cursorLine - rows + 1, lines.count - rows))
        for (row, line) in lines.dropFirst(firstLine).prefix(rows).enumerated() {
            var startIndex = line.start
            if firstLine + row == cursorLine {
                // Scroll the line so the cursor stays visible.
                let window = Self.inputWindow(state.input, lineStart: line.start, cursor: state.cursor, room: room)
                startIndex = window.start
                g.cursor = (px + window.column, y + row)
            }
            // Only what can show is turned into a string (a 100,000-character paste costs a screen's width).
            let shown = state.input[startIndex..<min(line.end, startIndex + 2 * room + 16)]
            g.write(String(shown), x: px, y: y + row, style: style, limit: x + width - CellWidth.of(counter))
        }
        if lines.count > rows, firstLine + rows < lines.count {
            let more = "+\(lines.count - firstLine - rows)"
            g.write(more, x: x, y: y + rows - 1, style: theme.style("timeline.event"))
        }
        if !counter.isEmpty {
            g.write(counter, x: x + width - CellWidth.of(counter), y: y, style: theme.style(state.input.count > Reducer.messageLimit ? "timeline.failed" : "timeline.event"))
        }
    }

    /// Where an input line starts on screen so the cursor shows in `room` cells: the first character
    /// shown, the cursor's column from there, and how many characters were measured to find it (at most
    /// `room + 1`, however long the line: walking back from the cursor, not forward from the line's start).
    public static func inputWindow(_ input: [Character], lineStart: Int, cursor: Int, room: Int) -> (start: Int, column: Int, steps: Int) {
        var start = cursor
        var column = 0
        var steps = 0
        while start > lineStart {
            let w = CellWidth.of(input[start - 1])
            steps += 1
            if column + w > room { break }
            column += w
            start -= 1
        }
        return (start, column, steps)
    }

    /// The fuzzy channel switcher (Alt-J).
    func drawSwitcher(_ s: Switcher, _ state: AppState, _ g: inout CellGrid) {
        let matches = Reducer.switcherMatches(s.query, state)
        let box = drawBox(&g, title: "Go to channel (type, ↑/↓, Enter; Esc)", width: 50, height: min(g.height - 2, max(6, matches.count + 4)))
        g.write("> " + s.query, x: box.x, y: box.y, style: theme.style("input"), limit: box.x + box.w)
        g.cursor = (box.x + 2 + CellWidth.of(s.query), box.y)
        let room = box.h - 1
        let first = max(0, s.selected - room + 1)
        if matches.isEmpty { g.write("no channel matches", x: box.x + 1, y: box.y + 1, style: theme.style("timeline.event")) }
        for (i, m) in matches.enumerated().dropFirst(first).prefix(room) {
            let y = box.y + 1 + i - first
            let style = theme.style(i == s.selected ? "roomlist.selected" : "roomlist")
            g.fill(x: box.x, y: y, width: box.w, height: 1, style: style)
            let n = (Reducer.channelOrder(state).firstIndex(of: m.url) ?? 0) + 1
            g.write(" \(n). #\(m.name)", x: box.x, y: y, style: style, limit: box.x + box.w)
        }
    }

    func drawStatus(_ state: AppState, _ g: inout CellGrid, y: Int, width: Int, now: Millis) {
        g.fill(x: 0, y: y, width: width, height: 1, style: theme.style("status"))
        var col = g.write(" \(state.me.displayName) ", x: 0, y: y, style: theme.style("status.user"))
        var (text, key) = Self.connectionText(state.connection, now: now)
        if state.syncing, case .open = state.connection {
            (text, key) = ("syncing…", "status.reconnecting")
        } else if state.offlineStart, case .connecting = state.connection {
            (text, key) = ("offline", "status.offline")
        }
        col = g.write("│ ", x: col, y: y, style: theme.style("status"))
        col = g.write(text, x: col, y: y, style: theme.style(key))
        if let c = state.selectedChannel {
            col = g.write(" │ #" + c.displayName(me: state.me.userId), x: col, y: y, style: theme.style("status"))
            if c.isFrozen { col = g.write(" [frozen]", x: col, y: y, style: theme.style("status.activity")) }
            if c.myMemberState == "invited" { col = g.write(" [invited: Ctrl-O, then a accepts, d declines]", x: col, y: y, style: theme.style("status.activity")) }
        } else if let o = state.selectedOpenChannel {
            col = g.write(" │ #" + o.displayName + " · \(o.participantCount) here", x: col, y: y, style: theme.style("status"))
            if o.isFrozen { col = g.write(" [frozen]", x: col, y: y, style: theme.style("status.activity")) }
            if o.isOperator(state.me.userId) { col = g.write(" [operator]", x: col, y: y, style: theme.style("status.activity")) }
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

    /// A framed box centred on the screen with a title; returns its inside (x, y, width, height).
    func drawBox(_ g: inout CellGrid, title: String, width: Int, height: Int) -> (x: Int, y: Int, w: Int, h: Int) {
        let w = max(10, min(g.width - 4, width))
        let h = max(4, min(g.height - 2, height))
        let x0 = (g.width - w) / 2
        let y0 = max(0, (g.height - h) / 2)
        g.fill(x: x0, y: y0, width: w, height: h, style: theme.style("help"))
        let border = theme.style("border")
        g.write("┌" + String(repeating: "─", count: w - 2) + "┐", x: x0, y: y0, style: border)
        g.write("└" + String(repeating: "─", count: w - 2) + "┘", x: x0, y: y0 + h - 1, style: border)
        for y in (y0 + 1)..<(y0 + h - 1) {
            g.write("│", x: x0, y: y, style: border)
            g.write("│", x: x0 + w - 1, y: y, style: border)
        }
        g.write(" \(title) ", x: x0 + 2, y: y0, style: theme.style("title"), limit: x0 + w - 2)
        return (x0 + 2, y0 + 1, w - 4, h - 2)
    }

    /// The channel info view: what the channel is, who is in it, its metadata, and the keys that act on it.
    func drawInfo(_ c: GroupChannel, _ state: AppState, _ g: inout CellGrid) {
        let me = state.me.userId
        var kind = [c.isPublic ? "public" : "private"]
        if c.isDistinct { kind.append("distinct") }
        if c.isSuper { kind.append("super") }
        if c.isEphemeral { kind.append("ephemeral") }
        if !c.customType.isEmpty { kind.append("type " + c.customType) }
        var flags: [String] = [
            c.myMemberState == "invited" ? "invited by " + (c.inviter?.displayName ?? "someone") : "you are a member"
        ]
        if c.myRole == "operator" { flags.append("operator") }
        if c.isFrozen { flags.append("frozen") }
        switch c.hiddenState {
        case "hidden_allow_auto_unhide": flags.append("hidden")
        case "hidden_prevent_auto_unhide": flags.append("archived")
        default: break
        }
        var lines: [(String, String)] = [
            ("URL", c.url), ("Kind", kind.joined(separator: ", ")), ("State", flags.joined(separator: ", ")),
            ("Members", "\(c.memberCount) (\(c.joinedMemberCount) joined)"),
        ]
        for m in c.members.sorted(by: { ($0.role == "operator" ? 0 : 1, $0.userId) < ($1.role == "operator" ? 0 : 1, $1.userId) }) {
            var tags: [String] = []
            if m.role == "operator" { tags.append("operator") }
            if m.state != "joined" { tags.append(m.state) }
            if m.isOnline { tags.append("online") }
            let who = m.user.displayName + (m.userId == me ? " (you)" : "")
            lines.append(("", who + (tags.isEmpty ? "" : " · " + tags.joined(separator: ", "))))
        }
        for (k, v) in c.metadata.sorted(by: { $0.key < $1.key }) { lines.append(("Metadata", "\(k) = \(v)")) }
        let available: Set<String> =
            c.myMemberState == "invited"
            ? ["accept", "decline"]
            : ["invite", "rename", "leave", "hide", "archive"].reduce(into: Set<String>()) { $0.insert($1) }
                .union(c.myRole == "operator" ? ["freeze", "unfreeze"] : [])
        let actions = Reducer.infoActions.filter { available.contains($0.command) }.map { "\($0.key) \($0.what)" }
        let labelWidth = 9
        let contentWidth = max(lines.map { labelWidth + CellWidth.of($0.1) }.max() ?? 0, actions.map { CellWidth.of($0) + 2 }.max() ?? 0)
        let box = drawBox(&g, title: "#" + c.displayName(me: me) + " (any other key closes)", width: contentWidth + 6, height: lines.count + actions.count + 5)
        var y = box.y + 1
        let shown = max(0, box.h - 3 - actions.count)
        if lines.count > shown, shown > 1 {
            let hidden = lines.count - (shown - 1)
            lines = Array(lines.prefix(shown - 1)) + [("…", "\(hidden) more lines: a taller terminal shows them")]
        }
        for (label, value) in lines.prefix(shown) {
            g.write(label, x: box.x, y: y, style: theme.style("help.key"), limit: box.x + box.w)
            g.write(value, x: box.x + labelWidth, y: y, style: theme.style("help"), limit: box.x + box.w)
            y += 1
        }
        y += 1
        for a in actions where y < box.y + box.h {
            g.write(String(a.prefix(1)), x: box.x, y: y, style: theme.style("help.key"))
            g.write(String(a.dropFirst(2)), x: box.x + 2, y: y, style: theme.style("help"), limit: box.x + box.w)
            y += 1
        }
    }

    /// The channel browser: a search line, the matching channels, and what Enter does.
    func drawBrowser(_ b: Browser, _ g: inout CellGrid) {
        let title: String
        switch b.kind {
        case .publicChannels: title = "Public channels · Enter joins · Tab: open channels"
        case .openChannels: title = "Open channels · Enter enters · Tab: hidden ones"
        case .hiddenChannels: title = "Hidden and archived · Enter unhides · Tab: public"
        }
        let box = drawBox(&g, title: title, width: 70, height: g.height - 4)
        g.write("Search: ", x: box.x, y: box.y, style: theme.style("help.key"))
        g.write(b.query + "▏", x: box.x + 8, y: box.y, style: theme.style("input"), limit: box.x + box.w)
        g.write("words match names; type:X the custom type", x: box.x, y: box.y + 1, style: theme.style("timeline.event"), limit: box.x + box.w)
        let rows = box.h - 3
        if b.kind == .openChannels {
            if b.openResults.isEmpty {
                g.write(b.loading ? "searching…" : "no open channel matches", x: box.x, y: box.y + 3, style: theme.style("timeline.event"))
                return
            }
            let first = max(0, min(b.selected - rows + 1, b.openResults.count - rows))
            for (i, c) in b.openResults.enumerated().dropFirst(first).prefix(rows) {
                let y = box.y + 3 + (i - first)
                let selected = i == b.selected
                let style = theme.style(selected ? "roomlist.selected" : "help")
                g.fill(x: box.x, y: y, width: box.w, height: 1, style: style)
                var detail = "\(c.participantCount) here"
                if !c.customType.isEmpty { detail += " · " + c.customType }
                if c.isFrozen { detail += " · frozen" }
                g.write((selected ? "▸" : " ") + c.displayName, x: box.x, y: y, style: style, limit: box.x + box.w - CellWidth.of(detail) - 1)
                g.write(detail, x: box.x + box.w - CellWidth.of(detail), y: y, style: style)
            }
            return
        }
        if b.results.isEmpty {
            g.write(b.loading ? "searching…" : "no channel matches", x: box.x, y: box.y + 3, style: theme.style("timeline.event"))
            return
        }
        let first = max(0, min(b.selected - rows + 1, b.results.count - rows))
        for (i, c) in b.results.enumerated().dropFirst(first).prefix(rows) {
            let y = box.y + 3 + (i - first)
            let selected = i == b.selected
            let style = theme.style(selected ? "roomlist.selected" : "help")
            g.fill(x: box.x, y: y, width: box.w, height: 1, style: style)
            var detail = "\(c.memberCount) members"
            if !c.customType.isEmpty { detail += " · " + c.customType }
            if c.hiddenState == "hidden_prevent_auto_unhide" { detail += " · archived" }
            if c.myMemberState == "joined" && b.kind == .publicChannels { detail += " · joined" }
            let name = (selected ? "▸" : " ") + (c.name.isEmpty ? c.url : c.name)
            g.write(name, x: box.x, y: y, style: style, limit: box.x + box.w - CellWidth.of(detail) - 1)
            g.write(detail, x: box.x + box.w - CellWidth.of(detail), y: y, style: style)
        }
    }

    /// A list of people: a dot for who is online (● / ○), ★ for operators, "muted", and the row's detail.
    func drawPeople(_ p: PeopleView, _ state: AppState, _ g: inout CellGrid) {
        var title = p.title
        if let url = p.channelUrl { title += " of " + Reducer.channelLabel(url, state) }
        title += p.kind == .users ? " · type to filter · Enter: message · Esc" : " · Enter: message · Esc"
        let box = drawBox(&g, title: title, width: 64, height: min(g.height - 2, max(8, p.rows.count + (p.kind == .users ? 6 : 4))))
        var top = box.y
        if p.kind == .users {
            g.write("Filter: ", x: box.x, y: box.y, style: theme.style("help.key"))
            g.write(p.query + "▏", x: box.x + 8, y: box.y, style: theme.style("input"), limit: box.x + box.w)
            g.write("a nickname prefix; key:value,value filters by metadata", x: box.x, y: box.y + 1, style: theme.style("timeline.event"), limit: box.x + box.w)
            top += 3
        }
        let rows = box.y + box.h - top
        if p.rows.isEmpty {
            g.write(p.loading ? "loading…" : "nobody", x: box.x, y: top, style: theme.style("timeline.event"))
            return
        }
        let first = max(0, min(p.selected - rows + 1, p.rows.count - rows))
        for (i, r) in p.rows.enumerated().dropFirst(first).prefix(rows) {
            let y = top + (i - first)
            let selected = i == p.selected
            let style = theme.style(selected ? "roomlist.selected" : "help")
            g.fill(x: box.x, y: y, width: box.w, height: 1, style: style)
            var col = box.x
            if let online = r.online {
                var dot = theme.style(online ? "status.connected" : "timeline.event")
                if selected { dot.reverse = true }
                col = g.write(online ? "● " : "○ ", x: col, y: y, style: dot)
            }
            var name = r.user.displayName
            if !r.user.nickname.isEmpty && r.user.nickname != r.user.userId { name += " (\(r.user.userId))" }
            if r.user.userId == state.me.userId { name += " · you" }
            var tags: [String] = []
            if r.isOperator { tags.append("★ operator") }
            if r.isMuted { tags.append("muted") }
            if !r.detail.isEmpty { tags.append(r.detail) }
            let detail = tags.joined(separator: " · ")
            col = g.write(name, x: col, y: y, style: style, limit: box.x + box.w - CellWidth.of(detail) - 1)
            if !detail.isEmpty { g.write(detail, x: box.x + box.w - CellWidth.of(detail), y: y, style: style) }
        }
    }

    func drawReactions(selected: Int, _ g: inout CellGrid) {
        let items = Reducer.reactions.enumerated().map { i, r in (i == 9 ? "0" : String(i + 1)) + " " + r.glyph }
        let line = items.joined(separator: "  ")
        let box = drawBox(&g, title: "React (←/→ or a digit, Enter, Esc)", width: min(g.width - 2, max(CellWidth.of(line) + 10, 40)), height: 6)
        var col = box.x + 1
        for (i, item) in items.enumerated() {
            var style = theme.style("help")
            if i == selected { style = theme.style("roomlist.selected") }
            col = g.write(item, x: col, y: box.y + 1, style: style, limit: box.x + box.w)
            col = g.write("  ", x: col, y: box.y + 1, style: theme.style("help"), limit: box.x + box.w)
        }
        if selected < Reducer.reactions.count {
            g.write(":" + Reducer.reactions[selected].key + ":", x: box.x + 1, y: box.y + 2, style: theme.style("timeline.event"), limit: box.x + box.w)
        }
    }

    func drawSearch(_ s: SearchView, _ state: AppState, _ g: inout CellGrid) {
        let box = drawBox(&g, title: "Search messages (Enter searches, then jumps; Esc)", width: min(g.width - 2, 78), height: min(g.height - 2, 18))
        g.write("/ " + s.query, x: box.x + 1, y: box.y + 1, style: theme.style("input"), limit: box.x + box.w)
        g.cursor = (min(box.x + box.w - 1, box.x + 3 + CellWidth.of(s.query)), box.y + 1)
        let status: String
        if s.loading {
            status = "searching…"
        } else if let q = s.answered {
            status = s.results.isEmpty ? "nothing matches \"\(q)\"" : "\(s.results.count)\(s.hasMore ? "+" : "") matches for \"\(q)\""
        } else {
            status = "words; advanced: wild*, fuzzy~, a AND (b OR c), custom_type:x"
        }
        g.write(status, x: box.x + 1, y: box.y + 2, style: theme.style("timeline.event"), limit: box.x + box.w)
        let time = formatter("d MMM HH:mm")
        let rows = box.h - 4
        let first = max(0, min(s.selected - rows + 1, s.results.count - rows))
        for (i, m) in s.results.enumerated().dropFirst(first).prefix(max(0, rows)) {
            let y = box.y + 3 + (i - first)
            let channel = state.channels.first { $0.url == m.channelUrl }?.displayName(me: state.me.userId) ?? m.channelUrl
            let when = time.string(from: Date(timeIntervalSince1970: Double(m.createdAt) / 1000))
            let text = "#\(channel) \(when) \(m.sender?.displayName ?? "*"): \(m.text)".replacingOccurrences(of: "\n", with: " ")
            let style = theme.style(i == s.selected ? "roomlist.selected" : "help")
            g.fill(x: box.x, y: y, width: box.w, height: 1, style: style)
            g.write(Self.clip(text, box.w - 1), x: box.x + 1, y: y, style: style, limit: box.x + box.w)
        }
    }

    /// The slash commands the help lists (`SlashCommand.all`), each with what it does. A key named beside a
    /// command is the live one.
    func commandHelp() -> [(String, String)] {
        let bound = keys.helpLines(mode: .insert)
        return SlashCommand.helpLines.map { line in
            let key = line.key.flatMap { command in bound.first { $0.command == command }?.keys }
            return (line.usage, line.what + (key.map { " (\($0))" } ?? ""))
        } + [
            ("", ""),
            ("Channels", ""),
        ] + Self.channelKinds.map { ($0.kind, $0.what) }
    }

    /// What the kinds of channel are (the help and the README say the same).
    public static let channelKinds: [(kind: String, what: String)] = [
        ("private", "members only: join by invitation (/create, /dm, /invite)"),
        ("public", "a group channel anyone may find (Ctrl-G) and /join (/create -public)"),
        ("open", "a room without membership: /enter, chat, /exit; shows who is in it now"),
    ]

    /// How many lines an overlay shows at once on a terminal `height` rows tall, while it scrolls (a line
    /// says what is below): PgDn moves by this much.
    public static func overlayPage(height: Int) -> Int { max(1, height - 7) }

    /// The overlay on screen (help, settings, emojis): its title and its lines (key, what).
    public func overlayLines(_ state: AppState) -> (title: String, lines: [(String, String)]) {
        switch state.sheet {
        case .settings:
            var lines: [(String, String)] = Settings.settable.map { s in
                let value = state.settings.value(s.key) ?? ""
                return (s.key, (value.isEmpty ? "(none)" : value) + "   — " + s.takes)
            }
            lines += [("", ""), ("/set KEY VALUE", "changes one now; /save writes them to the config file")]
            return ("Settings (↑/↓ PgUp/PgDn scroll, any other key closes)", lines)
        case .emojis:
            // The glyph where tern knows it (a server's own keys may name none).
            var lines: [(String, String)] = state.emojiKeys.map { key in
                let glyph = Reducer.glyph(key)
                return (":\(key):", glyph == ":\(key):" ? "" : glyph)
            }
            if lines.isEmpty {
                lines = [("", "this server lists no emojis: any key goes"), ("", "e.g. /react thumbsup, /react :heart:")]
            }
            lines += [("", ""), ("/react KEY", "reacts to the last message (Ctrl-R picks another)")]
            return ("The server's emojis (\(state.emojiKeys.count)) · any other key closes", lines)
        case nil:
            break
        }
        var lines = commandHelp()
        if keys.preset == .vi {
            lines.append(("", ""))
            lines.append(("Normal mode (vi)", ""))
            lines += keys.helpLines(mode: .normal).map { ($0.keys, $0.what) }
            lines.append(("", ""))
            lines.append(("Insert mode (vi)", ""))
        } else {
            lines.append(("", ""))
            lines.append(("Keys (emacs)", ""))
        }
        lines += keys.helpLines(mode: .insert).map { ($0.keys, $0.what) }
        return ("Keys and commands (↑/↓ PgUp/PgDn scroll, any other key closes)", lines)
    }

    /// The help, the settings or the emojis in a box, scrolled to `helpScroll`.
    func drawOverlay(_ state: AppState, _ g: inout CellGrid) {
        var (title, lines) = overlayLines(state)
        let keyWidth = lines.map { CellWidth.of($0.0) }.max() ?? 0
        // Border, one blank column, keys, two columns, text, one blank column, border.
        let width = max(CellWidth.of(title) + 6, 1 + 1 + keyWidth + 2 + (lines.map { CellWidth.of($0.1) }.max() ?? 0) + 1 + 1)
        let box = drawBox(&g, title: title, width: width, height: lines.count + 4)
        let room = box.h - 2
        if lines.count > room, room > 1 {
            // Scrolled; say what does not fit rather than dropping it silently. (room - 1 = overlayPage.)
            let first = max(0, min(state.helpScroll, lines.count - (room - 1)))
            let below = lines.count - first - (room - 1)
            lines = Array(lines.dropFirst(first).prefix(room - 1)) + [(below > 0 ? "↓" : "", below > 0 ? "\(below) more lines (↓, PgDn)" : "— end —")]
        }
        for (i, (k, what)) in lines.prefix(room).enumerated() {
            let y = box.y + 1 + i
            g.write(k, x: box.x, y: y, style: theme.style("help.key"), limit: box.x + box.w)
            g.write(what, x: box.x + keyWidth + 2, y: y, style: theme.style("help"), limit: box.x + box.w)
        }
    }
}
