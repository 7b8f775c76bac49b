import Foundation
import TernKit
import TernProtocol
import Testing

@testable import TernTUI

/// Pictures at the terminal's resolution (issue 37): the `images` setting, what a terminal's environment and
/// answers say it speaks, the sequences of the three protocols, and where the message pane puts a picture.
@Suite("Images: kitty placeholders, sixels, iTerm2, and where the pane puts them")
struct ImagesTUITests: TUIFixture {
    let reducer = Reducer(keys: .standard, timeZone: TimeZone(identifier: "UTC")!)
    let screen = Screen(theme: .builtin, timeZone: TimeZone(identifier: "UTC")!)

    @Test func theSettingTakesTheModesAndKeepsTheOldSwitch() throws {
        var s = Settings()
        #expect(s.images == .auto && s.imagePreviews)
        try s.set("images", "sixel")
        #expect(s.images == .sixel && s.value("images") == "sixel")
        #expect(throws: Settings.SettingsError.self) { try s.set("images", "png") }
        try s.set("image_previews", "off")
        #expect(s.images == .off && s.value("image_previews") == "off")
        try s.set("image_previews", "on")
        #expect(s.images == .auto)
        let parsed = try Settings.parse("images = \"kitty\"\n")
        #expect(parsed.images == .kitty)
        #expect(try Settings.parse("image_previews = false\n").images == .off, "a config of before keeps working")
        #expect(try Settings.parse(parsed.toml()).images == .kitty, "/save writes it")
    }

    @Test func theEnvironmentNamesTheProtocol() {
        #expect(ImageProtocol.fromEnvironment(["TERM": "xterm-kitty"]) == .kitty)
        #expect(ImageProtocol.fromEnvironment(["TERM": "screen-256color", "KITTY_WINDOW_ID": "3"]) == .kitty, "kitty outside tmux")
        #expect(ImageProtocol.fromEnvironment(["TERM": "xterm-ghostty"]) == .kitty)
        #expect(ImageProtocol.fromEnvironment(["TERM_PROGRAM": "iTerm.app"]) == .iterm)
        #expect(ImageProtocol.fromEnvironment(["TERM": "tmux-256color", "TERM_PROGRAM": "tmux", "LC_TERMINAL": "iTerm2"]) == .iterm)
        #expect(ImageProtocol.fromEnvironment(["TERM": "foot"]) == .sixel)
        #expect(ImageProtocol.fromEnvironment(["TERM": "xterm-256color"]) == nil, "xterm says nothing: the answers decide")
    }

    @Test func theAnswersAreReadOnlyWhenAsked() {
        var d = InputDecoder()
        #expect(d.feed("\u{1B}_") == [.key(.alt("_"))], "unasked, Esc _ is Alt-_")
        d = InputDecoder()
        d.expectsReplies = true
        #expect(d.feed("\u{1B}_Gi=31;OK\u{1B}\\") == [.reply(.graphics(ok: true))])
        #expect(d.feed("\u{1B}_Gi=31;ENOENT:unsupported\u{1B}\\") == [.reply(.graphics(ok: false))])
        #expect(d.feed("\u{1B}[?62;4;22c") == [.reply(.deviceAttributes([62, 4, 22]))])
        #expect(!d.expectsReplies, "the device attributes end the answers")
        #expect(d.feed("\u{1B}_x") == [.key(.alt("_")), .key(.char("x"))])
    }

    @Test func kittySendsThePictureInChunksWithAVirtualPlacement() {
        let png = [UInt8](repeating: 7, count: 5000)  // 6,668 base64 characters: two chunks
        let seq = TerminalSequences.kittyImage(png: png, id: 12, columns: 20, rows: 5)
        let chunks = seq.components(separatedBy: "\u{1B}\\").filter { !$0.isEmpty }
        #expect(chunks.count == 2)
        #expect(chunks[0].hasPrefix("\u{1B}_Ga=T,q=2,f=100,t=d,i=12,U=1,c=20,r=5,m=1;"))
        #expect(chunks[1].hasPrefix("\u{1B}_Gm=0;"))
        let data = chunks.map { String($0.split(separator: ";", maxSplits: 1)[1]) }.joined()
        #expect(Data(base64Encoded: data) == Data(png))
        let wrapped = TerminalSequences.passthroughEach(seq, inTmux: true)
        #expect(wrapped.components(separatedBy: "\u{1B}Ptmux;").count == 3, "each chunk wrapped on its own for tmux")
        #expect(TerminalSequences.passthroughEach(seq, inTmux: false) == seq)
    }

    @Test func placeholdersCarryRowColumnAndId() {
        let g = ImageGraphic(kind: .kitty, id: 9, key: 1, columns: 3, rows: 2, sequence: "")
        let cell = g.placeholder(row: 1, column: 2)
        #expect(cell.text.unicodeScalars.map(\.value) == [0x10EEEE, 0x030D, 0x030E])
        #expect(cell.style.fg == .index(9))
        #expect(CellWidth.of(Character(cell.text)) == 1, "one cell wide")
    }

