import ArgumentParser
import Foundation
import TernKit
import TernProtocol

/// `tern send`: one message, acknowledged by the server, its id printed.
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send one message and print its id once the server has stored it.",
        discussion: """
            With --to, the distinct 1:1 channel with that user is used (and created if needed).
            Without TEXT, the message is read from standard input.
            The server takes at most a few messages per second from one user in a channel
            (900200, Sendbird's flood limit, 5/s by default): tern send waits and sends again
            within the limit (up to --wait-limit seconds), so it can be run in a loop;
            --fail-fast exits at once instead.
            Exit status: 0 when the server acknowledged the message; 1 on any error, printed as
            `tern: error CODE: message` with the Sendbird error code.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .long, help: "Send to the 1:1 channel with this user.")
    var to: String?

    @Option(name: .long, help: "Send to this channel URL.")
    var channel: String?

    @Flag(name: .customLong("fail-fast"), help: "Exit at once when the server's rate limit refuses the message (900200), instead of waiting.")
    var failFast = false

    @Option(name: .customLong("wait-limit"), help: "Longest time in seconds to keep retrying a message the rate limit refused.")
    var waitLimit: Double = 60

    @Argument(help: "The message text (words are joined with spaces).")
    var text: [String] = []

    func validate() throws {
        guard (to == nil) != (channel == nil) else {
            throw ValidationError("give exactly one of --to USER or --channel URL")
        }
    }

    func run() async throws {
        var message = text.joined(separator: " ")
        if text.isEmpty {
            message = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            if message.hasSuffix("\n") { message.removeLast() }
        }
        guard !message.isEmpty else { throw fail(SendbirdError(.invalidParameter, "the message is empty")) }
        let client: ChatClient
        do {
            client = ChatClient(configuration: try connection.clientConfiguration())
        } catch {
            throw fail(error)
        }
        do {
            try await client.connect()
            let url: String
            if let to {
                url = try await client.directChannel(with: to).url
            } else {
                url = channel ?? ""
            }
            let sent = try await sendWithinRateLimit(client, message, to: url)
            emitLine(String(sent.messageId))
            await client.shutdown()
        } catch {
            await client.shutdown()
            throw fail(error)
        }
    }

    /// Sends, and while the server's flood limit refuses the message (900200: nothing was stored),
    /// waits a little longer each time (0.3 s, 0.6 s, then 1–1.5 s) and sends again, for at most
    /// `--wait-limit` seconds; `--fail-fast` gives up at the first refusal.
    func sendWithinRateLimit(_ client: ChatClient, _ text: String, to url: String) async throws -> Message {
        let deadline = ContinuousClock.now + .milliseconds(Int64(max(0, waitLimit) * 1000))
        var attempt = 0
        while true {
            do {
                return try await client.sendMessageAndWait(text, to: url)
            } catch let e as SendbirdError where e.code == .tooManyMessages && !failFast {
                attempt += 1
                let base = attempt == 1 ? 300 : attempt == 2 ? 600 : 1000
                let pause = Duration.milliseconds(base + Int.random(in: 0...(base / 2)))
                guard ContinuousClock.now + pause < deadline else {
                    throw SendbirdError(e.code, "\(e.message) (still refused after \(Int(waitLimit)) s of retrying; see --wait-limit)")
                }
                try await Task.sleep(for: pause)
            }
        }
    }
}
