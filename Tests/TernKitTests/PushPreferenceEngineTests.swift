import Foundation
import Testing
import TernProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@testable import TernKit

@Suite("Engine: push preferences for alerts")
struct PushPreferenceEngineTests {
    @Test func preferencesAndChannelTriggersComeFromTheServer() async throws {
        try await withLocalServer { server in
            let alice = server.client("alice")
            try await alice.connect()
            let url = try await alice.createGroupChannel(name: "mine", userIds: ["alice"]).url
            #expect(try await alice.pushPreferences().pushTriggerOption == "all")
            #expect(try await alice.pushTrigger(in: url) == "default")
            func put(_ path: String, _ body: [String: Any]) async throws {
                var req = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)\(path)")!)
                req.httpMethod = "PUT"
                req.setValue(server.apiToken, forHTTPHeaderField: "Api-Token")
                req.setValue("application/json", forHTTPHeaderField: "Content-Type")
                req.httpBody = try JSONSerialization.data(withJSONObject: body)
                _ = try await URLSession.shared.data(for: req)
            }
            try await put("/v3/users/alice/push_preference", ["do_not_disturb": true, "start_hour": 22, "end_hour": 7, "timezone": "Europe/Paris"])
            try await put("/v3/users/alice/push_preference/\(url)", ["push_trigger_option": "off"])
            let p = try await alice.pushPreferences()
            #expect(p.doNotDisturb == true && p.startHour == 22 && p.timezone == "Europe/Paris")
            #expect(try await alice.pushTrigger(in: url) == "off")
            await alice.disconnect()
        }
    }
}
