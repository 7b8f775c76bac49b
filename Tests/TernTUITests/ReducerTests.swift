import Foundation
import TernKit
import Testing

@testable import TernTUI

@Suite("Reducer and key table")
struct ReducerTests: TUIFixture {
    let reducer = Reducer()

    func state() -> AppState {
        var s = AppState(me: User(userId: "alice"), server: "test")
        s.present = true  // the user is at the keyboard (else the channel on screen is not yet read)
        for (i, url) in ["c1", "c2", "c3"].enumerated() {
            var c = GroupChannel(url: url, name: url, members: [Member(user: User(userId: "alice")), Member(user: User(userId: "bob"))])
            c.createdAt = Int64(100 - i)
            c.unreadMessageCount = i
            s.channels.append(c)
        }
        s.selected = "c1"
        s.messages["c1"] = []
        return s
    }

    @Test func typingAndSending() {
        var s = state()
        let effects = type("hi", &s)
        #expect(effects == [.typing(channelUrl: "c1", started: true), .typing(channelUrl: "c1", started: true)])
        #expect(s.inputText == "hi" && s.cursor == 2)
        #expect(reducer.reduce(&s, .key(.enter)) == [.typing(channelUrl: "c1", started: false), .send(text: "hi", channelUrl: "c1")])
        #expect(s.input.isEmpty)
        #expect(reducer.reduce(&s, .key(.enter)).isEmpty)  // nothing to send
    }

    @Test func editingKeys() {
        var s = state()
        _ = type("hello world", &s)
        _ = reducer.reduce(&s, .key(.ctrl("w")))
        #expect(s.inputText == "hello ")
        _ = reducer.reduce(&s, .key(.ctrl("a")))
        _ = reducer.reduce(&s, .key(.delete))
        #expect(s.inputText == "ello " && s.cursor == 0)
        _ = reducer.reduce(&s, .key(.ctrl("e")))
        _ = reducer.reduce(&s, .key(.backspace))
        #expect(s.inputText == "ello")
        _ = reducer.reduce(&s, .key(.ctrl("u")))
        #expect(s.inputText.isEmpty)
    }

