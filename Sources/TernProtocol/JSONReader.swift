/// A byte-level reader of one JSON object, for the frames that arrive once per message (issue 36:
/// `JSONDecoder` was a tenth of tern's CPU per incoming line).
///
/// It reads only what it is sure of and gives up on everything else: a number with a fraction or an
/// exponent, an escaped key, a duplicated key, a lone surrogate, a raw control character, deep
/// nesting, bytes that are not UTF-8. Giving up (``Unrecognised``) is never an error to the caller:
/// ``Frame/decode(_:)`` then reads the frame with `JSONDecoder`, so what a frame gives is always what
/// the `Decodable` path gives. No logic beyond parsing lives here.
///
/// For example, reading the `id` of `{"id":"42","name":"x"}` (a ``ByteDecodable`` type does this in
/// `init(reading:)`, and ``ByteDecodable/scan(_:)`` gives it the bytes of a payload; a ``Key`` points
/// into them, so nothing of the reader outlives that call):
///
/// ```swift
/// var id: Int64?
/// try r.object(["id"]) { (k, r: inout JSONReader) throws(JSONReader.Unrecognised) in
///     if k == 0 { id = try r.flexibleInt64() } else { try r.skipValue() }
/// }
/// ```
package struct JSONReader {
    /// The input is outside what this reader handles; read it with `JSONDecoder`.
    package struct Unrecognised: Error {
        package init() {}
    }

    /// A key of the object being read: a range of the input's bytes, without escapes.
    package struct Key {
        let bytes: UnsafeBufferPointer<UInt8>

        /// Whether the key is `name`, byte for byte.
        package static func == (key: Key, name: StaticString) -> Bool {
            guard key.bytes.count == name.utf8CodeUnitCount else { return false }
            return name.withUTF8Buffer { n in
                var i = 0
                while i < n.count {
                    if n[i] != key.bytes[i] { return false }
                    i += 1
                }
                return true
            }
        }
    }

    /// Deeper than this, the reader gives up (`JSONDecoder` has its own limit).
    static let maxDepth = 32

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0

    package init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    // MARK: Structure

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// The next significant byte, not consumed (0 at the end).
    mutating func peek() -> UInt8 {
        skipWhitespace()
        return index < bytes.count ? bytes[index] : 0
    }

    mutating func expect(_ byte: UInt8) throws(Unrecognised) {
        guard peek() == byte else { throw Unrecognised() }
        index += 1
    }

    /// Whether the next value is `null`; consumes it if so.
    package mutating func takeNull() throws(Unrecognised) -> Bool {
        guard peek() == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    /// Whether the next value is an object (not consumed).
    package mutating func atObject() -> Bool { peek() == UInt8(ascii: "{") }

    /// Consumes the `{` of an object; read its members with ``nextKey()``.
    package mutating func beginObject() throws(Unrecognised) {
        try expect(UInt8(ascii: "{"))
        depth += 1
        guard depth <= Self.maxDepth else { throw Unrecognised() }
        first = true
    }

    private var first = true

    /// The next member's key, the reader then at its value (which the caller must read or skip);
    /// nil after the object's closing `}`.
    package mutating func nextKey() throws(Unrecognised) -> Key? {
        if peek() == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            first = false
            return nil
        }
        if !first { try expect(UInt8(ascii: ",")) }
        first = false
        try expect(UInt8(ascii: "\""))
        let start = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            let b = bytes[index]
            // An escaped or non-ASCII key could still name a known one once decoded: not handled.
            guard b >= 0x20, b < 0x80, b != UInt8(ascii: "\\") else { throw Unrecognised() }
            index += 1
        }
        guard index < bytes.count else { throw Unrecognised() }
        let key = Key(bytes: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        index += 1
        try expect(UInt8(ascii: ":"))
        return key
    }

    /// Reads an array's elements: `element` must consume one value each time it is called.
    package mutating func forEachElement(_ element: (inout JSONReader) throws(Unrecognised) -> Void) throws(Unrecognised) {
        try expect(UInt8(ascii: "["))
        depth += 1
        guard depth <= Self.maxDepth else { throw Unrecognised() }
        if peek() == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return
        }
        while true {
            try element(&self)
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return
            default: throw Unrecognised()
            }
        }
    }

    /// After the top-level value: nothing but whitespace may follow.
    package mutating func finish() throws(Unrecognised) {
        skipWhitespace()
        guard index == bytes.count, depth == 0 else { throw Unrecognised() }
    }

    // MARK: Scalars

    mutating func literal(_ word: StaticString) throws(Unrecognised) {
        let n = word.utf8CodeUnitCount
        guard index + n <= bytes.count else { throw Unrecognised() }
        let same = word.withUTF8Buffer { w in
            var i = 0
            while i < n {
                if w[i] != bytes[index + i] { return false }
                i += 1
            }
            return true
        }
        guard same else { throw Unrecognised() }
        index += n
    }

    /// `true` or `false`; nil for `null`.
    package mutating func bool() throws(Unrecognised) -> Bool? {
        switch peek() {
        case UInt8(ascii: "t"):
            try literal("true")
            return true
        case UInt8(ascii: "f"):
            try literal("false")
            return false
        case UInt8(ascii: "n"):
            try literal("null")
            return nil
        default: throw Unrecognised()
        }
    }

    /// An integer written as one (no fraction, no exponent, no leading zero) that fits in Int64;
    /// nil for `null`.
    package mutating func int64() throws(Unrecognised) -> Int64? {
        if try takeNull() { return nil }
        guard index < bytes.count else { throw Unrecognised() }
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let digitsStart = index
        var value: Int64 = 0
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            let d = Int64(bytes[index] - 0x30)
            // Accumulated negatively, so Int64.min fits.
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.subtractingReportingOverflow(d)
            guard !o1, !o2 else { throw Unrecognised() }
            value = s
            index += 1
        }
        let digits = index - digitsStart
        guard digits > 0, !(digits > 1 && bytes[digitsStart] == 0x30) else { throw Unrecognised() }
        if index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): throw Unrecognised()
            default: break
            }
        }
        if negative { return value }
        guard value != .min else { throw Unrecognised() }
        return -value
    }

    /// An integer that fits in Int; nil for `null`.
    package mutating func int() throws(Unrecognised) -> Int? {
        guard let v = try int64() else { return nil }
        guard let i = Int(exactly: v) else { throw Unrecognised() }
        return i
    }

    /// What ``FlexibleInt64`` reads: an integer, or a string Int64 reads (`"42"`); nil for `null`.
    package mutating func flexibleInt64() throws(Unrecognised) -> Int64? {
        guard peek() == UInt8(ascii: "\"") else { return try int64() }
        guard let s = try string(), let v = Int64(s) else { throw Unrecognised() }
        return v
    }

    /// A string with its escapes decoded; nil for `null`.
    package mutating func string() throws(Unrecognised) -> String? {
        if try takeNull() { return nil }
        try expect(UInt8(ascii: "\""))
        let start = index
        var ascii = true
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                // ASCII is valid UTF-8 as it is: `String(decoding:)` is specialised here, where the
                // validating initialiser is generic code that looks its types up at run time.
                if ascii { return String(decoding: raw, as: UTF8.self) }
                guard let s = String(validating: raw, as: UTF8.self) else { throw Unrecognised() }
                return s
            }
            if b == UInt8(ascii: "\\") { break }
            guard b >= 0x20 else { throw Unrecognised() }
            ascii = ascii && b < 0x80
            index += 1
        }
        // Escapes: decode from the first one on.
        var out = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let b = bytes[index]
            switch b {
            case UInt8(ascii: "\""):
                index += 1
                guard let s = String(validating: out, as: UTF8.self) else { throw Unrecognised() }
                return s
            case UInt8(ascii: "\\"):
                try escape(into: &out)
            default:
                guard b >= 0x20 else { throw Unrecognised() }
                out.append(b)
                index += 1
            }
        }
        throw Unrecognised()
    }

    /// One escape sequence at `index` (the backslash), appended as UTF-8.
    mutating func escape(into out: inout [UInt8]) throws(Unrecognised) {
        guard index + 1 < bytes.count else { throw Unrecognised() }
        let c = bytes[index + 1]
        index += 2
        switch c {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(c)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if scalar >= 0xD800, scalar < 0xDC00 {
                // A high surrogate must be followed by an escaped low one.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw Unrecognised()
                }
                index += 2
                let low = try hex4()
                guard low >= 0xDC00, low < 0xE000 else { throw Unrecognised() }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00, scalar < 0xE000 {
                throw Unrecognised()
            }
            guard let u = Unicode.Scalar(scalar) else { throw Unrecognised() }
            out.append(contentsOf: UTF8.encode(u)!)
        default: throw Unrecognised()
        }
    }

    mutating func hex4() throws(Unrecognised) -> UInt32 {
        guard index + 4 <= bytes.count else { throw Unrecognised() }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let d: UInt8
            switch b {
            case 0x30...0x39: d = b - 0x30
            case 0x41...0x46: d = b - 0x41 + 10
            case 0x61...0x66: d = b - 0x61 + 10
            default: throw Unrecognised()
            }
            v = v << 4 | UInt32(d)
            index += 1
        }
        return v
    }

    /// An object whose every value `value` reads (nil from it: give up); nil for `null`.
    package mutating func dictionary<V>(_ value: (inout JSONReader) throws(Unrecognised) -> V?) throws(Unrecognised) -> [String: V]? {
        if try takeNull() { return nil }
        var result: [String: V] = [:]
        try beginObject()
        while let key = try nextKey() {
            guard let v = try value(&self) else { throw Unrecognised() }
            guard result.updateValue(v, forKey: String(decoding: key.bytes, as: UTF8.self)) == nil else { throw Unrecognised() }
        }
        return result
    }

    /// An array of strings; nil for `null`.
    package mutating func stringArray() throws(Unrecognised) -> [String]? {
        if try takeNull() { return nil }
        var result: [String] = []
        try forEachElement { (r: inout JSONReader) throws(Unrecognised) in
            guard let s = try r.string() else { throw Unrecognised() }
            result.append(s)
        }
        return result
    }
}

