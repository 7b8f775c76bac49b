import Foundation
public import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization
import TernProtocol

/// The ``Store`` on PostgreSQL (PostgresNIO), for operators who run several `ternd` nodes on one
/// database (`ternd serve --database postgres://USER[:PASSWORD]@HOST:PORT/DB`).
///
/// Every write is one transaction on a pooled connection; `synchronous_commit` is on, so a
/// commit that returned is on disk before the caller acknowledges it (G1). Writes that touch a
/// channel take that channel's transaction-scoped advisory lock first, so concurrent writers — on
/// this node or another — serialize per channel as SQLite's single writer does, and a deadlock or
/// serialization failure is retried.
public final class PostgresStore: Store {
    let client: PostgresClient
    let runTask: Task<Void, Never>
    let clock: any ServerClock
    /// Whether `tern_now()` in SQL must read the injected clock (tests) rather than the server's.
    let setsClock: Bool
    let logger: Logger
    /// The node this store writes for (set on every pooled connection as `tern.node`, which the
    /// message trigger puts in the cluster's event log); nil: no event is written.
    public let nodeId: String?
    let urlParts: URLParts
    /// How many statements this store has sent: each is a round trip to the database.
    let statements = StatementTally()

    /// Connects (the pool opens connections as needed) and runs the migrations.
    /// - Throws: ``ServerStartError`` for a malformed URL; a PostgreSQL error when the database
    ///   cannot be reached or migrated.
    public init(url: String, clock: any ServerClock = SystemClock(), logger: Logger? = nil, nodeId: String? = nil) async throws {
        let logger = logger ?? Self.quietLogger
        let config = try Self.configuration(url)
        self.urlParts = config
        self.nodeId = nodeId
        var poolConfig = PostgresClient.Configuration(
            host: config.host, port: config.port, username: config.user, password: config.password,
            database: config.database, tls: .disable)
        poolConfig.options.maximumConnections = 16
        poolConfig.options.minimumConnections = 0
        if let nodeId { poolConfig.options.additionalStartupParameters = [("tern.node", nodeId)] }
        let client = PostgresClient(configuration: poolConfig, backgroundLogger: logger)
        self.client = client
        self.runTask = Task { await client.run() }
        self.clock = clock
        self.setsClock = !(clock is SystemClock)
        self.logger = logger
        do {
            try await PostgresSchema.migrate(self)
        } catch {
            runTask.cancel()
            throw error
        }
    }

    /// Connection failures are errors the caller sees; the pool's own retries are not worth a line each.
    static var quietLogger: Logger {
        var l = Logger(label: "ternd.postgres")
        l.logLevel = .error
        return l
    }

    public func close() async throws {
        runTask.cancel()
        _ = await runTask.value
    }

    struct URLParts {
        var host: String
        var port: Int
        var user: String
        var password: String?
        var database: String
    }

    /// `postgres://USER[:PASSWORD]@HOST[:PORT]/DB` (also `postgresql://`).
    static func configuration(_ url: String) throws -> URLParts {
        guard let c = URLComponents(string: url), let scheme = c.scheme, ["postgres", "postgresql"].contains(scheme),
            let host = c.host, !host.isEmpty
        else {
            throw ServerStartError("--database must look like postgres://USER[:PASSWORD]@HOST:PORT/DATABASE, got \(url)")
        }
        let db = c.path.hasPrefix("/") ? String(c.path.dropFirst()) : c.path
        let user = c.user ?? ProcessInfo.processInfo.environment["USER"] ?? "postgres"
        return URLParts(
            host: host, port: c.port ?? 5432, user: user, password: c.password, database: db.isEmpty ? user : db)
    }

    // MARK: - Running SQL

    /// Runs `body` on one connection outside a transaction (reads).
    @discardableResult
    func read<T: Sendable>(_ body: @escaping @Sendable (PGConnection) async throws -> T) async throws -> T {
        try await lease { conn in
            try await body(PGConnection(conn: conn, logger: self.logger, tally: self.statements))
        }
    }

