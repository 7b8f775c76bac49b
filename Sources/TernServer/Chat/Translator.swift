import Foundation
import TernProtocol

/// The pluggable translation provider: a shell command (``ServerConfiguration/translationCommand``)
/// run once per target language, the text on standard input, the language in `TERN_TARGET_LANG`,
/// the translation read from standard output. It runs on a thread of its own and is killed after
/// ``timeout`` seconds.
enum Translator {
    static let timeout: TimeInterval = 10

    static func translate(_ text: String, to lang: String, command: String) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try run(text, lang: lang, command: command) })
            }
        }
    }

    static func run(_ text: String, lang: String, command: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", command]
        p.environment = ProcessInfo.processInfo.environment.merging(["TERN_TARGET_LANG": lang]) { _, new in new }
        let input = Pipe()
        let output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        let killer = DispatchWorkItem { if p.isRunning { p.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
        input.fileHandleForWriting.write(Data(text.utf8))
        try? input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        killer.cancel()
        guard p.terminationReason == .exit, p.terminationStatus == 0 else {
            throw SendbirdError(.internalError, "The translation provider failed (exit \(p.terminationStatus)).")
        }
        var out = String(decoding: data.prefix(64 * 1024), as: UTF8.self)
        if out.hasSuffix("\n") { out.removeLast() }
        return out
    }
}
