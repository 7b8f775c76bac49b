import Foundation
import TernKit

/// The slash commands' handlers (`SlashCommand.all` names them): each reads the words typed and returns the
/// effects to run, or says what went wrong in `state.notice`.
extension Reducer {
    /// A line starting with `/` (not `//`): the command it names, else "unknown command".
    func slashCommand(_ text: String, _ state: inout AppState) -> [Effect] {
        let words = text.dropFirst().split(separator: " ").map(String.init)
        guard let command = SlashCommand.named(words.first ?? "") else {
            state.notice = "unknown command /\(words.first ?? "") — /help lists them"
            return []
        }
        return command.run(self, SlashCommand.Invocation(words: words, text: text), &state)
    }

    func dmCommand(_ c: SlashCommand.Invocation, _ state: inout AppState) -> [Effect] {
        guard c.words.count == 2 else {
            state.notice = "usage: /dm USER"
            return []
        }
        return [.openDirect(userId: c.words[1])]
    }

    /// `/create -public NAME …` (or `/create-public`): a public channel anyone may find and join.
    func createCommand(_ c: SlashCommand.Invocation, _ state: inout AppState) -> [Effect] {
        var args = Array(c.words.dropFirst())
        var isPublic = c.words[0] == "create-public"
        if let flag = args.first, ["-public", "--public", "-p"].contains(flag) {
            isPublic = true
            args.removeFirst()
        }
        guard let name = args.first, !name.hasPrefix("-") else {
            state.notice = "usage: /create [-public] NAME [USER…] (private: members by invitation; -public: anyone may /join)"
            return []
        }
        return [.createGroup(name: name, userIds: Array(args.dropFirst()), isPublic: isPublic)]
    }

    /// `/join NAME` joins a public channel; `/join` alone (or `/browse`) opens the browser.
    func joinCommand(_ c: SlashCommand.Invocation, _ state: inout AppState) -> [Effect] {
        guard c.words[0] == "join", c.words.count > 1 else { return openBrowser(.publicChannels, &state) }
        guard c.words.count == 2 else {
            state.notice = "usage: /join [NAME] (a public channel's name or URL; alone: the browser)"
            return []
        }
        return [.joinPublic(c.words[1])]
    }

    func autoAcceptCommand(_ c: SlashCommand.Invocation, _ state: inout AppState) -> [Effect] {
        guard c.words.count == 2, let on = ["on": true, "off": false][c.words[1]] else {
            state.notice = "usage: /autoaccept on|off (on: invitations join you at once)"
            return []
        }
        return [.setAutoAccept(on)]
    }

    func blockCommand(_ c: SlashCommand.Invocation, _ state: inout AppState) -> [Effect] {
        guard c.words.count == 2 else {
            state.notice = "usage: /\(c.words[0]) USER"
            return []
        }
        return [c.words[0] == "block" ? .block(c.words[1]) : .unblock(c.words[1])]
    }

    func searchCommand(_ c: SlashCommand.Invocation, _ state: inout AppState) -> [Effect] {
        var v = SearchView()
        v.query = c.words.dropFirst().joined(separator: " ")
        state.search = v
        if v.query.isEmpty { return [] }
        state.search?.loading = true
        return [.searchMessages(query: v.query)]
    }

    func uploadCommand(_ c: SlashCommand.Invocation, _ state: inout AppState) -> [Effect] {
        guard let url = state.selected else {
            state.notice = "no channel: open one first"
            return []
        }
        let path = c.rest
        guard !path.isEmpty else {
            state.notice = "usage: /upload PATH (a file to send here)"
            return []
        }
        return [.upload(path: (path as NSString).expandingTildeInPath, channelUrl: url)]
    }

    func cancelCommand(_ state: inout AppState) -> [Effect] {
        guard let id = state.uploads.keys.sorted().last else {
            state.notice = "no upload to cancel"
            return []
        }
        return [.cancelUpload(requestId: id)]
    }

