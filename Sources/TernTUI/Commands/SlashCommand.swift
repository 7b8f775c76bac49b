import Foundation

/// One slash command: its name, its aliases, what Tab completes after it, its lines in the help and what it
/// does. `SlashCommand.all` is the one list of them: the reducer dispatches through it, completion offers
/// its names and arguments, the help screen shows its lines, and a test checks `docs/usage.md` against it.
///
/// To add a command, add an entry to `all` (in the order the help lists it) with a handler; most handlers
/// are `Reducer` methods in `Reducer+SlashCommands.swift`.
struct SlashCommand: Sendable {
    /// What Tab completes after the command name.
    enum Argument: Sendable, Equatable {
        case none
        /// One of these words.
        case choices([String])
        /// A user id (recent speakers first).
        case user
        /// A theme name.
        case theme
        /// A file path (the rest of the line).
        case path
        /// The number of a link on screen (`/url`).
        case links
        /// An account's name (`[[accounts]]`).
        case account
    }

    /// A line of the help screen: the usage on the left, what it does on the right. `key` names the key
    /// that does the same, shown after the text as it is bound now.
    struct HelpLine: Sendable {
        var usage: String
        var what: String
        var key: Command? = nil
    }

    /// What the handler is given: the words typed (the first is the name or alias typed, without the
    /// slash) and the whole line.
    struct Invocation: Sendable {
        var words: [String]
        var text: String
        /// The line after the command name, trimmed (a name with spaces, a path, a message).
        var rest: String { text.drop { $0 != " " }.trimmingCharacters(in: .whitespaces) }
    }

    typealias Handler = @Sendable (Reducer, Invocation, inout AppState) -> [Effect]

    var name: String
    var aliases: [String] = []
    var argument: Argument = .none
    /// Its lines in the help, if any (a pair like `/accept, /decline` is listed under the first).
    var help: [HelpLine] = []
    var run: Handler

    /// Every name it answers to.
    var names: [String] { [name] + aliases }
}

extension SlashCommand {
    /// The command typed as `word` (a name or an alias, without the slash).
    static func named(_ word: String) -> SlashCommand? { byName[word] }

    private static let byName: [String: SlashCommand] = {
        var d: [String: SlashCommand] = [:]
        for c in all {
            for n in c.names {
                precondition(d[n] == nil, "two slash commands answer to /\(n)")
                d[n] = c
            }
        }
        return d
    }()

    /// The names Tab completes after `/` (aliases are not offered).
    static var completedNames: [String] { all.map(\.name).sorted() }

    /// The help screen's lines for the commands, in order.
    static var helpLines: [HelpLine] { all.flatMap(\.help) }

