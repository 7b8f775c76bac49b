import Foundation
public import TernKit

/// Acting on messages: edit (↑), pick (Ctrl-R) to reply / react / delete / open a thread, threads,
/// mentions, search (Ctrl-K), files.
extension Reducer {
    /// The reaction palette: Sendbird reaction keys and how they show.
    public static let reactions: [(key: String, glyph: String)] = [
        ("thumbsup", "👍"), ("heart", "❤️"), ("laughing", "😆"), ("tada", "🎉"), ("eyes", "👀"), ("rocket", "🚀"),
        ("thinking", "🤔"), ("sad", "😢"), ("check", "✅"), ("thumbsdown", "👎"),
    ]

    /// How a reaction key shows: its glyph, or `:key:`.
    public static func glyph(_ key: String) -> String {
        reactions.first { $0.key == key }?.glyph ?? ":\(key):"
    }

    /// What the message pane lists now: the thread on screen, else the channel's messages (replies
    /// only when also sent to the channel).
    public static func visibleMessages(_ state: AppState) -> [Message] {
        if let t = state.thread { return [t.parent] + t.replies }
        guard let url = state.selected else { return [] }
        return (state.messages[url] ?? []).filter { $0.parentMessageId == 0 || $0.isReplyToChannel }
    }

    /// Messages Ctrl-R can pick: stored ones, not the lines tern adds itself.
    static func pickable(_ state: AppState) -> [Message] {
        visibleMessages(state).filter { $0.status == .succeeded && $0.customType != localEventType }
    }

    /// The picked message.
    public static func picked(_ state: AppState) -> Message? {
        guard let p = state.picker else { return nil }
        let list = pickable(state)
        guard p.index < list.count else { return nil }
        return list[list.count - 1 - p.index]
    }

    /// Whether the user may change `m`: their own, or any as an operator of the channel.
    static func mayChange(_ m: Message, _ state: AppState) -> Bool {
        if m.kind == .admin { return false }
        if m.sender?.userId == state.me.userId { return true }
        if let o = state.openChannels.first(where: { $0.url == m.channelUrl }) { return o.isOperator(state.me.userId) }
        return state.channels.first { $0.url == m.channelUrl }?.myRole == "operator"
    }

    /// ↑ on an empty line: edit the newest own message.
    func startEditing(_ state: inout AppState) -> Bool {
        guard state.input.isEmpty,
            let m = Self.visibleMessages(state).last(where: { $0.sender?.userId == state.me.userId && $0.status == .succeeded && $0.kind == .user })
        else { return false }
        state.editing = m
        state.replyingTo = nil
        state.input = Array(m.text)
        state.cursor = state.input.count
        return true
    }

    /// Keys while picking a message.
    func pickerKey(_ key: Key, _ state: inout AppState) -> [Effect] {
        guard var p = state.picker else { return [] }
        let count = Self.pickable(state).count
        if let r = p.reaction {
            switch key {
            case .left: p.reaction = max(0, r - 1)
            case .right, .tab: p.reaction = min(Self.reactions.count - 1, r + 1)
            case .escape: p.reaction = nil
            case .enter:
                state.picker = nil
                guard let m = Self.picked(AppState(copying: state, picker: p)) else { return [] }
                let key = Self.reactions[r].key
                let mine = m.reactions.first { $0.key == key }?.userIds.contains(state.me.userId) ?? false
                return [.react(m, key: key, add: !mine)]
            case .char(let c) where c.isNumber:
                let n = Int(String(c)) ?? 0
                let i = n == 0 ? 9 : n - 1
                if i < Self.reactions.count { p.reaction = i }
            default: break
            }
            state.picker = p
            return []
        }
        if p.confirmDelete {
            state.picker = nil
            guard case .char("y") = key, let m = Self.picked(AppState(copying: state, picker: p)) else {
                state.notice = "not deleted"
                return []
            }
            return [.deleteMessage(m)]
        }
        guard let m = Self.picked(state) else {
            state.picker = nil
            return []
        }
        switch key {
        case .up, .ctrl("p"): p.index = min(max(0, count - 1), p.index + 1)
        case .down, .ctrl("n"): p.index = max(0, p.index - 1)
        case .escape, .ctrl("r"):
            state.picker = nil
            return []
        case .char("r"):
            state.picker = nil
            state.replyingTo = m
            state.editing = nil
            return []
        case .char("t"), .enter:
            state.picker = nil
            return openThread(m, &state)
        case .char("e"):
            guard m.sender?.userId == state.me.userId, m.kind == .user else {
                state.notice = "only your own messages can be edited"
                return []
            }
            state.picker = nil
            state.editing = m
            state.input = Array(m.text)
            state.cursor = state.input.count
            return []
        case .char("d"):
            guard Self.mayChange(m, state) else {
                state.notice = "only your own messages (or any, as an operator) can be deleted"
                return []
            }
            p.confirmDelete = true
            state.notice = "delete this message? y deletes, any other key keeps it"
        case .char("+"), .char(":"):
            p.reaction = 0
        case .char("!"):
            guard m.sender?.userId != state.me.userId, m.kind != .admin else {
                state.notice = "only others' messages can be reported"
                return []
            }
            state.picker = nil
            state.reporting = m
            state.notice = "report as: s suspicious · h harassing · i inappropriate · p spam (any other key: no)"
            return []
        case .char("y"):
            state.picker = nil
            return copy(Self.copiedText(m), &state)
        case .char("Y"):
            guard let link = Self.copiedLink(m) else {
                state.notice = "no link or file in this message"
                return []
            }
            state.picker = nil
            return copy(link, &state)
        case .char("f"):
            guard !m.files.isEmpty else {
                state.notice = "no file in this message"
                return []
            }
            state.picker = nil
            return [.download(m, directory: "")]
        default:
            return []
        }
        state.picker = p
        return []
    }

