import Foundation
import TernKit

/// The channel browser overlay (Ctrl-G, /join, /open, /hidden).
extension Screen {
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
            let name = (selected ? "▸" : " ") + (c.name.isEmpty ? AccountKey.url(of: c.url) : c.name)
            g.write(name, x: box.x, y: y, style: style, limit: box.x + box.w - CellWidth.of(detail) - 1)
            g.write(detail, x: box.x + box.w - CellWidth.of(detail), y: y, style: style)
        }
    }
}
