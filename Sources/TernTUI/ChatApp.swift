import Foundation
public import TernKit
import TernProtocol

/// Input from the terminal.
public enum TerminalInput: Sendable, Equatable {
    case key(Key)
    case paste(String)
    case resize
    /// Focus in (true) or out (DECSET 1004).
    case focus(Bool)
    case mouse(MouseEvent)
    /// The terminal is gone: tern quits.
    case hangup
    /// The terminal's answer to a query the adapter sent at start.
    case reply(TerminalReply)
}

/// What a terminal answers about itself.
public enum TerminalReply: Sendable, Equatable {
    /// kitty's graphics query: OK, or an error (no kitty graphics).
    case graphics(ok: Bool)
    /// The primary device attributes (DA1): 4 among them means sixels.
    case deviceAttributes([Int])
}

/// The terminal as the app sees it: a size, a stream of input, and a place to put frames. The
/// curses adapter implements it; tests can implement it in memory.
public protocol TerminalSurface: AnyObject, Sendable {
    var inputs: AsyncStream<TerminalInput> { get }
    /// Shows a frame (the adapter writes only what changed since the last one).
    func present(_ grid: CellGrid)
    func size() -> (width: Int, height: Int)
    /// Calls the user's attention: any of `bell`, `osc777`, `osc9` (desktop notifications).
    func alert(title: String, body: String, styles: [String])
    /// The terminal's title (OSC 2).
    func setTitle(_ title: String)
    /// Mouse reporting on or off.
    func setMouse(_ on: Bool)
    /// Draw everything again on the next frame (Ctrl-L).
    func redrawAll()
    /// Hands the terminal to a program (`$EDITOR`) until it exits; its exit status (-1: it did not run).
    func runInTerminal(_ argv: [String]) async -> Int32
    /// An image (PNG, JPEG, GIF, WebP, BMP bytes) as at most `columns` × `maxRows` coloured cells, and with
    /// `graphics`, the same cells as a picture for that protocol (kitty's image `id`); nil when the terminal
    /// adapter cannot draw images. Called off the drawing thread.
    func renderImage(_ data: [UInt8], columns: Int, maxRows: Int, graphics: ImageProtocol?, id: Int, key: Int64) -> ImagePreview?
    /// The graphics protocol the terminal speaks, as far as its environment and its answers tell (nil: none known).
    var imageProtocol: ImageProtocol? { get }
    /// Puts text on the terminal's clipboard (OSC 52, through tmux when inside one).
    func copy(_ text: String)
}

extension TerminalSurface {
    public func alert(title: String, body: String, styles: [String]) {}
    public func setTitle(_ title: String) {}
    public func setMouse(_ on: Bool) {}
    public func redrawAll() {}
    public func runInTerminal(_ argv: [String]) async -> Int32 { -1 }
    public func renderImage(_ data: [UInt8], columns: Int, maxRows: Int, graphics: ImageProtocol?, id: Int, key: Int64) -> ImagePreview? {
        nil
    }
    public var imageProtocol: ImageProtocol? { nil }
    public func copy(_ text: String) {}
}

