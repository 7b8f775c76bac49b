import Foundation
import TOMLKit

/// What `tern` is told to do by its config file (`$XDG_CONFIG_HOME/tern/config.toml`, or
/// `--config PATH`), in TOML. `/set KEY VALUE` changes a setting while tern runs and `/save` writes
/// them back. Every key is in ``exampleConfig`` with what it does.
public struct Settings: Sendable, Equatable {
    // Connection: used when the environment and the command line leave them out.
    public var server: String?
    public var user: String?
    public var tokenCommand: String?
    public var appId: String?
    public var caFile: String?
    /// Several logins in one tern (`[[accounts]]`); empty: the one login above and the environment's.
    public var accounts: [AccountSettings] = []

    public var theme = "default"
    public var keymap = KeyTable.Preset.emacs
    /// Per-key overrides: a key sequence → a command name (or `none`), for insert mode and vi's normal mode.
    public var keys: [String: String] = [:]
    public var normalKeys: [String: String] = [:]
    /// Words that count as mentioning you (case-insensitive, whole words).
    public var highlights: [String] = []
    /// How tern calls you: any of `bell`, `osc777`, `osc9` (desktop notifications through the terminal).
    public var notifyStyle: [String] = ["bell", "osc777"]
    /// Which messages alert by default: `all`, `mentions` (mentions, highlight words, 1-on-1s) or `none`.
    public var notify = "mentions"
    /// Do not disturb: `HH:MM-HH:MM` in local time (may pass midnight), or empty.
    public var doNotDisturb = ""
    public var timestampFormat = "HH:mm"
    /// Each nickname in its own stable colour.
    public var nickColors = true
    /// Mouse: click a channel, wheel scrolls (the terminal's own selection then needs Shift).
    public var mouse = true
    /// A paste of more lines than this asks before it is sent as one message.
    public var pasteConfirmLines = 5
    /// How image messages are shown: `auto` (the terminal's graphics protocol if it speaks one, else
    /// symbols), `kitty`, `sixel`, `iterm`, `symbols` or `off`.
    public var images = ImageMode.auto
    /// Image messages show a preview at all (`image_previews`, the older switch: off is `images = "off"`).
    public var imagePreviews: Bool {
        get { images != .off }
        set { images = newValue ? (images == .off ? .auto : images) : .off }
    }
    /// Message text read as markdown (bold, code, quotes, lists, links); off shows it as typed.
    public var markdown = true
    /// Links drawn as OSC 8 hyperlinks (clickable where the terminal supports them).
    public var hyperlinks = true
    /// Copying (`y`, `Y`, `/copy`) writes OSC 52 to the terminal; off: nothing is copied.
    public var clipboard = true
    /// At start: `restore` brings back the split panes of the last run (`/split`), `single` starts with one.
    public var layout = "restore"
    /// The languages the input line is spell checked in (Hunspell dictionaries: `en_US`, `de_DE`); empty: off;
    /// nil (the default): `en_US` when its dictionary is installed, else off.
    public var spell: [String]?
    /// Each channel's messages written as plain text under `$XDG_STATE_HOME/tern/logs` (``ChatLog``).
    public var log = false
    /// Per channel (by name or URL): `notify`.
    public var channels: [String: ChannelSettings] = [:]

    public init() {}

    public struct ChannelSettings: Sendable, Equatable {
        public var notify: String?
        public init(notify: String? = nil) { self.notify = notify }
    }

    /// The key map these settings ask for: the preset with the overrides applied.
    public func keyTable() throws -> KeyTable {
        var t = KeyTable(preset: keymap)
        for (mode, overrides) in [(KeyTable.Mode.insert, keys), (.normal, normalKeys)] {
            for (seq, name) in overrides.sorted(by: { $0.key < $1.key }) {
                let command: Command?
                if name == "none" {
                    command = nil
                } else if let c = Command(rawValue: name) {
                    command = c
                } else {
                    let close = Command.suggestions(for: name).prefix(5)
                    let hint = close.isEmpty ? "" : "did you mean \(close.joined(separator: ", "))? "
                    throw SettingsError(
                        line: nil,
                        message: "keys: unknown command \"\(name)\" for \"\(seq)\" (\(hint)tern --help lists every command under KEY COMMANDS)",
                        key: seq)
                }
                do { try t.bind(seq, to: command, mode: mode) } catch let e as KeyTable.BindingError {
                    throw SettingsError(line: nil, message: "keys: \(e.message)", key: seq)
                }
            }
        }
        return t
    }

    /// The notify level for a channel: its own setting (by URL or name), else the default.
    public func notifyLevel(url: String, name: String) -> String {
        channels[url]?.notify ?? channels[name]?.notify ?? notify
    }

    /// The do-not-disturb window in minutes since midnight, if set.
    public var quietWindow: (start: Int, end: Int)? { Self.parseWindow(doNotDisturb) }

