import Foundation
import Synchronization
import TernKit
import TernProtocol
import TernServer
import TernTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real `ternd` in this process on 127.0.0.1 (port 0 unless given) with its own data directory;
/// it can be stopped and started again on the same port and data.
typealias LocalServer = InProcessServer

extension LocalServer {
    var address: ServerAddress { ServerAddress(apiBase: "http://127.0.0.1:\(port)", webSocketBase: "ws://127.0.0.1:\(port)") }

    static func start(
        port: Int = 0, dataDirectory: String? = nil, apiToken: String? = nil, _ configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> LocalServer {
        let dir = dataDirectory ?? makeTempDirectory()
        let token = apiToken ?? "kit-test-\(UUID().uuidString)"
        var config = ServerConfiguration(port: port, dataDirectory: dir, apiToken: token, maxMessagesPerSecond: 0)
        // A stop says BUSY: clients come back after this (short in tests).
        config.busyRetryAfter = 0.3
        configure(&config)
        return try await InProcessServer.start(config, label: "kit-test-ternd")
    }

    /// The same server again: same port, same data.
    func restart() async throws -> LocalServer {
        await stop()
        return try await startAgain()
    }

    /// Starts this (stopped) server again on its port and data, retrying while the port is still taken.
    func startAgain(_ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> LocalServer {
        var lastError: (any Error)?
        for _ in 0..<50 {
            do {
                return try await LocalServer.start(port: port, dataDirectory: dataDirectory, apiToken: apiToken, configure)
            } catch {
                lastError = error
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        throw lastError ?? TestFailure("restart failed")
    }

    /// A Platform API call.
    @discardableResult
    func platform(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
        var req = URLRequest(url: URL(string: "http://127.0.0.1:\(port)" + path)!)
        req.httpMethod = method
        req.setValue(apiToken, forHTTPHeaderField: "Api-Token")
        req.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let body { req.httpBody = try JSONSerialization.data(withJSONObject: body) }
        let (data, _) = try await URLSession.shared.data(for: req)
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }

    /// A client for `user` with fast timers for tests.
    func client(_ user: String, token: String? = nil, clock: any EngineClock = SystemEngineClock()) -> ChatClient {
        var c = ClientConfiguration(server: address, userId: user, token: token.map { .token($0) } ?? .none)
        c.reconnectPolicy = ReconnectPolicy(interval: 0.2, maxInterval: 1, mul: 2, retryCnt: -1)
        c.tickInterval = 20
        return ChatClient(configuration: c, clock: clock)
    }

    /// A client for `user` with fast timers for tests, connected.
    func connectedClient(_ user: String) async throws -> ChatClient {
        let c = client(user)
        try await c.connect()
        return c
    }

    /// A client for `user` with its event log (listening before it connects), connected.
    func connected(_ user: String, clock: any EngineClock = SystemEngineClock()) async throws -> (ChatClient, EventLog) {
        let c = client(user, clock: clock)
        let log = EventLog(c)
        try await c.connect()
        return (c, log)
    }
}

/// Runs `body` with a started server and always stops it.
func withLocalServer<T>(_ configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: (LocalServer) async throws -> T) async throws -> T {
    try await running(try await LocalServer.start(configure), body)
}

/// Runs `body` with a started server and a fault proxy in front of it (`port` is the proxy's),
/// and always stops both.
func withLocalServerBehindProxy<T>(_ body: (LocalServer, FaultProxy, Int) async throws -> T) async throws -> T {
    try await withLocalServer { server in
        let proxy = FaultProxy(targetPort: server.port)
        let port = try await proxy.start()
        do {
            let result = try await body(server, proxy, port)
            await proxy.stop()
            return result
        } catch {
            await proxy.stop()
            throw error
        }
    }
}

/// Collects a client's events so a test can wait for one that matches.
final class EventLog: Sendable {
    private let task: Task<Void, Never>

    init(_ client: ChatClient) {
        let stream = client.events()
        let box = Box()
        task = Task {
            for await e in stream { box.append(e) }
        }
        self.box = box
    }

    final class Box: Sendable {
        let events = Mutex<[ClientEvent]>([])
        func append(_ e: ClientEvent) { events.withLock { $0.append(e) } }
    }
    let box: Box

    var all: [ClientEvent] { box.events.withLock { $0 } }

    /// How many events so far (pass it as `after` to wait only for later ones).
    var mark: Int { box.events.withLock { $0.count } }

    /// Waits (up to `timeout` s) for an event `match` accepts, among those after the first `after`; returns what it returned.
    func wait<T>(_ what: String, after: Int = 0, timeout: Double = 20, _ match: (ClientEvent) -> T?) async throws -> T {
        let deadline = Date().addingTimeInterval(timeout)
        var seen = after
        while Date() < deadline {
            let events = all
            while seen < events.count {
                if let r = match(events[seen]) { return r }
                seen += 1
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestFailure("timed out waiting for \(what); saw \(all)")
    }

    /// Waits for the outcome of the send `requestId`: its message, sent or failed.
    func outcome(of requestId: String, _ what: String) async throws -> Message {
        try await wait(what) { e -> Message? in
            if case .messageSent(let m) = e, m.requestId == requestId { return m }
            if case .messageFailed(let m) = e, m.requestId == requestId { return m }
            return nil
        }
    }

    deinit { task.cancel() }
}

/// Polls until `condition` holds (events travel over a real socket), or fails after `timeout` s.
func eventually(_ what: String, timeout: Double = 20, _ condition: () async throws -> Bool) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw TestFailure("timed out waiting for \(what)")
}
