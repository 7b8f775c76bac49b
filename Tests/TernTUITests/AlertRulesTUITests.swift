import Foundation
import TernKit
import TernProtocol
import Testing

@testable import TernTUI

@Suite("Alerts follow the server's push preferences")
struct AlertRulesTUITests: TUIFixture {
    let reducer = Reducer()
    // 2026-11-25 12:00 UTC (13:00 in Paris) and 22:30 UTC (23:30 in Paris).
    let noon: Millis = 1_795_608_000_000
    let lateEvening: Millis = 1_795_645_800_000

    func state() -> AppState {
        var s = aliceAtTheKeyboard()
        var dm = GroupChannel(url: "dm", name: "", members: [Member(user: alice), Member(user: bob)])
        dm.memberCount = 2
        var team = GroupChannel(url: "team", name: "team", members: [Member(user: alice), Member(user: bob)])
        team.memberCount = 5
        var other = GroupChannel(url: "other", name: "other", members: [])
        other.memberCount = 3
        s.channels = [dm, team, other]
        s.selected = "other"
        return s
    }

    func received(_ url: String, _ text: String, mentions: [String] = [], at: Millis? = nil, _ s: inout AppState) -> [Effect] {
        var m = Message(messageId: Int64.random(in: 1...1_000_000), channelUrl: url, text: text, sender: bob, createdAt: at ?? noon)
        m.mentionedUserIds = mentions
        return reducer.reduce(&s, .event(.messageReceived(m)))
    }

    @Test func mentionsAndDirectMessagesAlertUnlessOnScreen() {
        var s = state()
        #expect(received("dm", "lunch?", &s) == [.alert(title: "Bob", body: "lunch?")])
        #expect(received("team", "hello all", &s) == [], "a plain message in a group does not alert")
        #expect(received("team", "@alice look", mentions: ["alice"], &s) == [.alert(title: "Bob in #team", body: "@alice look")])
        s.selected = "dm"
        #expect(received("dm", "still there?", &s) == [], "the channel on screen does not alert")
    }

    @Test func triggerOptionsDoNotDisturbAndSnooze() {
        var s = state()
        var rules = NotificationRules()
        rules.triggerOption = "mention_only"
        _ = reducer.reduce(&s, .notificationRulesLoaded(rules))
        #expect(received("dm", "lunch?", &s) == [], "mention_only: a direct message without a mention is quiet")
        #expect(received("dm", "@alice lunch?", mentions: ["alice"], &s).count == 1)
        rules.triggerOption = "all"
        rules.channelTriggers = ["dm": "off"]
        _ = reducer.reduce(&s, .notificationRulesLoaded(rules))
        #expect(received("dm", "@alice lunch?", mentions: ["alice"], &s) == [], "the channel's own option wins")
        rules.channelTriggers = [:]
        rules.doNotDisturb = true
        rules.startHour = 22
        rules.endHour = 7
        rules.timeZone = "Europe/Paris"
        _ = reducer.reduce(&s, .notificationRulesLoaded(rules))
        #expect(received("dm", "late", at: lateEvening, &s) == [], "23:30 in Paris is inside 22:00–07:00")
        #expect(received("dm", "noon", at: noon, &s).count == 1, "13:00 in Paris is outside it")
        rules.doNotDisturb = false
        rules.snoozeEnabled = true
        rules.snoozeStart = noon - 1_000
        rules.snoozeEnd = noon + 1_000
        _ = reducer.reduce(&s, .notificationRulesLoaded(rules))
        #expect(received("dm", "snoozed", at: noon, &s) == [])
        #expect(received("dm", "after", at: noon + 5_000, &s).count == 1)
    }
}
