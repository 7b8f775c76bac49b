import Foundation
public import TernKit

/// Everything the screen shows.
public struct AppState: Sendable, Equatable {
    /// The user, when tern runs one account (with several: each account's, in ``accounts``; see ``me``).
    var ownUser: User
    public var server: String
    /// The connection, when tern runs one account (with several: see ``connection``).
    var ownConnection: ConnectionState = .connecting
    /// The accounts when tern runs several (config.toml `[[accounts]]`); empty: one account, as before.
    /// Their channels are known by ``AccountKey``s (the account's name and the channel's URL).
    public var accounts: [AccountState] = []
    /// With several accounts: the account `/account NAME` chose while it has no channels. Commands that name
    /// no channel (`/dm`, `/create`, `/join`, `/users`…) act there until the channel on screen changes.
    public var accountFocus: String?
    /// The engine is catching up after a (re)connection (changelogs, gap fills).
    public var syncing = false
    /// Started from the cache before the server answered (the status bar says so until connected).
    public var offlineStart = false
    public var channels: [GroupChannel] = []
    /// Open channels the user is in (their own section of the list).
    public var openChannels: [OpenChannel] = []
    public var selected: String?
    /// Messages per channel, oldest first (pending and failed ones of ours included).
    public var messages: [String: [Message]] = [:]
    public var hasPrevious: [String: Bool] = [:]
    public var loadingHistory: Set<String> = []
    /// Per channel, the user's read time when they opened it with unread messages: the "new messages" line
    /// goes above the first later message from someone else.
    public var unreadSince: [String: Millis] = [:]
    public var typers: [String: [User]] = [:]
    public var input: [Character] = []
    public var cursor = 0
    /// Lines scrolled up from the bottom of the message pane.
    public var scroll = 0
    /// The message pane's size in cells (0 × 0 until the terminal reports one); scrolling pages by it.
    public var pane = PaneSize()
    public var showHelp = false
    /// The channel info view (members, flags, metadata, action keys) of this channel.
    public var info: String?
    public var browser: Browser?
    /// A line for the status bar (errors, hints); cleared by the next key.
    public var notice: String?
    public var totalUnread = 0
    public var quitting = false
    /// The message the input line edits (↑ on an empty line picks the last own one).
    public var editing: Message?
    /// The message the next send replies to.
    public var replyingTo: Message?
    /// The reactions the server offers (its emoji keys; empty: any key).
    public var emojiKeys: [String] = []
    /// When to alert, from the user's push preferences on the server.
    public var notificationRules = NotificationRules()
    /// Picking a message (Ctrl-R) to reply to, react to, edit, delete or open its thread.
    public var picker: MessagePicker?
    /// A thread on screen instead of the channel: sending replies to its parent. Always a thread of the
    /// channel on screen (`selected`): the reducer parks it when the channel changes, by any path.
    public var thread: ThreadView?
    /// Per channel, the thread that was open when the user switched away (it comes back with the channel).
    public var parkedThreads: [String: ThreadView] = [:]
    /// A list in an overlay (`/set` alone: the settings; `/react` alone: the server's emojis), scrolled as
    /// the help is.
    public var sheet: Sheet?
    /// The message search view.
    public var search: SearchView?
    /// A message to show marked (a search result jumped to).
    public var highlight: Int64?
    /// Uploads in progress: request id → what is known.
    public var uploads: [String: Upload] = [:]
    /// A list of people: members, participants, operators, banned or muted users, or the user browser.
    public var people: PeopleView?
    /// Reporting the picked message: the next key names the category.
    public var reporting: Message?
    /// The people pane at the right: members (● online, ★ operator) or an open channel's participants.
    public var sidePane = false
    /// The open channels' participants as the pane last read them.
    public var paneRows: [String: [PeopleView.Row]] = [:]
    /// The terminal's size (the message pane's depends on it and on the people pane).
    public var terminal = PaneSize()
    /// The links `/url` numbered on screen (`[1] [2] …`), until one is opened.
    public var linkLabels: LinkLabels?
    /// A second channel shown beside the one on screen (`/split`); nil: one pane.
    public var split: SplitView?
    /// The layout to bring back once the channels are known (`layout = "restore"`).
    public var pendingLayout: SavedLayout?
    /// How many lines tern added to channels itself (moderation results); numbers them.
    public var localEvents = 0

