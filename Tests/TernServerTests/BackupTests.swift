import Foundation
import TernTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `ternd backup` and `ternd restore` as an operator runs them, against the real `ternd` binary.
@Suite("ternd backup and restore", .serialized)
struct BackupTests {
    func upload(base: String, key: String, channel: String, _ text: String) async throws -> String {
        let boundary = "b0undary-\(UUID().uuidString)"
        var body = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"channel_url\"\r\n\r\n\(channel)\r\n".utf8)
        body.append(
            Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"notes.txt\"\r\nContent-Type: text/plain\r\n\r\n".utf8))
        body.append(Data(text.utf8))
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        var req = URLRequest(url: URL(string: base + "/v3/storage/file")!)
        req.httpMethod = "POST"
        req.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
        req.setValue(key, forHTTPHeaderField: "Session-Key")
        req.httpBody = body
        let (data, _) = try await URLSession.shared.data(for: req)
        return ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?["url"] as? String ?? ""
    }

    func download(_ url: String, key: String) async throws -> (Int, String) {
        var req = URLRequest(url: URL(string: url)!)
        req.setValue(key, forHTTPHeaderField: "Session-Key")
        let (data, response) = try await URLSession.shared.data(for: req)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test("A backup taken while messages are sent restores every message acknowledged before it began, and the files")
    func backupUnderLoadRestores() async throws {
        guard ProcessInfo.processInfo.environment["TERN_TEST_DATABASE"] != "postgres" else {
            print("note: the SQLite backup test does not run in the PostgreSQL pass (there pg_dump holds the messages)")
            return
        }
        guard let ternd = TerndChild.binary else { throw TestFailure("no ternd") }
        let dir = makeTempDirectory()
        let backup = makeTempDirectory() + "/backup"
        let restored = makeTempDirectory() + "/data"
        defer { for d in [dir, backup, restored] { try? FileManager.default.removeItem(atPath: d) } }
        let server = try await TerndChild.start(dataDirectory: dir, followingTestDatabase: true)
        defer { server.stopBlocking() }  // stopped by its PID whatever fails (stopping twice is harmless)
        let base = "http://127.0.0.1:\(server.port)"
        let http = HTTPHelper(base: base, token: server.apiToken)
        for u in ["p1", "p2"] { _ = try await http.call("POST", "/v3/users", ["user_id": u, "nickname": u, "profile_url": ""]) }
        let channel = try await http.call("POST", "/v3/group_channels", ["user_ids": ["p1", "p2"]])["channel_url"] as? String ?? ""
        let socket = TestSocket(url: "ws://127.0.0.1:\(server.port)", query: "ai=LOCAL&user_id=p1")
        let key = (await socket.next("LOGI"))?["key"] as? String ?? ""
        let fileURL = try await upload(base: base, key: key, channel: channel, "plans for the week")
        #expect(fileURL.hasPrefix(base), "uploaded")

        // Sends go on, one acknowledged after another, while the backup runs beside them.
        var acked: [Int] = []
        var ackedBeforeBackup: [Int] = []
        var backupRun: Task<(Int32, String), any Error>?
        for i in 0..<120 {
            socket.send("MESG", ["channel_url": channel, "message": "m\(i)", "req_id": "backup-\(i)"])
            guard let ack = await socket.next("MESG", timeout: .seconds(10)), let id = ack["msg_id"] as? Int else {
                Issue.record("no acknowledgement for m\(i)")
                break
            }
            acked.append(id)
            if i == 30 {
                ackedBeforeBackup = acked
                backupRun = Task { try await runTool([ternd, "backup", "--data-dir", dir, "--to", backup], env: [:]) }
            }
        }
        let (status, output) = try await #require(backupRun).value
        #expect(status == 0, "\(output)")
        #expect(output.contains("backed up to"), "\(output)")
        await socket.close()

        // Not over a running server's directory, and not over data without --force.
        let live = try await runTool([ternd, "restore", "--from", backup, "--data-dir", dir], env: [:])
        #expect(live.0 != 0 && live.1.contains("in use by another ternd"), "\(live.1)")
        await server.stop()
        let full = try await runTool([ternd, "restore", "--from", backup, "--data-dir", dir], env: [:])
        #expect(full.0 != 0 && full.1.contains("already holds data") && full.1.contains("--force"), "\(full.1)")

        let done = try await runTool([ternd, "restore", "--from", backup, "--data-dir", restored], env: [:])
        #expect(done.0 == 0, "\(done.1)")
        let mode = (try FileManager.default.attributesOfItem(atPath: restored)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o700)
        let again = try await TerndChild.start(dataDirectory: restored, apiToken: server.apiToken, followingTestDatabase: true)
        defer { again.stopBlocking() }
        let ts = Int(Date().timeIntervalSince1970 * 1000) + 60_000
        let r = try await HTTPHelper(base: "http://127.0.0.1:\(again.port)", token: server.apiToken)
            .call("GET", "/v3/group_channels/\(channel)/messages?message_ts=\(ts)&prev_limit=200&next_limit=0", nil)
        let stored = Set((r["messages"] as? [[String: Any]] ?? []).compactMap { $0["message_id"] as? Int })
        #expect(ackedBeforeBackup.count == 31)
        #expect(Set(ackedBeforeBackup).isSubset(of: stored), "every message acknowledged before the backup began is restored")
        #expect(stored.isSubset(of: Set(acked)), "nothing that was never acknowledged")
        // The uploaded file comes back, decrypted with the restored key.
        let socket2 = TestSocket(url: "ws://127.0.0.1:\(again.port)", query: "ai=LOCAL&user_id=p1")
        let key2 = (await socket2.next("LOGI"))?["key"] as? String ?? ""
        let path = fileURL.dropFirst(base.count)
        let (code, text) = try await download("http://127.0.0.1:\(again.port)" + path, key: key2)
        #expect(code == 200 && text == "plans for the week", "\(code) \(text)")
        await socket2.close()
    }
}
