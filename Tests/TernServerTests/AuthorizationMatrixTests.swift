import Foundation
import Synchronization
import TernTestSupport
import Testing

@testable import TernServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 17 §10a: every REST route × every kind of caller, with the answer expected in each cell,
/// generated from one table. A route the server registers without a row here fails the test, so
/// a new route cannot ship without saying who may call it. docs/security.md shows the same table.
///
/// The cast, each in a fresh private group channel `G` (and an open channel `O`) per route:
/// `owner` (operator of G and O), `member` (joined; sent message M), `peer` (joined, not M's
/// sender), `muted` (joined, muted), `invited` (invited, not accepted), `banned` (banned from G
/// and O), `outsider` (no relation), `deactivated` (was a member, then deactivated), plus no
/// credentials, a wrong Api-Token, and the Platform API.
@Suite("Authorization matrix: every REST route × every caller", .serialized)
struct AuthorizationMatrixTests {
    static let sessions = ["owner", "member", "peer", "muted", "invited", "banned", "outsider", "deactivated"]
    static let callers = ["none", "wrongToken"] + sessions + ["platform"]

    @Test("Every route the server registers has a row, and every row is a route")
    func everyRouteHasARow() async throws {
        try await withServer { s in
            let routes = Set(s.app.routes.map(Self.normalised))
            let rows = Set(Self.fullTable.keys)
            let missing = routes.subtracting(rows).sorted()
            let stale = rows.subtracting(routes).sorted()
            #expect(missing.isEmpty, "routes without a row in the authorization table: \(missing)")
            #expect(stale.isEmpty, "rows for routes the server does not have: \(stale)")
        }
    }

    /// Codes that mean "you may not": missing or wrong credentials, not yourself, not a member,
    /// banned, deactivated, an ended session.
    static let refusals: Set<Int> = [400401, 400108, 400300, 400302, 400309, 400310, 900020, 400750, 900100, 900041, 900500]

    struct Fixture {
        var group = ""
        var open = ""
        var message = 0
        var openMessage = 0
        var filePath = ""
    }

    /// A fresh private group channel and open channel with the cast in place, a message by
    /// `member` in each, channel metadata `k` and a metacounter `k`, and a file `member` uploaded.
    func fixture(_ s: TestServer, keys: [String: String], _ n: Int) async throws -> Fixture {
        var f = Fixture()
        let g = try await s.request(
            "POST", "/v3/group_channels",
            body: [
                "user_ids": ["owner", "member", "peer", "muted", "banned", "deactivated"], "operator_ids": ["owner"], "is_public": false,
                "channel_url": "g\(n)_matrix",
            ])
        f.group = g.json["channel_url"] as? String ?? ""
        _ = try await s.request("POST", "/v3/group_channels/\(f.group)/invite", body: ["user_ids": ["invited"]])
        _ = try await s.request("POST", "/v3/group_channels/\(f.group)/mute", body: ["user_id": "muted"])
        f.message = try await furnish(s, "/v3/group_channels/\(f.group)")
        let o = try await s.request("POST", "/v3/open_channels", body: ["name": "o", "channel_url": "o\(n)_matrix", "operator_ids": ["owner"]])
        f.open = o.json["channel_url"] as? String ?? ""
        f.openMessage = try await furnish(s, "/v3/open_channels/\(f.open)")
        let up = try await upload(s, channel: f.group, headers: ["Session-Key": keys["member"] ?? ""])
        if let url = up.json["url"] as? String, let path = URL(string: url)?.path { f.filePath = path }
        return f
    }

    /// What both channels of the fixture have, at `base` (`/v3/group_channels/URL` or
    /// `/v3/open_channels/URL`): `banned` banned, a message M from `member`, metadata and a
    /// metacounter. M's id.
    func furnish(_ s: TestServer, _ base: String) async throws -> Int {
        _ = try await s.request("POST", "\(base)/ban", body: ["user_id": "banned"])
        let m = try await s.request("POST", "\(base)/messages", body: ["message_type": "MESG", "user_id": "member", "message": "m"])
        _ = try await s.request("POST", "\(base)/metadata", body: ["metadata": ["k": "v"]])
        _ = try await s.request("POST", "\(base)/metacounter", body: ["metacounter": ["k": 1]])
        return m.json["message_id"] as? Int ?? 0
    }

