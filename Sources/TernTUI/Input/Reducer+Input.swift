import Foundation
import TernKit

/// Keys in the main view: the key map (sequences, vi's modes), readline editing with a kill buffer
/// and undo, per-channel input history and drafts, multi-line input, pastes, completion, the
/// channel switcher, and the user's presence (what counts as seen).
extension Reducer {
    /// The longest message Sendbird takes (characters); the input shows a counter near it.
    public static let messageLimit = 5000

    /// The user is at the terminal now (a key, a click, focus coming in): the channel on screen is seen.
    func becomePresent(_ state: inout AppState) -> [Effect] {
        guard !state.present else { return [] }
        state.present = true
        guard state.seeing, let url = state.selected else { return [] }
        return enter(url, &state)
    }

    func focusChanged(_ focused: Bool, _ state: inout AppState) -> [Effect] {
        guard focused != state.focused else { return focused ? becomePresent(&state) : [] }
        state.focused = focused
        if !focused {
            guard let url = state.selected, state.present else { return [] }
            return [.show(channelUrl: url)]
        }
        if !state.present { return becomePresent(&state) }
        guard let url = state.selected else { return [] }
        return enter(url, &state)
    }

    func mouse(_ e: MouseEvent, _ state: inout AppState) -> [Effect] {
        var effects = becomePresent(&state)
        guard state.settings.mouse, state.terminal.width > 0 else { return effects }
        let overlay =
            state.showHelp || state.sheet != nil || state.people != nil || state.browser != nil || state.info != nil || state.search != nil
            || state.switcher != nil
        switch e.kind {
        case .wheelUp where !overlay:
            effects += scrollLines(3, &state)
        case .wheelDown where !overlay:
            effects += scrollLines(-3, &state)
        case .press(button: 1) where !overlay:
            if e.x < Screen.listWidth(state.terminal.width), let url = Screen.channel(atRow: e.y, state, height: state.terminal.height) {
                effects += select(url, &state)
            } else if e.x < Screen.listWidth(state.terminal.width), let a = Screen.account(atRow: e.y, state, height: state.terminal.height) {
                state.accounts[a].folded.toggle()
            }
        default:
            break
        }
        return effects
    }

    /// Scrolls the message pane by `n` lines (up when positive), loading older history near the top.
    func scrollLines(_ n: Int, _ state: inout AppState) -> [Effect] {
        guard let url = state.selected else { return [] }
        let top = maxScroll(state)
        state.scroll = max(0, min(state.scroll + n, top))
        if n > 0, state.hasPrevious[url] ?? true, !state.loadingHistory.contains(url), state.scroll + max(1, state.pane.height) >= top {
            state.loadingHistory.insert(url)
            return [.loadHistory(channelUrl: url, before: state.messages[url]?.first { $0.status == .succeeded }?.createdAt)]
        }
        return []
    }

    /// A key in the main view (no overlay open).
    func inputKey(_ key: Key, _ state: inout AppState) -> [Effect] {
        if state.confirmSend {
            state.confirmSend = false
            if key == .char("y") || key == .char("Y") || key == .enter { return submit(&state, confirmed: true) }
            state.notice = "not sent: the message is still in the input"
            return []
        }
        if key == .escape, state.pendingKeys.isEmpty {
            if let c = state.completion {
                state.input = c.original
                state.cursor = c.originalCursor
                state.completion = nil
                return []
            }
            // vi insert mode: Esc goes to normal mode first; then it cancels as in emacs.
            if !(keys.preset == .vi && state.mode == .insert) {
                if state.editing != nil || state.replyingTo != nil {
                    state.editing = nil
                    state.replyingTo = nil
                    state.input = []
                    state.cursor = 0
                    return []
                }
                if state.thread != nil {
                    state.thread = nil
                    state.scroll = 0
                    return []
                }
            }
        }
        let sequence = state.pendingKeys + [key]
        switch keys.match(sequence, mode: state.mode) {
        case .prefix:
            state.pendingKeys = sequence
            state.notice = KeyTable.name(sequence) + " …"
            return []
        case .command(let c):
            state.pendingKeys = []
            if c != .completeNext && c != .completePrevious { state.completion = nil }
            return run(c, &state)
        case .none:
            state.pendingKeys = []
            state.completion = nil
            if sequence.count > 1 {
                state.notice = KeyTable.name(sequence) + " is not bound"
                return []
            }
            guard state.mode == .insert else { return [] }
            switch key {
            case .char(let c):
                insert([c], &state, typing: true)
                return typingEffect(state)
            default:
                return []
            }
        }
    }

