import Foundation
import TernKit
import TernProtocol
import Testing

@testable import TernTUI

/// Several accounts where they meet: the same message in two accounts' channels, message ids that two
/// servers both use, folded accounts with news, names and notices (the review of issue 38 item 1).
@Suite("Several accounts: where they meet")
struct AccountsEdgeTUITests: TUIFixture {
    let reducer = Reducer(keys: .standard, timeZone: TimeZone(identifier: "UTC")!)
    let screen = Screen(theme: .builtin, timeZone: TimeZone(identifier: "UTC")!)
    let work = AccountRoute("work")
    let home = AccountRoute("home")

    /// ``twoAccounts()`` with work's dm on screen, Alice at the keyboard.
    func onWorkDM() -> AppState {
        var s = twoAccounts()
        _ = reducer.reduce(&s, .key(.char("x")))
        _ = reducer.reduce(&s, .key(.ctrl("u")))
        _ = reducer.reduce(&s, .jumped(url: "work\u{1F}dm", page: MessagePage(messages: [], hasPrevious: false), messageId: 0))
        s.selected = "work\u{1F}dm"
        return s
    }

    func message(_ id: Int64, _ text: String, in key: String, by user: User) -> Message {
        Message(messageId: id, channelUrl: key, text: text, sender: user, createdAt: t + id * 1000)
    }

    @Test func theOtherAccountsCopyOfAMessageLeavesTheThreadOnScreenAlone() {
        var s = onWorkDM()
        let parent = message(5, "parent", in: "work\u{1F}dm", by: alice)
        s.messages["work\u{1F}dm"] = [parent]
        s.thread = ThreadView(channelUrl: "work\u{1F}dm", parent: parent)
        // Bob's engine tells of the same message (same id, his channel): not the thread on screen.
        var edited = message(5, "parent, edited", in: "dm", by: alice)
        edited.updatedAt = t + 9000
        _ = reducer.reduce(&s, home.action(for: .messageUpdated(edited)))
        #expect(s.thread?.parent.channelUrl == "work\u{1F}dm" && s.thread?.parent.text == "parent", "still Alice's, as she has it")
        _ = reducer.reduce(&s, work.action(for: .messageUpdated(edited)))
        #expect(s.thread?.parent.channelUrl == "work\u{1F}dm" && s.thread?.parent.text == "parent, edited")
        // A reply with the parent's id on the other account (another server's id 5) is not this thread's.
        var reply = message(6, "elsewhere", in: "other", by: bob)
        reply.parentMessageId = 5
        _ = reducer.reduce(&s, home.action(for: .messageReceived(reply)))
        #expect(s.thread?.replies.isEmpty == true)
        // A deletion of id 5 elsewhere does not close it.
        _ = reducer.reduce(&s, home.action(for: .messageDeleted(channelUrl: "other", messageId: 5)))
        #expect(s.thread != nil)
    }

    @Test func previewsAreKeptByChannelAndId() {
        var s = onWorkDM()
        let text = message(2, "just text", in: "work\u{1F}dm", by: bob)
        s.messages["work\u{1F}dm"] = [text]
        // The other server's image message 2.
        let red = (0..<2).map { _ in (0..<4).map { _ in Cell("▀", Style(fg: .index(196), bg: .index(196))) } }
        _ = reducer.reduce(&s, .previewLoaded(PreviewKey(channel: "home\u{1F}pics", id: 2), ImagePreview(width: 4, rows: red)))
        let grid = screen.render(s, width: 100, height: 24, now: t)
        #expect(grid.text.contains("just text") && !grid.text.contains("▀▀▀▀"), "no picture under another server's message 2")
        #expect(text.previewKey == PreviewKey(channel: "work\u{1F}dm", id: 2))
    }

    @Test func aFoldedAccountsNewsStaysInTheHotlistAndKeepsItsNumber() throws {
        var s = onWorkDM()
        let numbers = Reducer.numberedOrder(s)
        var dm = try #require(s.channels.first { $0.url == "home\u{1F}dm" })
        dm.unreadMessageCount = 4
        dm.unreadMentionCount = 1
        _ = reducer.reduce(&s, .event(.channelUpdated(dm)))
        type("/fold home", &s)
        _ = reducer.reduce(&s, .key(.enter))
        #expect(s.accounts[1].folded && Reducer.numberedOrder(s) == numbers, "numbers stay when an account folds")
        let hot = Reducer.hotlist(s)
        #expect(hot.map(\.url) == ["home\u{1F}dm"] && hot.first?.number == 3, "\(hot)")
        let grid = screen.render(s, width: 100, height: 24, now: t)
        let header = String(grid.text.split(separator: "\n")[3].prefix(25))
        #expect(header.hasPrefix("▹home ●") && header.hasSuffix("@1 4"), "\(header)")
        // Alt-A goes there, and the channel shows under its folded header.
        _ = reducer.reduce(&s, .key(.alt("a")))
        #expect(s.selected == "home\u{1F}dm")
        #expect(screen.render(s, width: 100, height: 24, now: t).text.split(separator: "\n")[4].hasPrefix("▸Alice"))
    }

