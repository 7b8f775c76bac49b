import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import TernProtocol

/// Who is calling a REST endpoint.
enum Caller: Sendable {
    /// The Platform API (`Api-Token`): may do anything.
    case platform
    /// An SDK user (`Session-Key`): may act only as themselves.
    case user(String)

    var userId: String? {
        if case .user(let id) = self { return id }
        return nil
    }

    /// Throws 400108 unless the caller is the Platform API or `userId` itself.
    func require(actingAs userId: String) throws {
        // Bytes, not Swift's canonical equivalence: two spellings of one text are two ids to the
        // store (see ``Identifier``).
        if case .user(let me) = self, !Identifier.sameBytes(me, userId) {
            throw SendbirdError(.unauthorizedRequest, "Unauthorized request: you may act only as yourself.")
        }
    }

    /// How the chat service treats the request (flood limits apply to SDK users only).
    var origin: RequestOrigin {
        if case .user = self { return .sessionREST }
        return .rest
    }

    func requirePlatform() throws {
        if case .user = self { throw SendbirdError(.unauthorizedRequest, "Unauthorized request: this call needs the Api-Token.") }
    }
}

extension HTTPField.Name {
    static let apiToken = HTTPField.Name("Api-Token")!
    static let sessionKey = HTTPField.Name("Session-Key")!
}

/// Shared plumbing of the REST routes: authentication, bodies, responses.
struct RESTSupport: Sendable {
    let service: ChatService

    static let noCredentials = SendbirdError(
        .invalidApiToken, "Invalid value: \"Api-Token\": an Api-Token or Session-Key header is required.")

    /// Reads `Api-Token` or `Session-Key` (header names are case-insensitive).
    func authenticate(_ request: Request) async throws -> Caller {
        if let token = request.headers[.apiToken] {
            guard try await service.isAPIToken(token) else {
                throw SendbirdError(.invalidApiToken, "Invalid value: \"Api-Token\".")
            }
            return .platform
        }
        if let key = request.headers[.sessionKey] {
            return .user(try await service.userForSessionKey(key))
        }
        throw Self.noCredentials
    }

    /// A `multipart/form-data` body (the official Platform SDK sends some requests as forms, a
    /// bot's message among them) decoded into `T` with ``SendbirdRequestDecoder``'s rules, or a
    /// JSON body as any other. A form's text fields are read as a JSON object, each field a string
    /// (the readers take `"true"` for a boolean and `"12"` for an integer where one is asked for), a
    /// field given more than once a list; file parts are not read here.
    func decodeBodyOrForm<T: Decodable>(_ type: T.Type, _ request: Request, _ context: RESTRequestContext) async throws -> T {
        guard let boundary = FileRoutes.boundary(request) else { return try await request.decode(as: T.self, context: context) }
        let buffer = try await request.body.collect(upTo: 1 << 20)
        var object: [String: Any] = [:]
        for part in try FileRoutes.parts(buffer, boundary: boundary) where part.filename == nil {
            let value = String(buffer: part.body)
            switch object[part.name] {
            case nil: object[part.name] = value
            case let list as [Any]: object[part.name] = list + [value]
            case let one?: object[part.name] = [one, value]
            }
        }
        return try SendbirdRequestDecoder.decode(T.self, from: try JSONSerialization.data(withJSONObject: object))
    }

    /// The path's `user_id`, who must exist (400201), for the Platform API or that user
    /// themselves (400108).
    func pathUser(_ request: Request, _ context: RESTRequestContext) async throws -> UserRecord {
        let id = try param(context, "user_id")
        try context.caller.require(actingAs: id)
        return try await service.requireUser(id)
    }

    func param(_ context: some RequestContext, _ name: String) throws -> String {
        guard let raw = context.parameters.get(name) else { throw SendbirdError.missing(name) }
        let value = raw.removingPercentEncoding ?? raw
        // Path parameters are ids and keys: one spelling each (``Identifier``), and bounded.
        try TextLimit.pathParameter.check(value)
        try Identifier.check(value, field: name)
        return value
    }

