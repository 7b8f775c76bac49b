import ArgumentParser
import Foundation
import TernKit
import TernProtocol

/// Options every networked command shares; the environment fills what they leave out.
struct ConnectionOptions: ParsableArguments {
    @Option(
        name: .long, help: "Server: http://HOST:PORT, https://HOST:PORT or sendbird://APP_ID (default: $TERN_SERVER, else the embedded local server)."
    )
    var server: String?

    @Option(name: .customLong("user"), help: "User id to sign in as (default: $TERN_USER_ID, else $USER).")
    var userId: String?

    @Option(
        name: .customLong("ca-file"),
        help: ArgumentHelp(
            "PEM file of a certificate authority to trust for https:// and wss://, besides the system's (default: $TERN_CA_FILE).",
            discussion: "For a ternd whose certificate is self-signed or from a private CA. The certificate is always verified.",
            valueName: "path"))
    var caFile: String?

    /// The configuration from the options and the environment; with no server given anywhere, the embedded
    /// local server (started if it is not running), as the interactive client does.
    func clientConfiguration(_ env: [String: String] = ProcessInfo.processInfo.environment) throws -> ClientConfiguration {
        try Self.clientConfiguration(env, server: server, userId: userId, caFile: caFile)
    }

    /// The configuration of a login: the given server, user and CA file, else the environment's; no server
    /// anywhere: the embedded local server.
    static func clientConfiguration(_ env: [String: String], server: String?, userId: String?, caFile: String?) throws -> ClientConfiguration {
        if let address = server ?? env["TERN_SERVER"].flatMap({ $0.isEmpty ? nil : $0 }) {
            return try ClientConfiguration.fromEnvironment(env, server: address, userId: userId, caFile: caFile)
        }
        // The embedded server: one cache whatever port it has, and followed if it moves.
        var config = try ClientConfiguration.fromEnvironment(env, server: try EmbeddedServer.ensure(), userId: userId, caFile: caFile)
        config.cacheName = "embedded"
        config.locateServer = { EmbeddedServer.current() }
        return config
    }
}

/// Prints `tern: error CODE: message` on standard error and exits with status 1.
func fail(_ error: any Error) -> ExitCode {
    let text: String
    if let e = error as? SendbirdError {
        text = "tern: error \(e.code.rawValue): \(e.message)"
    } else {
        text = "tern: \(error)"
    }
    FileHandle.standardError.write(Data((text + "\n").utf8))
    return ExitCode(1)
}

/// Writes one line to standard output at once (scripts read it as it happens).
func emitLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
