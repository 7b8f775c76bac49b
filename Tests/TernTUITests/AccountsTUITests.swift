import Foundation
import TernKit
import TernProtocol
import Testing

@testable import TernTUI

/// Several accounts in one tern (issue 38 item 1): the config's `[[accounts]]`, the route between each
/// engine and the app, the state per account, the grouped channel list and the status bar.
@Suite("Several accounts")
struct AccountsTUITests: TUIFixture {
    let reducer = Reducer(keys: .standard, timeZone: TimeZone(identifier: "UTC")!)
    let screen = Screen(theme: .builtin, timeZone: TimeZone(identifier: "UTC")!)
    let work = AccountRoute("work")
    let home = AccountRoute("home")

    @Test func oneAccountIsUnchanged() {
        let r = AccountRoute(nil)
        let m = Message(messageId: 1, channelUrl: "c1", text: "hi", sender: bob, createdAt: t)
        #expect(Self.event(r.action(for: .messageReceived(m))) == .messageReceived(m))
        #expect(Self.event(r.action(for: .connectionStateChanged(.open))) == .connectionStateChanged(.open))
        #expect(r.untagged(.send(text: "x", channelUrl: "c1")) == .send(text: "x", channelUrl: "c1"))
        var s = teamChannel([(bob, "hello")])
        #expect(s.accounts.isEmpty && s.currentAccount == nil && s.me == alice)
        _ = reducer.reduce(&s, .event(.connectionStateChanged(.reconnecting(attempt: 1, nextAttemptAt: nil))))
        #expect(s.connection == .reconnecting(attempt: 1, nextAttemptAt: nil))
        let rows = Screen.listRows(s)
        #expect(rows.count == 2, "the Channels header and #team, no account header")
    }

