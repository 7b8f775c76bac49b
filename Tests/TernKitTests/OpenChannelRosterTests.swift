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
        let v1 = r.keep(OpenChannel(url: "stage", name: "Stage"))
        #expect(v1 == nil)
        #expect(r.isOpen("stage") && r["stage"] == nil && r.channels.isEmpty)
        r.enter(OpenChannel(url: "stage", name: "Stage", participantCount: 1))
        #expect(r.channels.map(\.url) == ["stage"])
        // The same description again: nothing; a new one: the entered channel changes and is announced.
        let v2 = r.keep(OpenChannel(url: "stage", name: "Stage", participantCount: 1))
        #expect(v2 == nil)
        let v3 = r.keep(OpenChannel(url: "stage", name: "Big stage", participantCount: 1))
        #expect(v3?.name == "Big stage")
        #expect(r["stage"]?.name == "Big stage")
        let v4 = r.exit("stage")
        let v5 = r.exit("stage")
        #expect(v4 && !v5)
        #expect(r.isOpen("stage"))
    }

    @Test func eventsUpdateTheEnteredChannelOrPutTheUserOut() {
        var r = OpenChannelRoster()
        r.enter(OpenChannel(url: "stage", participantCount: 1))
        r.enter(OpenChannel(url: "hall"))
        let v6 = r.apply(.entered(ben, count: 2), in: "stage", me: "ann")
        #expect(v6 == .updated(OpenChannel(url: "stage", participantCount: 2)))
        let v7 = r.apply(.frozen, in: "stage", me: "ann")
        #expect(v7 == .updated(OpenChannel(url: "stage", participantCount: 2, isFrozen: true)))
        let v8 = r.apply(.operatorsChanged([ann]), in: "stage", me: "ann")
        #expect(v8 == .updated(OpenChannel(url: "stage", operators: [ann], participantCount: 2, isFrozen: true)))
        let v9 = r.apply(.changed, in: "stage", me: "ann")
        #expect(v9 == .reread)
        let v10 = r.apply(.muted(ben, endAt: -1), in: "stage", me: "ann")
        #expect(v10 == .nothing)
        // Someone else banned: nothing for the roster; the user banned: out.
        let v11 = r.apply(.banned(ben, endAt: -1), in: "stage", me: "ann")
        #expect(v11 == .nothing)
        let v12 = r.apply(.banned(ann, endAt: -1), in: "stage", me: "ann")
        #expect(v12 == .exited(.banned))
        #expect(r["stage"] == nil)
        let v13 = r.apply(.deleted, in: "hall", me: "ann")
        #expect(v13 == .exited(.deleted))
        // A channel not entered: nothing.
        let v14 = r.apply(.entered(ben, count: 5), in: "stage", me: "ann")
        #expect(v14 == .nothing)
    }

    @Test func countsAndReentering() {
        var r = OpenChannelRoster()
        r.enter(OpenChannel(url: "stage", participantCount: 3))
        let v15 = r.participantCount(3, in: "stage")
        #expect(v15 == nil)
        let v16 = r.participantCount(4, in: "stage")
        #expect(v16?.participantCount == 4)
        let v17 = r.participantCount(4, in: "elsewhere")
        #expect(v17 == nil)
        let v18 = r.reentered("stage", participantCount: 7)
        #expect(v18?.participantCount == 7)
        let v19 = r.reentered("elsewhere", participantCount: 1)
        #expect(v19 == nil)
    }
}