    /// How long a caller waits for a pooled connection: while the database is down the pool
    /// cannot open one, and a request fails (500901) instead of hanging until it is back.
    static let leaseTimeout: Duration = .seconds(3)

    /// How long one operation may take once it has its connection: a connection that stopped
    /// answering (a server killed mid-query) must not hold its caller — and every send queued
    /// behind it — forever.
    static let operationTimeout: Duration = .seconds(15)

    /// A pooled connection for `body`. Throws ``PostgresStoreError/unavailable`` when none comes
    /// within ``leaseTimeout`` or the operation outlives ``operationTimeout`` (the stuck task is
    /// cancelled and left behind; a write cut off so was not acknowledged, and a retry with the
    /// same `req_id` finds it if it did commit).
    func lease<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let race = LeaseRace<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                race.start(continuation)
                let work = Task {
                    do {
                        let value = try await self.client.withConnection { conn in
                            race.acquired.store(true, ordering: .releasing)
                            return try await body(conn)
                        }
                        race.finish(.success(value))
                    } catch {
                        race.finish(.failure(error))
                    }
                }
                race.setWork(work)
                // The deadlines are scheduled tasks of an event loop (a timer-heap entry each), not
                // a Swift task per call: this is on the path of every store call.
                let loop = MultiThreadedEventLoopGroup.singleton.next()
                race.setTimer(
                    loop.scheduleTask(in: .init(Self.leaseTimeout)) {
                        if !race.acquired.load(ordering: .acquiring) {
                            race.finish(.failure(PostgresStoreError.unavailable))
                            return
                        }
                        race.setTimer(
                            loop.scheduleTask(in: .init(Self.operationTimeout)) {
                                race.finish(.failure(PostgresStoreError.timedOut))
                            })
                    })
            }
        } onCancel: {
            race.cancel()
        }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    /// A deadlock or serialization failure runs it again (at most 5 times).
    @discardableResult
    func write<T: Sendable>(_ body: @escaping @Sendable (PGConnection) async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await lease { conn in
                    let db = PGConnection(conn: conn, logger: self.logger, tally: self.statements)
                    try await db.execute("BEGIN")
                    do {
                        if self.setsClock {
                            try await db.execute("SELECT set_config('tern.now', ?, true)", [String(self.clock.nowMs())])
                        }
                        let value = try await body(db)
                        try await db.execute("COMMIT")
                        return value
                    } catch {
                        _ = try? await db.execute("ROLLBACK")
                        throw error
                    }
                }
            } catch let error as PostgresStoreError where attempt < 5 && error.isRetryable {
                try? await Task.sleep(for: .milliseconds(Int64.random(in: 1...(5 * Int64(attempt)))))
                continue
            }
        }
    }

    /// SQLSTATE of a PostgreSQL error (nil for other errors).
    static func sqlState(_ error: any Error) -> String? {
        (error as? PostgresStoreError)?.sqlState ?? (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    // MARK: - Shared helpers (dialect-free parts live in `Records.swift`)

    static func json(_ value: some Encodable) -> String { SQLiteStore.json(value) }

    static func decodeJSON<T: Decodable>(_ text: String, as: T.Type, default value: T) -> T {
        SQLiteStore.decodeJSON(text, as: T.self, default: value)
    }

    static func userRecord(_ row: PGRow) throws -> UserRecord { try Records.user(row) }
    static func channelRecord(_ row: PGRow) throws -> ChannelRecord { try Records.channel(row) }
    static func memberRecord(_ row: PGRow) throws -> MemberRecord { try Records.member(row) }
    static func messageRecord(_ row: PGRow) throws -> MessageRecord { try Records.message(row) }

    /// Takes the channel's write lock for the rest of the transaction: writers of one channel
    /// (on any node) go one at a time, in the order they got here.
    static func lockChannel(_ db: PGConnection, _ channelUrl: String) async throws {
        try await db.execute("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", [channelUrl])
    }

    /// Takes a user's write lock for the rest of the transaction (their totals, blocks, settings).
    static func lockUser(_ db: PGConnection, _ userId: String) async throws {
        try await db.execute("SELECT pg_advisory_xact_lock(hashtextextended(?, 1))", [userId])
    }
}

/// A statement PostgreSQL refused, or a connection that failed under it: what the server said
/// (SQLSTATE and message) and the statement's text (never its arguments), for the log.
/// A count of the statements a store sent (each one round trip), which tests read to keep the
/// send path's round trips from growing.
final class StatementTally: Sendable {
    let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .relaxed) }
}

