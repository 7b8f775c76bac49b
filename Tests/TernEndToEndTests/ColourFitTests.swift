import TernTerminal
import Testing

/// The terminal adapter's colour fitting: a 256-colour theme on an 8- or 16-colour terminal.
@Suite("Colours on smaller palettes")
struct ColourFitTests {
    @Test func paletteColoursFallToTheNearestAnsiColour() {
        #expect(CursesTerminal.fit(196, colors: 256) == 196)
        #expect(CursesTerminal.fit(196, colors: 16) == 9, "bright red")
        #expect(CursesTerminal.fit(196, colors: 8) == 1, "red")
        #expect(CursesTerminal.fit(255, colors: 16) == 7 && CursesTerminal.fit(234, colors: 16) == 0, "greys: the nearest grey")
        #expect(CursesTerminal.fit(12, colors: 8) == 4, "bright blue on 8 colours: blue")
    }
}
