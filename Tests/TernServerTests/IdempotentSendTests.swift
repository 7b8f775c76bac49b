import Foundation
import TernTestSupport
import Testing

@testable import TernServer

/// Sends are idempotent by `req_id` (BRIEF §6 reliability, G2 in research/backend.md), also across a
/// restart of `ternd`: the engine resends what it holds unacknowledged after it reconnects, and the
/// server it reaches may be a new process on the same data.
@Suite("Idempotent sends", .serialized)
struct IdempotentSendTests {
    @Test("MESG repeated with its req_id after a restart: the original message back, nothing stored, counted or delivered again")
    func repeatedAfterRestart() async throws {
        let dir = makeTempDirectory()
        var s = try await TestServer.start(dataDirectory: dir)
        do {
            let url = try await s.newChannel(of: ["alice", "bob"])
            var (alice, _) = try await s.login("alice")
            var (bob, _) = try await s.login("bob")
            alice.send("MESG", ["channel_url": url, "message": "once", "req_id": "rq-once"])
            let ack = await alice.next("MESG") { $0["req_id"] as? String == "rq-once" }
            let id = ack?["msg_id"] as? Int
            let createdAt = ack?["created_at"] as? Int
            #expect(id != nil && createdAt != nil)
            #expect(await bob.next("MESG")?["msg_id"] as? Int == id)
            await alice.close()
            await bob.close()

            // A new process on the same data; both users come back.
            await s.stop()
            s = try await TestServer.start(dataDirectory: dir)
            (alice, _) = try await s.login("alice")
            (bob, _) = try await s.login("bob")
            alice.send("MESG", ["channel_url": url, "message": "once", "req_id": "rq-once"])
            let replay = await alice.next("MESG") { $0["req_id"] as? String == "rq-once" }
            #expect(replay?["msg_id"] as? Int == id && replay?["message_id"] as? Int == id)
            #expect(replay?["created_at"] as? Int == createdAt && replay?["message"] as? String == "once")

            // One message kept; bob's unread count still 1.
            let history = try await s.request("GET", "/v3/group_channels/\(url)/messages?message_ts=9999999999999&prev_limit=10&next_limit=0")
            #expect((history.json["messages"] as? [[String: Any]])?.map { $0["message_id"] as? Int } == [id])
            let unread = try await s.request("GET", "/v3/group_channels/\(url)/messages/unread_count?user_ids=bob")
            #expect((unread.json["unread"] as? [String: Any])?["bob"] as? Int == 1, "\(unread.text)")
            let bobChannel = try await s.request("GET", "/v3/users/bob/my_group_channels?show_empty=true")
            #expect((bobChannel.json["channels"] as? [[String: Any]])?.first?["unread_message_count"] as? Int == 1)

            // Bob's socket got no second copy: the next message sent is the first MESG it sees.
            alice.send("MESG", ["channel_url": url, "message": "after", "req_id": "rq-after"])
            let after = await alice.next("MESG") { $0["req_id"] as? String == "rq-after" }
            #expect(after?["msg_id"] as? Int != id)
            #expect(await bob.next("MESG")?["message"] as? String == "after")
            #expect(bob.all("MESG").map { $0["message"] as? String } == ["after"])
            #expect(alice.all("MESG").count == 2, "alice's socket: the replay's ack and the new one's, nothing else")
            await alice.close()
            await bob.close()
        } catch {
            await s.stop()
            throw error
        }
        await s.stop()
    }
}
