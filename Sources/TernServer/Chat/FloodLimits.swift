import TernProtocol

/// Flood protection for SDK callers on every transport: at most
/// ``ServerConfiguration/maxMessagesPerSecond`` new messages, and as many changes to messages
/// (edits, deletions, reactions), per user in a channel. Owns the two limiters; a refusal is
/// 900200 on the WebSocket and 500910 (HTTP 429) on REST.
final class FloodLimits: Sendable {
    /// What is counted: each has its own limiter.
    enum Kind: Sendable {
        case messages
        case changes

        var noun: String { self == .messages ? "messages" : "message changes" }
    }

    let perSecond: Double
    private let messages: RateLimiter
    private let changes: RateLimiter

    init(perSecond: Double) {
        self.perSecond = perSecond
        self.messages = RateLimiter(perSecond: perSecond)
        self.changes = RateLimiter(perSecond: perSecond)
    }

    /// Counts one `kind` by `userId` in `channelUrl` at `t` (ms); throws when over the limit.
    /// Callers that are not flood-limited (the Platform API) pass.
    func check(_ kind: Kind, userId: String, channelUrl: String, origin: RequestOrigin, at t: Int64) throws {
        let limiter = kind == .messages ? messages : changes
        guard origin.isFloodLimited, !limiter.allow(Self.key(userId, channelUrl), nowMs: t) else { return }
        throw SendbirdError(
            origin == .webSocket ? .tooManyMessages : .rateLimitExceeded,
            "Too many \(kind.noun): at most \(Int(perSecond)) per second.")
    }

    /// Counts a message another node accepted: the limit is the cluster's.
    func charge(messageBy userId: String, in channelUrl: String, at t: Int64) {
        messages.charge(Self.key(userId, channelUrl), nowMs: t)
    }

    private static func key(_ userId: String, _ channelUrl: String) -> String { userId + "\u{0}" + channelUrl }
}
