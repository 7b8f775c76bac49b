import Foundation
import TernKit
import TernProtocol
import Testing

@testable import TernTUI

/// Chat logs (issue 38 item 4): the lines, the file names, each message once.
@Suite("Chat logs")
struct ChatLogTests: TUIFixture {
    let reducer = Reducer(keys: .standard, timeZone: TimeZone(identifier: "UTC")!)
    let utc = Zone.utc

    func message(_ id: Int64, _ text: String, by user: User? = nil, at ms: Millis? = nil) -> Message {
        Message(messageId: id, channelUrl: "c1", text: text, sender: user ?? bob, createdAt: ms ?? t)
    }

    @Test func aMessageIsOneTimestampedLine() {
        #expect(ChatLog.messageLine(message(1, "morning"), zone: utc) == "2026-11-21 22:26:40 <Bob> morning\n")
        // Local time: the zone given.
        let paris = Zone(TimeZone(identifier: "Europe/Paris")!)
        #expect(ChatLog.messageLine(message(1, "morning"), zone: paris) == "2026-11-21 23:26:40 <Bob> morning\n")
        // No nickname: the user id; an admin message: a star.
        #expect(ChatLog.messageLine(message(1, "hi", by: User(userId: "carol")), zone: utc) == "2026-11-21 22:26:40 <carol> hi\n")
        var admin = message(2, "maintenance at 5")
        admin.sender = nil
        admin.kind = .admin
        #expect(ChatLog.messageLine(admin, zone: utc) == "2026-11-21 22:26:40 * maintenance at 5\n")
    }

    @Test func furtherLinesAreIndentedUnderTheFirst() {
        let line = ChatLog.messageLine(message(1, "two lines:\nthe second\r\n\nand a gap"), zone: utc)
        let indent = String(repeating: " ", count: 22)
        #expect(line == "2026-11-21 22:26:40 <Bob> two lines:\n\(indent)the second\n\(indent)\n\(indent)and a gap\n")
        // Every line but the first starts with spaces: a grep for the date finds messages only.
        #expect(line.split(separator: "\n").dropFirst().allSatisfy { $0.hasPrefix(indent) })
    }

