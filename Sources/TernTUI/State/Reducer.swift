public import Foundation
import TernKit
import TernProtocol

/// The one reducer: state + action → new state and the effects to run.
public struct Reducer: Sendable {
    public var keys: KeyTable
    /// Lays out messages the way the screen does, so scrolling knows how many lines there are.
    public var layout: Screen
    /// A directory's entries (path completion); tests give their own.
    public var listDirectory: @Sendable (String) -> [DirectoryEntry] = Reducer.readDirectory
    /// The theme names `/theme` completes.
    public var themesAvailable: @Sendable () -> [String] = { ["default"] + bundledThemeTexts.keys.sorted() }
    /// The spelling dictionaries (nil: no spell check); ``ChatApp`` loads the `spell` setting's languages.
    public var spellChecker: (any SpellChecker)?
    /// Messages a channel keeps in memory (``keepScrollback(_:_:)``); tests give a small one.
    public var scrollback = Reducer.defaultScrollback

    public struct DirectoryEntry: Sendable, Equatable {
        public var name: String
        public var isDirectory: Bool
        public init(name: String, isDirectory: Bool) {
            self.name = name
            self.isDirectory = isDirectory
        }
    }

    /// - Parameter timeZone: nil: the machine's own (``Zone/system``).
    public init(keys: KeyTable = .standard, timeZone: TimeZone? = nil) {
        self.init(keys: keys, zone: timeZone.map(Zone.init) ?? .system)
    }

    public init(keys: KeyTable = .standard, zone: Zone) {
        self.keys = keys
        layout = Screen(theme: .builtin, keys: keys)
        layout.zone = zone
    }

