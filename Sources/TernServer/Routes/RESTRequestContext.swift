import Hummingbird
import NIOCore
import TernProtocol

/// The REST router's request context: Hummingbird's basic one plus the peer's address (the IP
/// allow-list of Platform API calls needs it).
public struct RESTRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }
}

/// Refuses Platform API calls (`Api-Token`) from addresses outside the application's IP
/// allow-list, when it has one (400108, HTTP 403). Calls from the machine itself may still edit
/// the list, so that an operator cannot lock themselves out.
struct IPAllowListMiddleware<Context: RequestContext & RemoteAddressRequestContext>: RouterMiddleware {
    let service: ChatService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.headers[.apiToken] != nil else { return try await next(request, context) }
        let list = try await service.ipAllowList()
        if list.isEmpty { return try await next(request, context) }
        let peer = context.remoteAddress?.ipAddress ?? ""
        if list.contains(where: { $0.contains(peer) }) { return try await next(request, context) }
        if request.uri.path == "/v3/applications/settings/ip_whitelist", IPRange.isLoopback(peer) {
            return try await next(request, context)
        }
        throw SendbirdError(.unauthorizedRequest, "Unauthorized request: \(peer) is not on the application's IP allow-list.")
    }
}
