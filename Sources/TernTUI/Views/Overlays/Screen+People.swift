import Foundation
import TernKit

/// The people overlay (/members, /operators, /banned, /muted, /users).
extension Screen {
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
            g.write(
                "a nickname prefix; key:value,value filters by metadata", x: box.x, y: box.y + 1, style: theme.style("timeline.event"),
                limit: box.x + box.w)
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
}