/// A flag one task sets and another reads.
final class LeaseFlag: Sendable {
    let value = Atomic<Bool>(false)
}

/// One ``PostgresStore/lease(_:)``: the first of the work, the lease deadline and the operation
/// deadline to finish resumes the caller; the others find it done.
final class LeaseRace<T: Sendable>: Sendable {
    let acquired = Atomic<Bool>(false)
    struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var work: Task<Void, Never>?
        var timer: Scheduled<Void>?
        var done = false
    }
    let state = Mutex(State())

    func start(_ c: CheckedContinuation<T, any Error>) { state.withLock { $0.continuation = c } }

    func setWork(_ t: Task<Void, Never>) {
        let cancelNow = state.withLock { s -> Bool in
            s.work = t
            return s.done
        }
        if cancelNow { t.cancel() }
    }

    func setTimer(_ t: Scheduled<Void>) {
        let cancelNow = state.withLock { s -> Bool in
            s.timer = t
            return s.done
        }
        if cancelNow { t.cancel() }
    }

    func finish(_ result: Result<T, any Error>) {
        let (c, work, timer) = state.withLock { s -> (CheckedContinuation<T, any Error>?, Task<Void, Never>?, Scheduled<Void>?) in
            guard !s.done else { return (nil, nil, nil) }
            s.done = true
            defer { s.continuation = nil }
            return (s.continuation, s.work, s.timer)
        }
        guard let c else { return }
        timer?.cancel()
        if case .failure = result { work?.cancel() }
        c.resume(with: result)
    }

    func cancel() { finish(.failure(CancellationError())) }
}

struct PostgresStoreError: Error, CustomStringConvertible {
    var sqlState: String?
    var message: String
    var sql: String

    init(_ error: PSQLError, sql: String) {
        sqlState = error.serverInfo?[.sqlState]
        message = error.serverInfo?[.message] ?? "\(error.code)"
        self.sql = sql
    }

    init(sqlState: String?, message: String, sql: String = "") {
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
    }

    /// No pooled connection within ``PostgresStore/leaseTimeout``: the database is down or unreachable.
    static let unavailable = PostgresStoreError(sqlState: "08006", message: "the database is unavailable (no connection)")
    /// An operation that outlived ``PostgresStore/operationTimeout``.
    static let timedOut = PostgresStoreError(sqlState: "57014", message: "the database did not answer in time")

    var isRetryable: Bool { sqlState == "40P01" || sqlState == "40001" }
    /// PostgreSQL refused a statement for what it held (a data exception, an integrity
    /// constraint), not for the connection or the server's state.
    var refusesStatement: Bool { sqlState.map { $0.hasPrefix("22") || $0.hasPrefix("23") } ?? false }

    var description: String {
        let oneLine = sql.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        return "PostgreSQL \(sqlState ?? "error"): \(message) [\(oneLine.prefix(300))]"
    }
}

// MARK: - A connection, rows and arguments

/// A value that binds to a `?` placeholder.
protocol PGBindable: Sendable {
    func bind(into binds: inout PostgresBindings)
}