    static func parseWindow(_ text: String) -> (start: Int, end: Int)? {
        let parts = text.split(separator: "-").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2 else { return nil }
        func minutes(_ s: String) -> Int? {
            let hm = s.split(separator: ":")
            guard hm.count == 2, let h = Int(hm[0]), let m = Int(hm[1]), (0..<24).contains(h), (0..<60).contains(m) else { return nil }
            return h * 60 + m
        }
        guard let a = minutes(parts[0]), let b = minutes(parts[1]) else { return nil }
        return (a, b)
    }

    // MARK: - Setting one key (the file and /set share this)

    public struct SettingsError: Error, Equatable, CustomStringConvertible {
        public var line: Int?
        public var message: String
        public var source = ""
        /// The key sequence a `[keys]` error is about.
        public var key: String?
        public init(line: Int?, message: String, source: String = "", key: String? = nil) {
            self.line = line
            self.message = message
            self.source = source
            self.key = key
        }
        public var description: String {
            line.map { "\(source.isEmpty ? "config" : source):\($0): \(message)" } ?? (source.isEmpty ? message : "\(source): \(message)")
        }
    }

    /// The keys `/set` knows, with what they take.
    public static let settable: [(key: String, takes: String)] = [
        ("theme", "a theme name"), ("keymap", "emacs | vi"), ("highlights", "words, comma-separated"),
        ("notify", "all | mentions | none"), ("notify_style", "bell, osc777, osc9 (comma-separated) or none"),
        ("dnd", "HH:MM-HH:MM or off"), ("timestamp_format", "e.g. HH:mm:ss"), ("nick_colors", "on | off"),
        ("mouse", "on | off"), ("paste_confirm_lines", "a number"), ("images", "auto|kitty|sixel|iterm|symbols|off"),
        ("layout", "restore | single"), ("markdown", "on | off"),
        ("hyperlinks", "on | off"), ("clipboard", "on | off"), ("spell", "languages (en_US, de_DE), auto or off"), ("log", "on | off"),
    ]

