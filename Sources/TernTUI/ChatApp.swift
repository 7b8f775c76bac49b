import Foundation
import TernKit
import TernProtocol

/// Input from the terminal.
public enum TerminalInput: Sendable, Equatable {
    case key(Key)
    case paste(String)
    case resize
}

/// The terminal as the app sees it: a size, a stream of input, and a place to put frames. The
/// curses adapter implements it; tests can implement it in memory.
public protocol TerminalSurface: AnyObject, Sendable {
    var inputs: AsyncStream<TerminalInput> { get }
    /// Shows a frame (the adapter writes only what changed since the last one).
    func present(_ grid: CellGrid)
    func size() -> (width: Int, height: Int)
}

/// Runs the client: engine events and keys go through the reducer; effects go to the engine;
/// the screen is redrawn at most once per frame (~30/s), and once a second for countdowns.
public actor ChatApp {
    let client: ChatClient
    let surface: any TerminalSurface
    let screen: Screen
    let reducer: Reducer
    var state: AppState
    var dirty = true
    var finished: CheckedContinuation<Void, Never>?
    var done = false
    /// Uploads by file path → request id, for their progress.
    var uploadIds: [String: String] = [:]

    public init(client: ChatClient, surface: any TerminalSurface, screen: Screen, user: String, server: String) {
        self.client = client
        self.surface = surface
        self.screen = screen
        reducer = Reducer(keys: screen.keys, timeZone: screen.timeZone)
        state = AppState(me: User(userId: user), server: server)
    }

    /// Runs until the user quits.
    public func run() async {
        let events = client.events()
        let inputs = surface.inputs
        let tasks = [
            Task { for await e in events { await self.dispatch(.event(e)) } },
            Task {
                for await i in inputs {
                    switch i {
                    case .key(let k): await self.dispatch(.key(k))
                    case .paste(let s): await self.dispatch(.paste(s))
                    case .resize: await self.resized()
                    }
                }
            },
            Task {
                var last = Date()
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(33))
                    if Date().timeIntervalSince(last) >= 1 {
                        last = Date()
                        await self.markDirty()
                    }
                    await self.draw()
                }
            },
        ]
        resized()
        Task { await self.start() }
        await withCheckedContinuation { cont in
            if done { cont.resume() } else { finished = cont }
        }
        for t in tasks { t.cancel() }
        await client.shutdown()
    }

    func start() async {
        do {
            try await client.connect()
            let list = try await client.loadAllChannels()
            dispatch(.channelsLoaded(list))
        } catch let e as SendbirdError {
            dispatch(.failed("cannot connect: \(e.code.rawValue) \(e.message)"))
        } catch {
            dispatch(.failed("cannot connect: \(error)"))
        }
    }

    func markDirty() { dirty = true }

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
        let (w, h) = surface.size()
        surface.present(screen.render(state, width: w, height: h, now: SystemEngineClock().now()))
    }

    func dispatch(_ action: Action) {
        let effects = reducer.reduce(&state, action)
        dirty = true
        for e in effects { perform(e) }
    }

    func perform(_ effect: Effect) {
        let client = self.client
        switch effect {
        case .send(let text, let url):
            Task { await client.sendMessage(text, to: url) }
        case .sendMessage(let params, let url):
            Task { await client.sendMessage(params, to: url) }
        case .editMessage(let m, let text):
            Task {
                do { try await client.updateMessage(m, MessageUpdateParams(text: text)) } catch { self.dispatch(.failed("edit: " + Self.describe(error))) }
            }
        case .deleteMessage(let m):
            Task {
                do { try await client.deleteMessage(m) } catch { self.dispatch(.failed("delete: " + Self.describe(error))) }
            }
        case .react(let m, let key, let add):
            Task {
                do {
                    if add { try await client.addReaction(m, key: key) } else { try await client.deleteReaction(m, key: key) }
                } catch {
                    self.dispatch(.failed("reaction: " + Self.describe(error)))
                }
            }
        case .openThread(let parent):
            Task {
                do { self.dispatch(.threadLoaded(try await client.thread(of: parent))) } catch { self.dispatch(.failed("thread: " + Self.describe(error))) }
            }
        case .searchMessages(let query):
            Task {
                do {
                    var q = MessageSearchQuery(keyword: query)
                    q.limit = 50
                    q.order = .timestamp
                    q.reverse = true
                    q.advanced = MessageSearchQuery.looksAdvanced(query)
                    let r = try await client.searchMessages(q)
                    self.dispatch(.searchResults(query: query, r.messages, hasMore: r.hasNext))
                } catch {
                    self.dispatch(.searchResults(query: query, [], hasMore: false))
                    self.dispatch(.failed("search: " + Self.describe(error)))
                }
            }
        case .jump(let m):
            Task {
                do {
                    let page = try await client.messages(around: m)
                    self.dispatch(.jumped(url: m.channelUrl, page: page, messageId: m.messageId))
                } catch {
                    self.dispatch(.failed("jump: " + Self.describe(error)))
                }
            }
        case .upload(let path, let url):
            Task {
                let name = (path as NSString).lastPathComponent
                do {
                    let requestId = try await client.sendFile(path: path, to: url) { sent, total in
                        Task { await self.uploadProgress(path: path, sent: sent, total: total) }
                    }
                    self.uploadIds[path] = requestId
                    self.dispatch(.uploadStarted(requestId: requestId, Upload(channelUrl: url, name: name)))
                } catch {
                    self.dispatch(.failed("\(name): " + Self.describe(error)))
                }
            }
        case .cancelUpload(let requestId):
            Task {
                if await client.cancelUpload(requestId) {
                    self.dispatch(.uploadFinished(requestId: requestId, error: "cancelled"))
                } else {
                    self.dispatch(.notice("nothing to cancel: the upload had finished"))
                }
            }
        case .download(let m, let directory):
            Task {
                do {
                    let dir = directory.isEmpty ? FileManager.default.currentDirectoryPath : directory
                    let paths = try await client.download(m, to: dir)
                    self.dispatch(.notice("saved " + paths.joined(separator: ", ")))
                } catch {
                    self.dispatch(.failed("download: " + Self.describe(error)))
                }
            }
        case .openDirect(let user):
            Task {
                do { self.dispatch(.opened(try await client.directChannel(with: user))) } catch { self.dispatch(.failed(Self.describe(error))) }
            }
        case .createGroup(let name, let users):
            Task {
                do { self.dispatch(.opened(try await client.createGroupChannel(name: name, userIds: users))) } catch {
                    self.dispatch(.failed(Self.describe(error)))
                }
            }
        case .loadHistory(let url, let before):
            Task {
                do {
                    let page = try await client.previousMessages(in: url, before: before, limit: 50)
                    self.dispatch(.historyLoaded(url: url, page: page, replace: before == nil))
                } catch {
                    self.dispatch(.historyFailed(url: url, error: Self.describe(error)))
                }
            }
        case .view(let url):
            Task { await client.openChannel(url) }
        case .unview(let url):
            Task { await client.closeChannel(url) }
        case .typing(let url, let started):
            Task { if started { await client.startTyping(url) } else { await client.endTyping(url) } }
        case .channel(let command, let url):
            Task {
                do {
                    switch command {
                    case .invite(let users):
                        let c = try await client.invite(users, to: url)
                        self.dispatch(.notice("invited \(users.joined(separator: ", ")) to #\(c.displayName(me: self.state.me.userId))"))
                    case .accept: self.dispatch(.opened(try await client.acceptInvitation(url)))
                    case .join: self.dispatch(.opened(try await client.join(url)))
                    case .unhide: self.dispatch(.opened(try await client.unhide(url)))
                    case .decline: try await client.declineInvitation(url)
                    case .leave: try await client.leave(url)
                    case .hide: try await client.hide(url, allowAutoUnhide: true)
                    case .archive: try await client.hide(url, allowAutoUnhide: false)
                    case .freeze: _ = try await client.setFrozen(url, true)
                    case .unfreeze: _ = try await client.setFrozen(url, false)
                    case .rename(let name): _ = try await client.updateChannel(url, name: name)
                    case .countPreference(let p):
                        let c = try await client.setCountPreference(p, in: url)
                        let what: [CountPreference: String] = [
                            .all: "counts messages and mentions", .messagesOnly: "counts messages only",
                            .mentionsOnly: "counts mentions only", .off: "counts nothing",
                        ]
                        self.dispatch(.notice("#\(c.displayName(me: self.state.me.userId)) \(what[p] ?? p.rawValue)"))
                    }
                } catch {
                    self.dispatch(.failed(Self.describe(error)))
                }
            }
        case .joinPublic(let name):
            Task {
                do {
                    let found = try await client.publicChannels(nameContains: name, limit: 100)
                    guard let target = found.first(where: { $0.url == name || $0.name == name }) ?? (found.count == 1 ? found.first : nil) else {
                        let names = found.prefix(5).map(\.name).joined(separator: ", ")
                        self.dispatch(.failed(found.isEmpty ? "no public channel named \(name)" : "several match: \(names)"))
                        return
                    }
                    self.dispatch(.opened(try await client.join(target.url)))
                } catch {
                    self.dispatch(.failed(Self.describe(error)))
                }
            }
        case .block(let user):
            Task {
                do { try await client.blockUser(user) } catch { self.dispatch(.failed(Self.describe(error))) }
            }
        case .unblock(let user):
            Task {
                do { try await client.unblockUser(user) } catch { self.dispatch(.failed(Self.describe(error))) }
            }
        case .listBlocked:
            Task {
                do {
                    let page = try await client.blockedUsers()
                    let names = page.users.map(\.displayName)
                    let more = page.next == nil ? "" : " …"
                    self.dispatch(.notice(names.isEmpty ? "you block nobody" : "blocked: " + names.joined(separator: ", ") + more))
                } catch {
                    self.dispatch(.failed(Self.describe(error)))
                }
            }
        case .markAllRead:
            Task {
                do {
                    try await client.markAllAsRead()
                    self.dispatch(.notice("all channels marked read"))
                } catch {
                    self.dispatch(.failed(Self.describe(error)))
                }
            }
        case .setAutoAccept(let on):
            Task {
                do {
                    try await client.setInvitationAutoAccept(on)
                    self.dispatch(.notice(on ? "invitations now join you at once" : "invitations now wait for /accept or /decline"))
                } catch {
                    self.dispatch(.failed(Self.describe(error)))
                }
            }
        case .browse(let kind, let query):
            let (name, customType) = Browser.terms(query)
            Task {
                do {
                    let found: [GroupChannel]
                    switch kind {
                    case .publicChannels:
                        found = try await client.publicChannels(nameContains: name, customType: customType, limit: 100)
                    case .hiddenChannels:
                        var params = GroupChannelListParams()
                        params.hidden = .hiddenOnly
                        params.limit = 100
                        params.nameContains = name
                        if !customType.isEmpty { params.customTypes = [customType] }
                        found = try await client.myChannels(params).channels
                    }
                    self.dispatch(.browserResults(kind: kind, query: query, found))
                } catch {
                    self.dispatch(.failed(Self.describe(error)))
                }
            }
        case .quit:
            done = true
            finished?.resume()
            finished = nil
        }
    }

    nonisolated static func describe(_ error: any Error) -> String {
        if let e = error as? SendbirdError { return "\(e.code.rawValue) \(e.message)" }
        return "\(error)"
    }

    /// The current state (tests).
    public var current: AppState { state }
}
