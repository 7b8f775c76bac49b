import Foundation
import TernKit
public import TernProtocol

/// Errors in words for people: what happened and what to do, the Sendbird code after it in brackets.
/// Every error the engine reports to the screen (status line, failed messages, connection) goes
/// through here, so one code always reads the same.
///
/// For example:
/// ```swift
/// ErrorText.describe(SendbirdError(.notFound, "\"User\" not found: bob."), .user("bob"))
/// // no user "bob" on this server (400201)
/// ```
public enum ErrorText {
    /// What was being done when the error came: it decides what "not found" was about and what to suggest.
    public enum Context: Sendable, Equatable {
        /// No particular action (a server error frame, a command).
        case general
        /// Signing in to the server.
        case connect
        /// Something about a user, by id: `/dm`, `/whois`, `/block`, `/invite`…
        case user(String)
        /// Something about a channel, by name or URL: `/join NAME`, `/enter NAME`.
        case channel(String)
        /// Sending a message.
        case send
        /// Sending a file.
        case upload(String)
    }

    /// The sentence for an error in a context.
    public static func describe(_ error: any Error, _ context: Context = .general) -> String {
        guard let e = error as? SendbirdError else {
            if let e = error as? CocoaError, let path = e.filePath ?? (e.userInfo[NSURLErrorKey] as? URL)?.path {
                return "cannot read \(path): \(e.localizedDescription)"
            }
            return "\(error)"
        }
        return describe(e, context)
    }

    public static func describe(_ e: SendbirdError, _ context: Context = .general) -> String {
        "\(sentence(e, context)) (\(e.code.rawValue))"
    }

    /// The words for a failed message's mark: short, since they sit after the message (`✗ not sent: …`).
    public static func short(_ e: SendbirdError) -> String {
        switch e.code {
        case .connectionRequired, .connectionCanceled, .networkError, .webSocketConnectionClosed, .webSocketConnectionFailed, .requestFailed:
            "no connection"
        case .ackTimeout: "no answer from the server"
        case .tooManyMessages, .rateLimitExceeded: "too fast"
        case .notAMember: "not a member"
        case .mutedInChannel: "you are muted"
        case .channelFrozen: "channel frozen"
        case .profanityBlocked: "refused by the word filter"
        case .blockedByUser: "they blocked you"
        case .bannedFromChannel, .bannedUser: "you are banned"
        case .channelNotFound: "the channel is gone"
        case .valueTooLong: "too long"
        case ErrorCode(800260): "file too large"
        default: "error"
        }
    }

    static func sentence(_ e: SendbirdError, _ context: Context) -> String {
        switch e.code {
        case .notFound, .userNotFoundForLogin:
            switch context {
            case .user(let id): return "no user \"\(id)\" on this server"
            case .channel(let name): return "no channel \"\(name)\" on this server"
            default:
                // The server's own form, `"User" not found: bob.`, read back into words.
                if let (what, value) = notFoundParts(e.message) {
                    return value.isEmpty ? "no such \(what.lowercased()) on this server" : "no \(what.lowercased()) \"\(value)\" on this server"
                }
                return "not found: " + plain(e.message)
            }
        case .channelNotFound:
            return "that channel no longer exists (or you cannot see it)"
        case .messageNotFound:
            return "that message no longer exists"
        case .alreadyExists:
            return "it exists already: " + plain(e.message)
        case .connectionRequired, .connectionCanceled:
            switch context {
            case .send: return "not connected: the message was not sent — send it again once the status bar says connected"
            case .connect: return "not connected — tern keeps trying; the status bar shows when"
            default: return "not connected — try again once the status bar says connected"
            }
        case .networkError, .webSocketConnectionClosed, .webSocketConnectionFailed, .requestFailed:
            return "cannot reach the server — check that it runs and the address (TERN_SERVER) is right; tern keeps trying"
        case .ackTimeout, .loginTimeout:
            return "the server did not answer in time — try again in a moment"
        case .tooManyMessages, .rateLimitExceeded:
            return context == .send
                ? "sending too fast: the server takes a few messages a second — wait a moment and send again"
                : "too many requests at once — wait a moment and try again"
        case .unauthorizedRequest:
            return "not allowed: " + plain(e.message)
        case .notAMember:
            return "you are not a member of this channel — /join it (public) or ask for an invitation"
        case .mutedInChannel:
            return "you are muted in this channel: an operator can /unmute you"
        case .channelFrozen:
            return "this channel is frozen: only operators can send until it is unfrozen"
        case .profanityBlocked:
            return "the server's word filter refused this message"
        case .blockedByUser:
            return "this user has blocked you"
        case .bannedFromChannel, .bannedUser:
            return "you are banned from this channel"
        case .userDeactivated:
            return "your user is deactivated on this server — ask its operator"
        case .invalidAccessToken, .invalidSessionKey, .sessionKeyExpired, .sessionTokenRevoked, .invalidApiToken:
            return "the server refused your login — check TERN_ACCESS_TOKEN (or token_command) for this server"
        case .applicationNotFound:
            return "the server does not know this app id — set TERN_APP_ID to the server's (--app-id)"
        case .tooManyConnections:
            return "too many connections for this user — close another tern or SDK session"
        case .valueTooLong:
            return "too long: " + plain(e.message)
        case .internalError:
            return "the server failed — try again; if it keeps failing, its log says why"
        case .invalidParameter, ErrorCode(800260):
            // The engine's own words already say what and how much.
            return plain(e.message)
        default:
            return plain(e.message)
        }
    }

    /// `"User" not found: bob.` → ("User", "bob"); `"Channel" not found.` → ("Channel", "").
    static func notFoundParts(_ message: String) -> (String, String)? {
        let m = plain(message)
        guard m.hasPrefix("\""), let close = m.dropFirst().firstIndex(of: "\"") else { return nil }
        let what = String(m[m.index(after: m.startIndex)..<close])
        let rest = m[m.index(after: close)...].trimmingCharacters(in: .whitespaces)
        guard rest.hasPrefix("not found"), !what.isEmpty else { return nil }
        let value = rest.dropFirst("not found".count).drop { $0 == ":" || $0 == " " }
        return (what, String(value))
    }

    /// A server message without its trailing full stop (the code follows it).
    static func plain(_ message: String) -> String {
        var m = message.trimmingCharacters(in: .whitespaces)
        while m.hasSuffix(".") { m.removeLast() }
        return m.isEmpty ? "an error" : m
    }
}
