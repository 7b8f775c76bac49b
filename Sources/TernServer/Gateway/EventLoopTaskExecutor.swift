import NIOCore

/// Runs a task's jobs on one event loop: a connection's command task prefers its loop's
/// (SE-0417 task executor preference; ``WebSocketConnection/startCommands()``). A command read on
/// the loop is then handled on that thread, the async functions it calls run there, and what it
/// awaits — a send's commit on ``SendPipeline``'s thread, a read on GRDB's — resumes there, up to
/// where other modules hand work to threads of their own. No thread of the cooperative pool is
/// woken for a command (issue 35: each hand-off between threads costs a wake-up, and at low rates
/// the wake-ups were most of a message's cost).
///
/// Nothing that blocks may run on it: the store is reached through async calls or the pipeline's
/// own thread, never a synchronous database call.
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
