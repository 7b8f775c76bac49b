import Foundation

/// `--profile SECONDS`: `perf record -g -p SERVER_PID -o FILE -- sleep SECONDS`, started with the
/// measured window, then the top of `perf report --stdio --no-children --percent-limit 1.5`.
/// perf missing or refused (no permission, no PID) is reported, never fatal.
final class Profiler: @unchecked Sendable {
    /// Set once in ``start(pid:seconds:)`` and read after the recording ended (`process` is waited for).
    private let process = Process()
    private let errors = Pipe()
    let dataPath: String

    private init(dataPath: String) { self.dataPath = dataPath }

    /// Starts recording; nil (after printing why) when perf cannot run.
    static func start(pid: Int32?, seconds: Double) -> Profiler? {
        guard let pid else {
            print("profile: skipped: the server's PID is unknown (pass --server-pid)")
            return nil
        }
        guard let perf = which("perf") else {
            print("profile: skipped: perf is not installed (not on PATH)")
            return nil
        }
        let p = Profiler(dataPath: NSTemporaryDirectory() + "tern-bench-perf-\(pid)-\(SpawnedServer.randomHex(3)).data")
        p.process.executableURL = URL(fileURLWithPath: perf)
        p.process.arguments = ["record", "-g", "-p", String(pid), "-o", p.dataPath, "--", "sleep", String(seconds)]
        p.process.standardOutput = FileHandle.nullDevice
        p.process.standardError = p.errors
        do {
            try p.process.run()
        } catch {
            print("profile: skipped: cannot run perf: \(error.localizedDescription)")
            return nil
        }
        return p
    }

    /// Waits for the recording to end, writes the report next to the data, and returns the lines
    /// to print: the report's path and its top-level entries.
    func finish() async -> [String] {
        await Task.detached { [process] in process.waitUntilExit() }.value
        let recordErrors = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard process.terminationStatus == 0, FileManager.default.fileExists(atPath: dataPath) else {
            return ["profile: perf record failed (status \(process.terminationStatus)): "
                + recordErrors.split(separator: "\n").suffix(3).joined(separator: " / ")]
        }
        let reportPath = dataPath.replacingOccurrences(of: ".data", with: ".txt")
        let report = Process()
        report.executableURL = process.executableURL
        report.arguments = ["report", "-i", dataPath, "--stdio", "--no-children", "--percent-limit", "1.5"]
        _ = FileManager.default.createFile(atPath: reportPath, contents: nil)
        report.standardOutput = FileHandle(forWritingAtPath: reportPath)
        report.standardError = FileHandle.nullDevice
        do {
            try report.run()
            await Task.detached { report.waitUntilExit() }.value
        } catch {
            return ["profile: recorded \(dataPath), but perf report failed: \(error.localizedDescription)"]
        }
        let text = (try? String(contentsOfFile: reportPath, encoding: .utf8)) ?? ""
        // Top-level entries only ("  12.34%  ternd  libfoo.so  [.] symbol"); the call graphs are in the file.
        let entries = text.split(separator: "\n").filter { line in
            let t = line.drop { $0 == " " }
            return t.first?.isNumber == true && t.contains("%")
        }
        return ["profile: \(dataPath) (perf report with call graphs: \(reportPath)); self time, entries ≥ 1.5%:"]
            + entries.prefix(40).map { "  " + String($0.drop { $0 == " " }) }
    }

    static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
