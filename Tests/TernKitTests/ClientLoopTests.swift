import NIOCore
import Synchronization
import TernProtocol
import TernTestSupport
import Testing

@testable import TernKit

/// An actor that lives on a ``ClientLoop`` the way ``ChatClient`` does.
actor OnLoop {
    let home: ClientLoop
    nonisolated var unownedExecutor: UnownedSerialExecutor { home.unownedExecutor }
    init(_ home: ClientLoop) { self.home = home }
    func onLoop() -> Bool { home.loop.inEventLoop }
}

/// The engine's one thread (issue 36): the engine, its socket, its timers and its collections on one
/// event loop, so a frame is read, handled and published without waking another thread.
@Suite("Client loop (the engine on its socket's event loop)")
struct ClientLoopTests {
    @Test func actorsAndTimersRunOnTheLoop() async throws {
        let home = ClientLoop.next()
        #expect(await OnLoop(home).onLoop())
        // A task that prefers the loop runs its nonisolated code there.
        let onLoop = await Task(executorPreference: home.tasks) { home.loop.inEventLoop }.value
        #expect(onLoop)
        await home.sleep(for: .milliseconds(1))
        // A cancelled timer never runs.
        let fired = Counter()
        let timer = home.after(milliseconds: 60_000) { fired.n.add(1, ordering: .relaxed) }
        timer.cancel()
        await #expect(throws: EventLoopError.self) { try await timer.futureResult.get() }
        let due = home.after(milliseconds: 0) { fired.n.add(10, ordering: .relaxed) }
        try await due.futureResult.get()
        #expect(fired.n.load(ordering: .relaxed) == 10)
    }

    @Test func theEngineAndItsCollectionsRunOnTheLoop() async throws {
        try await withLocalServer { server in
            let (alice, _) = try await server.connected("alice")
            let (bob, bobLog) = try await server.connected("bob")
            #expect(await OnLoop(bob.home).onLoop())
            let channel = try await alice.directChannel(with: "bob")
            let collection = await bob.messageCollection(channel.url)
            #expect(await collection.runsOn(bob.home))
            for i in 1...20 { _ = try await alice.sendMessageAndWait("m\(i)", to: channel.url) }
            _ = try await bobLog.wait("the 20th message") { e -> Bool? in
                if case .messageReceived(let m) = e, m.text == "m20" { return true }
                return nil
            }
            // Every read of bob's socket happened on his engine's loop: no frame crossed threads to reach it.
            let reads = await bob.socketReads
            #expect(reads.onHome >= 1 && reads.elsewhere == 0, "reads: \(reads)")
            await collection.dispose()
        }
    }
}

final class Counter: Sendable {
    let n = Atomic<Int>(0)
}

extension MessageCollection {
    func runsOn(_ home: ClientLoop) -> Bool { home.loop.inEventLoop }
}
