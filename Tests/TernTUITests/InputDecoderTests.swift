import Foundation
import TernKit
import TernProtocol
import Testing

@testable import TernTUI

@Suite("Terminal input decoding")
struct InputDecoderTests {
    func decode(_ text: String) -> [TerminalInput] {
        var d = InputDecoder()
        return d.feed(text) + d.flush()
    }

    @Test func keysAltKeysAndSequences() {
        #expect(
            decode("a\u{1}\r\u{7F}\u{8}\t") == [.key(.char("a")), .key(.ctrl("a")), .key(.enter), .key(.backspace), .key(.ctrl("h")), .key(.tab)])
        #expect(decode("\u{1B}b\u{1B}\r\u{1B}\u{7F}") == [.key(.alt("b")), .key(.altEnter), .key(.altBackspace)])
        #expect(
            decode("\u{1B}[A\u{1B}[1;3B\u{1B}[1;5D\u{1B}[1;5C\u{1B}[Z") == [
                .key(.up), .key(.altDown), .key(.ctrlLeft), .key(.ctrlRight), .key(.shiftTab),
            ])
        #expect(
            decode("\u{1B}[5~\u{1B}[6~\u{1B}[3~\u{1B}[1~\u{1B}[4~\u{1B}OP\u{1B}[15~") == [
                .key(.pageUp), .key(.pageDown), .key(.delete), .key(.home), .key(.end), .key(.function(1)), .key(.function(5)),
            ])
        #expect(decode("\u{1F}\u{0}") == [.key(.ctrl("_")), .key(.ctrl(" "))])
        #expect(decode("你好") == [.key(.char("你")), .key(.char("好"))])
        #expect(decode("\u{1B}[13;2u") == [.key(.altEnter)], "Shift-Enter (CSI u) is a new line too")
    }

    @Test func aLoneEscWaitsForTheDelay() {
        var d = InputDecoder()
        #expect(d.feed("\u{1B}").isEmpty && d.isPending)
        #expect(d.flush() == [.key(.escape)])
        #expect(!d.isPending)
        #expect(d.feed("\u{1B}\u{1B}") == [.key(.escape)])
        #expect(d.flush() == [.key(.escape)])
    }

    @Test func bracketedPasteFocusAndMouse() {
        #expect(decode("\u{1B}[200~line one\r\nline two\u{1B}[B\u{1B}[201~x") == [.paste("line one\nline two\u{1B}[B"), .key(.char("x"))])
        #expect(decode("\u{1B}[I\u{1B}[O") == [.focus(true), .focus(false)])
        #expect(
            decode("\u{1B}[<0;5;3M\u{1B}[<0;5;3m\u{1B}[<64;10;2M\u{1B}[<65;10;2M") == [
                .mouse(MouseEvent(.press(button: 1), x: 4, y: 2)), .mouse(MouseEvent(.release, x: 4, y: 2)),
                .mouse(MouseEvent(.wheelUp, x: 9, y: 1)), .mouse(MouseEvent(.wheelDown, x: 9, y: 1)),
            ])
        // A paste split across reads is still one.
        var d = InputDecoder()
        #expect(d.feed("\u{1B}[200~ab").isEmpty)
        #expect(d.feed("c\u{1B}[20").isEmpty)
        #expect(d.feed("1~") == [.paste("abc")])
    }
}
