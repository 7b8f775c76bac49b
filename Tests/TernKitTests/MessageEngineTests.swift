import Foundation
import TernProtocol
import TernServer
import TernTestSupport
import Testing

@testable import TernKit

/// The engine's message API against ternd: mentions, edits, deletes, reactions, threads, copies,
/// search, files with progress and cancel, downloads.
@Suite("Engine: messages and files")
struct MessageEngineTests {

    @Test func editDeleteReactThreadCopyAndSearch() async throws {
        try await withLocalServer({ $0.linkPreviews = false }) { server in
            let alice = try await server.connectedClient("alice")
            let (bob, bobLog) = try await server.connected("bob")
            let group = try await alice.createGroupChannel(name: "team", userIds: ["bob"])
            let other = try await alice.createGroupChannel(name: "other", userIds: [])
            _ = try await bob.loadAllChannels()
            // A mention with metaarray and custom type.
            var params = UserMessageParams("hi @bob")
            params.mentionedUserIds = ["bob"]
            params.customType = "greeting"
            params.metaarray = [MetaArrayItem(key: "tags", value: ["hello"])]
            let m = try await alice.sendMessageAndWait(params, to: group.url)
            #expect(m.customType == "greeting" && m.metaarray.first?.value == ["hello"])
            try await eventually("bob's mention") { await bob.cachedChannel(group.url)?.unreadMentionCount == 1 }
            // Edit: bob sees the update, the last message follows.
            let mark = bobLog.mark
            let edited = try await alice.updateMessage(m, MessageUpdateParams(text: "hi @bob, welcome"))
            #expect(edited.text == "hi @bob, welcome" && edited.isEdited)
            let seen = try await bobLog.wait("edit", after: mark) { e -> Message? in
                if case .messageUpdated(let u) = e, u.messageId == m.messageId { return u }
                return nil
            }
            #expect(seen.text == "hi @bob, welcome")
            try await eventually("bob's last message is the edit") { await bob.cachedChannel(group.url)?.lastMessage?.text == "hi @bob, welcome" }
            await #expect(throws: SendbirdError.self) { try await bob.updateMessage(m, MessageUpdateParams(text: "not mine")) }
            // Metaarray values added and removed.
            let tagged = try await alice.changeMetaArray(m, [MetaArrayItem(key: "tags", value: ["team"])])
            #expect(tagged.metaarray.first?.value == ["hello", "team"])
            let untagged = try await alice.changeMetaArray(m, [MetaArrayItem(key: "tags", value: [])], remove: true)
            #expect(untagged.metaarray.isEmpty)
            // Reactions reach the reactor too.
            try await bob.addReaction(m, key: "thumbsup")
            _ = try await bobLog.wait("own reaction") { e -> Bool? in
                if case .reactionUpdated(_, let id, "thumbsup", "bob", true) = e, id == m.messageId { return true }
                return nil
            }
            let withReactions = try await alice.message(m.messageId, in: group.url)
            #expect(withReactions.reactions == [Reaction(key: "thumbsup", userIds: ["bob"])])
            try await bob.deleteReaction(m, key: "thumbsup")
            // Threads.
            var reply = UserMessageParams("a reply")
            reply.parentMessageId = m.messageId
            let r1 = try await bob.sendMessageAndWait(reply, to: group.url)
            #expect(r1.parentMessageId == m.messageId && r1.parent?.text == "hi @bob, welcome")
            let info = try await bobLog.wait("thread info") { e -> ThreadSummary? in
                if case .threadInfoUpdated(_, let p, let t) = e, p == m.messageId { return t }
                return nil
            }
            #expect(info.replyCount == 1 && info.repliers.map(\.userId) == ["bob"])
            let thread = try await alice.thread(of: m)
            #expect(thread.parent.messageId == m.messageId && thread.replies.map(\.text) == ["a reply"])
            #expect(thread.parent.thread?.replyCount == 1)
            // Replies stay out of the channel's history unless sent to the channel too.
            let history = try await alice.previousMessages(in: group.url)
            #expect(history.messages.map(\.messageId) == [m.messageId])
            // Copy to another channel; only one's own.
            let copy = try await alice.copyMessage(edited, to: other.url)
            #expect(copy.channelUrl == other.url && copy.text == edited.text && copy.customType == "greeting")
            await #expect(throws: SendbirdError.self) { try await bob.copyMessage(edited, to: group.url) }
            // Search.
            var q = MessageSearchQuery(keyword: "welcome")
            q.channelUrl = group.url
            let found = try await bob.searchMessages(q)
            #expect(found.messages.map(\.messageId) == [m.messageId] && found.totalCount == 1)
            var fuzzy = MessageSearchQuery(keyword: "welcomx~")
            fuzzy.advanced = true
            #expect(try await bob.searchMessages(fuzzy).messages.count >= 1)
            let around = try await bob.messages(around: m)
            #expect(around.messages.contains { $0.messageId == m.messageId })
            // History queries: the previous-message query continues where it ended; filters by sender and type.
            for i in 0..<3 { _ = try await bob.sendMessageAndWait("page \(i)", to: group.url) }
            let query = alice.previousMessageListQuery(group.url, limit: 2)
            let p1 = try await query.load()
            let p2 = try await query.load()
            #expect(p1.map(\.text) == ["page 1", "page 2"] && p2.map(\.text) == ["hi @bob, welcome", "page 0"])
            var filter = MessageListParams(anchor: .timestamp(9_007_199_254_740_991))
            filter.senderIds = ["bob"]
            filter.previous = 10
            #expect(try await alice.messages(in: group.url, filter).map(\.text) == ["page 0", "page 1", "page 2"])
            filter.replyType = .all
            #expect(try await alice.messages(in: group.url, filter).map(\.text) == ["a reply", "page 0", "page 1", "page 2"])
            let replies = try await alice.threadedMessages(of: m, at: 0, next: 10)
            #expect(replies.replies.map(\.text) == ["a reply"])
            // Delete: everyone hears it; the deleted last message makes the channel read again.
            let before = bobLog.mark
            try await alice.deleteMessage(m)
            _ = try await bobLog.wait("deleted", after: before) { e -> Bool? in
                if case .messageDeleted(_, let id) = e, id == m.messageId { return true }
                return nil
            }
            try await eventually("bob's last message is gone") { await bob.cachedChannel(group.url)?.lastMessage?.messageId != m.messageId }
            for c in [alice, bob] { await c.shutdown() }
        }
    }

