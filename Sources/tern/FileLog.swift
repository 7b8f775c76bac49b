import Foundation
import Logging
import TernTUI

/// Log lines appended to a file (the screen belongs to the client).
struct FileLogHandler: LogHandler {
    /// ISO 8601 in UTC (no DateFormatter: see TimeFormat).
    static let stamp = TimeFormat("yyyy-MM-dd'T'HH:mm:ss'Z'", timeZone: TimeZone(identifier: "UTC")!)
    final class Sink: @unchecked Sendable {
        let handle: FileHandle?
        let lock = NSLock()
        init(path: String) {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            handle = FileHandle(forWritingAtPath: path)
            handle?.seekToEndOfFile()
        }
        func write(_ s: String) {
            lock.lock()
            handle?.write(Data(s.utf8))
            lock.unlock()
        }
    }
    let label: String
    let sink: Sink
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        sink.write("\(Self.stamp.string(from: Date())) \(event.level) \(label): \(event.message)\n")
    }
}
