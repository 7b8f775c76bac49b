import Foundation
import TernKit

/// The quick-edit grammar of wee-slack and endcord, typed as a message: `s/old/new/` edits your last
/// message in the channel (`s/old/new/g`: every match; `\/` is a slash inside a part), `+:emoji:` reacts
/// to the last message, `N+:emoji:` to the Nth last, `-:emoji:` (or `N-:emoji:`) takes your reaction
/// away. A line that is exactly one of these is never sent as text.
public enum QuickEdit: Sendable, Equatable {
    case substitute(old: String, new: String, global: Bool)
    case react(key: String, nth: Int, add: Bool)

    public static func parse(_ text: String) -> QuickEdit? {
        if text.hasPrefix("s/") { return substitution(text.dropFirst(2)) }
        var digits = ""
        var rest = Substring(text)
        while let c = rest.first, c.isASCII, c.isNumber {
            digits.append(c)
            rest = rest.dropFirst()
        }
        guard let sign = rest.first, sign == "+" || sign == "-" else { return nil }
        rest = rest.dropFirst()
        guard rest.count >= 3, rest.first == ":", rest.last == ":" else { return nil }
        let key = rest.dropFirst().dropLast()
        guard !key.contains(where: { $0 == ":" || $0.isWhitespace }) else { return nil }
        let nth = digits.isEmpty ? 1 : Int(digits) ?? 0
        guard nth >= 1 else { return nil }
        return .react(key: String(key), nth: nth, add: sign == "+")
    }

    /// `old/new/` or `old/new/g` (after `s/`).
    static func substitution(_ body: Substring) -> QuickEdit? {
        var parts: [String] = [""]
        var escaped = false
        for c in body {
            if escaped {
                if c != "/" { parts[parts.count - 1].append("\\") }
                parts[parts.count - 1].append(c)
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else if c == "/" {
                parts.append("")
            } else {
                parts[parts.count - 1].append(c)
            }
        }
        guard parts.count == 3, !parts[0].isEmpty, parts[2].isEmpty || parts[2] == "g" else { return nil }
        return .substitute(old: parts[0], new: parts[1], global: parts[2] == "g")
    }

    /// What the help lists.
    public static let helpLines: [(String, String)] = [
        ("s/old/new/", "edit your last message here (s/old/new/g: every match)"),
        ("+:emoji:", "react to the last message (2+:emoji: the one before it)"),
        ("-:emoji:", "take your reaction away (N-:emoji: from the Nth last)"),
    ]
}

extension Reducer {
    /// Carries out a quick edit in the channel (or thread) on screen.
    func quickEdit(_ q: QuickEdit, _ state: inout AppState) -> [Effect] {
        switch q {
        case .substitute(let old, let new, let global):
            let last = Self.visibleMessages(state).last { $0.sender?.userId == state.me.userId && $0.kind == .user && $0.status != .failed }
            guard let m = last, m.status == .succeeded else {
                // Sent a moment ago and not stored yet: it has no id to edit by.
                state.notice = last == nil ? "nothing of yours to edit here" : "your last message is still on its way: s/…/…/ again once it shows ✓"
                return []
            }
            let text: String
            if global {
                text = m.text.replacingOccurrences(of: old, with: new)
            } else if let r = m.text.range(of: old) {
                text = m.text.replacingCharacters(in: r, with: new)
            } else {
                text = m.text
            }
            guard text != m.text else {
                state.notice = "no \"\(old)\" in your last message"
                return []
            }
            guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                state.notice = "that would leave the message empty (/delete deletes it)"
                return []
            }
            return [.editMessage(m, text: text)]
        case .react(let key, let nth, let add):
            let list = Self.pickable(state).filter { $0.kind != .admin }
            guard nth <= list.count else {
                state.notice = list.isEmpty ? "no message to react to" : "no message \(nth) back (there are \(list.count))"
                return []
            }
            let m = list[list.count - nth]
            let mine = m.reactions.first { $0.key == key }?.userIds.contains(state.me.userId) ?? false
            if add && mine {
                state.notice = "you reacted \(Self.glyph(key)) already"
                return []
            }
            if !add && !mine {
                state.notice = "no \(Self.glyph(key)) of yours there"
                return []
            }
            return [.react(m, key: key, add: add)]
        }
    }
}
