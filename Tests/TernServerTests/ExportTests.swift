import Foundation
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

@Suite("Platform API: data exports and GDPR requests")
struct ExportTests {
    @Test("Exports write real files (JSON and CSV) under the data directory, downloadable with the Api-Token; GDPR access and delete")
    func exportsAndGDPR() async throws {
        try await withServer(
            users: ["alice", "bob", "carol"],
            {
                $0.linkPreviews = false
                $0.gdprDelaySeconds = 0
            }
        ) { s in
            let url = try await s.createChannel(["alice", "bob"])
            let dm = try await s.createChannel(["carol", "bob"])
            for (user, text) in [("alice", "hello, \"bob\""), ("bob", "hi alice"), ("carol", "psst")] {
                _ = try await s.request(
                    "POST", "/v3/group_channels/\(user == "carol" ? dm : url)/messages",
                    body: ["message_type": "MESG", "user_id": user, "message": text])
            }
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let json = try await s.request(
                "POST", "/v3/export/messages", body: ["start_ts": now - 60_000, "end_ts": now + 60_000, "channel_urls": [url]])
            #expect(json.json["status"] as? String == "done" && json.json["rows"] as? Int == 2, "\(json.text)")
            let file = (json.json["file"] as? [String: Any])?["url"] as? String ?? ""
            let path = String(file.drop(while: { $0 != "/" }).dropFirst(2).drop(while: { $0 != "/" }))
            let fetched = try await s.request("GET", path)
            #expect(fetched.status == 200 && fetched.text.contains("hello, \\\"bob\\\""), "\(path): \(fetched.text)")
            let (sock, login) = try await s.login("alice")
            await sock.close()
            let asUser = try await s.request("GET", path, headers: ["Session-Key": login["key"] as? String ?? ""])
            #expect(asUser.status == 403, "only the Platform API downloads exports")
            if ProcessInfo.processInfo.environment["TERN_TEST_DATABASE"] != "postgres" {
                let exportsDir = s.dataDirectory + "/exports"
                let mode = ((try? FileManager.default.attributesOfItem(atPath: exportsDir))?[.posixPermissions] as? NSNumber)?.intValue
                #expect(mode == 0o700, "exports/ is the owner's only")
            } else {
                // On PostgreSQL the export is in the database (every node serves it), sealed.
                #expect(!FileManager.default.fileExists(atPath: s.dataDirectory + "/exports"))
                #expect(try await s.app.service.files?.storedBytes().isEmpty == false)
            }

            let csv = try await s.request(
                "POST", "/v3/export/users", body: ["start_ts": 0, "end_ts": now + 60_000, "format": "csv", "csv_delimiter": ";"])
            let csvURL = (csv.json["file"] as? [String: Any])?["url"] as? String ?? ""
            let csvText = try await s.request("GET", String(csvURL.drop(while: { $0 != "/" }).dropFirst(2).drop(while: { $0 != "/" })))
            #expect(csvText.text.hasPrefix("created_at;is_active;last_seen_at;metadata;nickname;profile_url;user_id\n"), "\(csvText.text)")
            #expect(csvText.text.split(separator: "\n").count == 4)
            let listed = try await s.request("GET", "/v3/export/users")
            #expect((listed.json["exported_data"] as? [[String: Any]])?.count == 1, "\(listed.text)")
            let badRange = try await s.request("POST", "/v3/export/messages", body: ["start_ts": 10, "end_ts": 5])
            #expect(badRange.json["code"] as? Int == 400111)
            let badType = try await s.request("POST", "/v3/export/secrets", body: ["start_ts": 0, "end_ts": 5])
            #expect(badType.json["code"] as? Int == 400111)

            // GDPR: access writes the user's data; delete removes the user and, as asked, their 1-on-1 channels.
            let access = try await s.request("POST", "/v3/privacy/gdpr", body: ["action": "access", "user_id": "carol"])
            let accessURL = (access.json["files"] as? [String: Any])?["url"] as? String ?? ""
            let data = try await s.request("GET", String(accessURL.drop(while: { $0 != "/" }).dropFirst(2).drop(while: { $0 != "/" })))
            #expect(data.text.contains("psst") && data.text.contains("\"user_id\":\"carol\""), "\(data.text)")
            let delete = try await s.request(
                "POST", "/v3/privacy/gdpr", body: ["action": "delete", "user_id": "carol", "channel_delete_option": "1_on_1_only"])
            #expect(delete.json["status"] as? String == "done", "\(delete.text)")
            #expect((try await s.request("GET", "/v3/users/carol")).json["code"] as? Int == 400201)
            #expect((try await s.request("GET", "/v3/group_channels/\(dm)")).json["code"] as? Int == 400201, "the 1-on-1 channel went with her")
            #expect((try await s.request("GET", "/v3/group_channels/\(url)")).status == 200, "other channels stay")
            let requests = try await s.request("GET", "/v3/privacy/gdpr")
            #expect((requests.json["requests"] as? [[String: Any]])?.count == 2, "\(requests.text)")
            let id = delete.json["request_id"] as? String ?? ""
            let cancel = try await s.request("DELETE", "/v3/privacy/gdpr/\(id)")
            #expect(cancel.json["code"] as? Int == 400111, "a request carried out cannot be cancelled: \(cancel.text)")
        }
    }

