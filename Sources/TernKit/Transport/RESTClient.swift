import Foundation
import TernProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sendbird's REST API as the SDKs call it: JSON in and out, the user's `Session-Key`, a timeout
/// on every request, and every failure as a ``SendbirdError`` with the server's code (or the
/// SDKs' client code: 800120 network, 800130 malformed data, 800220 request failed).
public final class RESTClient: Sendable {
    public let baseURL: String
    public let appId: String
    let session: URLSession
    let timeout: TimeInterval

    public init(baseURL: String, appId: String, timeout: TimeInterval = 10) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.appId = appId
        self.timeout = timeout
        let config = URLSessionConfiguration.ephemeral
        config.timeoutIntervalForRequest = timeout
        config.timeoutIntervalForResource = timeout
        config.httpMaximumConnectionsPerHost = 4
        session = URLSession(configuration: config)
    }

    deinit { session.finishTasksAndInvalidate() }

    /// Percent-encodes one path segment (a channel URL or user id may hold any character).
    public static func segment(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }

    /// Builds `path?query` with each value percent-encoded.
    public static func path(_ path: String, _ query: [(String, String)] = []) -> String {
        guard !query.isEmpty else { return path }
        return path + "?" + query.map { "\($0.0)=\(segment($0.1))" }.joined(separator: "&")
    }

    /// A JSON object body.
    public static func json(_ object: [String: Any]) -> Data {
        (try? JSONSerialization.data(withJSONObject: object)) ?? Data("{}".utf8)
    }

    /// Sends a request and decodes the JSON answer.
    public func request<T: Decodable>(
        _ method: String, _ pathAndQuery: String, body: Data? = nil, sessionKey: String?, as type: T.Type = T.self
    ) async throws -> T {
        let data = try await requestData(method, pathAndQuery, body: body, sessionKey: sessionKey)
        do {
            return try WireCoding.decoder.decode(T.self, from: data)
        } catch {
            throw SendbirdError(.malformedData, "unexpected answer to \(method) \(pathAndQuery): \(error)")
        }
    }

    /// Sends a request and returns the body of a 2xx answer.
    public func requestData(_ method: String, _ pathAndQuery: String, body: Data?, sessionKey: String?) async throws -> Data {
        guard let url = URL(string: baseURL + pathAndQuery) else {
            throw SendbirdError(.invalidParameter, "not a valid URL: \(baseURL + pathAndQuery)")
        }
        var req = URLRequest(url: url, timeoutInterval: timeout)
        req.httpMethod = method
        req.setValue("application/json; charset=utf-8", forHTTPHeaderField: "Content-Type")
        req.setValue(appId, forHTTPHeaderField: "App-Id")
        req.setValue("Tern/\(TernKit.sdkVersion)", forHTTPHeaderField: "SB-User-Agent")
        if let sessionKey { req.setValue(sessionKey, forHTTPHeaderField: "Session-Key") }
        if let body { req.httpBody = body }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: req)
        } catch {
            throw SendbirdError(.networkError, "cannot reach \(baseURL): \(Self.describe(error))")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if (200..<300).contains(status) { return data }
        if let e = try? WireCoding.decoder.decode(ErrorBody.self, from: data) {
            throw SendbirdError(ErrorCode(e.code), e.message)
        }
        throw SendbirdError(.requestFailed, "\(method) \(pathAndQuery): HTTP \(status)")
    }

    static func describe(_ error: any Error) -> String {
        if let u = error as? URLError {
            switch u.code {
            case .cannotConnectToHost: return "connection refused"
            case .timedOut: return "timed out"
            case .cannotFindHost: return "unknown host"
            case .networkConnectionLost: return "connection lost"
            default: return u.localizedDescription
            }
        }
        return "\(error)"
    }
}
