import ArgumentParser
import TernKit
import TernServer
import TernTUI
import TernTerminal

/// The terminal client. The interactive client, `tern send` and `tern tail` arrive with the
/// engine and terminal-client issues; until then this says so and points at the server.
@main
struct Tern: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tern",
        abstract: "Tern, a keyboard-driven terminal chat client (not usable yet: the client is being built).",
        discussion: """
            The server is ready: run `swift run ternd serve --port 8080` and point a Sendbird SDK at it
            (customApiHost http://127.0.0.1:8080, customWebSocketHost ws://127.0.0.1:8080, app id LOCAL).
            """,
        version: TernKit.sdkVersion
    )

    func run() throws {
        print("tern: the interactive client is not built yet; run `ternd serve` (see `tern --help`).")
        print("linked: engine \(TernTUI.engineVersion), \(TernTerminal.cursesVersion)")
        throw ExitCode(2)
    }
}
