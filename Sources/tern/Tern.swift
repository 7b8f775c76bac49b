import ArgumentParser
import Foundation
import Logging
import TernKit
import TernProtocol
import TernTUI
import TernTerminal

/// The terminal client and its scriptable commands.
@main
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
              TERN_THEME          a theme file, or NAME for
                                  $XDG_CONFIG_HOME/tern/themes/NAME.theme
              NO_COLOR            set: no colours, attributes only
            In the client: Enter sends; Ctrl-N/Ctrl-P (Alt-↓/Alt-↑) switch channel;
            PgUp/PgDn scroll (older history loads at the top); Ctrl-O shows the
            channel (members, flags) with one-key actions; Ctrl-G browses public
            channels to join (Tab: your hidden ones); Esc lists the keys; Ctrl-C
            quits. Commands: /dm USER, /create NAME [USER…], /invite USER…, /accept,
            /decline, /autoaccept on|off, /join [NAME], /leave, /hide, /archive,
            /hidden, /unhide, /freeze, /unfreeze, /rename NAME, /info,
            /count all|messages|mentions|off, /readall, /block USER, /unblock USER,
            /blocked, /reply [TEXT], /thread, /edit [TEXT], /delete, /react KEY,
            /search WORDS, /upload PATH, /cancel, /download [DIR], /help, /quit.
            ↑ on an empty line edits your last message; Ctrl-R picks a message to
            reply to, react to, edit, delete or open as a thread; Ctrl-K searches;
            Tab completes @mentions.
            Channels, messages and unsent messages are cached in
            $XDG_CACHE_HOME/tern (else ~/.cache/tern), one file per server and user:
            tern starts with them at once, also while the server is down, and
            messages written offline go out when it is back.
            Logs go to $XDG_STATE_HOME/tern/tern.log. Scripts use `tern send` and
            `tern tail`.
            """,
        version: TernKit.sdkVersion,
        subcommands: [SendCommand.self, TailCommand.self, ServeEmbeddedCommand.self]
    )

    @OptionGroup var connection: ConnectionOptions

    @Flag(name: .customLong("stop-server"), help: "Stop the embedded local server and exit.")
    var stopServer = false

    @Flag(name: .customLong("no-cache"), help: "Keep nothing on disk: no offline start, unsent messages are lost on exit.")
    var noCache = false

    @Option(name: .customLong("cache-size"), help: "Largest offline cache in MB (the least recently opened channels' messages go first).")
    var cacheSizeMB: Int = 256

    func run() async throws {
        if stopServer {
            do { print(try EmbeddedServer.stop()) } catch { throw fail(error) }
            return
        }
        let env = ProcessInfo.processInfo.environment
        try? FileManager.default.createDirectory(atPath: Paths.state, withIntermediateDirectories: true)
        let sink = FileLogHandler.Sink(path: Paths.state + "/tern.log")
        LoggingSystem.bootstrap { label in FileLogHandler(label: label, sink: sink) }
        let config: ClientConfiguration
        let theme: Theme
        do {
            var c = try connection.clientConfiguration()
            if !noCache {
                guard cacheSizeMB >= 1 else { throw SendbirdError(.invalidParameter, "--cache-size must be at least 1 (MB)") }
                c.cacheDirectory = LocalCache.defaultDirectory(env)
                c.cacheMaxBytes = Int64(cacheSizeMB) * 1024 * 1024
            }
            config = c
            theme = try loadTheme(env)
        } catch {
            throw fail(error)
        }
        let client = ChatClient(configuration: config)
        let terminal = CursesTerminal(color: env["NO_COLOR"].map { $0.isEmpty } ?? true)
        let screen = Screen(theme: env["NO_COLOR"].map { $0.isEmpty ? theme : theme.withoutColor() } ?? theme)
        let app = ChatApp(client: client, surface: terminal, screen: screen, user: config.userId, server: config.server.apiBase)
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

    func loadTheme(_ env: [String: String]) throws -> Theme {
        guard let choice = env["TERN_THEME"], !choice.isEmpty else { return .builtin }
        let path = choice.contains("/") || choice.hasSuffix(".theme") ? choice : Paths.config + "/themes/\(choice).theme"
        do { return try Theme.load(path: path) } catch let e as Theme.ParseError {
            throw SendbirdError(.invalidParameter, "theme: \(e)")
        }
    }
}
