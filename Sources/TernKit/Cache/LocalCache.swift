public import Foundation
import GRDB
public import Logging
import Synchronization
import TernProtocol

/// A continuous run of a channel's messages the cache holds with nothing missing: every message
/// the server has with `oldest ≤ created_at ≤ newest` is in the cache (Sendbird's "chunk").
public struct MessageRange: Sendable, Equatable {
    /// Created time (ms) of the oldest message of the run.
    public var oldest: Millis
    /// Created time (ms) up to which the run is known complete.
    public var newest: Millis
    /// The run starts at the channel's first message (nothing older on the server).
    public var reachesStart: Bool

    public init(oldest: Millis, newest: Millis, reachesStart: Bool) {
        self.oldest = oldest
        self.newest = newest
        self.reachesStart = reachesStart
    }
}

/// The engine's offline cache: one SQLite file per server and user (through GRDB) holding the
/// user, channels, messages with the runs known complete, messages not yet sent (pending and
/// failed), and sync points (changelog tokens, the last login time).
///
/// The cache never stops the client: a file that is not SQLite, belongs to another server or
/// user, or fails its migrations is moved aside (`….corrupt-<ms>`) and a new one is made; a write
/// that fails is logged and dropped.
public final class LocalCache: Sendable {
    public let path: String
    /// Largest size of the data (ms); the least recently opened channels' messages go first past it.
    public let maxBytes: Int64
    /// The file that was moved aside when this cache was opened, if any.
    public let movedAside: String?
    let db: DatabaseQueue
    let logger: Logger
    /// Channel saves and live messages wait here up to ``batchDelay`` and go in one transaction: a busy
    /// session writes once a second, not three times a message. Every other write and every read takes
    /// them first, so the order stays and reads see them.
    let pending = Mutex(Pending())
    struct Pending {
        var channels: [String: GroupChannel] = [:]
        var channelOrder: [String] = []
        var live: [(message: Message, extend: Bool)] = []
        var scheduled = false
        var isEmpty: Bool { channels.isEmpty && live.isEmpty }
    }
    static let flushQueue = DispatchQueue(label: "tern.cache.flush")
    /// How long writes may wait to be batched (ms).
    public static let batchDelay = 1000

    /// 'TERN' in `PRAGMA application_id`: a file without it is not ours.
    static let applicationId: Int32 = 0x5445_524E
    public static let defaultMaxBytes: Int64 = 256 * 1024 * 1024

    /// The cache directory: `$XDG_CACHE_HOME/tern`, else `~/.cache/tern`.
    public static func defaultDirectory(_ env: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let x = env["XDG_CACHE_HOME"], !x.isEmpty { return x + "/tern" }
        let home = env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.cache/tern"
    }

    /// `<host>_<port>-<app>-<user>.sqlite`, with anything unusual in a file name percent-encoded.
    /// `name`, when given, stands for the server (a stable name, e.g. the embedded server's `embedded`).
    public static func fileName(server: ServerAddress, appId: String, userId: String, name: String? = nil) -> String {
        let host = name ?? server.apiBase.replacingOccurrences(of: "https://", with: "s_").replacingOccurrences(of: "http://", with: "")
        func clean(_ s: String) -> String {
            var out = ""
            for u in s.unicodeScalars {
                if (u.isASCII && (u.properties.isAlphabetic || u.properties.numericType != nil)) || u == "." || u == "-" || u == "_" {
                    out.unicodeScalars.append(u)
                } else {
                    out += String(format: "%%%02X", u.value & 0xFF)
                }
            }
            return out
        }
        return "\(clean(host))-\(clean(appId))-\(clean(userId)).sqlite"
    }

