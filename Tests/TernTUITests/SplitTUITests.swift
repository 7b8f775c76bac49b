import Foundation
import TernKit
import TernProtocol
import Testing

@testable import TernTUI

/// Split panes (issue 38 item 2): `/split [-h] [NAME]`, Alt-W, `/unsplit`, and the layout brought back at start.
@Suite("Split panes")
struct SplitTUITests: TUIFixture {
    let reducer = Reducer(keys: .standard, timeZone: TimeZone(identifier: "UTC")!)
    let screen = Screen(theme: .builtin, timeZone: TimeZone(identifier: "UTC")!)

    /// Alice in #team (c1) with #ops (c2) beside in the list, both with history, on a terminal `w` × `h`.
    func twoChannels(_ w: Int = 100, _ h: Int = 24) -> AppState {
        var s = teamChannel([(bob, "team one"), (alice, "team two")])
        s.channels.append(GroupChannel(url: "c2", name: "ops", members: [Member(user: alice), Member(user: bob)]))
        s.messages["c2"] = (1...30).map { i in
            Message(messageId: Int64(100 + i), channelUrl: "c2", text: "ops \(i)", sender: bob, createdAt: t + Millis(i) * 1000)
        }
        s.hasPrevious["c2"] = false
        _ = reducer.reduce(&s, .resized(width: w, height: h))
        return s
    }

    func run(_ line: String, _ s: inout AppState) -> [Effect] {
        type(line, &s)
        return reducer.reduce(&s, .key(.enter))
    }

    @Test func splitShowsASecondChannelBeside() throws {
        var s = twoChannels()
        let one = s.pane
        #expect(run("/split ops", &s) == [.show(channelUrl: "c2")], "its history is already here: nothing to load")
        #expect(s.split == SplitView(channelUrl: "c2") && s.selected == "c1", "you keep typing where you were")
        #expect(s.pane.width < one.width / 2 + 1 && s.pane.height == one.height - 1, "the focused pane's text area: \(s.pane)")
        let grid = screen.render(s, width: 100, height: 24, now: t)
        try assertGolden(grid, "split-100x24")
        #expect(grid.text.contains("▸ #team") && grid.text.contains("#ops  (Alt-W: type here)"))
        #expect(grid.text.contains("team two") && grid.text.contains("ops 30"))
    }

    @Test func altWMovesWhereYouTypeAndEachPaneKeepsItsScroll() {
        var s = twoChannels()
        _ = run("/split ops", &s)
        s.scroll = 0
        let effects = reducer.reduce(&s, .key(.alt("w")))
        #expect(s.selected == "c2" && s.split?.channelUrl == "c1" && s.split?.otherFirst == true)
        #expect(effects.contains(.view(channelUrl: "c2")) && effects.last == .show(channelUrl: "c1"), "\(effects)")
        _ = reducer.reduce(&s, .key(.pageUp))
        let opsScroll = s.scroll
        #expect(opsScroll > 0)
        _ = reducer.reduce(&s, .key(.alt("w")))
        #expect(s.selected == "c1" && s.scroll == 0 && s.split?.scroll == opsScroll, "each pane scrolled as it was left")
        // Going to the other pane's channel by any way (Ctrl-N here) is the same move.
        _ = reducer.reduce(&s, .key(.ctrl("n")))
        #expect(s.selected == "c2" && s.split?.channelUrl == "c1" && s.scroll == opsScroll)
        #expect(run("/unsplit", &s).isEmpty && s.split == nil && s.selected == "c2")
        _ = reducer.reduce(&s, .key(.alt("w")))
        #expect(s.notice == "one pane: /split CHANNEL shows a second")
    }

    @Test func stackedAndNarrowTerminalsStaySane() throws {
        var s = twoChannels(80, 24)
        _ = run("/split", &s)
        #expect(s.split?.channelUrl == "c2", "alone: the next channel in the list")
        let side = screen.render(s, width: 80, height: 24, now: t)
        #expect(side.text.contains("▸ #team") && side.text.contains("#ops"), "side by side at 80×24")
        try assertGolden(side, "split-80x24")
        _ = run("/split -h ops", &s)
        #expect(s.split?.stacked == true)
        try assertGolden(screen.render(s, width: 80, height: 24, now: t), "split-stacked-80x24")
        var narrow = twoChannels(56, 24)
        _ = run("/split ops", &narrow)
        let grid = screen.render(narrow, width: 56, height: 24, now: t)
        let rows = grid.text.split(separator: "\n")
        let team = try #require(rows.firstIndex { $0.contains("▸ #team") })
        let ops = try #require(rows.firstIndex { $0.contains("#ops") && $0.contains("Alt-W") })
        #expect(ops > team, "too narrow for two columns: stacked")
        var tiny = twoChannels(56, 9)
        _ = run("/split ops", &tiny)
        #expect(!screen.render(tiny, width: 56, height: 9, now: t).text.contains("Alt-W: type here"), "too small for two: one pane")
        #expect(run("/split team", &s).isEmpty && s.notice?.hasPrefix("that is the channel on screen") == true)
        #expect(run("/split nosuch", &s).isEmpty && s.notice == "no channel matches nosuch")
    }

    @Test func theLayoutComesBackAtStart() {
        var s = twoChannels()
        _ = run("/split ops", &s)
        _ = reducer.reduce(&s, .key(.alt("w")))
        let saved = Reducer.layoutToSave(s)
        #expect(saved == SavedLayout(focused: "c2", split: SplitView(channelUrl: "c1", otherFirst: true)))
        // The next start: the channels arrive, the layout is put back.
        var next = AppState(me: alice, server: "test")
        next.present = true
        next.pendingLayout = saved
        let effects = reducer.reduce(&next, .channelsLoaded(s.channels))
        #expect(next.selected == "c2" && next.split?.channelUrl == "c1" && next.split?.otherFirst == true)
        #expect(effects.contains(.loadHistory(channelUrl: "c1", before: nil)) && effects.contains(.show(channelUrl: "c1")))
        // A channel that is gone: the usual start.
        var gone = AppState(me: alice, server: "test")
        gone.pendingLayout = SavedLayout(focused: "c2", split: SplitView(channelUrl: "c9"))
        _ = reducer.reduce(&gone, .channelsLoaded(s.channels))
        #expect(gone.split == nil && gone.selected == "c1" && gone.pendingLayout == nil)
        var settings = Settings()
        #expect(settings.layout == "restore")
        #expect(throws: Settings.SettingsError.self) { try settings.set("layout", "tiles") }
    }
}
