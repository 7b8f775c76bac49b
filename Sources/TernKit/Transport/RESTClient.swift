import AsyncHTTPClient
public import Foundation
import NIOCore
import NIOHTTP1
public import NIOSSL
import TernProtocol

/// Sendbird's REST API as the SDKs call it: JSON in and out, the user's `Session-Key`, a timeout
/// on every request, and every failure as a ``SendbirdError`` with the server's code (or the
/// SDKs' client code: 800120 network, 800130 malformed data, 800220 request failed).
///
/// Every HTTP request of the engine goes through its one AsyncHTTPClient (JSON calls, file
/// uploads and downloads), on SwiftNIO's shared event loops: `https://` verifies the server's
/// certificate against the system's roots plus the configuration's CA file (Foundation's
/// URLSession cannot be given a CA on Linux). The client is shut down by ``shutdown()`` or, at
/// the latest, when this object goes away.
public final class RESTClient: Sendable {
    /// The server's REST base (`http(s)://host:port`); it moves only when ``rebase(_:)`` is called.
    public var baseURL: String { base.value }
    private let base: Locked<String>
    public let appId: String
    let http: HTTPClient
    let timeout: TimeInterval

    /// Largest JSON answer read (a page of messages is far smaller).
    static let maxAnswerBytes = 64 * 1024 * 1024

