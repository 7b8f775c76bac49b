import Foundation

/// A key as the terminal adapter reports it (``InputDecoder`` turns the terminal's bytes into these).
public enum Key: Hashable, Sendable {
    case char(Character)
    /// Ctrl with a letter (`a`…`z`), or with ` `, `\`, `]`, `^`, `_`.
    case ctrl(Character)
    /// Alt (Meta) with a printable character: the terminal sends Esc first.
    case alt(Character)
    case enter, backspace, delete, left, right, home, end, up, down, pageUp, pageDown, tab, escape
    case altUp, altDown, altEnter, altBackspace, ctrlLeft, ctrlRight, shiftTab
    /// F1…F12.
    case function(Int)
}

/// What a key does. Every action of the client is here, so every one can be bound in the config
/// (`[keys]`, by these names).
public enum Command: String, Hashable, Sendable, CaseIterable {
    // Sending and composing
    case send, newline
    case editor = "external-editor"
    // The input line (readline)
    case cursorLeft = "backward-char"
    case cursorRight = "forward-char"
    case wordLeft = "backward-word"
    case wordRight = "forward-word"
    case cursorHome = "beginning-of-line"
    case cursorEnd = "end-of-line"
    case deleteBackward = "backward-delete-char"
    case deleteForward = "delete-char"
    case deleteOrQuit = "delete-char-or-quit"
    case deleteWord = "unix-word-rubout"
    case deleteWordBackward = "backward-kill-word"
    case deleteWordForward = "kill-word"
    case deleteLine = "unix-line-discard"
    case killToEnd = "kill-line"
    case clearInput = "kill-whole-line"
    case yank, undo
    case historyPrevious = "previous-history"
    case historyNext = "next-history"
    case completeNext = "complete"
    case completePrevious = "complete-backward"
    case spellSuggest = "spell-suggest"
    // Channels
    case nextChannel = "next-channel"
    case previousChannel = "previous-channel"
    case nextActivity = "next-activity"
    case switcher = "switch-channel"
    case jump1 = "jump-1"
    case jump2 = "jump-2"
    case jump3 = "jump-3"
    case jump4 = "jump-4"
    case jump5 = "jump-5"
    case jump6 = "jump-6"
    case jump7 = "jump-7"
    case jump8 = "jump-8"
    case jump9 = "jump-9"
    case jump10 = "jump-10"
    // The message pane
    case scrollUp = "page-up"
    case scrollDown = "page-down"
    case lineUp = "line-up"
    case lineDown = "line-down"
    case halfPageUp = "half-page-up"
    case halfPageDown = "half-page-down"
    case scrollTop = "scroll-top"
    case scrollBottom = "scroll-bottom"
    case pickMessage = "pick-message"
    case editLast = "edit-last"
    case search
    case openImage = "open-image"
    case openLink = "open-link"
    case otherPane = "other-pane"
    // Views
    case help
    case channelInfo = "channel-info"
    case browseChannels = "browse-channels"
    case togglePeople = "people-pane"
    case redraw, quit
    // vi modes
    case normalMode = "normal-mode"
    case insertMode = "insert-mode"
    case insertAfter = "append"
    case insertAtStart = "insert-at-start"
    case appendAtEnd = "append-at-end"
    case commandLine = "command-line"
    case searchPrompt = "search-prompt"
    case changeToEnd = "change-line"
    case wordEnd = "end-of-word"
    case deleteCharUnder = "vi-delete-char"
    case deleteCharBefore = "vi-delete-char-before"

    /// The channel number a jump command goes to (1…10).
    public var jumpNumber: Int? {
        switch self {
        case .jump1: 1
        case .jump2: 2
        case .jump3: 3
        case .jump4: 4
        case .jump5: 5
        case .jump6: 6
        case .jump7: 7
        case .jump8: 8
        case .jump9: 9
        case .jump10: 10
        default: nil
        }
    }

