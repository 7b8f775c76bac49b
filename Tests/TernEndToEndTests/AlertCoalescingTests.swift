import Testing

@testable import TernTerminal

/// Alerts wait for the next frame (issue 36: an alert no longer wakes the curses thread by itself), and
/// several before one frame are one: the bell rings once, the notification is the newest and says how
/// many more came with it.
@Suite("Alerts raised with the next frame")
struct AlertCoalescingTests {
    @Test func oneAlertIsWrittenAsItCame() {
        let a = CursesTerminal.WaitingAlert(title: "Bob in #ops", body: "look; now", styles: ["bell", "osc777", "osc9"])
        #expect(a.sequence { $0 } == "\u{7}\u{1B}]777;notify;Bob in #ops;look now\u{7}\u{1B}]9;Bob in #ops: look now\u{7}")
    }

    @Test func severalBeforeAFrameRingOnceAndCountTheRest() {
        var a = CursesTerminal.WaitingAlert(title: "Bob", body: "first", styles: ["bell", "osc9"])
        a.more = 2
        (a.title, a.body) = ("Carol in #team", "third")
        let out = a.sequence { $0 }
        #expect(out.filter { $0 == "\u{7}" }.count == 2, "one bell, and the one BEL that ends the OSC 9")
        #expect(out == "\u{7}\u{1B}]9;Carol in #team (+2 more): third\u{7}")
        // Through tmux: wrapped for its passthrough.
        let wrapped = a.sequence { "[tmux:\($0)]" }
        #expect(wrapped == "\u{7}[tmux:\u{1B}]9;Carol in #team (+2 more): third\u{7}]")
    }
}
