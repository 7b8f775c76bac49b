import Foundation

/// A mouse event the terminal reported (SGR mouse mode, 1006): cells count from 0.
public struct MouseEvent: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case press(button: Int)
        case release, wheelUp, wheelDown
    }
    public var kind: Kind
    public var x: Int
    public var y: Int
    public init(_ kind: Kind, x: Int, y: Int) {
        self.kind = kind
        self.x = x
        self.y = y
    }
}

/// Turns what the terminal sends (Unicode scalars, already decoded from UTF-8) into keys, pastes,
/// focus changes and mouse events: Esc-prefixed keys are Alt, CSI/SS3 sequences are the arrows,
/// Home/End, PgUp/PgDn, F-keys and their Ctrl/Alt/Shift forms; `ESC [ 200 ~ … ESC [ 201 ~` is a
/// bracketed paste (DECSET 2004); `ESC [ I` / `ESC [ O` are focus in / out (DECSET 1004);
/// `ESC [ < b ; x ; y M|m` is an SGR mouse event. A lone Esc waits for ``flush()`` (the adapter
/// calls it when no byte followed within the escape delay). While ``expectsReplies`` (the adapter asked the
/// terminal what it can do), `ESC _ G … ESC \` is kitty's graphics answer and `ESC [ ? … c` the device
/// attributes, which end the answers. A value type, tested without a terminal.
public struct InputDecoder: Sendable {
    enum Phase: Sendable, Equatable { case ground, escape, csi, ss3, paste, apc }
    var phase = Phase.ground
    var params = ""
    /// The adapter sent the start-up queries and their answers have not all come.
    public var expectsReplies = false
    var apc: [Unicode.Scalar] = []
    var pasteBuffer: [Unicode.Scalar] = []
    static let pasteEnd: [Unicode.Scalar] = Array("\u{1B}[201~".unicodeScalars)

    public init() {}

    /// Whether a lone Esc (or a cut-off sequence) waits for the next byte or the escape delay.
    public var isPending: Bool { phase == .escape || phase == .csi || phase == .ss3 || phase == .apc }

    public mutating func feed(_ text: String) -> [TerminalInput] {
        var out: [TerminalInput] = []
        for s in text.unicodeScalars { out += feed(s) }
        return out
    }

    public mutating func feed(_ s: Unicode.Scalar) -> [TerminalInput] {
        switch phase {
        case .paste:
            pasteBuffer.append(s)
            if pasteBuffer.count >= Self.pasteEnd.count, Array(pasteBuffer.suffix(Self.pasteEnd.count)) == Self.pasteEnd {
                pasteBuffer.removeLast(Self.pasteEnd.count)
                var text = String(String.UnicodeScalarView(pasteBuffer))
                text = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
                pasteBuffer = []
                phase = .ground
                return [.paste(text)]
            }
            return []
        case .apc:
            // Until ST (ESC \) or BEL; a runaway one is dropped.
            if s == "\\" && apc.last == "\u{1B}" || s == "\u{07}" {
                if apc.last == "\u{1B}" { apc.removeLast() }
                let body = String(String.UnicodeScalarView(apc))
                phase = .ground
                apc = []
                return body.hasPrefix("G") ? [.reply(.graphics(ok: body.hasSuffix(";OK")))] : []
            }
            apc.append(s)
            if apc.count > 512 {
                phase = .ground
                apc = []
            }
            return []
        case .ground:
            if s.value == 27 {
                phase = .escape
                return []
            }
            return [.key(Self.plain(s))]
        case .escape:
            switch s {
            case "[":
                phase = .csi
                params = ""
                return []
            case "O":
                phase = .ss3
                return []
            case "_" where expectsReplies:
                phase = .apc
                apc = []
                return []
            case "\u{1B}":
                return [.key(.escape)]  // Esc Esc: the first was a lone Esc
            case "\r", "\n":
                phase = .ground
                return [.key(.altEnter)]
            case "\u{7F}", "\u{08}":
                phase = .ground
                return [.key(.altBackspace)]
            default:
                phase = .ground
                if s.value >= 0x20 { return [.key(.alt(Character(s)))] }
                return [.key(.escape), .key(Self.plain(s))]
            }
        case .ss3:
            phase = .ground
            switch s {
            case "A": return [.key(.up)]
            case "B": return [.key(.down)]
            case "C": return [.key(.right)]
            case "D": return [.key(.left)]
            case "H": return [.key(.home)]
            case "F": return [.key(.end)]
            case "M": return [.key(.enter)]
            case "P": return [.key(.function(1))]
            case "Q": return [.key(.function(2))]
            case "R": return [.key(.function(3))]
            case "S": return [.key(.function(4))]
            default: return [.key(.alt("O")), .key(Self.plain(s))]
            }
        case .csi:
            if (0x30...0x3F).contains(s.value) || (0x20...0x2F).contains(s.value) {
                params.unicodeScalars.append(s)
                if params.count > 32 { phase = .ground }  // garbage: drop it
                return []
            }
            phase = .ground
            guard (0x40...0x7E).contains(s.value) else { return [] }
            return csi(params, final: Character(s))
        }
    }