extension String: PGBindable { func bind(into b: inout PostgresBindings) { b.append(self) } }
extension Int: PGBindable { func bind(into b: inout PostgresBindings) { b.append(Int64(self)) } }
extension Int64: PGBindable { func bind(into b: inout PostgresBindings) { b.append(self) } }
extension Int32: PGBindable { func bind(into b: inout PostgresBindings) { b.append(Int64(self)) } }
extension Bool: PGBindable { func bind(into b: inout PostgresBindings) { b.append(self) } }
extension Double: PGBindable { func bind(into b: inout PostgresBindings) { b.append(self) } }
/// Binds as `bytea`.
extension Data: PGBindable { func bind(into b: inout PostgresBindings) { b.append(ByteBuffer(bytes: self)) } }
/// Binds as `text[]`: use with `= ANY(?)` / `<> ALL(?)`.
extension Array: PGBindable where Element == String { func bind(into b: inout PostgresBindings) { b.append(self) } }
extension Optional: PGBindable where Wrapped: PGBindable {
    func bind(into b: inout PostgresBindings) {
        switch self {
        case .none: b.appendNull()
        case .some(let v): v.bind(into: &b)
        }
    }
}

/// One leased connection. SQL is written with `?` placeholders (turned into `$1…`, outside
/// quoted strings); arguments bind in order.
struct PGConnection {
    let conn: PostgresConnection
    let logger: Logger
    var tally: StatementTally?

    static func numbered(_ sql: String) -> String {
        var out = ""
        out.reserveCapacity(sql.utf8.count + 16)
        var n = 0
        var inString = false
        for ch in sql {
            if ch == "'" { inString.toggle() }
            if ch == "?" && !inString {
                n += 1
                out += "$\(n)"
            } else {
                out.append(ch)
            }
        }
        return out
    }

    func run(_ sql: String, _ args: [any PGBindable]) async throws -> PostgresQueryResult {
        var binds = PostgresBindings(capacity: args.count)
        for a in args { a.bind(into: &binds) }
        let query = PostgresQuery(unsafeSQL: Self.numbered(sql), binds: binds)
        tally?.count.add(1, ordering: .relaxed)
        do {
            return try await conn.query(query, logger: logger).get()
        } catch let e as PSQLError {
            throw PostgresStoreError(e, sql: sql)
        }
    }

    /// Runs a statement; returns how many rows it changed.
    @discardableResult
    func execute(_ sql: String, _ args: [any PGBindable] = []) async throws -> Int {
        try await run(sql, args).metadata.rows ?? 0
    }

    func fetchAll(_ t: SQLText) async throws -> [PGRow] { try await fetchAll(t.sql, t.bindables) }

    /// Runs a statement of the hot paths prepared: PostgreSQL parses and plans it once per
    /// connection (PostgresNIO keeps it by name), not at every run. Measured on the send path
    /// (`log_min_duration_statement = 0`, two nodes at 100 msg/s): parsing and planning — a bind of
    /// an unnamed statement plans it — took 1.4 ms of the channel read's 3.1 ms and of the event
    /// log's read's 1.9 ms.
    ///
    /// Only for statements that run outside a transaction (each its own): one that fails prepared
    /// runs once more unprepared, which an aborted transaction would refuse. That covers a result
    /// whose columns changed under the statement (0A000: a newer node altered a table it reads) and
    /// a preparation that failed once (PostgresNIO answers every later run of that name on that
    /// connection with the same error); a failed statement outside a transaction wrote nothing.
    /// After a 0A000 this process runs that statement unprepared from then on: PostgreSQL would
    /// refuse it prepared on every connection that prepared it before the change.
    func fetchAll<Text: PGPreparedText>(prepared: Text.Type, _ args: [any PGBindable]) async throws -> [PGRow] {
        let name = PGPrepared<Text>.name
        if Self.unprepared.withLock({ $0.contains(name) }) { return try await fetchAll(Text.sql, args) }
        var binds = PostgresBindings(capacity: args.count)
        for a in args { a.bind(into: &binds) }
        tally?.count.add(1, ordering: .relaxed)
        do {
            var rows: [PGRow] = []
            for try await row in try await conn.execute(PGPrepared<Text>(binds: binds), logger: logger) {
                rows.append(PGRow(row: row.makeRandomAccess()))
            }
            return rows
        } catch let e as PSQLError {
            if e.serverInfo?[.sqlState] == "0A000" { _ = Self.unprepared.withLock { $0.insert(name) } }
            return try await fetchAll(Text.sql, args)
        }
    }

