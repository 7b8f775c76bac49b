import Foundation
import TernKit

/// What the engine answered, into the state: channels and history (`reduceLoaded`), and lists, failures,
/// threads, search results, jumps and uploads (`reduceListsAndFiles`).
extension Reducer {
    /// Channels, history, an opened channel, a notice.
    func reduceLoaded(_ state: inout AppState, _ action: Action) -> [Effect] {
        switch action {
        case .channelsLoaded(let list):
            for c in list { upsert(c, &state) }
            if let effects = restoreLayout(&state) { return effects }
            if state.selected == nil, let first = state.channels.first { return select(first.url, &state) }
            return []

        case .historyLoaded(let url, let page, let replace):
            state.loadingHistory.remove(url)
            state.hasPrevious[url] = page.hasPrevious
            var list = replace ? [] : state.messages[url] ?? []
            let known = Set(list.map(\.messageId))
            let older = page.messages.filter { !known.contains($0.messageId) }
            if replace {
                // Keep our pending/failed ones and anything newer that arrived meanwhile.
                let extra = (state.messages[url] ?? []).filter { m in m.status != .succeeded || !older.contains { $0.messageId == m.messageId } }
                list = older + extra.filter { m in m.status != .succeeded || m.createdAt > (older.last?.createdAt ?? 0) }
            } else {
                list = older + list
            }
            state.messages[url] = list
            return []

        case .historyFailed(let url, let error):
            state.loadingHistory.remove(url)
            state.notice = "history: \(error)"
            return []

        case .opened(let channel):
            upsert(channel, &state)
            // Already on screen (an invitation just accepted): now it can be read.
            if state.selected == channel.url { return enter(channel.url, &state) }
            return select(channel.url, &state)

        case .notice(let text):
            state.notice = text
            return []

        default:
            assertionFailure("reduceAction(_:_:) sent \(action) to the wrong place")
            return []
        }
    }

    /// The browser, people lists and the side pane, a failure, emojis, notification rules, a thread, search
    /// results, a jump to a message, uploads.
    func reduceListsAndFiles(_ state: inout AppState, _ action: Action) -> [Effect] {
        switch action {
        case .openBrowserResults(let query, let list):
            guard var b = state.browser, b.kind == .openChannels, b.query == query else { return [] }
            b.openResults = list
            b.loading = false
            b.selected = min(b.selected, max(0, list.count - 1))
            state.browser = b
            return []

        case .paneLoaded(let url, let rows):
            state.paneRows[url] = rows
            return []

        case .peopleLoaded(let kind, let query, let rows):
            guard var v = state.people, v.kind == kind, v.query == query else { return [] }
            v.rows = rows
            v.loading = false
            v.selected = min(v.selected, max(0, rows.count - 1))
            state.people = v
            return []

        case .browserResults(let kind, let query, let list):
            guard var b = state.browser, b.kind == kind, b.query == query else { return [] }
            b.results = list
            b.loading = false
            b.selected = min(b.selected, max(0, list.count - 1))
            state.browser = b
            return []

        case .failed(let text):
            state.notice = text
            return []

        case .emojisLoaded(let keys):
            state.emojiKeys = keys
            return []

        case .notificationRulesLoaded(let rules):
            state.notificationRules = rules
            return []

        case .threadLoaded(let t):
            guard var view = state.thread, view.parent.messageId == t.parent.messageId else { return [] }
            view.parent = t.parent
            // Keep replies that arrived while loading.
            let known = Set(t.replies.map(\.messageId))
            view.replies = t.replies + view.replies.filter { !known.contains($0.messageId) || $0.messageId == 0 }
            view.loading = false
            state.thread = view
            return []

        case .searchResults(let query, let results, let hasMore):
            guard var s = state.search else { return [] }
            s.loading = false
            s.results = results
            s.answered = query
            s.hasMore = hasMore
            s.selected = 0
            state.search = s
            return []

        case .jumped(let url, let page, let id):
            state.loadingHistory.remove(url)
            state.messages[url] = page.messages
            state.hasPrevious[url] = page.hasPrevious
            state.highlight = id
            // Put the message near the middle of the pane: scroll up past the lines below it.
            if state.pane.width > 0, let i = page.messages.firstIndex(where: { $0.messageId == id }) {
                var after = state
                after.messages[url] = Array(page.messages.prefix(i + 1))
                let below = layout.lineCount(state, width: state.pane.width) - layout.lineCount(after, width: state.pane.width)
                state.scroll = max(0, min(below - state.pane.height / 2, maxScroll(state)))
            }
            return []

        case .uploadStarted(let id, let upload):
            state.uploads[id] = upload
            return []

        case .uploadProgress(let id, let sent, let total):
            state.uploads[id]?.sent = sent
            state.uploads[id]?.total = total
            return []

        case .uploadFinished(let id, let error):
            let name = state.uploads.removeValue(forKey: id)?.name ?? "the file"
            state.notice = error.map { "\(name): \($0)" } ?? "\(name) sent"
            return []

        default:
            assertionFailure("reduceAction(_:_:) sent \(action) to the wrong place")
            return []
        }
    }
}
