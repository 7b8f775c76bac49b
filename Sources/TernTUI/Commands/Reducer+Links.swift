import Foundation
import TernKit
import TernProtocol

/// Links you can open (`/url`) and text you can copy (`/copy`, `y` and `Y` in the picker).
extension Reducer {
    /// The links of the messages on screen, newest first (a message's own links in their order), each once:
    /// `/url` numbers them so.
    static func screenLinks(_ state: AppState) -> [String] {
        let shown = visibleMessages(state).suffix(max(1, state.pane.height > 0 ? state.pane.height + state.scroll : 20))
        var seen = Set<String>()
        var out: [String] = []
        for m in shown.reversed() where m.kind != .file {
            for url in Markdown(m.text).links where seen.insert(url).inserted { out.append(url) }
        }
        return out
    }

    /// With links labelled: Esc takes the labels away; right after the open-link key (Alt-U), a digit opens
    /// that link. nil: the key goes on as usual (and ends the choosing).
    func linkLabelKey(_ key: Key, _ state: inout AppState) -> [Effect]? {
        guard let labels = state.linkLabels else { return nil }
        if key == .escape {
            state.linkLabels = nil
            return []
        }
        guard labels.choosing else { return nil }
        state.linkLabels?.choosing = false
        if case .char(let c) = key, let n = c.wholeNumberValue, n >= 1, n <= min(9, labels.urls.count) {
            state.linkLabels = nil
            return [.openURL(labels.urls[n - 1])]
        }
        return nil
    }

    /// The open-link key (Alt-U): the links on screen labelled, and the next digit opens one.
    func openLinkKey(_ state: inout AppState) -> [Effect] {
        let effects = urlCommand(SlashCommand.Invocation(words: ["/url"], text: "/url"), &state)
        if state.linkLabels != nil {
            state.linkLabels?.choosing = true
            state.notice = "1–9 opens (Esc: none): " + (state.notice ?? "").replacingOccurrences(of: "/url N opens: ", with: "")
        }
        return effects
    }

    /// `/url` labels the links on screen `[1] [2] …` (newest first) and lists them; `/url N` opens link N.
    func urlCommand(_ c: SlashCommand.Invocation, _ state: inout AppState) -> [Effect] {
        // `/url N` opens the link numbered N on screen; `/url` numbers them afresh.
        let shown = state.linkLabels.flatMap { $0.channelUrl == state.selected && $0.thread == state.thread?.parent.messageId ? $0.urls : nil }
        let links = c.words.count == 2 ? shown ?? Self.screenLinks(state) : Self.screenLinks(state)
        guard c.words.count <= 2 else {
            state.notice = "usage: /url [N]"
            return []
        }
        guard !links.isEmpty else {
            state.linkLabels = nil
            state.notice = "no links on screen"
            return []
        }
        guard c.words.count == 2 else {
            state.linkLabels = LinkLabels(channelUrl: state.selected, thread: state.thread?.parent.messageId, urls: links)
            state.notice = "/url N opens: " + links.prefix(9).enumerated().map { "[\($0.offset + 1)] \($0.element)" }.joined(separator: "  ")
            return []
        }
        guard let n = Int(c.words[1]), n >= 1, n <= links.count else {
            state.notice = "no link \(c.words[1]): /url N takes 1 to \(links.count)"
            return []
        }
        state.linkLabels = nil
        return [.openURL(links[n - 1])]
    }

    /// `/copy`: the last message of the channel (or thread) on screen, to the clipboard.
    func copyCommand(_ state: inout AppState) -> [Effect] {
        guard let m = Self.pickable(state).last else {
            state.notice = "no message to copy"
            return []
        }
        return copy(Self.copiedText(m), &state)
    }

    /// `/log`: the log of the channel on screen, in the pager (``ChatLog``).
    func logCommand(_ state: inout AppState) -> [Effect] {
        guard let url = state.selected else {
            state.notice = "no channel on screen"
            return []
        }
        return [.openLog(channelUrl: url)]
    }

    /// What `y` copies of a message: its text, or a file message's file names.
    static func copiedText(_ m: Message) -> String {
        m.kind == .file && m.text.isEmpty ? m.files.map(\.name).joined(separator: "\n") : m.text
    }

    /// What `Y` copies of a message: its file's URL, else its first link.
    static func copiedLink(_ m: Message) -> String? {
        m.files.first?.url ?? Markdown(m.text).links.first
    }

    /// `text` to the clipboard (OSC 52) when the `clipboard` setting allows it.
    func copy(_ text: String, _ state: inout AppState) -> [Effect] {
        guard state.settings.clipboard else {
            state.notice = "clipboard is off (/set clipboard on)"
            return []
        }
        guard !text.isEmpty else {
            state.notice = "nothing to copy"
            return []
        }
        state.notice = "copied \(text.count) characters"
        return [.copy(text)]
    }
}

/// The links `/url` numbered, for the channel (and thread) they were numbered in.
public struct LinkLabels: Sendable, Equatable {
    public var channelUrl: String?
    public var thread: Int64?
    public var urls: [String]
    /// Labelled by the open-link key: the next key, a digit, opens that link.
    public var choosing = false

    /// Link → its number.
    public var numbers: [String: Int] {
        Dictionary(urls.enumerated().map { ($0.element, $0.offset + 1) }, uniquingKeysWith: { a, _ in a })
    }
}
