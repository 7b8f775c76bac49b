import ArgumentParser
import Dispatch
import Foundation
import TernKit
import TernProtocol

/// `tern tail`: prints what happens until interrupted.
struct TailCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tail",
        abstract: "Connect and print events as they happen until interrupted.",
        discussion: """
            Prints received messages, typing start/end, read and delivery receipts, unread-count
            changes and connection changes (reconnecting in Ns, connected…). The connection is
            re-made by itself after a network failure or a server restart.
            With --json, each event is one JSON object per line with a `type` field:
            connection, connected, reconnect_started, reconnect_succeeded, reconnect_failed,
            disconnected, channel_added, channel_deleted, message, typing_start, typing_end, read,
            delivery, unread, error.
            Exit status: 0 when interrupted (SIGINT/SIGTERM); 1 if the first connection fails or the
            server ends the session.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .long, help: "Only events of this channel URL (connection events are always shown).")
    var channel: String?

    @Flag(name: .long, help: "One JSON object per line.")
    var json = false

    func run() async throws {
        let client: ChatClient
        let config: ClientConfiguration
        do {
            config = try connection.clientConfiguration()
            client = ChatClient(configuration: config)
        } catch {
            throw fail(error)
        }
        let events = client.events()
        let stop = SignalWatch([SIGINT, SIGTERM])
        let (json, channel) = (self.json, self.channel)
        let printer = Task {
            var formatter = TailFormatter(json: json, me: config.userId, channelFilter: channel)
            var ended: CloseReason?
            for await event in events {
                for line in formatter.lines(for: event, now: SystemEngineClock().now()) { emitLine(line) }
                if case .disconnected(let reason) = event {
                    ended = reason
                    break
                }
            }
            return ended
        }
        do {
            try await client.connect()
            if let channel { _ = try await client.channel(channel) }
            try await client.loadAllChannels()
        } catch {
            await client.shutdown()
            printer.cancel()
            throw fail(error)
        }
        let outcome = await withTaskGroup(of: Int32.self) { group in
            group.addTask {
                await stop.wait()
                return 0
            }
            group.addTask {
                let reason = await printer.value
                switch reason {
                case .refused(let e), .reconnectFailed(let e), .connectFailed(let e):
                    _ = fail(e)
                    return 1
                default:
                    return 0
                }
            }
            let first = await group.next() ?? 0
            group.cancelAll()
            return first
        }
        await client.shutdown()
        printer.cancel()
        if outcome != 0 { throw ExitCode(outcome) }
    }
}

/// Waits for one of the given signals (the default action is turned off for them).
final class SignalWatch: @unchecked Sendable {  // sources are set once, only kept alive here
    private let stream: AsyncStream<Void>
    private let sources: [any DispatchSourceSignal]

    init(_ signals: [Int32]) {
        let (stream, cont) = AsyncStream<Void>.makeStream()
        self.stream = stream
        sources = signals.map { sig in
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler { cont.yield() }
            s.resume()
            return s
        }
    }

    func wait() async {
        for await _ in stream { return }
    }
}
