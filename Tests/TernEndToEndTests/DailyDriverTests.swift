import Foundation
import TernTUI
import TernTerminal
import TernTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real `tern` in tmux, tried as a weechat or irssi user would in their first hour: a config file with a
/// custom key and a theme, readline keys, completion, a multi-line paste, `$EDITOR`, Alt-A through activity,
/// the switcher, the vi preset, and reads that wait until the user is there.
/// Nested in the terminal suite, so its tmux sessions run one at a time with the others (never all at once).
extension TerminalEndToEndTests {
    @Suite("tern as a daily driver (tmux)", .serialized)
    struct DailyDriverTests {
        typealias T = TerminalEndToEndTests

        /// The screen with its colours (`capture-pane -e`).
        static func colours(_ tmux: Tmux, _ session: String) async -> String { await tmux.run(["capture-pane", "-e", "-p", "-t", session]) }

        /// Whether the screen shows `code` in its colours within 15 s (a capture can come back empty under load).
        static func showsColour(_ tmux: Tmux, _ session: String, _ code: String) async -> Bool {
            for _ in 0..<75 {
                if await colours(tmux, session).contains(code) { return true }
                try? await Task.sleep(for: .milliseconds(200))
            }
            return false
        }

        /// The input line's text (after the `> ` prompt on the last-but-one row).
        static func inputLine(_ screen: String) -> String {
            let rows = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for row in rows.reversed() {
                if let r = row.range(of: "│> ") { return String(row[r.upperBound...]).trimmingCharacters(in: .whitespaces) }
                if let r = row.range(of: "│[N] > ") { return String(row[r.upperBound...]).trimmingCharacters(in: .whitespaces) }
            }
            return ""
        }

        /// Esc, then a pause longer than the escape delay (else the next key would read as Alt-key).
        static func escape(_ tmux: Tmux, _ session: String) async {
            await tmux.keys(session, "Escape")
            try? await Task.sleep(for: .milliseconds(120))
        }