    /// What the help screen says it does: each command its own words (a pair of keys that share a row
    /// in no list gets one line each, so each says what its key does).
    public var summary: String {
        switch self {
        case .send: "send the message"
        case .newline: "a new line in the message"
        case .editor: "edit the draft in $EDITOR"
        case .cursorLeft: "back a character"
        case .cursorRight: "forward a character"
        case .wordLeft: "back a word"
        case .wordRight: "forward a word"
        case .wordEnd: "to the end of the word"
        case .cursorHome: "to the start of the line"
        case .cursorEnd: "to the end of the line"
        case .deleteBackward: "delete the character before"
        case .deleteForward: "delete the character under the cursor"
        case .deleteOrQuit: "delete the character under the cursor; quit on an empty line"
        case .deleteWord: "delete to the space before"
        case .deleteWordBackward: "delete the word before"
        case .deleteWordForward: "delete the word after"
        case .deleteLine: "delete to the start of the line"
        case .killToEnd: "delete to the end of the line"
        case .clearInput: "clear the input"
        case .yank: "paste what was deleted last"
        case .undo: "undo an edit"
        case .historyPrevious: "the line above, else what you sent here before"
        case .historyNext: "the line below, else what you sent here after"
        case .completeNext: "complete @nick, /command, #channel, :emoji:, path (again: next)"
        case .completePrevious: "complete, going back through the candidates"
        case .spellSuggest: "spelling: the word before the cursor becomes a suggestion (again: the next)"
        case .nextChannel: "next channel"
        case .previousChannel: "previous channel"
        case .nextActivity: "next channel with activity (mentions first)"
        case .switcher: "switch channel by name (exact, prefix, then fuzzy)"
        case .jump1, .jump2, .jump3, .jump4, .jump5, .jump6, .jump7, .jump8, .jump9, .jump10: "channel N of the list"
        case .scrollUp: "scroll a page up (older history loads at the top)"
        case .scrollDown: "scroll a page down"
        case .lineUp: "scroll a line up"
        case .lineDown: "scroll a line down"
        case .halfPageUp: "scroll half a page up"
        case .halfPageDown: "scroll half a page down"
        case .scrollTop: "to the oldest loaded message"
        case .scrollBottom: "to the newest message"
        case .pickMessage: "pick a message: reply, thread, react, edit, delete, save, open"
        case .editLast: "edit your last message"
        case .search: "search messages"
        case .searchPrompt: "vi: search messages"
        case .openImage: "open the last image in $BROWSER / xdg-open"
        case .openLink: "label the links on screen; then 1–9 opens one, Esc clears"
        case .otherPane: "type in the other pane (after /split)"
        case .help: "this help"
        case .channelInfo: "this channel: members, flags, actions"
        case .browseChannels: "public channels to join; Tab: open, then hidden ones"
        case .togglePeople: "people pane: who is here (/pane)"
        case .redraw: "redraw the screen"
        case .quit: "quit"
        case .normalMode: "vi: normal mode"
        case .insertMode: "vi: insert before the cursor"
        case .insertAfter: "vi: insert after the cursor"
        case .insertAtStart: "vi: insert at the start of the line"
        case .appendAtEnd: "vi: insert at the end of the line"
        case .commandLine: "vi: a /command"
        case .changeToEnd: "vi: change to the end of the line"
        case .deleteCharUnder: "vi: delete the character under the cursor"
        case .deleteCharBefore: "vi: delete the character before the cursor"
        }
    }

    /// The names `[keys]` in the config binds, in this order, as lines of at most `width` columns, each
    /// starting with `prefix` (`tern --help` and docs/config.example.toml show this list).
    public static func namesText(width: Int = 76, prefix: String = "") -> [String] {
        var lines: [String] = []
        var line = prefix
        for (i, c) in allCases.enumerated() {
            let word = c.rawValue + (i == allCases.count - 1 ? "" : ",")
            if line.count > prefix.count && line.count + 1 + word.count > width {
                lines.append(line)
                line = prefix
            }
            line += (line.count > prefix.count ? " " : "") + word
        }
        lines.append(line)
        return lines
    }

    /// The bindable names closest to `name` (a typo in `[keys]`): the ones it starts, contains or shares
    /// its first word with.
    public static func suggestions(for name: String) -> [String] {
        let n = name.lowercased()
        guard !n.isEmpty else { return [] }
        let first = n.split(separator: "-").first.map(String.init) ?? n
        let close = allCases.map(\.rawValue).filter { $0.hasPrefix(n) || $0.contains(n) || n.contains($0) }
        let sameWord = allCases.map(\.rawValue).filter { !close.contains($0) && $0.split(separator: "-").contains { String($0) == first } }
        return close + sameWord
    }
}

