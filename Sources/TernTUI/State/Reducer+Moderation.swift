import Foundation
public import TernKit

/// Open channels, people lists (members, participants, operators, banned, muted, users), operator commands
/// and reports.
extension Reducer {
    /// Every channel in list order: invitations, group channels, then open channels (with several accounts,
    /// account by account, as the list shows them; a folded account's channels are passed over).
    static func channelOrder(_ state: AppState) -> [String] {
        guard !state.accounts.isEmpty else { return state.channels.map(\.url) + state.openChannels.map(\.url) }
        return Screen.listRows(state).compactMap(\.url)
    }

    /// Every channel in its number's order (Alt-N, the hotlist, the switcher): the list's order with no
    /// account folded, so a channel keeps its number when an account is folded, and news in a folded
    /// account still shows in the hotlist and Alt-A.
    static func numberedOrder(_ state: AppState) -> [String] {
        guard state.accounts.contains(where: \.folded) else { return channelOrder(state) }
        var unfolded = state
        for i in unfolded.accounts.indices { unfolded.accounts[i].folded = false }
        return channelOrder(unfolded)
    }

    /// `#name` of a channel of either type.
    static func channelLabel(_ url: String, _ state: AppState) -> String {
        if let c = state.channels.first(where: { $0.url == url }) { return "#" + c.title(me: state.me(for: url).userId) }
        if let o = state.openChannels.first(where: { $0.url == url }) { return "#" + o.displayName }
        return "#" + AccountKey.url(of: url)
    }

    // MARK: Commands

    static let moderationUsage: [String: String] = [
        "op": "/op USER (make an operator)", "deop": "/deop USER", "ban": "/ban USER [SECONDS|forever] [REASON]",
        "unban": "/unban USER", "mute": "/mute USER [SECONDS|forever] [REASON]", "unmute": "/unmute USER",
    ]

    /// `/op`, `/deop`, `/ban`, `/unban`, `/mute`, `/unmute` on the channel on screen.
    func moderationCommand(_ words: [String], _ state: inout AppState) -> [Effect] {
        let name = words[0]
        guard let url = state.selected else {
            state.notice = "no channel: open one first"
            return []
        }
        guard words.count >= 2 else {
            state.notice = "usage: " + (Self.moderationUsage[name] ?? name)
            return []
        }
        let user = words[1].hasPrefix("@") ? String(words[1].dropFirst()) : words[1]
        var seconds = -1
        var reasonStart = 2
        if words.count > 2 {
            if let n = Int(words[2]), n > 0 {
                seconds = n
                reasonStart = 3
            } else if words[2] == "forever" || words[2] == "-1" {
                reasonStart = 3
            }
        }
        let reason = words.dropFirst(reasonStart).joined(separator: " ")
        let m: Moderation
        switch name {
        case "op": m = .op(user)
        case "deop": m = .deop(user)
        case "ban": m = .ban(user, seconds: seconds, reason: reason)
        case "unban": m = .unban(user)
        case "mute": m = .mute(user, seconds: seconds, reason: reason)
        default: m = .unmute(user)
        }
        return [.moderate(m, channelUrl: url)]
    }

    /// `/report [user USER | message] CATEGORY [DESCRIPTION]`: the channel on screen by default.
    func reportCommand(_ words: [String], _ state: inout AppState) -> [Effect] {
        let usage = "usage: /report [user USER | message] suspicious|harassing|inappropriate|spam [WHY] (Ctrl-R then ! reports a message)"
        guard let url = state.selected else {
            state.notice = "no channel: open one first"
            return []
        }
        var rest = Array(words.dropFirst())
        var target = ReportTarget.channel(url)
        if rest.first == "user", rest.count >= 2 {
            let u = rest[1].hasPrefix("@") ? String(rest[1].dropFirst()) : rest[1]
            target = .user(u, channelUrl: url)
            rest.removeFirst(2)
        } else if rest.first == "message" {
            guard
                let m = Self.visibleMessages(state).last(where: {
                    $0.status == .succeeded && $0.sender?.userId != state.me.userId && $0.kind != .admin
                })
            else {
                state.notice = "no message of someone else here to report"
                return []
            }
            target = .message(m)
            rest.removeFirst()
        }
        guard let word = rest.first, let category = ReportCategory(rawValue: word) else {
            state.notice = usage
            return []
        }
        return [.report(target, category: category, description: rest.dropFirst().joined(separator: " "))]
    }

