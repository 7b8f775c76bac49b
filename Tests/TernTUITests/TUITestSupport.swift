import Foundation
import TernKit
import Testing

@testable import TernTUI

/// What the client's suites share: Alice (the user) and Bob, a fixed time, and keys typed into a reducer.
protocol TUIFixture {
    var reducer: Reducer { get }
}

extension TUIFixture {
    /// 2026-11-21 20:26:40 UTC.
    var t: Millis { 1_795_300_000_000 }
    var alice: User { User(userId: "alice", nickname: "Alice") }
    var bob: User { User(userId: "bob", nickname: "Bob") }

    /// Alice's state on server "test", at the keyboard (else the channel on screen is not yet read).
    func aliceAtTheKeyboard() -> AppState {
        var s = AppState(me: alice, server: "test")
        s.present = true
        return s
    }

    /// Alice at the keyboard in `channel`, her only channel, on screen with `messages` and
    /// nothing older to load.
    func aliceIn(_ channel: GroupChannel, showing messages: [Message]) -> AppState {
        var s = aliceAtTheKeyboard()
        s.channels = [channel]
        s.selected = channel.url
        s.hasPrevious[channel.url] = false
        s.messages[channel.url] = messages
        return s
    }

    /// Alice and Bob in #team (c1, on screen, its history all read) with these messages, a second apart.
    func teamChannel(_ texts: [(User, String)]) -> AppState {
        var s = aliceIn(
            GroupChannel(url: "c1", name: "team", members: [Member(user: alice), Member(user: bob)]),
            showing: texts.enumerated().map { i, m in
                Message(messageId: Int64(i + 1), channelUrl: "c1", text: m.1, sender: m.0, createdAt: t + Millis(i) * 1000)
            })
        s.connection = .open
        return s
    }

    /// Alice on "work" and Bob on "home", one server: the same 1-on-1 channel `dm` is in both accounts, and
    /// "work" also has #team.
    func twoAccounts() -> AppState {
        var s = AppState(me: User(userId: "nobody"), server: "test")
        s.present = true
        s.accounts = [
            AccountState(name: "work", me: User(userId: "alice"), server: "http://a", color: "cyan"),
            AccountState(name: "home", me: User(userId: "bob"), server: "http://b"),
        ]
        let dm = GroupChannel(url: "dm", name: "", members: [Member(user: alice), Member(user: bob)])
        var team = GroupChannel(url: "team-url", name: "team", members: [Member(user: alice), Member(user: bob)])
        team.lastMessage = Message(messageId: 9, channelUrl: "team-url", text: "x", sender: bob, createdAt: t)
        for (r, list) in [(AccountRoute("work"), [dm, team]), (AccountRoute("home"), [dm])] {
            _ = reducer.reduce(&s, r.tagged(.channelsLoaded(list)))
            _ = reducer.reduce(&s, r.action(for: .connectionStateChanged(.open)))
        }
        _ = reducer.reduce(&s, .resized(width: 100, height: 24))
        return s
    }

    /// Types `text` into the input line, a key at a time; the effects of every key.
    @discardableResult
    func type(_ text: String, _ s: inout AppState) -> [Effect] {
        text.flatMap { reducer.reduce(&s, .key(.char($0))) }
    }
}

/// Compares a screen with `Golden/NAME.txt`; with TERN_UPDATE_GOLDEN=1 writes it instead.
func assertGolden(_ grid: CellGrid, _ name: String) throws {
    let text = grid.text + "\n"
    let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/\(name).txt")
    if ProcessInfo.processInfo.environment["TERN_UPDATE_GOLDEN"] == "1" {
        try text.write(to: source, atomically: true, encoding: .utf8)
        return
    }
    let expected = try String(contentsOf: source, encoding: .utf8)
    #expect(text == expected, "screen \(name) differs:\n\(text)")
}
