import Foundation
import TernServer
import TernTestSupport
import Testing

@Suite struct TmpDebug {
    @Test func restartDebug() async throws {
        let pg = try PostgresTestCluster.start()
        defer { pg.destroy() }
        let nodes = try await ClusterTests.startNodes(2, database: try pg.createDatabase())
        let a = nodes[0]; let b = nodes[1]
        try await a.createUsers(["alice", "bob"])
        let url = try await a.createChannel(["alice", "bob"])
        let (alice, _) = try await a.login("alice")
        let (bob, _) = try await b.login("bob")
        try await ClusterTests.waitOnline(a, "bob")
        for i in 0..<80 {
            alice.send("MESG", ["channel_url": url, "message": "steady \(i)", "req_id": "r\(i)"])
            try await Task.sleep(for: .milliseconds(10))
            if i == 50 {
                pg.crash()
                try await Task.sleep(for: .milliseconds(800))
                try pg.launch()
                print("DBG relaunched")
            }
        }
        for s in 0..<30 {
            let t = Date()
            let r = try? await a.request("GET", "/v3/users/alice")
            print("DBG t=\(s) bob=\(bob.all("MESG").count) acks=\(alice.all("MESG").count) errs=\(alice.all("EROR").map { $0["code"] as? Int ?? 0 }) rest=\(r?.status ?? 0) \(Date().timeIntervalSince(t))")
            if alice.all("MESG").count + alice.all("EROR").count >= 80 { break }
            try await Task.sleep(for: .seconds(1))
        }
        await alice.close()
        await a.stop()
    }
}
