import Foundation
import TernKit
import TernProtocol
import Testing

@testable import TernTUI

/// Errors in words for people, the code after them (issue 30, point 8).
@Suite("Error text")
struct ErrorTextTests {
    @Test func notFoundSaysWhatWasNotFound() {
        let e = SendbirdError(.notFound, "\"User\" not found: nosuchuser.")
        #expect(ErrorText.describe(e, .user("nosuchuser")) == "no user \"nosuchuser\" on this server (400201)")
        // Without a context the server's own words are read back.
        #expect(ErrorText.describe(e) == "no user \"nosuchuser\" on this server (400201)")
        #expect(ErrorText.describe(SendbirdError.notFound("Channel")) == "no such channel on this server (400201)")
        #expect(ErrorText.describe(SendbirdError(.notFound, "gone"), .channel("lobby")) == "no channel \"lobby\" on this server (400201)")
    }

    @Test func commonCodesSayWhatToDo() {
        func text(_ code: ErrorCode, _ message: String = "x", _ context: ErrorText.Context = .general) -> String {
            ErrorText.describe(SendbirdError(code, message), context)
        }
        #expect(
            text(.connectionRequired, "not connected: connect() first") == "not connected — try again once the status bar says connected (800101)")
        #expect(!text(.connectionRequired, "not connected: connect() first").contains("connect()"), "no API words")
        #expect(text(.tooManyMessages, "Too many messages: at most 5 per second", .send).hasPrefix("sending too fast"))
        #expect(text(.tooManyMessages).hasSuffix("(900200)"))
        #expect(text(.ackTimeout).hasPrefix("the server did not answer in time"))
        #expect(text(.networkError).contains("TERN_SERVER"))
        #expect(text(.notAMember).contains("not a member"))
        #expect(text(.mutedInChannel).contains("muted"))
        #expect(text(.channelFrozen).contains("frozen"))
        #expect(text(.unauthorizedRequest, "Only operators can do this.") == "not allowed: Only operators can do this (400108)")
        #expect(
            text(ErrorCode(800260), "big.iso is 30 MB; the server takes at most 25 MB") == "big.iso is 30 MB; the server takes at most 25 MB (800260)"
        )
        #expect(text(.invalidAccessToken).contains("TERN_ACCESS_TOKEN"))
        #expect(text(.applicationNotFound).contains("TERN_APP_ID"))
        // Every sentence ends with its code, never starts with it.
        for code in [ErrorCode.notFound, .connectionRequired, .tooManyMessages, .rateLimitExceeded, .internalError, ErrorCode(123456)] {
            let t = text(code, "something")
            #expect(t.hasSuffix("(\(code.rawValue))") && !t.hasPrefix(String(code.rawValue)), "\(t)")
        }
        #expect(ErrorText.short(SendbirdError(.connectionRequired, "not connected")) == "no connection")
    }

    @Test func theScreenUsesTheWords() {
        var s = AppState(me: User(userId: "alice"), server: "test")
        let reducer = Reducer()
        _ = reducer.reduce(&s, .event(.serverError(SendbirdError(.tooManyMessages, "Too many messages: at most 5 per second"))))
        #expect(s.notice?.hasSuffix("(900200)") == true && s.notice?.contains("too many") == true)
        _ = reducer.reduce(&s, .event(.disconnected(.refused(SendbirdError(.invalidAccessToken, "bad")))))
        #expect(s.notice == "disconnected: the server refused your login — check TERN_ACCESS_TOKEN (or token_command) for this server (400302)")
        #expect(
            ChatApp.describe(SendbirdError(.notFound, "\"User\" not found: nosuchuser."), .user("nosuchuser"))
                == "no user \"nosuchuser\" on this server (400201)")
    }
}