/// The key map: which key sequence runs which command, per mode. Two presets: `emacs` (the default,
/// readline keys, one mode) and `vi` (modal: insert mode edits like readline, Esc goes to normal
/// mode with `hjkl`, `/`, `:`). Sequences are keys in a row (`C-x C-e`).
public struct KeyTable: Sendable, Equatable {
    public enum Preset: String, Sendable, CaseIterable { case emacs, vi }
    public enum Mode: String, Sendable, Hashable { case insert, normal }

    public var preset: Preset
    /// Insert mode (emacs: the only mode).
    public var bindings: [[Key]: Command]
    /// vi's normal mode.
    public var normal: [[Key]: Command]

    public init(preset: Preset) {
        self.preset = preset
        var b: [[Key]: Command] = [
            [.enter]: .send, [.altEnter]: .newline, [.ctrl("x"), .ctrl("e")]: .editor,
            [.left]: .cursorLeft, [.ctrl("b")]: .cursorLeft, [.right]: .cursorRight, [.ctrl("f")]: .cursorRight,
            [.alt("b")]: .wordLeft, [.alt("f")]: .wordRight, [.ctrlLeft]: .wordLeft, [.ctrlRight]: .wordRight,
            [.home]: .cursorHome, [.ctrl("a")]: .cursorHome, [.end]: .cursorEnd, [.ctrl("e")]: .cursorEnd,
            [.backspace]: .deleteBackward, [.ctrl("h")]: .deleteBackward, [.delete]: .deleteForward, [.ctrl("d")]: .deleteOrQuit,
            [.ctrl("w")]: .deleteWord, [.altBackspace]: .deleteWordBackward, [.alt("d")]: .deleteWordForward,
            [.ctrl("u")]: .deleteLine, [.ctrl("k")]: .killToEnd, [.ctrl("y")]: .yank,
            [.ctrl("_")]: .undo, [.ctrl("x"), .ctrl("u")]: .undo,
            [.up]: .historyPrevious, [.down]: .historyNext, [.tab]: .completeNext, [.shiftTab]: .completePrevious,
            [.ctrl("n")]: .nextChannel, [.ctrl("p")]: .previousChannel, [.altDown]: .nextChannel, [.altUp]: .previousChannel,
            [.alt("a")]: .nextActivity, [.alt("j")]: .switcher,
            [.pageUp]: .scrollUp, [.pageDown]: .scrollDown,
            [.ctrl("r")]: .pickMessage, [.alt("e")]: .editLast, [.ctrl("s")]: .search, [.alt("o")]: .openImage,
            [.alt("u")]: .openLink, [.alt("w")]: .otherPane, [.alt("s")]: .spellSuggest,
            [.escape]: .help, [.function(1)]: .help, [.ctrl("o")]: .channelInfo, [.ctrl("g")]: .browseChannels,
            [.ctrl("t")]: .togglePeople, [.ctrl("l")]: .redraw, [.ctrl("c")]: .quit,
        ]
        for n in 1...10 { b[[.alt(Character(String(n % 10)))]] = Command(rawValue: "jump-\(n)") }
        var normal: [[Key]: Command] = [:]
        if preset == .vi {
            b[[.escape]] = .normalMode
            normal = [
                [.char("i")]: .insertMode, [.char("a")]: .insertAfter, [.char("I")]: .insertAtStart, [.char("A")]: .appendAtEnd,
                [.char("h")]: .cursorLeft, [.char("l")]: .cursorRight, [.left]: .cursorLeft, [.right]: .cursorRight,
                [.char("0")]: .cursorHome, [.char("^")]: .cursorHome, [.char("$")]: .cursorEnd,
                [.char("w")]: .wordRight, [.char("b")]: .wordLeft, [.char("e")]: .wordEnd,
                [.char("x")]: .deleteCharUnder, [.char("X")]: .deleteCharBefore, [.char("D")]: .killToEnd, [.char("C")]: .changeToEnd,
                [.char("d"), .char("d")]: .clearInput, [.char("u")]: .undo, [.char("p")]: .yank,
                [.char("j")]: .lineDown, [.char("k")]: .lineUp, [.down]: .lineDown, [.up]: .lineUp,
                [.ctrl("d")]: .halfPageDown, [.ctrl("u")]: .halfPageUp, [.pageUp]: .scrollUp, [.pageDown]: .scrollDown,
                [.char("g"), .char("g")]: .scrollTop, [.char("G")]: .scrollBottom,
                [.char("J")]: .nextChannel, [.char("K")]: .previousChannel,
                [.char("/")]: .searchPrompt, [.char(":")]: .commandLine, [.char("?")]: .help, [.function(1)]: .help,
                [.enter]: .send, [.escape]: .normalMode, [.ctrl("c")]: .quit, [.ctrl("r")]: .pickMessage,
                [.char("o")]: .openImage, [.ctrl("l")]: .redraw, [.ctrl("w"), .char("w")]: .otherPane,
            ]
            for (k, c) in b where k.count == 1 {
                switch k[0] {
                case .alt, .altUp, .altDown, .ctrl("n"), .ctrl("p"), .ctrl("o"), .ctrl("g"), .ctrl("t"), .ctrl("s"): normal[k] = c
                default: break
                }
            }
        }
        bindings = b
        self.normal = normal
    }

