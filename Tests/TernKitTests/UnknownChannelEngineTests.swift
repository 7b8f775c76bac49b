import TernTestSupport
import Testing

@testable import TernKit

@Suite("Engine: a channel made elsewhere")
struct UnknownChannelEngineTests {
    @Test func aMessageInAChannelMadeByThePlatformAPIBringsTheChannel() async throws {
        try await withLocalServer { server in
            let (alice, log) = try await server.connected("alice")
            _ = try await server.platform("POST", "/v3/users", ["user_id": "bob", "nickname": "Bob", "profile_url": ""])
            _ = try await server.platform(
                "POST", "/v3/group_channels", ["user_ids": ["alice", "bob"], "channel_url": "made-elsewhere", "name": "elsewhere"])
            _ = try await server.platform(
                "POST", "/v3/group_channels/made-elsewhere/messages", ["message_type": "MESG", "user_id": "bob", "message": "hi"])
            let added: GroupChannel = try await log.wait("the channel", timeout: 10) { e in
                if case .channelAdded(let c) = e, c.url == "made-elsewhere" { return c }
                return nil
            }
            #expect(added.unreadMessageCount == 1)
            await alice.disconnect()
        }
    }
}