    @Test func theRouteNamesChannelsByAccountBothWays() {
        let m = Message(messageId: 1, channelUrl: "dm", text: "hi", sender: bob, createdAt: t)
        guard case .event(.messageReceived(let tagged)) = home.action(for: .messageReceived(m)) else {
            Issue.record("a message is a channel event")
            return
        }
        #expect(tagged.channelUrl == "home\u{1F}dm" && AccountKey.account(of: tagged.channelUrl) == "home")
        #expect(AccountKey.url(of: tagged.channelUrl) == "dm" && AccountKey.url(of: "dm") == "dm" && AccountKey.account(of: "dm") == nil)
        // Account-wide events say whose they are.
        #expect(Self.accountEvent(home.action(for: .connected(bob))) == "home" + "/" + "\(ClientEvent.connected(bob))")
        #expect(
            Self.accountEvent(work.action(for: .unreadCountChanged(channelUrl: "dm", unreadMessageCount: 1, unreadMentionCount: 0, total: 3)))
                == "work/" + "\(ClientEvent.unreadCountChanged(channelUrl: "work\u{1F}dm", unreadMessageCount: 1, unreadMentionCount: 0, total: 3))")
        // Out to the engine: the account an effect is for, and its plain URL.
        let send = Effect.send(text: "yo", channelUrl: "home\u{1F}dm")
        #expect(AccountRoute.account(of: send) == "home")
        #expect(home.untagged(send) == .send(text: "yo", channelUrl: "dm"))
        #expect(home.untagged(.editMessage(tagged, text: "hey")) == .editMessage(m, text: "hey"))
        #expect(AccountRoute.account(of: .openDirect(userId: "carol")) == nil, "no channel named: the one on screen's account")
        #expect(
            work.untagged(.people(.members("work\u{1F}team-url"), query: "")) == .people(.members("team-url"), query: ""))
        // Answers come back keyed.
        let page = MessagePage(messages: [m], hasPrevious: false)
        guard case .historyLoaded(let url, let loaded, true) = home.tagged(.historyLoaded(url: "dm", page: page, replace: true)) else {
            Issue.record("a page")
            return
        }
        #expect(url == "home\u{1F}dm" && loaded == MessagePage(messages: [tagged], hasPrevious: false))
    }

    /// The engine event an action carries (with one account, or a channel's event).
    static func event(_ a: Action) -> ClientEvent? {
        if case .event(let e) = a { return e }
        return nil
    }

    /// An account-wide event as "NAME/EVENT".
    static func accountEvent(_ a: Action) -> String? {
        if case .account(let name, let e) = a { return name + "/" + "\(e)" }
        return nil
    }

    @Test func theSameChannelInTwoAccountsIsTwoChannelsEachWithItsOwnUser() {
        var s = twoAccounts()
        #expect(s.channels.count == 3)
        #expect(Set(s.channels.map(\.url)) == ["work\u{1F}dm", "work\u{1F}team-url", "home\u{1F}dm"])
        _ = reducer.reduce(&s, .key(.char("x")))
        let first = s.selected
        #expect(first.map(AccountKey.account(of:)) == "work", "the first account's channel opens first")
        #expect(s.me.userId == "alice")
        // Bob's side of the DM: Bob is "me" there, the channel is named after Alice.
        _ = reducer.reduce(&s, .key(.ctrl("u")))
        type("/account home", &s)
        let effects = reducer.reduce(&s, .key(.enter))
        #expect(s.selected == "home\u{1F}dm" && s.me.userId == "bob" && s.currentAccount == 1)
        #expect(effects.contains(.loadHistory(channelUrl: "home\u{1F}dm", before: nil)), "\(effects)")
        #expect(s.channels.first { $0.url == "home\u{1F}dm" }?.displayName(me: s.me.userId) == "Alice")
        // What Bob sends there is for the home account, as the plain URL.
        type("hi alice", &s)
        let sent = reducer.reduce(&s, .key(.enter))
        #expect(sent.contains(.send(text: "hi alice", channelUrl: "home\u{1F}dm")), "\(sent)")
        #expect(AccountRoute.account(of: .send(text: "hi alice", channelUrl: "home\u{1F}dm")) == "home")
        // Alice's message arriving on Bob's side alerts Bob (it is not his own), and not on Alice's side.
        let fromAlice = Message(messageId: 5, channelUrl: "dm", text: "ping", sender: alice, createdAt: t + 5000)
        _ = reducer.reduce(&s, .key(.ctrl("n")))
        #expect(AccountKey.account(of: s.selected ?? "") == "work")
        let onHome = reducer.reduce(&s, home.action(for: .messageReceived(fromAlice)))
        #expect(onHome.contains(.alert(title: "Alice · home", body: "ping")), "Bob is told, on his account: \(onHome)")
    }

    @Test func eachAccountsConnectionAndUnreadTotal() throws {
        var s = twoAccounts()
        _ = reducer.reduce(&s, .key(.char("x")))
        _ = reducer.reduce(&s, home.action(for: .connectionStateChanged(.reconnecting(attempt: 2, nextAttemptAt: nil))))
        #expect(s.accounts[1].connection == .reconnecting(attempt: 2, nextAttemptAt: nil) && s.connection == .open, "work on screen")
        _ = reducer.reduce(&s, work.action(for: .unreadCountChanged(channelUrl: nil, unreadMessageCount: 0, unreadMentionCount: 0, total: 2)))
        _ = reducer.reduce(&s, home.action(for: .unreadCountChanged(channelUrl: nil, unreadMessageCount: 0, unreadMentionCount: 0, total: 3)))
        #expect(s.totalUnread == 5, "the title counts every account")
        _ = reducer.reduce(&s, home.action(for: .serverError(SendbirdError(.internalError, "boom"))))
        #expect(s.notice?.hasPrefix("home: server:") == true, "\(s.notice ?? "")")
        let grid = screen.render(s, width: 100, height: 24, now: t)
        let status = try #require(grid.text.split(separator: "\n").last)
        #expect(status.contains("alice@work") && status.contains("connected") && status.contains("home ◌"), "\(status)")
    }

    @Test func theListGroupsByAccountAndFolds() throws {
        var s = twoAccounts()
        _ = reducer.reduce(&s, .key(.char("x")))
        _ = reducer.reduce(&s, .key(.ctrl("u")))
        s.notice = nil
        let grid = screen.render(s, width: 100, height: 24, now: t)
        try assertGolden(grid, "accounts-100x24")
        let rows = grid.text.split(separator: "\n").map { String($0.prefix(25)) }
        #expect(rows[0].hasPrefix("▾work ●") && rows[3].hasPrefix("▾home ●"), "\(rows.prefix(5))")
        // Ctrl-N walks the list as shown, account by account.
        #expect(Reducer.channelOrder(s) == ["work\u{1F}team-url", "work\u{1F}dm", "home\u{1F}dm"])
        type("/fold home", &s)
        _ = reducer.reduce(&s, .key(.enter))
        #expect(s.accounts[1].folded && Reducer.channelOrder(s) == ["work\u{1F}team-url", "work\u{1F}dm"])
        #expect(screen.render(s, width: 100, height: 24, now: t).text.split(separator: "\n")[3].hasPrefix("▹home ●"))
        // A click on its header shows it again.
        _ = reducer.reduce(&s, .mouse(MouseEvent(.press(button: 1), x: 2, y: 3)))
        #expect(!s.accounts[1].folded)
        type("/account", &s)
        _ = reducer.reduce(&s, .key(.enter))
        #expect(s.notice == "work: alice connected · home: bob connected")
        type("/account nowhere", &s)
        _ = reducer.reduce(&s, .key(.enter))
        #expect(s.notice == "no account \"nowhere\" (accounts: work, home)")
        type("/account h", &s)
        _ = reducer.reduce(&s, .key(.tab))
        #expect(s.inputText == "/account home ", "Tab completes an account's name")
    }

    @Test func anAccountWithoutChannelsTakesTheCommandsUntilTheChannelChanges() throws {
        var s = twoAccounts()
        s.accounts.append(AccountState(name: "new", me: User(userId: "al"), server: "http://c"))
        _ = reducer.reduce(&s, .key(.char("x")))
        _ = reducer.reduce(&s, .key(.ctrl("u")))
        let before = s.selected
        type("/account new", &s)
        _ = reducer.reduce(&s, .key(.enter))
        #expect(s.accountFocus == "new" && s.selected == before, "the channel stays on screen")
        #expect(s.notice == "new has no channels yet: /dm USER, /create NAME or /join NAME now act there")
        let status = try #require(screen.render(s, width: 100, height: 24, now: t).text.split(separator: "\n").last)
        #expect(status.contains("alice@work → new"), "\(status)")
        #expect(screen.render(s, width: 100, height: 24, now: t).text.contains("▾new ◌"), "its header, still connecting")
        _ = reducer.reduce(&s, .key(.ctrl("n")))
        #expect(s.accountFocus == nil, "another channel on screen: commands follow it again")
    }

    @Test func aSplitAcrossAccountsComesBackOnceBothHaveLoaded() {
        var s = AppState(me: User(userId: "nobody"), server: "test")
        s.accounts = [
            AccountState(name: "work", me: User(userId: "alice"), server: "http://a"),
            AccountState(name: "home", me: User(userId: "bob"), server: "http://b"),
        ]
        s.pendingLayout = SavedLayout(focused: "work\u{1F}team-url", split: SplitView(channelUrl: "home\u{1F}dm"))
        _ = reducer.reduce(&s, .resized(width: 100, height: 24))
        let team = GroupChannel(url: "team-url", name: "team", members: [Member(user: alice)])
        let dm = GroupChannel(url: "dm", name: "", members: [Member(user: alice), Member(user: bob)])
        _ = reducer.reduce(&s, work.tagged(.channelsLoaded([team])))
        #expect(s.split == nil && s.pendingLayout != nil, "home's channels are not here yet")
        _ = reducer.reduce(&s, home.tagged(.channelsLoaded([dm])))
        #expect(s.pendingLayout == nil && s.selected == "work\u{1F}team-url" && s.split?.channelUrl == "home\u{1F}dm")
    }

    @Test func theConfigsAccounts() throws {
        let s = try Settings.parse(
            """
            [[accounts]]
            name = "work"
            server = "https://chat.example.com"
            user_id = "alice"
            token_command = "pass show chat"
            color = "cyan"

            [[accounts]]
            name = "home"
            server = "sendbird://APP-1"
            user_id = "al"
            token = "t0k"
            """)
        #expect(s.accounts.map(\.name) == ["work", "home"])
        #expect(s.accounts[0].server == "https://chat.example.com" && s.accounts[0].tokenCommand == "pass show chat")
        #expect(s.accounts[0].color == "cyan" && s.accounts[1].token == "t0k" && s.accounts[1].userId == "al")
        let env = s.accounts[1].environment(["TERN_SERVER": "http://x", "TERN_TOKEN_COMMAND": "other", "HOME": "/h"])
        #expect(env["TERN_SERVER"] == "sendbird://APP-1" && env["TERN_TOKEN_COMMAND"] == nil && env["TERN_ACCESS_TOKEN"] == "t0k")
        #expect(env["HOME"] == "/h")
        #expect(try Settings.parse(s.toml()).accounts == s.accounts, "/save keeps them")
        for (text, message) in [
            ("[[accounts]]\nserver = \"http://x\"", "each [[accounts]] needs a name"),
            ("[[accounts]]\nname = \"a\"\n[[accounts]]\nname = \"a\"", "two accounts are called \"a\""),
            ("[[accounts]]\nname = \"a\"\nuser = \"x\"", "unknown account key \"user\""),
            ("[[accounts]]\nname = \"a\"\ncolor = \"plaid\"", "unknown colour \"plaid\""),
            ("accounts = \"a\"", "accounts must be tables"),
        ] {
            #expect(throws: Settings.SettingsError.self) { try Settings.parse(text) }
            do { _ = try Settings.parse(text) } catch let e as Settings.SettingsError { #expect(e.message.contains(message), "\(e.message)") }
        }
    }
}
