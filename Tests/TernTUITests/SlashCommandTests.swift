import Foundation
import TernKit
import Testing

@testable import TernTUI

/// The slash commands are defined once (`SlashCommand.all`): dispatch, completion, the help and
/// docs/usage.md follow that table (issue 32).
@Suite("Slash commands: one table")
struct SlashCommandTests {
    func state() -> AppState {
        var s = AppState(me: User(userId: "alice", nickname: "Alice"), server: "test")
        s.present = true
        s.connection = .open
        s.terminal = PaneSize(width: 80, height: 20)
        return s
    }

    @Test func everyNameAndAliasIsACommand() {
        let reducer = Reducer(keys: .standard, timeZone: TimeZone(identifier: "UTC")!)
        for command in SlashCommand.all {
            for name in command.names {
                var s = state()
                s.input = Array("/" + name)
                s.cursor = s.input.count
                _ = reducer.reduce(&s, .key(.enter))
                #expect(!(s.notice ?? "").hasPrefix("unknown command"), "/\(name): \(s.notice ?? "")")
            }
        }
        var s = state()
        s.input = Array("/frobnicate now")
        s.cursor = s.input.count
        _ = reducer.reduce(&s, .key(.enter))
        #expect(s.notice == "unknown command /frobnicate — /help lists them")
    }

    @Test func completionOffersTheTablesNames() {
        #expect(Reducer.commandNames == SlashCommand.all.map(\.name).sorted())
        #expect(Set(Reducer.commandNames).count == Reducer.commandNames.count)
    }

    @Test func theHelpListsEveryCommandWithALine() {
        let usages = SlashCommand.helpLines.map(\.usage).joined(separator: " ")
        for command in SlashCommand.all where !command.help.isEmpty {
            #expect(usages.contains("/" + command.name), "/\(command.name)")
        }
    }

    /// docs/usage.md's command table names exactly the commands and aliases of `SlashCommand.all`.
    @Test func usageDocumentsEveryCommandAndAlias() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let doc = try String(contentsOf: root.appendingPathComponent("docs/usage.md"), encoding: .utf8)
        guard let section = doc.components(separatedBy: "\n## Commands\n").dropFirst().first?.components(separatedBy: "\n## ").first else {
            Issue.record("docs/usage.md has no ## Commands section")
            return
        }
        var documented = Set<String>()
        for line in section.split(separator: "\n") where line.hasPrefix("| `/") {
            // The first two columns: the commands and their aliases.
            let cells = line.split(separator: "|", omittingEmptySubsequences: false)
            let names = cells.dropFirst().prefix(2).joined(separator: " ")
            let regex = /(?:^|[\s`,(])\/([a-z][a-z-]*|\?)/
            for match in names.matches(of: regex) { documented.insert(String(match.1)) }
        }
        let defined = Set(SlashCommand.all.flatMap(\.names))
        #expect(documented.subtracting(defined).isEmpty, "in docs/usage.md, not in SlashCommand.all: \(documented.subtracting(defined).sorted())")
        #expect(defined.subtracting(documented).isEmpty, "in SlashCommand.all, not in docs/usage.md: \(defined.subtracting(documented).sorted())")
    }
}
