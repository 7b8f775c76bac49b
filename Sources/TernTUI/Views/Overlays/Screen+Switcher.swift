import Foundation
import TernKit

/// The channel switcher overlay (Alt-J).
extension Screen {
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
            let n = (Reducer.numberedOrder(state).firstIndex(of: m.url) ?? 0) + 1
            // With several accounts, whose channel it is (two accounts may each have a #bob).
            let account = state.accounts.isEmpty ? "" : state.accountIndex(of: m.url).map { " · " + state.accounts[$0].name } ?? ""
            g.write(" \(n). #\(m.name)\(account)", x: box.x, y: y, style: style, limit: box.x + box.w)
        }
    }
}
