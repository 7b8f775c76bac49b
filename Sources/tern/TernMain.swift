import ArgumentParser
import Dispatch
import Glibc

/// tern's entry point: the command runs in a task while the main thread waits for it.
///
/// With an `async` `main`, Swift parks the main thread in `dispatch_main`, which ends it with
/// `pthread_exit`: a forced unwind of the main thread's stack, which looks each frame up in the
/// binary's unwind tables. In the static build that is a binary search over `.eh_frame_hdr`
/// (1.2 MB), and every page it touches (with the kernel's fault-around, ~470 kB of the table) stays
/// resident for the whole session for nothing (issue 36). Nothing in tern uses the main queue or the
/// main actor. As Dispatch does with the main thread it ends, this thread takes the process's signals:
/// it unblocks them all (a parent may have started tern with some blocked, and every thread of the
/// Swift and NIO pools blocks them), and tern's handlers hand them on through self-pipes (SIGWINCH:
/// the terminal adapter's; `tern tail`'s SIGINT and SIGTERM).
@main
enum TernMain {
    static func main() {
        var all = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_UNBLOCK, &all, nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            await Tern.main()
            done.signal()
        }
        done.wait()
    }
}
