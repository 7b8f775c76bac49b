import Foundation
import TernKit

/// The message search overlay (Ctrl-S, /search).
extension Screen {
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
            let channel =
                state.channels.first { $0.url == m.channelUrl }?.title(me: state.me(for: m.channelUrl).userId)
                ?? AccountKey.url(of: m.channelUrl)
            let when = time.string(from: Date(timeIntervalSince1970: Double(m.createdAt) / 1000))
            let text = "#\(channel) \(when) \(m.sender?.displayName ?? "*"): \(m.text)".replacingOccurrences(of: "\n", with: " ")
            let style = theme.style(i == s.selected ? "roomlist.selected" : "help")
            g.fill(x: box.x, y: y, width: box.w, height: 1, style: style)
            g.write(Self.clip(text, box.w - 1), x: box.x + 1, y: y, style: style, limit: box.x + box.w)
        }
    }
}
