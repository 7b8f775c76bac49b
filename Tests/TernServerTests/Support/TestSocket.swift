import Foundation
import HTTPTypes
import Logging
import Synchronization
import TernKit
import TernProtocol
import TernTestSupport
import WSCore

/// A WebSocket client speaking the Sendbird frame protocol, for tests: frames received are
/// collected, and `next(_:)` waits (with a timeout) for the next one matching a condition.
final class TestSocket: Sendable {
    struct State {
        var frames: [Frame] = []
        var consumed = 0
        var closed = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        let opened = ContinuousClock.now
        /// When the upgrade was answered (nil: not yet).
        var upgraded: ContinuousClock.Instant?
    }
    final class Box: Sendable { let lock = Mutex(State()) }
    let box: Box
    let outgoing: AsyncStream<String>.Continuation
    let task: Task<Void, Never>

    /// Connects with the given query string and headers (e.g. `Sec-WebSocket-Protocol`).
    init(url: String, query: String, headers: [String: String] = [:]) {
        let (stream, cont) = AsyncStream<String>.makeStream()
        outgoing = cont
        var fields = HTTPFields()
        for (k, v) in headers { fields[HTTPField.Name(k)!] = v }
        let options = WebSocketDialer.Options(maxFrameSize: 1 << 20, headers: fields)
        var logger = Logger(label: "test-socket")
        logger.logLevel = .critical
        let box = Box()
        self.box = box
        StallWatch.start()
        task = Task {
            _ = try? await WebSocketDialer.connect(url: url + "/?" + query, options: options, logger: logger) {
                inbound, outbound, _ in
                box.lock.withLock { $0.upgraded = .now }
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await text in stream {
                            try? await outbound.write(.text(text))
                        }
                    }
                    do {
                        for try await message in inbound.messages(maxSize: 1 << 20) {
                            guard case .text(let text) = message else { continue }
                            let frames = FrameCodec.decode(text).compactMap { try? $0.get() }
                            TestSocket.deliver(box, frames)
                        }
                    } catch {}
                    group.cancelAll()
                }
            }
            TestSocket.markClosed(box)
        }
    }

    static func deliver(_ box: Box, _ frames: [Frame]) {
        let waiters = box.lock.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.frames += frames
            let w = s.waiters
            s.waiters = []
            return w
        }
        for w in waiters { w.resume() }
    }

    static func markClosed(_ box: Box) {
        let waiters = box.lock.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.closed = true
            let w = s.waiters
            s.waiters = []
            return w
        }
        for w in waiters { w.resume() }
    }

    /// Sends raw text as one WebSocket message.
    func sendRaw(_ text: String) { outgoing.yield(text) }

    /// Sends one frame.
    func send(_ command: String, _ json: [String: Any]) {
        let data = try! JSONSerialization.data(withJSONObject: json)
        sendRaw(command + String(decoding: data, as: UTF8.self) + "\n")
    }

    /// Waits for the next not-yet-consumed frame with `command` (and matching `where`), skipping others.
    func next(_ command: String, timeout: Duration = .seconds(20), where match: @Sendable ([String: Any]) -> Bool = { _ in true })
        async -> [String: Any]?
    {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let found: [String: Any]? = box.lock.withLock { s in
                while s.consumed < s.frames.count {
                    let f = s.frames[s.consumed]
                    s.consumed += 1
                    if f.command.rawValue == command, let obj = (try? JSONSerialization.jsonObject(with: f.payload)) as? [String: Any], match(obj) {
                        return obj
                    }
                }
                return nil
            }
            if let found { return found }
            if box.lock.withLock({ $0.closed }) { return nil }
            await waitForFrames(until: deadline)
        }
        // A long wait that ran out is a failure to explain; a short one is a test checking that nothing comes.
        if timeout >= .seconds(5) { print("TestSocket: no \(command) in \(timeout); \(diagnosis(since: deadline - timeout))") }
        return nil
    }

    /// What the socket saw, and what stalled, for a wait that ran out.
    func diagnosis(since: ContinuousClock.Instant) -> String {
        let (upgraded, opened, frames, closed) = box.lock.withLock { s in
            (s.upgraded, s.opened, s.frames.map(\.command.rawValue), s.closed)
        }
        let upgrade = upgraded.map { "upgraded after \($0 - opened)" } ?? "never upgraded"
        return "\(upgrade), frames \(frames), closed: \(closed); \(StallWatch.report(since: since - .seconds(5)))"
    }

    /// Every frame received so far with `command`, consumed or not.
    func all(_ command: String) -> [[String: Any]] {
        box.lock.withLock { s in
            s.frames.filter { $0.command.rawValue == command }.compactMap { (try? JSONSerialization.jsonObject(with: $0.payload)) as? [String: Any] }
        }
    }

    var isClosed: Bool { box.lock.withLock { $0.closed } }

    /// Waits until the socket closes (or the timeout passes).
    func waitClosed(timeout: Duration = .seconds(20)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !isClosed && ContinuousClock.now < deadline { await waitForFrames(until: deadline) }
        return isClosed
    }

    func waitForFrames(until deadline: ContinuousClock.Instant) async {
        // Wake on a new frame, or poll every 50 ms so deadlines are honoured.
        let timer = Task {
            try? await Task.sleep(for: .milliseconds(50))
            TestSocket.deliver(self.box, [])
        }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            box.lock.withLock { $0.waiters.append(c) }
        }
        timer.cancel()
    }

    func close() async {
        outgoing.finish()
        task.cancel()
        _ = await task.value
    }
}

extension TestServer {
    /// Connects a user by id (no token) with the SDK's query.
    func connect(_ userId: String?, appId: String = "LOCAL", headers: [String: String] = [:], extraQuery: String = "") -> TestSocket {
        var q = "p=JS&pv=test&sv=4.22.7&ai=\(appId)"
        if let userId { q += "&user_id=\(userId.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? userId)" }
        if !extraQuery.isEmpty { q += "&" + extraQuery }
        return TestSocket(url: wsURL, query: q, headers: headers)
    }

    /// Connects and waits for a successful LOGI; returns the socket and the LOGI payload.
    func login(_ userId: String, headers: [String: String] = [:]) async throws -> (TestSocket, [String: Any]) {
        let s = connect(userId, headers: headers)
        guard let logi = await s.next("LOGI"), logi["error"] == nil else {
            await s.close()
            throw TestFailure("login of \(userId) failed")
        }
        return (s, logi)
    }
}
