import Foundation
import TernTestSupport
import Testing

extension TerndChild {
    /// A Platform API call with the API token: the answer's JSON object (empty when it is none).
    @discardableResult
    func platform(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
        var req = URLRequest(url: URL(string: url + path)!)
        req.httpMethod = method
        req.setValue(apiToken, forHTTPHeaderField: "Api-Token")
        if let body {
            req.setValue("application/json", forHTTPHeaderField: "Content-Type")
            req.httpBody = try JSONSerialization.data(withJSONObject: body)
        }
        let (data, _) = try await URLSession.shared.data(for: req)
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }

    /// Creates users through the Platform API, each with its id capitalised as its nickname.
    func createUsers(_ ids: [String]) async throws {
        for u in ids { try await platform("POST", "/v3/users", ["user_id": u, "nickname": u.capitalized, "profile_url": ""]) }
    }

    /// Creates the group channel `url`, named `name`, of `users`, through the Platform API.
    func createGroup(_ url: String, name: String, of users: [String]) async throws {
        try await platform("POST", "/v3/group_channels", ["user_ids": users, "channel_url": url, "name": name])
    }

    /// Posts `text` as `user` in the group channel `url` (mentioning `mentioned`), through the Platform API.
    func post(_ text: String, by user: String, in url: String, mentioning mentioned: [String] = []) async throws {
        var body: [String: Any] = ["message_type": "MESG", "user_id": user, "message": text]
        if !mentioned.isEmpty { body["mentioned_user_ids"] = mentioned }
        try await platform("POST", "/v3/group_channels/\(url)/messages", body)
    }

    /// A Platform API read.
    func get(_ path: String) async throws -> [String: Any] { try await platform("GET", path) }

    /// The URL of one of a user's group channels, by name ("" when there is none).
    func channelUrl(of user: String, named name: String) async throws -> String {
        let json = try await get("/v3/users/\(user)/my_group_channels?show_empty=true&name_contains=\(name)")
        return ((json["channels"] as? [[String: Any]])?.first?["channel_url"] as? String) ?? ""
    }

    /// The URL of the only channel named `name`.
    func channelUrl(named name: String) async throws -> String {
        let r = try await get("/v3/group_channels?limit=100&name_contains=\(name)")
        guard let url = (r["channels"] as? [[String: Any]] ?? []).first(where: { $0["name"] as? String == name })?["channel_url"] as? String else {
            throw TestFailure("no channel named \(name)")
        }
        return url
    }

    /// The texts of a channel's messages on the server, oldest first (up to 200).
    func history(_ url: String) async throws -> [String] {
        let r = try await get("/v3/group_channels/\(url)/messages?message_ts=9007199254740991&prev_limit=200&next_limit=0")
        return (r["messages"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
    }

    /// The text of a channel's newest message ("" when it has none).
    func lastText(_ channel: String) async throws -> String {
        let page = try await get(
            "/v3/group_channels/\(channel)/messages?message_ts=\(Int64(Date().timeIntervalSince1970 * 1000) + 60_000)&prev_limit=1&next_limit=0")
        return ((page["messages"] as? [[String: Any]])?.last?["message"] as? String) ?? ""
    }
}

/// Runs `tern ARGS` to its end with the given environment.
func tern(_ args: [String], env: [String: String]) async throws -> (status: Int32, stdout: String, stderr: String) {
    let c = try Child(try builtBinary("tern"), args, environment: env)
    let status = await c.finish(timeout: 60)
    return (status, c.stdout, c.stderr)
}

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
