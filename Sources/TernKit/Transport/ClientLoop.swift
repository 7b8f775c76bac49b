public import NIOCore
import NIOPosix

/// The one thread an engine lives on: a SwiftNIO event loop that carries its WebSocket, runs the
/// ``ChatClient`` actor (its executor), the tasks that read the socket and the engine's event
/// streams, and its timers. A frame read from the socket is decoded, handled by the engine and
/// published to the app on that thread: no other thread is woken for it (issue 36: each hand-off
/// between threads costs a wake-up, and at a few hundred lines a second the wake-ups were a large
/// part of the client's CPU per line).
///
/// Nothing that waits for the loop itself may run on it (no `EventLoopFuture.wait()`); work that
/// takes long goes to a task of its own or the cache's queue.
public struct ClientLoop: Sendable {
    public let loop: any EventLoop
    /// The loop as an actor's executor (an event loop of NIOPosix is its own serial executor).
    let executor: any SerialExecutor
    /// The loop as a task's executor preference (SE-0417): nonisolated async code of such a task runs here.
    public let tasks: any TaskExecutor

    public init(_ loop: any EventLoop) {
        self.loop = loop
        executor = loop.executor
        tasks = LoopTaskExecutor(loop)
    }

    /// A loop of the process's shared event loop group (SwiftNIO's singleton, which WebSocketDialer and
    /// AsyncHTTPClient use too: no threads of tern's own).
    public static func next() -> ClientLoop { ClientLoop(MultiThreadedEventLoopGroup.singleton.next()) }

    public var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Waits `duration` on the loop's own timer (`Task.sleep` goes through Dispatch's timer and a
    /// thread of the cooperative pool before it comes back here). It runs on the caller's executor
    /// (`nonisolated(nonsending)`): called from an actor on the loop, it never leaves the loop.
    nonisolated(nonsending) public func sleep(for duration: Duration) async {
        let (seconds, attoseconds) = duration.components
        let wait = TimeAmount.nanoseconds(max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            loop.scheduleTask(in: wait) { c.resume() }
        }
    }

    /// Runs `body` on the loop after `milliseconds`; cancel it with the handle.
    @discardableResult
    public func after(milliseconds: Int64, _ body: @escaping @Sendable () -> Void) -> Scheduled<Void> {
        loop.scheduleTask(in: .milliseconds(max(milliseconds, 0)), body)
    }
}

/// An event loop as a task executor: the jobs of a task that prefers it run on the loop's thread.
final class LoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