    @Sendable public static func readDirectory(_ path: String) -> [DirectoryEntry] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.prefix(2000).map { name in
            var isDir: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent(name), isDirectory: &isDir)
            return DirectoryEntry(name: name, isDirectory: isDir.boolValue)
        }
    }

    public func reduce(_ state: inout AppState, _ action: Action) -> [Effect] {
        let effects = reduceScrolled(&state, action)
        refreshSpelling(&state)
        // What is shown is where input goes: a thread stays only with its own channel on screen.
        if let t = state.thread, t.channelUrl != state.selected { parkThread(&state) }
        // The input grows with its lines: the message pane shrinks.
        if state.terminal.width > 0 {
            let pane = Screen.messagePane(
                width: state.terminal.width, height: state.terminal.height, sidePane: state.sidePane, inputRows: Screen.inputRows(state),
                split: state.split)
            if pane != state.pane {
                state.pane = pane
                state.scroll = min(state.scroll, maxScroll(state))
            }
        }
        return effects
    }

    /// The most the pane can scroll up (its top line is the oldest loaded one).
    func maxScroll(_ state: AppState) -> Int {
        max(0, layout.lineCount(state, width: state.pane.width) - state.pane.height)
    }

    func reduceAction(_ state: inout AppState, _ action: Action) -> [Effect] {
        switch action {
        case .resized(let width, let height):
            state.terminal = PaneSize(width: width, height: height)
            state.pane = Screen.messagePane(width: width, height: height, sidePane: state.sidePane, split: state.split)
            if state.pane.width > 0 { state.scroll = min(state.scroll, maxScroll(state)) }
            return []

        case .key(.alt(let c))
        where keys.match([.alt(c)], mode: state.mode) == .none && state.pendingKeys.isEmpty
            && !(state.switcher != nil && c == "j"):
            // Esc and a key typed right after it arrive like an Alt key; one nothing is bound to is read as the two.
            return reduceAction(&state, .key(.escape)) + reduceAction(&state, .key(.char(c)))

        case .key(let key):
            let presence = becomePresent(&state)
            state.notice = nil
            if state.showHelp || state.sheet != nil, key != .ctrl("c") {
                // A page is what the overlay shows at once: PgDn shows the line after the last one shown.
                let page = Screen.overlayPage(height: state.terminal.height)
                let last = max(0, layout.overlayLines(state).lines.count - page)
                switch key {
                case .down, .char("j"), .ctrl("n"): state.helpScroll = min(last, state.helpScroll + 1)
                case .up, .char("k"), .ctrl("p"): state.helpScroll = max(0, min(last, state.helpScroll) - 1)
                case .pageDown, .char(" "): state.helpScroll = min(last, state.helpScroll + page)
                case .pageUp: state.helpScroll = max(0, min(last, state.helpScroll) - page)
                case .home: state.helpScroll = 0
                case .end: state.helpScroll = last
                default:
                    state.showHelp = false
                    state.sheet = nil
                    state.helpScroll = 0
                }
                return presence
            }
            if state.switcher != nil, key != .ctrl("c") { return presence + switcherKey(key, &state) }
            if state.reporting != nil, key != .ctrl("c") { return presence + reportKey(key, &state) }
            if state.people != nil, key != .ctrl("c") { return presence + peopleKey(key, &state) }
            if state.browser != nil, key != .ctrl("c") { return presence + browserKey(key, &state) }
            if let url = state.info, key != .ctrl("c") { return presence + infoKey(key, url: url, &state) }
            if state.search != nil, key != .ctrl("c") { return presence + searchKey(key, &state) }
            if state.picker != nil, key != .ctrl("c") { return presence + pickerKey(key, &state) }
            if let effects = linkLabelKey(key, &state) { return presence + effects }
            return presence + inputKey(key, &state)

        case .paste(let text):
            return paste(text, &state)

        case .focus(let focused):
            return focusChanged(focused, &state)

        case .mouse(let e):
            return mouse(e, &state)

        case .editorFinished(let text):
            return editorFinished(text, &state)

        case .previewLoaded(let key, let preview):
            state.previews[key] = preview
            return []

        case .event(let event):
            return apply(event, &state)
        case .account(let name, let event):
            return applyAccount(name, event, &state)

        case .channelsLoaded, .historyLoaded, .historyFailed, .opened, .notice:
            return reduceLoaded(&state, action)
        case .openBrowserResults, .paneLoaded, .peopleLoaded, .browserResults, .failed, .emojisLoaded,
            .notificationRulesLoaded, .threadLoaded, .searchResults, .jumped, .uploadStarted, .uploadProgress,
            .uploadFinished:
            return reduceListsAndFiles(&state, action)
        }
    }

    func typingEffect(_ state: AppState) -> [Effect] {
        guard let url = state.selected, !state.input.isEmpty, state.input.first != "/" else { return [] }
        return [.typing(channelUrl: url, started: true)]
    }

    /// A command of the key map: editing, jumps, moves between channels and in the pane, modes, overlays.
    func run(_ command: Command, _ state: inout AppState) -> [Effect] {
        if let effects = edit(command, &state) { return effects }
        if let n = command.jumpNumber { return jump(n, &state) }
        if let effects = move(command, &state) { return effects }
        if let effects = changeMode(command, &state) { return effects }
        switch command {
        case .send:
            return submit(&state)
        case .quit:
            state.quitting = true
            return [.quit]
        case .help:
            state.showHelp.toggle()
            state.sheet = nil
            state.helpScroll = 0
            return []
        case .channelInfo:
            guard let url = state.selected else {
                state.notice = "no channel: open one first"
                return []
            }
            state.info = url
            return []
        case .browseChannels:
            return openBrowser(.publicChannels, &state)
        case .togglePeople:
            return togglePeoplePane(&state)
        case .pickMessage:
            guard !Self.visibleMessages(state).isEmpty else {
                state.notice = "no message to pick"
                return []
            }
            state.picker = MessagePicker()
            return []
        case .editLast:
            if !startEditing(&state) { state.notice = "nothing of yours to edit here" }
            return []
        case .search, .searchPrompt:
            state.search = SearchView()
            return []
        case .openImage:
            guard let m = Self.visibleMessages(state).last(where: { $0.files.contains { $0.type.hasPrefix("image/") } && $0.status == .succeeded })
            else {
                state.notice = "no image here"
                return []
            }
            return [.openFile(m)]
        case .openLink:
            return openLinkKey(&state)
        case .otherPane:
            return focusOtherPane(&state)
        case .spellSuggest:
            spellSuggest(&state)
            return []
        case .redraw:
            return [.redraw]
        case .editor:
            return [.externalEditor(state.inputText)]
        case .completeNext, .completePrevious:
            complete(forward: command == .completeNext, &state)
            return []
        default:
            break
        }
        return []
    }

    /// The vi modes: normal, insert (at the cursor, after it, at the start, at the end), the command line.
    /// Nil for a command that is not about modes.
    func changeMode(_ command: Command, _ state: inout AppState) -> [Effect]? {
        switch command {
        case .normalMode:
            if keys.preset == .vi, state.mode == .insert {
                state.mode = .normal
                state.cursor = max(0, state.cursor - 1)
            }
            return []
        case .insertMode:
            state.mode = .insert
        case .insertAfter:
            state.mode = .insert
            state.cursor = min(state.input.count, state.cursor + 1)
        case .insertAtStart:
            state.mode = .insert
            state.cursor = 0
        case .appendAtEnd:
            state.mode = .insert
            state.cursor = state.input.count
        case .commandLine:
            state.mode = .insert
            if state.input.first != "/" {
                pushUndo(&state)
                state.input = ["/"]
            }
            state.cursor = state.input.count
        default:
            return nil
        }
        return []
    }

    /// To another channel, or within the message pane. Nil for a command that moves nothing.
    func move(_ command: Command, _ state: inout AppState) -> [Effect]? {
        switch command {
        case .nextChannel, .previousChannel:
            let order = Self.channelOrder(state)
            guard !order.isEmpty else { return [] }
            let i = order.firstIndex { $0 == state.selected } ?? -1
            let n = order.count
            let j = command == .nextChannel ? (i + 1) % n : (i - 1 + n) % n
            return select(order[j], &state)
        case .nextActivity:
            return nextActivity(&state)
        case .switcher:
            state.switcher = Switcher()
            return []
        case .scrollUp:
            return scrollLines(max(1, state.pane.height - 1), &state)
        case .scrollDown:
            state.scroll = max(0, min(state.scroll, maxScroll(state)) - max(1, state.pane.height - 1))
            return []
        case .lineUp:
            return scrollLines(1, &state)
        case .lineDown:
            return scrollLines(-1, &state)
        case .halfPageUp:
            return scrollLines(max(1, state.pane.height / 2), &state)
        case .halfPageDown:
            return scrollLines(-max(1, state.pane.height / 2), &state)
        case .scrollTop:
            return scrollLines(maxScroll(state) - state.scroll + 1, &state)
        case .scrollBottom:
            state.scroll = 0
            return []
        default:
            return nil
        }
    }

    func openBrowser(_ kind: Browser.Kind, _ state: inout AppState) -> [Effect] {
        if kind == .openChannels {
            state.browser = Browser(kind: kind)
            return [.browse(kind: kind, query: "")]
        }
        state.browser = Browser(kind: kind)
        return [.browse(kind: kind, query: "")]
    }

    /// Keys while the browser is open: type to search, ↑/↓ to choose, Enter to join (or unhide), Tab to
    /// switch between public and hidden channels, Esc to close.
    func browserKey(_ key: Key, _ state: inout AppState) -> [Effect] {
        guard var b = state.browser else { return [] }
        var search = false
        switch key {
        case .escape:
            state.browser = nil
            return []
        case .tab:
            // Public group channels → open channels → hidden ones → public again.
            let next: Browser.Kind = b.kind == .publicChannels ? .openChannels : b.kind == .openChannels ? .hiddenChannels : .publicChannels
            return openBrowser(next, &state)
        case .up, .ctrl("p"), .altUp:
            b.selected = max(0, b.selected - 1)
        case .down, .ctrl("n"), .altDown:
            b.selected = min(max(0, (b.kind == .openChannels ? b.openResults.count : b.results.count) - 1), b.selected + 1)
        case .enter where b.kind == .openChannels:
            guard b.openResults.indices.contains(b.selected) else { return [] }
            state.browser = nil
            return [.enterOpen(b.openResults[b.selected].url)]
        case .enter:
            guard b.results.indices.contains(b.selected) else { return [] }
            let target = b.results[b.selected]
            state.browser = nil
            return [.channel(b.kind == .publicChannels ? .join : .unhide, channelUrl: target.url)]
        case .backspace:
            guard !b.query.isEmpty else { return [] }
            b.query.removeLast()
            search = true
        case .ctrl("u"):
            b.query = ""
            search = true
        case .char(let c):
            b.query.append(c)
            search = true
        default:
            return []
        }
        if search {
            b.loading = true
            b.selected = 0
        }
        state.browser = b
        return search ? [.browse(kind: b.kind, query: b.query)] : []
    }

    /// The channel info view's action keys (each is also a `/command`).
    public static let infoActions: [(key: Character, command: String, what: String)] = [
        ("a", "accept", "accept the invitation"), ("d", "decline", "decline the invitation"), ("i", "invite", "invite users…"),
        ("n", "rename", "rename…"), ("l", "leave", "leave"), ("h", "hide", "hide (back on a new message)"),
        ("r", "archive", "archive (until unhidden)"), ("f", "freeze", "freeze (operators)"), ("u", "unfreeze", "unfreeze (operators)"),
    ]

    func infoKey(_ key: Key, url: String, _ state: inout AppState) -> [Effect] {
        state.info = nil
        guard case .char(let c) = key, let action = Self.infoActions.first(where: { $0.key == c }) else { return [] }
        switch action.command {
        case "invite", "rename":
            // These need words: start the command in the input line.
            state.input = Array("/\(action.command) ")
            state.cursor = state.input.count
            return []
        case "accept": return [.channel(.accept, channelUrl: url)]
        case "decline": return [.channel(.decline, channelUrl: url)]
        case "leave": return [.channel(.leave, channelUrl: url)]
        case "hide": return [.channel(.hide, channelUrl: url)]
        case "archive": return [.channel(.archive, channelUrl: url)]
        case "freeze": return [.channel(.freeze, channelUrl: url)]
        default: return [.channel(.unfreeze, channelUrl: url)]
        }
    }

    /// Enter: a command, or a message to the channel on screen.
    func submit(_ state: inout AppState, confirmed: Bool = false) -> [Effect] {
        let text = state.inputText.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return [] }
        if state.editing == nil, let url = state.selected, let q = QuickEdit.parse(text) {
            remember(text, &state)
            pushUndo(&state)
            state.input = []
            state.cursor = 0
            state.typingRun = false
            // Typing it showed "typing…" to the others: that ends here, as after a send.
            return [.typing(channelUrl: url, started: false)] + quickEdit(q, &state)
        }
        if !text.hasPrefix("/") || text.hasPrefix("//") {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
            if text.count > Self.messageLimit {
                state.notice = "too long: \(text.count) characters, the limit is \(Self.messageLimit) (nothing was sent)"
                return []
            }
            if lines > state.settings.pasteConfirmLines, !confirmed {
                state.confirmSend = true
                state.notice = "send \(lines) lines as one message? y sends, any other key keeps editing"
                return []
            }
        }
        remember(text, &state)
        pushUndo(&state)
        state.input = []
        state.cursor = 0
        state.typingRun = false
        if text.hasPrefix("/") && !text.hasPrefix("//") { return slashCommand(text, &state) }
        return send(text.hasPrefix("//") ? String(text.dropFirst()) : text, &state)
    }

    /// A message to the channel on screen (Enter, `/say`): "typing…" ends, the pane goes to the bottom.
    func send(_ body: String, _ state: inout AppState) -> [Effect] {
        guard let url = state.selected else {
            state.notice = "no channel: /dm USER starts a conversation"
            return []
        }
        state.scroll = 0
        return [.typing(channelUrl: url, started: false)] + sendEffects(body, url: url, &state)
    }

    /// `/set` (lists), `/set KEY` (shows), `/set KEY VALUE` (changes at once; `/save` keeps it).
    func setCommand(_ words: [String], text: String, _ state: inout AppState) -> [Effect] {
        guard words.count >= 2 else {
            state.sheet = .settings
            state.helpScroll = 0
            return []
        }
        let key = words[1]
        guard words.count >= 3 else {
            if let v = state.settings.value(key) {
                state.notice = "\(key) = \(v)"
            } else {
                state.notice = "unknown setting \(key) (one of: \(Settings.settable.map(\.key).joined(separator: ", ")))"
            }
            return []
        }
        let value = words.dropFirst(2).joined(separator: " ")
        if key == "theme" { return [.applyTheme(value)] }
        var s = state.settings
        do {
            try s.set(key, value)
            if key == "keymap" { state.mode = .insert }
            state.settings = s
            state.notice = "\(key) = \(s.value(key) ?? value) · /save keeps it"
        } catch let e as Settings.SettingsError {
            state.notice = e.message
        } catch {
            state.notice = "\(error)"
        }
        return []
    }

    func select(_ url: String, _ state: inout AppState) -> [Effect] {
        guard url != state.selected else { return [] }
        // The channel in the other pane: you type there now.
        if state.split?.channelUrl == url { return focusOtherPane(&state) }
        let effects = switchChannel(to: url, &state)
        return effects + enter(url, &state) + reopenThread(&state) + paneRefresh(url, state)
    }

    /// What every change of the channel on screen does, whatever asked for it (a key, a command, the
    /// mouse, the switcher, a search result, a channel that went away): the channel left stops being
    /// viewed and typed in, its draft and its open thread are kept for when it comes back, and what
    /// belonged to it (the picker, a pending "send?", an edit or reply, the info view) is closed — so what
    /// the screen shows and where Enter sends are the same channel. The caller enters the new one.
    func switchChannel(to url: String, _ state: inout AppState) -> [Effect] {
        var effects: [Effect] = []
        let old = state.selected
        state.accountFocus = nil
        if let old {
            effects.append(.unview(channelUrl: old))
            if !state.input.isEmpty { effects.append(.typing(channelUrl: old, started: false)) }
        }
        swapDrafts(from: old, to: url, &state)
        parkThread(&state)
        state.thread = state.parkedThreads.removeValue(forKey: url)
        state.selected = url
        state.scroll = 0
        state.highlight = nil
        state.picker = nil
        state.reporting = nil
        state.confirmSend = false
        if state.info != nil && state.info != url { state.info = nil }
        return effects
    }

    /// A channel that is gone takes its thread, parked thread, draft and info view with it.
    func forget(_ url: String, _ state: inout AppState) {
        if state.split?.channelUrl == url { state.split = nil }
        state.parkedThreads[url] = nil
        state.drafts[url] = nil
        if state.thread?.channelUrl == url { state.thread = nil }
        if state.info == url { state.info = nil }
        if state.people?.channelUrl == url { state.people = nil }
    }

    /// The open thread goes aside with its channel.
    func parkThread(_ state: inout AppState) {
        guard let t = state.thread else { return }
        state.parkedThreads[t.channelUrl] = t
        state.thread = nil
    }

    /// A thread brought back with its channel is read again: replies may have come while it was away.
    func reopenThread(_ state: inout AppState) -> [Effect] {
        guard var t = state.thread else { return [] }
        t.loading = true
        state.thread = t
        return [.openThread(t.parent)]
    }

    /// The channel on screen is read: marked read, kept read while open, its history loaded. An invitation
    /// is not read until accepted (the server refuses members-only calls before that).
    func enter(_ url: String, _ state: inout AppState) -> [Effect] {
        if state.openChannels.contains(where: { $0.url == url }) {
            // Open channels keep no unread counts: only their history to load.
            guard state.messages[url] == nil else { return [] }
            state.loadingHistory.insert(url)
            return [.loadHistory(channelUrl: url, before: nil)]
        }
        guard let i = state.channels.firstIndex(where: { $0.url == url }), state.channels[i].myMemberState != "invited" else { return [] }
        // Shown but not seen (tern opened it by itself, or the terminal is not focused): its history loads, it
        // stays unread until the user is there.
        guard state.seeing else {
            guard state.messages[url] == nil, !state.loadingHistory.contains(url) else { return [.show(channelUrl: url)] }
            state.loadingHistory.insert(url)
            return [.show(channelUrl: url), .loadHistory(channelUrl: url, before: nil)]
        }
        let c = state.channels[i]
        if c.unreadMessageCount > 0 {
            state.unreadSince[url] = c.readReceipt[state.me.userId] ?? 0
        } else {
            state.unreadSince[url] = nil
        }
        state.channels[i].unreadMessageCount = 0
        state.channels[i].unreadMentionCount = 0
        var effects: [Effect] = [.view(channelUrl: url)]
        if state.messages[url] == nil, !state.loadingHistory.contains(url) {
            state.loadingHistory.insert(url)
            effects.append(.loadHistory(channelUrl: url, before: nil))
        }
        return effects
    }

    func upsert(_ channel: GroupChannel, _ state: inout AppState) {
        var c = channel
        if c.url == state.selected, state.seeing {
            c.unreadMessageCount = 0
            c.unreadMentionCount = 0
        }
        // The list stays in order (invitations first, then by latest activity): the channel is taken
        // out and put back where it belongs, which moves nothing else's contents (a message moves one
        // channel to the top on every incoming line). A list found out of order is sorted whole.
        if let old = state.channels.firstIndex(where: { $0.url == c.url }) { state.channels.remove(at: old) }
        var sorted = true
        var i = state.channels.endIndex
        for j in state.channels.indices {
            if j > 0, !Self.listed(state.channels[j - 1], before: state.channels[j]) { sorted = false }
            if i == state.channels.endIndex, Self.listed(c, before: state.channels[j]) { i = j }
        }
        state.channels.insert(c, at: i)
        if !sorted { state.channels.sort(by: Self.listed) }
    }

    /// The channel list's order: invitations first, then ``GroupChannel/newerFirst(_:_:)``.
    static func listed(_ a: GroupChannel, before b: GroupChannel) -> Bool {
        let ai = a.myMemberState == "invited"
        let bi = b.myMemberState == "invited"
        return ai != bi ? ai : GroupChannel.newerFirst(a, b)
    }
}
