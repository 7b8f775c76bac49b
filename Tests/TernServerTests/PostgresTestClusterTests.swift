import Foundation
import TernTestSupport
import Testing

@Suite("PostgreSQL test cluster")
struct PostgresTestClusterTests {
    @Test("A cluster of its own starts on a loopback port, keeps data over a crash, and stops by PID")
    func lifecycle() async throws {
        // The steps block (processes, waits): off the concurrency pool, checked afterwards.
        struct Seen: Sendable {
            var url = "", port = 0, created: Int32 = -1, downAfterCrash: Int32 = 0, after = (status: Int32(-1), output: ""), downAfterStop: Int32 = 0
        }
        let seen = try await PostgresTestCluster.offPool { () throws -> Seen in
            let cluster = try PostgresTestCluster.start()
            defer { cluster.destroy() }
            var s = Seen()
            s.port = cluster.port
            s.url = try cluster.createDatabase("lifecycle")
            s.created = try cluster.psql("CREATE TABLE t (x int); INSERT INTO t VALUES (42)", database: "lifecycle").status
            cluster.crash()
            s.downAfterCrash = try cluster.psql("SELECT 1").status
            try cluster.launch()
            s.after = try cluster.psql("SELECT x FROM t", database: "lifecycle")
            cluster.stop()
            s.downAfterStop = try cluster.psql("SELECT 1").status
            return s
        }
        #expect(seen.url == "postgres://postgres@127.0.0.1:\(seen.port)/lifecycle")
        #expect(seen.created == 0)
        #expect(seen.downAfterCrash != 0, "the server is down after crash()")
        #expect(
            seen.after.status == 0 && seen.after.output.trimmingCharacters(in: .whitespacesAndNewlines) == "42",
            "committed data survives: \(seen.after.output)")
        #expect(seen.downAfterStop != 0, "the server is down after stop()")
    }
}
