import Foundation
import TernKit
import TernProtocol
import Testing

@testable import TernTUI

@Suite("Messages in the client: edit, pick, reply, react, threads, mentions, search, files")
struct MessageTUITests: TUIFixture {
    let reducer = Reducer()

    func state() -> AppState {
        var c = GroupChannel(url: "c1", name: "team", members: [Member(user: alice), Member(user: bob), Member(user: User(userId: "bobby"))])
        c.createdAt = 1
        return aliceIn(
            c,
            showing: [
                Message(messageId: 1, channelUrl: "c1", text: "first from bob", sender: bob, createdAt: t),
                Message(messageId: 2, channelUrl: "c1", text: "mine", sender: alice, createdAt: t + 1000),
                Message(messageId: 3, channelUrl: "c1", text: "last from bob", sender: bob, createdAt: t + 2000),
            ])
    }

    @Test func altEEditsTheLastOwnMessageAndEscCancels() {
        var s = state()
        _ = reducer.reduce(&s, .key(.alt("e")))
        #expect(s.editing?.messageId == 2 && s.inputText == "mine")
        _ = reducer.reduce(&s, .key(.backspace))
        _ = type("e!", &s)
        let effects = reducer.reduce(&s, .key(.enter))
        #expect(effects.contains { if case .editMessage(let m, "mine!") = $0 { m.messageId == 2 } else { false } })
        #expect(s.editing == nil)
        _ = reducer.reduce(&s, .key(.alt("e")))
        _ = reducer.reduce(&s, .key(.escape))
        #expect(s.editing == nil && s.input.isEmpty && !s.showHelp, "Esc cancels the edit, not the help")
    }

