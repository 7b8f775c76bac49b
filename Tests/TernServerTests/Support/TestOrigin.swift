import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A counter the test's web handlers share.
final class Counter: Sendable {
    let state = Mutex(0)
    func add(_ n: Int) { state.withLock { $0 += n } }
    var value: Int { state.withLock { $0 } }
}

/// Polls `condition` every 50 ms until it holds or `seconds` pass.
func eventually(seconds: Double, _ condition: () -> Bool) async -> Bool {
    let end = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < end {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return condition()
}

/// A web server for outbound-fetch tests, on `host` (loopback by default), port 0.
final class TestOrigin: Sendable {
    let port: Int
    let task: Task<Void, any Error>

    init(port: Int, task: Task<Void, any Error>) {
        self.port = port
        self.task = task
    }

    static func start(host: String = "127.0.0.1", _ routes: (Router<BasicRequestContext>) -> Void) async throws -> TestOrigin {
        let router = Router()
        routes(router)
        let portBox = PortBox()
        let app = Application(
            router: router, configuration: .init(address: .hostname(host, port: 0)),
            onServerRunning: { portBox.set($0.localAddress?.port ?? 0) })
        let task = Task { try await app.runService(gracefulShutdownSignals: []) }
        for _ in 0..<1000 where portBox.get() == 0 { try await Task.sleep(for: .milliseconds(10)) }
        guard portBox.get() > 0 else {
            task.cancel()
            throw TestFailure("the test origin did not start")
        }
        return TestOrigin(port: portBox.get(), task: task)
    }

    func stop() { task.cancel() }

    static func html(_ text: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func redirect(_ location: String) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        return Response(status: .found, headers: headers)
    }

    /// A page that sends a byte every 100 ms for up to `seconds`; `open` counts those still dripping.
    static func drip(open: Counter, seconds: Int) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                open.add(1)
                defer { open.add(-1) }
                try await writer.write(ByteBuffer(string: "<html>"))
                for _ in 0..<(seconds * 10) {
                    try await Task.sleep(for: .milliseconds(100))
                    try await writer.write(ByteBuffer(string: "a"))
                }
                try await writer.finish(nil)
            })
    }
}
