import TernKit
import TernProtocol
import Testing

/// Collections as values: engine events in, changes with their sources out.
@Suite struct CollectionStateTests {
    func msg(_ id: Int64, at ts: Millis, req: String? = nil, status: SendingStatus = .succeeded, url: String = "c1") -> Message {
        Message(messageId: id, requestId: req, channelUrl: url, text: "m\(id)", sender: User(userId: "ann"), createdAt: ts, status: status)
    }

    @Test func cacheThenServerReplacesAndReportsTheDifference() {
        var s = MessageCollectionState(channelUrl: "c1")
        #expect(!s.hasNext)
        let cached = s.replace(with: [msg(1, at: 10), msg(2, at: 20)], hasPrevious: true, hasNext: false, source: .cache)
        #expect(cached == [.added([msg(1, at: 10), msg(2, at: 20)], .cache)])
        // The server: 2 was edited, 1 deleted meanwhile, 3 is new.
        var edited = msg(2, at: 20)
        edited.text = "edited"
        let api = s.replace(with: [edited, msg(3, at: 30)], hasPrevious: false, hasNext: false, source: .api)
        #expect(api == [.added([msg(3, at: 30)], .api), .updated([edited], .api), .deleted([msg(1, at: 10)], .api)])
        #expect(s.succeeded.map(\.messageId) == [2, 3] && !s.hasPrevious)
    }

    @Test func ownMessagesGoPendingFailedResentSent() {
        var s = MessageCollectionState(channelUrl: "c1")
        _ = s.replace(with: [msg(1, at: 10)], hasPrevious: false, hasNext: false, source: .api)
        let pending = msg(0, at: 20, req: "r1", status: .pending)
        #expect(s.apply(.messagePending(pending)) == [.messages(.added([pending], .localMessagePendingCreated))])
        var failed = pending
        failed.status = .failed
        failed.error = SendbirdError(.webSocketConnectionClosed, "gone")
        #expect(s.apply(.messageFailed(failed)) == [.messages(.updated([failed], .localMessageFailed))])
        #expect(s.pending.isEmpty && s.failed == [failed])
        // Sent again under the same request id: the same line, pending again.
        #expect(s.apply(.messagePending(pending)) == [.messages(.updated([pending], .localMessageResendStarted))])
        let sent = msg(5, at: 21, req: "r1")
        #expect(s.apply(.messageSent(sent)) == [.messages(.updated([sent], .eventMessageSent))])
        #expect(s.pending.isEmpty && s.failed.isEmpty && s.succeeded.map(\.messageId) == [1, 5])
        // Another channel's events change nothing.
        #expect(s.apply(.messageReceived(msg(9, at: 30, url: "c2"))).isEmpty)
    }

