import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The few Platform API (REST, `Api-Token`) calls the bench needs to set up a run, and the
/// listing calls `--rest-probe` times.
struct PlatformAPI {
    let base: String
    let apiToken: String
    let session = URLSession(configuration: .ephemeral)

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    func post(_ path: String, _ body: [String: Any]) async throws -> [String: Any] {
        guard let url = URL(string: base + path) else { throw Failure(description: "bad URL \(base + path)") }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json; charset=utf8", forHTTPHeaderField: "Content-Type")
        request.setValue(apiToken, forHTTPHeaderField: "Api-Token")
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            throw Failure(description: "POST \(path) → \(status): \(String(decoding: data.prefix(500), as: UTF8.self))")
        }
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    func createUser(_ userId: String) async throws {
        _ = try await post("/v3/users", ["user_id": userId, "nickname": userId])
    }

    /// Creates a group channel with `userIds` as members; returns its URL.
    func createChannel(userIds: [String], name: String) async throws -> String {
        let reply = try await post("/v3/group_channels", ["user_ids": userIds, "name": name])
        guard let url = reply["channel_url"] as? String else { throw Failure(description: "no channel_url in \(reply)") }
        return url
    }

    /// Creates an open channel at `url`; returns the URL the server gave it.
    func createOpenChannel(url: String, name: String) async throws -> String {
        let reply = try await post("/v3/open_channels", ["channel_url": url, "name": name])
        guard let url = reply["channel_url"] as? String else { throw Failure(description: "no channel_url in \(reply)") }
        return url
    }

    /// `GET path`; returns the HTTP status (the body is read and dropped).
    func get(_ path: String) async throws -> Int {
        guard let url = URL(string: base + path) else { throw Failure(description: "bad URL \(base + path)") }
        var request = URLRequest(url: url)
        request.setValue(apiToken, forHTTPHeaderField: "Api-Token")
        let (_, response) = try await session.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
}