    static let boundary = "matrix-boundary-7f3a"

    func upload(_ s: TestServer, channel: String, headers: [String: String]) async throws -> TestServer.HTTPResult {
        let b = Self.boundary
        let body =
            "--\(b)\r\nContent-Disposition: form-data; name=\"channel_url\"\r\n\r\n\(channel)\r\n"
            + "--\(b)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--\(b)--\r\n"
        var req = URLRequest(url: URL(string: s.baseURL + "/v3/storage/file")!)
        req.httpMethod = "POST"
        for (k, v) in headers { req.setValue(v, forHTTPHeaderField: k) }
        req.setValue("multipart/form-data; boundary=\(b)", forHTTPHeaderField: "Content-Type")
        req.httpBody = Data(body.utf8)
        let (data, response) = try await URLSession.shared.data(for: req)
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return TestServer.HTTPResult(status: (response as? HTTPURLResponse)?.statusCode ?? 0, json: json, text: String(decoding: data, as: UTF8.self))
    }

    func headers(_ caller: String, keys: [String: String], apiToken: String) -> [String: String] {
        switch caller {
        case "none": return [:]
        case "wrongToken": return ["Api-Token": "not-the-token"]
        case "platform": return ["Api-Token": apiToken]
        default: return ["Session-Key": keys[caller] ?? ""]
        }
    }

    static func substitute(_ value: Any, me: String, n: Int) -> Any {
        if let s = value as? String { return s.replacingOccurrences(of: "$ME", with: me).replacingOccurrences(of: "$N", with: "\(n)") }
        if let a = value as? [Any] { return a.map { substitute($0, me: me, n: n) } }
        if let d = value as? [String: Any] {
            var out: [String: Any] = [:]
            for (k, v) in d { out[(substitute(k, me: me, n: n) as? String) ?? k] = substitute(v, me: me, n: n) }
            return out
        }
        return value
    }

    /// Path parameters other than the channel, message and user, and what the matrix puts there.
    static let placeholders: [(String, String)] = [
        ("{target_id}", "target"),
        ("{key}", "k"),
        ("{token_type}", "gcm"),
        ("{token}", "tok"),
        ("{custom_type}", "matrix-type"),
        ("{api_token}", "no-such-token"),
        ("{bot_userid}", "no-such-bot"),
        ("{emoji_category_id}", "1"),
        ("{emoji_key}", "smile"),
        ("{provider_id}", "no-such-provider"),
        ("{template_name}", "default"),
        ("{data_type}", "messages"),
        ("{request_id}", "no-such-request"),
        ("{unique_id}", "no-such-announcement"),
        ("{announcement_group}", "no-such-group"),
        ("{target_channel_url}", "no-such-channel"),
    ]

    /// The REST matrix checks authorization, which is the same code on either store; with
    /// `TERN_TEST_DATABASE=postgres` it is left to the SQLite pass (about 3,000 cells, each on a
    /// fresh fixture: 8 to 9 minutes on PostgreSQL in a debug build, the whole PostgreSQL pass's
    /// length). The store queries it leans on run on PostgreSQL in the store suite and in the
    /// other server suites, and the WebSocket command matrix below runs on both.
    static var onSQLite: Bool { ProcessInfo.processInfo.environment["TERN_TEST_DATABASE"] != "postgres" }

