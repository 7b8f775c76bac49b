import Foundation
import TernKit

/// Links you can open (`/url`).
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

    /// `/url` labels the links on screen `[1] [2] …` (newest first) and lists them; `/url N` opens link N.
    func urlCommand(_ c: SlashCommand.Invocation, _ state: inout AppState) -> [Effect] {
        let links =
            state.linkLabels.flatMap { $0.channelUrl == state.selected && $0.thread == state.thread?.parent.messageId ? $0.urls : nil }
            ?? Self.screenLinks(state)
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
}

/// The links `/url` numbered, for the channel (and thread) they were numbered in.
public struct LinkLabels: Sendable, Equatable {
    public var channelUrl: String?
    public var thread: Int64?
    public var urls: [String]

    /// Link → its number.
    public var numbers: [String: Int] {
        Dictionary(urls.enumerated().map { ($0.element, $0.offset + 1) }, uniquingKeysWith: { a, _ in a })
    }
}