        @Test func aWeechatUsersFirstHour() async throws {
            let config = """
                theme = "dark"
                highlights = ["deploy"]
                paste_confirm_lines = 3
                [keys]
                "M-n" = "next-activity"
                """
            try await T.withTerminals(["alice", "bob"], configs: ["alice": config], env: "EDITOR='sed -i s/draft/edited/'", size: (100, 24)) {
                tmux, server in
                try await server.createUsers(["carol"])
                try await server.createGroup("team", name: "team", of: ["alice", "bob", "carol"])
                try await server.post("morning", by: "bob", in: "team")
                try await tmux.waitScreen("alice", "team open") { $0.contains("bob: morning") }
                try await tmux.waitScreen("bob", "team open") { $0.contains("bob: morning") }
                // The theme from the config: dark's 256-colour background.
                #expect(await Self.showsColour(tmux, "alice", "48;5;234"), "the config's dark theme is on screen")
                // A highlight word from the config, in a channel not on screen, rings the bell.
                let quiet = await tmux.run(["display", "-p", "-t", "alice", "#{window_bell_flag}"])
                #expect(quiet.hasPrefix("0"))
                try await server.createGroup("ops-room", name: "ops", of: ["alice", "bob", "carol"])
                try await server.post("deploy at 5", by: "bob", in: "ops-room")
                try await tmux.waitScreen("alice", "ops in the list, unread") { T.listRow($0, "ops")?.hasSuffix(" 1") == true }
                #expect(await T.bellRings(tmux, "alice"), "a highlight word rings the bell")

                // Readline keys: Ctrl-W kills words, Ctrl-Y puts the last one back, Alt-B/Ctrl-D edit inside, Ctrl-U clears.
                await tmux.text("alice", "one two three")
                await tmux.keys("alice", "C-w")
                try await tmux.press("alice", "C-w", thenSee: "two words killed") { Self.inputLine($0) == "one" }
                try await tmux.press("alice", "C-y", thenSee: "the kill yanked back") { Self.inputLine($0) == "one two" }
                await tmux.keys("alice", "M-b")
                try await tmux.press("alice", "C-d", thenSee: "a character deleted under the cursor") { Self.inputLine($0) == "one wo" }
                try await tmux.press("alice", "C-_", thenSee: "undone") { Self.inputLine($0) == "one two" }
                await tmux.keys("alice", "C-e")
                try await tmux.press("alice", "C-u", thenSee: "the line cleared") { Self.inputLine($0).isEmpty }

                // Tab completion: a nick, a command, an emoji.
                await tmux.text("alice", "@bo")
                try await tmux.press("alice", "Tab", thenSee: "the nick completed") { Self.inputLine($0) == "@bob" }
                await tmux.keys("alice", "C-u")
                await tmux.text("alice", "/the")
                try await tmux.press("alice", "Tab", thenSee: "the command completed") { Self.inputLine($0) == "/theme" }
                await tmux.keys("alice", "C-u")
                await tmux.text("alice", "nice :thumbsu")
                try await tmux.press("alice", "Tab", thenSee: "the emoji completed") { Self.inputLine($0) == "nice 👍" }
                await tmux.keys("alice", "C-u")

                // A multi-line paste (bracketed) is one message.
                await tmux.run(["set-buffer", "-b", "p2", "first line\nsecond line"])
                await tmux.run(["paste-buffer", "-p", "-b", "p2", "-t", "alice"])
                try await tmux.waitScreen("alice", "two input rows") { $0.contains("> first line") && $0.contains("second line") }
                try await tmux.press("alice", "Enter", thenSee: "the two lines as one message", on: "bob") {
                    $0.contains("alice: first line") && $0.contains("second line")
                }
                #expect(try await server.lastText("team") == "first line\nsecond line")
                // Longer than paste_confirm_lines: Enter asks first.
                await tmux.run(["set-buffer", "-b", "p5", "a\nb\nc\nd\ne"])
                await tmux.run(["paste-buffer", "-p", "-b", "p5", "-t", "alice"])
                try await tmux.press("alice", "Enter", thenSee: "the confirmation") { $0.contains("send 5 lines as one message?") }
                try await tmux.press("alice", "y", thenSee: "the five lines", on: "bob") { $0.contains("alice: a") && $0.contains("e") }
                #expect(try await server.lastText("team") == "a\nb\nc\nd\ne")

                // $EDITOR round trip (Ctrl-X Ctrl-E): the edited draft comes back to the input.
                await tmux.text("alice", "my draft")
                await tmux.keys("alice", "C-x")
                try await tmux.press("alice", "C-e", thenSee: "the edited draft") { Self.inputLine($0) == "my edited" }
                try await tmux.press("alice", "Enter", thenSee: "the edited message", on: "bob") { $0.contains("alice: my edited") }

                // Activity elsewhere: the message in ops, a mention in news. Alt-A goes to the mention first, then the
                // config's own key (M-n = next-activity) to ops. The title counts the unread.
                try await server.createGroup("news", name: "news", of: ["alice", "carol"])
                try await server.post("@alice read this", by: "carol", in: "news", mentioning: ["alice"])
                try await tmux.waitScreen("alice", "the hotlist") { $0.contains("Act:") && $0.contains("news@") && $0.contains("ops") }
                let title = await tmux.run(["display", "-p", "-t", "alice", "#{pane_title}"])
                #expect(title.contains("(2 in 2)") && title.contains("(@1)"), "the title counts unread messages and mentions: \(title)")
                try await tmux.press("alice", "M-a", thenSee: "the mention first") {
                    $0.contains("│ #news") && $0.contains("Carol: @alice read this")
                }
                try await tmux.press("alice", "M-n", thenSee: "then ops") {
                    $0.contains("│ #ops") && $0.contains("bob: deploy at 5") && !$0.contains("Act:")
                }
                // Alt-3 jumps to the third channel of the list; the switcher (Alt-J) finds one by a fuzzy name.
                await tmux.keys("alice", "M-j")
                await tmux.text("alice", "tm")
                try await tmux.waitScreen("alice", "the switcher") { $0.contains("Go to channel") && $0.contains("#team") }
                try await tmux.press("alice", "Enter", thenSee: "team again") { $0.contains("│ #team") && !$0.contains("Go to channel") }
                await tmux.keys("alice", "M-3")
                try await tmux.waitScreen("alice", "channel 3 of the list") { s in
                    let rows = s.split(separator: "\n").filter { $0.contains("│") }.prefix(4).map(String.init)
                    return rows.count == 4 && rows[3].hasPrefix("▸") && s.contains("│ #" + rows[3].dropFirst().split(separator: " ")[0])
                }

                // /theme light switches at once; the help screen lists the live key map, the custom key too.
                try await tmux.enter("alice", "/theme light", thenSee: "the light theme") { $0.contains("theme light") }
                #expect(await Self.showsColour(tmux, "alice", "48;5;255"), "the light theme's background")
                try await tmux.press("alice", "F1", thenSee: "the help") { $0.contains("Keys and commands") }
                var seen = await tmux.screen("alice")
                for _ in 0..<12 where !seen.contains("Alt-n") {
                    await tmux.keys("alice", "NPage")
                    try await Task.sleep(for: .milliseconds(150))
                    seen = await tmux.screen("alice")
                }
                #expect(seen.contains("Alt-n"), "the help lists the config's own key")
                await tmux.keys("alice", "q")
                // /save writes the settings back, the theme switched to included.
                try await tmux.enter("alice", "/save", thenSee: "saved") { $0.contains("saved to") }
            }
        }

