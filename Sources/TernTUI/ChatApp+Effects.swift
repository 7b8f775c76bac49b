import Foundation
import TernKit
import TernProtocol

/// The effects the reducer returns, run.
extension ChatApp {
    /// Runs an effect the reducer asked for: on the screen and the terminal, or through the engine
    /// (`ChatClient`), whose answers come back as actions.
    func perform(_ effect: Effect) {
        // Exhaustive: a new effect does not compile until it has a place here.
        switch effect {
        case .alert, .externalEditor, .openLog, .openFile, .openURL, .copy, .applyTheme, .saveSettings, .redraw, .quit:
            performOnScreen(effect)
        case .loadEmojis, .send, .sendMessage, .editMessage, .deleteMessage, .react, .openThread, .searchMessages,
            .jump, .upload, .cancelUpload, .download:
            performForMessages(effect)
        case .openDirect, .createGroup, .loadHistory, .view, .unview, .show, .typing, .channel, .joinPublic, .block,
            .unblock, .listBlocked, .markAllRead, .setAutoAccept:
            performForChannels(effect)
        case .browse, .enterOpen, .createOpen, .exitOpen:
            performForOpenChannels(effect)
        case .people, .loadPane, .moderate, .report, .whois, .nick:
            performForPeople(effect)
        }
    }

    /// The terminal and the app: alerts, the editor, opening files, themes, settings, redraw, quit.
    func performOnScreen(_ effect: Effect) {
        switch effect {
        case .alert(let title, let body):
            // The terminal raises it with the next frame (`dispatch` has asked for one).
            surface.alert(title: title, body: body, styles: state.settings.notifyStyle)
        case .externalEditor(let text):
            Task { await self.editDraft(text) }
        case .openLog(let url):
            Task { await self.openLog(url) }
        case .openFile(let m):
            Task { await self.openFile(m) }
        case .openURL(let url):
            openURL(url)
        case .copy(let text):
            surface.copy(text)
        case .applyTheme(let name):
            applyTheme(name)
        case .saveSettings(let s):
            save(s)
        case .redraw:
            surface.redrawAll()
        case .quit:
            done = true
            finished?.resume()
            finished = nil
        default:
            assertionFailure("perform(_:) sent \(effect) to the wrong place")
        }
    }

    /// Messages: sending, editing, deleting, reactions, threads, search, files, emojis.
    func performForMessages(_ effect: Effect) {
        let (client, r, effect) = route(effect)
        switch effect {
        case .loadEmojis:
            Task {
                do { self.dispatch(r, .emojisLoaded(try await client.emojiKeys())) } catch {
                    self.dispatch(r, .failed("emojis: " + Self.describe(error)))
                }
            }
        case .send(let text, let url):
            Task { await client.sendMessage(text, to: url) }
        case .sendMessage(let params, let url):
            Task { await client.sendMessage(params, to: url) }
        case .editMessage(let m, let text):
            Task {
                do { try await client.updateMessage(m, MessageUpdateParams(text: text)) } catch {
                    self.dispatch(r, .failed("edit: " + Self.describe(error)))
                }
            }
        case .deleteMessage(let m):
            Task {
                do { try await client.deleteMessage(m) } catch { self.dispatch(r, .failed("delete: " + Self.describe(error))) }
            }
        case .react(let m, let key, let add):
            Task {
                do {
                    if add { try await client.addReaction(m, key: key) } else { try await client.deleteReaction(m, key: key) }
                } catch {
                    self.dispatch(r, .failed("reaction: " + Self.describe(error)))
                }
            }
        case .openThread(let parent):
            Task {
                do { self.dispatch(r, .threadLoaded(try await client.thread(of: parent))) } catch {
                    self.dispatch(r, .failed("thread: " + Self.describe(error)))
                }
            }
        case .searchMessages(let query):
            Task { await self.search(query, client, r) }
        case .jump(let m):
            Task {
                do {
                    let page = try await client.messages(around: m)
                    self.dispatch(r, .jumped(url: m.channelUrl, page: page, messageId: m.messageId))
                } catch {
                    self.dispatch(r, .failed("jump: " + Self.describe(error)))
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
                    self.dispatch(r, .uploadStarted(requestId: requestId, Upload(channelUrl: url, name: name)))
                } catch {
                    self.dispatch(r, .failed("\(name): " + Self.describe(error, .upload(name))))
                }
            }
        case .cancelUpload(let requestId):
            Task {
                var cancelled = false
                for (client, _) in self.engines where !cancelled { cancelled = await client.cancelUpload(requestId) }
                if cancelled {
                    self.dispatch(r, .uploadFinished(requestId: requestId, error: "cancelled"))
                } else {
                    self.dispatch(r, .notice("nothing to cancel: the upload had finished"))
                }
            }
        case .download(let m, let directory):
            Task {
                do {
                    let dir = directory.isEmpty ? FileManager.default.currentDirectoryPath : directory
                    let paths = try await client.download(m, to: dir)
                    self.dispatch(r, .notice("saved " + paths.joined(separator: ", ")))
                } catch {
                    self.dispatch(r, .failed("download: " + Self.describe(error)))
                }
            }
        default:
            assertionFailure("perform(_:) sent \(effect) to the wrong place")
        }
    }

