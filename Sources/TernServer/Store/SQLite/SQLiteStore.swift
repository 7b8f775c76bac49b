import Crypto
import Foundation
import GRDB
import Synchronization
import TernProtocol

/// The default ``Store``: one SQLite file in WAL mode, through GRDB.
///
/// `synchronous=NORMAL` in WAL mode: a committed transaction survives a crash of the process
/// (`kill -9`), which is what an acknowledgement promises (guarantee G1 in `research/backend.md`).
public final class SQLiteStore: Store {
    let pool: DatabasePool
    /// The last `ts` given to unread totals (see ``totals(_:_:hint:)``).
    let unreadStamp = Mutex<Int64>(0)
    /// Unread totals of users by id, kept current by the send path (which only adds) and dropped by
    /// every other write that can move them; read and changed only inside write transactions.
    let totalsCache = Mutex<[String: UnreadCount]>([:])

    /// Users someone may block: the blocked ids of the blocks table when the store opened, and every
    /// one blocked since (``block(_:_:at:)``); an unblock takes none away, so a stale one only costs a
    /// look-up. A message from anyone else skips the query for the members who block its sender.
    let mayBeBlocked = Mutex<Set<String>>([])
    /// Channels where a member may have hidden the channel with auto-unhide (kept the same way, by
    /// ``setHidden(_:userId:state:messageOffset:)``): a message anywhere else skips the auto-unhide update.
    let mayAutoUnhide = Mutex<Set<String>>([])

    /// Writes begun and not yet ended (``write(_:)``): whether the writer is free for the send
    /// path's in-place commit on an event loop (``InPlaceMessageInsert/writerIsFree``).
    let writes = Atomic<Int>(0)