    @Test("A GDPR request is scheduled, as on Sendbird: cancelled before its time it is never carried out; one left alone is, after a restart too")
    func gdprScheduled() async throws {
        let dir = makeTempDirectory()
        let s = try await TestServer.start(dataDirectory: dir) { $0.gdprDelaySeconds = 3600 }
        try await s.createUsers(["dave", "erin"])
        let first = try await s.request("POST", "/v3/privacy/gdpr", body: ["action": "delete", "user_id": "dave"])
        #expect(first.json["status"] as? String == "scheduled", "\(first.text)")
        #expect(first.json["file_url"] == nil && first.json["node"] == nil, "only what Sendbird answers: \(first.text)")
        let id = first.json["request_id"] as? String ?? ""
        let cancel = try await s.request("DELETE", "/v3/privacy/gdpr/\(id)")
        #expect(cancel.status == 200, "a scheduled request may be cancelled: \(cancel.text)")
        #expect((try await s.request("GET", "/v3/privacy/gdpr/\(id)")).json["code"] as? Int == 400201)
        #expect((try await s.request("GET", "/v3/users/dave")).status == 200, "dave stays")
        // Erin's request waits for its time; the server restarts meanwhile and carries it out when due.
        let second = try await s.request("POST", "/v3/privacy/gdpr", body: ["action": "delete", "user_id": "erin"])
        let id2 = second.json["request_id"] as? String ?? ""
        await s.stop()
        let again = try await TestServer.start(dataDirectory: dir) { $0.gdprDelaySeconds = 3600 }
        do {
            #expect((try await again.request("GET", "/v3/privacy/gdpr/\(id2)")).json["status"] as? String == "scheduled")
            // Due now: moved forward by hand, then picked up by the next start.
            var record = try await again.app.service.settings(scope: "gdpr", keyPrefix: id2).first?.json ?? ""
            record = record.replacingOccurrences(of: "\"scheduled_at\":", with: "\"scheduled_at\":0,\"was\":")
            try await again.app.service.setSetting(scope: "gdpr", key: id2, json: record)
            await again.stop()
            let third = try await TestServer.start(dataDirectory: dir) { $0.gdprDelaySeconds = 3600 }
            var status = ""
            for _ in 0..<200 {
                status = (try await third.request("GET", "/v3/privacy/gdpr/\(id2)")).json["status"] as? String ?? ""
                if status == "done" { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(status == "done", "carried out after the restart")
            #expect((try await third.request("GET", "/v3/users/erin")).json["code"] as? Int == 400201, "erin is gone")
            await third.stop()
        } catch {
            await again.stop()
            throw error
        }
    }
}
