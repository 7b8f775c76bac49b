extension JSONReader {
    /// Skips one value of any shape (an unknown key's), checking it as strictly as `JSONDecoder`
    /// would: a value this reader is not sure `JSONDecoder` accepts makes it give up. No recursion,
    /// so no input can exhaust the stack.
    package mutating func skipValue() throws(Unrecognised) {
        // One bit per open container: set for an object, clear for an array.
        var objects: UInt64 = 0
        var level = 0
        value: while true {
            switch peek() {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = bytes[index] == UInt8(ascii: "{")
                index += 1
                let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if peek() == close {
                    index += 1
                } else {
                    guard depth + level + 1 <= Self.maxDepth else { throw Unrecognised() }
                    objects = isObject ? objects | (1 << UInt64(level)) : objects & ~(1 << UInt64(level))
                    level += 1
                    if isObject { try skipKey() }
                    continue value
                }
            case UInt8(ascii: "\""): try skipString()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            case UInt8(ascii: "-"), 0x30...0x39: try skipNumber()
            default: throw Unrecognised()
            }
            // A value ended: go on in its container, or close it.
            while level > 0 {
                let inObject = objects & (1 << UInt64(level - 1)) != 0
                switch peek() {
                case UInt8(ascii: ","):
                    index += 1
                    if inObject { try skipKey() }
                    continue value
                case UInt8(ascii: "}") where inObject, UInt8(ascii: "]") where !inObject:
                    index += 1
                    level -= 1
                default: throw Unrecognised()
                }
            }
            return
        }
    }

    mutating func skipKey() throws(Unrecognised) {
        guard peek() == UInt8(ascii: "\"") else { throw Unrecognised() }
        try skipString()
        try expect(UInt8(ascii: ":"))
    }

    /// A string, unread: escapes and UTF-8 checked.
    mutating func skipString() throws(Unrecognised) {
        try expect(UInt8(ascii: "\""))
        let start = index
        var ascii = true
        while index < bytes.count {
            let b = bytes[index]
            switch b {
            case UInt8(ascii: "\""):
                if !ascii, !Self.isUTF8(UnsafeBufferPointer(rebasing: bytes[start..<index])) { throw Unrecognised() }
                index += 1
                return
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count else { throw Unrecognised() }
                switch bytes[index + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                    UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 2
                case UInt8(ascii: "u"):
                    // Decoded and dropped: the same checks as a string that is kept (surrogates in pairs).
                    var scratch: [UInt8] = []
                    try escape(into: &scratch)
                default: throw Unrecognised()
                }
            default:
                guard b >= 0x20 else { throw Unrecognised() }
                if b >= 0x80 { ascii = false }
                index += 1
            }
        }
        throw Unrecognised()
    }

    /// A number in JSON's own grammar.
    mutating func skipNumber() throws(Unrecognised) {
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let intStart = index
        let intDigits = digits()
        guard intDigits > 0, !(intDigits > 1 && bytes[intStart] == 0x30) else { throw Unrecognised() }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw Unrecognised() }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw Unrecognised() }
        }
    }

    mutating func digits() -> Int {
        let start = index
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
        return index - start
    }
}

extension JSONReader {
    /// Whether `b` is well-formed UTF-8 (no overlong forms, no surrogates, nothing past U+10FFFF),
    /// checked without building a String.
    static func isUTF8(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        while i < b.count {
            let c = b[i]
            if c < 0x80 {
                i += 1
                continue
            }
            let n: Int
            var lo: UInt8 = 0x80
            var hi: UInt8 = 0xBF
            switch c {
            case 0xC2...0xDF: n = 1
            case 0xE0: (n, lo) = (2, 0xA0)
            case 0xED: (n, hi) = (2, 0x9F)
            case 0xE1...0xEF: n = 2
            case 0xF0: (n, lo) = (3, 0x90)
            case 0xF4: (n, hi) = (3, 0x8F)
            case 0xF1...0xF3: n = 3
            default: return false
            }
            guard i + n < b.count else { return false }
            // The first continuation byte has the narrowed range; the rest any continuation byte.
            guard b[i + 1] >= lo, b[i + 1] <= hi else { return false }
            for j in 2..<(n + 1) where b[i + j] & 0xC0 != 0x80 { return false }
            i += n + 1
        }
        return true
    }
}