    /// The escape delay passed with nothing more: a lone Esc is the Esc key; a cut-off sequence is dropped.
    public mutating func flush() -> [TerminalInput] {
        defer { phase = phase == .paste ? .paste : .ground }
        switch phase {
        case .escape: return [.key(.escape)]
        case .ss3: return [.key(.alt("O"))]
        case .csi: return params.isEmpty ? [.key(.alt("["))] : []
        default: return []
        }
    }

    static func plain(_ s: Unicode.Scalar) -> Key {
        switch s.value {
        case 13, 10: .enter
        case 127: .backspace
        case 9: .tab
        case 0: .ctrl(" ")
        case 1...26: .ctrl(Character(Unicode.Scalar(s.value + 96)!))
        case 28: .ctrl("\\")
        case 29: .ctrl("]")
        case 30: .ctrl("^")
        case 31: .ctrl("_")
        default: .char(Character(s))
        }
    }

    mutating func csi(_ params: String, final: Character) -> [TerminalInput] {
        if params.hasPrefix("?"), final == "c" {
            expectsReplies = false
            return [.reply(.deviceAttributes(params.dropFirst().split(separator: ";").compactMap { Int($0) }))]
        }
        if params.hasPrefix("<"), final == "M" || final == "m" {
            let n = params.dropFirst().split(separator: ";").compactMap { Int($0) }
            guard n.count == 3 else { return [] }
            let (b, x, y) = (n[0], n[1] - 1, n[2] - 1)
            if b & 64 != 0 { return [.mouse(MouseEvent(b & 1 == 0 ? .wheelUp : .wheelDown, x: x, y: y))] }
            if b & 32 != 0 { return [] }  // motion
            return [.mouse(MouseEvent(final == "M" ? .press(button: (b & 3) + 1) : .release, x: x, y: y))]
        }
        let fields = params.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 1 }
        let modifier = fields.count > 1 ? fields[1] - 1 : 0  // 1 shift, 2 alt, 4 ctrl
        let alt = modifier & 2 != 0
        let ctrl = modifier & 4 != 0
        func arrow(_ plain: Key, alt altKey: Key?, ctrl ctrlKey: Key?) -> [TerminalInput] {
            if ctrl, let ctrlKey { return [.key(ctrlKey)] }
            if alt, let altKey { return [.key(altKey)] }
            return [.key(plain)]
        }
        switch final {
        case "A": return arrow(.up, alt: .altUp, ctrl: nil)
        case "B": return arrow(.down, alt: .altDown, ctrl: nil)
        case "C": return arrow(.right, alt: .alt("f"), ctrl: .ctrlRight)
        case "D": return arrow(.left, alt: .alt("b"), ctrl: .ctrlLeft)
        case "H": return [.key(.home)]
        case "F": return [.key(.end)]
        case "Z": return [.key(.shiftTab)]
        case "I" where params.isEmpty: return [.focus(true)]
        case "O" where params.isEmpty: return [.focus(false)]
        case "P", "Q", "R", "S": return [.key(.function(Int(final.asciiValue! - 79)))]
        case "~":
            switch fields.first ?? 0 {
            case 200:
                phase = .paste
                pasteBuffer = []
                return []
            case 1, 7: return [.key(.home)]
            case 4, 8: return [.key(.end)]
            case 2: return []  // Insert
            case 3: return [.key(.delete)]
            case 5: return [.key(.pageUp)]
            case 6: return [.key(.pageDown)]
            case 11...15: return [.key(.function(fields[0] - 10))]
            case 17...21: return [.key(.function(fields[0] - 11))]
            case 23, 24: return [.key(.function(fields[0] - 12))]
            case 27 where fields.count == 3 && fields[2] == 13:
                // xterm's modifyOtherKeys: 27;2;13~ is Shift-Enter.
                return [.key(modifier == 0 ? .enter : .altEnter)]
            default: return []
            }
        case "u":
            // CSI u (fixterms / kitty): 13;2u is Shift-Enter, 13;3u Alt-Enter.
            if fields.first == 13 { return [.key(modifier == 0 ? .enter : .altEnter)] }
            return []
        default:
            return []
        }
    }
}