    /// Opens (or makes) the cache for `owner` at `path`. Never throws for a bad file: it is moved
    /// aside and replaced. Throws only when no file can be made at all (an unwritable directory).
    public init(path: String, owner: String, maxBytes: Int64 = LocalCache.defaultMaxBytes, logger: Logger = Logger(label: "tern.cache")) throws {
        self.path = path
        self.maxBytes = max(64 * 1024, maxBytes)
        self.logger = logger
        // The cache holds the user's messages: their own only (the directory 0700, the files 0600).
        let dir = (path as NSString).deletingLastPathComponent
        if !FileManager.default.fileExists(atPath: dir) {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: dir)
        }
        defer { Self.restrict(path) }
        var aside: String?
        do {
            db = try Self.open(path, owner: owner)
        } catch {
            let target = path + ".corrupt-\(Int64(Date().timeIntervalSince1970 * 1000))"
            logger.warning("cache \(path) unusable (\(error)); moved aside to \(target)")
            try? FileManager.default.moveItem(atPath: path, toPath: target)
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            aside = target
            db = try Self.open(path, owner: owner)
        }
        movedAside = aside
    }

    /// Makes the cache file and its WAL and shared-memory files readable by their owner only.
    static func restrict(_ path: String) {
        let fm = FileManager.default
        for p in [path, path + "-wal", path + "-shm"] where fm.fileExists(atPath: p) {
            try? fm.setAttributes([.posixPermissions: 0o600], ofItemAtPath: p)
        }
    }

    struct NotOurs: Error, CustomStringConvertible {
        var description: String
    }

    static func open(_ path: String, owner: String) throws -> DatabaseQueue {
        var config = Configuration()
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        config.busyMode = .timeout(2)
        let queue = try DatabaseQueue(path: path, configuration: config)
        do {
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA journal_mode = WAL")
                let app = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
                let tables = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0
                if app == 0 && tables == 0 {
                    try db.execute(sql: "PRAGMA application_id = \(applicationId)")
                } else if app != applicationId {
                    throw NotOurs(description: "not a tern cache (application_id \(app))")
                }
            }
            try migrator.migrate(queue)
            try queue.write { db in
                if let stored = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'owner'") {
                    guard stored == owner else { throw NotOurs(description: "the cache of \(stored), not \(owner)") }
                } else {
                    try db.execute(sql: "INSERT INTO meta(key, value) VALUES ('owner', ?)", arguments: [owner])
                }
                _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM messages")
            }
        } catch {
            try? queue.close()
            throw error
        }
        return queue
    }

    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                    CREATE TABLE channels (
                        url TEXT PRIMARY KEY NOT NULL,
                        json BLOB NOT NULL,
                        last_activity INTEGER NOT NULL DEFAULT 0,
                        opened_at INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE TABLE messages (
                        channel_url TEXT NOT NULL,
                        message_id INTEGER NOT NULL,
                        created_at INTEGER NOT NULL,
                        json BLOB NOT NULL,
                        PRIMARY KEY (channel_url, message_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX messages_time ON messages(channel_url, created_at);
                    CREATE TABLE ranges (
                        channel_url TEXT PRIMARY KEY NOT NULL,
                        oldest INTEGER NOT NULL,
                        newest INTEGER NOT NULL,
                        reaches_start INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE TABLE outbox (
                        request_id TEXT PRIMARY KEY NOT NULL,
                        channel_url TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        status TEXT NOT NULL,
                        json BLOB NOT NULL
                    );
                    """)
        }
        return m
    }

    public func close() {
        flushPending()
        try? db.close()
    }

    /// Writes what waits in the batch now.
    public func flushPending() {
        let batch = pending.withLock { p -> Pending in
            let b = p
            p = Pending()
            return b
        }
        guard !batch.isEmpty else { return }
        writeNow("batch") { db in
            for url in batch.channelOrder {
                guard let c = batch.channels[url] else { continue }
                try Self.saveChannel(c, db)
            }
            for (m, extend) in batch.live { try Self.saveLive(m, extend: extend, db) }
        }
    }

    func enqueue(_ change: (inout Pending) -> Void) {
        let schedule = pending.withLock { p -> Bool in
            change(&p)
            if p.scheduled || p.isEmpty { return false }
            p.scheduled = true
            return true
        }
        guard schedule else { return }
        Self.flushQueue.asyncAfter(deadline: .now() + .milliseconds(Self.batchDelay)) { [weak self] in self?.flushPending() }
    }

    // MARK: - Plumbing

    static let encoder = JSONEncoder()
    static let decoder = JSONDecoder()

    @discardableResult
    func write<T>(_ what: String, _ body: (Database) throws -> T) -> T? {
        flushPending()
        return writeNow(what, body)
    }

    @discardableResult
    func writeNow<T>(_ what: String, _ body: (Database) throws -> T) -> T? {
        do { return try db.write(body) } catch {
            logger.warning("cache write (\(what)) failed: \(error)")
            return nil
        }
    }

    func read<T>(_ what: String, _ body: (Database) throws -> T) -> T? {
        flushPending()
        do { return try db.read(body) } catch {
            logger.warning("cache read (\(what)) failed: \(error)")
            return nil
        }
    }

    // MARK: - Sync points

    public func value(_ key: String) -> String? {
        read("meta") { try String.fetchOne($0, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key]) } ?? nil
    }

    public func setValue(_ value: String?, for key: String) {
        write("meta") { db in
            if let value {
                try db.execute(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", arguments: [key, value])
            } else {
                try db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [key])
            }
        }
    }

    /// The signed-in user as last seen, for an offline start.
    public var user: User? {
        get { value("user").flatMap { try? Self.decoder.decode(User.self, from: Data($0.utf8)) } }
        set { setValue(newValue.flatMap { try? String(decoding: Self.encoder.encode($0), as: UTF8.self) }, for: "user") }
    }

    // MARK: - Channels

    /// Saved with the next batch (the newest state of each channel).
    public func saveChannels(_ channels: [GroupChannel]) {
        guard !channels.isEmpty else { return }
        enqueue { p in
            for c in channels {
                if p.channels.updateValue(c, forKey: c.url) == nil { p.channelOrder.append(c.url) }
            }
        }
    }

    static func saveChannel(_ c: GroupChannel, _ db: Database) throws {
        // Cached statements for the once-a-second batch: `execute(sql:)` parses the SQL every time.
        try db.cachedStatement(
            sql: """
                INSERT INTO channels(url, json, last_activity) VALUES (?, ?, ?)
                ON CONFLICT(url) DO UPDATE SET json = excluded.json, last_activity = excluded.last_activity
                """
        ).execute(arguments: [c.url, try c.cacheJSON(), c.lastActivity])
    }

    /// A channel left the list (deleted, left, hidden): it goes with its messages and unsent ones.
    public func removeChannel(_ url: String) {
        write("remove channel") { db in
            for table in ["channels WHERE url", "messages WHERE channel_url", "ranges WHERE channel_url", "outbox WHERE channel_url"] {
                try db.execute(sql: "DELETE FROM \(table) = ?", arguments: [url])
            }
        }
    }

    /// Channels by latest activity, newest first.
    public func channels() -> [GroupChannel] {
        read("channels") { db in
            try Data.fetchAll(db, sql: "SELECT json FROM channels ORDER BY last_activity DESC, url").compactMap {
                try? Self.decoder.decode(GroupChannel.self, from: $0)
            }
        } ?? []
    }

    /// The user opened `url` (eviction removes the least recently opened first).
    public func markOpened(_ url: String, at now: Millis) {
        write("opened") { try $0.execute(sql: "UPDATE channels SET opened_at = ? WHERE url = ?", arguments: [now, url]) }
    }

    // MARK: - Messages

    public func range(_ url: String) -> MessageRange? {
        read("range") { db in
            try Row.fetchOne(db, sql: "SELECT oldest, newest, reaches_start FROM ranges WHERE channel_url = ?", arguments: [url]).map {
                MessageRange(oldest: $0["oldest"], newest: $0["newest"], reachesStart: $0["reaches_start"])
            }
        } ?? nil
    }

    /// Stores a page the server gave: every message of `url` created in `[from, to]` is in
    /// `messages` (`from` 0: from the channel's start). A run that touches or overlaps the one held
    /// joins it; a newer run that does not replaces it (the older messages go, so what is held
    /// stays continuous); an older disjoint run is not kept as a run.
    public func savePage(_ messages: [Message], url: String, from: Millis, to: Millis) {
        write("page") { db in
            let existing = try Row.fetchOne(db, sql: "SELECT oldest, newest, reaches_start FROM ranges WHERE channel_url = ?", arguments: [url])
            let lo = from <= 0 ? (messages.map(\.createdAt).min() ?? to) : from
            let start = from <= 0
            var range = MessageRange(oldest: lo, newest: to, reachesStart: start)
            if let e = existing {
                let old = MessageRange(oldest: e["oldest"], newest: e["newest"], reachesStart: e["reaches_start"])
                // Overlapping or touching (times are whole ms): one run.
                if lo <= old.newest + 1 && to + 1 >= old.oldest {
                    range = MessageRange(
                        oldest: min(lo, old.oldest), newest: max(to, old.newest),
                        reachesStart: lo <= old.oldest ? start : old.reachesStart)
                } else if lo > old.newest {
                    try db.execute(sql: "DELETE FROM messages WHERE channel_url = ? AND created_at < ?", arguments: [url, lo])
                } else {
                    try Self.upsert(messages, db)
                    return
                }
            }
            try Self.upsert(messages, db)
            try db.execute(
                sql: "INSERT OR REPLACE INTO ranges(channel_url, oldest, newest, reaches_start) VALUES (?, ?, ?, ?)",
                arguments: [url, range.oldest, range.newest, range.reachesStart])
        }
    }

    /// A message arrived live. `extend`: the channel's run is current (synced on this connection), so
    /// the run now reaches this message; otherwise it is kept but the run waits for a gap fill.
    public func saveLive(_ message: Message, extend: Bool) {
        guard message.messageId > 0 else { return }
        enqueue { $0.live.append((message, extend)) }
    }

    static func saveLive(_ message: Message, extend: Bool, _ db: Database) throws {
        try upsert([message], db)
        if extend {
            try db.cachedStatement(sql: "UPDATE ranges SET newest = max(newest, ?) WHERE channel_url = ?").execute(
                arguments: [message.createdAt, message.channelUrl])
            if db.changesCount == 0 {
                try db.cachedStatement(sql: "INSERT INTO ranges(channel_url, oldest, newest, reaches_start) VALUES (?, ?, ?, 0)").execute(
                    arguments: [message.channelUrl, message.createdAt, message.createdAt])
            }
        }
    }

    /// The run reaches every message held after it: after a gap fill on a live connection, messages
    /// that arrived live while the fill was under way are complete up to the newest of them.
    public func extendToHeld(_ url: String) {
        write("extend") { db in
            try db.execute(
                sql: """
                    UPDATE ranges SET newest = max(newest, (SELECT coalesce(max(created_at), 0) FROM messages WHERE channel_url = ?))
                    WHERE channel_url = ?
                    """,
                arguments: [url, url])
        }
    }

    /// A message changed: the held copy is replaced (nothing happens if it is not held).
    public func updateMessage(_ message: Message) {
        guard message.messageId > 0 else { return }
        write("update") { db in
            try db.execute(
                sql: "UPDATE messages SET json = ? WHERE channel_url = ? AND message_id = ?",
                arguments: [try Self.stored(message).cacheJSON(), message.channelUrl, message.messageId])
        }
    }

    /// Changes a held message in place (reactions, thread info).
    public func modifyMessage(_ url: String, _ id: Int64, _ change: (inout Message) -> Void) {
        write("modify") { db in
            guard let data = try Data.fetchOne(db, sql: "SELECT json FROM messages WHERE channel_url = ? AND message_id = ?", arguments: [url, id]),
                var m = try? Self.decoder.decode(Message.self, from: data)
            else { return }
            change(&m)
            try db.execute(
                sql: "UPDATE messages SET json = ? WHERE channel_url = ? AND message_id = ?",
                arguments: [try m.cacheJSON(), url, id])
        }
    }

    public func deleteMessage(_ url: String, _ id: Int64) {
        write("delete") { try $0.execute(sql: "DELETE FROM messages WHERE channel_url = ? AND message_id = ?", arguments: [url, id]) }
    }

    /// Forgets a channel's messages (a huge gap: the run starts again at the newest page).
    public func resetMessages(_ url: String) {
        write("reset") { db in
            try db.execute(sql: "DELETE FROM messages WHERE channel_url = ?", arguments: [url])
            try db.execute(sql: "DELETE FROM ranges WHERE channel_url = ?", arguments: [url])
        }
    }

    /// Up to `limit` held messages of the run before `before` (ms, exclusive; nil: the newest),
    /// oldest first, and whether more may exist before them (in the cache or on the server).
    public func messages(_ url: String, before: Millis? = nil, limit: Int = 50) -> MessagePage? {
        read("messages") { db -> MessagePage? in
            guard
                let r = try Row.fetchOne(db, sql: "SELECT oldest, newest, reaches_start FROM ranges WHERE channel_url = ?", arguments: [url])
            else { return nil }
            let oldest: Millis = r["oldest"]
            let newest: Millis = r["newest"]
            let start: Bool = r["reaches_start"]
            let upper = min(before.map { $0 - 1 } ?? Millis.max, newest)
            let rows = try Data.fetchAll(
                db,
                sql: """
                    SELECT json FROM messages WHERE channel_url = ? AND created_at >= ? AND created_at <= ?
                    ORDER BY created_at DESC, message_id DESC LIMIT ?
                    """,
                arguments: [url, oldest, upper, limit])
            let list = rows.compactMap { try? Self.decoder.decode(Message.self, from: $0) }.reversed()
            let more = list.count == limit || !start
            return MessagePage(messages: Array(list), hasPrevious: more)
        } ?? nil
    }

    /// Every held message of `url` in the run, oldest first (tests, checks).
    public func allMessages(_ url: String) -> [Message] {
        read("all") { db in
            guard let r = try Row.fetchOne(db, sql: "SELECT oldest, newest FROM ranges WHERE channel_url = ?", arguments: [url]) else { return [] }
            return try Data.fetchAll(
                db,
                sql: "SELECT json FROM messages WHERE channel_url = ? AND created_at BETWEEN ? AND ? ORDER BY created_at, message_id",
                arguments: [url, r["oldest"] as Millis, r["newest"] as Millis]
            ).compactMap { try? Self.decoder.decode(Message.self, from: $0) }
        } ?? []
    }

    static func stored(_ m: Message) -> Message {
        var m = m
        m.status = .succeeded
        m.error = nil
        return m
    }

    static func upsert(_ messages: [Message], _ db: Database) throws {
        for m in messages where m.messageId > 0 {
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO messages(channel_url, message_id, created_at, json) VALUES (?, ?, ?, ?)").execute(
                arguments: [m.channelUrl, m.messageId, m.createdAt, try stored(m).cacheJSON()])
        }
    }

    // MARK: - Unsent messages

    /// A message of ours not stored by the server yet (pending), or refused (failed, with its error).
    public func saveUnsent(_ message: Message) {
        guard let id = message.requestId else { return }
        write("outbox") { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO outbox(request_id, channel_url, created_at, status, json) VALUES (?, ?, ?, ?, ?)",
                arguments: [id, message.channelUrl, message.createdAt, message.status.rawValue, try message.cacheJSON()])
        }
    }

    public func removeUnsent(_ requestId: String) {
        write("outbox") { try $0.execute(sql: "DELETE FROM outbox WHERE request_id = ?", arguments: [requestId]) }
    }

    /// Unsent messages, oldest first (of one channel, or all).
    public func unsent(_ url: String? = nil) -> [Message] {
        read("outbox") { db in
            let rows: [Data]
            if let url {
                rows = try Data.fetchAll(db, sql: "SELECT json FROM outbox WHERE channel_url = ? ORDER BY created_at, request_id", arguments: [url])
            } else {
                rows = try Data.fetchAll(db, sql: "SELECT json FROM outbox ORDER BY created_at, request_id")
            }
            return rows.compactMap { try? Self.decoder.decode(Message.self, from: $0) }
        } ?? []
    }

    // MARK: - Size

    /// Bytes the data takes (pages in use).
    public var usedBytes: Int64 {
        read("size") { db in
            let pages = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            let free = try Int64.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
            let size = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
            return (pages - free) * size
        } ?? 0
    }

    /// Past ``maxBytes``, drops the messages of the least recently opened channels (never `keep`)
    /// until the data is under 90% of it. Returns the channels whose messages went.
    @discardableResult
    public func enforceLimit(keep: Set<String> = []) -> [String] {
        guard usedBytes > maxBytes else { return [] }
        let order =
            read("eviction order") { db in
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT r.channel_url FROM ranges r LEFT JOIN channels c ON c.url = r.channel_url
                        ORDER BY coalesce(c.opened_at, 0), coalesce(c.last_activity, 0)
                        """)
            } ?? []
        var evicted: [String] = []
        for url in order where !keep.contains(url) {
            resetMessages(url)
            evicted.append(url)
            if usedBytes <= maxBytes * 9 / 10 { break }
        }
        if !evicted.isEmpty { logger.info("cache over \(maxBytes) bytes: dropped the messages of \(evicted.count) channels") }
        return evicted
    }
}
