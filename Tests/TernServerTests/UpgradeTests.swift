import Foundation
import GRDB
import TernTestSupport
import Testing

@testable import TernServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Upgrades keep everything: a data directory written by an earlier release (a fixture made by
/// `scripts/make-upgrade-fixture.sh` with that release's `ternd`) opens on this build, migrates,
/// and serves all of it; and landed migrations are never edited or reordered.
@Suite("Upgrades from earlier releases", .serialized)
struct UpgradeTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path

    /// A fresh copy of a fixture directory (the fixture itself stays as it was).
    func copy(_ name: String) throws -> String {
        let dir = makeTempDirectory() + "/data"
        try FileManager.default.copyItem(atPath: Self.fixtures + "/" + name, toPath: dir)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: dir)
        return dir
    }

    @Test("A data directory of release 66889f0 (SQLite) opens, migrates and serves every message, file, receipt, ban, mute, setting and block")
    func sqliteDataOfTheReleaseBefore() async throws {
        guard ProcessInfo.processInfo.environment["TERN_TEST_DATABASE"] != "postgres" else { return }
        let dir = try copy("upgrade-sqlite-66889f0")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try await TerndChild.start(dataDirectory: dir, apiToken: "upgrade-fixture-token", followingTestDatabase: true)
        defer { server.stopBlocking() }
        try await checkEverythingServed(server, fixture: dir + "/fixture.json")
        // Every migration of this build ran on it.
        let applied = try await DatabaseQueue(
            path: dir + "/ternd.sqlite",
            configuration: {
                var c = Configuration()
                c.readonly = true
                return c
            }()
        )
        .read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") }
        #expect(Set(applied) == Set(SQLiteStore.migrator.migrations))
    }

    @Test("A PostgreSQL database of release 66889f0 (its pg_dump) migrates and serves every message, file, receipt, ban, mute, setting and block")
    func postgresDataOfTheReleaseBefore() async throws {
        let cluster: PostgresTestCluster
        do { cluster = try await PostgresTestCluster.shared() } catch {
            print("note: PostgreSQL is not installed: the PostgreSQL upgrade test was skipped")
            return
        }
        let url = try await PostgresTestCluster.offPool { try cluster.createDatabase() }
        let name = String(url.split(separator: "/").last ?? "")
        let dump = try String(contentsOfFile: Self.fixtures + "/upgrade-postgres-66889f0/ternd.sql", encoding: .utf8)
        let loaded = try await PostgresTestCluster.offPool { try cluster.psql(dump, database: name) }
        #expect(loaded.status == 0, "\(loaded.output)")
        let dir = makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try await TerndChild.start(
            dataDirectory: dir, apiToken: "upgrade-fixture-token", extra: ["--database", url], followingTestDatabase: true)
        defer { server.stopBlocking() }
        try await checkEverythingServed(server, fixture: Self.fixtures + "/upgrade-postgres-66889f0/fixture.json")
        let applied = try await PostgresTestCluster.offPool { try cluster.psql("SELECT name FROM tern_migrations ORDER BY name", database: name) }
        #expect(Set(applied.output.split(separator: "\n").map(String.init)) == Set(PostgresSchema.migrations.map(\.name)))
    }

    /// What the fixture script stored, as the upgraded server answers it.
    func checkEverythingServed(_ server: TerndChild, fixture path: String) async throws {
        let fixture = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let base = "http://127.0.0.1:\(server.port)"
        let http = HTTPHelper(base: base, token: server.apiToken)

        let alice = try await http.call("GET", "/v3/users/alice", nil)
        #expect(alice["nickname"] as? String == "Alice")
        #expect((alice["metadata"] as? [String: Any])?["team"] as? String == "blue")
        let channel = try await http.call(
            "GET", "/v3/group_channels/upgrade-crew?show_member=true&show_read_receipt=true&show_delivery_receipt=true", nil)
        #expect(channel["name"] as? String == "crew" && channel["custom_type"] as? String == "ops" && channel["data"] as? String == "kept")
        #expect(channel["member_count"] as? Int == 3, "dave was banned out")
        #expect(((channel["read_receipt"] as? [String: Any])?["bob"] as? Int64 ?? 0) > 0, "bob's read receipt")
        #expect(((channel["delivery_receipt"] as? [String: Any])?["carol"] as? Int64 ?? 0) > 0, "carol's delivery receipt")

        let ts = Int64(Date().timeIntervalSince1970 * 1000) + 60_000
        let list = try await http.call(
            "GET",
            "/v3/group_channels/upgrade-crew/messages?message_ts=\(ts)&prev_limit=50&next_limit=0&include_reply_type=all&include_reactions=true", nil)
        let messages = list["messages"] as? [[String: Any]] ?? []
        #expect(messages.compactMap { $0["type"] as? String == "MESG" ? $0["message"] as? String : nil } == ["one", "two", "three", "a reply"])
        let ids = fixture["messages"] as? [Int] ?? []
        let reply = messages.first { $0["message"] as? String == "a reply" }
        #expect(reply?["parent_message_id"] as? Int == ids.first, "the reply keeps its parent")
        let two = messages.first { $0["message"] as? String == "two" }
        let reactions = two?["reactions"] as? [[String: Any]] ?? []
        #expect(reactions.contains { $0["key"] as? String == "thumbsup" && ($0["user_ids"] as? [String])?.contains("bob") == true })
        let fileInfo = try #require(fixture["file"] as? [String: Any])
        let file = messages.first { $0["message_id"] as? Int == fileInfo["id"] as? Int }
        #expect(file?["type"] as? String == "FILE")
        #expect(((file?["file"] as? [String: Any])?["name"] as? String) == "plans.txt")

        let bans = try await http.call("GET", "/v3/group_channels/upgrade-crew/ban", nil)
        #expect((bans["banned_list"] as? [[String: Any]] ?? []).contains { ($0["user"] as? [String: Any])?["user_id"] as? String == "dave" })
        let mutes = try await http.call("GET", "/v3/group_channels/upgrade-crew/mute", nil)
        #expect((mutes["muted_list"] as? [[String: Any]] ?? []).contains { $0["user_id"] as? String == "carol" })
        let settings = try await http.call("GET", "/v3/applications/settings_global", nil)
        #expect("\(settings)".contains("darn"), "the profanity filter: \(settings)")
        let blocks = try await http.call("GET", "/v3/users/alice/block", nil)
        #expect((blocks["users"] as? [[String: Any]] ?? []).contains { $0["user_id"] as? String == "bob" })

        // The uploaded file, sealed with the earlier release's key, downloads again.
        let socket = TestSocket(url: "ws://127.0.0.1:\(server.port)", query: "ai=LOCAL&user_id=alice")
        let key = (await socket.next("LOGI"))?["key"] as? String ?? ""
        let oldURL = try #require(fileInfo["url"] as? String)
        let path = try #require(URLComponents(string: oldURL)?.path)
        var req = URLRequest(url: URL(string: base + path)!)
        req.setValue(key, forHTTPHeaderField: "Session-Key")
        let (data, response) = try await URLSession.shared.data(for: req)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "plans for the week\n")
        await socket.close()
    }

    /// `Fixtures/migrations.lock`: every migration that has landed, in order (PostgreSQL's with the
    /// SHA-256 of its SQL). This build's lists must begin with it, unchanged: a landed migration is
    /// never edited, removed or reordered, only followed by new ones (append them to the lock).
    @Test("Landed migrations are never edited, removed or reordered")
    func migrationsAreAppendOnly() throws {
        if ProcessInfo.processInfo.environment["TERN_WRITE_MIGRATION_LOCK"] == "1" {
            // After adding a migration: `TERN_WRITE_MIGRATION_LOCK=1 swift test --filter migrationsAreAppendOnly`.
            var text = "# Landed migrations, in order (written by UpgradeTests; append only).\n"
            text += SQLiteStore.migrator.migrations.map { "sqlite \($0)\n" }.joined()
            text += PostgresSchema.migrations.map { "postgres \($0.name) \(Self.sha256($0.sql))\n" }.joined()
            try text.write(toFile: Self.fixtures + "/migrations.lock", atomically: true, encoding: .utf8)
            return
        }
        let lock = try String(contentsOfFile: Self.fixtures + "/migrations.lock", encoding: .utf8)
        var sqlite: [String] = []
        var postgres: [(String, String)] = []
        for line in lock.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ").map(String.init)
            if parts.first == "sqlite", parts.count == 2 { sqlite.append(parts[1]) }
            if parts.first == "postgres", parts.count == 3 { postgres.append((parts[1], parts[2])) }
        }
        #expect(!sqlite.isEmpty && !postgres.isEmpty)
        let current = SQLiteStore.migrator.migrations
        #expect(Array(current.prefix(sqlite.count)) == sqlite, "SQLite migrations: \(current)")
        let pg = PostgresSchema.migrations.map { ($0.name, Self.sha256($0.sql)) }
        #expect(pg.count >= postgres.count)
        for (i, (name, hash)) in postgres.enumerated() where i < pg.count {
            #expect(pg[i].0 == name, "PostgreSQL migration \(i) is \(pg[i].0), the lock says \(name)")
            #expect(pg[i].1 == hash, "PostgreSQL migration \(name) was edited after it landed")
        }
        // The fixture of the release before was made with a prefix of the lock.
        let fixture = try DatabaseQueue(
            path: Self.fixtures + "/upgrade-sqlite-66889f0/ternd.sqlite",
            configuration: {
                var c = Configuration()
                c.readonly = true
                return c
            }()
        ).read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid") }
        #expect(Array(sqlite.prefix(fixture.count)) == fixture)
    }

    static func sha256(_ s: String) -> String { Credentials.hash(s) }
}