    /// The prepared statements this process runs unprepared (see ``fetchAll(prepared:_:)``).
    static let unprepared = Mutex<Set<String>>([])

    func fetchAll(_ sql: String, _ args: [any PGBindable] = []) async throws -> [PGRow] {
        try await run(sql, args).rows.map { PGRow(row: $0.makeRandomAccess()) }
    }

    func fetchOne(_ sql: String, _ args: [any PGBindable] = []) async throws -> PGRow? {
        try await run(sql, args).rows.first.map { PGRow(row: $0.makeRandomAccess()) }
    }

    /// The first column of the first row (nil when there is no row or it is NULL).
    func scalar<T: PostgresDecodable>(_ sql: String, _ args: [any PGBindable] = [], as: T.Type = T.self) async throws -> T?
    where T._DecodableType == T {
        guard let row = try await run(sql, args).rows.first else { return nil }
        return try row.makeRandomAccess()[0].decode(T?.self)
    }

    /// The first column of every row.
    func column<T: PostgresDecodable>(_ sql: String, _ args: [any PGBindable] = [], as: T.Type = T.self) async throws -> [T] {
        try await run(sql, args).rows.map { try $0.makeRandomAccess()[0].decode(T.self) }
    }

    /// Runs `body` in a savepoint: a throw rolls back only what it did.
    func inSavepoint<T>(_ body: () async throws -> T) async throws -> T {
        try await execute("SAVEPOINT tern_sp")
        do {
            let v = try await body()
            try await execute("RELEASE SAVEPOINT tern_sp")
            return v
        } catch {
            _ = try? await execute("ROLLBACK TO SAVEPOINT tern_sp")
            _ = try? await execute("RELEASE SAVEPOINT tern_sp")
            throw error
        }
    }
}

/// The text of a statement run prepared (``PGConnection/fetchAll(prepared:_:)``), its
/// placeholders numbered (`static let sql = PGConnection.numbered("… ? …")`, once); the type's
/// name is the statement's name on each connection.
protocol PGPreparedText {
    static var sql: String { get }
}

/// ``PGPreparedText`` as PostgresNIO prepares it: its rows as they come.
struct PGPrepared<Text: PGPreparedText>: PostgresPreparedStatement {
    typealias Row = PostgresRow
    static var name: String { String(reflecting: Text.self) }
    static var sql: String { Text.sql }
    let binds: PostgresBindings
    func makeBindings() throws -> PostgresBindings { binds }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

/// A row read by column name or position: `let id: Int64 = try row["message_id"]`.
struct PGRow {
    let row: PostgresRandomAccessRow

    subscript<T: PostgresDecodable>(_ column: String) -> T {
        get throws { try row[column].decode(T.self) }
    }

    subscript<T: PostgresDecodable>(_ index: Int) -> T {
        get throws { try row[index].decode(T.self) }
    }

    func has(_ column: String) -> Bool { row.contains(column) }
}

extension SQLText {
    /// The arguments as PostgresNIO binds them.
    var bindables: [any PGBindable] {
        args.map { a -> any PGBindable in
            switch a {
            case .text(let s): s
            case .int(let n): n
            case .bool(let b): b
            case .texts(let list): list
            }
        }
    }
}
