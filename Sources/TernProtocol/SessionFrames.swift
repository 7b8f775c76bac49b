import Foundation

// The frames about the connection itself that ternd writes and TernKit reads: one type for both
// sides. Every field reads leniently (a client acts on what it can read of either).

/// S→C `EXPR`: the session key has `expires_in` s left (0: it has ended; negative, or `reason`
/// 400310: it was revoked) → `{expires_in, reason}`.
public struct SessionExpiry: Codable, Sendable, Equatable {
    public var expiresIn: Double
    /// The Sendbird error code that says why, when there is one.
    public var reason: Int?
    enum CodingKeys: String, CodingKey {
        case expiresIn = "expires_in"
        case reason
    }

    public init(expiresIn: Double, reason: Int? = nil) {
        self.expiresIn = expiresIn
        self.reason = reason
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(expiresIn: c.lenient(.expiresIn, 0), reason: c.lenient(.reason, nil))
    }
}

/// S→C `BUSY`: the server is going away (a restart); come back after `retry_after` s →
/// `{retry_after, message}`.
public struct BusyNotice: Codable, Sendable, Equatable {
    public var retryAfter: Double
    public var message: String
    enum CodingKeys: String, CodingKey {
        case retryAfter = "retry_after"
        case message
    }

    public init(retryAfter: Double, message: String = "") {
        self.retryAfter = retryAfter
        self.message = message
    }

    /// A client that cannot read the delay waits 5 s.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(retryAfter: c.lenient(.retryAfter, 5), message: c.lenient(.message, ""))
    }
}