    func downloadCommand(_ c: SlashCommand.Invocation, _ state: inout AppState) -> [Effect] {
        guard let m = Self.visibleMessages(state).last(where: { !$0.files.isEmpty && $0.status == .succeeded }) else {
            state.notice = "no file here to download (Ctrl-R, then f, picks one)"
            return []
        }
        let dir = c.words.count > 1 ? (c.words[1] as NSString).expandingTildeInPath : ""
        return [.download(m, directory: dir)]
    }

    func editCommand(_ c: SlashCommand.Invocation, _ state: inout AppState) -> [Effect] {
        let body = c.rest
        guard let m = Self.visibleMessages(state).last(where: { $0.sender?.userId == state.me.userId && $0.status == .succeeded && $0.kind == .user })
        else {
            state.notice = "nothing of yours to edit here"
            return []
        }
        if body.isEmpty {
            state.editing = m
            state.input = Array(m.text)
            state.cursor = state.input.count
            return []
        }
        return [.editMessage(m, text: body)]
    }

    func deleteCommand(_ state: inout AppState) -> [Effect] {
        guard let m = Self.visibleMessages(state).last(where: { $0.sender?.userId == state.me.userId && $0.status == .succeeded }) else {
            state.notice = "nothing of yours to delete here"
            return []
        }
        var p = MessagePicker()
        let list = Self.pickable(state)
        p.index = list.count - 1 - (list.lastIndex { $0.messageId == m.messageId } ?? list.count - 1)
        p.confirmDelete = true
        state.picker = p
        state.notice = "delete your last message? y deletes, any other key keeps it"
        return []
    }

    func reactCommand(_ c: SlashCommand.Invocation, _ state: inout AppState) -> [Effect] {
        guard c.words.count == 2 else {
            // The server's emojis, read again (an operator may have added some since tern started).
            state.sheet = .emojis
            state.helpScroll = 0
            return c.words.count == 1 ? [.loadEmojis] : []
        }
        let key = c.words[1].trimmingCharacters(in: CharacterSet(charactersIn: ":"))
        let target = Self.picked(state) ?? Self.visibleMessages(state).last { $0.status == .succeeded && $0.kind != .admin }
        guard let m = target, !key.isEmpty else {
            state.notice = "no message to react to"
            return []
        }
        let mine = m.reactions.first { $0.key == key }?.userIds.contains(state.me.userId) ?? false
        return [.react(m, key: key, add: !mine)]
    }

    func replyCommand(_ c: SlashCommand.Invocation, _ state: inout AppState) -> [Effect] {
        guard
            let m = Self.visibleMessages(state).last(where: { $0.status == .succeeded && $0.sender?.userId != state.me.userId && $0.kind != .admin })
        else {
            state.notice = "no message to reply to (Ctrl-R, then r, picks one)"
            return []
        }
        state.replyingTo = m
        let rest = c.rest
        if !rest.isEmpty, let url = state.selected { return sendEffects(rest, url: url, &state) }
        return []
    }

    func threadCommand(_ state: inout AppState) -> [Effect] {
        guard
            let m = Self.visibleMessages(state).last(where: { $0.thread != nil })
                ?? Self.visibleMessages(state).last(where: { $0.status == .succeeded })
        else {
            state.notice = "no message here"
            return []
        }
        return openThread(m, &state)
    }

    func countCommand(_ c: SlashCommand.Invocation, _ state: inout AppState) -> [Effect] {
        let choices: [String: CountPreference] = ["all": .all, "messages": .messagesOnly, "mentions": .mentionsOnly, "off": .off]
        guard c.words.count == 2, let preference = choices[c.words[1]] else {
            state.notice = "usage: /count all|messages|mentions|off (what this channel's unread count counts)"
            return []
        }
        guard let url = state.selected else {
            state.notice = "no channel: open one first"
            return []
        }
        return [.channel(.countPreference(preference), channelUrl: url)]
    }

    func infoCommand(_ state: inout AppState) -> [Effect] {
        guard let url = state.selected else {
            state.notice = "no channel: open one first"
            return []
        }
        state.info = url
        return []
    }

