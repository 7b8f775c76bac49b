#if canImport(Glibc)
public import Glibc
#endif

/// Starts `argv` with posix_spawn: standard input from /dev/null, standard output to `output`
/// (created or emptied, mode 0600), standard error to /dev/null, and every signal unblocked and
/// at its default (test threads block signals, and a shell, postgres or tmux server that inherited
/// that mask never sees its children exit, nor SIGTERM). Nothing else of this process goes with it:
/// a long-lived child would keep the write end of a pipe another thread had open at that moment
/// (psql's output, say), and that reader would never see its end (a CI run hung so for an hour).
/// Its pid, or nil when it did not start.
public func spawnDetached(_ argv: [String], output: String = "/dev/null") -> pid_t? {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    closeInheritedDescriptors(&actions)
    let cArgs = argv.map { strdup($0) } + [nil]
    defer { for a in cArgs { free(a) } }
    var pid: pid_t = 0
    guard posix_spawn(&pid, argv[0], &actions, &attributes, cArgs, environ) == 0 else { return nil }
    return pid
}
