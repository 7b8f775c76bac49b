import Hummingbird
import TernProtocol

/// Authenticates every request of the group it is added to (`Api-Token` or `Session-Key`; the
/// Sendbird error for a missing or wrong one) and hands the caller to the handler in
/// ``RESTRequestContext/caller``.
///
/// ```swift
/// let api = router.group().add(middleware: CallerMiddleware(rest: rest))
/// api.get("/v3/users/:user_id") { req, ctx in try ctx.caller … }
/// ```
struct CallerMiddleware: RouterMiddleware {
    let rest: RESTSupport

    func handle(
        _ request: Request, context: RESTRequestContext, next: (Request, RESTRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.authenticated = try await rest.authenticate(request)
        return try await next(request, context)
    }
}

/// Lets through only the Platform API (`Api-Token`); an SDK user is refused with 400108. Goes
/// after ``CallerMiddleware``.
struct PlatformOnlyMiddleware: RouterMiddleware {
    func handle(
        _ request: Request, context: RESTRequestContext, next: (Request, RESTRequestContext) async throws -> Response
    ) async throws -> Response {
        try context.caller.requirePlatform()
        return try await next(request, context)
    }
}

/// The routes under `…/group_channels/:channel_url` or `…/open_channels/:channel_url` that serve
/// both types: a channel of the other type is not found there (400201). Goes after
/// ``CallerMiddleware``: an anonymous request learns nothing about which channels exist.
struct ChannelTypeMiddleware: RouterMiddleware {
    let rest: RESTSupport
    let open: Bool

    func handle(
        _ request: Request, context: RESTRequestContext, next: (Request, RESTRequestContext) async throws -> Response
    ) async throws -> Response {
        let url = try rest.param(context, "channel_url")
        if let channel = try await rest.service.channel(url), channel.isOpen != open {
            throw SendbirdError(.notFound, "\"Channel\" not found: \(url).")
        }
        return try await next(request, context)
    }
}

extension RESTSupport {
    /// The two route groups `prefix/group_channels/:channel_url` and
    /// `prefix/open_channels/:channel_url`, each behind ``ChannelTypeMiddleware``: the routes
    /// that both channel types share are registered once, on each of them.
    func eachChannelType(on api: RouterGroup<RESTRequestContext>, under prefix: String = "/v3") -> [RouterGroup<RESTRequestContext>] {
        [false, true].map { open in
            api.group("\(prefix)/\(open ? "open_channels" : "group_channels")/:channel_url")
                .add(middleware: ChannelTypeMiddleware(rest: self, open: open))
        }
    }
}