    /// The settings (from the config file; `/set` changes them live).
    public var settings = Settings()
    /// vi's mode (emacs: always insert).
    public var mode: KeyTable.Mode = .insert
    /// Keys typed so far of a longer binding (`C-x` of `C-x C-e`).
    public var pendingKeys: [Key] = []
    /// What the last kill (Ctrl-K, Ctrl-U, Ctrl-W, Alt-D…) deleted: Ctrl-Y puts it back.
    public var killBuffer: [Character] = []
    /// Earlier states of the input, newest last (undo).
    public var undo: [InputSnapshot] = []
    /// The last edit was typing (a run of typed characters is undone at once).
    public var typingRun = false
    /// Per channel, what was sent there (newest last); the position while walking it, and the line being
    /// written before the walk started.
    public var history: [String: [String]] = [:]
    public var historyIndex: Int?
    public var historyDraft: [Character] = []
    /// Per channel, the unsent input left there.
    public var drafts: [String: [Character]] = [:]
    /// Tab completion in progress: cycling through its candidates.
    public var completion: Completion?
    /// Spell checking of the input: the dictionaries loaded, each word's answer, Alt-S's suggestions.
    public var spell = SpellState()
    /// The fuzzy channel switcher.
    public var switcher: Switcher?
    /// A long paste waits for y/n before it is sent as one message.
    public var confirmSend = false
    /// The terminal has focus (focus reporting; true when the terminal does not report it).
    public var focused = true
    /// The user has been at the terminal since tern started (a key, a click, focus coming in): until then a
    /// channel tern opened by itself is shown but not marked read.
    public var present = false
    /// The help screen's first line (it scrolls).
    public var helpScroll = 0
    /// The image preview of a file message, rendered by the terminal adapter: by channel and message id (ids are
    /// per server: with several accounts, two servers' messages may share one) → cell rows.
    public var previews: [PreviewKey: ImagePreview] = [:]

    public init(me: User, server: String) {
        self.ownUser = me
        self.server = server
    }

    /// The channel on screen is being seen: on screen, the terminal focused and the user there.
    public var seeing: Bool { focused && present }

    public var selectedChannel: GroupChannel? { channels.first { $0.url == selected } }
    public var selectedOpenChannel: OpenChannel? { openChannels.first { $0.url == selected } }
    /// The user is an operator of the channel on screen.
    public var isOperatorHere: Bool {
        if let o = selectedOpenChannel { return o.isOperator(me.userId) }
        return selectedChannel?.myRole == "operator"
    }
    public var inputText: String { String(input) }
}

/// A list shown in an overlay, drawn from the state (so it is never stale).
public enum Sheet: Sendable, Equatable {
    /// Every setting `/set` changes, with its value now and what it takes.
    case settings
    /// The reactions the server offers (`/react` alone).
    case emojis
}

/// The input at one moment (undo).
public struct InputSnapshot: Sendable, Equatable {
    public var input: [Character]
    public var cursor: Int
}

/// Tab completion: the word being completed (from `start` to the cursor), the candidates, the one shown.
public struct Completion: Sendable, Equatable {
    public var start: Int
    public var candidates: [String]
    public var index: Int
    /// The input as it was before the first Tab (Esc puts it back).
    public var original: [Character]
    public var originalCursor: Int
}

/// The fuzzy channel switcher (Alt-J): a query, the channels matching it best first, the one chosen.
public struct Switcher: Sendable, Equatable {
    public var query = ""
    public var selected = 0
    public init() {}
}

/// Which message a preview is of: its channel (by key) and its id.
public struct PreviewKey: Sendable, Hashable {
    public var channel: String
    public var id: Int64
    public init(channel: String, id: Int64) {
        self.channel = channel
        self.id = id
    }
}

extension Message {
    /// Its preview's key.
    public var previewKey: PreviewKey { PreviewKey(channel: channelUrl, id: messageId) }
}

/// A small picture of an image, as coloured cells (rendered by the terminal adapter with libchafa), and the
/// same picture at the terminal's resolution when it speaks a graphics protocol (`graphic`, the same
/// `width` × `rows.count` cells). The symbols stand in where the picture cannot be drawn.
public struct ImagePreview: Sendable, Equatable {
    public var width: Int
    public var rows: [[Cell]]
    public var graphic: ImageGraphic?
    public init(width: Int, rows: [[Cell]], graphic: ImageGraphic? = nil) {
        self.width = width
        self.rows = rows
        self.graphic = graphic
    }
}

/// Picking one message of the pane: `index` counts from the newest (0).
public struct MessagePicker: Sendable, Equatable {
    public var index = 0
    /// Waiting for y/n before deleting the picked message.
    public var confirmDelete = false
    /// The reaction palette is open, at this position.
    public var reaction: Int?
    public init() {}
}

/// A thread: its parent and replies.
public struct ThreadView: Sendable, Equatable {
    public var channelUrl: String
    public var parent: Message
    public var replies: [Message] = []
    public var loading = true
    public init(channelUrl: String, parent: Message) {
        self.channelUrl = channelUrl
        self.parent = parent
    }
}

