public import Foundation
import GRDB

/// `ternd backup` and `ternd restore`: a consistent copy of a data directory, taken while its server
/// runs, and the way back.
///
/// What a data directory holds, and what a backup takes:
/// - `ternd.sqlite` (SQLite store): copied with `VACUUM INTO` on a read transaction — a consistent
///   snapshot of every committed transaction, writers go on meanwhile (WAL mode).
/// - `files/` (uploaded files sealed by the file vault, and `files.key`, its master key): copied
///   after the snapshot. A file's sealed bytes are written before the message that names it is
///   committed, and never change, so every file the snapshot names is there.
/// - `exports/` (data exports) and `api_token`.
/// - Not `ternd.pid`, `embedded.json`, `embedded-port` or lock files: they belong to a running process.
///
/// On PostgreSQL the messages and the files are in the database: the backup takes what the data
/// directory still holds and says what to dump (`pg_dump`, see docs/deploy.md).
public enum DataDirectoryBackup {
    public struct Summary: Sendable, CustomStringConvertible {
        public var directory: String
        public var databaseBytes: Int64
        public var files: Int
        public var messages: Int?
        /// What else to do (a PostgreSQL store's dump).
        public var note: String?

        public var description: String {
            var parts = ["\(directory): database \(databaseBytes) bytes", "\(files) stored files"]
            if let messages { parts.append("\(messages) messages") }
            return parts.joined(separator: ", ") + (note.map { "\n" + $0 } ?? "")
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        init(_ d: String) { description = d }
    }

    static let manifest = "ternd-backup.json"
    static let copied = ["api_token", "files", "exports"]

