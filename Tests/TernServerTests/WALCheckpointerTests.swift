import Foundation
import TernTestSupport
import Testing

@testable import TernServer

/// ``WALCheckpointer`` as the store drives it: every write the store commits is counted, so the WAL
/// is copied into the database file without SQLite's own checkpoint (which waits for 32 MB of WAL).
@Suite("WALCheckpointer: the store's commits bring a checkpoint")
struct WALCheckpointerTests {
    @Test("A commit through the store is followed by a checkpoint: the database file changes within seconds")
    func commitsBringACheckpoint() async throws {
        let path = makeTempDirectory() + "/t.sqlite"
        let store = try SQLiteStore(path: path)
        // What the migrations wrote stays in the WAL (below SQLite's own threshold): the file as opened.
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        _ = try await store.createUser(
            UserRecord(
                userId: "u1", nickname: "u1", profileUrl: "", metadata: [:], createdAt: 1, lastSeenAt: 0, hasEverLoggedIn: false, isActive: true))
        // Due two seconds after the store opened (CheckpointSchedule.idleInterval); allow for a slow machine.
        var changed = false
        var waited = 0
        while !changed && waited < 100 {
            try await Task.sleep(for: .milliseconds(100))
            waited += 1
            changed = try Data(contentsOf: URL(fileURLWithPath: path)) != before
        }
        #expect(changed, "no checkpoint after a commit")
        try await store.close()
    }
}