    /// The commands, in the order the help lists them.
    static let all: [SlashCommand] = [
        SlashCommand(
            name: "dm", aliases: ["msg", "query"], argument: .user,
            help: [HelpLine(usage: "/dm USER", what: "open (or create) the 1:1 channel with USER")]
        ) { r, c, s in r.dmCommand(c, &s) },
        SlashCommand(
            name: "create",
            help: [
                HelpLine(usage: "/create NAME [USER…]", what: "create a private group channel"),
                HelpLine(usage: "/create -public NAME", what: "… [USER…]: a public channel anyone may find and /join"),
            ]
        ) { r, c, s in r.createCommand(c, &s) },
        SlashCommand(name: "create-public") { r, c, s in r.createCommand(c, &s) },
        SlashCommand(name: "invite", argument: .user, help: [HelpLine(usage: "/invite USER…", what: "invite users to this channel")]) { r, c, s in
            r.channelCommand(c, &s)
        },
        SlashCommand(name: "accept", help: [HelpLine(usage: "/accept, /decline", what: "answer this channel's invitation")]) { r, c, s in
            r.channelCommand(c, &s)
        },
        SlashCommand(name: "decline") { r, c, s in r.channelCommand(c, &s) },
        SlashCommand(
            name: "autoaccept", argument: .choices(["on", "off"]),
            help: [HelpLine(usage: "/autoaccept on|off", what: "join invited channels at once, or ask")]
        ) { r, c, s in r.autoAcceptCommand(c, &s) },
        SlashCommand(
            name: "join", aliases: ["browse"], help: [HelpLine(usage: "/join [NAME]", what: "join a public channel (alone: browse them)")]
        ) { r, c, s in r.joinCommand(c, &s) },
        SlashCommand(name: "leave", help: [HelpLine(usage: "/leave", what: "leave this channel")]) { r, c, s in r.channelCommand(c, &s) },
        SlashCommand(name: "hide", help: [HelpLine(usage: "/hide, /archive", what: "hide it (back on a new message), archive it")]) { r, c, s in
            r.channelCommand(c, &s)
        },
        SlashCommand(name: "archive") { r, c, s in r.channelCommand(c, &s) },
        SlashCommand(name: "hidden", aliases: ["archived"], help: [HelpLine(usage: "/hidden, /unhide", what: "hidden and archived channels")]) {
            r, _, s in r.openBrowser(.hiddenChannels, &s)
        },
        SlashCommand(name: "unhide") { r, _, s in r.openBrowser(.hiddenChannels, &s) },
        SlashCommand(name: "freeze", help: [HelpLine(usage: "/freeze, /unfreeze", what: "operators: stop or allow sending")]) { r, c, s in
            r.channelCommand(c, &s)
        },
        SlashCommand(name: "unfreeze") { r, c, s in r.channelCommand(c, &s) },
        SlashCommand(name: "rename", help: [HelpLine(usage: "/rename NAME", what: "rename this channel")]) { r, c, s in r.channelCommand(c, &s) },
        SlashCommand(name: "info") { r, _, s in r.infoCommand(&s) },
        SlashCommand(
            name: "count", argument: .choices(["all", "messages", "mentions", "off"]),
            help: [HelpLine(usage: "/count MODE", what: "unread count: all, messages, mentions, off")]
        ) { r, c, s in r.countCommand(c, &s) },
        SlashCommand(name: "readall", help: [HelpLine(usage: "/readall", what: "mark every channel read")]) { _, _, _ in [.markAllRead] },
        SlashCommand(
            name: "block", argument: .user, help: [HelpLine(usage: "/block, /unblock USER", what: "their messages stop (1:1), never count")]
        ) { r, c, s in r.blockCommand(c, &s) },
        SlashCommand(name: "unblock", argument: .user) { r, c, s in r.blockCommand(c, &s) },
        SlashCommand(name: "blocked", help: [HelpLine(usage: "/blocked", what: "who you block")]) { _, _, _ in [.listBlocked] },
        SlashCommand(name: "say", help: [HelpLine(usage: "/say TEXT", what: "send TEXT as it is (/… or s/a/b/ too)")]) { r, c, s in
            r.sayCommand(c, &s)
        },
        SlashCommand(name: "reply", help: [HelpLine(usage: "/reply [TEXT]", what: "reply to the last message from others")]) { r, c, s in
            r.replyCommand(c, &s)
        },
        SlashCommand(name: "thread", help: [HelpLine(usage: "/thread", what: "open the thread of the last message that has one")]) { r, _, s in
            r.threadCommand(&s)
        },
        SlashCommand(name: "edit", help: [HelpLine(usage: "/edit [TEXT]", what: "edit your last message")]) { r, c, s in r.editCommand(c, &s) },
        SlashCommand(name: "delete", help: [HelpLine(usage: "/delete", what: "delete your last message (asks first)")]) { r, _, s in
            r.deleteCommand(&s)
        },
        SlashCommand(
            name: "react",
            help: [
                HelpLine(usage: "/react KEY", what: "react (thumbsup, heart…) to the last or picked message"),
                HelpLine(usage: "/react", what: "list the server's emojis"),
            ]
        ) { r, c, s in r.reactCommand(c, &s) },
        SlashCommand(name: "search", help: [HelpLine(usage: "/search WORDS", what: "search messages", key: .search)]) { r, c, s in
            r.searchCommand(c, &s)
        },
        SlashCommand(
            name: "upload", aliases: ["file", "send-file"], argument: .path,
            help: [HelpLine(usage: "/upload PATH", what: "send a file; /cancel stops it")]
        ) { r, c, s in r.uploadCommand(c, &s) },
        SlashCommand(name: "cancel") { r, _, s in r.cancelCommand(&s) },
        SlashCommand(name: "download", help: [HelpLine(usage: "/download [DIR]", what: "save the last file here")]) { r, c, s in
            r.downloadCommand(c, &s)
        },
        SlashCommand(
            name: "url", argument: .links,
            help: [HelpLine(usage: "/url [N]", what: "number the links on screen, newest first; /url N opens one")]
        ) { r, c, s in r.urlCommand(c, &s) },
        SlashCommand(name: "copy", help: [HelpLine(usage: "/copy", what: "copy the last message to the clipboard (OSC 52)")]) { r, _, s in
            r.copyCommand(&s)
        },
        SlashCommand(name: "log", help: [HelpLine(usage: "/log", what: "this channel's log in $PAGER (set log on)")]) { r, _, s in
            r.logCommand(&s)
        },
        SlashCommand(name: "open", help: [HelpLine(usage: "/open, /enter NAME", what: "open channels: browse them, enter one")]) { r, c, s in
            r.openChannelCommand(c.words, &s)
        },
        SlashCommand(name: "enter") { r, c, s in r.openChannelCommand(c.words, &s) },
        SlashCommand(name: "create-open", help: [HelpLine(usage: "/create-open NAME", what: "a new open channel you operate")]) { r, c, s in
            r.createOpenCommand(c, &s)
        },
        SlashCommand(name: "exit", aliases: ["part"], help: [HelpLine(usage: "/exit", what: "leave the open channel on screen")]) { r, c, s in
            r.openChannelCommand(c.words, &s)
        },
        SlashCommand(
            name: "members", aliases: ["participants", "who"],
            help: [HelpLine(usage: "/members, /operators", what: "who is here (● online, ★ operator)")]
        ) { r, c, s in r.peopleCommand(c.words, &s) },
        SlashCommand(name: "operators", aliases: ["ops"]) { r, c, s in r.peopleCommand(c.words, &s) },
        SlashCommand(name: "op", argument: .user, help: [HelpLine(usage: "/op, /deop USER", what: "operators: add or remove an operator")]) {
            r, c, s in r.moderationCommand(c.words, &s)
        },
        SlashCommand(name: "deop", argument: .user) { r, c, s in r.moderationCommand(c.words, &s) },
        SlashCommand(
            name: "ban", argument: .user,
            help: [HelpLine(usage: "/ban USER [SECS] [WHY]", what: "operators: ban (for ever without SECS); /unban")]
        ) { r, c, s in r.moderationCommand(c.words, &s) },
        SlashCommand(name: "unban", argument: .user) { r, c, s in r.moderationCommand(c.words, &s) },
        SlashCommand(name: "mute", argument: .user, help: [HelpLine(usage: "/mute USER [SECS] [WHY]", what: "operators: mute; /unmute")]) {
            r, c, s in r.moderationCommand(c.words, &s)
        },
        SlashCommand(name: "unmute", argument: .user) { r, c, s in r.moderationCommand(c.words, &s) },
        SlashCommand(name: "banned", aliases: ["bans"], help: [HelpLine(usage: "/banned, /muted", what: "operators: who is banned or muted here")]) {
            r, c, s in r.peopleCommand(c.words, &s)
        },
        SlashCommand(name: "muted") { r, c, s in r.peopleCommand(c.words, &s) },
        SlashCommand(
            name: "report", argument: .choices(["spam", "harassing", "suspicious", "inappropriate"]),
            help: [HelpLine(usage: "/report [WHAT] CATEGORY", what: "report the channel (or user U, message)")]
        ) { r, c, s in r.reportCommand(c.words, &s) },
        SlashCommand(name: "whois", argument: .user, help: [HelpLine(usage: "/whois USER", what: "who someone is")]) { r, c, s in
            r.whoisCommand(c, &s)
        },
        SlashCommand(name: "users", help: [HelpLine(usage: "/users [FILTER]", what: "browse users: nickname prefix, key:value")]) { r, c, s in
            r.peopleCommand(c.words, &s)
        },
        SlashCommand(name: "nick", help: [HelpLine(usage: "/nick NAME", what: "change your nickname")]) { r, c, s in r.nickCommand(c, &s) },
        SlashCommand(name: "pane") { r, _, s in r.togglePeoplePane(&s) },
        SlashCommand(
            name: "split",
            help: [HelpLine(usage: "/split [-h] [NAME]", what: "show a channel beside this one (-h: below); Alt-W types there")]
        ) { r, c, s in r.splitCommand(c, &s) },
        SlashCommand(name: "unsplit", help: [HelpLine(usage: "/unsplit", what: "one pane again")]) { r, _, s in r.unsplitCommand(&s) },
        SlashCommand(
            name: "account", argument: .account,
            help: [HelpLine(usage: "/account [NAME]", what: "list the accounts, or go to NAME's channels")]
        ) { r, c, s in r.accountCommand(c, &s) },
        SlashCommand(
            name: "fold", argument: .account, help: [HelpLine(usage: "/fold [NAME]", what: "hide (or show) an account's channels in the list")]
        ) {
            r, c, s in r.foldCommand(c, &s)
        },
        SlashCommand(name: "go", aliases: ["switch"], help: [HelpLine(usage: "/go NAME", what: "switch to the channel best matching NAME")]) {
            r, c, s in r.goCommand(c, &s)
        },
        SlashCommand(
            name: "notify", argument: .choices(["all", "mentions", "none"]),
            help: [HelpLine(usage: "/notify all|mentions|none", what: "this channel's alerts")]
        ) { r, c, s in r.notifyCommand(c, &s) },
        SlashCommand(
            name: "theme", argument: .theme,
            help: [HelpLine(usage: "/theme NAME", what: "switch theme (default, dark, light, high-contrast, yours)")]
        ) { r, c, s in r.themeCommand(c, &s) },
        SlashCommand(
            name: "set", argument: .choices(Settings.settable.map(\.key)),
            help: [HelpLine(usage: "/set", what: "list the settings"), HelpLine(usage: "/set KEY [VALUE]", what: "show or change a setting")]
        ) { r, c, s in r.setCommand(c.words, text: c.text, &s) },
        SlashCommand(name: "save", help: [HelpLine(usage: "/save", what: "write the settings to the config file")]) { _, _, s in
            [.saveSettings(s.settings)]
        },
        SlashCommand(name: "dnd", argument: .choices(["off"]), help: [HelpLine(usage: "/dnd HH:MM-HH:MM|off", what: "do not disturb")]) {
            r, c, s in r.setCommand(["set", "dnd"] + c.words.dropFirst(), text: c.text, &s)
        },
        SlashCommand(name: "keymap", argument: .choices(["emacs", "vi"]), help: [HelpLine(usage: "/keymap emacs|vi", what: "key preset")]) {
            r, c, s in r.setCommand(["set", "keymap"] + c.words.dropFirst(), text: c.text, &s)
        },
        SlashCommand(name: "help", aliases: ["?"], help: [HelpLine(usage: "/help", what: "this help")]) { r, _, s in r.helpCommand(&s) },
        SlashCommand(name: "quit", aliases: ["q"], help: [HelpLine(usage: "/quit", what: "quit")]) { _, _, s in
            s.quitting = true
            return [.quit]
        },
    ]
}

extension Reducer {
    /// The slash commands for `tern --help`: each help line's usage, then the commands no usage names,
    /// comma-separated and wrapped at `width`.
    public static func commandsText(width: Int = 76, prefix: String = "") -> [String] {
        let usages = SlashCommand.helpLines.map(\.usage)
        let unnamed = SlashCommand.all.map { "/" + $0.name }.filter { name in
            !usages.contains { usage in usage.split(whereSeparator: { $0 == " " || $0 == "," }).contains { $0 == name } }
        }
        let items = usages + unnamed
        var lines: [String] = []
        var line = prefix
        for (i, item) in items.enumerated() {
            let word = item + (i == items.count - 1 ? "." : ",")
            if line.count > prefix.count && line.count + 1 + word.count > width {
                lines.append(line)
                line = prefix
            }
            line += (line.count > prefix.count ? " " : "") + word
        }
        lines.append(line)
        return lines
    }
}