    @Test func sixelsEncodeBandsColoursAndRuns() {
        // 8 × 7 pixels: red on top, a transparent last row but one blue pixel.
        var rgba: [UInt8] = []
        for y in 0..<7 {
            for x in 0..<8 { rgba += y < 6 ? [255, 0, 0, 255] : x == 0 ? [0, 0, 255, 255] : [0, 0, 0, 0] }
        }
        let s = Sixel.encode(rgba: rgba, width: 8, height: 7)
        // Red is register 180 (5,0,0), blue 5 (0,0,5); a full column of six is "~", one pixel at the top "@".
        #expect(s == "\u{1B}P0;1;0q\"1;1;8;7#5;2;0;0;100#180;2;100;0;0#180!8~-#5@-\u{1B}\\")
        #expect(Sixel.encode(rgba: [], width: 0, height: 0) == "")
    }

    /// Bob's image message (id 2) under a text message, with a preview of 4 × 3 cells.
    func imageState(_ graphic: ImageGraphic?, above: Int = 1) -> AppState {
        var s = teamChannel((0..<above).map { (bob, "line \($0)") })
        var file = Message(messageId: 100, channelUrl: "c1", kind: .file, text: "", sender: bob, createdAt: t + 50_000)
        file.files = [FilePayload(url: "http://x.test/p.png", name: "p.png", size: 2000, type: "image/png")]
        s.messages["c1"]?.append(file)
        let symbols = (0..<3).map { _ in (0..<4).map { _ in Cell("▀", Style(fg: .index(196), bg: .index(21))) } }
        s.previews[PreviewKey(channel: "c1", id: 100)] = ImagePreview(width: 4, rows: symbols, graphic: graphic)
        return s
    }

    @Test func kittyPicturesAreCellsThatScrollWithTheText() {
        let g = ImageGraphic(kind: .kitty, id: 5, key: 100, columns: 4, rows: 3, sequence: "<kitty>")
        let grid = screen.render(imageState(g), width: 60, height: 12, now: t)
        let at = (0..<grid.height).first { grid.line($0).contains("p.png") }!
        #expect(grid.graphics.count == 1 && grid.graphics[0].graphic == g)
        let x = grid.graphics[0].x
        #expect(grid.graphics[0].y == at + 1)
        for r in 0..<3 {
            for c in 0..<4 { #expect(grid[x + c, at + 1 + r] == g.placeholder(row: r, column: c)) }
        }
    }

    /// Golden screens: kitty's placeholders under the message, then scrolled so the picture is cut at the
    /// pane's bottom (its remaining rows are still placeholders: kitty clips it); a sixel picture's blank
    /// cells, then scrolled (its symbols, no placement: nothing left to paint over).
    @Test func goldenScreens() throws {
        let kitty = ImageGraphic(kind: .kitty, id: 5, key: 100, columns: 4, rows: 3, sequence: "<kitty>")
        var s = imageState(kitty, above: 12)
        try assertGolden(screen.render(s, width: 60, height: 12, now: t), "image-kitty-60x12")
        s.scroll = 2
        let cut = screen.render(s, width: 60, height: 12, now: t)
        try assertGolden(cut, "image-kitty-scrolled-60x12")
        #expect(cut.graphics.count == 1, "still sent: one row of it is on screen")
        let sixel = ImageGraphic(kind: .sixel, id: 5, key: 100, columns: 4, rows: 3, sequence: "<sixel>")
        var x = imageState(sixel, above: 12)
        try assertGolden(screen.render(x, width: 60, height: 12, now: t), "image-sixel-60x12")
        x.scroll = 2
        let gone = screen.render(x, width: 60, height: 12, now: t)
        try assertGolden(gone, "image-sixel-scrolled-60x12")
        #expect(gone.graphics.isEmpty)
    }

    @Test func sixelPicturesAreDrawnOnlyWhenWhollyOnScreen() {
        let g = ImageGraphic(kind: .sixel, id: 5, key: 100, columns: 4, rows: 3, sequence: "<sixel>")
        var grid = screen.render(imageState(g), width: 60, height: 12, now: t)
        #expect(grid.graphics.count == 1)
        let p = grid.graphics[0]
        for r in 0..<3 { #expect((0..<4).allSatisfy { grid[p.x + $0, p.y + r].text == " " }, "blank cells to draw into") }
        // Scrolled so that its first row is cut off: no picture, the symbols stand in for the rest.
        var s = imageState(g, above: 12)
        s.scroll = 0
        let tall = screen.render(s, width: 60, height: 12, now: t)
        #expect(tall.graphics.count == 1, "all on screen at the bottom")
        s.scroll = 2
        grid = screen.render(s, width: 60, height: 12, now: t)
        #expect(grid.graphics.isEmpty, "two of its rows are below the pane: no picture")
        #expect(grid.text.contains("▀▀▀▀"), "its symbols instead")
        var off = imageState(g)
        off.settings.images = .off
        #expect(!screen.render(off, width: 60, height: 12, now: t).text.contains("▀"), "images off: no preview")
    }
}
