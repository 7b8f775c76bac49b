import Foundation
import TernProtocol
import Testing

@testable import TernKit

@Suite("Configuration and output of the scriptable commands")
struct ScriptingTests {
    @Test func serverAddresses() throws {
        let local = try ServerAddress(parsing: "http://127.0.0.1:8080")
        #expect(local.apiBase == "http://127.0.0.1:8080" && local.webSocketBase == "ws://127.0.0.1:8080")
        let tls = try ServerAddress(parsing: "https://chat.example.com")
        #expect(tls.webSocketBase == "wss://chat.example.com")
        let v6 = try ServerAddress(parsing: "http://[::1]:9000")
        #expect(v6.webSocketBase == "ws://[::1]:9000")
        let hosted = try ServerAddress(parsing: "sendbird://ABC-123")
        #expect(hosted.apiBase == "https://api-abc-123.sendbird.com" && hosted.webSocketBase == "wss://ws-abc-123.sendbird.com")
        #expect(hosted.impliedAppId == "ABC-123")
        for bad in ["", "localhost:8080", "ftp://x", "sendbird://"] {
            #expect(throws: SendbirdError.self) { try ServerAddress(parsing: bad) }
        }
    }

    @Test func environment() throws {
        var c = try ClientConfiguration.fromEnvironment(["TERN_SERVER": "http://h:1", "USER": "unix"])
        #expect(c.userId == "unix" && c.appId == "LOCAL" && c.token == .none)
        c = try ClientConfiguration.fromEnvironment([
            "TERN_SERVER": "http://h:1", "TERN_USER_ID": "bob", "TERN_ACCESS_TOKEN": "t", "TERN_TOKEN_COMMAND": "echo x", "TERN_APP_ID": "APP",
        ])
        #expect(c.userId == "bob" && c.appId == "APP" && c.token == .token("t"))
        c = try ClientConfiguration.fromEnvironment(["TERN_USER_ID": "bob", "TERN_TOKEN_COMMAND": "echo x"], server: "http://h:2")
        #expect(c.server.apiBase == "http://h:2" && c.token == .command("echo x"))
        #expect(throws: SendbirdError.self) { try ClientConfiguration.fromEnvironment(["TERN_USER_ID": "bob"]) }
        let hosted = try ClientConfiguration.fromEnvironment(["TERN_SERVER": "sendbird://XYZ", "TERN_USER_ID": "u", "TERN_APP_ID": "OTHER"])
        #expect(hosted.appId == "XYZ")
    }

    @Test func tokenCommand() throws {
        #expect(try TokenSource.command("printf ' tok-1\\n'").resolve() == "tok-1")
        #expect(throws: SendbirdError.self) { try TokenSource.command("echo nope >&2; exit 3").resolve() }
        #expect(throws: SendbirdError.self) { try TokenSource.command("true").resolve() }
        #expect(try TokenSource.none.resolve() == nil)
    }

    @Test func tailJSONLines() throws {
        var f = TailFormatter(json: true, me: "bob")
        let m = Message(messageId: 5, channelUrl: "c1", text: "hi \"there\"", sender: User(userId: "alice"), createdAt: 1000)
        let line = try #require(f.lines(for: .messageReceived(m), now: 2000).first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["type"] as? String == "message")
        #expect(object["message"] as? String == "hi \"there\"")
        #expect(object["message_id"] as? Int == 5 && object["user_id"] as? String == "alice")
        let state = try #require(f.lines(for: .connectionStateChanged(.reconnecting(attempt: 1, nextAttemptAt: 6000)), now: 2000).first)
        #expect(state.contains("\"state\":\"reconnecting\"") && state.contains("\"retry_in_ms\":4000"))
        expectTrue(f.lines(for: .messagePending(m), now: 0).isEmpty)
        // A channel filter keeps only that channel's events (and connection events).
        f.channelFilter = "other"
        expectTrue(f.lines(for: .messageReceived(m), now: 0).isEmpty)
        expectTrue(!f.lines(for: .reconnectStarted, now: 0).isEmpty)
    }

    @Test func tailText() {
        var f = TailFormatter(json: false, me: "bob")
        var c = GroupChannel(url: "c1", members: [Member(user: User(userId: "bob")), Member(user: User(userId: "alice", nickname: "Alice"))])
        c.isDistinct = true
        _ = f.lines(for: .channelUpdated(c), now: 0)
        let state = f.lines(for: .connectionStateChanged(.reconnecting(attempt: 0, nextAttemptAt: 4500)), now: 2000)
        #expect(state.first?.hasSuffix("reconnecting in 3s (attempt 1)") == true)
        let typing = f.lines(for: .typingStarted(channelUrl: "c1", user: User(userId: "alice", nickname: "Alice")), now: 0)
        #expect(typing.first?.hasSuffix("#Alice Alice is typing…") == true)
    }

    /// At start-up the engine lists every existing channel as added: nobody "joined" them (issue 30).
    @Test func tailChannelAddedIsNeutral() throws {
        var f = TailFormatter(json: false, me: "bob")
        var c = GroupChannel(url: "c1", members: [Member(user: User(userId: "bob")), Member(user: User(userId: "alice", nickname: "Alice"))])
        c.isDistinct = true
        c.unreadMessageCount = 2
        let line = try #require(f.lines(for: .channelAdded(c), now: 0).first)
        #expect(line.hasSuffix("#Alice: 2 unread"), "\(line)")
        #expect(!line.contains("joined"))
        var invite = GroupChannel(url: "c2", name: "secret")
        invite.myMemberState = "invited"
        invite.inviter = User(userId: "carol", nickname: "Carol")
        let invited = try #require(f.lines(for: .channelAdded(invite), now: 0).first)
        #expect(invited.hasSuffix("#secret: invitation from Carol"), "\(invited)")
        // JSON keeps its type for scripts.
        var j = TailFormatter(json: true, me: "bob")
        #expect(j.lines(for: .channelAdded(c), now: 0).first?.contains("\"type\":\"channel_added\"") == true)
    }
}