    /// Copies `dataDirectory` into `target` (which must not exist, or be empty). `databaseURL`: the
    /// server keeps its data in that PostgreSQL database.
    public static func backup(dataDirectory: String, to target: String, databaseURL: String? = nil, now: Date = Date()) throws -> Summary {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        guard fm.fileExists(atPath: dataDirectory, isDirectory: &isDir), isDir.boolValue else {
            throw Failure("no data directory at \(dataDirectory)")
        }
        if fm.fileExists(atPath: target) {
            guard ((try? fm.contentsOfDirectory(atPath: target)) ?? ["?"]).isEmpty else {
                throw Failure("\(target) exists and is not empty: a backup goes into a new directory")
            }
        }
        try fm.createDirectory(atPath: target, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try fm.setAttributes([.posixPermissions: 0o700], ofItemAtPath: target)
        var summary = Summary(directory: target, databaseBytes: 0, files: 0)
        if databaseURL == nil {
            let source = dataDirectory + "/ternd.sqlite"
            guard fm.fileExists(atPath: source) else { throw Failure("no database at \(source)") }
            let copy = target + "/ternd.sqlite"
            var config = Configuration()
            config.readonly = true
            config.busyMode = .timeout(30)
            let queue = try DatabaseQueue(path: source, configuration: config)
            // One read transaction: the copy is the database as of one instant, writers carry on.
            try queue.inDatabase { db in try db.execute(sql: "VACUUM INTO ?", arguments: [copy]) }
            try queue.close()
            try fm.setAttributes([.posixPermissions: 0o600], ofItemAtPath: copy)
            summary.databaseBytes = ((try? fm.attributesOfItem(atPath: copy)[.size]) as? NSNumber)?.int64Value ?? 0
            summary.messages = try? DatabaseQueue(path: copy, configuration: config).read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM messages")
            }
        } else {
            summary.note = """
                The messages and uploaded files are in PostgreSQL: dump them too, e.g.
                  pg_dump --format=custom --file=\(target)/ternd.pgdump '\(Self.redacted(databaseURL!))'
                (docs/deploy.md: backups). This directory holds the data directory's part.
                """
        }
        // Files after the snapshot: whatever it names was written before it.
        for name in copied where fm.fileExists(atPath: dataDirectory + "/" + name) {
            summary.files += try copyTree(dataDirectory + "/" + name, to: target + "/" + name)
        }
        if fm.fileExists(atPath: target + "/files") {
            summary.files = ((try? fm.contentsOfDirectory(atPath: target + "/files")) ?? []).filter { $0.hasSuffix(".bin") }.count
        }
        let record: [String: Any] = [
            "created_at": Int64(now.timeIntervalSince1970 * 1000), "source": dataDirectory,
            "store": databaseURL == nil ? "sqlite" : "postgres", "format": 1,
        ]
        let data = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])
        // The manifest is what makes the folder a backup (restore refuses one without it).
        guard fm.createFile(atPath: target + "/" + manifest, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw Failure("cannot write \(target)/\(manifest)")
        }
        return summary
    }

    /// Restores a backup into `dataDirectory`. Refused while a server runs on that directory (it is
    /// claimed for the time of the restore, so none can start meanwhile), and when it already holds a
    /// database unless `force` (then what was there is kept aside in `DATA.before-restore-TIME`).
    public static func restore(from backup: String, to dataDirectory: String, force: Bool = false, now: Date = Date()) throws -> Summary {
        let fm = FileManager.default
        guard fm.fileExists(atPath: backup + "/" + manifest) else {
            throw Failure("\(backup) is not a ternd backup (no \(manifest))")
        }
        let manifestData = fm.contents(atPath: backup + "/" + manifest) ?? Data()
        let store = ((try? JSONSerialization.jsonObject(with: manifestData)) as? [String: Any])?["store"] as? String ?? "sqlite"
        if store == "sqlite" {
            guard fm.fileExists(atPath: backup + "/ternd.sqlite") else { throw Failure("\(backup) holds no ternd.sqlite") }
            var config = Configuration()
            config.readonly = true
            let check = try DatabaseQueue(path: backup + "/ternd.sqlite", configuration: config).read { db in
                try String.fetchOne(db, sql: "PRAGMA quick_check")
            }
            guard check == "ok" else { throw Failure("\(backup)/ternd.sqlite is damaged: \(check ?? "unreadable")") }
        }
        do {
            try DataDirectory.claim(dataDirectory, by: "restore")
        } catch let e as ServerStartError {
            throw Failure("refusing to restore: \(e.description)")
        }
        let present = ((try? fm.contentsOfDirectory(atPath: dataDirectory)) ?? []).filter { $0 != "ternd.pid" }
        if !present.isEmpty {
            guard force else {
                throw Failure(
                    "\(dataDirectory) already holds data (\(present.sorted().joined(separator: ", "))): pass --force to replace it (what is there is kept aside)"
                )
            }
            let aside = dataDirectory + ".before-restore-\(Int64(now.timeIntervalSince1970))"
            try fm.createDirectory(atPath: aside, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            for name in present { try fm.moveItem(atPath: dataDirectory + "/" + name, toPath: aside + "/" + name) }
        }
        var summary = Summary(directory: dataDirectory, databaseBytes: 0, files: 0)
        if store == "sqlite" {
            try fm.copyItem(atPath: backup + "/ternd.sqlite", toPath: dataDirectory + "/ternd.sqlite")
            try fm.setAttributes([.posixPermissions: 0o600], ofItemAtPath: dataDirectory + "/ternd.sqlite")
            summary.databaseBytes = ((try? fm.attributesOfItem(atPath: dataDirectory + "/ternd.sqlite")[.size]) as? NSNumber)?.int64Value ?? 0
        } else {
            summary.note = "The messages and files are in PostgreSQL: restore its dump too (pg_restore, docs/deploy.md)."
        }
        for name in copied where fm.fileExists(atPath: backup + "/" + name) {
            summary.files += try copyTree(backup + "/" + name, to: dataDirectory + "/" + name)
        }
        return summary
    }

    /// Copies a file or a directory tree, owner-only modes; returns how many files it copied.
    static func copyTree(_ source: String, to target: String) throws -> Int {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        guard fm.fileExists(atPath: source, isDirectory: &isDir) else { return 0 }
        if !isDir.boolValue {
            try fm.copyItem(atPath: source, toPath: target)
            try fm.setAttributes([.posixPermissions: 0o600], ofItemAtPath: target)
            return 1
        }
        try fm.createDirectory(atPath: target, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try fm.setAttributes([.posixPermissions: 0o700], ofItemAtPath: target)
        var count = 0
        // Files that come and go while it runs (a new upload's temporary file) are skipped, not fatal.
        for name in (try? fm.contentsOfDirectory(atPath: source)) ?? [] {
            do { count += try copyTree(source + "/" + name, to: target + "/" + name) } catch CocoaError.fileReadNoSuchFile {
                continue
            }
        }
        return count
    }

    /// A database URL without its password.
    static func redacted(_ url: String) -> String {
        guard var parts = URLComponents(string: url), parts.password != nil else { return url }
        parts.password = "PASSWORD"
        return parts.string ?? url
    }
}