    public static let standard = KeyTable(preset: .emacs)

    public func table(_ mode: Mode) -> [[Key]: Command] { mode == .normal && preset == .vi ? normal : bindings }

    /// The command for a sequence in a mode; `.prefix` when the sequence starts a longer binding.
    public enum Match: Equatable {
        case command(Command)
        case prefix, none
    }

    public func match(_ keys: [Key], mode: Mode) -> Match {
        let t = table(mode)
        if let c = t[keys] { return .command(c) }
        if t.keys.contains(where: { $0.count > keys.count && Array($0.prefix(keys.count)) == keys }) { return .prefix }
        return .none
    }

    public func command(for key: Key, mode: Mode = .insert) -> Command? {
        if case .command(let c) = match([key], mode: mode) { return c }
        return nil
    }

    /// Binds (or, with `nil`, unbinds) a sequence written as in the config (`"C-x C-e"`, `"M-a"`).
    public mutating func bind(_ sequence: String, to command: Command?, mode: Mode = .insert) throws {
        let keys = try Self.parse(sequence)
        if mode == .normal {
            normal[keys] = command
        } else {
            bindings[keys] = command
        }
    }

    // MARK: Names

    public struct BindingError: Error, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    static let namedKeys: [String: Key] = [
        "enter": .enter, "return": .enter, "ret": .enter, "backspace": .backspace, "bs": .backspace, "delete": .delete, "del": .delete,
        "left": .left, "right": .right, "home": .home, "end": .end, "up": .up, "down": .down, "pageup": .pageUp, "pgup": .pageUp,
        "pagedown": .pageDown, "pgdn": .pageDown, "tab": .tab, "escape": .escape, "esc": .escape, "space": .char(" "),
    ]

    /// A key sequence from its written form: keys separated by spaces, each `C-x`/`Ctrl-x`, `M-x`/`Alt-x`,
    /// `S-Tab`, a name (`Enter`, `PgUp`, `F1`…) or one character.
    public static func parse(_ text: String) throws -> [Key] {
        let words = text.split(separator: " ").map(String.init)
        guard !words.isEmpty else { throw BindingError(message: "an empty key") }
        return try words.map(parseKey)
    }

