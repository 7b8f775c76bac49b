import ArgumentParser
import Foundation
import Logging
import TernKit
import TernProtocol
import TernTUI
import TernTerminal

/// The terminal client and its scriptable commands.
struct Tern: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tern",
        abstract: "Tern, a keyboard-driven terminal chat client for Sendbird-compatible servers.",
        discussion: """
            Login comes from the environment, with no prompt:
              TERN_SERVER         http://HOST:PORT or https://HOST:PORT of a ternd, or
                                  sendbird://APP_ID (or --server). Unset: tern starts
                                  (or reuses) an embedded local server on 127.0.0.1,
                                  data in $XDG_DATA_HOME/tern/server.
              TERN_CA_FILE        a PEM file of a CA to trust for https:// besides the
                                  system's, e.g. a self-signed ternd's (or --ca-file)
              TERN_USER_ID        the user to sign in as (default: $USER)
              TERN_ACCESS_TOKEN   the user's access token, if the server needs one
              TERN_TOKEN_COMMAND  a command printing the token (without the above)
              TERN_APP_ID         the application id (default: LOCAL)
              TERN_TERND          the ternd that runs the embedded server (default:
                                  the one beside tern, else on PATH)
              TERN_THEME          a theme file, or NAME: default, dark, light,
                                  high-contrast, or $XDG_CONFIG_HOME/tern/themes/NAME.theme
              NO_COLOR            set: no colours, attributes only
            Several accounts or servers at once: [[accounts]] tables in the config
            (name, server, user_id, token or token_command, color; see below); then
            the variables above do not sign in, --server or --user does (once). Each
            account's channels are listed under its name; /account NAME goes there.
            In the client: Enter sends; Ctrl-N/Ctrl-P (Alt-↓/Alt-↑) switch channel;
            PgUp/PgDn scroll (older history loads at the top); Ctrl-O shows the
            channel (members, flags) with one-key actions; Ctrl-G browses public
            channels to join (Tab: your hidden ones); F1/Esc lists the keys; Ctrl-C
            quits.
            Notifications: on a mention, a highlight word or a 1-on-1 message in a
            channel you are not looking at, the bell and/or OSC 777 / OSC 9 (through
            tmux too), as notify, notify_style and the server's push preferences say;
            the status bar's "Act:" lists channels with news (Alt-A goes there) and
            the terminal title shows unread counts. A message is read once seen: its
            channel on screen, the terminal focused (focus reporting) and you there.
            Channels, messages and unsent messages are cached in
            $XDG_CACHE_HOME/tern (else ~/.cache/tern), one file per server and user:
            tern starts with them at once, also while the server is down, and
            messages written offline go out when it is back.
            Logs go to $XDG_STATE_HOME/tern/tern.log (with log = true, channels' messages
            to $XDG_STATE_HOME/tern/logs/; /log opens them). Scripts use `tern send`
            and `tern tail`.

            KEYS (emacs preset; keymap = "vi" for vi's modes; F1 or Esc lists the live
            keymap): Enter sends, Alt-Enter a new line, Ctrl-X Ctrl-E edits the draft in
            $EDITOR; readline: Ctrl-A/E/B/F/D/H/W/U/K/Y, Alt-B/F/D/Backspace,
            Ctrl-←/→, Ctrl-_ undo; ↑/↓ input history of the channel (Alt-E edits your
            last message); Tab/Shift-Tab complete @nick, /command, #channel, :emoji:,
            paths after /upload; Alt-1…9, Alt-0 channel N; Alt-A next channel with
            activity (mentions first); Alt-J switch channel by name; Ctrl-S search;
            Ctrl-R pick a message; Alt-O open the last image; Alt-U number the links
            on screen, then 1–9 opens one; Alt-W type in the other pane (/split);
            Alt-S spelling suggestions; Ctrl-L redraw.
            A pasted block is one message (asks first above paste_confirm_lines).
            Quick edits, typed as a message: s/old/new/ edits your last one, +:emoji:
            reacts to the last message (2+:emoji: the one before), -:emoji: takes it back.

            COMMANDS (F1 or /help in tern says what each does; docs/usage.md too):

            """ + Reducer.commandsText(width: 76, prefix: "  ").joined(separator: "\n") + """


                KEY COMMANDS (the names [keys] in the config binds; F1 in tern says what
                each does):

                """ + Command.namesText(width: 76, prefix: "  ").joined(separator: "\n") + """


                    CONFIG: $XDG_CONFIG_HOME/tern/config.toml (or --config PATH); the
                    environment and options win over it. /set KEY VALUE changes a setting
                    live, /save writes the file. The example, with every key:

                    """ + exampleConfig,
        version: TernKit.sdkVersion,
        subcommands: [SendCommand.self, TailCommand.self]
    )

    @OptionGroup var connection: ConnectionOptions

    @Flag(name: .customLong("stop-server"), help: "Stop the embedded local server and exit.")
    var stopServer = false

    @Flag(name: .customLong("no-cache"), help: "Keep nothing on disk: no offline start, unsent messages are lost on exit.")
    var noCache = false

    @Option(name: .customLong("cache-size"), help: "Largest offline cache in MB (the least recently opened channels' messages go first).")
    var cacheSizeMB: Int = 256

    @Option(name: .customLong("config"), help: "The config file (default: $XDG_CONFIG_HOME/tern/config.toml).")
    var configPath: String?

    func run() async throws {
        if stopServer {
            do { print(try EmbeddedServer.stop()) } catch { throw fail(error) }
            return
        }
        var env = ProcessInfo.processInfo.environment
        let configFile = configPath ?? Paths.config + "/config.toml"
        let settings: Settings
        do {
            if let configPath, !FileManager.default.fileExists(atPath: configPath) {
                throw SendbirdError(.invalidParameter, "--config: no such file: \(configPath)")
            }
            settings = try Settings.load(path: configFile)
        } catch let e as Settings.SettingsError {
            throw fail(SendbirdError(.invalidParameter, e.description))
        } catch {
            throw fail(error)
        }
        // The config fills in what the environment leaves out.
        for (key, value) in [
            ("TERN_SERVER", settings.server), ("TERN_USER_ID", settings.user), ("TERN_TOKEN_COMMAND", settings.tokenCommand),
            ("TERN_APP_ID", settings.appId), ("TERN_CA_FILE", settings.caFile),
        ] {
            if let value, !value.isEmpty, (env[key] ?? "").isEmpty { env[key] = value }
        }
        try? FileManager.default.createDirectory(atPath: Paths.state, withIntermediateDirectories: true)
        let sink = FileLogHandler.Sink(path: Paths.state + "/tern.log")
        LoggingSystem.bootstrap { label in FileLogHandler(label: label, sink: sink) }
        let config: ClientConfiguration
        // Several logins ([[accounts]]) unless the command line names one.
        var accountConfigs: [(AccountSettings, ClientConfiguration)] = []
        let theme: Theme
        let keys: KeyTable
        do {
            if connection.server == nil && connection.userId == nil && !settings.accounts.isEmpty {
                accountConfigs = try accountConfigurations(settings.accounts, env, configFile: configFile)
                config = accountConfigs[0].1
            } else {
                config = try prepared(try connection.clientConfiguration(env), env)
            }
            theme = try loadTheme(env, settings: settings)
            keys = try settings.keyTable()
        } catch let e as Settings.SettingsError {
            throw fail(SendbirdError(.invalidParameter, "\(configFile): \(e.message)"))
        } catch {
            throw fail(error)
        }
        let noColor = !(env["NO_COLOR"] ?? "").isEmpty
        let terminal = CursesTerminal(color: !noColor)
        var screen = Screen(theme: noColor ? theme.withoutColor() : theme, keys: keys, timestampFormat: settings.timestampFormat)
        screen.nickColors = settings.nickColors
        // The first frame before anything else (the cache opens, the server answers): the screen is there at once.
        let accounts =
            accountConfigs.count < 2
            ? []
            : accountConfigs.map { a, c in
                Account(
                    name: a.name, client: ChatClient(configuration: c), userId: c.userId, server: c.server.apiBase, fileName: c.cacheName,
                    color: a.color)
            }
        var first = AppState(me: User(userId: config.userId), server: config.server.apiBase)
        first.accounts = accounts.map { AccountState(name: $0.name, me: User(userId: $0.userId), server: $0.server, color: $0.color) }
        first.settings = settings
        let (w, h) = terminal.size()
        terminal.present(screen.render(first, width: w, height: h, now: SystemEngineClock().now()))
        let client = accounts.first?.client ?? ChatClient(configuration: config)
        // Per account, named as its cache is: the embedded server is one account whatever its port.
        let layoutName =
            accounts.isEmpty
            ? config.userId + "@" + (config.cacheName ?? config.server.apiBase) : "accounts"
        let app = ChatApp(
            client: client, surface: terminal, screen: screen, user: config.userId, server: config.server.apiBase, settings: settings,
            configPath: configFile, themesDirectory: Paths.config + "/themes", noColor: noColor,
            layoutPath: Paths.state + "/layout-" + Paths.safeName(layoutName) + ".json", spellChecker: HunspellChecker(),
            accountServer: config.cacheName, accounts: accounts)
        let stop = SignalWatch([SIGTERM, SIGHUP])
        let quitOnSignal = Task {
            await stop.wait()
            terminal.stop()
            Foundation.exit(0)
        }
        await app.run()
        quitOnSignal.cancel()
        terminal.stop()
    }

    /// Each `[[accounts]]` login, ready to run; what is wrong with one names the account (`--ca-file` is for
    /// every account without `ca_file`), and two that are the same login are refused.
    func accountConfigurations(_ accounts: [AccountSettings], _ env: [String: String], configFile: String) throws -> [(
        AccountSettings, ClientConfiguration
    )] {
        var accountConfigs: [(AccountSettings, ClientConfiguration)] = []
        for a in accounts {
            // What is wrong with one account's login names the account (--ca-file: for every account without ca_file).
            let c: ClientConfiguration
            do {
                c = try ConnectionOptions.clientConfiguration(
                    a.environment(env), server: a.server, userId: a.userId, caFile: a.caFile ?? connection.caFile)
            } catch let e as SendbirdError {
                throw SendbirdError(
                    e.code, "\(configFile): account \(a.name): " + e.message.replacingOccurrences(of: "TERN_USER_ID", with: "user_id"))
            }
            // One cache per login: two accounts that are the same login would share it.
            if let twin = accountConfigs.first(where: { $0.1.userId == c.userId && $0.1.cacheName == c.cacheName && $0.1.server == c.server }) {
                throw SendbirdError(
                    .invalidParameter, "accounts \(twin.0.name) and \(a.name) are the same login (\(c.userId) on \(c.server.apiBase))")
            }
            accountConfigs.append((a, try prepared(c, env)))
        }
        return accountConfigs
    }

    /// A login as the interactive client runs it: waiting for its server, with its offline cache.
    func prepared(_ config: ClientConfiguration, _ env: [String: String]) throws -> ClientConfiguration {
        var c = config
        // The client waits for its server (down, restarting, a wrong port) and says so, rather than giving up.
        c.waitForServer = true
        if !noCache {
            guard cacheSizeMB >= 1 else { throw SendbirdError(.invalidParameter, "--cache-size must be at least 1 (MB)") }
            c.cacheDirectory = LocalCache.defaultDirectory(env)
            c.cacheMaxBytes = Int64(cacheSizeMB) * 1024 * 1024
        }
        return c
    }

    /// `TERN_THEME`, else the config's theme: a file, a theme in $XDG_CONFIG_HOME/tern/themes, or one tern carries.
    func loadTheme(_ env: [String: String], settings: Settings) throws -> Theme {
        let choice = (env["TERN_THEME"] ?? "").isEmpty ? settings.theme : env["TERN_THEME"]!
        do { return try Theme.named(choice, themesDirectory: Paths.config + "/themes") } catch let e as Theme.ParseError {
            throw SendbirdError(.invalidParameter, "theme: \(e)")
        }
    }
}
