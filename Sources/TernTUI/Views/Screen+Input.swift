import Foundation
import TernKit

/// The input line: the draft, its rows and where the cursor is.
extension Screen {
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
        // Misspelled words are underlined (`input.misspelled`).
        let misspelled = Reducer.misspelled(state)
        let wrong = theme.style("input.misspelled")
        let limit = x + width - CellWidth.of(counter)
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
            let end = min(line.end, startIndex + 2 * room + 16)
            var column = px
            var i = startIndex
            for r in misspelled where r.upperBound > startIndex && r.lowerBound < end {
                let (a, b) = (max(r.lowerBound, startIndex), min(r.upperBound, end))
                if a > i { column = g.write(String(state.input[i..<a]), x: column, y: y + row, style: style, limit: limit) }
                column = g.write(String(state.input[a..<b]), x: column, y: y + row, style: wrong, limit: limit)
                i = b
            }
            if i < end { g.write(String(state.input[i..<end]), x: column, y: y + row, style: style, limit: limit) }
        }
        if lines.count > rows, firstLine + rows < lines.count {
            let more = "+\(lines.count - firstLine - rows)"
            g.write(more, x: x, y: y + rows - 1, style: theme.style("timeline.event"))
        }
        if !counter.isEmpty {
            g.write(
                counter, x: x + width - CellWidth.of(counter), y: y,
                style: theme.style(state.input.count > Reducer.messageLimit ? "timeline.failed" : "timeline.event"))
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
}
