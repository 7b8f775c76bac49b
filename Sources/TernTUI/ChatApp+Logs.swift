import Foundation
import TernKit

/// Appends chat log lines to their files on a task of its own, in the order given: the app hands over a
/// batch and goes on (the drawing path never waits for the disk). The first failure is reported once.
final class ChatLogWriter: Sendable {
    /// Text to append to a file, or a barrier to resume once everything before it is written.
    enum Job: Sendable {
        case append([(path: String, text: String)])
        case barrier(CheckedContinuation<Void, Never>)
    }

    private let jobs: AsyncStream<Job>.Continuation

    /// `failed` is called once, with what went wrong, from the writer's task.
    init(failed: @escaping @Sendable (String) -> Void) {
        let (stream, continuation) = AsyncStream<Job>.makeStream()
        jobs = continuation
        Task.detached(priority: .utility) {
            var reported = false
            for await job in stream {
                switch job {
                case .barrier(let c):
                    c.resume()
                case .append(let writes):
                    if let error = Self.write(writes), !reported {
                        reported = true
                        failed(error)
                    }
                }
            }
        }
    }

    deinit { jobs.finish() }

    func append(_ writes: [(path: String, text: String)]) {
        guard !writes.isEmpty else { return }
        jobs.yield(.append(writes))
    }

    /// Returns once what was handed over before is on disk (or failed).
    func flush() async {
        await withCheckedContinuation { c in jobs.yield(.barrier(c)) }
    }

    /// Appends each file's lines (created with mode 0600, its directory with 0700); the first error in words.
    static func write(_ writes: [(path: String, text: String)]) -> String? {
        var byPath: [String: String] = [:]
        var order: [String] = []
        for w in writes {
            if byPath[w.path] == nil { order.append(w.path) }
            byPath[w.path, default: ""] += w.text
        }
        let fm = FileManager.default
        for path in order {
            let dir = (path as NSString).deletingLastPathComponent
            do {
                try fm.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                if !fm.fileExists(atPath: path) {
                    guard fm.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                        return "cannot create \(path)"
                    }
                }
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
                defer { try? handle.close() }
                try handle.seekToEnd()
                try handle.write(contentsOf: Data(byPath[path, default: ""].utf8))
            } catch {
                return "cannot write \(path): \(error.localizedDescription)"
            }
        }
        return nil
    }
}

/// Chat logs: the lines of each engine event, to the writer; `/log` in the pager.
extension ChatApp {
    /// Before the reducer sees an engine event: its log lines (when `log` is on), handed to the writer.
    func logEvent(_ event: ClientEvent) {
        guard state.settings.log else { return }
        let entries = chatLog.entries(for: event, in: state, now: SystemEngineClock().now())
        guard !entries.isEmpty else { return }
        let tz = chatLog.zone
        // Each account's logs where its cache is named (the embedded server is "embedded", whatever its port).
        let writes = entries.map { e in
            (
                path: logDirectory(forKey: e.channelUrl) + "/"
                    + ChatLog.fileName(channelName: e.channelName, url: AccountKey.url(of: e.channelUrl), month: ChatLog.month(e.at, tz)),
                text: e.text
            )
        }
        logWriter.append(writes)
    }

    /// The writer, made on first use; a disk error shows once in the status bar.
    var logWriter: ChatLogWriter {
        if let w = chatLogWriter { return w }
        let w = ChatLogWriter { [weak self] error in Task { await self?.dispatch(.notice("log: \(error) (logging goes on trying)")) } }
        chatLogWriter = w
        return w
    }

    /// `/log`: this month's log of the channel in `$PAGER` (else less).
    func openLog(_ url: String) async {
        await chatLogWriter?.flush()
        let name = ChatLog.channelName(url, state)
        let path =
            logDirectory(forKey: url) + "/"
            + ChatLog.fileName(channelName: name, url: AccountKey.url(of: url), month: ChatLog.month(SystemEngineClock().now(), chatLog.zone))
        guard FileManager.default.fileExists(atPath: path) else {
            let hint = state.settings.log ? "" : " (logging is off: /set log on)"
            dispatch(.notice("no log of #\(name) this month yet\(hint): \(path)"))
            return
        }
        let status = await surface.runInTerminal(["/bin/sh", "-c", "${PAGER:-less} \"$1\"", "sh", path])
        surface.redrawAll()
        if status != 0 { dispatch(.notice("the pager ended with status \(status): \(path)")) }
        markDirty()
    }
}
