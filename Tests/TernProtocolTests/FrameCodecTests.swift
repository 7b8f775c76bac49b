import Foundation
import Testing

@testable import TernProtocol

@Suite("Frame codec")
struct FrameCodecTests {
    @Test("Several frames in one WebSocket message are split on newlines; CRLF and blank lines are tolerated")
    func splitsFrames() throws {
        let frames = FrameCodec.decode("PING{\"id\":1}\nMESG{\"message\":\"a\\nb\"}\r\n\nPONG{}\n")
        #expect(frames.count == 3)
        let decoded = try frames.map { try $0.get() }
        #expect(decoded.map(\.command) == [.ping, .message, .pong])
        let msg = try decoded[1].decode(SendMessageRequest.self)
        #expect(msg.message == "a\nb", "an escaped newline inside JSON is not a frame boundary")
    }

    @Test("A frame with no newline at the end is still a frame")
    func lastFrameWithoutNewline() throws {
        let frames = FrameCodec.decode("READ{\"channel_url\":\"c\",\"req_id\":\"r\"}")
        let f = try #require(try frames.first?.get())
        let r = try f.decode(ChannelRequest.self)
        #expect(r.channelUrl == "c" && r.reqId == "r")
    }

    @Test("Bad lines fail on their own without losing the good ones")
    func badLines() {
        let results = FrameCodec.decode("ab\nmesg{}\nMESG[1]\nPING{}\n")
        #expect(results.count == 4)
        if case .failure(.tooShort) = results[0] {} else { Issue.record("expected tooShort, got \(results[0])") }
        if case .failure(.badCommand("mesg")) = results[1] {} else { Issue.record("expected badCommand, got \(results[1])") }
        if case .failure(.notAnObject(.message)) = results[2] {} else { Issue.record("expected notAnObject, got \(results[2])") }
        #expect((try? results[3].get())?.command == .ping)
    }

    @Test("Encoding writes CMD4 + JSON + newline and round-trips")
    func encodeRoundTrip() throws {
        let frame = try Frame(command: .pong, PingPayload(id: 7, ts: 9))
        #expect(frame.text.hasPrefix("PONG{"))
        #expect(frame.text.hasSuffix("}\n"))
        let joined = FrameCodec.encode([frame, frame])
        let back = FrameCodec.decode(joined).compactMap { try? $0.get() }
        #expect(back == [frame, frame])
        #expect(try back[0].decode(PingPayload.self).id?.value == 7)
    }

    @Test("Arbitrary bytes never crash the decoder")
    func fuzzish() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let n = Int.random(in: 0..<64, using: &rng)
            let bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
            for r in FrameCodec.decode(bytes) {
                if case .success(let f) = r { _ = try? f.decode(SendMessageRequest.self) }
            }
        }
    }

    @Test("Ack-required commands are Sendbird's set")
    func ackRequired() {
        let acked: [Command] = [.message, .file, .enter, .exit, .read, .updateMessage, .updateFileMessage, .login]
        let unacked: [Command] = [.typingStart, .typingEnd, .messageAck, .ping]
        let ackedOK = acked.allSatisfy { $0.requiresAck }
        let unackedOK = unacked.allSatisfy { !$0.requiresAck }
        #expect(ackedOK)
        #expect(unackedOK)
    }
}
