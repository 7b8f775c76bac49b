import Foundation
import Testing
import TernProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@testable import TernKit

@Suite("Engine: a channel made elsewhere")
struct UnknownChannelEngineTests {
    @Test func aMessageInAChannelMadeByThePlatformAPIBringsTheChannel() async throws {
        try await withLocalServer { server in
            let (alice, log) = try await server.connected("alice")
            func platform(_ method: String, _ path: String, _ body: [String: Any]) async throws {
                var req = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)\(path)")!)
                req.httpMethod = method
                req.setValue(server.apiToken, forHTTPHeaderField: "Api-Token")
                req.setValue("application/json", forHTTPHeaderField: "Content-Type")
                req.httpBody = try JSONSerialization.data(withJSONObject: body)
                _ = try await URLSession.shared.data(for: req)
            }
            try await platform("POST", "/v3/users", ["user_id": "bob", "nickname": "Bob", "profile_url": ""])
            try await platform("POST", "/v3/group_channels", ["user_ids": ["alice", "bob"], "channel_url": "made-elsewhere", "name": "elsewhere"])
            try await platform("POST", "/v3/group_channels/made-elsewhere/messages", ["message_type": "MESG", "user_id": "bob", "message": "hi"])
            let added: GroupChannel = try await log.wait("the channel", timeout: 10) { e in
                if case .channelAdded(let c) = e, c.url == "made-elsewhere" { return c }
                return nil
            }
            #expect(added.unreadMessageCount == 1)
            await alice.disconnect()
        }
    }
}
