import Synchronization
import TernKit

/// A region of the screen as the last frame drew it (its own grid of cells), per slot (its origin on the
/// screen), with everything it was drawn from: its `Key`.
///
/// Most frames change little: a badge in the channel list while a burst goes to other channels, the
/// clock, the input line. When a region's key equals the last frame's, its cells are copied into the
/// frame as they were instead of laid out and drawn again. The comparison is cheap where it matters: an
/// array or a dictionary that was not written since compares by identity (Swift's `==` checks the
/// buffer first), so a message in another channel costs one lookup and a few pointer compares.
final class GridMemo<Key: Equatable & Sendable>: Sendable {
    /// By slot: the key and what it gave.
    private let regions = Mutex<[Int: (key: Key, grid: CellGrid)]>([:])
    /// How many times a region was laid out and drawn (tests: a frame that changed nothing of it draws nothing).
    let layouts = Atomic<Int>(0)

    /// The region at `slot` drawn for `key`: the last frame's when its key was the same, else `draw()`'s.
    func drawn(slot: Int, _ key: Key, _ draw: () -> CellGrid) -> CellGrid {
        if let last = regions.withLock({ $0[slot] }), last.key == key { return last.grid }
        let grid = draw()
        layouts.add(1, ordering: .relaxed)
        regions.withLock { r in
            // A few regions at most (a split has two panes); more means the layout moved: start over.
            if r.count >= 4 { r.removeAll() }
            r[slot] = (key, grid)
        }
        return grid
    }
}

/// The message pane's memo: the pane depends only on ``PaneKey`` (the channel's messages, the thread,
/// the receipts of the channel on screen, the settings and the theme that shape them, the pane's size
/// and scroll).
typealias PaneMemo = GridMemo<PaneKey>

/// All that ``Screen/drawLines(_:_:width:height:)`` reads for a pane, and the pane's size and scroll.
struct PaneKey: Equatable, Sendable {
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

/// What both the channel list and the status bar show of the channels: the channels and open channels,
/// the accounts (headers, folds, connections, users), the one account's user (a 1:1 channel is titled by
/// the other member) and the channel on screen.
struct ChannelsShown: Equatable, Sendable {
    var channels: [GroupChannel]
    var openChannels: [OpenChannel]
    var accounts: [AccountState]
    var me: User
    var selected: String?

    init(_ state: AppState) {
        channels = state.channels
        openChannels = state.openChannels
        accounts = state.accounts
        me = state.me(for: nil)
        selected = state.selected
    }
}

/// The channel list's memo: the list depends only on ``ListKey``, so typing, the clock and the message
/// pane's changes copy it.
typealias ListMemo = GridMemo<ListKey>

/// All that ``Screen/drawChannelRows(_:_:width:height:)`` reads, and the list's size.
struct ListKey: Equatable, Sendable {
    var width: Int
    var height: Int
    var shown: ChannelsShown
    var theme: Theme

    init(_ state: AppState, width: Int, height: Int, screen: Screen) {
        self.width = width
        self.height = height
        shown = ChannelsShown(state)
        theme = screen.theme
    }
}

/// The status bar's memo.
typealias StatusMemo = GridMemo<StatusKey>

/// All that ``Screen/drawStatusBar(_:_:width:connection:)`` reads, and the bar's width.
struct StatusKey: Equatable, Sendable {
    var width: Int
    /// The channel on screen's title and state, the unread summary and the hotlist.
    var shown: ChannelsShown
    var accountFocus: String?
    /// The connection as the bar says it (``Screen/statusConnection(_:now:)``: a countdown changes it each second).
    var connectionText: String
    var connectionKey: String
    var totalUnread: Int
    /// The hotlist leaves out the channel on screen while the user sees it.
    var seeing: Bool
    var notice: String?
    /// The help key named at the right.
    var mode: KeyTable.Mode
    var keys: KeyTable
    var theme: Theme

    init(_ state: AppState, width: Int, connection: (text: String, key: String), screen: Screen) {
        self.width = width
        shown = ChannelsShown(state)
        accountFocus = state.accountFocus
        connectionText = connection.text
        connectionKey = connection.key
        totalUnread = state.totalUnread
        seeing = state.seeing
        notice = state.notice
        mode = state.mode
        keys = screen.keys
        theme = screen.theme
    }
}
