import TernProtocol
import Testing

@testable import TernKit

/// Who is typing and when typing and read frames go out, as values (State/Typing.swift).
@Suite("Typing tracker, typing and read throttles (value types)")
struct TypingTests {
    let bob = User(userId: "bob", nickname: "Bob")
    let carol = User(userId: "carol")

    @Test func typersExpireTenSecondsAfterTheirLastStart() {
        var t = TypingTracker()
        do {
            let ok = t.start(bob, in: "c", now: 0)
            #expect(ok)
        }
        do {
            let ok = !t.start(bob, in: "c", now: 5000)
            #expect(ok)
        }  // still typing: not new, expiry moves
        do {
            let ok = t.start(carol, in: "c", now: 6000)
            #expect(ok)
        }
        #expect(t.typers(in: "c").map(\.userId) == ["bob", "carol"])
        do {
            let ok = t.expire(now: 14999).isEmpty
            #expect(ok)
        }
        let gone = t.expire(now: 15000)
        #expect(gone.map(\.user.userId) == ["bob"])
        #expect(t.typers(in: "c").map(\.userId) == ["carol"])
        do {
            let ok = t.end("carol", in: "c") == carol
            #expect(ok)
        }
        do {
            let ok = t.end("carol", in: "c") == nil
            #expect(ok)
        }
        #expect(t.nextExpiry == nil)
    }

    @Test func typingThrottleSendsAtMostOncePerSecond() {
        var t = TypingThrottle()
        do {
            let ok = !t.end("c", now: 0)
            #expect(ok)
        }  // never started: no end
        do {
            let ok = t.start("c", now: 0)
            #expect(ok)
        }
        do {
            let ok = !t.start("c", now: 999)
            #expect(ok)
        }
        do {
            let ok = t.start("c", now: 1000)
            #expect(ok)
        }
        do {
            let ok = t.start("d", now: 1000)
            #expect(ok)
        }  // per channel
        do {
            let ok = t.end("c", now: 1100)
            #expect(ok)
        }
        do {
            let ok = !t.end("c", now: 1200)
            #expect(ok)
        }
        do {
            let ok = t.start("c", now: 1300)
            #expect(ok)
        }  // a new start after an end goes out at once
    }

    @Test func readThrottleKeepsOneTrailingSend() {
        var r = ReadThrottle()
        do {
            let ok = r.request("c", now: 0) == .sendNow
            #expect(ok)
        }
        do {
            let ok = r.request("c", now: 300) == .deferred(until: 1000)
            #expect(ok)
        }
        do {
            let ok = r.request("c", now: 600) == .deferred(until: 1000)
            #expect(ok)
        }
        do {
            let ok = r.takeDue(now: 999).isEmpty
            #expect(ok)
        }
        do {
            let ok = r.takeDue(now: 1000) == ["c"]
            #expect(ok)
        }
        do {
            let ok = r.takeDue(now: 5000).isEmpty
            #expect(ok)
        }
        do {
            let ok = r.request("c", now: 1500) == .deferred(until: 2000)
            #expect(ok)
        }
        do {
            let ok = r.request("d", now: 1500) == .sendNow
            #expect(ok)
        }
    }
}