    static func parseKey(_ word: String) throws -> Key {
        var rest = Substring(word)
        var ctrl = false
        var alt = false
        var shift = false
        while rest.count > 2 {
            let lower = rest.lowercased()
            if lower.hasPrefix("c-") {
                ctrl = true
                rest = rest.dropFirst(2)
            } else if lower.hasPrefix("ctrl-") || lower.hasPrefix("ctrl+") {
                ctrl = true
                rest = rest.dropFirst(5)
            } else if lower.hasPrefix("m-") || lower.hasPrefix("a-") {
                alt = true
                rest = rest.dropFirst(2)
            } else if lower.hasPrefix("alt-") || lower.hasPrefix("alt+") || lower.hasPrefix("meta-") {
                alt = true
                rest = rest.dropFirst(lower.hasPrefix("meta-") ? 5 : 4)
            } else if lower.hasPrefix("s-") || lower.hasPrefix("shift-") {
                shift = true
                rest = rest.dropFirst(lower.hasPrefix("s-") ? 2 : 6)
            } else {
                break
            }
        }
        let name = String(rest)
        let lower = name.lowercased()
        func bad() -> BindingError { BindingError(message: "unknown key \"\(word)\" (e.g. C-k, M-a, C-x C-e, S-Tab, F1, PgUp, Enter)") }
        if lower.hasPrefix("f"), let n = Int(lower.dropFirst()), (1...12).contains(n), !ctrl, !alt, !shift { return .function(n) }
        if let k = namedKeys[lower] {
            switch (ctrl, alt, shift, k) {
            case (false, false, false, _): return k
            case (false, true, false, .enter): return .altEnter
            case (false, true, false, .backspace): return .altBackspace
            case (false, true, false, .up): return .altUp
            case (false, true, false, .down): return .altDown
            case (true, false, false, .left): return .ctrlLeft
            case (true, false, false, .right): return .ctrlRight
            case (false, false, true, .tab): return .shiftTab
            case (true, false, false, .char(" ")): return .ctrl(" ")
            case (false, true, false, .char(" ")): return .alt(" ")
            default: throw bad()
            }
        }
        guard name.count == 1, let c = name.first, !shift else { throw bad() }
        if ctrl && alt { throw bad() }
        if ctrl {
            let l = Character(c.lowercased())
            guard ("a"..."z").contains(l) || " \\]^_".contains(l) else { throw bad() }
            return .ctrl(l)
        }
        return alt ? .alt(c) : .char(c)
    }

    /// A key's written name, as the help screen and the config use it.
    public static func name(_ k: Key) -> String {
        switch k {
        case .char(" "): "Space"
        case .char(let c): String(c)
        case .ctrl(let c): "Ctrl-" + (c == " " ? "Space" : c.uppercased())
        case .alt(let c): "Alt-" + String(c)
        case .enter: "Enter"
        case .backspace: "Backspace"
        case .delete: "Delete"
        case .left: "←"
        case .right: "→"
        case .home: "Home"
        case .end: "End"
        case .up: "↑"
        case .down: "↓"
        case .pageUp: "PgUp"
        case .pageDown: "PgDn"
        case .tab: "Tab"
        case .escape: "Esc"
        case .altUp: "Alt-↑"
        case .altDown: "Alt-↓"
        case .altEnter: "Alt-Enter"
        case .altBackspace: "Alt-Backspace"
        case .ctrlLeft: "Ctrl-←"
        case .ctrlRight: "Ctrl-→"
        case .shiftTab: "Shift-Tab"
        case .function(let n): "F\(n)"
        }
    }

    public static func name(_ keys: [Key]) -> String { keys.map { name($0) }.joined(separator: " ") }

    /// The live key map for the help screen: one line per command, with every key bound to it; the ten
    /// channel jumps on one line (in the short form while they are the preset's Alt-digits).
    public func helpLines(mode: Mode = .insert) -> [(keys: String, what: String, command: Command)] {
        var byCommand: [Command: [String]] = [:]
        for (k, c) in table(mode) { byCommand[c, default: []].append(Self.name(k)) }
        var out: [(String, String, Command)] = []
        var jumps: [String] = []
        for c in Command.allCases {
            guard let names = byCommand[c] else { continue }
            let keys = names.sorted { ($0.count, $0) < ($1.count, $1) }.joined(separator: ", ")
            if let n = c.jumpNumber {
                jumps.append(keys)
                if n == 10 || c == Command.allCases.last(where: { $0.jumpNumber != nil && byCommand[$0] != nil }) {
                    let preset = (1...10).map { "Alt-\($0 % 10)" }
                    out.append((jumps == preset ? "Alt-1…Alt-9, Alt-0" : jumps.joined(separator: ", "), c.summary, c))
                }
                continue
            }
            out.append((keys, c.summary, c))
        }
        return out
    }
}