extension JSONReader {
    /// Marks a known key as seen; a key given twice makes the reader give up (which of the two
    /// `JSONDecoder` keeps is its business).
    package static func once(_ seen: inout UInt64, _ bit: Int) throws(Unrecognised) {
        let mask: UInt64 = 1 << UInt64(bit)
        guard seen & mask == 0 else { throw Unrecognised() }
        seen |= mask
    }

    /// Reads an object: `member` is given each key's index in `names` (-1 for another key) and must
    /// read or skip its value. A key of `names` given twice makes the reader give up.
    package mutating func object(
        _ names: [StaticString], _ member: (Int, inout JSONReader) throws(Unrecognised) -> Void
    ) throws(Unrecognised) {
        var seen: UInt64 = 0
        try beginObject()
        while let k = try nextKey(in: names, seen: &seen) { try member(k, &self) }
    }

    /// The next member's key as its index in `names` (-1 for another key), the reader then at its
    /// value; nil after the object's `}`. A key of `names` given twice makes the reader give up.
    package mutating func nextKey(in names: [StaticString], seen: inout UInt64) throws(Unrecognised) -> Int? {
        guard let key = try nextKey() else { return nil }
        for i in names.indices where key == names[i] {
            try Self.once(&seen, i)
            return i
        }
        return -1
    }

    /// `null` or absent for a value this reader does not build (`thread_info`, `og_tag`…): anything
    /// else makes it give up.
    package mutating func onlyNull() throws(Unrecognised) {
        guard try takeNull() else { throw Unrecognised() }
    }
}
