import Foundation
import TernTestSupport
import Testing

@Suite("PostgreSQL test cluster")
struct PostgresTestClusterTests {
    @Test("A cluster of its own starts on a loopback port, keeps data over a crash, and stops by PID")
    func lifecycle() async throws {
        let cluster = try PostgresTestCluster.start()
        defer { cluster.destroy() }
        let url = try cluster.createDatabase("lifecycle")
        #expect(url == "postgres://postgres@127.0.0.1:\(cluster.port)/lifecycle")
        #expect(try cluster.psql("CREATE TABLE t (x int); INSERT INTO t VALUES (42)", database: "lifecycle").status == 0)
        cluster.crash()
        #expect(try cluster.psql("SELECT 1").status != 0, "the server is down after crash()")
        try cluster.launch()
        let r = try cluster.psql("SELECT x FROM t", database: "lifecycle")
        #expect(r.status == 0 && r.output.trimmingCharacters(in: .whitespacesAndNewlines) == "42", "committed data survives: \(r.output)")
        cluster.stop()
        #expect(try cluster.psql("SELECT 1").status != 0, "the server is down after stop()")
    }
}
