import Foundation

/// A theme: styles by dotted key (`roomlist.unread` falls back to `roomlist`, then `default`).
/// Files are INI (research/tui.md §4): `[meta]` (name, background), `[palette]` (aliases) and
/// `[styles]` with lines `key = <fg> [on <bg>] [bold] [dim] [italic] [underline] [reverse] [strike]`.
public struct Theme: Sendable, Equatable {
    public var name: String
    public var background: String
    public private(set) var styles: [String: Style]
    /// The colours nicknames take (by a stable hash of the user id); `[meta] nick_colors = 6 2 3 …`.
    public var nickPalette: [Color] = [6, 2, 3, 5, 4, 1, 14, 10, 11, 13, 12, 9].map { .index($0) }

    /// Every key a theme may set.
    public static let keys: Set<String> = [
        "default", "border", "title",
        "roomlist", "roomlist.selected", "roomlist.unread", "roomlist.mention", "roomlist.count", "roomlist.header",
        "timeline", "timeline.timestamp", "timeline.date_separator", "timeline.text", "timeline.text.self", "timeline.nick",
        "timeline.nick.self", "timeline.event", "timeline.pending", "timeline.failed", "timeline.receipt", "timeline.read_marker",
        "timeline.notice", "timeline.admin", "timeline.mention", "timeline.quote", "timeline.reaction", "timeline.thread",
        "timeline.preview", "timeline.file", "timeline.edited", "timeline.picked", "timeline.highlight",
        "timeline.code", "timeline.code_block", "timeline.code_block.language", "timeline.code_block.keyword",
        "timeline.code_block.string", "timeline.code_block.comment", "timeline.block_quote", "timeline.link", "timeline.link.url",
        "timeline.list_marker",
        "typing", "input", "input.prompt", "input.command", "input.misspelled",
        "status", "status.connected", "status.offline", "status.reconnecting", "status.activity", "status.user",
        "help", "help.key",
    ]

    public init(name: String = "builtin", background: String = "dark", styles: [String: Style] = [:]) {
        self.name = name
        self.background = background
        self.styles = styles
    }

    /// The style for `key`, inherited along its dots.
    public func style(_ key: String) -> Style {
        var k = key
        while true {
            if let s = styles[k] { return s }
            guard let dot = k.lastIndex(of: ".") else { break }
            k = String(k[..<dot])
        }
        return styles["default"] ?? .plain
    }

    /// A nickname's style: `timeline.nick`'s attributes in the user's own colour (stable: a hash of the id).
    public func nickStyle(_ userId: String) -> Style {
        var s = style("timeline.nick")
        guard !nickPalette.isEmpty else { return s }
        var h: UInt32 = 2_166_136_261
        for b in userId.utf8 { h = (h ^ UInt32(b)) &* 16_777_619 }
        s.fg = nickPalette[Int(h % UInt32(nickPalette.count))]
        return s
    }

    /// A theme by name: a path (with a `/` or ending in `.theme`), `NAME.theme` in the user's themes
    /// directory, or one of the themes tern carries (default, dark, light, high-contrast).
    public static func named(_ name: String, themesDirectory: String) throws -> Theme {
        if name.contains("/") || name.hasSuffix(".theme") { return try load(path: name) }
        let own = themesDirectory + "/\(name).theme"
        if FileManager.default.fileExists(atPath: own) { return try load(path: own) }
        if name == "default" { return .builtin }
        if let text = bundledThemeTexts[name] { return try parse(text, source: name) }
        let names = (["default"] + bundledThemeTexts.keys.sorted()).joined(separator: ", ")
        throw ParseError(source: name, line: 0, message: "no such theme (tern has \(names); yours go in \(themesDirectory))")
    }

    /// The theme names tern carries and the user's own.
    public static func available(themesDirectory: String) -> [String] {
        let own = ((try? FileManager.default.contentsOfDirectory(atPath: themesDirectory)) ?? [])
            .filter { $0.hasSuffix(".theme") }.map { String($0.dropLast(6)) }
        return Array(Set(["default"] + bundledThemeTexts.keys + own)).sorted()
    }

