import Foundation
import Synchronization
import TernServer
import TernTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real `ternd` (in-process) on 127.0.0.1, port 0, with a fresh data directory.
typealias TestServer = InProcessServer

extension TestServer {
    /// Starts a server; `configure` may change the configuration first.
    static func start(dataDirectory: String? = nil, _ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> TestServer {
        let dir = dataDirectory ?? makeTempDirectory()
        let token = "test-api-token-\(UUID().uuidString)"
        var config = ServerConfiguration(port: 0, dataDirectory: dir, apiToken: token, maxMessagesPerSecond: 0)
        configure(&config)
        return try await InProcessServer.start(config)
    }

    // MARK: REST

    struct HTTPResult {
        var status: Int
        var json: [String: Any]
        var text: String
    }

    /// Sends a request with the Platform API token (unless `headers` says otherwise).
    func request(
        _ method: String, _ path: String, body: Any? = nil, rawBody: String? = nil, headers: [String: String]? = nil
    ) async throws -> HTTPResult {
        var req = URLRequest(url: URL(string: baseURL + path)!)
        req.httpMethod = method
        for (k, v) in headers ?? ["Api-Token": apiToken] { req.setValue(v, forHTTPHeaderField: k) }
        if let rawBody {
            req.httpBody = Data(rawBody.utf8)
        } else if let body {
            req.httpBody = try JSONSerialization.data(withJSONObject: body)
        }
        if req.httpBody != nil { req.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        let (data, response) = try await URLSession.shared.data(for: req)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return HTTPResult(status: status, json: json, text: String(decoding: data, as: UTF8.self))
    }

    /// Creates users through the Platform API.
    func createUsers(_ ids: [String]) async throws {
        for id in ids {
            let r = try await request("POST", "/v3/users", body: ["user_id": id, "nickname": id.capitalized, "profile_url": ""])
            #expect(r.status == 200, "create user \(id): \(r.text)")
        }
    }

    /// Creates `users` and a group channel of them all through the Platform API (each call
    /// expected to answer 200): the channel's URL.
    func newChannel(of users: [String]) async throws -> String {
        try await createUsers(users)
        return try await createChannel(users)
    }

    /// Creates a group channel through the Platform API and returns its URL.
    func createChannel(_ userIds: [String], distinct: Bool = false, name: String = "") async throws -> String {
        let r = try await request("POST", "/v3/group_channels", body: ["user_ids": userIds, "is_distinct": distinct, "name": name])
        #expect(r.status == 200, "create channel: \(r.text)")
        return r.json["channel_url"] as? String ?? ""
    }
}

/// Runs `body` with a started server and always stops it.
func withServer<T>(
    _ configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: (TestServer) async throws -> T
) async throws -> T {
    try await running(try await TestServer.start(configure), body)
}

/// Runs `body` with a started server on which `users` were created first (``TestServer/createUsers(_:)``),
/// and always stops it; `configure` may change the configuration.
func withServer<T>(
    users: [String], _ configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: (TestServer) async throws -> T
) async throws -> T {
    try await withServer(configure) { s in
        try await s.createUsers(users)
        return try await body(s)
    }
}

/// Runs `body` with a started server on `clock` (one that stands still unless the test moves it,
/// say) and always stops it; `configure` may change the rest of the configuration.
func withServer<T>(
    clock: some ServerClock, _ configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: (TestServer) async throws -> T
) async throws -> T {
    try await withServer(
        {
            $0.clock = clock
            configure(&$0)
        }, body)
}

/// Runs `body` with a started server that takes 5 messages a second from a user in a channel,
/// on a clock that stands still (every send falls in the same second however slow the machine
/// is), without link previews; always stops it.
func withFloodLimitedServer<T>(_ body: (TestServer) async throws -> T) async throws -> T {
    try await withServer(
        clock: StillClock(),
        {
            $0.maxMessagesPerSecond = 5
            $0.linkPreviews = false
        }, body)
}

extension TestServer {
    /// A Session-Key header of `user`, from a WebSocket login (the socket closed again).
    func sessionHeaders(_ user: String) async throws -> [String: String] {
        let (sock, login) = try await login(user)
        await sock.close()
        return ["Session-Key": login["key"] as? String ?? ""]
    }
}

/// The two stores the store suite runs on.
enum StoreKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite, postgres
    var description: String { rawValue }

    /// Where a new empty store lives: a file path, or a new database's URL.
    func newLocation() async throws -> String {
        switch self {
        case .sqlite: return makeTempDirectory() + "/t.sqlite"
        case .postgres:
            let cluster = try await PostgresTestCluster.shared()
            return try await PostgresTestCluster.offPool { try cluster.createDatabase() }
        }
    }

    /// Opens a store (a new empty one without `location`).
    func makeStore(_ location: String? = nil) async throws -> any Store {
        switch self {
        case .sqlite:
            let path: String
            if let location { path = location } else { path = try await newLocation() }
            return try SQLiteStore(path: path)
        case .postgres:
            let url: String
            if let location { url = location } else { url = try await newLocation() }
            return try await PostgresStore(url: url)
        }
    }
}

extension TestServer {
    /// The raw contents of this server's store: the SQLite file's bytes, or a `pg_dump` of its
    /// PostgreSQL database when the suite runs on PostgreSQL (`TERN_TEST_DATABASE=postgres`).
    func storedText() async throws -> String {
        if ProcessInfo.processInfo.environment["TERN_TEST_DATABASE"] == "postgres" {
            let cluster = try await PostgresTestCluster.shared()
            let dir = dataDirectory
            return try await PostgresTestCluster.offPool { try cluster.dump(database: try cluster.database(for: dir)) }
        }
        return try String(contentsOfFile: dataDirectory + "/ternd.sqlite", encoding: .isoLatin1)
    }
}
