import TernProtocol
import Testing

@testable import TernKit

/// The outbox as a value: what waits, in which order, what a run sends next and what an answer does.
@Suite("Outbox (value type: order, restore, resend, frozen channels)")
struct OutboxTests {
    typealias Box = Outbox<String>

    func box() -> Box { Box(autoResendCodes: ChatClient.autoResendCodes) }

    func message(_ req: String, in url: String = "c1", at ts: Millis, status: SendingStatus = .pending, error: SendbirdError? = nil) -> Message {
        var m = Message(messageId: 0, requestId: req, channelUrl: url, text: req, sender: User(userId: "alice"), createdAt: ts, status: status)
        m.error = error
        return m
    }

    func stored(_ m: Message) -> Result<Message, SendbirdError> {
        var s = m
        s.messageId = 7
        s.status = .succeeded
        return .success(s)
    }

    let lost = SendbirdError(.webSocketConnectionClosed, "closed")
    let frozen = SendbirdError(.channelFrozen, "frozen")

    @Test func sendersWaitInOrderAndTogetherForOneMessage() {
        var b = box()
        let one = message("rq-1", at: 10)
        b.wait(one, UserMessageParams("rq-1"), "first send")
        b.wait(message("rq-2", at: 20), UserMessageParams("rq-2"), "second send")
        b.wait(one, UserMessageParams("rq-1"), "the same message again")
        #expect(b.messages.map(\.requestId) == ["rq-1", "rq-2"])
        #expect(b.items[0].waiters == ["first send", "the same message again"])
        // A new message of that channel waits behind them; one of another channel does not, unless a run is on.
        #expect(b.holdsBack(message("rq-3", at: 30)))
        #expect(!b.holdsBack(message("rq-4", in: "c2", at: 30)))
        b.isRunning = true
        #expect(b.holdsBack(message("rq-4", in: "c2", at: 30)))
    }

    @Test func restoreTakesPendingAndAutoResendableOnceInTimeOrder() {
        var b = box()
        b.wait(message("rq-live", at: 50), UserMessageParams("rq-live"), "w")
        let cached = [
            message("rq-old", at: 10),
            message("rq-lost", at: 30, status: .failed, error: lost),
            message("rq-refused", at: 20, status: .failed, error: SendbirdError(.invalidParameter, "no")),
            message("rq-live", at: 50),
        ]
        b.restore(cached)
        #expect(b.restored)
        #expect(b.messages.map(\.requestId) == ["rq-old", "rq-lost", "rq-live"])
        b.restore([message("rq-later", at: 5)])
        #expect(b.messages.count == 3)
    }

    @Test func anAnswerSettlesTheMessageAndSaysWhereTheRunGoesOn() {
        var b = box()
        let first = message("rq-1", at: 10)
        b.wait(first, UserMessageParams("rq-1"), "a")
        b.wait(message("rq-2", at: 20), UserMessageParams("rq-2"), "b")
        b.wait(message("rq-3", at: 30), UserMessageParams("rq-3"), "c")
        // Stored: it leaves, its waiter hears, the run goes on with what is now first.
        let done = b.settle("rq-1", stored(first), at: 0, keepFrozen: true)
        #expect(done.waiters == ["a"] && done.step == .next(0))
        #expect(b.messages.map(\.requestId) == ["rq-2", "rq-3"])
        // Refused for good: it leaves too.
        let refused = b.settle("rq-2", .failure(SendbirdError(.invalidParameter, "no")), at: 0, keepFrozen: true)
        #expect(refused.waiters == ["b"] && refused.step == .next(0))
        // The connection went: it stays, failed, and the run stops.
        let gone = b.settle("rq-3", .failure(lost), at: 0, keepFrozen: true)
        #expect(gone.waiters == ["c"] && gone.step == .stop)
        #expect(b.items[0].message.status == .failed && b.items[0].message.error == lost && b.items[0].waiters.isEmpty)
        // A message cancelled while on its way: nothing to answer, the run goes on where it was.
        let missing = b.settle("rq-gone", .failure(lost), at: 4, keepFrozen: true)
        #expect(missing.waiters.isEmpty && missing.step == .next(4))
    }

    @Test func failedMessagesOfFrozenChannelsWait() {
        var b = box()
        let joined = b.requeue(message("rq-1", in: "ice", at: 10, status: .failed, error: frozen), UserMessageParams("rq-1"))
        let again = b.requeue(message("rq-1", in: "ice", at: 10, status: .failed, error: frozen), UserMessageParams("rq-1"))
        #expect(joined && !again)
        b.wait(message("rq-2", in: "ice", at: 20), UserMessageParams("rq-2"), "pending")
        _ = b.requeue(message("rq-3", in: "c1", at: 30, status: .failed, error: lost), UserMessageParams("rq-3"))
        let isFrozen: (String) -> Bool = { $0 == "ice" }
        // The failed one in the frozen channel is skipped; a pending one there still goes (the server decides).
        #expect(b.next(from: 0, isFrozen: isFrozen) == 1)
        #expect(b.next(from: 2, isFrozen: isFrozen) == 2)
        #expect(b.next(from: 3, isFrozen: isFrozen) == nil)
        #expect(b.next(from: 0, isFrozen: { _ in false }) == 0)
        // Refused because frozen: with a cache it stays for later and the run goes past it; without, frozen is
        // still an auto-resend code: it stays and the run stops, as when the connection goes.
        let kept = b.settle("rq-2", .failure(frozen), at: 1, keepFrozen: true)
        #expect(kept.step == .next(2) && b.messages.count == 3 && b.items[1].message.status == .failed)
        let stopped = b.settle("rq-2", .failure(frozen), at: 1, keepFrozen: false)
        #expect(stopped.step == .stop && b.messages.count == 3)
        // Refused for another reason: it leaves and the run goes on from its place.
        let refused = b.settle("rq-2", .failure(SendbirdError(.invalidParameter, "no")), at: 1, keepFrozen: true)
        #expect(refused.step == .next(1) && b.messages.map(\.requestId) == ["rq-1", "rq-3"])
    }

    @Test func resendCancelAndDrain() {
        var b = box()
        _ = b.requeue(message("rq-1", at: 10, status: .failed, error: lost), UserMessageParams("rq-1"))
        b.wait(message("rq-2", at: 20), UserMessageParams("rq-2"), "w")
        // A resend by hand takes a message nobody waits for out of the outbox; one awaited stays.
        b.dropUnawaited("rq-1")
        b.dropUnawaited("rq-2")
        #expect(b.messages.map(\.requestId) == ["rq-2"])
        let none = b.remove("rq-none")
        let removed = b.remove("rq-2")
        #expect(none == nil && removed?.waiters == ["w"])
        b.wait(message("rq-3", at: 30), UserMessageParams("rq-3"), "x")
        let drained = b.drain()
        #expect(drained.map(\.message.requestId) == ["rq-3"])
        #expect(b.items.isEmpty)
    }
}