    /// A path parameter that some routes have (`…/metadata/:key`), checked like ``param(_:_:)``.
    func optionalParam(_ context: some RequestContext, _ name: String, decode: (String) -> String = { $0.removingPercentEncoding ?? $0 }) throws
        -> String?
    {
        guard let raw = context.parameters.get(name) else { return nil }
        let value = decode(raw)
        try TextLimit.pathParameter.check(value)
        try Identifier.check(value, field: name)
        return value
    }

    func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try WireCoding.encoder.encode(value)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `{}`: what a call with nothing to return answers (the SDKs fail on an empty body).
    func empty() throws -> Response { try json(EmptyObject()) }

    /// This server as the client reached it (`https://` when it serves TLS).
    func baseURL(_ req: Request) -> String {
        let host = req.head.authority ?? "\(service.config.host):\(service.config.port)"
        return (service.config.tlsCertificatePath == nil ? "http://" : "https://") + host
    }

    /// A JSON object built at run time (settings documents), keys sorted.
    func document(_ object: Any) throws -> Response {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: data)))
    }

    /// A typed answer written as ``document(_:)`` writes a settings document (keys sorted, the same bytes).
    func document(encoding value: some Encodable) throws -> Response {
        try document(try JSONSerialization.jsonObject(with: WireCoding.encoder.encode(value)))
    }

    /// A settings document of the store as a JSON object, or nil.
    func loadDocument(_ scope: String, _ key: String) async throws -> [String: Any]? {
        guard let json = try await service.setting(scope: scope, key: key) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
    }

    /// Stores a settings document (keys sorted).
    func saveDocument(_ scope: String, _ key: String, _ object: [String: Any]) async throws {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        try await service.setSetting(scope: scope, key: key, json: String(decoding: data, as: UTF8.self))
    }

    struct EmptyObject: Encodable {}

    /// Paging cursors are opaque to clients.
    static func encodeToken(_ s: String) -> String { Data(s.utf8).base64EncodedString() }
    static func decodeToken(_ s: String?) throws -> String? {
        guard let s, !s.isEmpty else { return nil }
        guard let d = Data(base64Encoded: s) else { throw SendbirdError(.invalidValue, "Invalid value: \"token\".") }
        return String(decoding: d, as: UTF8.self)
    }
}

/// Renders every failure as Sendbird's `{"message","code","error":true}` with its HTTP status.
struct SendbirdErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            try QueryParameters(request.uri.query).checkIdentifiers()
            return try await WireDialect.$platform.withValue(request.headers[.apiToken] != nil) {
                try await next(request, context)
            }
        } catch let e as SendbirdError {
            return Self.response(e.code, e.message, status: .init(code: e.code.httpStatus))
        } catch is NIOTooManyBytesError {
            // A body past the route's limit (1 MB for JSON, the upload limit for files).
            return Self.response(.valueTooLong, "The request body is too large.", status: .contentTooLarge)
        } catch let e as HTTPError {
            switch e.status {
            case .notFound:
                return Self.response(.notFound, "Unknown endpoint: \(request.method) \(request.uri.path).", status: .badRequest)
            case .contentTooLarge:
                return Self.response(.valueTooLong, "The request body is too large.", status: .contentTooLarge)
            case .methodNotAllowed:
                return Self.response(.invalidValue, "Method not allowed: \(request.method) \(request.uri.path).", status: .badRequest)
            default:
                return Self.response(.invalidValue, e.body ?? "Bad request.", status: .badRequest)
            }
        } catch {
            context.logger.error("request failed: \(error)")
            return Self.response(.internalError, "Internal server error.", status: .internalServerError)
        }
    }

    static func response(_ code: ErrorCode, _ message: String, status: HTTPResponse.Status) -> Response {
        let data = (try? WireCoding.encoder.encode(ErrorBody(code: code, message: message))) ?? Data("{}".utf8)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