    @Test func commands() {
        var s = state()
        _ = type("/dm bob", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.openDirect(userId: "bob")])
        _ = type("/create ops bob carol", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.createGroup(name: "ops", userIds: ["bob", "carol"])])
        _ = type("/dm", &s)
        #expect(reducer.reduce(&s, .key(.enter)).isEmpty && s.notice == "usage: /dm USER")
        _ = type("/frobnicate", &s)
        _ = reducer.reduce(&s, .key(.enter))
        #expect(s.notice?.hasPrefix("unknown command /frobnicate") == true)
        // Channel commands act on the channel on screen.
        _ = type("/invite carol dave", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.channel(.invite(["carol", "dave"]), channelUrl: "c1")])
        _ = type("/rename the new name", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.channel(.rename("the new name"), channelUrl: "c1")])
        for (word, command) in [
            ("accept", ChannelCommand.accept), ("decline", .decline), ("leave", .leave), ("hide", .hide), ("archive", .archive), ("freeze", .freeze),
            ("unfreeze", .unfreeze),
        ] {
            _ = type("/" + word, &s)
            #expect(reducer.reduce(&s, .key(.enter)) == [.channel(command, channelUrl: "c1")])
        }
        _ = type("/invite", &s)
        #expect(reducer.reduce(&s, .key(.enter)).isEmpty && s.notice == "usage: /invite USER…")
        _ = type("/autoaccept off", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.setAutoAccept(false)])
        _ = type("/autoaccept maybe", &s)
        #expect(reducer.reduce(&s, .key(.enter)).isEmpty && s.notice?.hasPrefix("usage: /autoaccept") == true)
        _ = type("/join lobby", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.joinPublic("lobby")])
        // Counting and blocking.
        _ = type("/count mentions", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.channel(.countPreference(.mentionsOnly), channelUrl: s.selected ?? "?")])
        _ = type("/count some", &s)
        #expect(reducer.reduce(&s, .key(.enter)).isEmpty && s.notice?.hasPrefix("usage: /count") == true)
        _ = type("/block mallory", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.block("mallory")])
        _ = type("/unblock mallory", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.unblock("mallory")])
        _ = type("/blocked", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.listBlocked])
        _ = type("/readall", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.markAllRead])
        _ = reducer.reduce(&s, .event(.userBlocked(User(userId: "mallory"))))
        #expect(s.notice?.hasPrefix("blocked mallory") == true)
        _ = reducer.reduce(&s, .notice("invited carol"))
        #expect(s.notice == "invited carol")
        _ = type("/help", &s)
        _ = reducer.reduce(&s, .key(.enter))
        #expect(s.showHelp)
        _ = reducer.reduce(&s, .key(.char("x")))  // any key closes help
        #expect(!s.showHelp && s.input.isEmpty)
        _ = type("/quit", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.quit] && s.quitting)
        var t = state()
        #expect(reducer.reduce(&t, .key(.ctrl("c"))) == [.quit])
    }

    @Test func switchingChannelsMarksReadAndLoadsHistory() {
        var s = state()
        let next = reducer.reduce(&s, .key(.ctrl("n")))
        #expect(s.selected == "c2")
        #expect(next == [.unview(channelUrl: "c1"), .view(channelUrl: "c2"), .loadHistory(channelUrl: "c2", before: nil)])
        #expect(s.channels.first { $0.url == "c2" }?.unreadMessageCount == 0)
        _ = reducer.reduce(&s, .key(.ctrl("p")))
        _ = reducer.reduce(&s, .key(.ctrl("p")))
        #expect(s.selected == "c3")  // wraps around
        _ = reducer.reduce(&s, .key(.altDown))
        #expect(s.selected == "c1")
    }

    @Test func scrollingPagesByThePaneAndLoadsHistoryBeforeTheTop() {
        var s = state()
        s.messages["c1"] = (1...60).map {
            Message(messageId: Int64($0), channelUrl: "c1", text: "line \($0)", sender: User(userId: "bob"), createdAt: t + Int64($0))
        }
        s.hasPrevious["c1"] = true
        _ = reducer.reduce(&s, .resized(width: 80, height: 14))
        #expect(s.pane == PaneSize(width: 58, height: 11))
        let total = reducer.layout.lineCount(s, width: 58)
        #expect(total == 61)  // a day separator and 60 one-line messages
        // A page is the pane's height less one line of overlap.
        #expect(reducer.reduce(&s, .key(.pageUp)).isEmpty)
        #expect(s.scroll == 10)
        _ = reducer.reduce(&s, .key(.pageUp))
        _ = reducer.reduce(&s, .key(.pageUp))
        #expect(s.scroll == 30)
        // Within a page of the top, the older page is asked for once.
        let load = reducer.reduce(&s, .key(.pageUp))
        #expect(s.scroll == 40)
        #expect(load == [.loadHistory(channelUrl: "c1", before: t + 1)])
        #expect(reducer.reduce(&s, .key(.pageUp)).isEmpty)  // already loading
        let top = reducer.layout.lineCount(s, width: 58) - 11
        #expect(top == total + 1 - 11)  // a "loading" line shows at the top meanwhile
        #expect(s.scroll == 50)
        _ = reducer.reduce(&s, .key(.pageUp))
        #expect(s.scroll == top)  // never past the top
        _ = reducer.reduce(&s, .key(.pageUp))
        #expect(s.scroll == top)
        // Older messages land above: what is on screen stays (scroll counts from the bottom).
        let older = (1...5).map {
            Message(messageId: Int64(100 + $0), channelUrl: "c1", text: "old \($0)", sender: User(userId: "bob"), createdAt: t - 10 + Int64($0))
        }
        _ = reducer.reduce(&s, .historyLoaded(url: "c1", page: MessagePage(messages: older, hasPrevious: false), replace: false))
        #expect(s.scroll == top)
        // A new message below while reading keeps the view still, too.
        let before = s.scroll
        _ = reducer.reduce(
            &s, .event(.messageReceived(Message(messageId: 200, channelUrl: "c1", text: "new", sender: User(userId: "bob"), createdAt: t + 100))))
        #expect(s.scroll == before + 1)
        _ = reducer.reduce(&s, .key(.pageDown))
        #expect(s.scroll == before + 1 - 10)
        // A taller terminal shows everything: nothing is left to scroll.
        _ = reducer.reduce(&s, .resized(width: 80, height: 200))
        #expect(s.scroll == 0)
    }

    @Test func browserAndInfoKeys() {
        var s = state()
        // Ctrl-G opens the public browser and asks for channels; typing searches; Tab switches to hidden ones.
        #expect(reducer.reduce(&s, .key(.ctrl("g"))) == [.browse(kind: .publicChannels, query: "")])
        #expect(reducer.reduce(&s, .key(.char("l"))) == [.browse(kind: .publicChannels, query: "l")])
        _ = type("ob type:game", &s)
        #expect(s.browser?.terms.name == "lob" && s.browser?.terms.customType == "game")
        #expect(s.input.isEmpty)  // typing went to the search, not the message line
        // Results for an older query are dropped; the current ones shown.
        _ = reducer.reduce(&s, .browserResults(kind: .publicChannels, query: "l", [GroupChannel(url: "old")]))
        #expect(s.browser?.results.isEmpty == true)
        let found = [GroupChannel(url: "x1", name: "lobby"), GroupChannel(url: "x2", name: "lobby 2")]
        _ = reducer.reduce(&s, .browserResults(kind: .publicChannels, query: "lob type:game", found))
        #expect(s.browser?.results.count == 2 && s.browser?.loading == false)
        _ = reducer.reduce(&s, .key(.down))
        #expect(reducer.reduce(&s, .key(.enter)) == [.channel(.join, channelUrl: "x2")])
        #expect(s.browser == nil)
        _ = reducer.reduce(&s, .key(.ctrl("g")))
        // Tab: public → open channels → hidden ones.
        #expect(reducer.reduce(&s, .key(.tab)) == [.browse(kind: .openChannels, query: "")])
        #expect(reducer.reduce(&s, .key(.tab)) == [.browse(kind: .hiddenChannels, query: "")])
        _ = reducer.reduce(&s, .browserResults(kind: .hiddenChannels, query: "", [GroupChannel(url: "h1")]))
        #expect(reducer.reduce(&s, .key(.enter)) == [.channel(.unhide, channelUrl: "h1")])
        _ = type("/hidden", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.browse(kind: .hiddenChannels, query: "")])
        _ = reducer.reduce(&s, .key(.escape))
        #expect(s.browser == nil)
        // Ctrl-O: the info view; a letter acts, invite starts the command line.
        _ = reducer.reduce(&s, .key(.ctrl("o")))
        #expect(s.info == "c1")
        #expect(reducer.reduce(&s, .key(.char("l"))) == [.channel(.leave, channelUrl: "c1")])
        #expect(s.info == nil)
        _ = reducer.reduce(&s, .key(.ctrl("o")))
        _ = reducer.reduce(&s, .key(.char("i")))
        #expect(s.inputText == "/invite " && s.info == nil)
        _ = reducer.reduce(&s, .key(.ctrl("u")))
        _ = reducer.reduce(&s, .key(.ctrl("o")))
        #expect(reducer.reduce(&s, .key(.char("z"))).isEmpty && s.info == nil)  // any other key closes
    }

    @Test func invitationsComeFirstAndEventsAreNoticed() {
        var s = state()
        var invite = GroupChannel(url: "inv", name: "secret")
        invite.myMemberState = "invited"
        invite.inviter = User(userId: "bob")
        _ = reducer.reduce(&s, .event(.channelAdded(invite)))
        #expect(s.channels.first?.url == "inv")
        #expect(s.notice == "bob invited you to #secret")
        // Selecting an invitation loads nothing (the server answers members only); accepting it does.
        #expect(reducer.reduce(&s, .key(.ctrl("p"))) == [.unview(channelUrl: "c1")])
        #expect(s.selected == "inv")
        var accepted = invite
        accepted.myMemberState = "joined"
        #expect(reducer.reduce(&s, .opened(accepted)) == [.view(channelUrl: "inv"), .loadHistory(channelUrl: "inv", before: nil)])
        _ = reducer.reduce(&s, .key(.ctrl("n")))
        #expect(s.selected == "c1")
        _ = reducer.reduce(&s, .event(.channelEvent(channelUrl: "inv", .invited(inviter: User(userId: "bob"), invitees: [User(userId: "alice")]))))
        #expect(s.notice == "bob invited you to #secret")
        _ = reducer.reduce(&s, .event(.channelEvent(channelUrl: "c1", .joined([User(userId: "carol")]))))
        #expect(s.notice == "carol joined #c1")
        _ = reducer.reduce(&s, .event(.channelEvent(channelUrl: "c2", .joined([User(userId: "dan")]))))
        #expect(s.notice == "carol joined #c1")  // not the channel on screen
    }

    @Test func engineEventsUpdateTheState() {
        var s = state()
        let pending = Message(
            messageId: 0, requestId: "rq-1", channelUrl: "c1", text: "yo", sender: User(userId: "alice"), createdAt: 5, status: .pending)
        _ = reducer.reduce(&s, .event(.messagePending(pending)))
        var sent = pending
        sent.messageId = 9
        sent.status = .succeeded
        _ = reducer.reduce(&s, .event(.messageSent(sent)))
        #expect(s.messages["c1"]?.count == 1 && s.messages["c1"]?.first?.status == .succeeded)
        _ = reducer.reduce(&s, .event(.typingStarted(channelUrl: "c1", user: User(userId: "bob"))))
        #expect(s.typers["c1"]?.map(\.userId) == ["bob"])
        _ = reducer.reduce(
            &s, .event(.messageReceived(Message(messageId: 10, channelUrl: "c1", text: "hey", sender: User(userId: "bob"), createdAt: 6))))
        #expect(s.typers["c1"]?.isEmpty == true && s.messages["c1"]?.count == 2)
        _ = reducer.reduce(&s, .event(.connectionStateChanged(.reconnecting(attempt: 1, nextAttemptAt: 9000))))
        #expect(Screen.connectionText(s.connection, now: 7000).0 == "reconnecting in 2s")
    }

    @Test func typingLine() {
        #expect(Screen.typingText(["bob"]) == "bob is typing…")
        #expect(Screen.typingText(["bob", "carol"]) == "bob and carol are typing…")
        #expect(Screen.typingText(["bob", "carol", "dave"]) == "several people are typing…")
    }
}