/// Message search: the query typed, the results, the one chosen.
public struct SearchView: Sendable, Equatable {
    public var query = ""
    public var results: [Message] = []
    public var selected = 0
    public var loading = false
    /// The query the results answer.
    public var answered: String?
    public var hasMore = false
    public init() {}
}

/// A file on its way up.
public struct Upload: Sendable, Equatable {
    public var channelUrl: String
    public var name: String
    public var sent: Int64 = 0
    public var total: Int64 = 0
    public init(channelUrl: String, name: String) {
        self.channelUrl = channelUrl
        self.name = name
    }
}

/// A list of people in an overlay: who, and what the list is of.
public struct PeopleView: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A group channel's members (operators first), or an open channel's participants.
        case members(String)
        case participants(String)
        case operators(String)
        case banned(String)
        case muted(String)
        /// The application's users, filtered by the query (a nickname prefix, `key:value` metadata).
        case users
    }
    public struct Row: Sendable, Equatable {
        public var user: User
        /// nil: not known.
        public var online: Bool?
        public var isOperator = false
        public var isMuted = false
        /// Extra words: "until 14:02 · spam", "last seen …".
        public var detail = ""
        public init(user: User, online: Bool? = nil, isOperator: Bool = false, isMuted: Bool = false, detail: String = "") {
            self.user = user
            self.online = online
            self.isOperator = isOperator
            self.isMuted = isMuted
            self.detail = detail
        }
    }
    public var kind: Kind
    public var query = ""
    public var rows: [Row] = []
    public var selected = 0
    public var loading = true
    public init(kind: Kind) { self.kind = kind }

    public var channelUrl: String? {
        switch kind {
        case .members(let u), .participants(let u), .operators(let u), .banned(let u), .muted(let u): u
        case .users: nil
        }
    }

    public var title: String {
        switch kind {
        case .members: "Members"
        case .participants: "Participants (online)"
        case .operators: "Operators"
        case .banned: "Banned"
        case .muted: "Muted"
        case .users: "Users"
        }
    }
}

/// The channel browser: public group channels to join, open channels to enter, or the user's hidden and
/// archived ones to bring back.
public struct Browser: Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case publicChannels, openChannels, hiddenChannels }
    public var kind: Kind
    /// Typed search: words match the name; `type:X` matches the custom type.
    public var query = ""
    public var results: [GroupChannel] = []
    /// Open channels (when `kind` is `openChannels`).
    public var openResults: [OpenChannel] = []
    public var selected = 0
    public var loading = true
    public init(kind: Kind) { self.kind = kind }

    /// The name part and the custom type part of the query.
    public var terms: (name: String, customType: String) { Self.terms(query) }

    public static func terms(_ query: String) -> (name: String, customType: String) {
        var name: [Substring] = []
        var type = ""
        for w in query.split(separator: " ") {
            if w.hasPrefix("type:") { type = String(w.dropFirst(5)) } else { name.append(w) }
        }
        return (name.joined(separator: " "), type)
    }
}

/// The message pane's size in cells.
public struct PaneSize: Sendable, Equatable {
    public var width = 0
    public var height = 0
    public init(width: Int = 0, height: Int = 0) {
        self.width = width
        self.height = height
    }
}

/// What happens to the state: keys, engine events, results of requests.
public enum Action: Sendable {
    case key(Key)
    /// The terminal gained (true) or lost focus (DECSET 1004).
    case focus(Bool)
    case mouse(MouseEvent)
    /// `$EDITOR` returned the draft (nil: it failed).
    case editorFinished(String?)
    /// An image message's preview is ready.
    case previewLoaded(PreviewKey, ImagePreview)
    /// The terminal has this size now.
    case resized(width: Int, height: Int)
    case paste(String)
    case event(ClientEvent)
    /// An event about one account as a whole (its connection, user, unread total), with several accounts.
    case account(name: String, ClientEvent)
    case channelsLoaded([GroupChannel])
    case historyLoaded(url: String, page: MessagePage, replace: Bool)
    case historyFailed(url: String, error: String)
    case opened(GroupChannel)
    case failed(String)
    /// The server's emoji keys (the reaction palette).
    case emojisLoaded([String])
    /// The user's push preferences (when to alert).
    case notificationRulesLoaded(NotificationRules)
    /// A line for the status bar.
    case notice(String)
    /// Channels for the browser, for the query they answer.
    case browserResults(kind: Browser.Kind, query: String, [GroupChannel])
    case openBrowserResults(query: String, [OpenChannel])
    /// Rows for a people list, for the query they answer.
    case peopleLoaded(PeopleView.Kind, query: String, [PeopleView.Row])
    /// An open channel's participants for the people pane.
    case paneLoaded(url: String, [PeopleView.Row])
    case threadLoaded(MessageThread)
    case searchResults(query: String, [Message], hasMore: Bool)
    /// History around a message (a search result), which is then shown marked.
    case jumped(url: String, page: MessagePage, messageId: Int64)
    case uploadStarted(requestId: String, Upload)
    case uploadProgress(requestId: String, sent: Int64, total: Int64)
    case uploadFinished(requestId: String, error: String?)
}

