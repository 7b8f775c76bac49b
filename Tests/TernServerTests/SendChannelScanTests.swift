import Foundation
import TernProtocol
import Testing

@testable import TernServer

/// The channel a send frame is for, read from its bytes before the frame is decoded (the channel's
/// lane on its connection).
@Suite("WebSocketConnection.sendChannel: a send's channel from its bytes")
struct SendChannelScanTests {
    @Test func readsTheChannelOfSendsOnly() {
        func channel(_ command: Command, _ json: String) -> String? {
            WebSocketConnection.sendChannel(Frame(command: command, payload: Data(json.utf8)))
        }
        #expect(channel(.message, #"{"channel_url":"c1","message":"hi"}"#) == "c1")
        #expect(channel(.message, #"{"message":"hi","channel_url" : "sendbird_group_channel_9"}"#) == "sendbird_group_channel_9")
        #expect(channel(.file, #"{"req_id":"1","channel_url":"f"}"#) == "f")
        #expect(channel(.read, #"{"channel_url":"c1"}"#) == nil, "not a send")
        #expect(channel(.message, #"{"channel_url":"a\"b"}"#) == nil, "an escape is left to the decoder")
        #expect(channel(.message, #"{"channel_url":"unterminated"#) == nil)
        #expect(channel(.message, #"{"channel_url":12}"#) == nil)
        #expect(channel(.message, #"{"message":"no channel"}"#) == nil)
    }
}
