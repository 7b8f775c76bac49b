import Foundation
import TernKit

/// A second channel beside (or above or below) the one you type in: `/split`, Alt-W, `/unsplit`.
public struct SplitView: Sendable, Equatable, Codable {
    /// The channel in the other pane (the one not typed in).
    public var channelUrl: String
    /// How far the other pane is scrolled up (lines), kept while it is not the focused one.
    public var scroll = 0
    /// Stacked (one above the other) rather than side by side.
    public var stacked = false
    /// The other pane is the left (or top) one.
    public var otherFirst = false

    public init(channelUrl: String, scroll: Int = 0, stacked: Bool = false, otherFirst: Bool = false) {
        self.channelUrl = channelUrl
        self.scroll = scroll
        self.stacked = stacked
        self.otherFirst = otherFirst
    }
}

/// A rectangle of the screen.
struct Area: Equatable {
    var x: Int
    var y: Int
    var width: Int
    var height: Int
}

extension Screen {
    /// Where the panes go in the message area (`x`, `width` × `height`): with a split, each pane has a header
    /// row (its channel's name) above its text; side by side only when each gets 24 columns, else stacked;
    /// stacked only when each gets 4 rows, else the focused pane alone.
    static func paneAreas(x: Int, width: Int, height: Int, split: SplitView?) -> (focused: Area, other: Area?) {
        let whole = Area(x: x, y: 0, width: width, height: height)
        guard let split else { return (whole, nil) }
        let sideBySide = !split.stacked && (width - 1) / 2 >= 24
        var first: Area
        var second: Area
        if sideBySide {
            let left = (width - 1) / 2
            first = Area(x: x, y: 0, width: left, height: height)
            second = Area(x: x + left + 1, y: 0, width: width - left - 1, height: height)
        } else {
            guard height >= 8 else { return (whole, nil) }
            let top = height / 2
            first = Area(x: x, y: 0, width: width, height: top)
            second = Area(x: x, y: top, width: width, height: height - top)
        }
        return split.otherFirst ? (second, first) : (first, second)
    }

    /// The text area of a pane (below its header row when split).
    static func textArea(_ a: Area, split: Bool) -> Area {
        split ? Area(x: a.x, y: a.y + 1, width: a.width, height: max(0, a.height - 1)) : a
    }

    /// The message area: the focused pane (the state as it is) and, when split, the other pane (the state as
    /// if its channel were on screen, scrolled as it was left), each under a header with its channel's name.
    func drawPanes(_ state: AppState, _ g: inout CellGrid, x: Int, width: Int, height: Int, now: Millis) {
        let (focused, other) = Self.paneAreas(x: x, width: width, height: height, split: state.split)
        guard let other, let split = state.split else {
            drawMessages(state, &g, x: x, width: width, height: height, now: now)
            return
        }
        var shown = state
        shown.selected = split.channelUrl
        shown.scroll = split.scroll
        shown.thread = state.parkedThreads[split.channelUrl]
        shown.picker = nil
        shown.linkLabels = nil
        shown.highlight = nil
        for (area, s, isFocused) in [(focused, state, true), (other, shown, false)] {
            let text = Self.textArea(area, split: true)
            drawMessages(s, &g, x: area.x, y: text.y, width: area.width, height: text.height, now: now)
            header(s, &g, area, focused: isFocused)
        }
        if other.y == focused.y {
            // Side by side: a rule between them.
            let between = max(focused.x, other.x) - 1
            for y in 0..<height { g.write("│", x: between, y: y, style: theme.style("border")) }
        }
    }

    /// A pane's header: its channel's name, marked when it is the one you type in.
    func header(_ state: AppState, _ g: inout CellGrid, _ a: Area, focused: Bool) {
        let name =
            state.channels.first { $0.url == state.selected }.map { "#" + $0.title(me: state.me.userId) }
            ?? state.openChannels.first { $0.url == state.selected }.map { "#" + $0.displayName } ?? "?"
        // Several accounts: whose channel it is (the two panes may be two accounts').
        let account = state.currentAccount.map { " · " + state.accounts[$0].name } ?? ""
        let label = (focused ? "▸ " : "  ") + name + account + (focused ? "" : "  (Alt-W: type here)")
        let style = theme.style(focused ? "roomlist.selected" : "timeline.event")
        g.fill(x: a.x + 1, y: a.y, width: max(0, a.width - 1), height: 1, style: style)
        g.write(Self.clip(label, max(1, a.width - 2)), x: a.x + 1, y: a.y, style: style, limit: a.x + a.width)
    }
}