/// What the reducer asks the outside world to do.
public enum Effect: Sendable, Equatable {
    /// The terminal bell and a desktop notification (OSC 777).
    case alert(title: String, body: String)
    /// Edit this draft in `$EDITOR` (the terminal is handed over meanwhile).
    case externalEditor(String)
    /// `/log`: the channel's log in `$PAGER`.
    case openLog(channelUrl: String)
    /// Open a file message's file (the full image) with `$BROWSER` / `xdg-open`.
    case openFile(Message)
    /// Open a link (`/url N`) with `$BROWSER` / `xdg-open`.
    case openURL(String)
    /// Put text on the clipboard (OSC 52).
    case copy(String)
    /// Load the theme the settings name now (`/theme`, `/set theme`).
    case applyTheme(String)
    /// Write the settings to the config file (`/save`).
    case saveSettings(Settings)
    /// Read the server's emojis again (`/react` alone).
    case loadEmojis
    /// Draw the whole screen again (Ctrl-L).
    case redraw
    case send(text: String, channelUrl: String)
    /// A message with mentions or a parent.
    case sendMessage(UserMessageParams, channelUrl: String)
    case editMessage(Message, text: String)
    case deleteMessage(Message)
    case react(Message, key: String, add: Bool)
    case openThread(Message)
    case searchMessages(query: String)
    /// Load history around a message and show it.
    case jump(Message)
    case upload(path: String, channelUrl: String)
    case cancelUpload(requestId: String)
    case download(Message, directory: String)
    case openDirect(userId: String)
    /// `/create NAME USER…` (private: members by invitation) or `/create -public NAME USER…` (anyone may join).
    case createGroup(name: String, userIds: [String], isPublic: Bool = false)
    case loadHistory(channelUrl: String, before: Millis?)
    /// The channel is on screen now (mark it read; keep marking while open).
    case view(channelUrl: String)
    case unview(channelUrl: String)
    /// The channel is on screen but not seen (kept current, not marked read).
    case show(channelUrl: String)
    case typing(channelUrl: String, started: Bool)
    /// A membership or channel command on a channel.
    case channel(ChannelCommand, channelUrl: String)
    /// `/join NAME`: find a public channel by name (or URL) and join it.
    case joinPublic(String)
    /// Accept invitations at once (true) or list them to answer (false).
    case setAutoAccept(Bool)
    /// Fill the browser: public channels by name and custom type, or the user's hidden channels.
    case browse(kind: Browser.Kind, query: String)
    /// `/block USER`, `/unblock USER`, `/blocked`.
    case block(String)
    case unblock(String)
    case listBlocked
    /// `/readall`: mark every channel read.
    case markAllRead
    /// `/enter NAME|URL`: find an open channel and enter it; `/exit`: leave one.
    case enterOpen(String)
    case exitOpen(String)
    /// `/create-open NAME`: a new open channel with the user as its operator, entered at once.
    case createOpen(String)
    /// Fill a people list.
    case people(PeopleView.Kind, query: String)
    /// Read an open channel's participants for the people pane.
    case loadPane(channelUrl: String)
    /// An operator's action on a channel.
    case moderate(Moderation, channelUrl: String)
    case report(ReportTarget, category: ReportCategory, description: String)
    /// `/whois USER`.
    case whois(String)
    /// `/nick NAME`.
    case nick(String)
    case quit
}

/// `/op`, `/deop`, `/ban`, `/unban`, `/mute`, `/unmute`.
public enum Moderation: Sendable, Equatable {
    case op(String)
    case deop(String)
    /// Seconds: -1 for ever.
    case ban(String, seconds: Int, reason: String)
    case unban(String)
    case mute(String, seconds: Int, reason: String)
    case unmute(String)
}

/// What `/report` reports.
public enum ReportTarget: Sendable, Equatable {
    case channel(String)
    case user(String, channelUrl: String)
    case message(Message)
}

/// What `/invite`, `/accept`, `/leave`… ask of the channel on screen.
public enum ChannelCommand: Sendable, Equatable {
    case invite([String])
    case accept, decline, leave, hide, archive, unhide, freeze, unfreeze, join
    case rename(String)
    /// `/count all|messages|mentions|off`: what this channel's unread counts count.
    case countPreference(CountPreference)
}
