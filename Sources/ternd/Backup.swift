import ArgumentParser
import Foundation
import TernServer

/// `ternd backup`: a consistent copy of a running (or stopped) server's data directory.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy a data directory, consistently, while its server runs.",
        discussion: """
            The SQLite database is copied as one snapshot (VACUUM INTO: sends go on meanwhile), then the
            uploaded files and their key, the exports and the API token. Every message acknowledged
            before the backup began is in it. With --database (PostgreSQL) the messages and files are
            in the database: the backup takes the data directory's part and prints the pg_dump command
            for the rest. Restore with `ternd restore --from DIR --data-dir D`.
            """
    )

    @Option(name: .customLong("data-dir"), help: "The server's data directory (default: $XDG_DATA_HOME/tern/server).")
    var dataDir: String?

    @Option(name: .customLong("to"), help: "A new directory for the backup.")
    var target: String

    @Option(help: "The server's PostgreSQL store, if it has one (or env TERND_DATABASE).")
    var database: String?

    func run() throws {
        DataDirectory.restrictNewFiles()
        let url = (database ?? ProcessInfo.processInfo.environment["TERND_DATABASE"]).flatMap { $0.isEmpty ? nil : $0 }
        do {
            let summary = try DataDirectoryBackup.backup(dataDirectory: dataDir ?? Serve.defaultDataDirectory(), to: target, databaseURL: url)
            print("backed up to \(summary)")
        } catch let e as DataDirectoryBackup.Failure {
            throw ValidationError(e.description)
        }
    }
}

/// `ternd restore`: a backup back into a data directory no server is running on.
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restore a backup made by `ternd backup` into a data directory.",
        discussion: """
            Refused while a server runs on the data directory, and when it already holds data unless
            --force (what was there is moved to DATA.before-restore-TIME). Start the server on it after.
            """
    )

    @Option(name: .customLong("from"), help: "The backup directory.")
    var source: String

    @Option(name: .customLong("data-dir"), help: "The data directory to restore into (default: $XDG_DATA_HOME/tern/server).")
    var dataDir: String?

    @Flag(help: "Replace a data directory that holds data (it is kept aside, not deleted).")
    var force = false

    func run() throws {
        DataDirectory.restrictNewFiles()
        do {
            let summary = try DataDirectoryBackup.restore(from: source, to: dataDir ?? Serve.defaultDataDirectory(), force: force)
            print("restored \(summary)")
        } catch let e as DataDirectoryBackup.Failure {
            throw ValidationError(e.description)
        }
    }
}
