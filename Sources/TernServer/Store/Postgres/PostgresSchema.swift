import Foundation
import PostgresNIO

/// The PostgreSQL schema: migrations of its own, versioned like the SQLite ones, applied in
/// order once each (recorded in `tern_migrations`). Several nodes starting at once take turns
/// (an advisory lock), so each migration runs exactly once.
enum PostgresSchema {
    /// (name, SQL) in order. Never edit one that has shipped: add another.
    static let migrations: [(name: String, sql: String)] = [
        // FILLED IN BY THE SCHEMA PORT
    ]

    static func migrate(_ store: PostgresStore) async throws {
        try await store.client.withConnection { conn in
            let db = PGConnection(conn: conn, logger: store.logger)
            try await db.execute("SELECT pg_advisory_lock(7347)")
            do {
                try await db.execute("CREATE TABLE IF NOT EXISTS tern_migrations (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
                let done = Set(try await db.column("SELECT name FROM tern_migrations", as: String.self))
                for m in migrations where !done.contains(m.name) {
                    try await db.execute("BEGIN")
                    do {
                        // Simple query protocol: several statements (and $$-quoted bodies) in one.
                        try await conn.simpleQuery(m.sql).get()
                        try await db.execute("INSERT INTO tern_migrations(name) VALUES (?)", [m.name])
                        try await db.execute("COMMIT")
                    } catch {
                        try? await db.execute("ROLLBACK")
                        throw error
                    }
                }
            } catch {
                try? await db.execute("SELECT pg_advisory_unlock(7347)")
                throw error
            }
            try await db.execute("SELECT pg_advisory_unlock(7347)")
        }
    }
}