        @Test func viKeysAndReadsThatWaitForTheUser() async throws {
            try await T.withTerminals(["alice", "bob"], configs: ["bob": "keymap = \"vi\"\n"]) { tmux, server in
                // A channel arrives and tern opens it by itself: a message there stays unread until bob is there.
                try await server.createGroup("pair", name: "pair", of: ["alice", "bob"])
                try await server.post("are you there?", by: "alice", in: "pair")
                try await tmux.waitScreen("bob", "the message on screen, unread") { s in
                    s.contains("alice: are you there?") && T.listRow(s, "pair")?.hasSuffix(" 1") == true
                }
                try await Task.sleep(for: .milliseconds(500))
                #expect(T.listRow(await tmux.screen("bob"), "pair")?.hasSuffix(" 1") == true, "not read before bob looks")
                // The terminal reports focus coming in (DECSET 1004): now it is seen and read.
                await tmux.run(["send-keys", "-t", "bob", "-H", "1b", "5b", "49"])
                try await tmux.waitScreen("bob", "read") { T.listRow($0, "pair")?.hasSuffix(" 1") == false }
                // Focus out: a new message stays unread; focus in reads it.
                await tmux.run(["send-keys", "-t", "bob", "-H", "1b", "5b", "4f"])
                try await server.post("hello?", by: "alice", in: "pair")
                try await tmux.waitScreen("bob", "unread while away") { s in
                    s.contains("alice: hello?") && T.listRow(s, "pair")?.hasSuffix(" 1") == true
                }
                await tmux.run(["send-keys", "-t", "bob", "-H", "1b", "5b", "49"])
                try await tmux.waitScreen("bob", "read again") { T.listRow($0, "pair")?.hasSuffix(" 1") == false }

                // vi: insert mode types, Esc goes to normal mode ([N]), 0 and x edit, A appends, Enter sends.
                await tmux.text("bob", "hello vi")
                await Self.escape(tmux, "bob")
                try await tmux.waitScreen("bob", "normal mode") { $0.contains("[N] > hello vi") }
                await tmux.keys("bob", "0")
                await tmux.keys("bob", "x")
                await tmux.keys("bob", "A")
                await tmux.text("bob", "!")
                try await tmux.waitScreen("bob", "the edit") { Self.inputLine($0) == "ello vi!" }
                try await tmux.press("bob", "Enter", thenSee: "bob's message", on: "alice") { $0.contains("bob: ello vi!") }
                // Normal mode: ":" starts a command, "dd" clears, "u" undoes.
                await Self.escape(tmux, "bob")
                await tmux.keys("bob", ":")
                try await tmux.enter("bob", "theme high-contrast", thenSee: "the theme switched by a : command") {
                    $0.contains("theme high-contrast")
                }
                await Self.escape(tmux, "bob")
                await tmux.text("bob", "isome text")
                await Self.escape(tmux, "bob")
                await tmux.keys("bob", "d")
                try await tmux.press("bob", "d", thenSee: "dd cleared the line") { $0.contains("[N] >") && Self.inputLine($0).isEmpty }
                try await tmux.press("bob", "u", thenSee: "u brought it back") { Self.inputLine($0) == "some text" }
            }
        }

        @Test func imagesRenderAsColouredCells() throws {
            let preview = try #require(CursesTerminal.renderImage(Array(TestImages.png(width: 64, height: 32)), columns: 20, maxRows: 8))
            #expect(preview.width == 20 && preview.rows.count == 5, "64×32 pixels at 20 columns: 5 rows (cells are twice as tall)")
            let colours = Set(preview.rows.flatMap { $0 }.flatMap { [$0.style.fg, $0.style.bg] })
            #expect(colours.count > 3 && !colours.contains(.default), "a gradient takes several colours: \(colours)")
            #expect(CursesTerminal.renderImage(Array("not an image".utf8), columns: 20, maxRows: 8) == nil)
        }

