import Foundation

/// Writes JSON straight into bytes, for the values written once per message (a message's payload,
/// fanned out to every recipient): what `JSONEncoder` writes, without its tree of boxed values.
/// Keys are written as given (ASCII names that need no escaping); strings are escaped as JSON
/// requires (`"`, `\`, control characters) and otherwise copied as UTF-8, slashes included, as
/// ``WireCoding/encoder`` writes them. Member and element commas come by themselves.
package struct JSONWriter {
    package private(set) var bytes: [UInt8] = []

    package init(capacity: Int = 512) { bytes.reserveCapacity(capacity) }

    /// A comma unless the next value opens its object or array.
    mutating func separate() {
        if let last = bytes.last, last != UInt8(ascii: "{"), last != UInt8(ascii: "["), last != UInt8(ascii: ":") {
            bytes.append(UInt8(ascii: ","))
        }
    }

    package mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
    }

    package mutating func endObject() { bytes.append(UInt8(ascii: "}")) }

    package mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
    }

    package mutating func endArray() { bytes.append(UInt8(ascii: "]")) }

    /// A member's key; its value follows.
    package mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// A member's key that is data (a metadata key, a language), escaped as a string.
    package mutating func key(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
    }

    package mutating func string(_ value: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        var s = value
        s.withUTF8 { utf8 in
            var start = 0
            for i in utf8.indices {
                let b = utf8[i]
                guard b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<i]))
                start = i + 1
                bytes.append(UInt8(ascii: "\\"))
                switch b {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(b)
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 0xF)]])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    package mutating func int(_ value: Int64) {
        separate()
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        // The digits of the magnitude (Int64.min has no positive twin), last first, then turned.
        let start = bytes.count
        var m = value.magnitude
        repeat {
            bytes.append(0x30 + UInt8(m % 10))
            m /= 10
        } while m > 0
        bytes[start...].reverse()
    }

    package mutating func int(_ value: Int) { int(Int64(value)) }

    package mutating func bool(_ value: Bool) {
        separate()
        let word: StaticString = value ? "true" : "false"
        word.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    package mutating func strings(_ values: [String]) {
        beginArray()
        for v in values { string(v) }
        endArray()
    }

    /// An object of strings (metadata, old values, translations), keys in sorted order so that
    /// the same value always gives the same bytes.
    package mutating func stringMap(_ map: [String: String]) {
        beginObject()
        for k in map.keys.sorted() {
            key(k)
            string(map[k]!)
        }
        endObject()
    }

    /// A value written by `JSONEncoder` (the rare parts of a message: threads, reactions, link
    /// previews, files).
    package mutating func encoded(_ value: some Encodable) throws {
        separate()
        bytes.append(contentsOf: try WireCoding.encoder.encode(value))
    }
}