    /// Opens the thread of `m` (its parent's, for a reply).
    func openThread(_ m: Message, _ state: inout AppState) -> [Effect] {
        var parent = m
        if m.parentMessageId != 0 {
            if let p = state.messages[m.channelUrl]?.first(where: { $0.messageId == m.parentMessageId }) {
                parent = p
            } else {
                parent = Message(
                    messageId: m.parentMessageId, channelUrl: m.channelUrl, text: m.parent?.text ?? "", sender: m.parent?.sender,
                    createdAt: m.parent?.createdAt ?? 0)
            }
        }
        state.thread = ThreadView(channelUrl: parent.channelUrl, parent: parent)
        state.replyingTo = nil
        state.scroll = 0
        return [.openThread(parent)]
    }

    /// Enter with text: an edit, a reply, a message in the thread on screen, or a message (with the
    /// members it @-mentions).
    func sendEffects(_ body: String, url: String, _ state: inout AppState) -> [Effect] {
        if let m = state.editing {
            state.editing = nil
            return body == m.text ? [] : [.editMessage(m, text: body)]
        }
        var params = UserMessageParams(body)
        let channel = state.channels.first { $0.url == url }
        (params.mentionType, params.mentionedUserIds) = Self.mentions(in: body, members: channel?.members ?? [], me: state.me.userId)
        if let t = state.thread, t.channelUrl == url {
            params.parentMessageId = t.parent.messageId
        } else if let r = state.replyingTo {
            params.parentMessageId = r.parentMessageId != 0 ? r.parentMessageId : r.messageId
            // A reply from the channel view stays in the channel.
            params.replyToChannel = true
            state.replyingTo = nil
        }
        if params.parentMessageId == 0 && params.mentionedUserIds.isEmpty && params.mentionType == "users" {
            return [.send(text: body, channelUrl: url)]
        }
        return [.sendMessage(params, channelUrl: url)]
    }

