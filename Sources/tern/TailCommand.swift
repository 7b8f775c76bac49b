import ArgumentParser
import Foundation
import Synchronization
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
            for await event in events {
                for line in formatter.lines(for: event, now: SystemEngineClock().now()) { emitLine(line) }
                if case .disconnected(let reason) = event {
                    switch reason {
                    case .refused(let e), .reconnectFailed(let e), .connectFailed(let e):
                        // The session is over (after the first connection, which reports below).
                        if stop.ended.load(ordering: .relaxed) == 0 {
                            _ = fail(e)
                            stop.end(1)
                        }
                    case .requested:
                        break
                    }
                    return
                }
            }
        }
        do {
            try await client.connect()
            if let channel { _ = try await client.channel(channel) }
            try await client.loadAllChannels()
        } catch {
            stop.end(2)
            await client.shutdown()
            printer.cancel()
            throw fail(error)
        }
        await stop.wait()
        let status = stop.ended.load(ordering: .relaxed)
        await client.shutdown()
        await printer.value
        if status != 0 { throw ExitCode(1) }
    }
}

/// Set by the signal handler; read by ``SignalWatch``.
let signalled = Atomic<Int32>(0)
/// The write end of ``SignalWatch``'s pipe: the handler writes a byte to it (async-signal-safe).
let signalPipe = Atomic<Int32>(-1)

/// Waits for one of the given signals, or for the session to end by itself (``end(_:)``), without
/// polling: a plain handler sets a flag and writes a byte to a pipe (all a handler may safely do),
/// and a thread blocked reading that pipe wakes the waiter. (Ignored signals never reach a Dispatch
/// source on Linux, hence the handler.)
final class SignalWatch: Sendable {
    /// Non-zero once the session ended by itself (1: the server ended it).
    let ended = Atomic<Int32>(0)
    let readEnd: Int32
    let writeEnd: Int32

    init(_ signals: [Int32]) {
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        readEnd = fds[0]
        writeEnd = fds[1]
        signalPipe.store(fds[1], ordering: .relaxed)
        for sig in signals {
            signal(sig) { s in
                signalled.store(s, ordering: .relaxed)
                var b: UInt8 = 1
                _ = write(signalPipe.load(ordering: .relaxed), &b, 1)
            }
        }
    }

    /// The session is over by itself (`status`: 1 the server ended it, 2 it never started).
    func end(_ status: Int32) {
        ended.store(status, ordering: .relaxed)
        var b: UInt8 = 1
        _ = write(writeEnd, &b, 1)
    }

    func wait() async {
        let fd = readEnd
        await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
            let t = Thread {
                var b: UInt8 = 0
                while read(fd, &b, 1) < 0 && errno == EINTR {}
                cont.resume()
            }
            t.name = "tern-signals"
            t.start()
        }
    }
}
