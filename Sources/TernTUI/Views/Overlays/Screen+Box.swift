import Foundation
import TernKit

/// The frame every overlay is drawn in.
extension Screen {
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
}
