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
            Exit status: 0 when the server acknowledged the message; 1 on any error, printed as
            `tern: error CODE: message` with the Sendbird error code.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .long, help: "Send to the 1:1 channel with this user.")
    var to: String?

    @Option(name: .long, help: "Send to this channel URL.")
    var channel: String?

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
            let sent = try await client.sendMessageAndWait(message, to: url)
            emitLine(String(sent.messageId))
            await client.shutdown()
        } catch {
            await client.shutdown()
            throw fail(error)
        }
    }
}
