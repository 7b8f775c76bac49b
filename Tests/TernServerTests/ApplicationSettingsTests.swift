import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

@Suite("Platform API: application settings", .serialized)
struct ApplicationSettingsTests {
    @Test("The IP allow-list refuses Platform calls from other addresses (SDK users are not affected); loopback may still edit it")
    func ipAllowList() async throws {
        try await withServer(users: ["alice"]) { s in
            let key = try await s.sessionHeaders("alice")
            let bad = try await s.request("PUT", "/v3/applications/settings/ip_whitelist", body: ["ip_whitelist_addresses": ["10.0.0.300"]])
            #expect(bad.json["code"] as? Int == 400111, "\(bad.text)")
            let set = try await s.request(
                "PUT", "/v3/applications/settings/ip_whitelist", body: ["ip_whitelist_addresses": ["10.0.0.0/8", "2001:db8::/32"]])
            #expect(set.json["ip_whitelist_addresses"] as? [String] == ["10.0.0.0/8", "2001:db8::/32"], "\(set.text)")
            let refused = try await s.request("GET", "/v3/users")
            #expect(refused.status == 403 && refused.json["code"] as? Int == 400108, "\(refused.text)")
            let user = try await s.request("GET", "/v3/users/alice", headers: key)
            #expect(user.status == 200, "an SDK user is not a Platform call: \(user.text)")
            let listed = try await s.request("GET", "/v3/applications/settings/ip_whitelist")
            #expect((listed.json["ip_whitelist_addresses"] as? [String])?.count == 2, "loopback may read and edit the list: \(listed.text)")
            _ = try await s.request("PUT", "/v3/applications/settings/ip_whitelist", body: ["ip_whitelist_addresses": ["127.0.0.0/8"]])
            #expect((try await s.request("GET", "/v3/users")).status == 200, "127.0.0.1 is in 127.0.0.0/8")
            let cleared = try await s.request(
                "DELETE", "/v3/applications/settings/ip_whitelist?ip_whitelist_addresses=10.0.0.0/8,2001:db8::/32,127.0.0.0/8")
            #expect(cleared.json["ip_whitelist_addresses"] as? [String] == [], "\(cleared.text)")
        }
    }

    @Test("IP ranges match by prefix, IPv4 and IPv6, IPv4-mapped addresses as IPv4")
    func ipRanges() {
        #expect(IPRange("10.0.0.0/8")!.contains("10.200.3.4"))
        #expect(!IPRange("10.0.0.0/8")!.contains("11.0.0.1"))
        #expect(IPRange("192.168.1.0/25")!.contains("192.168.1.127"))
        #expect(!IPRange("192.168.1.0/25")!.contains("192.168.1.128"))
        #expect(IPRange("203.0.113.7")!.contains("::ffff:203.0.113.7"))
        #expect(IPRange("2001:db8::/32")!.contains("2001:db8:1::5"))
        #expect(!IPRange("2001:db8::/32")!.contains("2001:db9::1"))
        #expect(IPRange("not an ip") == nil && IPRange("10.0.0.0/33") == nil)
        #expect(IPRange.isLoopback("127.0.0.1") && IPRange.isLoopback("::1") && !IPRange.isLoopback("10.0.0.1"))
    }

    @Test("Push provider configurations keep no secret (masked, fingerprinted); templates and auto event messages are stored")
    func pushConfigurationsAndTemplates() async throws {
        try await withServer { s in
            let fcm = try await s.request("POST", "/v3/applications/push/fcm", body: ["api_key": "AAAA-very-secret-1234", "push_sound": "ding"])
            let config = (fcm.json["push_configurations"] as? [[String: Any]])?.first ?? [:]
            let id = config["id"] as? String ?? ""
            #expect(config["api_key"] as? String == "****1234" && !fcm.text.contains("very-secret"), "\(fcm.text)")
            #expect(!(try await s.storedText()).contains("very-secret"))
            let list = try await s.request("GET", "/v3/applications/push/fcm")
            #expect((list.json["push_configurations"] as? [[String: Any]])?.count == 1, "\(list.text)")
            let updated = try await s.request("PUT", "/v3/applications/push/fcm/\(id)", body: ["push_sound": "chime"])
            #expect(updated.json["push_configurations"] as? String == id, "an update answers the provider id: \(updated.text)")
            let viewed = try await s.request("GET", "/v3/applications/push/fcm/\(id)")
            #expect((viewed.json["push_configurations"] as? [[String: Any]])?.first?["push_sound"] as? String == "chime", "\(viewed.text)")
            let missing = try await s.request("POST", "/v3/applications/push/hms", body: [:])
            #expect(missing.json["code"] as? Int == 400105, "\(missing.text)")
            _ = try await s.request("DELETE", "/v3/applications/push/fcm/\(id)")
            #expect((try await s.request("GET", "/v3/applications/push/fcm/\(id)")).json["code"] as? Int == 400201)

            let template = try await s.request("PUT", "/v3/applications/push/message_templates/alternative", body: ["mesg": "Psst: {message}"])
            let t = ((template.json["push_message_templates"] as? [[String: Any]])?.first?["template"] as? [String: Any]) ?? [:]
            #expect(t["mesg"] as? String == "Psst: {message}" && t["file"] as? String == "New file arrived", "\(template.text)")
            #expect((try await s.request("GET", "/v3/applications/push/message_templates/fancy")).json["code"] as? Int == 400201)

            let auto = try await s.request(
                "PUT", "/v3/applications/settings/auto_event_message", body: ["auto_event_message": ["user_join": ["enabled": true]]])
            #expect(
                ((auto.json["auto_event_message"] as? [String: Any])?["user_join"] as? [String: Any])?["enabled"] as? Bool == true, "\(auto.text)")
            let wrong = try await s.request(
                "PUT", "/v3/applications/settings/auto_event_message", body: ["auto_event_message": ["user_dance": ["enabled": true]]])
            #expect(wrong.json["code"] as? Int == 400111, "\(wrong.text)")
        }
    }
}