    @Test func liveFillChangelogAndHugeGap() {
        var s = MessageCollectionState(channelUrl: "c1")
        _ = s.replace(with: [msg(1, at: 10), msg(2, at: 20)], hasPrevious: false, hasNext: false, source: .api)
        #expect(s.apply(.messageReceived(msg(4, at: 40))) == [.messages(.added([msg(4, at: 40)], .eventMessageReceived))])
        // The gap fill brings 3 (and 4 again, unchanged): 3 joins in time order.
        #expect(s.apply(.messagesFilled(channelUrl: "c1", [msg(3, at: 30), msg(4, at: 40)])) == [.messages(.added([msg(3, at: 30)], .messageFill))])
        #expect(s.succeeded.map(\.messageId) == [1, 2, 3, 4])
        var e = msg(2, at: 20)
        e.text = "changed"
        #expect(
            s.apply(.messageChangelog(channelUrl: "c1", updated: [e], deleted: [1])) == [
                .messages(.updated([e], .messageChangelog)), .messages(.deleted([msg(1, at: 10)], .messageChangelog)),
            ])
        #expect(s.apply(.reactionUpdated(channelUrl: "c1", messageId: 3, key: "ok", userId: "bob", added: true)).count == 1)
        #expect(s.succeeded[1].reactions == [Reaction(key: "ok", userIds: ["bob"])])
        #expect(s.apply(.hugeGap(channelUrl: "c1")) == [.hugeGap])
        #expect(s.apply(.channelRemoved(url: "c1", reason: .left)) == [.channelDeleted(url: "c1", .eventChannelDeleted)])
    }

    /// With a window, a collection at the present keeps the newest as new ones arrive; the oldest leave
    /// (a quarter more first) and `hasPrevious` brings them back. Without one, it keeps all (Sendbird's).
    @Test func aWindowKeepsTheNewest() {
        var limited = MessageCollectionState(channelUrl: "c1")
        limited.window = 100
        var unlimited = MessageCollectionState(channelUrl: "c1")
        for s in [0, 1] {
            var state = s == 0 ? limited : unlimited
            _ = state.replace(with: (1...50).map { msg($0, at: $0 * 10) }, hasPrevious: false, hasNext: false, source: .api)
            for id in Int64(51)...400 {
                let changes = state.apply(.messageReceived(msg(id, at: id * 10)))
                #expect(changes == [.messages(.added([msg(id, at: id * 10)], .eventMessageReceived))])
                #expect(state.succeeded.count <= (s == 0 ? 125 : 400))
            }
            if s == 0 {
                limited = state
            } else {
                unlimited = state
            }
        }
        #expect(limited.succeeded.last?.messageId == 400 && limited.hasPrevious)
        #expect(limited.succeeded.map(\.messageId) == Array(Int64(400 - Int64(limited.succeeded.count) + 1)...400))
        #expect(unlimited.succeeded.count == 400 && !unlimited.hasPrevious)
        // Paging back puts older ones in front again, in order.
        _ = limited.prepend((290...300).map { msg($0, at: $0 * 10) }, hasPrevious: true, source: .api)
        #expect(limited.succeeded.map(\.messageId) == limited.succeeded.map(\.messageId).sorted())
    }

    /// Messages that arrive out of order, and again, still join in time order once each.
    @Test func outOfOrderAndRepeatedMessagesJoinInOrderOnce() {
        var s = MessageCollectionState(channelUrl: "c1")
        _ = s.replace(with: [], hasPrevious: false, hasNext: false, source: .api)
        var gen = SystemRandomNumberGenerator()
        var sent: [Int64] = []
        for _ in 0..<500 {
            let id = Int64.random(in: 1...200, using: &gen)
            sent.append(id)
            _ = s.apply(.messageReceived(msg(id, at: id * 10)))
        }
        #expect(s.succeeded.map(\.messageId) == Array(Set(sent)).sorted())
    }

    @Test func aWindowInThePastWaitsForLoadNext() {
        var s = MessageCollectionState(channelUrl: "c1", startingPoint: 15)
        #expect(s.hasNext)
        _ = s.replace(with: [msg(1, at: 10), msg(2, at: 20)], hasPrevious: false, hasNext: true, source: .api)
        #expect(s.apply(.messageReceived(msg(9, at: 90))).isEmpty)
        #expect(s.append([msg(3, at: 30)], hasNext: false, source: .api) == [.added([msg(3, at: 30)], .api)])
        #expect(!s.hasNext)
        #expect(s.apply(.messageReceived(msg(9, at: 90))) == [.messages(.added([msg(9, at: 90)], .eventMessageReceived))])
        #expect(s.prepend([msg(0, at: 5)], hasPrevious: false, source: .cache).isEmpty)  // id 0 is not stored
    }

    @Test func liveMessagesDuringTheFirstLoadSurviveTheReplace() {
        var s = MessageCollectionState(channelUrl: "c1")
        _ = s.replace(with: [msg(1, at: 10)], hasPrevious: false, hasNext: false, source: .cache)
        _ = s.apply(.messageReceived(msg(7, at: 70)))
        let changes = s.replace(with: [msg(1, at: 10), msg(2, at: 20)], hasPrevious: false, hasNext: false, source: .api)
        #expect(changes == [.added([msg(2, at: 20)], .api)])
        #expect(s.succeeded.map(\.messageId) == [1, 2, 7])
    }

    @Test func channelCollectionOrdersFiltersAndReportsSources() {
        var s = GroupChannelCollectionState(customTypes: ["work"])
        var a = GroupChannel(url: "a")
        a.customType = "work"
        a.lastMessage = msg(1, at: 10, url: "a")
        var b = GroupChannel(url: "b")
        b.customType = "work"
        b.lastMessage = msg(2, at: 20, url: "b")
        let other = GroupChannel(url: "x")
        #expect(s.upsert([a, b, other], source: .cache) == [.added([a, b], .cache)])
        #expect(s.channels.map(\.url) == ["b", "a"])
        a.lastMessage = msg(3, at: 30, url: "a")
        #expect(s.apply(.channelUpdated(a)) == [.updated([a], .eventChannelChanged)])
        #expect(s.channels.map(\.url) == ["a", "b"])
        #expect(s.apply(.channelChangelog(updated: [], deleted: ["b"])) == [.deleted([b], .channelChangelog)])
        var hidden = a
        hidden.hiddenState = "hidden_allow_auto_unhide"
        #expect(s.apply(.channelUpdated(hidden)) == [.deleted([a], .eventChannelChanged)])
        #expect(s.channels.isEmpty)
    }
}