    /// The same attributes without any colour (`NO_COLOR`).
    public func withoutColor() -> Theme {
        var t = self
        t.styles = styles.mapValues { s in
            var m = s
            m.fg = .default
            m.bg = .default
            return m
        }
        t.nickPalette = []
        return t
    }

    /// The theme shipped in `themes/default.theme`, built in so the client works without files.
    public static let builtin: Theme = (try? Theme.parse(defaultThemeText, source: "builtin")) ?? Theme()

    // MARK: - Parsing

    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public var source: String
        public var line: Int
        public var message: String
        public var description: String { "\(source):\(line): \(message)" }
    }

    static let named: [String: Int] = [
        "black": 0, "red": 1, "green": 2, "yellow": 3, "blue": 4, "magenta": 5, "cyan": 6, "white": 7,
        "bright-black": 8, "gray": 8, "grey": 8, "bright-red": 9, "bright-green": 10, "bright-yellow": 11,
        "bright-blue": 12, "bright-magenta": 13, "bright-cyan": 14, "bright-white": 15,
    ]

    /// Reads a theme file's text; every unknown key, colour or attribute is an error naming its line.
    public static func parse(_ text: String, source: String = "theme") throws -> Theme {
        var theme = Theme(name: source)
        var palette: [String: Color] = [:]
        var section = ""
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let n = i + 1
            var line = raw.trimmingCharacters(in: .whitespaces)
            // Comments: a line starting with # or ;, or " # " after a value (#rrggbb is a colour).
            if line.first == "#" {
                line = ""
            } else if let r = line.range(of: " # ") {
                line = String(line[..<r.lowerBound]).trimmingCharacters(in: .whitespaces)
            }
            if line.isEmpty || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else { throw ParseError(source: source, line: n, message: "a section header must end with ]") }
                section = String(line.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
                guard ["meta", "palette", "styles"].contains(section) else {
                    throw ParseError(source: source, line: n, message: "unknown section [\(section)] (expected [meta], [palette] or [styles])")
                }
                continue
            }
            guard let eq = line.firstIndex(of: "=") else { throw ParseError(source: source, line: n, message: "expected key = value") }
            let key = line[..<eq].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            switch section {
            case "meta":
                switch key {
                case "name": theme.name = value
                case "background":
                    guard value == "dark" || value == "light" else {
                        throw ParseError(source: source, line: n, message: "background must be dark or light, not \"\(value)\"")
                    }
                    theme.background = value
                case "nick_colors":
                    var list: [Color] = []
                    for w in value.split(separator: " ") {
                        guard let c = color(String(w), palette: palette) else {
                            throw ParseError(source: source, line: n, message: "unknown colour \"\(w)\" in nick_colors")
                        }
                        list.append(c)
                    }
                    guard !list.isEmpty else { throw ParseError(source: source, line: n, message: "nick_colors needs at least one colour") }
                    theme.nickPalette = list
                case "min_colors", "description": break
                default: throw ParseError(source: source, line: n, message: "unknown meta key \"\(key)\"")
                }
            case "palette":
                guard !key.isEmpty, !key.contains(" ") else { throw ParseError(source: source, line: n, message: "bad palette name \"\(key)\"") }
                guard let c = color(value, palette: palette) else {
                    throw ParseError(source: source, line: n, message: "unknown colour \"\(value)\"")
                }
                palette[key] = c
            case "styles":
                guard keys.contains(key) else {
                    throw ParseError(source: source, line: n, message: "unknown style key \"\(key)\"")
                }
                do {
                    theme.styles[key] = try style(value, palette: palette)
                } catch let e as StyleError {
                    throw ParseError(source: source, line: n, message: e.message)
                }
            default:
                throw ParseError(source: source, line: n, message: "\"\(key)\" is outside a section")
            }
        }
        return theme
    }

    /// Reads a theme file.
    public static func load(path: String) throws -> Theme {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ParseError(source: path, line: 0, message: "cannot read the theme file")
        }
        return try parse(String(decoding: data, as: UTF8.self), source: path)
    }

    static func style(_ value: String, palette: [String: Color]) throws -> Style {
        var s = Style()
        var words = value.split(separator: " ").map(String.init)
        var colorsSeen = 0
        var expectBackground = false
        while !words.isEmpty {
            let w = words.removeFirst()
            switch w {
            case "bold": s.bold = true
            case "dim": s.dim = true
            case "italic": s.italic = true
            case "underline": s.underline = true
            case "reverse": s.reverse = true
            case "strike": s.strike = true
            case "on": expectBackground = true
            default:
                guard let c = color(w, palette: palette) else { throw StyleError(message: "unknown colour or attribute \"\(w)\"") }
                if expectBackground {
                    s.bg = c
                    expectBackground = false
                } else {
                    guard colorsSeen == 0 else { throw StyleError(message: "two foreground colours (use \"on\" before a background)") }
                    s.fg = c
                    colorsSeen += 1
                }
            }
        }
        if expectBackground { throw StyleError(message: "\"on\" needs a colour after it") }
        return s
    }

    static func color(_ w: String, palette: [String: Color]) -> Color? {
        let lower = w.lowercased()
        if lower == "default" { return .default }
        if let p = palette[w] { return p }
        if let i = named[lower] { return .index(i) }
        if let i = Int(lower), (0...255).contains(i) { return .index(i) }
        if lower.hasPrefix("#"), lower.count == 7, let rgb = Int(lower.dropFirst(), radix: 16) {
            // Downsampled to the 6×6×6 cube of the 256-colour palette.
            let r = (rgb >> 16) & 255
            let g = (rgb >> 8) & 255
            let b = rgb & 255
            func level(_ v: Int) -> Int { v < 48 ? 0 : v < 115 ? 1 : (v - 35) / 40 }
            return .index(16 + 36 * level(r) + 6 * level(g) + level(b))
        }
        return nil
    }
}

