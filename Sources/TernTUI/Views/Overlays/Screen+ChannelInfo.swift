import Foundation
import TernKit

/// The channel info overlay (Ctrl-O).
extension Screen {
    /// The channel info view: what the channel is, who is in it, its metadata, and the keys that act on it.
    func drawInfo(_ c: GroupChannel, _ state: AppState, _ g: inout CellGrid) {
        let me = state.me.userId
        var kind = [c.isPublic ? "public" : "private"]
        if c.isDistinct { kind.append("distinct") }
        if c.isSuper { kind.append("super") }
        if c.isEphemeral { kind.append("ephemeral") }
        if !c.customType.isEmpty { kind.append("type " + c.customType) }
        var flags: [String] = [
            c.myMemberState == "invited" ? "invited by " + (c.inviter?.displayName ?? "someone") : "you are a member"
        ]
        if c.myRole == "operator" { flags.append("operator") }
        if c.isFrozen { flags.append("frozen") }
        switch c.hiddenState {
        case "hidden_allow_auto_unhide": flags.append("hidden")
        case "hidden_prevent_auto_unhide": flags.append("archived")
        default: break
        }
        var lines: [(String, String)] = state.accountIndex(of: c.url).map { [("Account", state.accounts[$0].name)] } ?? []
        lines += [
            ("URL", AccountKey.url(of: c.url)), ("Kind", kind.joined(separator: ", ")), ("State", flags.joined(separator: ", ")),
            ("Members", "\(c.memberCount) (\(c.joinedMemberCount) joined)"),
        ]
        for m in c.members.sorted(by: { ($0.role == "operator" ? 0 : 1, $0.userId) < ($1.role == "operator" ? 0 : 1, $1.userId) }) {
            var tags: [String] = []
            if m.role == "operator" { tags.append("operator") }
            if m.state != "joined" { tags.append(m.state) }
            if m.isOnline { tags.append("online") }
            let who = m.user.displayName + (m.userId == me ? " (you)" : "")
            lines.append(("", who + (tags.isEmpty ? "" : " · " + tags.joined(separator: ", "))))
        }
        for (k, v) in c.metadata.sorted(by: { $0.key < $1.key }) { lines.append(("Metadata", "\(k) = \(v)")) }
        let available: Set<String> =
            c.myMemberState == "invited"
            ? ["accept", "decline"]
            : ["invite", "rename", "leave", "hide", "archive"].reduce(into: Set<String>()) { $0.insert($1) }
                .union(c.myRole == "operator" ? ["freeze", "unfreeze"] : [])
        let actions = Reducer.infoActions.filter { available.contains($0.command) }.map { "\($0.key) \($0.what)" }
        let labelWidth = 9
        let contentWidth = max(lines.map { labelWidth + CellWidth.of($0.1) }.max() ?? 0, actions.map { CellWidth.of($0) + 2 }.max() ?? 0)
        let box = drawBox(
            &g, title: "#" + c.title(me: me) + " (any other key closes)", width: contentWidth + 6, height: lines.count + actions.count + 5)
        var y = box.y + 1
        let shown = max(0, box.h - 3 - actions.count)
        if lines.count > shown, shown > 1 {
            let hidden = lines.count - (shown - 1)
            lines = Array(lines.prefix(shown - 1)) + [("…", "\(hidden) more lines: a taller terminal shows them")]
        }
        for (label, value) in lines.prefix(shown) {
            g.write(label, x: box.x, y: y, style: theme.style("help.key"), limit: box.x + box.w)
            g.write(value, x: box.x + labelWidth, y: y, style: theme.style("help"), limit: box.x + box.w)
            y += 1
        }
        y += 1
        for a in actions where y < box.y + box.h {
            g.write(String(a.prefix(1)), x: box.x, y: y, style: theme.style("help.key"))
            g.write(String(a.dropFirst(2)), x: box.x + 2, y: y, style: theme.style("help"), limit: box.x + box.w)
            y += 1
        }
    }
}
