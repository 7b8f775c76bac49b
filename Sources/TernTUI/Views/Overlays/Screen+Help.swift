import Foundation
import TernKit

/// The help, settings and emoji overlays: every key and command, every setting, the server's emojis.
extension Screen {
    /// The slash commands the help lists (`SlashCommand.all`), each with what it does. A key named beside a
    /// command is the live one.
    func commandHelp() -> [(String, String)] {
        let bound = keys.helpLines(mode: .insert)
        return SlashCommand.helpLines.map { line in
            let key = line.key.flatMap { command in bound.first { $0.command == command }?.keys }
            return (line.usage, line.what + (key.map { " (\($0))" } ?? ""))
        } + [
            ("", ""),
            ("Quick edits", "typed as a message"),
        ] + QuickEdit.helpLines + [
            ("", ""),
            ("Channels", ""),
        ] + Self.channelKinds.map { ($0.kind, $0.what) }
    }

    /// What the kinds of channel are (the help and the README say the same).
    public static let channelKinds: [(kind: String, what: String)] = [
        ("private", "members only: join by invitation (/create, /dm, /invite)"),
        ("public", "a group channel anyone may find (Ctrl-G) and /join (/create -public)"),
        ("open", "a room without membership: /enter, chat, /exit; shows who is in it now"),
    ]

    /// How many lines an overlay shows at once on a terminal `height` rows tall, while it scrolls (a line
    /// says what is below): PgDn moves by this much.
    public static func overlayPage(height: Int) -> Int { max(1, height - 7) }

    /// The overlay on screen (help, settings, emojis): its title and its lines (key, what).
    public func overlayLines(_ state: AppState) -> (title: String, lines: [(String, String)]) {
        switch state.sheet {
        case .settings:
            var lines: [(String, String)] = Settings.settable.map { s in
                let value = state.settings.value(s.key) ?? ""
                return (s.key, (value.isEmpty ? "(none)" : value) + "   — " + s.takes)
            }
            lines += [("", ""), ("/set KEY VALUE", "changes one now; /save writes them to the config file")]
            return ("Settings (↑/↓ PgUp/PgDn scroll, any other key closes)", lines)
        case .emojis:
            // The glyph where tern knows it (a server's own keys may name none).
            var lines: [(String, String)] = state.emojiKeys.map { key in
                let glyph = Reducer.glyph(key)
                return (":\(key):", glyph == ":\(key):" ? "" : glyph)
            }
            if lines.isEmpty {
                lines = [("", "this server lists no emojis: any key goes"), ("", "e.g. /react thumbsup, /react :heart:")]
            }
            lines += [("", ""), ("/react KEY", "reacts to the last message (Ctrl-R picks another)")]
            return ("The server's emojis (\(state.emojiKeys.count)) · any other key closes", lines)
        case nil:
            break
        }
        var lines = commandHelp()
        if keys.preset == .vi {
            lines.append(("", ""))
            lines.append(("Normal mode (vi)", ""))
            lines += keys.helpLines(mode: .normal).map { ($0.keys, $0.what) }
            lines.append(("", ""))
            lines.append(("Insert mode (vi)", ""))
        } else {
            lines.append(("", ""))
            lines.append(("Keys (emacs)", ""))
        }
        lines += keys.helpLines(mode: .insert).map { ($0.keys, $0.what) }
        return ("Keys and commands (↑/↓ PgUp/PgDn scroll, any other key closes)", lines)
    }

    /// The help, the settings or the emojis in a box, scrolled to `helpScroll`.
    func drawOverlay(_ state: AppState, _ g: inout CellGrid) {
        var (title, lines) = overlayLines(state)
        let keyWidth = lines.map { CellWidth.of($0.0) }.max() ?? 0
        // Border, one blank column, keys, two columns, text, one blank column, border.
        let width = max(CellWidth.of(title) + 6, 1 + 1 + keyWidth + 2 + (lines.map { CellWidth.of($0.1) }.max() ?? 0) + 1 + 1)
        let box = drawBox(&g, title: title, width: width, height: lines.count + 4)
        let room = box.h - 2
        if lines.count > room, room > 1 {
            // Scrolled; say what does not fit rather than dropping it silently. (room - 1 = overlayPage.)
            let first = max(0, min(state.helpScroll, lines.count - (room - 1)))
            let below = lines.count - first - (room - 1)
            lines = Array(lines.dropFirst(first).prefix(room - 1)) + [(below > 0 ? "↓" : "", below > 0 ? "\(below) more lines (↓, PgDn)" : "— end —")]
        }
        for (i, (k, what)) in lines.prefix(room).enumerated() {
            let y = box.y + 1 + i
            g.write(k, x: box.x, y: y, style: theme.style("help.key"), limit: box.x + box.w)
            g.write(what, x: box.x + keyWidth + 2, y: y, style: theme.style("help"), limit: box.x + box.w)
        }
    }
}