struct StyleError: Error { let message: String }

/// The text of `themes/default.theme` (kept identical; a test checks).
public let defaultThemeText = """
    # Tern's default theme: the terminal's own colours, so it suits dark and light backgrounds.
    # Form: key = <fg> [on <bg>] [bold] [dim] [italic] [underline] [reverse] [strike]
    # Colours: default, black red green yellow blue magenta cyan white, bright-<name>, 0-255, #rrggbb,
    # or a [palette] name. A missing key falls back along its dots (roomlist.unread -> roomlist -> default).

    [meta]
    name = default
    background = dark

    [palette]
    accent = cyan
    muted = bright-black

    [styles]
    default = default
    border = muted
    title = default bold
    roomlist = default
    roomlist.selected = default reverse
    roomlist.unread = default bold
    roomlist.mention = magenta bold
    roomlist.count = accent bold
    roomlist.header = muted bold
    timeline = default
    timeline.timestamp = muted
    timeline.date_separator = muted
    timeline.nick = accent bold
    timeline.nick.self = green bold
    timeline.text = default
    timeline.text.self = default
    timeline.event = muted italic
    timeline.pending = muted
    timeline.failed = red bold
    timeline.receipt = muted
    timeline.read_marker = red
    timeline.notice = yellow
    timeline.admin = yellow bold
    timeline.mention = magenta bold
    timeline.quote = muted italic
    timeline.reaction = accent
    timeline.thread = accent italic
    timeline.preview = muted
    timeline.file = accent underline
    timeline.edited = muted
    timeline.picked = default reverse
    timeline.highlight = default underline
    timeline.code = yellow dim
    timeline.code_block = green
    timeline.code_block.language = muted italic
    timeline.code_block.keyword = magenta
    timeline.code_block.string = yellow
    timeline.code_block.comment = muted italic
    timeline.block_quote = muted italic
    timeline.link = accent underline
    timeline.link.url = muted
    timeline.list_marker = accent bold
    typing = muted italic
    input = default
    input.prompt = accent bold
    input.command = yellow
    input.misspelled = red underline
    status = default reverse
    status.connected = green reverse
    status.reconnecting = yellow reverse bold
    status.offline = red reverse bold
    status.activity = magenta reverse bold
    status.user = default reverse bold
    help = default
    help.key = accent bold

    """