    @Test(
        "Each route answers each caller as the table says: allowed, or refused with a Sendbird code",
        .enabled(if: onSQLite, "authorization is store-independent; the SQLite pass runs it"))
    func matrix() async throws {
        try await withServer(users: Self.sessions + ["target"], { $0.linkPreviews = false }) { s in
            for u in Self.sessions + ["target"] {
                _ = try await s.request("POST", "/v3/users/\(u)/metadata", body: ["metadata": ["k": "v"]])
            }
            _ = try await s.request("PUT", "/v3/users/invited/channel_invitation_preference", body: ["auto_accept": false])
            var keys: [String: String] = [:]
            for u in Self.sessions {
                let (sock, login) = try await s.login(u)
                keys[u] = login["key"] as? String ?? ""
                await sock.close()
            }
            var failures: [String] = []
            var cells = 0
            var n = 0
            for (route, row) in Self.fullTable.sorted(by: { $0.key < $1.key }) {
                let parts = route.split(separator: " ", maxSplits: 1)
                let method = String(parts[0])
                let template = String(parts[1])
                let destructive = method != "GET"
                var shared: Fixture?
                // The deactivated user is deactivated after the fixture puts them in the channel.
                for caller in Self.callers {
                    var attempts: [(pathUser: String, allowed: Bool)] = []
                    let isSession = Self.sessions.contains(caller)
                    switch row.access {
                    case .anyone: attempts = [("target", true)]
                    case .platform: attempts = [("target", caller == "platform")]
                    case .anyUser: attempts = [("target", caller == "platform" || (isSession && caller != "deactivated"))]
                    case .selfOnly:
                        if isSession {
                            attempts = [(caller, caller != "deactivated"), ("target", false)]
                        } else {
                            attempts = [("member", caller == "platform")]
                        }
                    case .only(let who): attempts = [("target", caller == "platform" || who.contains(caller))]
                    case .selfIn(let who):
                        attempts = isSession ? [(caller, who.contains(caller)), ("target", false)] : [("member", caller == "platform")]
                    case .nobody: attempts = [("target", false)]
                    }
                    for (pathUser, allowed) in attempts {
                        n += 1
                        let f: Fixture
                        if destructive || shared == nil {
                            f = try await fixture(s, keys: keys, n)
                            shared = f
                        } else {
                            f = shared!
                        }
                        if n == 1 {
                            _ = try await s.request("PUT", "/v3/users/deactivated", body: ["is_active": false])
                        }
                        let open = template.contains("open_channels")
                        var path =
                            template
                            .replacingOccurrences(of: "{channel_url}", with: open ? f.open : f.group)
                            .replacingOccurrences(of: "{message_id}", with: "\(open ? f.openMessage : f.message)")
                            .replacingOccurrences(of: "{user_id}", with: pathUser)
                        for (name, value) in Self.placeholders { path = path.replacingOccurrences(of: name, with: value) }
                        if template.hasPrefix("/v3/storage/file/") { path = f.filePath }
                        let me = isSession ? caller : row.platformActsAs
                        path += row.query.replacingOccurrences(of: "$ME", with: me)
                        let h = headers(caller, keys: keys, apiToken: s.apiToken)
                        let r: TestServer.HTTPResult
                        if route == "POST /v3/storage/file" {
                            r = try await upload(s, channel: f.group, headers: h)
                        } else {
                            let body = row.body.map { Self.substitute($0, me: me, n: n) as? [String: Any] ?? [:] }
                            r = try await s.request(method, path, body: body, headers: h)
                        }
                        cells += 1
                        let code = r.json["code"] as? Int ?? 0
                        let refused = r.status >= 400 && Self.refusals.contains(code)
                        if allowed && (refused || r.status >= 500) {
                            failures.append("\(route) as \(caller) (path user \(pathUser)): expected allowed, got \(r.status) \(r.text.prefix(160))")
                        } else if !allowed && !refused {
                            failures.append("\(route) as \(caller) (path user \(pathUser)): expected refused, got \(r.status) \(r.text.prefix(160))")
                        }
                    }
                }
            }
            let report = "\(failures.count) of \(cells) cells:\n" + failures.joined(separator: "\n")
            #expect(failures.isEmpty, "\(report)")
        }
    }

}