    /// `@user` words that name members (by id or nickname); `@channel` mentions everyone.
    public static func mentions(in text: String, members: [Member], me: String) -> (type: String, ids: [String]) {
        var ids: [String] = []
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) where word.hasPrefix("@") {
            let name = String(word.dropFirst()).trimmingCharacters(in: CharacterSet(charactersIn: ",.:;!?)"))
            if name == "channel" || name == "all" || name == "everyone" { return ("channel", []) }
            if let m = members.first(where: { $0.userId == name || $0.user.nickname == name }), m.userId != me, !ids.contains(m.userId) {
                ids.append(m.userId)
            }
        }
        return ("users", ids)
    }

    /// Keys while the search view is open: type the query, Enter searches (or, on results, jumps),
    /// ↑/↓ choose, Esc closes.
    func searchKey(_ key: Key, _ state: inout AppState) -> [Effect] {
        guard var s = state.search else { return [] }
        switch key {
        case .escape, .ctrl("s"):
            state.search = nil
            return []
        case .up, .ctrl("p"):
            s.selected = max(0, s.selected - 1)
        case .down, .ctrl("n"):
            s.selected = min(max(0, s.results.count - 1), s.selected + 1)
        case .enter:
            if s.answered == s.query, s.results.indices.contains(s.selected) {
                let m = s.results[s.selected]
                state.search = nil
                var effects: [Effect] = []
                if state.selected != m.channelUrl {
                    // The same switch as any other (draft, thread, picker follow); the jump loads the history.
                    effects = switchChannel(to: m.channelUrl, &state) + [.view(channelUrl: m.channelUrl)] + paneRefresh(m.channelUrl, state)
                }
                // The result is shown in its channel, not in a thread.
                parkThread(&state)
                state.highlight = m.messageId
                state.scroll = 0
                return effects + [.jump(m)]
            }
            guard !s.query.trimmingCharacters(in: .whitespaces).isEmpty else { return [] }
            s.loading = true
            state.search = s
            return [.searchMessages(query: s.query)]
        case .backspace:
            if !s.query.isEmpty { s.query.removeLast() }
        case .ctrl("u"):
            s.query = ""
        case .char(let c):
            s.query.append(c)
        default:
            return []
        }
        state.search = s
        return []
    }

    /// Events about message changes, for the channel's list and the thread on screen.
    func applyMessageChange(_ event: ClientEvent, _ state: inout AppState) {
        func update(_ id: Int64, in url: String, _ body: (inout Message) -> Void) {
            if let i = state.messages[url]?.firstIndex(where: { $0.messageId == id }) { body(&state.messages[url]![i]) }
            // The thread on screen only when it is this channel's: ids are per server, and with several
            // accounts the same message is in each account's channel.
            guard state.thread?.channelUrl == url else { return }
            if state.thread?.parent.messageId == id { body(&state.thread!.parent) }
            if let i = state.thread?.replies.firstIndex(where: { $0.messageId == id }) { body(&state.thread!.replies[i]) }
        }
        switch event {
        case .messageUpdated(let m):
            update(m.messageId, in: m.channelUrl) { old in
                let reactions = old.reactions
                let thread = old.thread
                old = m
                if m.reactions.isEmpty { old.reactions = reactions }
                if m.thread == nil { old.thread = thread }
            }
        case .messageDeleted(let url, let id):
            state.messages[url]?.removeAll { $0.messageId == id }
            if state.thread?.channelUrl == url {
                state.thread?.replies.removeAll { $0.messageId == id }
                if state.thread?.parent.messageId == id {
                    state.thread = nil
                    state.notice = "the thread's message was deleted"
                }
            }
            if state.editing?.messageId == id && state.editing?.channelUrl == url { state.editing = nil }
            if state.replyingTo?.messageId == id && state.replyingTo?.channelUrl == url { state.replyingTo = nil }
        case .reactionUpdated(let url, let id, let key, let user, let added):
            update(id, in: url) { $0.applyReaction(key: key, userId: user, added: added) }
        case .threadInfoUpdated(let url, let parent, let summary):
            update(parent, in: url) { $0.thread = summary.replyCount > 0 ? summary : nil }
        default:
            break
        }
    }
}

extension Reducer {
    /// A stored message joins the list in time order among the stored ones; ours still pending or
    /// failed stay after them.
    static func placeStored(_ m: Message, in list: inout [Message]) {
        if list.contains(where: { $0.messageId == m.messageId && $0.status == .succeeded }) { return }
        var at = list.count
        while at > 0 {
            let prev = list[at - 1]
            if prev.status == .succeeded && (prev.createdAt, prev.messageId) <= (m.createdAt, m.messageId) { break }
            at -= 1
        }
        list.insert(m, at: at)
    }

    /// Messages fetched after the fact (a gap fill) join a loaded channel in time order; ours not
    /// stored yet stay last, and one that is now stored replaces its pending line.
    static func merge(_ filled: [Message], into url: String, _ state: inout AppState) {
        guard !filled.isEmpty else { return }
        guard var list = state.messages[url] ?? (url == state.selected ? [] : nil) else { return }
        let pendingIds = Set(filled.compactMap(\.requestId))
        list.removeAll { $0.status != .succeeded && $0.requestId.map(pendingIds.contains) == true }
        var stored = list.filter { $0.status == .succeeded }
        let unsent = list.filter { $0.status != .succeeded }
        var known = Set(stored.map(\.messageId))
        for m in filled where known.insert(m.messageId).inserted { stored.append(m) }
        stored.sort { ($0.createdAt, $0.messageId) < ($1.createdAt, $1.messageId) }
        // A pending line whose message came back stored (sent by this client, acknowledged while away).
        let storedReqs = Set(stored.compactMap(\.requestId))
        state.messages[url] = stored + unsent.filter { !($0.requestId.map(storedReqs.contains) ?? false) }
    }
}

extension AppState {
    /// A copy with another picker (to resolve the picked message after the picker was closed).
    init(copying s: AppState, picker: MessagePicker?) {
        self = s
        self.picker = picker
    }
}
