import Foundation
import TernKit

/// Tab completion (Tab forward, Shift-Tab back, cycling): `@nick` (recent speakers first), `/command`
/// and its arguments, `#channel`, `:emoji:` shortcodes (to the emoji itself) and file paths after
/// `/upload`. Several candidates: the first goes in, the status bar lists them, Tab moves on.
extension Reducer {
    /// The command names Tab completes after `/` (from `SlashCommand.all`).
    public static var commandNames: [String] { SlashCommand.completedNames }

    /// The candidates for the word before the cursor (from `start`), or nil when nothing completes there.
    func completionCandidates(_ state: AppState) -> (start: Int, candidates: [String])? {
        var start = state.cursor
        while start > 0 && !state.input[start - 1].isWhitespace { start -= 1 }
        let word = String(state.input[start..<state.cursor])
        let before = String(state.input[0..<start])
        let lowerWord = word.lowercased()
        // A file path after /upload (or another command taking a path).
        if before.hasPrefix("/"), before.contains(" "),
            let name = before.dropFirst().split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false).first,
            SlashCommand.named(String(name))?.argument == .path
        {
            let pathStart = before.firstIndex(of: " ").map { before.distance(from: before.startIndex, to: $0) + 1 } ?? start
            let typed = String(state.input[pathStart..<state.cursor])
            return (pathStart, pathCandidates(typed))
        }
        if start == 0, word.hasPrefix("/") {
            let prefix = String(lowerWord.dropFirst())
            return (0, Self.commandNames.filter { $0.hasPrefix(prefix) }.map { "/" + $0 + " " })
        }
        if before.hasPrefix("/"), before.filter({ $0 == " " }).count == 1, let command = SlashCommand.named(String(before.dropFirst().dropLast())) {
            switch command.argument {
            case .theme: return (start, themesAvailable().filter { $0.hasPrefix(lowerWord) }.map { $0 + " " })
            case .choices(let args): return (start, args.filter { $0.hasPrefix(lowerWord) }.map { $0 + " " })
            case .account: return (start, state.accounts.map(\.name).filter { $0.lowercased().hasPrefix(lowerWord) }.map { $0 + " " })
            case .user: return (start, nickCandidates(lowerWord, state).map { $0 + " " })
            case .links:
                let count = (state.linkLabels?.urls ?? Self.screenLinks(state)).count
                return (start, (0..<count).map { String($0 + 1) }.filter { $0.hasPrefix(lowerWord) })
            case .none, .path: break
            }
        }
        if start == 0, let sign = word.firstIndex(where: { $0 == "+" || $0 == "-" }),
            word[..<sign].allSatisfy({ $0.isASCII && $0.isNumber }), word[word.index(after: sign)...].hasPrefix(":")
        {
            // A quick reaction: `+:thu` → `+:thumbsup:` (the server's emoji keys, then tern's own).
            let head = String(word[...sign])
            let prefix = String(lowerWord.dropFirst(head.count + 1))
            var keys = state.emojiKeys
            for r in Self.reactions where !keys.contains(r.key) { keys.append(r.key) }
            return (start, keys.filter { $0.hasPrefix(prefix) }.map { head + ":" + $0 + ":" })
        }
        if word.hasPrefix("@") {
            return (start, nickCandidates(String(lowerWord.dropFirst()), state).map { "@" + $0 + " " })
        }
        if word.hasPrefix("#") {
            let prefix = String(lowerWord.dropFirst())
            let names = Self.channelOrder(state).map { url in String(Self.channelLabel(url, state).dropFirst()) }
            return (start, names.filter { $0.lowercased().hasPrefix(prefix) }.map { "#" + $0 + " " })
        }
        if word.hasPrefix(":"), word.count >= 3 {
            let prefix = String(lowerWord.dropFirst()).trimmingCharacters(in: CharacterSet(charactersIn: ":"))
            let names = Self.emoji.keys.filter { $0.hasPrefix(prefix) }.sorted { ($0.count, $0) < ($1.count, $1) }
            return (start, names.compactMap { Self.emoji[$0] })
        }
        return nil
    }

    /// Members (or, in an open channel, recent speakers) whose id or nickname starts with `prefix`: who spoke
    /// last first, then the others by name. The completion is the user id (what a mention names).
    func nickCandidates(_ prefix: String, _ state: AppState) -> [String] {
        var recent: [String] = []
        for m in (state.messages[state.selected ?? ""] ?? []).reversed() {
            guard let u = m.sender, u.userId != state.me.userId, !recent.contains(u.userId) else { continue }
            recent.append(u.userId)
            if recent.count >= 50 { break }
        }
        var all: [(id: String, nick: String)] = []
        if let c = state.selectedChannel {
            all = c.members.filter { $0.userId != state.me.userId && $0.state == "joined" }.map { ($0.userId, $0.user.nickname) }
        }
        for id in recent where !all.contains(where: { $0.id == id }) {
            let nick = (state.messages[state.selected ?? ""] ?? []).last { $0.sender?.userId == id }?.sender?.nickname ?? ""
            all.append((id, nick))
        }
        let matching = all.filter { $0.id.lowercased().hasPrefix(prefix) || $0.nick.lowercased().hasPrefix(prefix) }
        return matching.sorted { a, b in
            let ra = recent.firstIndex(of: a.id) ?? Int.max
            let rb = recent.firstIndex(of: b.id) ?? Int.max
            return ra != rb ? ra < rb : a.id.lowercased() < b.id.lowercased()
        }.map(\.id)
    }

    /// Files whose path starts with `typed` (`~` for home); directories end with `/`.
    func pathCandidates(_ typed: String) -> [String] {
        let expanded = (typed as NSString).expandingTildeInPath
        let dir: String
        let prefix: String
        if typed.isEmpty {
            (dir, prefix) = (".", "")
        } else if expanded.hasSuffix("/") {
            (dir, prefix) = (expanded.count > 1 ? String(expanded.dropLast()) : expanded, "")
        } else {
            let d = (expanded as NSString).deletingLastPathComponent
            (dir, prefix) = (d.isEmpty ? "." : d, (expanded as NSString).lastPathComponent)
        }
        let typedDir: String
        if let slash = typed.lastIndex(of: "/") { typedDir = String(typed[...slash]) } else { typedDir = "" }
        return listDirectory(dir)
            .filter { $0.name.hasPrefix(prefix) && (prefix.hasPrefix(".") || !$0.name.hasPrefix(".")) }
            .sorted { $0.name < $1.name }
            .map { typedDir + $0.name + ($0.isDirectory ? "/" : " ") }
    }

    /// Tab / Shift-Tab.
    func complete(forward: Bool, _ state: inout AppState) {
        if var c = state.completion, !c.candidates.isEmpty {
            let current = c.candidates[c.index]
            c.index = (c.index + (forward ? 1 : c.candidates.count - 1)) % c.candidates.count
            let end = c.start + current.count
            let replacement = Array(c.candidates[c.index])
            if end <= state.input.count {
                state.input.replaceSubrange(c.start..<end, with: replacement)
                state.cursor = c.start + replacement.count
            }
            state.completion = c
            state.notice = Self.candidateLine(c)
            return
        }
        guard let (start, candidates) = completionCandidates(state) else { return }
        guard !candidates.isEmpty else {
            state.notice = "no completion for \(String(state.input[start..<state.cursor]))"
            return
        }
        pushUndo(&state)
        state.typingRun = false
        let c = Completion(
            start: start, candidates: candidates, index: forward ? 0 : candidates.count - 1, original: state.input, originalCursor: state.cursor)
        let replacement = Array(candidates[c.index])
        state.input.replaceSubrange(start..<state.cursor, with: replacement)
        state.cursor = start + replacement.count
        if candidates.count > 1 {
            state.completion = c
            state.notice = Self.candidateLine(c)
        }
    }

    static func candidateLine(_ c: Completion) -> String {
        let shown = c.candidates.prefix(12).enumerated().map { i, s in
            let t = s.trimmingCharacters(in: .whitespaces)
            return i == c.index ? "[\(t)]" : t
        }
        return shown.joined(separator: " ") + (c.candidates.count > 12 ? " … (\(c.candidates.count))" : "") + " · Tab: next"
    }

    /// `:shortcode:` → emoji (the common Slack/GitHub names).
    public static let emoji: [String: String] = [
        "smile": "😄",
        "smiley": "😃",
        "grin": "😁",
        "joy": "😂",
        "rofl": "🤣",
        "laughing": "😆",
        "sweat_smile": "😅",
        "wink": "😉",
        "blush": "😊",
        "innocent": "😇",
        "slightly_smiling_face": "🙂",
        "upside_down_face": "🙃",
        "heart_eyes": "😍",
        "kissing_heart": "😘",
        "yum": "😋",
        "stuck_out_tongue": "😛",
        "stuck_out_tongue_winking_eye": "😜",
        "thinking": "🤔",
        "thinking_face": "🤔",
        "neutral_face": "😐",
        "expressionless": "😑",
        "no_mouth": "😶",
        "smirk": "😏",
        "unamused": "😒",
        "roll_eyes": "🙄",
        "grimacing": "😬",
        "relieved": "😌",
        "pensive": "😔",
        "sleepy": "😪",
        "sleeping": "😴",
        "mask": "😷",
        "nerd_face": "🤓",
        "sunglasses": "😎",
        "confused": "😕",
        "worried": "😟",
        "slightly_frowning_face": "🙁",
        "open_mouth": "😮",
        "astonished": "😲",
        "flushed": "😳",
        "pleading_face": "🥺",
        "cry": "😢",
        "sob": "😭",
        "scream": "😱",
        "confounded": "😖",
        "disappointed": "😞",
        "sweat": "😓",
        "weary": "😩",
        "tired_face": "😫",
        "yawning_face": "🥱",
        "triumph": "😤",
        "rage": "😡",
        "angry": "😠",
        "skull": "💀",
        "poop": "💩",
        "clown_face": "🤡",
        "ghost": "👻",
        "alien": "👽",
        "robot": "🤖",
        "see_no_evil": "🙈",
        "hear_no_evil": "🙉",
        "speak_no_evil": "🙊",
        "wave": "👋",
        "raised_hand": "✋",
        "ok_hand": "👌",
        "v": "✌️",
        "crossed_fingers": "🤞",
        "metal": "🤘",
        "point_left": "👈",
        "point_right": "👉",
        "point_up": "👆",
        "point_down": "👇",
        "thumbsup": "👍",
        "+1": "👍",
        "thumbsdown": "👎",
        "-1": "👎",
        "fist": "✊",
        "punch": "👊",
        "clap": "👏",
        "raised_hands": "🙌",
        "open_hands": "👐",
        "pray": "🙏",
        "handshake": "🤝",
        "muscle": "💪",
        "eyes": "👀",
        "brain": "🧠",
        "heart": "❤️",
        "orange_heart": "🧡",
        "yellow_heart": "💛",
        "green_heart": "💚",
        "blue_heart": "💙",
        "purple_heart": "💜",
        "black_heart": "🖤",
        "broken_heart": "💔",
        "sparkling_heart": "💖",
        "100": "💯",
        "boom": "💥",
        "fire": "🔥",
        "sparkles": "✨",
        "star": "⭐",
        "star2": "🌟",
        "zap": "⚡",
        "tada": "🎉",
        "confetti_ball": "🎊",
        "gift": "🎁",
        "trophy": "🏆",
        "medal": "🏅",
        "rocket": "🚀",
        "airplane": "✈️",
        "car": "🚗",
        "bike": "🚲",
        "coffee": "☕",
        "tea": "🍵",
        "beer": "🍺",
        "beers": "🍻",
        "wine_glass": "🍷",
        "pizza": "🍕",
        "hamburger": "🍔",
        "cake": "🍰",
        "birthday": "🎂",
        "cookie": "🍪",
        "apple": "🍎",
        "banana": "🍌",
        "sunny": "☀️",
        "cloud": "☁️",
        "umbrella": "☔",
        "snowflake": "❄️",
        "rainbow": "🌈",
        "ocean": "🌊",
        "earth_africa": "🌍",
        "moon": "🌙",
        "dog": "🐶",
        "cat": "🐱",
        "mouse": "🐭",
        "bug": "🐛",
        "bee": "🐝",
        "snake": "🐍",
        "turtle": "🐢",
        "penguin": "🐧",
        "unicorn": "🦄",
        "rose": "🌹",
        "sunflower": "🌻",
        "seedling": "🌱",
        "evergreen_tree": "🌲",
        "cactus": "🌵",
        "four_leaf_clover": "🍀",
        "white_check_mark": "✅",
        "heavy_check_mark": "✔️",
        "check": "✔️",
        "x": "❌",
        "warning": "⚠️",
        "no_entry": "⛔",
        "question": "❓",
        "exclamation": "❗",
        "bangbang": "‼️",
        "bulb": "💡",
        "memo": "📝",
        "pencil2": "✏️",
        "book": "📖",
        "books": "📚",
        "calendar": "📅",
        "clipboard": "📋",
        "pushpin": "📌",
        "paperclip": "📎",
        "link": "🔗",
        "lock": "🔒",
        "unlock": "🔓",
        "key": "🔑",
        "hammer": "🔨",
        "wrench": "🔧",
        "gear": "⚙️",
        "package": "📦",
        "email": "📧",
        "phone": "☎️",
        "computer": "💻",
        "keyboard": "⌨️",
        "bell": "🔔",
        "no_bell": "🔕",
        "mag": "🔍",
        "hourglass": "⌛",
        "watch": "⌚",
        "alarm_clock": "⏰",
        "stopwatch": "⏱️",
        "chart_with_upwards_trend": "📈",
        "chart_with_downwards_trend": "📉",
        "bar_chart": "📊",
        "moneybag": "💰",
        "dollar": "💵",
        "credit_card": "💳",
        "ship": "🚢",
        "construction": "🚧",
        "rotating_light": "🚨",
        "checkered_flag": "🏁",
        "triangular_flag_on_post": "🚩",
        "arrow_right": "➡️",
        "arrow_left": "⬅️",
        "arrow_up": "⬆️",
        "arrow_down": "⬇️",
        "recycle": "♻️",
        "zzz": "💤",
        "speech_balloon": "💬",
        "thought_balloon": "💭",
        "wave_dash": "〰️",
        "shrug": "🤷",
        "facepalm": "🤦",
        "man_shrugging": "🤷‍♂️",
        "woman_shrugging": "🤷‍♀️",
        "party_popper": "🎉",
        "partying_face": "🥳",
        "star_struck": "🤩",
        "hugs": "🤗",
        "hugging_face": "🤗",
        "zipper_mouth_face": "🤐",
        "money_mouth_face": "🤑",
        "cowboy_hat_face": "🤠",
        "exploding_head": "🤯",
        "cold_sweat": "😰",
        "hot_face": "🥵",
        "cold_face": "🥶",
        "sneezing_face": "🤧",
        "face_with_rolling_eyes": "🙄",
        "melting_face": "🫠",
        "salute": "🫡",
        "saluting_face": "🫡",
        "ok": "🆗",
        "new": "🆕",
        "free": "🆓",
        "sos": "🆘",
        "cool": "🆒",
        "up": "🆙",
        "bow": "🙇",
        "raising_hand": "🙋",
        "ninja": "🥷",
        "santa": "🎅",
        "crown": "👑",
        "gem": "💎",
        "ring": "💍",
        "lipstick": "💄",
        "kiss": "💋",
        "footprints": "👣",
        "sunrise": "🌅",
        "city_sunset": "🌆",
        "house": "🏠",
        "office": "🏢",
        "hospital": "🏥",
        "school": "🏫",
        "bank": "🏦",
        "tent": "⛺",
        "fuelpump": "⛽",
        "anchor": "⚓",
        "hourglass_flowing_sand": "⏳",
        "thermometer": "🌡️",
        "droplet": "💧",
        "sweat_drops": "💦",
        "dash": "💨",
        "musical_note": "🎵",
        "notes": "🎶",
        "guitar": "🎸",
        "video_game": "🎮",
        "dart": "🎯",
        "game_die": "🎲",
        "soccer": "⚽",
        "basketball": "🏀",
        "football": "🏈",
        "tennis": "🎾",
        "golf": "⛳",
        "ski": "🎿",
        "swimmer": "🏊",
        "runner": "🏃",
        "dancer": "💃",
    ]
}