    static func bool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "on", "true", "yes", "1": true
        case "off", "false", "no", "0": false
        default: nil
        }
    }

    static func list(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init).filter { !$0.isEmpty }
    }

    /// `/set KEY VALUE`.
    public mutating func set(_ key: String, _ value: String) throws {
        func bad(_ what: String) -> SettingsError { SettingsError(line: nil, message: "\(key) takes \(what), not \"\(value)\"") }
        switch key {
        case "theme":
            guard !value.isEmpty else { throw bad("a theme name") }
            theme = value
        case "keymap":
            guard let p = KeyTable.Preset(rawValue: value) else { throw bad("emacs or vi") }
            keymap = p
        case "highlights", "highlight_words":
            highlights = Self.list(value)
        case "notify":
            guard ["all", "mentions", "none"].contains(value) else { throw bad("all, mentions or none") }
            notify = value
        case "notify_style":
            let styles = value == "none" ? [] : Self.list(value)
            guard styles.allSatisfy({ ["bell", "osc777", "osc9"].contains($0) }) else { throw bad("bell, osc777, osc9 or none") }
            notifyStyle = styles
        case "dnd", "do_not_disturb":
            if value == "off" || value.isEmpty {
                doNotDisturb = ""
            } else {
                guard Self.parseWindow(value) != nil else { throw bad("HH:MM-HH:MM or off") }
                doNotDisturb = value
            }
        case "timestamp_format":
            guard !value.isEmpty else { throw bad("a date format such as HH:mm") }
            timestampFormat = value
        case "nick_colors", "mouse", "image_previews", "markdown", "hyperlinks", "clipboard", "log":
            guard let b = Self.bool(value) else { throw bad("on or off") }
            switch key {
            case "nick_colors": nickColors = b
            case "mouse": mouse = b
            case "markdown": markdown = b
            case "hyperlinks": hyperlinks = b
            case "clipboard": clipboard = b
            case "log": log = b
            default: imagePreviews = b
            }
        case "layout":
            guard ["restore", "single"].contains(value) else { throw bad("restore or single") }
            layout = value
        case "images":
            guard let m = ImageMode(rawValue: value.lowercased()) else { throw bad("auto, kitty, sixel, iterm, symbols or off") }
            images = m
        case "spell":
            let words = Self.list(value)
            if words == ["auto"] || words == ["default"] {
                spell = nil
            } else if words.isEmpty || words == ["off"] || words == ["none"] {
                spell = []
            } else {
                let ok = words.allSatisfy { w in !w.isEmpty && w.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_-".contains($0)) } }
                guard ok else { throw bad("languages such as en_US (comma-separated), auto or off") }
                spell = words
            }
        case "paste_confirm_lines":
            guard let n = Int(value), n >= 1 else { throw bad("a number of lines (1 or more)") }
            pasteConfirmLines = n
        default:
            throw SettingsError(line: nil, message: "unknown setting \"\(key)\" (one of: \(Self.settable.map(\.key).joined(separator: ", ")))")
        }
    }

    /// The value of a setting as `/set KEY` shows it.
    public func value(_ key: String) -> String? {
        switch key {
        case "theme": theme
        case "keymap": keymap.rawValue
        case "highlights", "highlight_words": highlights.joined(separator: ",")
        case "notify": notify
        case "notify_style": notifyStyle.isEmpty ? "none" : notifyStyle.joined(separator: ",")
        case "dnd", "do_not_disturb": doNotDisturb.isEmpty ? "off" : doNotDisturb
        case "timestamp_format": timestampFormat
        case "nick_colors": nickColors ? "on" : "off"
        case "mouse": mouse ? "on" : "off"
        case "paste_confirm_lines": String(pasteConfirmLines)
        case "image_previews": imagePreviews ? "on" : "off"
        case "images": images.rawValue
        case "layout": layout
        case "markdown": markdown ? "on" : "off"
        case "hyperlinks": hyperlinks ? "on" : "off"
        case "clipboard": clipboard ? "on" : "off"
        case "spell": spell.map { $0.isEmpty ? "off" : $0.joined(separator: ",") } ?? "auto"
        case "log": log ? "on" : "off"
        default: nil
        }
    }

    // MARK: - The file

    /// Reads a config file's text (TOML). Every unknown key or wrong type is an error naming its line.
    public static func parse(_ text: String, source: String = "config.toml") throws -> Settings {
        let table: TOMLTable
        do { table = try TOMLTable(string: text) } catch let e as TOMLParseError {
            throw SettingsError(line: e.source.begin.line, message: e.description, source: source)
        }
        var s = Settings()
        func line(_ key: String, section: String = "") -> Int? { Self.line(of: key, section: section, in: text) }
        func fail(_ key: String, _ message: String, section: String = "") -> SettingsError {
            SettingsError(line: line(key, section: section), message: message, source: source)
        }
        func string(_ t: TOMLTable, _ key: String, section: String = "") throws -> String? {
            guard let v = t[key] else { return nil }
            guard let s = v.string else { throw fail(key, "\(key) must be a string (in quotes)", section: section) }
            return s
        }
        func boolean(_ key: String) throws -> Bool? {
            guard let v = table[key] else { return nil }
            guard let b = v.bool else { throw fail(key, "\(key) must be true or false") }
            return b
        }
        func strings(_ key: String) throws -> [String]? {
            guard let v = table[key] else { return nil }
            if let one = v.string { return [one] }
            guard let a = v.array else { throw fail(key, "\(key) must be a list of strings, e.g. [\"a\", \"b\"]") }
            var out: [String] = []
            for item in a {
                guard let s = item.string else { throw fail(key, "\(key) must be a list of strings") }
                out.append(s)
            }
            return out
        }
        let known: Set<String> = [
            "server", "user", "token_command", "app_id", "ca_file", "theme", "keymap", "keys", "highlights", "notify_style", "notify", "dnd",
            "timestamp_format", "nick_colors", "mouse", "paste_confirm_lines", "image_previews", "images", "layout", "markdown", "hyperlinks",
            "clipboard", "spell", "log", "channels", "accounts",
        ]
        for key in table.keys where !known.contains(key) {
            throw fail(key, "unknown key \"\(key)\" (known: \(known.sorted().joined(separator: ", ")))")
        }
        s.server = try string(table, "server")
        s.user = try string(table, "user")
        s.tokenCommand = try string(table, "token_command")
        s.appId = try string(table, "app_id")
        s.caFile = try string(table, "ca_file")
        if let v = table["accounts"] { s.accounts = try parseAccounts(v) { key, message in fail(key, message, section: "accounts") } }
        // Through `set`, so the file and /set accept the same values.
        func apply(_ key: String, _ value: String) throws {
            do { try s.set(key, value) } catch let e as SettingsError { throw fail(key, e.message) }
        }
        for key in ["theme", "keymap", "notify", "dnd", "timestamp_format", "images", "layout"] {
            if let v = try string(table, key) { try apply(key, v) }
        }
        if let v = try strings("highlights") { s.highlights = v }
        for k in ["notify_style", "spell"] { if let v = try strings(k) { try apply(k, v.isEmpty ? "none" : v.joined(separator: ",")) } }
        for key in ["nick_colors", "mouse", "image_previews", "markdown", "hyperlinks", "clipboard", "log"] {
            if let v = try boolean(key) { try apply(key, v ? "on" : "off") }
        }
        if let v = table["paste_confirm_lines"] {
            guard let n = v.int, n >= 1 else { throw fail("paste_confirm_lines", "paste_confirm_lines must be a whole number, 1 or more") }
            s.pasteConfirmLines = n
        }
        if let v = table["keys"] {
            guard let keys = v.table else { throw fail("keys", "[keys] must be a table of \"KEY\" = \"command\"") }
            for k in keys.keys {
                if k == "normal" {
                    guard let normal = keys[k]?.table else { throw fail("normal", "[keys.normal] must be a table", section: "keys") }
                    for nk in normal.keys {
                        guard let c = normal[nk]?.string else { throw fail(nk, "a key's command must be a string", section: "keys.normal") }
                        s.normalKeys[nk] = c
                    }
                    continue
                }
                guard let c = keys[k]?.string else { throw fail(k, "a key's command must be a string", section: "keys") }
                s.keys[k] = c
            }
        }
        if let v = table["channels"] {
            guard let channels = v.table else { throw fail("channels", "[channels] must hold tables: [channels.NAME]") }
            for name in channels.keys {
                guard let c = channels[name]?.table else { throw fail(name, "[channels.\(name)] must be a table", section: "channels") }
                var cs = ChannelSettings()
                for k in c.keys {
                    guard k == "notify" else { throw fail(k, "unknown channel setting \"\(k)\" (known: notify)", section: "channels") }
                    guard let n = c[k]?.string, ["all", "mentions", "none"].contains(n) else {
                        throw fail(k, "notify must be \"all\", \"mentions\" or \"none\"", section: "channels")
                    }
                    cs.notify = n
                }
                s.channels[name] = cs
            }
        }
        do { _ = try s.keyTable() } catch var e as SettingsError {
            e.source = source
            if let seq = e.key { e.line = line(seq, section: "keys") }
            throw e
        }
        return s
    }

    /// Reads a config file; a missing file gives the defaults.
    public static func load(path: String) throws -> Settings {
        guard FileManager.default.fileExists(atPath: path) else { return Settings() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SettingsError(line: nil, message: "cannot read the config file", source: path)
        }
        return try parse(String(decoding: data, as: UTF8.self), source: path)
    }

    /// The line (1-based) where `key` is set, looking inside `[section]` when given.
    static func line(of key: String, section: String, in text: String) -> Int? {
        var current = ""
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let l = raw.trimmingCharacters(in: .whitespaces)
            if l.hasPrefix("[") {
                current = l.trimmingCharacters(in: CharacterSet(charactersIn: "[] "))
                continue
            }
            guard section.isEmpty ? current.isEmpty : (current == section || current.hasPrefix(section + ".")) else { continue }
            let name = l.split(separator: "=", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces).trimmingCharacters(
                in: CharacterSet(charactersIn: "\"'"))
            if name == key { return i + 1 }
            if section.isEmpty, l.hasPrefix("[" + key) { return i + 1 }
        }
        return nil
    }

    /// The settings as a TOML document (`/save`).
    public func toml() -> String {
        let t = TOMLTable()
        if let server { t["server"] = server }
        if let user { t["user"] = user }
        if let tokenCommand { t["token_command"] = tokenCommand }
        if let appId { t["app_id"] = appId }
        if let caFile { t["ca_file"] = caFile }
        t["theme"] = theme
        t["keymap"] = keymap.rawValue
        t["highlights"] = TOMLArray(highlights)
        t["notify"] = notify
        t["notify_style"] = TOMLArray(notifyStyle)
        if !doNotDisturb.isEmpty { t["dnd"] = doNotDisturb }
        t["timestamp_format"] = timestampFormat
        t["nick_colors"] = nickColors
        t["mouse"] = mouse
        t["paste_confirm_lines"] = pasteConfirmLines
        t["images"] = images.rawValue
        t["layout"] = layout
        t["markdown"] = markdown
        t["hyperlinks"] = hyperlinks
        t["clipboard"] = clipboard
        if let spell {
            if spell.count > 1 { t["spell"] = TOMLArray(spell) } else { t["spell"] = spell.first ?? "off" }
        }
        t["log"] = log
        if !keys.isEmpty || !normalKeys.isEmpty {
            let k = TOMLTable()
            for (seq, c) in keys { k[seq] = c }
            if !normalKeys.isEmpty {
                let n = TOMLTable()
                for (seq, c) in normalKeys { n[seq] = c }
                k["normal"] = n
            }
            t["keys"] = k
        }
        if !accounts.isEmpty { t["accounts"] = accountsTOML() }
        if !channels.isEmpty {
            let c = TOMLTable()
            for (name, cs) in channels {
                let one = TOMLTable()
                if let n = cs.notify { one["notify"] = n }
                c[name] = one
            }
            t["channels"] = c
        }
        return "# tern's settings, written by /save. The commented example: tern --help.\n\n" + t.convert(to: .toml) + "\n"
    }
}
