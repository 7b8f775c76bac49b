import TernKit
import TernProtocol
import Testing

@testable import TernTUI

/// Which actions draw within 25 ms (what the user did, the channel on screen) and which within 250 ms
/// (news elsewhere: badges, counts, the hotlist), so a burst of traffic in other channels costs a few
/// frames a second.
@Suite("Frame urgency")
struct FrameUrgencyTests {
    static func state(selected: String?) -> AppState {
        var s = AppState(me: User(userId: "me"), server: "http://127.0.0.1:1")
        s.selected = selected
        return s
    }

    @Test func newsOfAnotherChannelWaits() {
        let s = Self.state(selected: "here")
        let elsewhere: [ClientEvent] = [
            .unreadCountChanged(channelUrl: "there", unreadMessageCount: 1, unreadMentionCount: 0, total: 1),
            .unreadCountChanged(channelUrl: nil, unreadMessageCount: 0, unreadMentionCount: 0, total: 3),
            .deliveryReceiptUpdated(channelUrl: "there", updated: ["bot": 5]),
            .readReceiptUpdated(channelUrl: "there", userId: "bot", ts: 5),
            .typingStarted(channelUrl: "there", user: User(userId: "bot")),
            .messageDeleted(channelUrl: "there", messageId: 1),
            .reactionUpdated(channelUrl: "there", messageId: 1, key: "+1", userId: "bot", added: true),
            .hugeGap(channelUrl: "there"),
        ]
        for e in elsewhere {
            #expect(!ChatApp.isUrgent(.event(e), s), "\(e)")
            #expect(!ChatApp.isUrgent(.account(name: "work", e), s), "\(e)")
        }
    }

    @Test func theChannelOnScreenAndTheUserDrawAtOnce() {
        let s = Self.state(selected: "here")
        let here: [ClientEvent] = [
            .unreadCountChanged(channelUrl: "here", unreadMessageCount: 0, unreadMentionCount: 0, total: 0),
            .deliveryReceiptUpdated(channelUrl: "here", updated: ["bot": 5]),
            .readReceiptUpdated(channelUrl: "here", userId: "bot", ts: 5),
            .typingEnded(channelUrl: "here", user: User(userId: "bot"), expired: false),
            .messageDeleted(channelUrl: "here", messageId: 1),
            .connectionStateChanged(.open),
        ]
        for e in here { #expect(ChatApp.isUrgent(.event(e), s), "\(e)") }
        #expect(ChatApp.isUrgent(.key(.char("a")), s))
        #expect(ChatApp.isUrgent(.resized(width: 80, height: 24), s))
    }

    /// With no channel on screen, a change of the total is still only the status bar's number.
    @Test func theTotalAloneWaitsWithNoChannelOpen() {
        let s = Self.state(selected: nil)
        #expect(!ChatApp.isUrgent(.event(.unreadCountChanged(channelUrl: nil, unreadMessageCount: 0, unreadMentionCount: 0, total: 2)), s))
    }
}
