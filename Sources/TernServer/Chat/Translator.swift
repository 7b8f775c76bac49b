import Foundation
import TernProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The pluggable translation provider: a shell command (``ServerConfiguration/translationCommand``)
/// run once per target language, the text on standard input, the language in `TERN_TARGET_LANG`,
/// the translation read from standard output (at most 64 KB of it). It runs on a thread of its
/// own, in a process group of its own, and the whole group is killed after ``timeout`` seconds:
/// a child the command started (`sleep 30 &`) ends with it and cannot hold the answer back.
enum Translator {
    static let timeout: TimeInterval = 10
    static let maxOutput = 64 * 1024
    /// A command that exits without reading its input must not end the server with SIGPIPE when
    /// the text is written to it: the write fails with EPIPE instead.
    static let ignoreSIGPIPE: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    static func translate(_ text: String, to lang: String, command: String, timeout: TimeInterval = timeout) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try run(text, lang: lang, command: command, timeout: timeout) })
            }
        }
    }

    static func failed(_ why: String) -> SendbirdError {
        SendbirdError(.internalError, "The translation provider failed (\(why)).")
    }

    static func run(_ text: String, lang: String, command: String, timeout: TimeInterval = timeout) throws -> String {
        _ = ignoreSIGPIPE
        var toChild: [Int32] = [0, 0]
        var fromChild: [Int32] = [0, 0]
        guard pipe(&toChild) == 0 else { throw failed("pipe") }
        guard pipe(&fromChild) == 0 else {
            close(toChild[0])
            close(toChild[1])
            throw failed("pipe")
        }
        // The parent's ends are not inherited by the child (nor by anything else spawned meanwhile).
        for fd in [toChild[1], fromChild[0]] { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        defer {
            close(toChild[1])
            close(fromChild[0])
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A process group of its own (its id is the child's pid), so that the group can be killed.
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))

        let environment = ProcessInfo.processInfo.environment.merging(["TERN_TARGET_LANG": lang]) { _, new in new }
        let arguments: [String] = ["/bin/sh", "-c", command]
        let variables: [String] = environment.map { "\($0.key)=\($0.value)" }
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { (s: String) in strdup(s) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { (s: String) in strdup(s) } + [nil]
        defer { for p in argv + envp { free(p) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
        close(toChild[0])
        close(fromChild[1])
        guard spawned == 0 else { throw failed("cannot start: \(spawned)") }

        // The deadline kills the whole group; waiting below then ends, and so does the reading
        // (every holder of the pipe's write end was in the group).
        let group = pid
        let killer = DispatchWorkItem { kill(-group, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
        defer { killer.cancel() }

        // Standard input from another thread: a command that does not read it cannot block us.
        let input = Array(text.utf8)
        let writeEnd = dup(toChild[1])
        Thread.detachNewThread {
            var offset = 0
            while offset < input.count {
                let n = input[offset...].withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                offset += n
            }
            close(writeEnd)
        }
        close(toChild[1])
        toChild[1] = -1

        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fromChild[0], $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            if output.count < maxOutput { output += buffer[0..<min(n, maxOutput - output.count)] }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // Whatever is left of the group (a child that closed its output and lingers) goes too.
        kill(-group, SIGKILL)
        // WIFEXITED / WEXITSTATUS, which Swift does not import as functions.
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        guard exited, code == 0 else {
            throw failed(exited ? "exit \(code)" : "killed by signal \(status & 0x7f)")
        }
        var out = String(decoding: output, as: UTF8.self)
        if out.hasSuffix("\n") { out.removeLast() }
        return out
    }
}
