import Foundation
import GRDB
import TernProtocol

/// Message search (``SearchStore``) on SQLite.
extension SQLiteStore {
    public func searchMessages(_ q: MessageSearch) async throws -> (messages: [MessageRecord], total: Int) {
        try await catchUpSearchIndex()
        return try await pool.read { db in
            let search = MessageSearchSQL(
                q, source: "messages_fts f JOIN messages m ON m.message_id = f.rowid", match: "messages_fts MATCH ?", matchArg: .text(q.match))
            let base = search.base.sql
            let order = q.byScore ? "f.rank, m.created_at DESC, m.message_id DESC" : search.order
            let args = search.base.arguments
            do {
                let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) \(base)", arguments: args) ?? 0
                let rows = try Row.fetchAll(
                    db, sql: "SELECT m.* \(base) ORDER BY \(order) LIMIT ? OFFSET ?", arguments: args + [q.limit, q.offset])
                return (try rows.map(Self.messageRecord), total)
            } catch let e as DatabaseError where e.message?.contains("fts5") == true || e.resultCode == .SQLITE_ERROR {
                throw SendbirdError(.invalidValue, "Invalid value: \"query\" cannot be searched (\(e.message ?? "syntax")).")
            }
        }
    }

    public func searchVocabulary(_ pattern: SearchQuery.TermPattern) async throws -> [String] {
        try await catchUpSearchIndex()
        return try await pool.read { db in
            switch pattern {
            case .word(let w):
                return try String.fetchAll(db, sql: "SELECT term FROM messages_fts_vocab WHERE term = ?", arguments: [w])
            case .glob(let g):
                return try String.fetchAll(
                    db, sql: "SELECT term FROM messages_fts_vocab WHERE term GLOB ? ORDER BY doc DESC LIMIT 200", arguments: [g])
            case .fuzzy(let w):
                let d = SearchQuery.fuzzyDistance(w)
                if d == 0 { return try String.fetchAll(db, sql: "SELECT term FROM messages_fts_vocab WHERE term = ?", arguments: [w]) }
                let candidates = try String.fetchAll(
                    db, sql: "SELECT term FROM messages_fts_vocab WHERE length(term) BETWEEN ? AND ? LIMIT 20000",
                    arguments: [w.count - d, w.count + d])
                return Array(candidates.filter { SearchQuery.editDistance($0, w, limit: d) <= d }.prefix(200))
            }
        }
    }

    public func messageCount(_ channelUrl: String) async throws -> Int {
        try await pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM messages WHERE channel_url = ?", arguments: [channelUrl]) ?? 0
        }
    }
}
