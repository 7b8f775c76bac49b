import Foundation
import TernKit

/// The reaction palette (Ctrl-R, then +).
extension Screen {
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
            g.write(
                ":" + Reducer.reactions[selected].key + ":", x: box.x + 1, y: box.y + 2, style: theme.style("timeline.event"), limit: box.x + box.w)
        }
    }
}
