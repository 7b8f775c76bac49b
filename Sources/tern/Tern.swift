import ArgumentParser
import TernKit
import TernServer
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
              TERN_SERVER         http://HOST:PORT of a ternd, or sendbird://APP_ID (or --server)
              TERN_USER_ID        the user to sign in as (default: $USER)
              TERN_ACCESS_TOKEN   the user's access token, if the server requires one
              TERN_TOKEN_COMMAND  a shell command that prints the token (used when TERN_ACCESS_TOKEN is unset)
              TERN_APP_ID         the application id (default: LOCAL)

            Scripts use `tern send` and `tern tail`. The interactive client is being built; until it
            lands, run a server with `ternd serve --port 8080`.
            """,
        version: TernKit.sdkVersion,
        subcommands: [SendCommand.self, TailCommand.self]
    )

    func run() async throws {
        print("tern: the interactive client is not built yet; use `tern send` / `tern tail` (see `tern --help`).")
        print("linked: engine \(TernTUI.engineVersion), \(TernTerminal.cursesVersion)")
        throw ExitCode(2)
    }
}
