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
        expectTrue(t.start(bob, in: "c", now: 0))
        expectTrue(!t.start(bob, in: "c", now: 5000))  // still typing: not new, expiry moves
        expectTrue(t.start(carol, in: "c", now: 6000))
        #expect(t.typers(in: "c").map(\.userId) == ["bob", "carol"])
        expectTrue(t.expire(now: 14999).isEmpty)
        let gone = t.expire(now: 15000)
        #expect(gone.map(\.user.userId) == ["bob"])
        #expect(t.typers(in: "c").map(\.userId) == ["carol"])
        expectTrue(t.end("carol", in: "c") == carol)
        expectTrue(t.end("carol", in: "c") == nil)
        #expect(t.nextExpiry == nil)
    }

    @Test func typingThrottleSendsAtMostOncePerSecond() {
        var t = TypingThrottle()
        expectTrue(!t.end("c", now: 0))  // never started: no end
        expectTrue(t.start("c", now: 0))
        expectTrue(!t.start("c", now: 999))
        expectTrue(t.start("c", now: 1000))
        expectTrue(t.start("d", now: 1000))  // per channel
        expectTrue(t.end("c", now: 1100))
        expectTrue(!t.end("c", now: 1200))
        expectTrue(t.start("c", now: 1300))  // a new start after an end goes out at once
    }

    @Test func readThrottleKeepsOneTrailingSend() {
        var r = ReadThrottle()
        expectTrue(r.request("c", now: 0) == .sendNow)
        expectTrue(r.request("c", now: 300) == .deferred(until: 1000))
        expectTrue(r.request("c", now: 600) == .deferred(until: 1000))
        expectTrue(r.takeDue(now: 999).isEmpty)
        expectTrue(r.takeDue(now: 1000) == ["c"])
        expectTrue(r.takeDue(now: 5000).isEmpty)
        expectTrue(r.request("c", now: 1500) == .deferred(until: 2000))
        expectTrue(r.request("d", now: 1500) == .sendNow)
    }

    @Test func trailingSendsOnAGridFallDueTogether() {
        var r = ReadThrottle(interval: 500, grid: 100)
        // Three channels' first sends at scattered times, then a second request inside each one's interval.
        for (url, at) in [("a", 1_010), ("b", 1_050), ("c", 1_099)] as [(String, Millis)] { expectTrue(r.request(url, now: at) == .sendNow) }
        expectTrue(r.request("a", now: 1_200) == .deferred(until: 1_600))
        expectTrue(r.request("b", now: 1_200) == .deferred(until: 1_600))
        expectTrue(r.request("c", now: 1_200) == .deferred(until: 1_600))
        expectTrue(r.nextDue == 1_600)
        // Never before the interval's end: one wake-up sends all three.
        expectTrue(r.takeDue(now: 1_599).isEmpty)
        expectTrue(r.takeDue(now: 1_600) == ["a", "b", "c"])
        // An interval that ends on the grid is not moved.
        expectTrue(r.request("d", now: 2_000) == .sendNow)
        expectTrue(r.request("d", now: 2_100) == .deferred(until: 2_500))
    }
}