    /// The key after Ctrl-R, `!`: s / h / i / p name the report's category.
    func reportKey(_ key: Key, _ state: inout AppState) -> [Effect] {
        guard let m = state.reporting else { return [] }
        state.reporting = nil
        let choices: [Character: ReportCategory] = ["s": .suspicious, "h": .harassing, "i": .inappropriate, "p": .spam]
        guard case .char(let c) = key, let category = choices[c] else {
            state.notice = "not reported"
            return []
        }
        return [.report(.message(m), category: category, description: "")]
    }

    /// `/enter NAME|URL`, `/exit`, `/open [QUERY]`.
    func openChannelCommand(_ words: [String], _ state: inout AppState) -> [Effect] {
        switch words[0] {
        case "enter":
            guard words.count >= 2 else { return openBrowser(.openChannels, &state) }
            return [.enterOpen(words.dropFirst().joined(separator: " "))]
        case "exit", "part":
            let target = words.count >= 2 ? words[1] : state.selected
            guard let url = target, let o = state.openChannels.first(where: { $0.url == url || $0.name == url }) else {
                state.notice = "not in an open channel here (/quit quits tern)"
                return []
            }
            return [.exitOpen(o.url)]
        default:
            state.browser = Browser(kind: .openChannels)
            state.browser?.query = words.dropFirst().joined(separator: " ")
            return [.browse(kind: .openChannels, query: state.browser?.query ?? "")]
        }
    }

    /// `/members`, `/participants`, `/operators`, `/banned`, `/muted`, `/users [FILTER]`.
    func peopleCommand(_ words: [String], _ state: inout AppState) -> [Effect] {
        let kind: PeopleView.Kind
        switch words[0] {
        case "users", "who-all":
            kind = .users
        default:
            guard let url = state.selected else {
                state.notice = "no channel: open one first"
                return []
            }
            let open = state.selectedOpenChannel != nil
            switch words[0] {
            case "operators", "ops": kind = .operators(url)
            case "banned", "bans": kind = .banned(url)
            case "muted": kind = .muted(url)
            default: kind = open ? .participants(url) : .members(url)
            }
        }
        var v = PeopleView(kind: kind)
        if kind == .users { v.query = words.dropFirst().joined(separator: " ") }
        state.people = v
        return [.people(kind, query: v.query)]
    }

    /// Keys in a people list: ↑/↓ choose, typing filters (users), Enter opens a 1:1 with the chosen one,
    /// Esc closes.
    func peopleKey(_ key: Key, _ state: inout AppState) -> [Effect] {
        guard var v = state.people else { return [] }
        var search = false
        switch key {
        case .escape:
            state.people = nil
            return []
        case .up, .ctrl("p"), .altUp:
            v.selected = max(0, v.selected - 1)
        case .down, .ctrl("n"), .altDown:
            v.selected = min(max(0, v.rows.count - 1), v.selected + 1)
        case .enter:
            guard v.rows.indices.contains(v.selected) else { return [] }
            let user = v.rows[v.selected].user
            state.people = nil
            guard user.userId != state.me.userId else { return [] }
            return [.openDirect(userId: user.userId)]
        case .backspace where v.kind == .users:
            guard !v.query.isEmpty else { return [] }
            v.query.removeLast()
            search = true
        case .char(let c) where v.kind == .users:
            v.query.append(c)
            search = true
        default:
            state.people = nil
            return []
        }
        if search {
            v.loading = true
            v.selected = 0
        }
        state.people = v
        return search ? [.people(v.kind, query: v.query)] : []
    }

    /// The user browser's filter: words are a nickname prefix; `key:value[,value]` filters by metadata.
    public static func userFilter(_ query: String) -> UserListParams {
        var p = UserListParams()
        p.limit = 100
        for w in query.split(separator: " ") {
            if let colon = w.firstIndex(of: ":"), colon != w.startIndex {
                p.metadataKey = String(w[..<colon])
                p.metadataValues = w[w.index(after: colon)...].split(separator: ",").map(String.init)
            } else {
                p.nicknameStartsWith = String(w)
            }
        }
        return p
    }

