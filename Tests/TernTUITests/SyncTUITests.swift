import Foundation
import TernKit
import TernProtocol
import Testing

@testable import TernTUI

/// Catching up in the client: gap fills, huge gaps, changelogs, resends, and what the status bar says.
@Suite("Offline and catching up in the client")
struct SyncTUITests: TUIFixture {
    let reducer = Reducer()

    func msg(_ id: Int64, _ text: String, by u: User, at ts: Millis, req: String? = nil, status: SendingStatus = .succeeded) -> Message {
        Message(messageId: id, requestId: req, channelUrl: "c1", text: text, sender: u, createdAt: ts, status: status)
    }

    func state() -> AppState {
        var s = aliceAtTheKeyboard()
        s.channels = [
            GroupChannel(url: "c1", name: "team", members: [Member(user: alice), Member(user: bob)]), GroupChannel(url: "c2", name: "other"),
        ]
        s.selected = "c1"
        s.hasPrevious["c1"] = false
        s.connection = .open
        s.messages["c1"] = [msg(1, "one", by: bob, at: t), msg(0, "queued", by: alice, at: t + 500, req: "r1", status: .pending)]
        return s
    }

    @Test func aGapFillJoinsInTimeOrderAndTakesOverItsPendingLine() {
        var s = state()
        // Missed while away: bob's two, and our queued one as the server stored it.
        let filled = [
            msg(2, "two", by: bob, at: t + 100), msg(4, "queued", by: alice, at: t + 600, req: "r1"), msg(3, "three", by: bob, at: t + 300),
        ]
        _ = reducer.reduce(&s, .event(.messagesFilled(channelUrl: "c1", filled)))
        #expect(s.messages["c1"]?.map(\.text) == ["one", "two", "three", "queued"])
        #expect(s.messages["c1"]?.allSatisfy { $0.status == .succeeded } == true)
        // Again (a second fill overlapping the first): nothing doubles.
        _ = reducer.reduce(&s, .event(.messagesFilled(channelUrl: "c1", filled)))
        #expect(s.messages["c1"]?.count == 4)
    }

    @Test func aStoredMessageTakesItsPlaceInTimeBeforeOurPendingOnes() {
        var s = state()
        _ = reducer.reduce(&s, .event(.messageReceived(msg(7, "meanwhile", by: bob, at: t + 200))))
        #expect(s.messages["c1"]?.map(\.text) == ["one", "meanwhile", "queued"])
        // Ours is stored later than bob's next one: it moves after it.
        _ = reducer.reduce(&s, .event(.messageReceived(msg(8, "bob again", by: bob, at: t + 700))))
        _ = reducer.reduce(&s, .event(.messageSent(msg(9, "queued", by: alice, at: t + 800, req: "r1"))))
        #expect(s.messages["c1"]?.map(\.text) == ["one", "meanwhile", "bob again", "queued"])
    }

    @Test func aResendTurnsTheFailedLinePendingInPlace() {
        var s = state()
        var failed = msg(0, "queued", by: alice, at: t + 500, req: "r1", status: .failed)
        failed.error = SendbirdError(.webSocketConnectionClosed, "closed")
        _ = reducer.reduce(&s, .event(.messageFailed(failed)))
        #expect(s.messages["c1"]?.last?.status == .failed)
        _ = reducer.reduce(&s, .event(.messagePending(msg(0, "queued", by: alice, at: t + 500, req: "r1", status: .pending))))
        #expect(s.messages["c1"]?.count == 2 && s.messages["c1"]?.last?.status == .pending)
    }

    @Test func aHugeGapStartsTheChannelOverAtTheNewest() {
        var s = state()
        let effects = reducer.reduce(&s, .event(.hugeGap(channelUrl: "c1")))
        #expect(effects == [.loadHistory(channelUrl: "c1", before: nil)])
        #expect(s.messages["c1"] == nil)
        #expect(s.notice?.contains("more than 300 messages missed") == true)
        // Another channel's gap only drops what was loaded for it.
        s.messages["c2"] = [Message(messageId: 1, channelUrl: "c2", text: "x", sender: bob, createdAt: t)]
        #expect(reducer.reduce(&s, .event(.hugeGap(channelUrl: "c2"))).isEmpty)
        #expect(s.messages["c2"] == nil)
    }

    @Test func changelogsUpdateMessagesAndChannels() {
        var s = state()
        var edited = msg(1, "one, edited", by: bob, at: t)
        edited.updatedAt = t + 50
        _ = reducer.reduce(&s, .event(.messageChangelog(channelUrl: "c1", updated: [edited], deleted: [])))
        #expect(s.messages["c1"]?.first?.text == "one, edited")
        _ = reducer.reduce(&s, .event(.messageChangelog(channelUrl: "c1", updated: [], deleted: [1])))
        #expect(s.messages["c1"]?.map(\.text) == ["queued"])
        // The channel on screen went away while we were away: the next one is selected.
        var renamed = GroupChannel(url: "c2", name: "renamed")
        renamed.createdAt = 5
        _ = reducer.reduce(&s, .event(.channelChangelog(updated: [renamed], deleted: ["c1"])))
        #expect(s.channels.map(\.name) == ["renamed"])
        #expect(s.selected == "c2")
    }

    @Test func theStatusBarSaysOfflineReconnectingSyncingConnected() {
        let screen = Screen(theme: .builtin, timeZone: TimeZone(identifier: "UTC")!)
        func status(_ s: AppState) -> String {
            let g = screen.render(s, width: 80, height: 8, now: t)
            return g.text.split(separator: "\n").last.map(String.init) ?? ""
        }
        var s = state()
        s.offlineStart = true
        s.connection = .connecting
        #expect(status(s).contains("offline"))
        s.connection = .reconnecting(attempt: 1, nextAttemptAt: t + 4000)
        #expect(status(s).contains("reconnecting in 4s"))
        s.connection = .open
        _ = reducer.reduce(&s, .event(.syncing(true)))
        #expect(status(s).contains("syncing…"))
        _ = reducer.reduce(&s, .event(.syncing(false)))
        #expect(status(s).contains("connected"))
    }
}