    /// Group channels: opening, creating, history, reading, typing, membership, blocking, read-all.
    func performForChannels(_ effect: Effect) {
        let (client, r, effect) = route(effect)
        switch effect {
        case .openDirect(let user):
            Task {
                do { self.dispatch(r, .opened(try await client.directChannel(with: user))) } catch {
                    self.dispatch(r, .failed(Self.describe(error, .user(user))))
                }
            }
        case .createGroup(let name, let users, let isPublic):
            Task {
                do { self.dispatch(r, .opened(try await client.createGroupChannel(name: name, userIds: users, isPublic: isPublic))) } catch {
                    self.dispatch(r, .failed(Self.describe(error)))
                }
            }
        case .loadHistory(let url, let before):
            Task { await self.loadHistory(r.key(url), before: before) }
        // Calls into the engine alone start on its loop: a task that touches neither the app nor the loop's
        // executor starts on Swift's cooperative pool, which wakes a thread of its own (once per key typed).
        case .view(let url):
            Task(executorPreference: client.home.tasks) { await client.openChannel(url) }
        case .unview(let url):
            Task(executorPreference: client.home.tasks) { await client.closeChannel(url) }
        case .show(let url):
            Task(executorPreference: client.home.tasks) { await client.showChannel(url) }
        case .typing(let url, let started):
            Task(executorPreference: client.home.tasks) { if started { await client.startTyping(url) } else { await client.endTyping(url) } }
        case .channel(let command, let url):
            Task {
                do { try await self.run(command, in: url, client, r) } catch { self.dispatch(r, .failed(Self.describe(error))) }
            }
        case .joinPublic(let name):
            Task {
                do {
                    let found = try await client.publicChannels(nameContains: name, limit: 100)
                    guard let target = found.first(where: { $0.url == name || $0.name == name }) ?? (found.count == 1 ? found.first : nil) else {
                        let names = found.prefix(5).map(\.name).joined(separator: ", ")
                        self.dispatch(r, .failed(found.isEmpty ? "no public channel named \(name)" : "several match: \(names)"))
                        return
                    }
                    self.dispatch(r, .opened(try await client.join(target.url)))
                } catch {
                    self.dispatch(r, .failed(Self.describe(error, .channel(name))))
                }
            }
        case .block(let user):
            Task {
                do { try await client.blockUser(user) } catch { self.dispatch(r, .failed(Self.describe(error, .user(user)))) }
            }
        case .unblock(let user):
            Task {
                do { try await client.unblockUser(user) } catch { self.dispatch(r, .failed(Self.describe(error, .user(user)))) }
            }
        case .listBlocked:
            Task {
                do {
                    let page = try await client.blockedUsers()
                    let names = page.users.map(\.displayName)
                    let more = page.next == nil ? "" : " …"
                    self.dispatch(r, .notice(names.isEmpty ? "you block nobody" : "blocked: " + names.joined(separator: ", ") + more))
                } catch {
                    self.dispatch(r, .failed(Self.describe(error)))
                }
            }
        case .markAllRead:
            Task {
                do {
                    for (client, _) in self.engines { try await client.markAllAsRead() }
                    self.dispatch(r, .notice("all channels marked read"))
                } catch {
                    self.dispatch(r, .failed(Self.describe(error)))
                }
            }
        case .setAutoAccept(let on):
            Task {
                do {
                    try await client.setInvitationAutoAccept(on)
                    self.dispatch(r, .notice(on ? "invitations now join you at once" : "invitations now wait for /accept or /decline"))
                } catch {
                    self.dispatch(r, .failed(Self.describe(error)))
                }
            }
        default:
            assertionFailure("perform(_:) sent \(effect) to the wrong place")
        }
    }

    /// A channel command (/invite, /accept, /leave, /freeze, /rename…) through the engine; what it did, as a notice
    /// or the channel opened.
    func run(_ command: ChannelCommand, in url: String, _ client: ChatClient, _ r: AccountRoute) async throws {
        switch command {
        case .invite(let users):
            let c = try await client.invite(users, to: url)
            self.dispatch(r, .notice("invited \(users.joined(separator: ", ")) to #\(c.title(me: self.state.me(for: r.key(url)).userId))"))
        case .accept: self.dispatch(r, .opened(try await client.acceptInvitation(url)))
        case .join: self.dispatch(r, .opened(try await client.join(url)))
        case .unhide: self.dispatch(r, .opened(try await client.unhide(url)))
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
            self.dispatch(r, .notice("#\(c.title(me: self.state.me(for: r.key(url)).userId)) \(what[p] ?? p.rawValue)"))
        }
    }

