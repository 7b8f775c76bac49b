import GRDB
import Synchronization

/// Where the full-text index stands against the messages table (in memory; the database keeps
/// `search_index_state.indexed_upto`, so a restart after a crash catches up from there).
struct SearchIndexState {
    /// Messages may have been stored since the index last caught up.
    var behind = true
    /// A catch-up task is waiting to run.
    var scheduled = false
    /// Counts the messages stored: a catch-up marks the index caught up, after its commit, only if no
    /// message was stored since its transaction (readers see the index only once it is committed).
    var generation = 0
}

/// The full-text index (FTS5 `messages_fts`) is kept after commit, not inside each message's
/// transaction: a message's transaction writing the index made a new FTS5 segment per commit, about
/// half the store's cost of a message sent alone (issue 35). New messages are indexed in batches a
/// moment later (``searchIndexDelay``) and before every search, so a search sees every message
/// stored before it, as it did. The triggers on edits and deletions touch the index only for
/// messages already in it (migration v18).
extension SQLiteStore {
    /// The most messages one catch-up transaction indexes; a backlog takes several, so that sends
    /// queued behind the writer wait for one short batch at most.
    static let searchIndexBatch = 128

    /// Called inside the transaction that stored a message: the index is behind; a catch-up runs
    /// after ``searchIndexDelay`` unless one is already waiting.
    func noteUnindexed() {
        let schedule = searchIndex.withLock { s in
            s.behind = true
            s.generation &+= 1
            if s.scheduled { return false }
            s.scheduled = true
            return true
        }
        guard schedule else { return }
        let delay = searchIndexDelay
        Task { [weak self] in
            try? await Task.sleep(for: delay)
            guard let self else { return }
            self.searchIndex.withLock { $0.scheduled = false }
            try? await self.catchUpSearchIndex()
        }
    }

    /// Indexes every message stored before the call (a batch per transaction). Searches call it
    /// first. It ends at the first batch that reached the newest message of its transaction, which
    /// began after the call: messages sent meanwhile do not keep a search waiting.
    func catchUpSearchIndex() async throws {
        guard searchIndex.withLock({ $0.behind }) else { return }
        var done = false
        while !done {
            do {
                let (reached, generation) = try await self.write { db in
                    (try self.indexForSearch(db, limit: Self.searchIndexBatch), self.searchIndex.withLock { $0.generation })
                }
                done = reached
                // Committed now: a search that finds `behind` false reads an index with every message in it.
                if reached { searchIndex.withLock { s in if s.generation == generation { s.behind = false } } }
            } catch {
                searchIndex.withLock { $0.behind = true }  // rolled back: still behind
                throw error
            }
        }
    }

    /// Indexes up to `limit` messages past `indexed_upto`, in id order, inside `db`'s write
    /// transaction. Whether the index is then caught up is for the caller to mark, after the commit.
    /// - Returns: whether it reached the newest id.
    @discardableResult
    func indexForSearch(_ db: Database, limit: Int) throws -> Bool {
        let upto = try Int64.fetchOne(db.cachedStatement(sql: "SELECT indexed_upto FROM search_index_state")) ?? 0
        let last = try Int64.fetchOne(db.cachedStatement(sql: "SELECT seq FROM sqlite_sequence WHERE name = 'messages'")) ?? 0
        guard last > upto else { return true }
        // The ids of this batch: at most `limit` stored messages (ephemeral ones left no row).
        let end =
            try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT message_id FROM messages WHERE message_id > ? ORDER BY message_id LIMIT 1 OFFSET ?"),
                arguments: [upto, limit]
            ).map { $0 - 1 } ?? last
        try Self.exec(
            db,
            sql: """
                INSERT INTO messages_fts(rowid, message, custom_type, data)
                SELECT message_id, message, custom_type, data FROM messages WHERE message_id > ? AND message_id <= ? ORDER BY message_id
                """,
            arguments: [upto, end])
        try Self.exec(db, sql: "UPDATE search_index_state SET indexed_upto = ?", arguments: [end])
        return end == last
    }
}
