import Foundation
import HTTPTypes
public import Hummingbird
public import NIOCore
import TernProtocol

/// The REST router's request context: Hummingbird's basic one plus the peer's address (the IP
/// allow-list of Platform API calls needs it) and, behind ``CallerMiddleware``, who is calling.
public struct RESTRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    /// Set by ``CallerMiddleware``; nil on the routes that take no credentials.
    var authenticated: Caller?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }

    /// Request bodies are read with Sendbird's errors (``SendbirdRequestDecoder``).
    public var requestDecoder: SendbirdRequestDecoder { SendbirdRequestDecoder() }

    /// Who is calling. Routes behind ``CallerMiddleware`` always have one; elsewhere this throws
    /// the error of a request without credentials (400401).
    var caller: Caller {
        get throws {
            guard let authenticated else { throw RESTSupport.noCredentials }
            return authenticated
        }
    }
}

/// Refuses Platform API calls (`Api-Token`) from addresses outside the application's IP
/// allow-list, when it has one (400108, HTTP 403). The caller is the TCP peer, or — only when the
/// peer is a trusted proxy (``ServerConfiguration/trustedProxies``) — the client it forwards for
/// (``ClientAddress``). A caller on the machine itself may still edit the list, so that an
/// operator cannot lock themselves out; behind a balancer on the same machine that is the real
/// client's address, not the balancer's.
struct IPAllowListMiddleware<Context: RequestContext & RemoteAddressRequestContext>: RouterMiddleware {
    let service: ChatService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.headers[.apiToken] != nil else { return try await next(request, context) }
        let list = try await service.ipAllowList()
        if list.isEmpty { return try await next(request, context) }
        let client = ClientAddress.of(
            peer: context.remoteAddress?.ipAddress ?? "", headers: request.headers, trustedProxies: service.config.trustedProxies)
        if list.contains(where: { $0.contains(client) }) { return try await next(request, context) }
        if request.uri.path == "/v3/applications/settings/ip_whitelist", IPRange.isLoopback(client) {
            return try await next(request, context)
        }
        throw SendbirdError(.unauthorizedRequest, "Unauthorized request: \(client) is not on the application's IP allow-list.")
    }
}

/// The address a request comes from. The TCP peer, unless it is a trusted proxy: then the
/// forwarded chain (`Forwarded: for=…`, else `X-Forwarded-For`) is read from the right, each
/// trusted proxy skipped, and the first address that is not one is the client — what a client
/// writes itself into the headers sits to the left of what its proxies appended, so it is never
/// reached. A value that is not an IP address (`unknown`, garbage) is taken as it is and matches
/// no range.
enum ClientAddress {
    static let forwarded = HTTPField.Name("Forwarded")!
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!

    static func of(peer: String, headers: HTTPFields, trustedProxies: [IPRange]) -> String {
        guard !trustedProxies.isEmpty, trustedProxies.contains(where: { $0.contains(peer) }) else { return peer }
        let forwarded = headers[values: Self.forwarded]
        let chain = forwarded.isEmpty ? headers[values: Self.xForwardedFor].flatMap(xForwardedFor) : forwarded.flatMap(forwardedFor)
        for hop in chain.reversed() where !trustedProxies.contains(where: { $0.contains(hop) }) { return hop }
        // Every hop is a trusted proxy (or there is none): the request started at one of them.
        return chain.first ?? peer
    }

    /// `X-Forwarded-For: a, b, c` (an address may carry a port: `a.b.c.d:p`, `[v6]:p`).
    static func xForwardedFor(_ value: String) -> [String] {
        value.split(separator: ",").map { strip(String($0)) }.filter { !$0.isEmpty }
    }

    /// The `for=` of each element of `Forwarded: for=a;proto=http, for="[v6]:p"` (RFC 7239).
    static func forwardedFor(_ value: String) -> [String] {
        value.split(separator: ",").compactMap { element in
            for pair in element.split(separator: ";") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                guard kv.count == 2, kv[0].trimmingCharacters(in: .whitespaces).lowercased() == "for" else { continue }
                return strip(String(kv[1]))
            }
            return nil
        }
    }

    /// An address without quotes, brackets or port.
    static func strip(_ raw: String) -> String {
        var s = raw.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        if s.hasPrefix("["), let end = s.firstIndex(of: "]") { return String(s[s.index(after: s.startIndex)..<end]) }
        // a.b.c.d:port (one colon: not an IPv6 address)
        if s.filter({ $0 == ":" }).count == 1, let colon = s.firstIndex(of: ":") { s = String(s[..<colon]) }
        return s
    }
}
