import Foundation
import Synchronization
import TernTestSupport
import Testing

@testable import TernServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The WebSocket half of the matrix: every command a client may send, with who may send it.
extension AuthorizationMatrixTests {
    /// The WebSocket commands a client may send, with who may send each (on the private group
    /// channel G or the open channel O of a fresh fixture). The Platform API has no socket.
    static func commandTable(_ f: Fixture) -> [(name: String, command: String, payload: [String: Any], allowed: Set<String>)] {
        let g = f.group
        let o = f.open
        return [
            ("MESG in G", "MESG", ["channel_url": g, "message": "hi"], ["owner", "member", "peer"]),
            (
                "FILE in G", "FILE", ["channel_url": g, "url": "https://example.invalid/a.png", "name": "a.png", "type": "image/png", "size": 1],
                ["owner", "member", "peer"]
            ),
            ("MEDI of M", "MEDI", ["channel_url": g, "msg_id": f.message, "message": "edited"], ["owner", "member"]),
            ("FEDI of M", "FEDI", ["channel_url": g, "msg_id": f.message, "data": "d"], ["owner", "member"]),
            ("READ in G", "READ", ["channel_url": g], joined),
            ("TPST in G", "TPST", ["channel_url": g, "time": 1], joined),
            ("TPEN in G", "TPEN", ["channel_url": g, "time": 1], joined),
            // A non-member's MACK is ignored without a reply (MACK has none): it moves no receipt.
            ("MACK in G", "MACK", ["channel_url": g, "msg_id": f.message], Set(sessions)),
            ("ENTR O", "ENTR", ["channel_url": o], openReaders),
            ("MESG in O", "MESG", ["channel_url": o, "message": "hi"], openReaders),
            // Leaving a room one is not in is answered and changes nothing.
            ("EXIT O", "EXIT", ["channel_url": o], Set(sessions)),
            ("LOGI refresh", "LOGI", [:], joined.union(["invited", "banned", "outsider"])),
            ("PING", "PING", ["id": 7], joined.union(["invited", "banned", "outsider"])),
        ]
    }

    @Test("Each WebSocket command answers each caller as the table says; a deactivated user cannot log in")
    func commandMatrix() async throws {
        try await withServer(users: Self.sessions + ["target"], { $0.linkPreviews = false }) { s in
            _ = try await s.request("PUT", "/v3/users/invited/channel_invitation_preference", body: ["auto_accept": false])
            let f = try await fixture(s, keys: [:], 1)
            _ = try await s.request("PUT", "/v3/users/deactivated", body: ["is_active": false])
            let refused = s.connect("deactivated")
            #expect(await refused.next("LOGI")?["code"] as? Int == 400300)
            await refused.close()
            var failures: [String] = []
            var cells = 0
            let callers = Self.sessions.filter { $0 != "deactivated" }
            var sockets: [String: TestSocket] = [:]
            for c in callers { sockets[c] = try await s.login(c).0 }
            var pingId = 1000
            for (name, command, payload, allowed) in Self.commandTable(f) {
                for caller in callers {
                    let sock = sockets[caller]!
                    pingId += 1
                    let reqId = "r\(pingId)"
                    var p = payload
                    if command != "PING" { p["req_id"] = reqId }
                    let errorsBefore = sock.all("EROR").count
                    sock.send(command, p)
                    // Frames of one socket are handled in order: once this PONG is back, any answer
                    // to the command is too.
                    sock.send("PING", ["id": pingId])
                    let fence = pingId
                    _ = await sock.next("PONG") { ($0["id"] as? Int) == fence }
                    if command == "MESG" || command == "FILE" {
                        // A send does not hold up the socket's other commands (a slow one would hold up
                        // its pings): it is answered by its own acknowledgement or error.
                        for _ in 0..<400 {
                            let answered =
                                sock.all("EROR").contains { ($0["req_id"] as? String) == reqId }
                                || sock.all(command).contains { ($0["req_id"] as? String) == reqId }
                            if answered { break }
                            try await Task.sleep(for: .milliseconds(25))
                        }
                    }
                    let errors = sock.all("EROR").dropFirst(errorsBefore).filter { ($0["req_id"] as? String) == reqId || $0["req_id"] == nil }
                    let codes = errors.compactMap { $0["code"] as? Int }
                    cells += 1
                    let wasRefused = codes.contains { Self.refusals.contains($0) }
                    if allowed.contains(caller) && !codes.isEmpty {
                        failures.append("\(name) as \(caller): expected allowed, got EROR \(codes)")
                    } else if !allowed.contains(caller) && !wasRefused {
                        failures.append("\(name) as \(caller): expected refused, got \(codes.isEmpty ? "no error" : "EROR \(codes)")")
                    }
                }
            }
            for sock in sockets.values { await sock.close() }
            let report = "\(failures.count) of \(cells) cells:\n" + failures.joined(separator: "\n")
            #expect(failures.isEmpty, "\(report)")
        }
    }
}