    /// Open channels: browsing, entering, creating, leaving.
    func performForOpenChannels(_ effect: Effect) {
        let (client, r, effect) = route(effect)
        switch effect {
        case .browse(let kind, let query):
            let (name, customType) = Browser.terms(query)
            Task {
                do {
                    let found: [GroupChannel]
                    switch kind {
                    case .openChannels:
                        let page = try await client.openChannelList(
                            nameContains: name, customTypes: customType.isEmpty ? [] : [customType], limit: 100)
                        self.dispatch(r, .openBrowserResults(query: query, page.channels))
                        return
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
                    self.dispatch(r, .browserResults(kind: kind, query: query, found))
                } catch {
                    self.dispatch(r, .failed(Self.describe(error)))
                }
            }
        case .enterOpen(let name):
            Task {
                do {
                    var url = name
                    if await !client.isOpenChannel(name) {
                        // A name: the channel with that name (or URL), or the only one whose name contains it.
                        let found = try await client.openChannelList(nameContains: name, limit: 100).channels
                        if let exact = found.first(where: { $0.url == name || $0.name == name }) ?? (found.count == 1 ? found.first : nil) {
                            url = exact.url
                        } else if !found.isEmpty {
                            self.dispatch(r, .failed("several open channels match: " + found.prefix(5).map(\.displayName).joined(separator: ", ")))
                            return
                        }
                    }
                    try await client.enterOpenChannel(url)
                } catch {
                    self.dispatch(r, .failed("enter: " + Self.describe(error, .channel(name))))
                }
            }
        case .createOpen(let name):
            Task {
                do {
                    let c = try await client.createOpenChannel(name: name)
                    try await client.enterOpenChannel(c.url)
                } catch {
                    self.dispatch(r, .failed("create: " + Self.describe(error)))
                }
            }
        case .exitOpen(let url):
            Task {
                do { try await client.exitOpenChannel(url) } catch { self.dispatch(r, .failed("exit: " + Self.describe(error))) }
            }
        default:
            assertionFailure("perform(_:) sent \(effect) to the wrong place")
        }
    }

    /// People lists, moderation, reports, profiles.
    func performForPeople(_ effect: Effect) {
        let (client, r, effect) = route(effect)
        switch effect {
        case .people(let kind, let query):
            Task {
                do { self.dispatch(r, .peopleLoaded(kind, query: query, try await self.loadPeople(kind, query: query, client))) } catch {
                    self.dispatch(r, .peopleLoaded(kind, query: query, []))
                    self.dispatch(r, .failed(Self.describe(error)))
                }
            }
        case .loadPane(let url):
            Task {
                if let rows = try? await self.loadPeople(.participants(url), query: "", client) { self.dispatch(r, .paneLoaded(url: url, rows)) }
            }
        case .moderate(let m, let url):
            Task {
                do {
                    switch m {
                    case .op(let u): try await client.addOperators([u], in: url)
                    case .deop(let u): try await client.removeOperators([u], in: url)
                    case .ban(let u, let seconds, let reason): try await client.ban(u, in: url, seconds: seconds, description: reason)
                    case .unban(let u): try await client.unban(u, in: url)
                    case .mute(let u, let seconds, let reason): try await client.mute(u, in: url, seconds: seconds, description: reason)
                    case .unmute(let u): try await client.unmute(u, in: url)
                    }
                } catch {
                    self.dispatch(r, .failed(Self.describe(error)))
                }
            }
        case .report(let target, let category, let description):
            Task {
                do {
                    switch target {
                    case .channel(let url): try await client.report(channel: url, category: category, description: description)
                    case .user(let u, let url): try await client.report(userId: u, in: url, category: category, description: description)
                    case .message(let m): try await client.report(message: m, category: category, description: description)
                    }
                    self.dispatch(r, .notice("reported (\(category.rawValue)): thank you"))
                } catch {
                    self.dispatch(r, .failed("report: " + Self.describe(error)))
                }
            }
        case .whois(let id):
            Task {
                do { self.dispatch(r, .notice(Self.whoisLine(try await client.user(id), now: SystemEngineClock().now()))) } catch {
                    self.dispatch(r, .failed("whois: " + Self.describe(error, .user(id))))
                }
            }
        case .nick(let name):
            Task {
                do {
                    let p = try await client.updateMe(nickname: name)
                    self.dispatch(r, .notice("you are now \(p.user.displayName)"))
                } catch {
                    self.dispatch(r, .failed("nick: " + Self.describe(error)))
                }
            }
        default:
            assertionFailure("perform(_:) sent \(effect) to the wrong place")
        }
    }
}
