import Foundation
import TernKit
import TernProtocol
import Testing

@testable import TernTUI

/// The quick-edit grammar (issue 38 item 5): `s/old/new/`, `+:emoji:`, `N+:emoji:`, `-:emoji:`.
@Suite("Quick edits: s/old/new/ and +:emoji:")
struct QuickEditTests: TUIFixture {
    let reducer = Reducer(keys: .standard, timeZone: TimeZone(identifier: "UTC")!)

    @Test func theGrammar() {
        #expect(QuickEdit.parse("s/teh/the/") == .substitute(old: "teh", new: "the", global: false))
        #expect(QuickEdit.parse("s/a/b/g") == .substitute(old: "a", new: "b", global: true))
        #expect(QuickEdit.parse("s/a\\/b/c/") == .substitute(old: "a/b", new: "c", global: false), "\\/ is a slash in a part")
        #expect(QuickEdit.parse("s/gone//") == .substitute(old: "gone", new: "", global: false))
        #expect(QuickEdit.parse("+:thumbsup:") == .react(key: "thumbsup", nth: 1, add: true))
        #expect(QuickEdit.parse("3+:eyes:") == .react(key: "eyes", nth: 3, add: true))
        #expect(QuickEdit.parse("-:heart:") == .react(key: "heart", nth: 1, add: false))
        for text in ["s/a/b", "s//b/", "s/a/b/x", "so/a/b/", "+:", "+::", "+:a b:", "0+:eyes:", "x+:eyes:", "+1", "+:eyes: now", "hello"] {
            #expect(QuickEdit.parse(text) == nil, "\(text) is plain text")
        }
    }

    /// Alice's and Bob's messages in #team, the newest Alice's "I cna't do teh thing".
    var state: AppState {
        var s = teamChannel([(bob, "first"), (bob, "second"), (alice, "I cna't do teh thing, teh end")])
        s.messages["c1"]?[1].reactions = [Reaction(key: "eyes", userIds: ["alice"])]
        return s
    }

    /// Types `text` and Enter: the effects after the end of "typing…" (which every quick edit sends first).
    func send(_ text: String, _ s: inout AppState) -> [Effect] {
        type(text, &s)
        let effects = reducer.reduce(&s, .key(.enter))
        guard effects.first == .typing(channelUrl: "c1", started: false) else { return [.typing(channelUrl: "none", started: true)] }
        return Array(effects.dropFirst())
    }

    @Test func substituteEditsMyLastMessage() {
        var s = state
        let mine = s.messages["c1"]![2]
        #expect(send("s/teh/the/", &s) == [.editMessage(mine, text: "I cna't do the thing, teh end")])
        #expect(s.input.isEmpty)
        #expect(send("s/teh/the/g", &s) == [.editMessage(mine, text: "I cna't do the thing, the end")])
        #expect(send("s/xyz/abc/", &s).isEmpty && s.notice == "no \"xyz\" in your last message")
        #expect(send("s/I cna't do teh thing, teh end//", &s).isEmpty && s.notice?.contains("empty") == true)
        var none = teamChannel([(bob, "only bob")])
        #expect(send("s/a/b/", &none).isEmpty && none.notice == "nothing of yours to edit here")
        // Typed right after sending: the message is not stored yet (no id to edit by), and tern says so.
        var onItsWay = state
        onItsWay.messages["c1"]?[2].status = .pending
        #expect(send("s/teh/the/", &onItsWay).isEmpty)
        #expect(onItsWay.notice == "your last message is still on its way: s/…/…/ again once it shows ✓")
        // /say sends one as text.
        #expect(send("/say s/teh/the/", &onItsWay) == [.send(text: "s/teh/the/", channelUrl: "c1")])
    }

    @Test func reactionsGoToTheNthLastMessage() {
        var s = state
        let msgs = s.messages["c1"]!
        #expect(send("+:thumbsup:", &s) == [.react(msgs[2], key: "thumbsup", add: true)])
        #expect(send("2+:tada:", &s) == [.react(msgs[1], key: "tada", add: true)])
        #expect(send("2-:eyes:", &s) == [.react(msgs[1], key: "eyes", add: false)])
        #expect(send("2+:eyes:", &s).isEmpty && s.notice == "you reacted 👀 already")
        #expect(send("-:eyes:", &s).isEmpty && s.notice == "no 👀 of yours there")
        #expect(send("9+:eyes:", &s).isEmpty && s.notice == "no message 9 back (there are 3)")
    }

    @Test func plainLooksAlikeAreSent() {
        var s = state
        #expect(send("s/a/b", &s) == [.send(text: "s/a/b", channelUrl: "c1")])
    }

    @Test func completionAndHelp() {
        var s = state
        type("+:thu", &s)
        _ = reducer.reduce(&s, .key(.tab))
        #expect(String(s.input) == "+:thumbsup:")
        let help = Screen(theme: .builtin, timeZone: TimeZone(identifier: "UTC")!).overlayLines(s).lines
        #expect(help.contains { $0.0 == "s/old/new/" } && help.contains { $0.0 == "+:emoji:" })
    }
}
