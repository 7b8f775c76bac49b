import Testing

@testable import TernKit

/// The open channels entered and known, as a value: what events and counts do to them.
@Suite("Open channel roster (value type: entered, known, events, counts)")
struct OpenChannelRosterTests {
    let ann = User(userId: "ann")
    let ben = User(userId: "ben")

    @Test func knownChannelsAreOpenAndOnlyEnteredOnesChange() {
        var r = OpenChannelRoster()
        #expect(!r.isOpen("stage"))
        // Seen in a list: open (its messages take the open-channel paths), not entered, nothing to announce.
        let listed = r.keep(OpenChannel(url: "stage", name: "Stage"))
        #expect(listed == nil && r.isOpen("stage") && r["stage"] == nil && r.channels.isEmpty)
        r.enter(OpenChannel(url: "stage", name: "Stage", participantCount: 1))
        #expect(r.channels.map(\.url) == ["stage"])
        // The same description again: nothing; a new one: the entered channel changes and is announced.
        let same = r.keep(OpenChannel(url: "stage", name: "Stage", participantCount: 1))
        let renamed = r.keep(OpenChannel(url: "stage", name: "Big stage", participantCount: 1))
        #expect(same == nil && renamed?.name == "Big stage" && r["stage"]?.name == "Big stage")
        let exited = r.exit("stage")
        let again = r.exit("stage")
        #expect(exited && !again && r.isOpen("stage"))
    }

    @Test func eventsUpdateTheEnteredChannelOrPutTheUserOut() {
        var r = OpenChannelRoster()
        r.enter(OpenChannel(url: "stage", participantCount: 1))
        r.enter(OpenChannel(url: "hall"))
        let steps: [(String, ChannelEventKind, OpenChannelRoster.Outcome)] = [
            ("stage", .entered(ben, count: 2), .updated(OpenChannel(url: "stage", participantCount: 2))),
            ("stage", .frozen, .updated(OpenChannel(url: "stage", participantCount: 2, isFrozen: true))),
            ("stage", .operatorsChanged([ann]), .updated(OpenChannel(url: "stage", operators: [ann], participantCount: 2, isFrozen: true))),
            ("stage", .changed, .reread),
            ("stage", .muted(ben, endAt: -1), .nothing),
            // Someone else banned: nothing for the roster; the user banned: out.
            ("stage", .banned(ben, endAt: -1), .nothing),
            ("stage", .banned(ann, endAt: -1), .exited(.banned)),
            ("hall", .deleted, .exited(.deleted)),
            // A channel not entered: nothing.
            ("stage", .entered(ben, count: 5), .nothing),
        ]
        for (url, kind, expected) in steps {
            let outcome = r.apply(kind, in: url, me: "ann")
            #expect(outcome == expected, "\(kind) in \(url)")
        }
        #expect(r.channels.isEmpty)
    }

    @Test func countsAndReentering() {
        var r = OpenChannelRoster()
        r.enter(OpenChannel(url: "stage", participantCount: 3))
        let unchanged = r.participantCount(3, in: "stage")
        let changed = r.participantCount(4, in: "stage")
        let elsewhere = r.participantCount(4, in: "elsewhere")
        #expect(unchanged == nil && changed?.participantCount == 4 && elsewhere == nil)
        let reentered = r.reentered("stage", participantCount: 7)
        let gone = r.reentered("elsewhere", participantCount: 1)
        #expect(reentered?.participantCount == 7 && gone == nil)
    }
}