    // MARK: The people pane

    func togglePeoplePane(_ state: inout AppState) -> [Effect] {
        state.sidePane.toggle()
        if state.terminal.width > 0 {
            state.pane = Screen.messagePane(width: state.terminal.width, height: state.terminal.height, sidePane: state.sidePane, split: state.split)
            state.scroll = min(state.scroll, maxScroll(state))
        }
        if state.sidePane && Screen.sidePaneWidth(state.terminal.width, shown: true) == 0 && state.terminal.width > 0 {
            state.notice = "the people pane needs a terminal at least 64 columns wide"
        }
        guard let url = state.selected else { return [] }
        return paneRefresh(url, state)
    }

    /// An open channel's participants are read again for the pane when it shows them.
    func paneRefresh(_ url: String, _ state: AppState) -> [Effect] {
        guard state.sidePane, url == state.selected, state.openChannels.contains(where: { $0.url == url }) else { return [] }
        return [.loadPane(channelUrl: url)]
    }

    // MARK: Events

    func applyOpenChannelEvent(_ event: ClientEvent, _ state: inout AppState) -> [Effect] {
        switch event {
        case .openChannelEntered(let c):
            let isNew = !state.openChannels.contains { $0.url == c.url }
            upsertOpen(c, &state)
            if isNew {
                state.notice = "entered #\(c.displayName) (\(c.participantCount) here)"
                return select(c.url, &state)
            }
        case .openChannelUpdated(let c):
            upsertOpen(c, &state)
        case .openChannelExited(let url, let reason):
            let label = Self.channelLabel(url, state)
            state.openChannels.removeAll { $0.url == url }
            state.messages[url] = nil
            state.hasPrevious[url] = nil
            forget(url, &state)
            switch reason {
            case .exited: state.notice = "left \(label)"
            case .banned: state.notice = "you were banned from \(label)"
            case .deleted: state.notice = "\(label) was deleted"
            }
            if state.selected == url {
                state.selected = nil
                if let first = Self.channelOrder(state).first { return select(first, &state) }
            }
        default:
            break
        }
        return []
    }

    func upsertOpen(_ c: OpenChannel, _ state: inout AppState) {
        if let i = state.openChannels.firstIndex(where: { $0.url == c.url }) {
            state.openChannels[i] = c
        } else {
            state.openChannels.append(c)
            state.openChannels.sort { $0.displayName.lowercased() < $1.displayName.lowercased() }
        }
    }

    /// Operator changes, bans and mutes show in the channel as lines of their own (and in the status bar).
    func moderationLine(_ kind: ChannelEventKind, url: String, _ state: inout AppState, now: Millis) {
        let me = state.me(for: url).userId
        func who(_ u: User) -> String { u.userId == me ? "you" : u.displayName }
        func until(_ end: Millis) -> String {
            guard end >= 0 else { return "" }
            let seconds = max(0, (end - now + 999) / 1000)
            return seconds >= 3600 ? " for \(seconds / 3600)h" : seconds >= 60 ? " for \(seconds / 60)m" : " for \(seconds)s"
        }
        let text: String
        switch kind {
        case .operatorsChanged(let ops): text = "operators now: " + (ops.isEmpty ? "none" : ops.map(who).joined(separator: ", "))
        case .muted(let u, let end): text = "\(who(u)) muted\(until(end))"
        case .unmuted(let u): text = "\(who(u)) unmuted"
        case .banned(let u, let end): text = "\(who(u)) banned\(until(end))"
        case .unbanned(let u): text = "\(who(u)) unbanned"
        default: return
        }
        if url == state.selected { state.notice = text }
        guard state.messages[url] != nil else { return }
        state.localEvents += 1
        var line = Message(
            messageId: 0, requestId: "tern.event.\(state.localEvents)", channelUrl: url, kind: .admin, text: text, sender: nil, createdAt: now)
        line.customType = Self.localEventType
        state.messages[url]!.append(line)
    }

    /// Lines tern adds to a channel itself (moderation results); never sent, never picked.
    public static let localEventType = "tern.event"
}
