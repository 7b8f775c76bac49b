import TernTestSupport
import Testing

@testable import TernKit

@Suite("Engine: push preferences for alerts")
struct PushPreferenceEngineTests {
    @Test func preferencesAndChannelTriggersComeFromTheServer() async throws {
        try await withLocalServer { server in
            let alice = try await server.connectedClient("alice")
            let url = try await alice.createGroupChannel(name: "mine", userIds: ["alice"]).url
            #expect(try await alice.pushPreferences().pushTriggerOption == "all")
            #expect(try await alice.pushTrigger(in: url) == "default")
            _ = try await server.platform(
                "PUT", "/v3/users/alice/push_preference", ["do_not_disturb": true, "start_hour": 22, "end_hour": 7, "timezone": "Europe/Paris"])
            _ = try await server.platform("PUT", "/v3/users/alice/push_preference/\(url)", ["push_trigger_option": "off"])
            let p = try await alice.pushPreferences()
            #expect(p.doNotDisturb == true && p.startHour == 22 && p.timezone == "Europe/Paris")
            #expect(try await alice.pushTrigger(in: url) == "off")
            await alice.disconnect()
        }
    }
}