        @Test func anImageMessageShowsAPreviewAndOpens() async throws {
            let files = makeTempDirectory()
            defer { try? FileManager.default.removeItem(atPath: files) }
            try FileManager.default.createDirectory(atPath: files + "/opened", withIntermediateDirectories: true)
            try TestImages.png(width: 120, height: 60).write(to: URL(fileURLWithPath: files + "/pic.png"))
            try await T.withTerminals(["alice", "bob"], env: "BROWSER='cp -t \(files)/opened'") { tmux, server in
                try await server.createGroup("pics", name: "pics", of: ["alice", "bob"])
                try await server.post("send it", by: "bob", in: "pics")
                try await tmux.waitScreen("alice", "pics open") { $0.contains("bob: send it") }
                try await tmux.waitScreen("bob", "pics open") { $0.contains("bob: send it") }
                try await tmux.enter("alice", "/upload \(files)/pic.png", thenSee: "the file message", on: "bob") { $0.contains("pic.png") }
                // Under the file line: rows of coloured cells (256-colour backgrounds) — the preview.
                var coloured = 0
                for _ in 0..<100 {
                    let rows = await DailyDriverTests.colours(tmux, "bob").split(separator: "\n")
                    if let at = rows.firstIndex(where: { $0.contains("pic.png") }) {
                        coloured = rows[(at + 1)...].prefix(8).filter { $0.contains("48;5;") || $0.contains("38;5;") }.count
                        if coloured >= 3 { break }
                    }
                    try await Task.sleep(for: .milliseconds(200))
                }
                let shown = await DailyDriverTests.colours(tmux, "bob").replacingOccurrences(of: "\u{1B}", with: "^")
                #expect(coloured >= 3, "the preview's rows are on bob's screen:\n\(shown)")
                // Alt-O opens the image with $BROWSER (here: a copy into a directory).
                try await tmux.press("bob", "M-o", thenSee: "opened") { $0.contains("opened") }
                for _ in 0..<50 where !FileManager.default.fileExists(atPath: files + "/opened/pic.png") {
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(FileManager.default.fileExists(atPath: files + "/opened/pic.png"))
            }
        }

        @Test func aMentionRingsAndSendsDesktopNotificationsThroughTmux() async throws {
            let dir = makeTempDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let config = "notify_style = [\"bell\", \"osc777\", \"osc9\"]\n"
            try await T.withTerminals(["alice"], configs: ["alice": config], rawOutput: dir + "/raw") { tmux, server in
                try await server.createUsers(["bob", "carol"])
                try await server.createGroup("team", name: "team", of: ["alice", "bob", "carol"])
                try await server.post("morning", by: "carol", in: "team")
                try await tmux.waitScreen("alice", "team") { $0.contains("Carol: morning") }
                try await server.createGroup("ops-room", name: "ops", of: ["alice", "bob", "carol"])
                try await server.post("@alice can you look?", by: "bob", in: "ops-room", mentioning: ["alice"])
                #expect(await T.bellRings(tmux, "alice"))
                // What tern wrote: OSC 777 and OSC 9, wrapped for tmux's passthrough (Esc doubled inside), and the
                // title with the unread counts.
                var raw = ""
                for _ in 0..<50 {
                    raw = (try? String(contentsOfFile: dir + "/raw-alice", encoding: .utf8)) ?? ""
                    if raw.contains("]777;notify;") && raw.contains("]9;") && raw.contains("\u{1B}]2;(2 in 2) (@1) tern") { break }
                    try await Task.sleep(for: .milliseconds(100))
                }
                // (The channel may not be in the list yet when its first message alerts: then it is named by its URL.)
                #expect(raw.contains("\u{1B}Ptmux;\u{1B}\u{1B}]777;notify;Bob in #ops") && raw.contains(";@alice can you look?\u{7}\u{1B}\\"))
                #expect(raw.contains("\u{1B}Ptmux;\u{1B}\u{1B}]9;Bob in #ops") && raw.contains(": @alice can you look?\u{7}\u{1B}\\"))
                #expect(raw.contains("\u{1B}]2;(2 in 2) (@1) tern"), "the title counts the unread")
                #expect(raw.contains("\u{1B}[?2004h") && raw.contains("\u{1B}[?1004h"), "bracketed paste and focus reporting on")
            }
        }
    }
}
