import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

@Suite("Platform API: application tokens, statistics, defaults", .serialized)
struct ApplicationAPITests {
    @Test("A secondary API token works at once and stops at once when revoked; the master token cannot be revoked")
    func secondaryTokens() async throws {
        try await withServer { s in
            let issued = try await s.request("POST", "/v3/applications/api_tokens", body: [:])
            let token = issued.json["token"] as? String ?? ""
            #expect(issued.status == 200 && token.count >= 20, "\(issued.text)")
            let asSecondary = try await s.request(
                "POST", "/v3/users", body: ["user_id": "made-by-2nd", "nickname": "n", "profile_url": ""], headers: ["Api-Token": token])
            #expect(asSecondary.status == 200, "\(asSecondary.text)")
            let list = try await s.request("GET", "/v3/applications/api_tokens")
            // Only the hash is stored: the list shows the token masked, with its last four characters.
            #expect(
                (list.json["api_tokens"] as? [[String: Any]])?.compactMap { $0["token"] as? String } == ["****" + token.suffix(4)], "\(list.text)")
            let master = try await s.request("DELETE", "/v3/applications/api_tokens/\(s.apiToken)")
            #expect(master.status == 400, "\(master.text)")
            let revoke = try await s.request("DELETE", "/v3/applications/api_tokens/\(token)")
            #expect(revoke.status == 200, "\(revoke.text)")
            let after = try await s.request("GET", "/v3/users", headers: ["Api-Token": token])
            #expect(after.status == 403 && after.json["code"] as? Int == 400401, "\(after.text)")
        }
    }

    @Test("ccu, dau, mau and peak connections come from the server's own connections and logins")
    func statistics() async throws {
        try await withServer(users: ["alice", "bob", "carol"]) { s in
            let (a, _) = try await s.login("alice")
            let (b, _) = try await s.login("bob")
            let ccu = try await s.request("GET", "/v3/applications/ccu")
            #expect(ccu.json["ccu"] as? Int == 2, "\(ccu.text)")
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.timeZone = TimeZone(identifier: "UTC")
            f.dateFormat = "yyyy-MM-dd"
            let today = f.string(from: Date())
            let dau = try await s.request("GET", "/v3/applications/dau?date=\(today)")
            #expect(dau.json["dau"] as? Int == 2, "\(dau.text)")
            let mau = try await s.request("GET", "/v3/applications/mau?date=\(today)")
            #expect(mau.json["mau"] as? Int == 2, "\(mau.text)")
            let longAgo = try await s.request("GET", "/v3/applications/dau?date=2001-01-01")
            #expect(longAgo.json["dau"] as? Int == 0, "\(longAgo.text)")
            let bad = try await s.request("GET", "/v3/applications/dau?date=yesterday")
            #expect(bad.json["code"] as? Int == 400111, "\(bad.text)")
            await a.close()
            await b.close()
            let peaks = try await s.request("GET", "/v3/applications/peak_connections?time_dimension=daily")
            let list = peaks.json["peak_connections"] as? [[String: Any]] ?? []
            #expect(list.last?["date"] as? String == today && list.last?["peak_connections"] as? Int == 2, "\(peaks.text)")
            let monthly = try await s.request("GET", "/v3/applications/peak_connections?time_dimension=monthly")
            #expect((monthly.json["peak_connections"] as? [[String: Any]])?.last?["peak_connections"] as? Int == 2, "\(monthly.text)")
        }
    }

    @Test("The default invitation preference applies to users created after it; existing users keep theirs")
    func defaultInvitationPreference() async throws {
        try await withServer(users: ["before"]) { s in
            let set = try await s.request("PUT", "/v3/applications/default_channel_invitation_preference", body: ["auto_accept": false])
            #expect(set.json["auto_accept"] as? Bool == false, "\(set.text)")
            #expect((try await s.request("GET", "/v3/applications/default_channel_invitation_preference")).json["auto_accept"] as? Bool == false)
            try await s.createUsers(["after"])
            let (sock, _) = try await s.login("connected-later")
            await sock.close()
            for (user, expected) in [("before", true), ("after", false), ("connected-later", false)] {
                let r = try await s.request("GET", "/v3/users/\(user)/channel_invitation_preference")
                #expect(r.json["auto_accept"] as? Bool == expected, "\(user): \(r.text)")
            }
        }
    }
}
