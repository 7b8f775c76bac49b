import Foundation
import TernKit

/// Opening what is outside tern: a message's file, a link (`$BROWSER` or `xdg-open`).
extension ChatApp {
    /// Alt-O: the file of a message, downloaded into the cache, opened with `$BROWSER` or `xdg-open`.
    func openFile(_ m: Message) async {
        let env = ProcessInfo.processInfo.environment
        let base = env["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? ((env["HOME"] ?? NSTemporaryDirectory()) + "/.cache")
        let dir = base + "/tern/files"
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let (client, r) = route(forKey: m.channelUrl)
            guard let path = try await client.download(r.untagged(m), to: dir).first else { return }
            guard let opener = Self.opener(env) else {
                dispatch(.notice("saved \(path) (no $BROWSER or xdg-open to show it)"))
                return
            }
            try Self.launch(opener, path)
            dispatch(.notice("opened \(path)"))
        } catch {
            dispatch(.failed("open: " + Self.describe(error)))
        }
    }

    /// `/url N`: the link opened with `$BROWSER` or `xdg-open` (started detached: the UI does not wait), or
    /// what would run when neither is there.
    func openURL(_ url: String) {
        let env = ProcessInfo.processInfo.environment
        guard let opener = Self.opener(env) else {
            dispatch(.notice("no $BROWSER or xdg-open: would run \(Self.opener(env, found: false) ?? "xdg-open") '\(url)'"))
            return
        }
        do {
            try Self.launch(opener, url)
            dispatch(.notice("opening \(url) with \(opener)"))
        } catch {
            dispatch(.failed("open: " + Self.describe(error)))
        }
    }

    /// `$BROWSER` (when set) or `xdg-open`, when its program is on the PATH (or at its path); with
    /// `found: false`, the command whether or not it is there.
    nonisolated static func opener(_ env: [String: String], found: Bool = true) -> String? {
        let opener = env["BROWSER"].flatMap { $0.isEmpty ? nil : $0 } ?? "xdg-open"
        guard found else { return opener }
        let program = String(opener.split(separator: " ").first ?? "")
        let there =
            program.contains("/")
            ? FileManager.default.isExecutableFile(atPath: program)
            : (env["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(program)") }
        return there ? opener : nil
    }

    /// Runs `opener target` through the shell, detached from the terminal (no input, output thrown away), not waited for.
    nonisolated static func launch(_ opener: String, _ target: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "exec $1 \"$2\"", "sh", opener, target]
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
    }
}