    /// - Parameter tls: the TLS settings of `https://` requests (``ClientConfiguration/tlsConfiguration()``);
    ///   nil: the system's trust roots.
    public init(baseURL: String, appId: String, timeout: TimeInterval = 10, tls: TLSConfiguration? = nil) {
        base = Locked(baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL)
        self.appId = appId
        self.timeout = timeout
        let limit = TimeAmount.milliseconds(Int64(max(timeout, 0.001) * 1000))
        var config = HTTPClient.Configuration(
            tlsConfiguration: tls ?? TLSConfiguration.makeClientConfiguration(),
            redirectConfiguration: .follow(max: 5, allowCycles: false),
            // `read` bounds a stall between two reads of an answer (file downloads, the answer to an
            // upload); a JSON call's whole exchange is bounded by `timeout` (see `send`).
            timeout: HTTPClient.Configuration.Timeout(connect: limit, read: .seconds(120)),
            decompression: .disabled
        )
        // Idle connections go before ternd's keep-alive limit (30 s) closes them under a request;
        // an unreachable server fails at once instead of being retried until the deadline.
        config.connectionPool = HTTPClient.Configuration.ConnectionPool(idleTimeout: .seconds(20), concurrentHTTP1ConnectionsPerHostSoftLimit: 4)
        config.connectionPool.retryConnectionEstablishment = false
        http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: config)
    }

    /// Points later requests at another address of the same server (the embedded server moved ports).
    public func rebase(_ baseURL: String) {
        base.value = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
    }

    deinit {
        // Closes the pooled connections; the HTTP client keeps itself alive until that is done.
        http.shutdown { _ in }
    }

    /// Closes the pooled connections and releases the HTTP client; requests after this fail (800120).
    public func shutdown() async {
        try? await http.shutdown()
    }

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
        guard URL(string: baseURL + pathAndQuery) != nil else {
            throw SendbirdError(.invalidParameter, "not a valid URL: \(baseURL + pathAndQuery)")
        }
        var req = HTTPClientRequest(url: baseURL + pathAndQuery)
        req.method = HTTPMethod(rawValue: method)
        req.headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        req.headers.add(name: "App-Id", value: appId)
        req.headers.add(name: "SB-User-Agent", value: "Tern/\(TernKit.sdkVersion)")
        if let sessionKey { req.headers.add(name: "Session-Key", value: sessionKey) }
        if let body { req.body = .bytes(ByteBuffer(bytes: body)) }
        let reply: Reply
        do {
            reply = try await send(
                req, timeout: timeout, maxBytes: Self.maxAnswerBytes, retryStale: ["GET", "HEAD", "PUT", "DELETE"].contains(method))
        } catch {
            throw SendbirdError(.networkError, "cannot reach \(baseURL): \(Self.describe(error))")
        }
        if (200..<300).contains(reply.status) { return reply.body }
        if let e = try? WireCoding.decoder.decode(ErrorBody.self, from: reply.body) {
            throw SendbirdError(ErrorCode(e.code), e.message)
        }
        throw SendbirdError(.requestFailed, "\(method) \(pathAndQuery): HTTP \(reply.status)")
    }

    /// A whole answer: its status and body.
    struct Reply: Sendable {
        var status: Int
        var body: Data
    }

    /// Sends `request` and reads the answer (at most `maxBytes`), all within `timeout` seconds. With
    /// `retryStale`, a request whose kept-alive connection turned out closed is sent once more on a new
    /// one (only for idempotent methods).
    func send(_ request: HTTPClientRequest, timeout: TimeInterval, maxBytes: Int, retryStale: Bool = false) async throws -> Reply {
        let http = self.http
        let exchange: @Sendable () async throws -> Reply = {
            let response = try await http.execute(request, timeout: .milliseconds(Int64(timeout * 1000)))
            let buffer = try await response.body.collect(upTo: maxBytes)
            return Reply(status: Int(response.status.code), body: Data(buffer.readableBytesView))
        }
        return try await withThrowingTaskGroup(of: Reply?.self) { group in
            group.addTask {
                do {
                    return try await exchange()
                } catch let error as HTTPClientError where retryStale && error == .remoteConnectionClosed {
                    return try await exchange()
                }
            }
            group.addTask {
                try await Task.sleep(for: .milliseconds(Int64(timeout * 1000)))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let reply = first else { throw HTTPClientError.deadlineExceeded }
            return reply
        }
    }

    /// POSTs `body` to `pathAndQuery` (the file storage), calling `progress(sent, total)` as the bytes
    /// go out. The task running it can be cancelled.
    func upload(
        _ pathAndQuery: String, body: Data, contentType: String, sessionKey: String, timeout: TimeInterval,
        progress: @escaping @Sendable (Int64, Int64) -> Void
    ) async throws -> Reply {
        var req = HTTPClientRequest(url: baseURL + pathAndQuery)
        req.method = .POST
        req.headers.add(name: "Content-Type", value: contentType)
        req.headers.add(name: "Session-Key", value: sessionKey)
        req.headers.add(name: "App-Id", value: appId)
        req.headers.add(name: "SB-User-Agent", value: "Tern/\(TernKit.sdkVersion)")
        req.body = .stream(UploadChunks(data: body, progress: progress), length: .known(Int64(body.count)))
        return try await send(req, timeout: timeout, maxBytes: Self.maxAnswerBytes)
    }

    /// GETs `url` into memory, at most `maxBytes`.
    func fetch(_ url: String, maxBytes: Int, timeout: TimeInterval) async throws -> Reply {
        let response = try await http.execute(HTTPClientRequest(url: url), timeout: .milliseconds(Int64(timeout * 1000)))
        let buffer = try await response.body.collect(upTo: maxBytes)
        return Reply(status: Int(response.status.code), body: Data(buffer.readableBytesView))
    }

    /// GETs `url` into the file at `path` (created; removed again if the transfer fails). Returns
    /// the status and, when it is not 2xx, the answer's body (nothing is written then).
    func download(_ url: String, to path: String, timeout: TimeInterval) async throws -> Reply {
        let response = try await http.execute(HTTPClientRequest(url: url), timeout: .milliseconds(Int64(timeout * 1000)))
        let status = Int(response.status.code)
        guard (200..<300).contains(status) else {
            let buffer = try await response.body.collect(upTo: 1024 * 1024)
            return Reply(status: status, body: Data(buffer.readableBytesView))
        }
        guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
            throw SendbirdError(.invalidParameter, "cannot write \(path)")
        }
        do {
            defer { try? file.close() }
            for try await chunk in response.body {
                try file.write(contentsOf: Data(chunk.readableBytesView))
            }
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
        return Reply(status: status, body: Data())
    }

    static func describe(_ error: any Error) -> String { TransportError.describe(error) }
}

/// An upload's body in 64 KB chunks, reporting the bytes handed to the connection: a chunk is asked
/// for once the one before it was written (or queued below the socket's high-water mark).
struct UploadChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let data: Data
    let progress: @Sendable (Int64, Int64) -> Void
    static let chunkSize = 64 * 1024

    struct AsyncIterator: AsyncIteratorProtocol {
        let data: Data
        let progress: @Sendable (Int64, Int64) -> Void
        var offset = 0

        mutating func next() async throws -> ByteBuffer? {
            let total = Int64(data.count)
            progress(Int64(offset), total)
            guard offset < data.count else { return nil }
            let end = Swift.min(offset + UploadChunks.chunkSize, data.count)
            let start = data.startIndex + offset
            let chunk = ByteBuffer(bytes: data[start..<(data.startIndex + end)])
            offset = end
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(data: data, progress: progress) }
}
