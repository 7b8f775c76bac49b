public import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A real PostgreSQL server for tests (Debian's `postgresql`): `initdb` into a fresh directory,
/// `postgres` on a free loopback port, stopped by PID. As root it runs as the `postgres` user
/// (PostgreSQL refuses to run as root).
///
/// ```swift
/// let cluster = try await PostgresTestCluster.shared()   // one per test process
/// let url = try cluster.createDatabase()                 // postgres://postgres@127.0.0.1:PORT/t_…
/// ```
///
/// The server runs under a small shell that stops it (fast shutdown) when sent SIGTERM, and also
/// when the test process is gone, so a crashed test run leaves no server behind. Every cluster
/// still running when the process exits normally is stopped by an `atexit` handler.
public final class PostgresTestCluster: Sendable {
    public let port: Int
    public let dataDirectory: String
    let wrapperPid = Mutex<Int32>(0)

    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    static let sharedCluster = Mutex<PostgresTestCluster?>(nil)
    static let startLock = Mutex<Bool>(false)

    /// ``shared()`` for synchronous callers (starting a `ternd` process, say).
    public static func sharedBlocking() throws -> PostgresTestCluster {
        while true {
            if let c = try sharedOrStart() { return c }
            usleep(50_000)
        }
    }

    /// The test process's cluster, started on first use.
    public static func shared() async throws -> PostgresTestCluster {
        while true {
            if let c = try await offPool({ try sharedOrStart() }) { return c }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Runs blocking work (initdb, psql, waiting for a process) on a thread of its own: on the
    /// concurrency pool's few threads (2 on this machine) it would stall every other test's
    /// servers and clients while it waits.
    public static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { c in
            Thread.detachNewThread { c.resume(with: Result { try body() }) }
        }
    }

    /// The shared cluster, started here if nobody is starting it; nil while another caller is.
    static func sharedOrStart() throws -> PostgresTestCluster? {
        if let c = sharedCluster.withLock({ $0 }) { return c }
        let mine = startLock.withLock { busy -> Bool in
            if busy { return false }
            busy = true
            return true
        }
        guard mine else { return nil }
        defer { startLock.withLock { $0 = false } }
        if let c = sharedCluster.withLock({ $0 }) { return c }
        let c = try start()
        sharedCluster.withLock { $0 = c }
        return c
    }

    public static var isInstalled: Bool { binDirectory != nil }

    /// Whether the cluster suites run: PostgreSQL installed and `TERN_CLUSTER_TESTS=1`. They start
    /// several nodes, PostgreSQL servers of their own and (end to end) processes in tmux; beside
    /// the rest of the suite on 2 cores they starved the engine's restart tests into timeouts, so
    /// they run in a pass of their own (`.ci/run`, README).
    public static var clusterTestsEnabled: Bool {
        isInstalled && ProcessInfo.processInfo.environment["TERN_CLUSTER_TESTS"] == "1"
    }

    static var binDirectory: String? {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap(Int.init).sorted(by: >)
        for v in versions where FileManager.default.isExecutableFile(atPath: "\(root)/\(v)/bin/postgres") {
            return "\(root)/\(v)/bin"
        }
        return nil
    }

    static var isRoot: Bool { getuid() == 0 }

    /// A new cluster of its own (for tests that restart or stop it).
    public static func start() throws -> PostgresTestCluster {
        guard let bin = binDirectory else {
            throw Unavailable(description: "PostgreSQL is not installed (apt-get install postgresql)")
        }
        let dir = "/tmp/tern-pg-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        if isRoot { try FileManager.default.setAttributes([.ownerAccountName: "postgres", .groupOwnerAccountName: "postgres"], ofItemAtPath: dir) }
        let initdb = try run(
            asPostgres: ["\(bin)/initdb", "-D", dir + "/data", "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"])
        guard initdb.status == 0 else { throw Unavailable(description: "initdb failed: \(initdb.output)") }
        var lastError = ""
        for _ in 0..<5 {
            let port = freePort()
            let cluster = PostgresTestCluster(port: port, dataDirectory: dir)
            do {
                try cluster.launch()
                return cluster
            } catch {
                lastError = "\(error)"
            }
        }
        throw Unavailable(description: "PostgreSQL did not start: \(lastError)")
    }

    init(port: Int, dataDirectory: String) {
        self.port = port
        self.dataDirectory = dataDirectory
    }

    /// `postgres://postgres@127.0.0.1:PORT/DATABASE`
    public func url(database: String) -> String { "postgres://postgres@127.0.0.1:\(port)/\(database)" }

    /// Creates an empty database and returns its URL.
    public func createDatabase(_ name: String? = nil) throws -> String {
        let name = name ?? "t_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased())"
        let r = try psql("CREATE DATABASE \(name)")
        guard r.status == 0 else { throw Unavailable(description: "CREATE DATABASE failed: \(r.output)") }
        return url(database: name)
    }

    let databasesByKey = Mutex<[String: String]>([:])

    /// The database kept for `key` (a data directory, say): created on first use.
    public func database(for key: String) throws -> String {
        if let url = databasesByKey.withLock({ $0[key] }) { return url }
        let url = try createDatabase()
        databasesByKey.withLock { $0[key] = url }
        return url
    }

    /// Runs SQL with `psql` as the `postgres` user; returns its exit status and output.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws -> (status: Int32, output: String) {
        try Self.run(["/usr/bin/psql", "-X", "-q", "-A", "-t", "-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-d", database, "-c", sql])
    }

    /// Everything stored in `database` as `pg_dump` prints it (schema and rows): what a test
    /// reads to check that a secret never reached the disk.
    public func dump(database: String) throws -> String {
        guard let bin = Self.binDirectory else { throw Unavailable(description: "PostgreSQL is not installed") }
        let name = database.split(separator: "/").last.map(String.init) ?? database
        let r = try Self.run(["\(bin)/pg_dump", "-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "--data-only", name])
        guard r.status == 0 else { throw Unavailable(description: "pg_dump failed: \(r.output)") }
        return r.output
    }

    /// Starts the server (after ``stop()`` or ``crash()``), on the same port and data.
    public func launch() throws {
        guard let bin = Self.binDirectory else { throw Unavailable(description: "PostgreSQL is not installed") }
        let data = dataDirectory + "/data"
        let options = [
            "-D", data, "-p", "\(port)", "-k", dataDirectory, "-c", "listen_addresses=127.0.0.1",
            "-c", "max_connections=300", "-c", "shared_buffers=32MB", "-c", "fsync=off", "-c", "full_page_writes=off",
            "-c", "synchronous_commit=on", "-c", "log_min_messages=fatal", "-c", "logging_collector=off",
        ].map { "'\($0)'" }.joined(separator: " ")
        let me = getpid()
        // Stops postgres (fast shutdown) on SIGTERM, or once the test process is gone.
        let script = """
            "\(bin)/postgres" \(options) >>"\(dataDirectory)/server.log" 2>&1 &
            p=$!
            trap 'kill -INT $p 2>/dev/null; wait $p; exit 0' TERM INT
            while [ -d /proc/\(me) ] && kill -0 $p 2>/dev/null; do sleep 1 & wait $!; done
            kill -INT $p 2>/dev/null; wait $p
            """
        let argv =
            (Self.isRoot ? ["/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "/bin/sh"] : ["/bin/sh"])
            + ["-c", script]
        guard let pid = Self.spawn(argv) else { throw Unavailable(description: "could not start \(argv[0])") }
        wrapperPid.withLock { $0 = pid }
        _ = Self.running.withLock { $0.insert(pid) }
        Self.directories.withLock { $0[pid] = dataDirectory }
        Self.installExitHandler()
        // Ready when it answers a query.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let r = try? psql("SELECT 1"), r.status == 0 { return }
            if kill(pid, 0) != 0 { break }
            usleep(100_000)
        }
        stop()
        let log = (try? String(contentsOfFile: dataDirectory + "/server.log", encoding: .utf8)) ?? ""
        throw Unavailable(description: "PostgreSQL on port \(port) did not answer: \(log.suffix(600))")
    }

    /// Stops the server (fast shutdown) and waits for it.
    public func stop() {
        let pid = wrapperPid.withLock { p -> Int32 in
            defer { p = 0 }
            return p
        }
        guard pid > 0 else { return }
        kill(pid, SIGTERM)
        Self.reap(pid, dataDirectory: dataDirectory)
        Self.running.withLock { _ = $0.remove(pid) }
    }

    /// Waits for a wrapper shell that was sent SIGTERM, at most `seconds`; then kills what is
    /// left (postgres at once, as `pg_ctl stop -m immediate` does, and the shell), so that a
    /// stuck shutdown can never hang a test or the test process's exit.
    static func reap(_ pid: Int32, dataDirectory: String, seconds: Double = 15) {
        let deadline = Date().addingTimeInterval(seconds)
        var status: Int32 = 0
        while Date() < deadline {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid || (r < 0 && errno == ECHILD) { return }
            usleep(20_000)
        }
        if let text = try? String(contentsOfFile: dataDirectory + "/data/postmaster.pid", encoding: .utf8),
            let first = text.split(separator: "\n").first, let postmaster = Int32(first)
        {
            kill(postmaster, SIGQUIT)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }

    /// Kills the server as `pg_ctl stop -m immediate` does (no checkpoint; recovery on the next
    /// start), then waits for it.
    public func crash() {
        if let text = try? String(contentsOfFile: dataDirectory + "/data/postmaster.pid", encoding: .utf8),
            let first = text.split(separator: "\n").first, let pid = Int32(first)
        {
            kill(pid, SIGQUIT)
        }
        let pid = wrapperPid.withLock { p -> Int32 in
            defer { p = 0 }
            return p
        }
        guard pid > 0 else { return }
        Self.reap(pid, dataDirectory: dataDirectory)
        Self.running.withLock { _ = $0.remove(pid) }
    }

    /// Stops the server and deletes its files.
    public func destroy() {
        stop()
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }

    // MARK: - Process plumbing

    static let running = Mutex<Set<Int32>>([])
    /// Each running wrapper's cluster directory (for ``reap(_:dataDirectory:seconds:)`` at exit).
    static let directories = Mutex<[Int32: String]>([:])
    static let exitHandlerInstalled = Mutex<Bool>(false)

    static func installExitHandler() {
        let first = exitHandlerInstalled.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return }
        atexit {
            let pids = PostgresTestCluster.running.withLock { $0 }
            for pid in pids { kill(pid, SIGTERM) }
            let dirs = PostgresTestCluster.directories.withLock { $0 }
            for pid in pids { PostgresTestCluster.reap(pid, dataDirectory: dirs[pid] ?? "") }
            // The clusters' files too (about 2 GB each): a test process left one in /tmp every run.
            for pid in pids { if let dir = dirs[pid] { try? FileManager.default.removeItem(atPath: dir) } }
        }
    }

    /// `spawnDetached`, output to /dev/null.
    static func spawn(_ argv: [String]) -> pid_t? { spawnDetached(argv) }

    static func run(asPostgres args: [String]) throws -> (status: Int32, output: String) {
        if isRoot { return try run(["/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups"] + args) }
        return try run(args)
    }

    static func run(_ args: [String]) throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: args[0])
        p.arguments = Array(args.dropFirst())
        let pipe = Foundation.Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A port free on 127.0.0.1 now (bound to 0, read, closed).
    public static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { _ = Glibc.close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return Int(UInt16(bigEndian: addr.sin_port))
    }
}

/// Adds to `actions` the closing, in the child, of every descriptor above standard error
/// (`posix_spawn_file_actions_addclosefrom_np`, glibc 2.34; without it, each descriptor open now).
/// A long-lived child (a database server, a tmux server) must not inherit a pipe another thread
/// has open at that moment: that pipe's reader would never see its end.
public func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
        let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
        if closeFrom(&actions, 3) == 0 { return }
    }
    let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    for fd in open.compactMap(Int32.init) where fd > 2 {
        posix_spawn_file_actions_addclose(&actions, fd)
    }
}
