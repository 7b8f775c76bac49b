import Foundation
import TernTUI
import TernTerminal
import TernTestSupport
import Testing

/// Pictures at the terminal's resolution in a real terminal (issue 37): Bob's `tern` in tmux, told to use
/// kitty's protocol, then sixels, then symbols (`/set images …`), gets Alice's upload. What `tern` writes
/// (kept by script(1)) carries the picture in tmux's passthrough, and the pane shows kitty's placeholders,
/// then blank cells the sixels are drawn into, then coloured symbols.
extension TerminalEndToEndTests {
    @Suite("Pictures at the terminal's resolution (tmux)", .serialized)
    struct ImagesTerminalTests {
        typealias T = TerminalEndToEndTests

        /// What Bob's tern has written so far, once it contains `wanted` (within 30 s).
        static func written(_ file: String, containing wanted: String) async -> String {
            var raw = ""
            for _ in 0..<150 {
                raw = String(decoding: FileManager.default.contents(atPath: file) ?? Data(), as: UTF8.self)
                if raw.contains(wanted) { break }
                try? await Task.sleep(for: .milliseconds(200))
            }
            return raw
        }

        /// Whether `text` has kitty's placeholder (a scalar of its own: a grapheme with the marks after it).
        static func placeholders(_ text: String) -> Bool { text.unicodeScalars.contains { $0.value == 0x10EEEE } }

        static func tmuxWrapped(_ seq: String) -> String { "\u{1B}Ptmux;" + seq.replacingOccurrences(of: "\u{1B}", with: "\u{1B}\u{1B}") }

        /// A PNG's width and height (its IHDR chunk).
        static func size(png: Data) -> (Int, Int)? {
            let b = [UInt8](png)
            guard b.count > 24, b[1] == 0x50, b[2] == 0x4E, b[3] == 0x47 else { return nil }
            func be(_ i: Int) -> Int { b[i..<(i + 4)].reduce(0) { $0 << 8 | Int($1) } }
            return (be(16), be(20))
        }

        @Test func thePicturesDecodeAtTheCellsPixelSize() async throws {
            let png = Array(TestImages.png(width: 120, height: 60))
            // 12 × 3 cells of 8 × 16 pixels: 96 × 48.
            let kitty = try #require(CursesTerminal.picture(png, kind: .kitty, columns: 12, rows: 3, id: 7, key: 1, cell: (8, 16)))
            let base64 = kitty.sequence.components(separatedBy: "\u{1B}\\").filter { !$0.isEmpty }
                .map { String($0.split(separator: ";", maxSplits: 1)[1]) }.joined()
            let sent = try #require(Data(base64Encoded: base64))
            #expect(Self.size(png: sent)! == (96, 48), "kitty gets a PNG of the cells' size")
            let iterm = try #require(CursesTerminal.picture(png, kind: .iterm, columns: 12, rows: 3, id: 7, key: 1, cell: (8, 16)))
            #expect(iterm.sequence.hasPrefix("\u{1B}]1337;File=inline=1;size=") && iterm.sequence.contains(";width=12;height=3;"))
            // The sixels, decoded by libsixel's own sixel2png: the same size, and the picture's colours.
            let sixel = try #require(CursesTerminal.picture(png, kind: .sixel, columns: 12, rows: 3, id: 7, key: 1, cell: (8, 16)))
            #expect(sixel.sequence.hasPrefix("\u{1B}P0;1;0q\"1;1;96;48"))
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sixel2png") else {
                print("note: sixel2png (libsixel-bin) is not installed: the sixels were not decoded")
                return
            }
            let dir = makeTempDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            try sixel.sequence.write(toFile: dir + "/p.six", atomically: true, encoding: .utf8)
            let decoder = try Child("/usr/bin/sixel2png", ["-i", dir + "/p.six", "-o", dir + "/p.png"], environment: [:])
            let status = await decoder.finish(timeout: 60)
            #expect(status == 0, "sixel2png (libsixel-bin) read it: \(decoder.stderr)")
            let back = try #require(FileManager.default.contents(atPath: dir + "/p.png"))
            #expect(Self.size(png: back)! == (96, 48))
            #expect(CursesTerminal.picture(Array("no picture".utf8), kind: .sixel, columns: 12, rows: 3, id: 7, key: 1) == nil)
        }

        @Test func kittyThenSixelThenSymbols() async throws {
            let files = makeTempDirectory()
            defer { try? FileManager.default.removeItem(atPath: files) }
            try TestImages.png(width: 120, height: 60).write(to: URL(fileURLWithPath: files + "/pic.png"))
            let raw = files + "/raw"
            try await T.withTerminals(["alice", "bob"], configs: ["bob": "images = \"kitty\"\n"], rawOutput: raw) { tmux, server in
                try await server.createGroup("pics", name: "pics", of: ["alice", "bob"])
                try await server.post("a picture", by: "alice", in: "pics")
                try await tmux.waitScreen("alice", "pics open") { $0.contains("alice: a picture") }
                try await tmux.waitScreen("bob", "pics open") { $0.contains("alice: a picture") }
                try await tmux.enter("alice", "/upload \(files)/pic.png", thenSee: "the file message", on: "bob") { $0.contains("pic.png") }

                // kitty: the PNG sent once, in chunks, each wrapped for tmux; the picture's cells are placeholders.
                let kitty = Self.tmuxWrapped("\u{1B}_Ga=T,q=2,f=100,t=d,i=")
                var written = await Self.written(raw + "-bob", containing: kitty)
                #expect(written.contains(kitty), "the kitty transmission in tmux's passthrough")
                #expect(written.contains(Self.tmuxWrapped("\u{1B}_Gi=31,s=1,v=1,a=q")), "the graphics query at start")
                try await tmux.waitScreen("bob", "kitty's placeholders") { Self.placeholders($0) }
                let screen = await tmux.screen("bob")
                let rows = screen.split(separator: "\n").filter { Self.placeholders(String($0)) }
                #expect(rows.count >= 2, "the picture's rows:\n\(screen)")

                // Sixels: made again for the new protocol, drawn into blank cells.
                try await tmux.enter("bob", "/set images sixel", thenSee: "the setting") { !Self.placeholders($0) }
                let sixel = Self.tmuxWrapped("\u{1B}P0;1;0q\"1;1;")
                written = await Self.written(raw + "-bob", containing: sixel)
                #expect(written.contains(sixel), "a sixel picture in tmux's passthrough")

                // Symbols: coloured cells again.
                try await tmux.enter("bob", "/set images symbols", thenSee: "the setting") { $0.contains("images") }
                #expect(await DailyDriverTests.showsColour(tmux, "bob", "48;5;"), "the symbols' colours")
            }
        }
    }
}