    @Test func filesUploadWithProgressCancelAndDownload() async throws {
        try await withLocalServer({
            $0.linkPreviews = false
            $0.fileUploadSizeLimitMB = 2
        }) { server in
            let alice = server.client("alice")
            let bob = server.client("bob")
            let eve = server.client("eve")
            let aliceLog = EventLog(alice)
            try await alice.connect()
            try await bob.connect()
            try await eve.connect()
            let group = try await alice.createGroupChannel(name: "files", userIds: ["bob"])
            let dir = makeTempDirectory()
            let path = dir + "/notes.txt"
            let (content, id, progress, sent) = try await sendTextFile(
                String(repeating: "tern ", count: 40_000), at: path, from: alice, log: aliceLog, to: group.url)
            #expect(sent.status == .succeeded && sent.kind == .file && sent.files.first?.name == "notes.txt")
            #expect(sent.files.first?.size == content.count)
            #expect(progress.last?.0 == progress.last?.1 && (progress.last?.1 ?? 0) >= Int64(content.count), "progress reaches the whole body")
            // Cancelling a finished upload returns false.
            #expect(await alice.cancelUpload(id) == false)
            // A file message copies to another channel with its file.
            let other = try await alice.createGroupChannel(name: "archive", userIds: [])
            let copied = try await alice.copyMessage(sent, to: other.url)
            #expect(copied.kind == .file && copied.channelUrl == other.url && copied.files.first?.url == sent.files.first?.url)
            // Bob downloads it; eve (not a member) cannot.
            let saved = try await bob.download(sent, to: dir)
            #expect(saved.count == 1 && FileManager.default.contents(atPath: saved[0]) == content)
            #expect(saved[0] != path, "an existing name gets a number")
            await #expect(throws: SendbirdError.self) { try await eve.download(sent, to: dir) }
            // Several files in one message; a file by URL.
            let second = dir + "/second.txt"
            _ = FileManager.default.createFile(atPath: second, contents: Data("two".utf8))
            let multi = try await alice.sendFiles(paths: [path, second], to: group.url)
            #expect(multi.files.map(\.name) == ["notes.txt", "second.txt"] && multi.files.map(\.size) == [content.count, 3])
            let linked = try await alice.sendFileURL(
                "https://example.com/report.pdf", name: "report.pdf", type: "application/pdf", size: 10, to: group.url)
            #expect(linked.files.first?.url == "https://example.com/report.pdf")
            await #expect(throws: SendbirdError.self) { try await alice.sendFiles(paths: [path], to: group.url) }
            // Too large for the server's announced limit: refused before uploading.
            let big = dir + "/big.bin"
            _ = FileManager.default.createFile(atPath: big, contents: Data(count: 3 * 1024 * 1024))
            do {
                _ = try await alice.sendFile(path: big, to: group.url)
                Issue.record("a file over the limit was accepted")
            } catch let e as SendbirdError {
                #expect(e.code.rawValue == 800260)
            }
            // Cancelling an upload in progress: the message fails as cancelled.
            let mid = dir + "/mid.bin"
            _ = FileManager.default.createFile(atPath: mid, contents: Data(count: 2 * 1024 * 1024 - 4096))
            let cancelId = try await alice.sendFile(path: mid, to: group.url)
            let cancelled = await alice.cancelUpload(cancelId)
            let outcome = try await aliceLog.outcome(of: cancelId, "cancelled upload")
            // Either the cancel came while the upload ran (the message fails as cancelled), or the upload had
            // already finished (cancel says false and the message went): never both, never neither.
            if cancelled {
                #expect(outcome.status == .failed && outcome.error?.code == .connectionCanceled)
            } else {
                #expect(outcome.status == .succeeded)
            }
            for c in [alice, bob, eve] { await c.shutdown() }
        }
    }
}