    @Test func aFileIsAClipWithItsNameAndURL() {
        var m = message(3, "")
        m.kind = .file
        m.files = [FilePayload(url: "https://x.test/f/plan.pdf", name: "plan.pdf", size: 10, type: "application/pdf")]
        #expect(ChatLog.messageLine(m, zone: utc) == "2026-11-21 22:26:40 <Bob> 📎 plan.pdf (https://x.test/f/plan.pdf)\n")
        m.text = "the plan"
        #expect(
            ChatLog.messageLine(m, zone: utc).hasSuffix(
                "<Bob> the plan\n" + String(repeating: " ", count: 22) + "📎 plan.pdf (https://x.test/f/plan.pdf)\n"))
    }

    @Test func editsAndDeletionsAreLinesOfTheirOwn() {
        var log = ChatLog(zone: utc)
        let s = teamChannel([])
        #expect(log.entries(for: .messageReceived(message(7, "teh plan")), in: s, now: t).map(\.text) == ["2026-11-21 22:26:40 <Bob> teh plan\n"])
        var edited = message(7, "the plan")
        edited.updatedAt = t + 60_000
        let edit = log.entries(for: .messageUpdated(edited), in: s, now: t + 61_000)
        #expect(edit.map(\.text) == ["2026-11-21 22:27:40 * edited: <Bob> the plan\n"])
        // A reaction or a link preview changes the message, not its text: nothing more.
        #expect(log.entries(for: .messageUpdated(edited), in: s, now: t + 62_000).isEmpty)
        let gone = log.entries(for: .messageDeleted(channelUrl: "c1", messageId: 7), in: s, now: t + 120_000)
        #expect(gone.map(\.text) == ["2026-11-21 22:28:40 * deleted message: the plan\n"])
        // A changelog after a reconnection telling it again: nothing more.
        #expect(log.entries(for: .messageChangelog(channelUrl: "c1", updated: [edited], deleted: [7]), in: s, now: t + 130_000).isEmpty)
        // A message on screen (history, not logged) deleted: with its sender.
        let shown = teamChannel([(bob, "old news")])
        let line = log.entries(for: .messageDeleted(channelUrl: "c1", messageId: 1), in: shown, now: t)
        #expect(line.map(\.text) == ["2026-11-21 22:26:40 * deleted message from Bob: old news\n"])
        // One tern never had: nothing (no noise from changelogs).
        #expect(log.entries(for: .messageDeleted(channelUrl: "c1", messageId: 99), in: shown, now: t).isEmpty)
        #expect(ChatLog.deleteLine(id: 5, nick: nil, text: "", at: t, zone: utc) == "2026-11-21 22:26:40 * deleted message (id 5)\n")
    }

    @Test func eachMessageIsLoggedOnce() {
        var log = ChatLog(zone: utc)
        let s = teamChannel([])
        var mine = message(8, "shipped", by: alice)
        mine.status = .pending
        #expect(log.entries(for: .messagePending(mine), in: s, now: t).isEmpty, "not yet stored: not logged")
        mine.status = .succeeded
        let first = log.entries(for: .messageSent(mine), in: s, now: t)
        #expect(first.count == 1 && first[0].channelName == "team" && first[0].channelUrl == "c1")
        // The same message again (another device's echo, a reconnection's gap fill): once only.
        #expect(log.entries(for: .messageReceived(mine), in: s, now: t).isEmpty)
        #expect(log.entries(for: .messageSent(mine), in: s, now: t).isEmpty)
        // History pages are not events the log sees; only live ones count.
        #expect(log.entries(for: .messagesFilled(channelUrl: "c1", [message(9, "gap")]), in: s, now: t).isEmpty)
        #expect(log.entries(for: .messageReceived(message(10, "next")), in: s, now: t).count == 1)
        // Two accounts on one server: the same message in each account's channel goes to each one's log.
        var other = mine
        other.channelUrl = AccountKey.make(account: "home", url: "c1")
        #expect(log.entries(for: .messageReceived(other), in: s, now: t).count == 1)
    }

    @Test func anAllDayTernRemembersOnlyTheNewest() {
        var log = ChatLog(zone: utc)
        log.memory = 100
        let s = teamChannel([])
        for id in 1...250 { _ = log.entries(for: .messageReceived(message(Int64(id), "m\(id)")), in: s, now: t) }
        #expect(log.logged.count <= 100 && log.logged.count >= 50, "\(log.logged.count)")
        #expect(log.logged[ChatLog.Logged(channel: "c1", id: 250)] == "m250", "the newest are kept")
        #expect(log.logged[ChatLog.Logged(channel: "c1", id: 1)] == nil, "the oldest forgotten")
        // A recent message told again is still logged once.
        #expect(log.entries(for: .messageReceived(message(249, "m249")), in: s, now: t).isEmpty)
    }

    @Test func filesRotateByMonth() {
        let name = ChatLog.fileName(channelName: "team", url: "c1", month: ChatLog.month(t, utc))
        #expect(name == "team-\(ChatLog.hash("c1")).2026-11.log")
        // 2026-11-30 23:30 UTC is already December in Paris.
        let late: Millis = 1_796_081_400_000
        #expect(ChatLog.month(late, utc) == "2026-11")
        #expect(ChatLog.month(late, Zone(TimeZone(identifier: "Europe/Paris")!)) == "2026-12")
        #expect(ChatLog.hash("c1") == ChatLog.hash("c1") && ChatLog.hash("c1").count == 8 && ChatLog.hash("c1") != ChatLog.hash("c2"))
        // FNV-1a of "a", the same on every run.
        #expect(ChatLog.hash("a") == "e40c292c")
    }

    @Test func namesAreSafe() {
        for hostile in ["../../etc/passwd", "..", ".", "a/b", "", ".hidden", "x\0y", "日本 チャンネル", "a..b"] {
            let n = ChatLog.safe(hostile)
            #expect(!n.contains("/") && !n.contains("..") && !n.hasPrefix(".") && !n.isEmpty, "\(hostile) → \(n)")
        }
        #expect(ChatLog.safe("dev-ops_2.0") == "dev-ops_2.0")
        #expect(ChatLog.safe(String(repeating: "x", count: 100)).count == 60)
        let file = ChatLog.fileName(channelName: "../secrets", url: "sendbird_group_channel_1", month: "2026-11")
        #expect(!file.contains("/") && file.hasPrefix("___secrets-") && file.hasSuffix(".2026-11.log"))
        #expect(ChatLog.accountName(user: "alice", server: "ws://127.0.0.1:8080") == "alice@127.0.0.1_8080")
        #expect(ChatLog.accountName(user: "alice", server: "https://chat.example.com") == "alice@chat.example.com")
        #expect(ChatLog.accountName(user: "../bob", server: "test") == "___bob@test")
        #expect(
            ChatLog.directory(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"], user: "alice", server: "https://c.test")
                == "/s/tern/logs/alice@c.test")
        #expect(ChatLog.directory(environment: ["HOME": "/h"], user: "alice", server: "https://c.test") == "/h/.local/state/tern/logs/alice@c.test")
    }

    @Test func theSettingAndTheCommand() throws {
        var settings = Settings()
        #expect(!settings.log && settings.value("log") == "off")
        try settings.set("log", "on")
        #expect(settings.log && settings.value("log") == "on")
        #expect(try Settings.parse("log = true\n").log)
        #expect(try Settings.parse(settings.toml()).log)
        #expect(throws: Settings.SettingsError.self) { try Settings.parse("log = \"yes\"\n") }
        var s = teamChannel([(bob, "hi")])
        s.input = Array("/log")
        s.cursor = 4
        #expect(reducer.reduce(&s, .key(.enter)) == [.openLog(channelUrl: "c1")])
        #expect(SlashCommand.helpLines.contains { $0.usage == "/log" })
        #expect(SlashCommand.completedNames.contains("log"))
    }

    @Test func theWriterAppendsInOrderAndSaysWhyItCannot() async throws {
        let dir = NSTemporaryDirectory() + "tern-log-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let failures = Failures()
        let writer = ChatLogWriter { failures.add($0) }
        writer.append([(path: dir + "/a/x.log", text: "one\n"), (path: dir + "/a/y.log", text: "other\n")])
        writer.append([(path: dir + "/a/x.log", text: "two\n")])
        await writer.flush()
        #expect(try String(contentsOfFile: dir + "/a/x.log", encoding: .utf8) == "one\ntwo\n")
        let mode = try FileManager.default.attributesOfItem(atPath: dir + "/a/x.log")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // A directory where the file should be: an error, reported once, and the writer goes on.
        try FileManager.default.createDirectory(atPath: dir + "/a/z.log", withIntermediateDirectories: true)
        writer.append([(path: dir + "/a/z.log", text: "lost\n")])
        writer.append([(path: dir + "/a/z.log", text: "lost again\n")])
        writer.append([(path: dir + "/a/x.log", text: "three\n")])
        await writer.flush()
        #expect(failures.all.count == 1 && failures.all.first?.contains("z.log") == true)
        #expect(try String(contentsOfFile: dir + "/a/x.log", encoding: .utf8) == "one\ntwo\nthree\n")
    }
}

/// What the writer reported (from its own task).
final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ s: String) { lock.withLock { list.append(s) } }
    var all: [String] { lock.withLock { list } }
}
