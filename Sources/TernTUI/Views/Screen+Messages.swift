import Foundation
import TernKit
import TernProtocol

/// The message pane: messages laid out into lines, and the typing line.
extension Screen {
    struct Line {
        var parts: [(String, Style)]
        /// The parts that are a link's text: part index → URL (for OSC 8 hyperlinks).
        var links: [Int: String] = [:]
        /// A row of a picture drawn by sixel or iTerm2: the picture, which row, and the column it starts at
        /// in the line (`parts` then hold the symbols that stand in when the picture is cut off).
        var graphic: (picture: ImageGraphic, row: Int, x: Int)?
        /// A picture of kitty's that starts on this line (its cells are in `parts`: the adapter sends it).
        var kitty: (picture: ImageGraphic, x: Int)?
    }

    func formatter(_ format: String) -> TimeFormat { TimeFormat(format, zone: zone) }

    /// The message pane's lines; with `last`, only enough for the newest `last` lines (each message takes at
    /// least one): a frame lays out what it shows, not the whole history.
    func lines(for state: AppState, width: Int, last: Int? = nil) -> [Line] {
        guard let url = state.selected else { return [] }
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
            let label =
                "── thread: \(t.parent.sender?.displayName ?? "*") · \(t.replies.count) \(t.replies.count == 1 ? "reply" : "replies") · Esc: back "
            out.append(rule(label, "timeline.thread", width: width))
            if t.loading { out.append(Line(parts: [("loading the thread…", theme.style("timeline.event"))])) }
        }
        let picked = Reducer.picked(state)?.messageId
        for m in all[start...] {
            // Above the first message that was unread when the channel was opened.
            if !newLineShown, let since = state.unreadSince[url], m.createdAt > since, m.sender?.userId != state.me.userId,
                m.status == .succeeded
            {
                newLineShown = true
                out.append(rule("── new messages ", "timeline.read_marker", width: width))
            }
            let d = day.string(from: Date(timeIntervalSince1970: Double(m.createdAt) / 1000))
            if d != lastDay {
                lastDay = d
                out.append(rule("── \(d) ", "timeline.date_separator", width: width))
            }
            out += messageLines(m, state, width: width, time: time, picked: picked)
        }
        return out
    }

    /// A label ruled to the pane's width: the thread's head, the new-messages line, a day.
    func rule(_ label: String, _ style: String, width: Int) -> Line {
        Line(parts: [(label + String(repeating: "─", count: max(0, width - CellWidth.of(label))), theme.style(style))])
    }

    /// One message: the message it answers, its text wrapped after the stamp and nick, its receipt mark, and
    /// what hangs under it.
    func messageLines(_ m: Message, _ state: AppState, width: Int, time: TimeFormat, picked: Int64?) -> [Line] {
        var out: [Line] = []
        let mine = m.sender?.userId == state.me.userId
        let stamp = time.string(from: Date(timeIntervalSince1970: Double(m.createdAt) / 1000)) + " "
        let nick = m.kind == .admin ? "*" : (m.sender?.displayName ?? "?")
        let head = stamp + nick + ": "
        let (mark, markStyle) = mine ? receiptMark(m, state) : ("", theme.style("timeline.receipt"))
        var textStyle = self.textStyle(m, state, mine: mine, picked: picked)
        let indent = CellWidth.of(stamp)
        let pad = String(repeating: " ", count: min(indent, max(0, width - 1)))
        // A reply in the channel shows what it answers.
        if state.thread == nil, m.parentMessageId != 0, let p = m.parent {
            let text = state.settings.markdown ? MessageLayout.plain(p.text) : p.text
            let quote = "↱ \(p.sender?.displayName ?? "*"): " + text.replacingOccurrences(of: "\n", with: " ")
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
        // After the text: the edited note, then the receipt mark in its own style.
        var trailing: [MessageLayout.Run] = m.isEdited ? [MessageLayout.Run(" (edited)")] : []
        let trimmedMark = mark.trimmingCharacters(in: .whitespaces)
        if !trimmedMark.isEmpty {
            trailing += [MessageLayout.Run(String(mark.prefix { $0 == " " })), MessageLayout.Run(trimmedMark, .init(.mark))]
        }
        let bodyWidth = max(1, width - CellWidth.of(head))
        let labels = state.linkLabels.map { $0.channelUrl == state.selected && $0.thread == state.thread?.parent.messageId ? $0.numbers : [:] }
        let laid = MessageLayout.lines(
            body, markdown: state.settings.markdown && m.kind != .file, trailing: trailing, labels: labels ?? [:], width: bodyWidth)
        for (i, runs) in laid.enumerated() {
            var parts: [(String, Style)] = []
            if i == 0 {
                parts.append((stamp, theme.style("timeline.timestamp")))
                parts.append(
                    (
                        nick,
                        mine
                            ? theme.style("timeline.nick.self")
                            : nickColors && m.kind != .admin ? theme.nickStyle(m.sender?.userId ?? nick) : theme.style("timeline.nick")
                    ))
                parts.append((": ", theme.style("timeline.text")))
            } else {
                parts.append((String(repeating: " ", count: min(indent, width - 1)), theme.style("timeline")))
            }
            var links: [Int: String] = [:]
            for run in runs {
                if let url = run.look.link { links[parts.count] = url }
                parts.append((run.text, style(run.look, text: textStyle, mark: markStyle)))
            }
            out.append(Line(parts: parts, links: links))
        }
        return out + linesUnder(m, state, pad: pad, room: max(1, width - indent), time: time)
    }

    /// How a run of a laid-out message looks in this theme: its role's style over the message's text style,
    /// with its bold, italic and strike.
    func style(_ look: MessageLayout.Look, text: Style, mark: Style) -> Style {
        var s: Style
        if look.role == .mark {
            s = mark
        } else if let key = look.themeKey {
            s = theme.style(key).layered(over: text)
        } else {
            s = text
        }
        if look.marks.contains(.bold) { s.bold = true }
        if look.marks.contains(.italic) { s.italic = true }
        if look.marks.contains(.strike) { s.strike = true }
        return s
    }

    /// The mark after a message of mine: ⋯ on its way, ✗ not sent and why, ✓ stored, ✓✓ delivered to
    /// everyone, then who read it.
    func receiptMark(_ m: Message, _ state: AppState) -> (String, Style) {
        switch m.status {
        case .pending:
            return (" ⋯", theme.style("timeline.pending"))
        case .failed:
            return (" ✗ not sent" + (m.error.map { ": \(ErrorText.short($0)) (\($0.code.rawValue))" } ?? ""), theme.style("timeline.failed"))
        case .succeeded:
            var mark = " ✓"
            if let channel = state.selectedChannel, m.kind != .admin, !channel.isSuper {
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
            return (mark, theme.style("timeline.receipt"))
        }
    }

    /// A message's text style: an admin's, mine, a mention or highlight of me, the one jumped to, the one picked.
    func textStyle(_ m: Message, _ state: AppState, mine: Bool, picked: Int64?) -> Style {
        var style = theme.style(m.kind == .admin ? "timeline.admin" : mine ? "timeline.text.self" : "timeline.text")
        if !mine, m.kind != .admin, m.mentions(state.me.userId) || Reducer.highlighted(m.text, words: state.settings.highlights) {
            style = theme.style("timeline.mention")
        }
        if m.messageId != 0 && m.messageId == state.highlight { style = theme.style("timeline.highlight") }
        if m.messageId != 0 && m.messageId == picked { style = theme.style("timeline.picked") }
        return style
    }

    /// What hangs under a message, indented: its image, its link's preview, its reactions, its thread.
    func linesUnder(_ m: Message, _ state: AppState, pad: String, room: Int, time: TimeFormat) -> [Line] {
        var out: [Line] = []
        if let image = state.previews[m.previewKey], state.settings.images != .off {
            let x = CellWidth.of(pad)
            for (r, row) in image.rows.enumerated() {
                var parts: [(String, Style)] = [(pad, theme.style("timeline"))]
                var line = Line(parts: [])
                if let g = image.graphic, g.kind == .kitty, g.columns <= room {
                    for c in 0..<g.columns {
                        let cell = g.placeholder(row: r, column: c)
                        parts.append((cell.text, cell.style))
                    }
                    if r == 0 { line.kitty = (g, x) }
                } else {
                    for cell in row.prefix(room) { parts.append((cell.text, cell.style)) }
                    if let g = image.graphic, g.kind != .kitty, g.columns <= room { line.graphic = (g, r, x) }
                }
                line.parts = parts
                out.append(line)
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
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            + "] \(Int((fraction * 100).rounded(.down)))%"
    }

    func drawMessages(_ state: AppState, _ g: inout CellGrid, x: Int, y y0: Int = 0, width: Int, height: Int, now: Millis) {
        guard state.selected != nil else {
            g.write(
                "Welcome to Tern. /dm USER opens a conversation; /help lists keys and commands.", x: x + 1, y: y0,
                style: theme.style("timeline.event")
            )
            return
        }
        if let c = state.selectedChannel, c.myMemberState == "invited" {
            let who = c.inviter?.displayName ?? "Someone"
            let text = [
                "\(who) invited you to #\(c.title(me: state.me.userId)) (\(c.memberCount) members).",
                "Ctrl-O, then a accepts or d declines (or /accept, /decline).",
            ]
            for (i, line) in text.enumerated() {
                g.write(line, x: x + 1, y: y0 + max(0, height / 2 - 1) + i, style: theme.style("timeline.event"), limit: x + width)
            }
            return
        }
        // The pane is drawn into a grid of its own, kept for the next frame while nothing it shows changed.
        let key = PaneKey(state, width: width, height: height, screen: self)
        let pane = paneMemo.drawn(slot: y0 * 65536 + x, key) {
            var pane = CellGrid(width: width, height: height, fill: theme.style("default"))
            drawLines(state, &pane, width: width, height: height)
            return pane
        }
        g.blit(pane, x: x, y: y0)
    }

    /// The message pane's lines, newest at the bottom, scrolled, into `g` from its top-left corner.
    func drawLines(_ state: AppState, _ g: inout CellGrid, width: Int, height: Int) {
        let all = lines(for: state, width: width - 1, last: height + state.scroll)
        let scroll = min(state.scroll, max(0, all.count - height))
        let end = all.count - scroll
        let visible = Array(all[max(0, end - height)..<end])
        let top = height - visible.count
        // Sixel and iTerm2 pictures drawn where all their rows are on screen (else their symbols stand in).
        var drawnAt: [Int: Int] = [:]
        for (i, line) in visible.enumerated() {
            guard let (picture, row, _) = line.graphic, row == 0, i + picture.rows <= visible.count else { continue }
            let whole = (0..<picture.rows).allSatisfy { r -> Bool in
                guard let g = visible[i + r].graphic else { return false }
                return g.picture == picture && g.row == r
            }
            if whole { drawnAt[i] = picture.rows }
        }
        var blankUntil = -1
        for (i, line) in visible.enumerated() {
            var col = 1
            if let rows = drawnAt[i], let (picture, _, px) = line.graphic {
                g.graphics.append(GraphicPlacement(x: col + px, y: top + i, graphic: picture))
                blankUntil = i + rows - 1
            }
            if let (picture, px) = line.kitty { g.graphics.append(GraphicPlacement(x: col + px, y: top + i, graphic: picture)) }
            for (n, (text, style)) in line.parts.enumerated() {
                if i <= blankUntil, n > 0, line.graphic != nil {
                    // The picture's cells: blank, for the adapter to draw into.
                    col = g.write(
                        String(repeating: " ", count: CellWidth.of(text)), x: col, y: top + i, style: theme.style("timeline"), limit: width)
                    continue
                }
                let link = state.settings.hyperlinks ? line.links[n].map { g.link($0) } ?? 0 : 0
                // Clipped at the pane's edge (a split puts another pane right of it).
                col = g.write(text, x: col, y: top + i, style: style, limit: width, link: link)
            }
        }
        if scroll > 0 {
            let more = "-- \(scroll) more below (PgDn) --"
            g.write(more, x: max(1, width - CellWidth.of(more) - 1), y: height - 1, style: theme.style("timeline.event"))
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
}
