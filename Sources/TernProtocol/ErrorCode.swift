/// Sendbird error codes used on the wire, in REST error bodies and `EROR` frames.
///
/// The values and meanings follow Sendbird's published list (see `research/sendbird.md` §1).
public struct ErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public var description: String { String(rawValue) }

    // Request validation (REST, HTTP 400).
    public static let invalidValueType = ErrorCode(400100)
    public static let missingParameter = ErrorCode(400105)
    public static let unauthorizedRequest = ErrorCode(400108)
    public static let valueTooLong = ErrorCode(400110)
    public static let invalidValue = ErrorCode(400111)
    public static let notFound = ErrorCode(400201)
    public static let alreadyExists = ErrorCode(400202)
    public static let tooManyItems = ErrorCode(400203)
    // Authentication.
    public static let userDeactivated = ErrorCode(400300)
    public static let userNotFoundForLogin = ErrorCode(400301)
    public static let invalidAccessToken = ErrorCode(400302)
    public static let invalidSessionKey = ErrorCode(400303)
    public static let applicationNotFound = ErrorCode(400304)
    public static let userIdTooLong = ErrorCode(400305)
    public static let sessionKeyExpired = ErrorCode(400309)
    public static let sessionTokenRevoked = ErrorCode(400310)
    public static let invalidApiToken = ErrorCode(400401)
    public static let invalidJSON = ErrorCode(400403)
    public static let tooManyConnections = ErrorCode(400500)
    /// REST: the user is banned from the channel (joining, being invited, entering).
    public static let bannedUser = ErrorCode(400750)
    public static let internalError = ErrorCode(500901)
    public static let rateLimitExceeded = ErrorCode(500910)
    // Real-time (WebSocket) refusals.
    public static let loginRequired = ErrorCode(900010)
    public static let notAMember = ErrorCode(900020)
    public static let mutedInChannel = ErrorCode(900041)
    public static let channelFrozen = ErrorCode(900050)
    /// A message refused by the profanity or domain filter.
    public static let profanityBlocked = ErrorCode(900060)
    public static let blockedByUser = ErrorCode(900080)
    public static let bannedFromChannel = ErrorCode(900100)
    public static let tooManyMessages = ErrorCode(900200)
    public static let messageNotFound = ErrorCode(900300)
    public static let channelNotFound = ErrorCode(900500)

    // Client-side codes (raised by the engine, never sent by a server), as the Sendbird SDKs number them.
    public static let connectionRequired = ErrorCode(800101)
    public static let connectionCanceled = ErrorCode(800102)
    public static let invalidParameter = ErrorCode(800110)
    public static let networkError = ErrorCode(800120)
    public static let malformedData = ErrorCode(800130)
    public static let ackTimeout = ErrorCode(800180)
    public static let loginTimeout = ErrorCode(800190)
    public static let webSocketConnectionClosed = ErrorCode(800200)
    public static let webSocketConnectionFailed = ErrorCode(800210)
    public static let requestFailed = ErrorCode(800220)

    /// The HTTP status a REST response carries for this code.
    public var httpStatus: Int {
        switch self {
        case .invalidApiToken, .invalidAccessToken, .invalidSessionKey, .sessionKeyExpired, .sessionTokenRevoked,
            .unauthorizedRequest, .userDeactivated, .notAMember, .bannedFromChannel, .mutedInChannel, .channelFrozen,
            .blockedByUser:
            return 403
        case .rateLimitExceeded, .tooManyMessages:
            return 429
        case .internalError:
            return 500
        default:
            return 400
        }
    }
}

/// The JSON body of every error: `{"message","code","error":true}`.
public struct ErrorBody: Codable, Sendable, Equatable {
    public var message: String
    public var code: Int
    public var error: Bool
    public init(code: ErrorCode, message: String) {
        self.message = message
        self.code = code.rawValue
        self.error = true
    }
}

/// An error that reaches a client: a Sendbird code and a readable message.
public struct SendbirdError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { "\(code.rawValue): \(message)" }

    public static func notFound(_ what: String) -> SendbirdError { .init(.notFound, "\"\(what)\" not found.") }
    public static func missing(_ field: String) -> SendbirdError { .init(.missingParameter, "\"\(field)\" must be required.") }
    public static func tooLong(_ field: String, max: Int) -> SendbirdError {
        .init(.valueTooLong, "\"\(field)\" is too long (at most \(max)).")
    }
}