    @Test func notifyNamesChannelsByTheirURLAndNamesNeverShowAKey() throws {
        var s = onWorkDM()
        type("/notify none", &s)
        _ = reducer.reduce(&s, .key(.enter))
        #expect(s.settings.channels["dm"]?.notify == "none" && s.settings.channels["work\u{1F}dm"] == nil)
        #expect(!s.settings.toml().contains("\u{1F}"), "/save writes the channel's URL")
        // A channel with no name and nobody else in it is shown by its URL, not its key.
        let alone = GroupChannel(url: "lonely", name: "", members: [Member(user: bob)])
        _ = reducer.reduce(&s, home.tagged(.channelsLoaded([alone])))
        _ = reducer.reduce(&s, .key(.ctrl("n")))
        let grid = screen.render(s, width: 100, height: 24, now: t)
        #expect(!grid.text.contains("\u{1F}") && grid.text.contains("lonely"))
    }

    @Test func accountNoticesSayOnlyWhatTheEventSaid() {
        var s = onWorkDM()
        s.notice = "bob · online"
        _ = reducer.reduce(&s, home.action(for: .reconnectStarted))
        _ = reducer.reduce(&s, home.action(for: .reconnectSucceeded))
        #expect(s.notice == "bob · online", "nothing said: the notice is left as it was")
        _ = reducer.reduce(&s, home.action(for: .userBlocked(User(userId: "carol"))))
        #expect(s.notice?.hasPrefix("home: blocked carol") == true, "\(s.notice ?? "")")
    }

    @Test func accountToAChannelOnScreenEndsTheChoice() {
        var s = onWorkDM()
        s.accounts.append(AccountState(name: "spare", me: User(userId: "zed"), server: "http://c"))
        type("/account spare", &s)
        _ = reducer.reduce(&s, .key(.enter))
        #expect(s.accountFocus == "spare")
        // Work's most recent channel is #team; go there, then back to spare, then to work while on #team.
        type("/account work", &s)
        _ = reducer.reduce(&s, .key(.enter))
        type("/account spare", &s)
        _ = reducer.reduce(&s, .key(.enter))
        type("/account work", &s)
        _ = reducer.reduce(&s, .key(.enter))
        #expect(s.accountFocus == nil && s.selected == "work\u{1F}team-url")
    }

    @Test func aBanOfYouInTheOtherAccountSaysYou() {
        var s = onWorkDM()
        s.messages["home\u{1F}dm"] = []
        _ = reducer.reduce(&s, home.action(for: .channelEvent(channelUrl: "dm", .muted(bob, endAt: -1))))
        let lines = (s.messages["home\u{1F}dm"] ?? []).map(\.text)
        #expect(lines.contains { $0.hasPrefix("you muted") }, "\(lines)")
    }

    @Test func nameAtAccountPicksBetweenTwoChannelsOfOneName() {
        var s = onWorkDM()
        var other = GroupChannel(url: "team-url", name: "team", members: [Member(user: alice), Member(user: bob)])
        other.lastMessage = Message(messageId: 1, channelUrl: "team-url", text: "y", sender: bob, createdAt: t)
        _ = reducer.reduce(&s, home.tagged(.channelsLoaded([other])))
        #expect(Reducer.switcherMatches("team@home", s).first?.url == "home\u{1F}team-url")
        #expect(Reducer.switcherMatches("team@work", s).first?.url == "work\u{1F}team-url")
        type("/split team@home", &s)
        _ = reducer.reduce(&s, .key(.enter))
        #expect(s.split?.channelUrl == "home\u{1F}team-url")
        let grid = screen.render(s, width: 100, height: 24, now: t)
        #expect(grid.text.contains("#team · home  (Alt-W: type here)"), "the pane names its account")
    }
}