/// Runs the client: engine events and keys go through the reducer; effects go to the engine;
/// the screen is redrawn after what changed it (within 25 ms, or 250 ms for news in other channels), and once a second only
/// while a countdown is on screen — nothing runs while nothing happens.
///
/// The app runs on its (first) engine's event loop (``ChatClient/home``): a message read from the
/// socket reaches the engine, the reducer and the next frame on that one thread.
public actor ChatApp {
    public nonisolated var unownedExecutor: UnownedSerialExecutor { client.unownedExecutor }
    /// The engine (with several accounts: the first account's).
    let client: ChatClient
    /// With several accounts, each with its engine (empty: one account, `client`).
    let accounts: [Account]
    let surface: any TerminalSurface
    var screen: Screen
    var reducer: Reducer
    var state: AppState
    /// Where `/save` writes the settings.
    let configPath: String?
    /// Where the user's own themes are.
    let themesDirectory: String
    /// Colours off (`NO_COLOR`).
    let noColor: Bool
    var drawScheduled = false
    var urgentDrawScheduled = false
    var tickScheduled = false
    var lastDraw = ContinuousClock.now - .seconds(1)
    var title = ""
    /// Image messages whose preview was asked for (once each).
    var previewsAsked: Set<PreviewKey> = []
    /// The last kitty image id given out (1…255).
    var nextImageId = 0
    var dirty = true
    var finished: CheckedContinuation<Void, Never>?
    var done = false
    /// Uploads by file path → request id, for their progress.
    var uploadIds: [String: String] = [:]
    /// The message collection of each channel whose history is on screen (cache first, then the server;
    /// paging back goes through it).
    var collections: [String: MessageCollection] = [:]
    /// What the spelling dictionaries said could not be loaded, each said once (ChatApp+Spell).
    var spellProblemsShown: Set<String> = []
    /// Whether the `spell` setting's dictionaries were asked for (at the first text typed, or by `/set spell`).
    var spellingRequested = false
    /// Chat logs (`log = true`): what was logged, and the writer (``ChatLog``).
    var chatLog = ChatLog()
    var chatLogWriter: ChatLogWriter?

    public init(
        client: ChatClient, surface: any TerminalSurface, screen: Screen, user: String, server: String, settings: Settings = Settings(),
        configPath: String? = nil, themesDirectory: String = "", noColor: Bool = false, layoutPath: String? = nil,
        spellChecker: (any SpellChecker)? = nil, accountServer: String? = nil, accounts: [Account] = []
    ) {
        self.accountServer = accountServer
        self.client = accounts.first?.client ?? client
        self.accounts = accounts
        self.surface = surface
        self.screen = screen
        reducer = Reducer(keys: screen.keys, zone: screen.zone)
        let dir = themesDirectory
        reducer.themesAvailable = { Theme.available(themesDirectory: dir) }
        reducer.spellChecker = spellChecker
        state = AppState(me: User(userId: user), server: server)
        state.accounts = Self.accountStates(accounts)
        state.settings = settings
        self.configPath = configPath
        self.themesDirectory = themesDirectory
        self.noColor = noColor
        self.layoutPath = layoutPath
        if settings.layout == "restore", let layoutPath, let data = FileManager.default.contents(atPath: layoutPath) {
            state.pendingLayout = try? JSONDecoder().decode(SavedLayout.self, from: data)
            savedLayout = state.pendingLayout
        }
    }

    /// How the account's server is named in file names when not by its URL (the embedded server: "embedded",
    /// as its cache is, whatever port it has this time).
    let accountServer: String?
    /// Where the split panes are kept between runs (nil: nowhere).
    let layoutPath: String?
    /// The layout last written there.
    var savedLayout: SavedLayout?

    /// The accounts whose first connection has happened (before it, a wait for the server says why); "" for the one account.
    var everConnected: Set<String> = []
    /// The accounts (several) whose wait for their server has been explained once.
    var waitExplained: Set<String> = []

    /// Runs until the user quits.
    public func run() async {
        let inputs = surface.inputs
        // The tasks prefer the engine's loop: a stream's or a timer's continuation resumes on the
        // task's executor before it hops back to the actor (also on the loop), so an event is taken
        // from its stream without waking a thread of the cooperative pool.
        let home = client.home.tasks
        var tasks = engines.map { client, r in
            let events = client.eventBatches()
            return Task(executorPreference: home) { await self.follow(events, client, r) }
        }
        tasks.append(Task(executorPreference: home) { await self.follow(inputs) })
        surface.setMouse(state.settings.mouse)
        resized()
        for (client, r) in engines { Task { await self.start(client, r) } }
        await withCheckedContinuation { cont in
            if done { cont.resume() } else { finished = cont }
        }
        for t in tasks { t.cancel() }
        for (client, _) in engines { await client.shutdown() }
    }

    /// An engine's events through the reducer, a socket read's batch at a time: each event is
    /// reduced and its effects run in order, and what follows a change (a frame, link previews, the
    /// saved layout) once per batch.
    func follow(_ batches: AsyncStream<[ClientEvent]>, _ client: ChatClient, _ r: AccountRoute) async {
        for await batch in batches {
            var urgent = false
            for e in batch { urgent = reduce(r.action(for: e)) || urgent }
            changed(urgent: urgent)
            for e in batch {
                if case .connectionStateChanged(.reconnecting(_, .some)) = e { await explainWaiting(client, r) }
            }
        }
    }

    /// The terminal's input through the reducer.
    func follow(_ inputs: AsyncStream<TerminalInput>) async {
        for await i in inputs {
            switch i {
            case .key(let k): dispatch(.key(k))
            case .paste(let s): dispatch(.paste(s))
            case .focus(let f): dispatch(.focus(f))
            case .mouse(let m): dispatch(.mouse(m))
            case .hangup: perform(.quit)
            case .resize: resized()
            case .reply: graphicsChanged()
            }
        }
    }

    /// One account's start (each account's at the same time).
    func start(_ client: ChatClient, _ r: AccountRoute) async {
        // An offline start: what the cache holds is on screen before the server answers.
        let cached = await client.cachedChannels()
        if !cached.isEmpty {
            state.offlineStart = true
            dispatch(r, .channelsLoaded(cached))
        }
        do {
            try await client.connect()
            everConnected.insert(r.name ?? "")
            state.offlineStart = false
            // The reaction palette: the server's emojis (none configured: any key goes); the first account's.
            if r.name == accounts.first?.name {
                Task { if let keys = try? await client.emojiKeys() { self.dispatch(.emojisLoaded(keys)) } }
            }
            // When to alert: the user's push preferences on the server (global, then per channel).
            Task { await self.loadNotificationRules(client, r) }
            // With a cache, the engine's catch-up after login reads the list (and announces it).
            if client.cache == nil {
                let list = try await client.loadAllChannels()
                dispatch(r, .channelsLoaded(list))
            }
        } catch {
            guard let name = r.name else {
                dispatch(.failed("cannot connect: " + ErrorText.describe(error, .connect)))
                return
            }
            // One account of several: it stays off (its header says ○), named as the config names it.
            dispatch(.account(name: name, .connectionStateChanged(.closed)))
            let text = ErrorText.describe(error, .connect).replacingOccurrences(of: "TERN_TOKEN_COMMAND", with: "token_command")
            dispatch(.failed(name + ": cannot connect: " + text))
        }
    }

    /// While the first connection has not happened yet, says why and what tern does about it (it keeps
    /// trying): a server that is down or a wrong `TERN_SERVER` is not a silent countdown.
    func explainWaiting(_ client: ChatClient, _ r: AccountRoute) async {
        guard !everConnected.contains(r.name ?? ""), let e = await client.lastConnectionError else { return }
        guard let name = r.name else {
            dispatch(
                .failed(
                    "cannot reach the server at \(state.server) (\(e.message)): trying again — is it running? TERN_SERVER or --server says where it is"
                ))
            return
        }
        // Once per account: the others' screens are not taken over at every retry (its header's ◌ stays).
        guard waitExplained.insert(name).inserted else { return }
        let server = accounts.first { $0.name == name }?.server ?? ""
        dispatch(.failed("\(name): cannot reach the server at \(server) (\(e.message)): trying again — is it running? [[accounts]] says where"))
    }

    func markDirty(urgent: Bool = true) {
        dirty = true
        scheduleDraw(urgent: urgent)
    }

    /// A frame soon: after the work already queued (a burst of events makes one frame). What the user did or
    /// sees change (a key, the channel on screen) draws within 25 ms; news elsewhere (a badge, the hotlist)
    /// within 250 ms (a badge four times a second is live enough), so a burst of messages in other channels
    /// costs four frames a second.
    func scheduleDraw(urgent: Bool) {
        guard !done else { return }
        if urgent ? urgentDrawScheduled : (urgentDrawScheduled || drawScheduled) { return }
        if urgent { urgentDrawScheduled = true } else { drawScheduled = true }
        let interval: Duration = urgent ? .milliseconds(25) : .milliseconds(250)
        let since = ContinuousClock.now - lastDraw
        Task(executorPreference: client.home.tasks) {
            if since < interval {
                await self.client.home.sleep(for: interval - since)
            } else {
                await Task.yield()
            }
            await self.drawDue(urgent: urgent)
        }
    }

    /// A scheduled frame is due.
    func drawDue(urgent: Bool) {
        if urgent { urgentDrawScheduled = false } else { drawScheduled = false }
        draw()
    }

    /// Once a second while the screen shows a countdown (reconnecting in Ns).
    func scheduleTick() {
        guard !tickScheduled, !done else { return }
        guard case .reconnecting(_, let at?) = state.connection, at > SystemEngineClock().now() else { return }
        tickScheduled = true
        Task {
            try? await Task.sleep(for: .seconds(1))
            self.tickScheduled = false
            self.markDirty()
        }
    }

    /// The user's push preferences as alert rules; each channel's own trigger option too.
    func loadNotificationRules(_ client: ChatClient, _ r: AccountRoute) async {
        guard let p = try? await client.pushPreferences() else { return }
        // Several accounts: the first account's rules, every account's channels' triggers.
        guard r.name == accounts.first?.name else {
            for channel in state.channels where AccountKey.account(of: channel.url) == r.name {
                if let t = try? await client.pushTrigger(in: r.url(channel.url)), t != "default" {
                    state.notificationRules.channelTriggers[channel.url] = t
                }
            }
            return
        }
        var rules = NotificationRules()
        rules.triggerOption = p.pushTriggerOption ?? "all"
        rules.doNotDisturb = p.doNotDisturb ?? false
        rules.startHour = p.startHour ?? 0
        rules.startMinute = p.startMin ?? 0
        rules.endHour = p.endHour ?? 0
        rules.endMinute = p.endMin ?? 0
        rules.timeZone = p.timezone ?? "UTC"
        rules.snoozeEnabled = p.snoozeEnabled ?? false
        rules.snoozeStart = p.snoozeStartTs ?? 0
        rules.snoozeEnd = p.snoozeEndTs ?? 0
        for channel in state.channels where AccountKey.account(of: channel.url) == r.name {
            if let t = try? await client.pushTrigger(in: r.url(channel.url)), t != "default" { rules.channelTriggers[channel.url] = t }
        }
        rules.channelTriggers.merge(state.notificationRules.channelTriggers) { mine, _ in mine }
        dispatch(.notificationRulesLoaded(rules))
    }

    /// A channel's history through its message collection: a first load starts a new collection
    /// (the cache at once, also offline, then the server's page replaces it); older pages come from
    /// the collection (the cache when it holds them, else the server). Open channels are not cached.
    func loadHistory(_ key: String, before: Millis?) async {
        // The engine's URL; the app's key (with several accounts, they differ).
        let (client, r) = route(forKey: key)
        let url = r.url(key)
        if await client.isOpenChannel(url) {
            do {
                dispatch(
                    r, .historyLoaded(url: url, page: try await client.previousMessages(in: url, before: before, limit: 50), replace: before == nil))
            } catch {
                dispatch(r, .historyFailed(url: url, error: Self.describe(error)))
            }
            return
        }
        if before == nil || collections[key] == nil {
            await collections.removeValue(forKey: key)?.dispose()
            let collection = await client.messageCollection(url, limit: 50, window: reducer.scrollback)
            // Another load may have started one meanwhile: the newest wins, the one it replaces is let go.
            if let replaced = collections.updateValue(collection, forKey: key) { await replaced.dispose() }
            var shown = false
            do {
                let page = try await collection.start { cached in await self.cacheShown(r, url, cached, from: collection, key: key) }
                shown = true
                // A collection replaced while it started (the channel opened again, a huge gap) says nothing:
                // its page would replace what the newer one shows, and what was paged back since.
                guard collections[key] === collection else { return }
                dispatch(r, .historyLoaded(url: url, page: MessagePage(messages: page, hasPrevious: await collection.hasPrevious), replace: true))
            } catch let e as SendbirdError where e.code == .connectionRequired {
                // Offline with the cache on screen: the catch-up after login fills it in.
                if !shown, collections[key] === collection {
                    dispatch(r, .historyLoaded(url: url, page: MessagePage(messages: [], hasPrevious: true), replace: false))
                }
            } catch {
                // A replaced collection's failure (disposed, or overtaken) is not the screen's.
                if collections[key] === collection { dispatch(r, .historyFailed(url: url, error: Self.describe(error))) }
            }
            if before == nil { return }
        }
        guard let collection = collections[key] else { return }
        // The screen pages back from somewhere else than the collection holds (a jump to a search
        // result): read before that point directly.
        if let before, await collection.succeededMessages.first?.createdAt != before {
            do {
                dispatch(r, .historyLoaded(url: url, page: try await client.previousMessages(in: url, before: before, limit: 50), replace: false))
            } catch {
                dispatch(r, .historyFailed(url: url, error: Self.describe(error)))
            }
            return
        }
        do {
            let older = try await collection.loadPrevious()
            guard collections[key] === collection else { return }
            dispatch(r, .historyLoaded(url: url, page: MessagePage(messages: older, hasPrevious: await collection.hasPrevious), replace: false))
        } catch {
            if collections[key] === collection { dispatch(r, .historyFailed(url: url, error: Self.describe(error))) }
        }
    }

    func cacheShown(_ r: AccountRoute, _ url: String, _ page: MessagePage, from collection: MessageCollection, key: String) {
        guard collections[key] === collection else { return }
        dispatch(r, .historyLoaded(url: url, page: page, replace: true))
    }

    func uploadProgress(path: String, sent: Int64, total: Int64) {
        guard let id = uploadIds[path] else { return }
        dispatch(.uploadProgress(requestId: id, sent: sent, total: total))
    }

    func resized() {
        let (w, h) = surface.size()
        dispatch(.resized(width: w, height: h))
    }

    func draw() {
        guard dirty, !done else { return }
        dirty = false
        lastDraw = ContinuousClock.now
        let (w, h) = surface.size()
        surface.present(screen.render(state, width: w, height: h, now: SystemEngineClock().now()))
        let t = Screen.title(state)
        if t != title {
            title = t
            surface.setTitle(t)
        }
        scheduleTick()
    }

    func dispatch(_ action: Action) {
        changed(urgent: reduce(action))
    }

    /// One action through the reducer, and its effects; whether it changed what the user looks at
    /// (``changed(urgent:)`` follows, once for several actions).
    func reduce(_ action: Action) -> Bool {
        switch action {
        case .event(.channelDeleted(let url)), .event(.channelRemoved(let url, _)):
            if let c = collections.removeValue(forKey: url) { Task { await c.dispose() } }
        default:
            break
        }
        if case .event(let e) = action { logEvent(e) }
        // Only the user's commands change settings: an engine's event (most actions, one per incoming
        // line) skips the copy and comparison of them.
        let before: Settings?
        switch action {
        case .event, .account: before = nil
        default: before = state.settings
        }
        let effects = reducer.reduce(&state, action)
        if let before, state.settings != before { settingsChanged(from: before) }
        // Only the two fields it needs: passing the whole state copied it (every field retained) per event.
        let urgent = Self.isUrgent(action, selected: state.selected, threadParent: state.thread?.parent.messageId)
        for e in effects { perform(e) }
        return urgent
    }

    /// After actions: a frame (soon when `urgent`), the spelling dictionaries when the input line first
    /// has text (several MB a reader never needs), pictures to fetch, the layout to save.
    func changed(urgent: Bool) {
        if !spellingRequested, !state.input.isEmpty { loadSpelling() }
        markDirty(urgent: urgent)
        askPreviews()
        saveLayout()
    }

    /// A setting changed (`/set`): the key map, the mouse.
    func settingsChanged(from old: Settings) {
        let s = state.settings
        if s.keymap != old.keymap || s.keys != old.keys || s.normalKeys != old.normalKeys {
            do {
                let table = try s.keyTable()
                reducer.keys = table
                reducer.layout.keys = table
                screen.keys = table
            } catch {
                state.settings = old
                state.notice = "\(error)"
            }
        }
        if s.mouse != old.mouse { surface.setMouse(s.mouse) }
        if s.images != old.images { graphicsChanged() }
        if s.timestampFormat != old.timestampFormat { screen.timestampFormat = s.timestampFormat }
        if s.spell != old.spell { loadSpelling() }
    }

    /// `/theme NAME`: the theme at once.
    func applyTheme(_ name: String) {
        do {
            let t = try Theme.named(name, themesDirectory: themesDirectory)
            screen.theme = noColor ? t.withoutColor() : t
            state.settings.theme = name
            state.notice = "theme \(name) · /save keeps it"
            surface.redrawAll()
        } catch {
            state.notice = "\(error)"
        }
        markDirty()
    }

    /// `/save`.
    func save(_ settings: Settings) {
        guard let path = configPath else {
            state.notice = "no config file to save to"
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try settings.toml().write(toFile: path, atomically: true, encoding: .utf8)
            state.notice = "saved to \(path)"
        } catch {
            state.notice = "cannot save \(path): \(error.localizedDescription)"
        }
        markDirty()
    }

    /// Ctrl-X Ctrl-E: the draft in `$VISUAL` / `$EDITOR` (else vi), in a private temporary file.
    func editDraft(_ text: String) async {
        let path = NSTemporaryDirectory() + "tern-draft-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).md"
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            dispatch(.editorFinished(nil))
            return
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        let status = await surface.runInTerminal(["/bin/sh", "-c", "${VISUAL:-${EDITOR:-vi}} \"$1\"", "sh", path])
        surface.redrawAll()
        guard status == 0, let data = FileManager.default.contents(atPath: path) else {
            dispatch(.editorFinished(nil))
            return
        }
        dispatch(.editorFinished(String(decoding: data, as: UTF8.self)))
    }

    /// `/whois`: nickname and id, presence, when last seen, metadata.
    nonisolated static func whoisLine(_ p: UserProfile, now: Millis) -> String {
        var parts = [p.user.nickname.isEmpty ? p.user.userId : "\(p.user.nickname) (\(p.user.userId))"]
        if !p.isActive { parts.append("deactivated") }
        if p.isOnline {
            parts.append("online")
        } else if p.lastSeenAt > 0 {
            let minutes = max(0, (now - p.lastSeenAt) / 60_000)
            parts.append(minutes < 1 ? "seen just now" : minutes < 120 ? "seen \(minutes) min ago" : "seen \(minutes / 60) h ago")
        } else {
            parts.append("never seen")
        }
        if !p.metadata.isEmpty { parts.append(p.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")) }
        return parts.joined(separator: " · ")
    }

    /// The rows of a people list.
    func loadPeople(_ kind: PeopleView.Kind, query: String, _ client: ChatClient) async throws -> [PeopleView.Row] {
        let now = SystemEngineClock().now()
        func until(_ r: Restriction) -> String {
            var d = r.endAt < 0 ? "for ever" : "until " + Self.clockText(r.endAt)
            if !r.description.isEmpty { d += " · " + r.description }
            return d
        }
        switch kind {
        case .members(let url):
            var p = MemberListParams()
            p.order = .operatorsFirst
            return try await client.members(in: url, p).map {
                PeopleView.Row(
                    user: $0.user, online: $0.isOnline, isOperator: $0.isOperator, isMuted: $0.isMuted,
                    detail: $0.state == "invited" ? "invited" : "")
            }
        case .participants(let url):
            let ops = Set((await client.enteredOpenChannels.first { $0.url == url }?.operators ?? []).map(\.userId))
            return try await client.participants(in: url, limit: 100).users.map {
                PeopleView.Row(user: $0, online: true, isOperator: ops.contains($0.userId))
            }
        case .operators(let url):
            return try await client.operators(in: url).map { PeopleView.Row(user: $0, isOperator: true) }
        case .banned(let url):
            return try await client.bannedUsers(in: url).map { PeopleView.Row(user: $0.user, detail: "banned " + until($0)) }
        case .muted(let url):
            return try await client.mutedUsers(in: url).map { PeopleView.Row(user: $0.user, isMuted: true, detail: until($0)) }
        case .users:
            return try await client.users(Reducer.userFilter(query)).users.map { p in
                let seen = p.isOnline || p.lastSeenAt == 0 ? "" : "seen \(max(0, (now - p.lastSeenAt) / 60_000)) min ago"
                return PeopleView.Row(user: p.user, online: p.isOnline, detail: p.isActive ? seen : "deactivated")
            }
        }
    }

    nonisolated static func clockText(_ ms: Millis) -> String {
        TimeFormat("HH:mm", zone: .system).string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }

    /// An error in words (``ErrorText``).
    nonisolated static func describe(_ error: any Error, _ context: ErrorText.Context = .general) -> String {
        ErrorText.describe(error, context)
    }

    /// The current state (tests).
    public var current: AppState { state }
}
