import Foundation
import TernProtocol

@testable import TernKit

/// An upload's progress as the engine reports it: (bytes sent, bytes in all), in order.
final class ProgressLog: Sendable {
    let items = Locked<[(Int64, Int64)]>([])
    func add(_ a: Int64, _ b: Int64) { items.withLock { $0.append((a, b)) } }
    var last: (Int64, Int64)? { items.withLock { $0.last } }
}

/// Writes `text` to the file `path` and sends it from `client` to the channel `url`, with the
/// upload's progress logged: the file's bytes, the send's request id, its progress, and its message
/// once `log` (the client's) has the send's outcome.
func sendTextFile(
    _ text: String, at path: String, from client: ChatClient, log: EventLog, to url: String
) async throws -> (content: Data, id: String, progress: ProgressLog, sent: Message) {
    let content = Data(text.utf8)
    _ = FileManager.default.createFile(atPath: path, contents: content)
    let progress = ProgressLog()
    let id = try await client.sendFile(path: path, to: url) { sent, total in progress.add(sent, total) }
    return (content, id, progress, try await log.outcome(of: id, "file sent"))
}
