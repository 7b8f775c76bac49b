import TernProtocol
import Testing

@testable import TernServer

@Suite("Flood limits")
struct FloodLimitsTests {
    @Test("Messages and changes are counted apart, per user per channel; the WebSocket gets 900200, REST 500910, the Platform API passes")
    func limits() throws {
        let limits = FloodLimits(perSecond: 2)
        for _ in 0..<2 { try limits.check(.messages, userId: "a", channelUrl: "c", origin: .webSocket, at: 0) }
        #expect(throws: SendbirdError(.tooManyMessages, "Too many messages: at most 2 per second.")) {
            try limits.check(.messages, userId: "a", channelUrl: "c", origin: .webSocket, at: 0)
        }
        // Another channel, another kind, the Platform API: each has room.
        try limits.check(.messages, userId: "a", channelUrl: "d", origin: .webSocket, at: 0)
        try limits.check(.changes, userId: "a", channelUrl: "c", origin: .sessionREST, at: 0)
        for _ in 0..<5 { try limits.check(.messages, userId: "a", channelUrl: "c", origin: .rest, at: 0) }
        try limits.check(.changes, userId: "a", channelUrl: "c", origin: .sessionREST, at: 0)
        #expect(throws: SendbirdError(.rateLimitExceeded, "Too many message changes: at most 2 per second.")) {
            try limits.check(.changes, userId: "a", channelUrl: "c", origin: .sessionREST, at: 0)
        }
    }

    @Test("A message another node accepted counts toward the sender's limit here")
    func charge() throws {
        let limits = FloodLimits(perSecond: 2)
        limits.charge(messageBy: "a", in: "c", at: 0)
        limits.charge(messageBy: "a", in: "c", at: 0)
        #expect(throws: SendbirdError.self) { try limits.check(.messages, userId: "a", channelUrl: "c", origin: .webSocket, at: 0) }
        try limits.check(.changes, userId: "a", channelUrl: "c", origin: .webSocket, at: 0)
    }
}