    // MARK: Editing

    func pushUndo(_ state: inout AppState) {
        let snap = InputSnapshot(input: state.input, cursor: state.cursor)
        if state.undo.last != snap { state.undo.append(snap) }
        if state.undo.count > 200 { state.undo.removeFirst(state.undo.count - 200) }
    }

    /// Inserts at the cursor; a run of typed characters is one undo step.
    func insert(_ chars: [Character], _ state: inout AppState, typing: Bool = false) {
        if !typing || !state.typingRun || chars == [" "] { pushUndo(&state) }
        state.typingRun = typing
        state.input.insert(contentsOf: chars, at: state.cursor)
        state.cursor += chars.count
    }

    /// Deletes `range` of the input; a kill keeps the text for Ctrl-Y.
    func delete(_ range: Range<Int>, kill: Bool, _ state: inout AppState) {
        guard !range.isEmpty else { return }
        pushUndo(&state)
        state.typingRun = false
        if kill { state.killBuffer = Array(state.input[range]) }
        state.input.removeSubrange(range)
        state.cursor = range.lowerBound
    }

    static func isWord(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" }

    /// Where Alt-B lands: the start of the word before the cursor.
    static func wordStart(_ input: [Character], from i: Int) -> Int {
        var i = i
        while i > 0 && !isWord(input[i - 1]) { i -= 1 }
        while i > 0 && isWord(input[i - 1]) { i -= 1 }
        return i
    }

    /// Where Alt-F lands: the end of the word after the cursor.
    static func wordEnd(_ input: [Character], from i: Int) -> Int {
        var i = i
        while i < input.count && !isWord(input[i]) { i += 1 }
        while i < input.count && isWord(input[i]) { i += 1 }
        return i
    }

    /// The start and end of the input line the cursor is on (multi-line input).
    static func lineBounds(_ input: [Character], at cursor: Int) -> (start: Int, end: Int) {
        var s = cursor
        while s > 0 && input[s - 1] != "\n" { s -= 1 }
        var e = cursor
        while e < input.count && input[e] != "\n" { e += 1 }
        return (s, e)
    }

    /// Moves the cursor a line up or down in multi-line input; false on the first / last line.
    func moveLine(_ down: Bool, _ state: inout AppState) -> Bool {
        let (s, e) = Self.lineBounds(state.input, at: state.cursor)
        let column = state.cursor - s
        if down {
            guard e < state.input.count else { return false }
            let (ns, ne) = Self.lineBounds(state.input, at: e + 1)
            state.cursor = min(ns + column, ne)
        } else {
            guard s > 0 else { return false }
            let (ps, pe) = Self.lineBounds(state.input, at: s - 1)
            state.cursor = min(ps + column, pe)
        }
        return true
    }

    /// ↑/↓ through what was sent in this channel; the line being written comes back at the end.
    func walkHistory(_ older: Bool, _ state: inout AppState) {
        let list = state.history[state.selected ?? ""] ?? []
        guard !list.isEmpty else {
            if older && state.input.isEmpty { state.notice = "nothing sent here yet (Alt-E edits your last message)" }
            return
        }
        var i = state.historyIndex ?? list.count
        if i == list.count && older { state.historyDraft = state.input }
        i = older ? max(0, i - 1) : min(list.count, i + 1)
        state.historyIndex = i == list.count ? nil : i
        state.input = i == list.count ? state.historyDraft : Array(list[i])
        state.cursor = state.input.count
        state.typingRun = false
    }

    /// Runs an input-line command; nil when `command` is not one.
    func edit(_ command: Command, _ state: inout AppState) -> [Effect]? {
        let input = state.input
        let cursor = state.cursor
        switch command {
        case .cursorLeft: state.cursor = max(0, cursor - 1)
        case .cursorRight: state.cursor = min(input.count, cursor + 1)
        case .wordLeft: state.cursor = Self.wordStart(input, from: cursor)
        case .wordRight: state.cursor = Self.wordEnd(input, from: cursor)
        case .wordEnd:
            state.cursor = max(cursor, Self.wordEnd(input, from: min(input.count, cursor + 1)) - 1)
        case .cursorHome: state.cursor = Self.lineBounds(input, at: cursor).start
        case .cursorEnd: state.cursor = Self.lineBounds(input, at: cursor).end
        case .deleteBackward, .deleteCharBefore:
            guard cursor > 0 else { return [] }
            delete((cursor - 1)..<cursor, kill: false, &state)
        case .deleteForward, .deleteCharUnder:
            guard cursor < input.count else { return [] }
            delete(cursor..<(cursor + 1), kill: false, &state)
        case .deleteOrQuit:
            if input.isEmpty {
                state.quitting = true
                return [.quit]
            }
            guard cursor < input.count else { return [] }
            delete(cursor..<(cursor + 1), kill: false, &state)
        case .deleteWord:
            var i = cursor
            while i > 0 && input[i - 1].isWhitespace { i -= 1 }
            while i > 0 && !input[i - 1].isWhitespace { i -= 1 }
            delete(i..<cursor, kill: true, &state)
        case .deleteWordBackward: delete(Self.wordStart(input, from: cursor)..<cursor, kill: true, &state)
        case .deleteWordForward: delete(cursor..<Self.wordEnd(input, from: cursor), kill: true, &state)
        case .deleteLine:
            let s = Self.lineBounds(input, at: cursor).start
            delete((s == cursor && s > 0 ? s - 1 : s)..<cursor, kill: true, &state)
        case .killToEnd:
            let e = Self.lineBounds(input, at: cursor).end
            delete(cursor..<(e == cursor && e < input.count ? e + 1 : e), kill: true, &state)
        case .changeToEnd:
            delete(cursor..<Self.lineBounds(input, at: cursor).end, kill: true, &state)
            state.mode = .insert
        case .clearInput:
            delete(0..<input.count, kill: true, &state)
        case .yank:
            guard !state.killBuffer.isEmpty else { return [] }
            insert(state.killBuffer, &state)
            state.typingRun = false
        case .undo:
            guard let last = state.undo.popLast() else {
                state.notice = "nothing to undo"
                return []
            }
            state.input = last.input
            state.cursor = min(last.cursor, last.input.count)
            state.typingRun = false
        case .newline:
            insert(["\n"], &state)
            state.typingRun = false
        case .historyPrevious:
            if !moveLine(false, &state) { walkHistory(true, &state) }
        case .historyNext:
            if !moveLine(true, &state) { walkHistory(false, &state) }
        default:
            return nil
        }
        if state.input.isEmpty, !input.isEmpty, let url = state.selected { return [.typing(channelUrl: url, started: false)] }
        if state.input != input { return typingEffect(state) }
        return []
    }

    // MARK: Paste, editor, sending

    func paste(_ text: String, _ state: inout AppState) -> [Effect] {
        var effects = becomePresent(&state)
        if let b = state.browser {
            state.browser?.query = b.query + text.replacingOccurrences(of: "\n", with: " ")
            return effects + [.browse(kind: b.kind, query: state.browser!.query)]
        }
        if state.search != nil {
            state.search?.query += text.replacingOccurrences(of: "\n", with: " ")
            return effects
        }
        let chars = Array(text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\t", with: "    "))
        insert(chars, &state)
        state.typingRun = false
        let lines = state.input.filter { $0 == "\n" }.count + 1
        if lines > state.settings.pasteConfirmLines {
            state.notice = "pasted \(lines) lines: Enter asks before sending them as one message"
        }
        effects += typingEffect(state)
        return effects
    }

    /// `$EDITOR` gave the draft back (nil: it failed or the user quit without a file).
    func editorFinished(_ text: String?, _ state: inout AppState) -> [Effect] {
        guard let text else {
            state.notice = "the editor failed: the draft is unchanged"
            return []
        }
        var t = text
        while t.hasSuffix("\n") { t.removeLast() }
        pushUndo(&state)
        state.input = Array(t)
        state.cursor = state.input.count
        return typingEffect(state)
    }

    /// Saves what was typed in the channel being left, and brings back the draft of the one opened.
    func swapDrafts(from old: String?, to new: String, _ state: inout AppState) {
        if let old {
            state.drafts[old] = state.input.isEmpty || state.editing != nil ? nil : state.input
        }
        state.input = state.drafts.removeValue(forKey: new) ?? []
        state.cursor = state.input.count
        state.editing = nil
        state.replyingTo = nil
        state.historyIndex = nil
        state.completion = nil
        state.undo = []
        state.typingRun = false
    }

    /// Remembers a sent line in the channel's input history.
    func remember(_ text: String, _ state: inout AppState) {
        let key = state.selected ?? ""
        var list = state.history[key] ?? []
        if list.last != text { list.append(text) }
        if list.count > 200 { list.removeFirst(list.count - 200) }
        state.history[key] = list
        state.historyIndex = nil
        state.historyDraft = []
    }

    // MARK: Channels

    /// Channels with something new, as weechat's hotlist: mentions first, then 1-on-1s, then the rest;
    /// each with its number in the channel order (Alt-N).
    public static func hotlist(_ state: AppState) -> [(number: Int, url: String, mentions: Int, unread: Int)] {
        var number: [String: Int] = [:]
        for (i, url) in numberedOrder(state).enumerated() { number[url] = i }
        var out: [(number: Int, url: String, mentions: Int, unread: Int, rank: Int)] = []
        for c in state.channels where c.myMemberState != "invited" && (c.unreadMessageCount > 0 || c.unreadMentionCount > 0) {
            guard let i = number[c.url], c.url != state.selected || !state.seeing else { continue }
            let rank = c.unreadMentionCount > 0 ? 0 : c.memberCount == 2 ? 1 : 2
            out.append((i + 1, c.url, c.unreadMentionCount, c.unreadMessageCount, rank))
        }
        return out.sorted { ($0.rank, $0.number) < ($1.rank, $1.number) }.map { ($0.number, $0.url, $0.mentions, $0.unread) }
    }

    /// How well a channel name matches a switcher query (`/go`, Alt-J), best first.
    public enum MatchQuality: Int, Comparable, Sendable {
        /// The whole name, ignoring case (`team` for #team, not #team2).
        case exact
        /// The name starts with the query.
        case prefix
        /// A word of the name starts with the query (`ops` in #dev-ops).
        case wordStart
        /// The query is somewhere in the name.
        case substring
        /// Every query character, in order, scattered.
        case fuzzy

        public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

        /// How `name` matches `query` (both compared lower-cased, the query without spaces and a leading `#`);
        /// nil when it does not. `score` orders fuzzy matches (consecutive letters and word starts count more).
        public static func of(_ query: String, in name: String) -> (quality: Self, score: Int)? {
            var q = query.lowercased().filter { $0 != " " }
            if q.hasPrefix("#") { q.removeFirst() }
            let n = name.lowercased()
            guard !q.isEmpty else { return (.fuzzy, 0) }
            if n == q { return (.exact, 0) }
            if n.hasPrefix(q) { return (.prefix, 0) }
            let chars = Array(n)
            let qs = Array(q)
            if chars.count > qs.count {
                var inside = false
                for i in 1...(chars.count - qs.count) where Array(chars[i..<(i + qs.count)]) == qs {
                    if !isWord(chars[i - 1]) { return (.wordStart, 0) }
                    inside = true
                }
                if inside { return (.substring, 0) }
            }
            var j = 0
            var score = 0
            var last = -2
            for (k, ch) in chars.enumerated() where j < qs.count && ch == qs[j] {
                score += k == 0 ? 30 : (k == last + 1 ? 10 : (!isWord(chars[k - 1]) ? 8 : 1))
                last = k
                j += 1
            }
            return j == qs.count ? (.fuzzy, score) : nil
        }
    }

    /// Channels matching a switcher query, best first: an exact name (ignoring case), then names starting
    /// with it, then a word starting with it, then containing it, then fuzzy matches (every query character in
    /// order; closer-knit first); ties in the channel list's order (invitations, then latest activity, then
    /// open channels).
    public static func switcherMatches(_ query: String, _ state: AppState) -> [(url: String, name: String)] {
        var all: [(url: String, name: String)] = state.channels.map { ($0.url, $0.title(me: state.me(for: $0.url).userId)) }
        all += state.openChannels.map { ($0.url, $0.displayName) }
        var query = query
        // Several accounts: `NAME@ACCOUNT` looks only in that account (two accounts may both have a #team).
        if !state.accounts.isEmpty, let at = query.lastIndex(of: "@"),
            let i = Self.account(named: String(query[query.index(after: at)...]), state)
        {
            all = all.filter { state.accountIndex(of: $0.url) == i }
            query = String(query[..<at])
        }
        guard query.contains(where: { $0 != " " && $0 != "#" }) else { return all }
        var scored: [(quality: MatchQuality, score: Int, index: Int, channel: (url: String, name: String))] = []
        for (i, c) in all.enumerated() {
            guard let m = MatchQuality.of(query, in: c.name) else { continue }
            scored.append((m.quality, m.score, i, c))
        }
        return scored.sorted { a, b in
            if a.quality != b.quality { return a.quality < b.quality }
            if a.score != b.score { return a.score > b.score }
            return a.index < b.index
        }.map(\.channel)
    }

    /// Keys while the switcher is open: type to filter, ↑/↓ (Ctrl-P/N, Tab) choose, Enter opens, Esc closes.
    func switcherKey(_ key: Key, _ state: inout AppState) -> [Effect] {
        guard var s = state.switcher else { return [] }
        let matches = Self.switcherMatches(s.query, state)
        switch key {
        case .escape, .alt("j"), .ctrl("g"):
            state.switcher = nil
            return []
        case .enter:
            state.switcher = nil
            guard matches.indices.contains(s.selected) else {
                state.notice = "no channel matches \(s.query)"
                return []
            }
            return select(matches[s.selected].url, &state)
        case .up, .ctrl("p"), .shiftTab:
            s.selected = max(0, s.selected - 1)
        case .down, .ctrl("n"), .tab:
            s.selected = min(max(0, matches.count - 1), s.selected + 1)
        case .backspace, .ctrl("h"):
            if !s.query.isEmpty { s.query.removeLast() }
            s.selected = 0
        case .ctrl("u"):
            s.query = ""
            s.selected = 0
        case .char(let c):
            s.query.append(c)
            s.selected = 0
        default:
            break
        }
        state.switcher = s
        return []
    }

    /// Alt-A: the next channel with activity (mentions first).
    func nextActivity(_ state: inout AppState) -> [Effect] {
        guard let next = Self.hotlist(state).first else {
            state.notice = "no activity elsewhere"
            return []
        }
        return select(next.url, &state)
    }

    func jump(_ n: Int, _ state: inout AppState) -> [Effect] {
        let order = Self.numberedOrder(state)
        guard order.indices.contains(n - 1) else {
            state.notice = "no channel \(n) (there are \(order.count))"
            return []
        }
        return select(order[n - 1], &state)
    }
}