    @Test func pickerRepliesReactsDeletesAndOpensThreads() {
        var s = state()
        _ = reducer.reduce(&s, .key(.ctrl("r")))
        #expect(Reducer.picked(s)?.messageId == 3)
        _ = reducer.reduce(&s, .key(.up))
        _ = reducer.reduce(&s, .key(.up))
        #expect(Reducer.picked(s)?.messageId == 1)
        _ = reducer.reduce(&s, .key(.char("r")))
        #expect(s.replyingTo?.messageId == 1 && s.picker == nil)
        _ = type("sure", &s)
        let sent = reducer.reduce(&s, .key(.enter))
        #expect(
            sent.contains { if case .sendMessage(let p, "c1") = $0 { p.parentMessageId == 1 && p.replyToChannel && p.text == "sure" } else { false } }
        )
        // React through the palette: + opens it, → moves, Enter sends.
        _ = reducer.reduce(&s, .key(.ctrl("r")))
        _ = reducer.reduce(&s, .key(.char("+")))
        _ = reducer.reduce(&s, .key(.right))
        let react = reducer.reduce(&s, .key(.enter))
        #expect(react == [.react(s.messages["c1"]![2], key: "heart", add: true)])
        // Delete asks first; only own messages (no operator role here).
        _ = reducer.reduce(&s, .key(.ctrl("r")))
        _ = reducer.reduce(&s, .key(.char("d")))
        #expect(s.notice?.hasPrefix("only your own") == true)
        _ = reducer.reduce(&s, .key(.up))
        _ = reducer.reduce(&s, .key(.char("d")))
        #expect(s.picker?.confirmDelete == true)
        let deleted = reducer.reduce(&s, .key(.char("y")))
        #expect(deleted == [.deleteMessage(s.messages["c1"]![1])])
        _ = reducer.reduce(&s, .key(.ctrl("r")))
        _ = reducer.reduce(&s, .key(.up))
        _ = reducer.reduce(&s, .key(.char("d")))
        #expect(reducer.reduce(&s, .key(.char("n"))).isEmpty && s.notice == "not deleted")
        // t opens the thread; sending there replies to its parent; Esc leaves it.
        _ = reducer.reduce(&s, .key(.ctrl("r")))
        let open = reducer.reduce(&s, .key(.char("t")))
        #expect(open == [.openThread(s.messages["c1"]![2])] && s.thread?.parent.messageId == 3)
        _ = type("in thread", &s)
        let reply = reducer.reduce(&s, .key(.enter))
        #expect(reply.contains { if case .sendMessage(let p, _) = $0 { p.parentMessageId == 3 && !p.replyToChannel } else { false } })
        _ = reducer.reduce(&s, .key(.escape))
        #expect(s.thread == nil)
    }

    @Test func mentionsAreFoundAndCompleted() {
        let members = state().channels[0].members
        #expect(Reducer.mentions(in: "hi @bob and @Bob, @nobody", members: members, me: "alice") == ("users", ["bob"]))
        #expect(Reducer.mentions(in: "@channel look", members: members, me: "alice").type == "channel")
        var s = state()
        _ = type("hey @bo", &s)
        _ = reducer.reduce(&s, .key(.tab))
        #expect(s.inputText == "hey @bob " && s.notice == "[@bob] @bobby · Tab: next", "two choices: the first, and both listed")
        _ = reducer.reduce(&s, .key(.tab))
        #expect(s.inputText == "hey @bobby " && s.notice == "@bob [@bobby] · Tab: next", "Tab again: the next")
        let effects = reducer.reduce(&s, .key(.enter))
        #expect(effects.contains { if case .sendMessage(let p, _) = $0 { p.mentionedUserIds == ["bobby"] } else { false } })
    }

    @Test func eventsUpdateMessagesAndThreads() {
        var s = state()
        var edited = s.messages["c1"]![0]
        edited.text = "first from bob (fixed)"
        edited.updatedAt = t + 5000
        _ = reducer.reduce(&s, .event(.messageUpdated(edited)))
        #expect(s.messages["c1"]![0].text == "first from bob (fixed)" && s.messages["c1"]![0].isEdited)
        _ = reducer.reduce(&s, .event(.reactionUpdated(channelUrl: "c1", messageId: 1, key: "thumbsup", userId: "bob", added: true)))
        _ = reducer.reduce(&s, .event(.reactionUpdated(channelUrl: "c1", messageId: 1, key: "thumbsup", userId: "alice", added: true)))
        _ = reducer.reduce(&s, .event(.reactionUpdated(channelUrl: "c1", messageId: 1, key: "thumbsup", userId: "bob", added: false)))
        #expect(s.messages["c1"]![0].reactions == [Reaction(key: "thumbsup", userIds: ["alice"])])
        // A reply not sent to the channel goes to the open thread only.
        _ = reducer.reduce(&s, .key(.ctrl("r")))
        _ = reducer.reduce(&s, .key(.char("t")))
        var reply = Message(messageId: 9, channelUrl: "c1", text: "threaded", sender: bob, createdAt: t + 6000)
        reply.parentMessageId = 3
        _ = reducer.reduce(&s, .event(.messageReceived(reply)))
        #expect(s.thread?.replies.map(\.messageId) == [9])
        #expect(!Reducer.visibleMessages(AppState(copying: s, picker: nil)).isEmpty)
        var channelOnly = s
        channelOnly.thread = nil
        #expect(!Reducer.visibleMessages(channelOnly).contains { $0.messageId == 9 }, "not in the channel's list")
        _ = reducer.reduce(&s, .event(.messageDeleted(channelUrl: "c1", messageId: 3)))
        #expect(s.thread == nil && s.notice == "the thread's message was deleted")
    }

    @Test func searchJumpsToTheMessage() {
        var s = state()
        _ = reducer.reduce(&s, .key(.ctrl("s")))
        _ = type("bob", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.searchMessages(query: "bob")] && s.search?.loading == true)
        let hit = s.messages["c1"]![0]
        _ = reducer.reduce(&s, .searchResults(query: "bob", [s.messages["c1"]![2], hit], hasMore: false))
        _ = reducer.reduce(&s, .key(.down))
        let jump = reducer.reduce(&s, .key(.enter))
        #expect(jump == [.jump(hit)] && s.search == nil && s.highlight == 1)
        #expect(reducer.reduce(&s, .key(.char("/"))).isEmpty)
        s.input = []
        s.cursor = 0
        _ = type("/search colou*r", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.searchMessages(query: "colou*r")])
    }

    @Test func uploadsAndDownloads() {
        var s = state()
        _ = type("/upload ~/notes.txt", &s)
        let effects = reducer.reduce(&s, .key(.enter))
        #expect(effects.count == 1)
        if case .upload(let path, "c1") = effects[0] {
            #expect(path.hasSuffix("/notes.txt") && !path.hasPrefix("~"))
        } else {
            Issue.record("\(effects)")
        }
        _ = reducer.reduce(&s, .uploadStarted(requestId: "rq-1", Upload(channelUrl: "c1", name: "notes.txt")))
        _ = reducer.reduce(&s, .uploadProgress(requestId: "rq-1", sent: 50, total: 200))
        #expect(s.uploads["rq-1"]?.sent == 50)
        _ = type("/cancel", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.cancelUpload(requestId: "rq-1")])
        var sent = Message(messageId: 20, requestId: "rq-1", channelUrl: "c1", kind: .file, text: "", sender: alice, createdAt: t + 9000)
        sent.files = [FilePayload(url: "http://x/f", name: "notes.txt", size: 200, type: "text/plain")]
        _ = reducer.reduce(&s, .event(.messageSent(sent)))
        #expect(s.uploads.isEmpty && s.notice == "notes.txt sent")
        _ = type("/download /tmp", &s)
        #expect(reducer.reduce(&s, .key(.enter)) == [.download(sent, directory: "/tmp")])
        #expect(Screen.progressBar(sent: 50, total: 200, width: 8) == "[##------] 25%")
    }

    @Test func decoratedMessagesScreen() throws {
        var s = state()
        s.connection = .open
        var m1 = s.messages["c1"]![0]
        m1.reactions = [Reaction(key: "thumbsup", userIds: ["alice", "bob"]), Reaction(key: "party", userIds: ["bob"])]
        m1.thread = nil
        m1.updatedAt = t + 10
        var m2 = s.messages["c1"]![1]
        m2.preview = OGMetaData(title: "Tern", url: "https://tern.example", description: "a terminal chat")
        m2.text = "see https://tern.example"
        var reply = Message(messageId: 4, channelUrl: "c1", text: "agreed @alice", sender: bob, createdAt: t + 3000, mentionedUserIds: ["alice"])
        reply.parentMessageId = 1
        reply.isReplyToChannel = true
        reply.parent = ParentSummary(messageId: 1, text: "first from bob", sender: bob, createdAt: t)
        var file = Message(messageId: 5, channelUrl: "c1", kind: .file, text: "", sender: bob, createdAt: t + 4000)
        file.files = [FilePayload(url: "http://x/f", name: "plan.pdf", size: 2_500_000, type: "application/pdf")]
        var parent = s.messages["c1"]![2]
        parent.thread = ThreadSummaryFixture.make(count: 2, last: t + 7000, names: ["Bob"])
        let admin = Message(messageId: 6, channelUrl: "c1", kind: .admin, text: "maintenance at noon", sender: nil, createdAt: t + 5000)
        s.messages["c1"] = [m1, m2, parent, reply, file, admin]
        let screen = Screen(theme: .builtin, timeZone: TimeZone(identifier: "UTC")!)
        try assertGolden(screen.render(s, width: 80, height: 22, now: 0), "messages-80x22")
        // The picker shows its keys; the thread view its header.
        _ = reducer.reduce(&s, .key(.ctrl("r")))
        try assertGolden(screen.render(s, width: 80, height: 12, now: 0), "picker-80x12")
        _ = reducer.reduce(&s, .key(.char("+")))
        try assertGolden(screen.render(s, width: 80, height: 12, now: 0), "reactions-80x12")
        s.picker = nil
        _ = reducer.reduce(&s, .key(.ctrl("s")))
        _ = type("bob", &s)
        _ = reducer.reduce(&s, .searchResults(query: "bob", [m1, parent], hasMore: false))
        try assertGolden(screen.render(s, width: 80, height: 14, now: 0), "search-80x14")
    }
}

enum ThreadSummaryFixture {
    static func make(count: Int, last: Millis, names: [String]) -> ThreadSummary {
        ThreadSummary(
            ThreadInfo(replyCount: count, mostReplies: names.map { SenderPayload(userId: $0.lowercased(), nickname: $0) }, lastRepliedAt: last))
    }
}
