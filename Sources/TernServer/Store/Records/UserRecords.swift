import TernProtocol

/// Rows the ``Store`` hands back and the queries it takes: users and their sessions (``UserStore``).
/// They are storage-shaped; ``Presenter`` turns them into wire payloads.

/// A session key's row, with what its validity depends on.
public struct SessionRecord: Sendable, Equatable {
    public var userId: String
    /// ms; 0 = never.
    public var expiresAt: Int64
    /// The access token the session was made from; nil when the user connected without one.
    public var tokenHash: String?
    /// That token's expiry (ms, 0 = never); nil when the session has no token or the token is gone.
    public var tokenExpiresAt: Int64?
    public var userExists: Bool
    public var userActive: Bool

    /// When the session ends: its own expiry or its token's, whichever comes first (0 = never).
    public var effectiveExpiry: Int64 {
        let ends = [expiresAt, tokenExpiresAt ?? 0].filter { $0 != 0 }
        return ends.min() ?? 0
    }
}

/// A user row.
public struct UserRecord: Sendable, Equatable {
    public var userId: String
    public var nickname: String
    public var profileUrl: String
    public var metadata: [String: String]
    /// Unix seconds.
    public var createdAt: Int64
    /// Milliseconds; 0 when never seen.
    public var lastSeenAt: Int64
    public var hasEverLoggedIn: Bool
    public var isActive: Bool
}

/// The application's user list query.
public struct UserListQuery: Sendable {
    public var afterUserId: String?
    public var limit = 10
    public var userIds: [String]?
    public var nicknameStartsWith: String?
    public var nickname: String?
    public var metadataKey: String?
    public var metadataValues: [String]?
    /// `activated` (default), `deactivated` or `all`.
    public var activeMode = "activated"
    public init() {}
}
