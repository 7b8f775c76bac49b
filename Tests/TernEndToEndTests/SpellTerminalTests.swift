import Foundation
import TernTerminal
import Testing

/// Spell checking in the real `tern` in tmux: the dictionary (several MB resident) is loaded when
/// the input line first gets text, not at start, so someone who only reads never pays for it; once
/// loaded, the input is checked (Alt-S offers a suggestion).
@Suite("Spell check in a real terminal", .serialized)
struct SpellTerminalTests {
    typealias T = TerminalEndToEndTests

    /// The `tern` process in a tmux session: the child of the pane's shell.
    static func ternPid(_ tmux: Tmux, _ session: String) async -> Int? {
        let shell = await tmux.run(["display", "-p", "-t", session, "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let children = (try? String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").compactMap { Int($0) }.first {
            (try? String(contentsOfFile: "/proc/\($0)/comm", encoding: .utf8))?.hasPrefix("tern") == true
        }
    }

    /// Whether the process has Hunspell's library mapped. (`/proc` files are read to their end here:
    /// Foundation's `String(contentsOfFile:)` stops at the first 4 kB of a file that reports no size.)
    static func mapsHunspell(_ pid: Int) -> Bool {
        let fd = open("/proc/\(pid)/maps", O_RDONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while case let n = read(fd, &chunk, chunk.count), n > 0 { text += chunk[0..<n] }
        return String(decoding: text, as: UTF8.self).contains("libhunspell")
    }

    @Test(.enabled(if: HunspellTests.installed, "skipped: no libhunspell or no en_US dictionary"))
    func theDictionaryLoadsAtTheFirstTextTyped() async throws {
        try await T.withTerminals(["alice", "bob"], size: (100, 24)) { tmux, server in
            try await server.createGroup("team", name: "team", of: ["alice", "bob"])
            try await server.post("morning", by: "bob", in: "team")
            try await tmux.waitScreen("alice", "the message") { $0.contains("bob: morning") }
            guard let pid = await Self.ternPid(tmux, "alice") else {
                Issue.record("no tern process under alice's pane")
                return
            }
            // Reading only: no dictionary in memory.
            try await Task.sleep(for: .seconds(1))
            #expect(!Self.mapsHunspell(pid), "the dictionary was loaded before anything was typed")
            // The first text typed loads it; then a misspelled word gets a suggestion.
            await tmux.text("alice", "good morning wrld")
            try await tmux.waitScreen("alice", "the text typed") { $0.contains("> good morning wrld") }
            let deadline = Date().addingTimeInterval(30)
            while !Self.mapsHunspell(pid), Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
            let cmd = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? "?"
            let seen = await tmux.screen("alice")
            #expect(Self.mapsHunspell(pid), "typing did not load the dictionary (\(pid): \(cmd)):\n\(seen)")
            try await Task.sleep(for: .seconds(1))
            try await tmux.press("alice", "M-s", thenSee: "a suggestion for wrld") { screen in
                guard let input = screen.split(separator: "\n").last(where: { $0.contains("> good morning ") }) else { return false }
                return !input.contains("wrld")
            }
        }
    }
}