    /// Every write of this store: GRDB's writer, counted while it runs or waits for the writer.
    func write<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
        writes.add(1, ordering: .relaxed)
        defer { writes.subtract(1, ordering: .relaxed) }
        let result = try await pool.write(updates)
        checkpointer.committed()
        return result
    }

    /// ``write(_:)`` on the calling thread, blocking it until the commit (the send path's, per message at
    /// low rates). Its `BEGIN` and `COMMIT` are statements prepared once: GRDB's own transaction parses
    /// both again every time.
    func write<T>(_ updates: (Database) throws -> T) throws -> T {
        writes.add(1, ordering: .relaxed)
        defer { writes.subtract(1, ordering: .relaxed) }
        let result = try pool.writeWithoutTransaction { db in
            try db.cachedStatement(sql: "BEGIN DEFERRED").execute()
            do {
                let result = try updates(db)
                try db.cachedStatement(sql: "COMMIT").execute()
                return result
            } catch {
                if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
                throw error
            }
        }
        checkpointer.committed()
        return result
    }

    var writerIsFree: Bool { writes.load(ordering: .relaxed) == 0 }

    /// Drops one user's cached totals, or everyone's (`nil`).
    func forgetTotals(_ userId: String?) {
        totalsCache.withLock { cache in
            if let userId { cache[userId] = nil } else { cache.removeAll() }
        }
    }

    /// Opens (creating if needed) the database at `path` and runs the migrations. `clock` dates
    /// the change log the triggers keep (`tern_now()` in SQL: channel and member change times,
    /// channel tombstones).
    /// - Throws: when the file cannot be opened or migrated.
    /// `searchIndexDelay`: how long after a message is stored the full-text index takes it in
    /// (with whatever else arrived meanwhile); a search catches the index up first in any case.
    public init(path: String, clock: any ServerClock = SystemClock(), searchIndexDelay: Duration = .seconds(1)) throws {
        self.searchIndexDelay = searchIndexDelay
        var config = Configuration()
        let now = DatabaseFunction("tern_now", argumentCount: 0, pure: false) { _ in clock.nowMs() }
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA foreign_keys = ON")
            // The WAL is checkpointed by `checkpointer`, off the write path; this is the backstop
            // should it fall behind (32 MB of WAL).
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(Self.backstopCheckpointPages)")
            db.add(function: now)
        }
        config.busyMode = .timeout(5)
        pool = try DatabasePool(path: path, configuration: config)
        try Self.migrator.migrate(pool)
        let (blocked, hidden) = try pool.read { db in
            (
                try String.fetchSet(db, sql: "SELECT DISTINCT blocked_id FROM blocks"),
                try String.fetchSet(db, sql: "SELECT DISTINCT channel_url FROM members WHERE hidden_state = 'hidden_allow_auto_unhide'")
            )
        }
        mayBeBlocked.withLock { $0 = blocked }
        mayAutoUnhide.withLock { $0 = hidden }
        checkpointer = try WALCheckpointer(path: path)
    }

    /// Whether stored messages may be missing from the full-text index, and whether a catch-up is
    /// scheduled (see ``indexForSearch(_:limit:)``).
    let searchIndex = Mutex(SearchIndexState())
    let searchIndexDelay: Duration

    /// The writer checkpoints by itself only past this many WAL pages.
    static let backstopCheckpointPages = 8192
    let checkpointer: WALCheckpointer

    public func close() async throws {
        checkpointer.stop()
        try pool.close()
    }

    /// Runs a statement prepared once per connection (the send path runs the same few every time).
    static func exec(_ db: Database, sql: String, arguments: StatementArguments) throws {
        try db.cachedStatement(sql: sql).execute(arguments: arguments)
    }

    static func placeholders(_ n: Int) -> String { Array(repeating: "?", count: n).joined(separator: ",") }

    static func json(_ value: some Encodable) -> String {
        (try? String(decoding: JSONEncoder().encode(value), as: UTF8.self)) ?? "null"
    }

    /// A list of ids (mentions, blockers) as JSON, written once per message: no `JSONEncoder`.
    static func json(_ strings: [String]) -> String {
        if strings.isEmpty { return "[]" }
        var w = JSONWriter(capacity: 16 * strings.count)
        w.strings(strings)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// A metaarray as JSON (most messages have none), written as the payload writes it.
    static func json(_ items: [MetaArrayItem]) -> String {
        if items.isEmpty { return "[]" }
        var w = JSONWriter()
        w.metaarray(items)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    static func decodeJSON<T: Decodable>(_ text: String, as: T.Type, default value: T) -> T {
        (try? JSONDecoder().decode(T.self, from: Data(text.utf8))) ?? value
    }

    static func insertUser(_ db: Database, _ u: UserRecord) throws {
        // The identity rule's last line of defence: SQLite compares bytes, so only one spelling
        // of an id may ever be stored (``Identifier``).
        try Identifier.check(u.userId, field: "user_id")
        try db.execute(
            sql: """
                INSERT INTO users(user_id, nickname, profile_url, metadata, created_at, last_seen_at, has_ever_logged_in, is_active,
                  auto_accept)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, COALESCE((
                  SELECT json_extract(json, '$.auto_accept') FROM settings
                  WHERE scope = 'application' AND key = 'default_channel_invitation_preference'), 1))
                """,
            arguments: [
                u.userId, u.nickname, u.profileUrl, json(u.metadata), u.createdAt, u.lastSeenAt, u.hasEverLoggedIn, u.isActive,
            ])
    }

    static func fetchUser(_ db: Database, _ id: String) throws -> UserRecord? {
        try Row.fetchOne(db, sql: "SELECT * FROM users WHERE user_id = ?", arguments: [id]).map(userRecord)
    }

    static func fetchChannel(_ db: Database, _ url: String) throws -> ChannelRecord? {
        try Row.fetchOne(db, sql: "SELECT * FROM group_channels WHERE channel_url = ?", arguments: [url]).map(channelRecord)
    }

    static func recountMembers(_ db: Database, _ url: String) throws {
        try db.execute(
            sql: """
                UPDATE group_channels SET
                  member_count = (SELECT COUNT(*) FROM members WHERE channel_url = ?),
                  joined_member_count = (SELECT COUNT(*) FROM members WHERE channel_url = ? AND state = 'joined')
                WHERE channel_url = ?
                """,
            arguments: [url, url, url])
    }

    static func userRecord(_ row: Row) throws -> UserRecord { try Records.user(row) }
    static func channelRecord(_ row: Row) throws -> ChannelRecord { try Records.channel(row) }
    static func memberRecord(_ row: Row) throws -> MemberRecord { try Records.member(row) }
    static func messageRecord(_ row: Row) throws -> MessageRecord { try Records.message(row) }
}

/// Checkpoints the WAL into the database file from a connection and a thread of its own, as the
/// WAL grows (passive: it never waits for readers or the writer). A checkpoint copies pages and
/// syncs the file; left to SQLite's automatic checkpoint, that happens inside whichever commit
/// crosses 1,000 pages, and every message behind that commit waits for it (tern-bench showed a
/// 15–20 ms p99 at 100 msg/s from it).
///
/// When: every commit is counted (``committed()``, called by ``SQLiteStore/write(_:)`` after each;
/// a GRDB transaction observer would do the same, at the price of GRDB inspecting every statement
/// the writer runs for it). Once ``busyCommits`` have been made, a checkpoint follows at most
/// ``busyInterval`` after the last one (four a second under load, as a timer did before); fewer
/// commits wait up to ``idleInterval``. At low rates a checkpoint a quarter of a second cost more than the messages
/// it carried: its fsyncs, the WAL header's fsync in the next commit (SQLite syncs it when the
/// WAL starts over), and the wake-ups of two threads (issue 35). With no commits nothing runs.
final class WALCheckpointer: Sendable {
    let queue: DatabaseQueue
    let work = DispatchQueue(label: "tern.sqlite.checkpoint", qos: .utility)
    let schedule = Mutex(CheckpointSchedule(last: .now))

    init(path: String) throws {
        var config = Configuration()
        config.busyMode = .timeout(5)
        queue = try DatabaseQueue(path: path, configuration: config)
    }

    /// A write transaction committed: schedules a checkpoint, or an earlier one.
    func committed() {
        guard let due = schedule.withLock({ $0.committed() }) else { return }
        let wait = max(.zero, due - .now).components
        let nanoseconds = Int(wait.seconds) * 1_000_000_000 + Int(wait.attoseconds / 1_000_000_000)
        work.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { self.checkpoint(due) }
    }

    /// Runs the checkpoint due at `due`, unless an earlier one took its place.
    func checkpoint(_ due: ContinuousClock.Instant) {
        if schedule.withLock({ $0.start(due, now: .now) }) {
            _ = try? queue.writeWithoutTransaction { try $0.checkpoint(.passive) }
        }
    }

    func stop() {
        schedule.withLock { $0.stopped = true }
        work.sync {}
        try? queue.close()
    }
}

/// When the next checkpoint is due (``WALCheckpointer``): ``busyInterval`` after the last one once
/// ``busyCommits`` commits have been made since, else ``idleInterval`` after it; never while
/// nothing was committed.
struct CheckpointSchedule {
    static let busyCommits = 64
    static let busyInterval = Duration.milliseconds(250)
    static let idleInterval = Duration.seconds(2)

    /// Commits since the last checkpoint.
    var commits = 0
    /// When the last checkpoint started.
    var last: ContinuousClock.Instant
    /// When the next checkpoint is due (nil: none is scheduled).
    var due: ContinuousClock.Instant?
    var stopped = false

    /// Counts a commit; returns when a checkpoint is now due if that is sooner than the one
    /// scheduled (nil: the one scheduled stays).
    mutating func committed() -> ContinuousClock.Instant? {
        guard !stopped else { return nil }
        commits += 1
        let next = last + (commits >= Self.busyCommits ? Self.busyInterval : Self.idleInterval)
        if let d = due, d <= next { return nil }
        due = next
        return next
    }

    /// Whether the checkpoint scheduled for `at` runs now (false: an earlier one took its place).
    mutating func start(_ at: ContinuousClock.Instant, now: ContinuousClock.Instant) -> Bool {
        guard !stopped, due == at else { return false }
        due = nil
        commits = 0
        last = now
        return true
    }
}

extension SQLText {
    /// The arguments as GRDB binds them (a shared statement never holds a list for SQLite).
    var arguments: StatementArguments {
        StatementArguments(
            args.map { a -> (any DatabaseValueConvertible)? in
                switch a {
                case .text(let s): s
                case .int(let n): n
                case .bool(let b): b
                case .texts(let list): SQLiteStore.json(list)
                }
            })
    }
}
