import Synchronization
import TernKit

/// The message pane as the last frame drew it (its own grid of cells), per pane, with everything it was
/// drawn from.
///
/// Most frames change something else: a badge in the channel list while a burst goes to other
/// channels, the clock, the input line. The pane depends only on the ``Key`` below (the channel's
/// messages, the thread, the receipts of the channel on screen, the settings and the theme that shape
/// them, the pane's size and scroll); when it equals the last frame's, the pane's cells are copied
/// into the frame as they were instead of laid out and drawn again. The comparison is cheap where it
/// matters: an array or a dictionary that was not written since compares by identity (Swift's `==`
/// checks the buffer first), so a message in another channel costs one lookup and a few pointer
/// compares.
final class PaneMemo: Sendable {
    /// All that ``Screen/drawLines(_:_:width:height:)`` reads for a pane, and the pane's size and scroll.
    struct Key: Equatable {
        var width: Int
        var height: Int
        var scroll: Int
        var selected: String?
        var messages: [Message]?
        var thread: ThreadView?
        var unreadSince: Millis?
        var loading: Bool
        var hasPrevious: Bool?
        var picker: MessagePicker?
        var highlight: Int64?
        var me: String
        var uploads: [String: Upload]
        var linkLabels: LinkLabels?
        var settings: Settings
        var previews: [PreviewKey: ImagePreview]
        /// The channel on screen: its members' receipts mark my messages.
        var channel: GroupChannel?
        var theme: Theme
        var zone: Zone
        var timestampFormat: String
        var nickColors: Bool

        init(_ state: AppState, width: Int, height: Int, screen: Screen) {
            self.width = width
            self.height = height
            scroll = state.scroll
            selected = state.selected
            let url = state.selected ?? ""
            messages = state.messages[url]
            thread = state.thread
            unreadSince = state.unreadSince[url]
            loading = state.loadingHistory.contains(url)
            hasPrevious = state.hasPrevious[url]
            picker = state.picker
            highlight = state.highlight
            me = state.me.userId
            uploads = state.uploads
            linkLabels = state.linkLabels
            settings = state.settings
            previews = state.previews
            channel = state.selectedChannel
            theme = screen.theme
            zone = screen.zone
            timestampFormat = screen.timestampFormat
            nickColors = screen.nickColors
        }
    }

    /// By pane (its origin on the screen): the key and what it gave.
    private let panes = Mutex<[Int: (key: Key, grid: CellGrid)]>([:])
    /// How many times a pane was laid out and drawn (tests: a frame that changed nothing of the pane lays out nothing).
    let layouts = Atomic<Int>(0)

    /// The pane at `slot` drawn for `key`: the last frame's when its key was the same, else `draw()`'s.
    func drawn(slot: Int, _ key: Key, _ draw: () -> CellGrid) -> CellGrid {
        if let last = panes.withLock({ $0[slot] }), last.key == key { return last.grid }
        let grid = draw()
        layouts.add(1, ordering: .relaxed)
        panes.withLock { p in
            // A few panes at most (a split has two); more means the layout moved: start over.
            if p.count >= 4 { p.removeAll() }
            p[slot] = (key, grid)
        }
        return grid
    }
}