    /// `/invite`, `/accept`, `/decline`, `/leave`, `/hide`, `/archive`, `/freeze`, `/unfreeze`, `/rename` on the
    /// channel on screen.
    func channelCommand(_ c: SlashCommand.Invocation, _ state: inout AppState) -> [Effect] {
        guard let url = state.selected else {
            state.notice = "no channel: open one first"
            return []
        }
        let command: ChannelCommand
        switch c.words[0] {
        case "invite":
            guard c.words.count >= 2 else {
                state.notice = "usage: /invite USER…"
                return []
            }
            command = .invite(Array(c.words.dropFirst()))
        case "rename":
            let name = c.text.dropFirst("/rename".count).trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else {
                state.notice = "usage: /rename NAME"
                return []
            }
            command = .rename(name)
        case "accept": command = .accept
        case "decline": command = .decline
        case "leave": command = .leave
        case "hide": command = .hide
        case "archive": command = .archive
        case "freeze": command = .freeze
        default: command = .unfreeze
        }
        return [.channel(command, channelUrl: url)]
    }

    func createOpenCommand(_ c: SlashCommand.Invocation, _ state: inout AppState) -> [Effect] {
        let name = c.text.dropFirst("/create-open".count).trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else {
            state.notice = "usage: /create-open NAME (an open channel you operate)"
            return []
        }
        return [.createOpen(name)]
    }

    func whoisCommand(_ c: SlashCommand.Invocation, _ state: inout AppState) -> [Effect] {
        guard c.words.count == 2 else {
            state.notice = "usage: /whois USER"
            return []
        }
        return [.whois(c.words[1].hasPrefix("@") ? String(c.words[1].dropFirst()) : c.words[1])]
    }

    func nickCommand(_ c: SlashCommand.Invocation, _ state: inout AppState) -> [Effect] {
        let name = c.text.dropFirst("/nick".count).trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else {
            state.notice = "usage: /nick NAME (at most 80 characters)"
            return []
        }
        return [.nick(name)]
    }

    func themeCommand(_ c: SlashCommand.Invocation, _ state: inout AppState) -> [Effect] {
        guard c.words.count == 2 else {
            state.notice = "usage: /theme NAME (\(themesAvailable().joined(separator: ", "))); now: \(state.settings.theme)"
            return []
        }
        return [.applyTheme(c.words[1])]
    }

    func notifyCommand(_ c: SlashCommand.Invocation, _ state: inout AppState) -> [Effect] {
        guard let url = state.selected, c.words.count == 2, ["all", "mentions", "none", "default"].contains(c.words[1]) else {
            state.notice = "usage: /notify all|mentions|none|default (this channel's alerts)"
            return []
        }
        let choice = c.words[1]
        // By the channel's URL on its server (config.toml's [channels."URL"]), not its key in tern.
        state.settings.channels[AccountKey.url(of: url)] = choice == "default" ? nil : Settings.ChannelSettings(notify: choice)
        state.notice =
            "\(Self.channelLabel(url, state)) alerts: \(choice == "default" ? state.settings.notify + " (the default)" : choice) · /save keeps it"
        return []
    }

    func goCommand(_ c: SlashCommand.Invocation, _ state: inout AppState) -> [Effect] {
        let query = c.words.dropFirst().joined(separator: " ")
        guard !query.isEmpty else {
            state.switcher = Switcher()
            return []
        }
        guard let best = Self.switcherMatches(query, state).first else {
            state.notice = "no channel matches \(query)"
            return []
        }
        return select(best.url, &state)
    }

    func helpCommand(_ state: inout AppState) -> [Effect] {
        state.showHelp = true
        state.sheet = nil
        state.helpScroll = 0
        return []
    }

    /// `/say TEXT`: TEXT sent as it is (irssi's `/say`): a message that starts with `/` or reads like a quick edit.
    func sayCommand(_ c: SlashCommand.Invocation, _ state: inout AppState) -> [Effect] {
        let text = c.rest
        guard !text.isEmpty else {
            state.notice = "/say TEXT sends TEXT as a message, as it is"
            return []
        }
        guard text.count <= Self.messageLimit else {
            state.notice = "too long: \(text.count) characters, the limit is \(Self.messageLimit) (nothing was sent)"
            return []
        }
        return send(text, &state)
    }
}
