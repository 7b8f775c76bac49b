import Foundation

/// `--profile SECONDS`: `perf record -g -p SERVER_PID -o FILE -- sleep SECONDS`, started with the
/// measured window, then the top of `perf report --stdio --no-children --percent-limit 1.5`.
/// perf missing or refused (no permission, no PID) is reported, never fatal.
struct Profiler: Sendable {
    let perf: String
    let pid: pid_t
    let dataPath: String
    let errorPath: String

    /// Starts recording; nil (after printing why) when perf cannot run.
    static func start(pid serverPid: Int32?, seconds: Double) -> Profiler? {
        guard let serverPid else {
            print("profile: skipped: the server's PID is unknown (pass --server-pid)")
            return nil
        }
        guard let perf = which("perf") else {
            print("profile: skipped: perf is not installed (not on PATH)")
            return nil
        }
        let dataPath = NSTemporaryDirectory() + "tern-bench-perf-\(serverPid)-\(SpawnedServer.randomHex(3)).data"
        let errorPath = dataPath.replacingOccurrences(of: ".data", with: ".err")
        let args = ["record", "-g", "-p", String(serverPid), "-o", dataPath, "--", "sleep", String(seconds)]
        guard let pid = spawn(perf, args, stdout: "/dev/null", stderr: errorPath) else {
            print("profile: skipped: cannot run \(perf): \(String(cString: strerror(errno)))")
            return nil
        }
        return Profiler(perf: perf, pid: pid, dataPath: dataPath, errorPath: errorPath)
    }

    /// Waits for the recording to end, writes the report next to the data, and returns the lines
    /// to print: the report's path and its top-level entries.
    func finish() async -> [String] {
        let status = await Self.wait(pid)
        let recordErrors = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        guard status == 0, FileManager.default.fileExists(atPath: dataPath) else {
            return [
                "profile: perf record failed (wait status \(status)): "
                    + recordErrors.split(separator: "\n").suffix(3).joined(separator: " / ")
            ]
        }
        let reportPath = dataPath.replacingOccurrences(of: ".data", with: ".txt")
        let args = ["report", "-i", dataPath, "--stdio", "--no-children", "--percent-limit", "1.5"]
        guard let reporter = Self.spawn(perf, args, stdout: reportPath, stderr: "/dev/null") else {
            return ["profile: recorded \(dataPath), but perf report could not run"]
        }
        _ = await Self.wait(reporter)
        let text = (try? String(contentsOfFile: reportPath, encoding: .utf8)) ?? ""
        // Top-level entries only ("  12.34%  ternd  libfoo.so  [.] symbol"); the call graphs are in the file.
        let entries = text.split(separator: "\n").filter { line in
            let t = line.drop { $0 == " " }
            return t.first?.isNumber == true && t.contains("%")
        }
        return ["profile: \(dataPath) (perf report with call graphs: \(reportPath)); self time, entries ≥ 1.5%:"]
            + entries.prefix(40).map { "  " + String($0.drop { $0 == " " }) }
    }

    /// posix_spawn with every signal unblocked and at its default: the bench's threads block
    /// signals, and a perf that inherited that mask never sees its workload (`sleep`) exit.
    static func spawn(_ path: String, _ args: [String], stdout: String, stderr: String) -> pid_t? {
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attr, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attr, &all)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([path] + args).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, path, &actions, &attr, argv, environ) == 0 else { return nil }
        return pid
    }

    /// Waits (on a thread of its own: waitpid blocks) for `pid`; its wait status, or -1.
    static func wait(_ pid: pid_t) async -> Int32 {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                continuation.resume(returning: status)
            }
        }
    }

    static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
