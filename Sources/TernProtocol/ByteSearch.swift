package import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Finding a run of bytes in bytes, for the look-ups made on every frame or message: `memchr` for
/// the needle's first byte, then `memcmp`. The standard library's and Foundation's generic searches
/// (`firstRange(of:)`, `contains(_:)` on a collection of bytes) cost several microseconds each through
/// generic metadata and a searcher object: measured at ~4 % of ternd's CPU per message for one
/// `"://"` look-up, ~1 % of tern's per incoming frame.
package enum ByteSearch {
    /// The offset of the first occurrence of `needle` in `hay` (nil: none; an empty needle is at 0).
    package static func firstOffset(of needle: UnsafeRawBufferPointer, in hay: UnsafeRawBufferPointer) -> Int? {
        guard needle.count > 0 else { return 0 }
        guard let base = hay.baseAddress, let n = needle.baseAddress, hay.count >= needle.count else { return nil }
        let first = Int32(needle[0])
        let last = hay.count - needle.count
        var at = 0
        while at <= last {
            guard let hit = memchr(base + at, first, last - at + 1) else { return nil }
            at = base.distance(to: UnsafeRawPointer(hit))
            if memcmp(base + at, n, needle.count) == 0 { return at }
            at += 1
        }
        return nil
    }

    /// The offset of `needle`'s first occurrence in `text`'s UTF-8 bytes.
    package static func firstOffset(of needle: StaticString, in text: String) -> Int? {
        var text = text
        return text.withUTF8 { hay in
            needle.withUTF8Buffer { n in firstOffset(of: UnsafeRawBufferPointer(n), in: UnsafeRawBufferPointer(hay)) }
        }
    }
}

extension Data {
    /// The index of the first byte of `needle`'s first occurrence in these bytes.
    package func firstIndex(ofBytes needle: [UInt8]) -> Index? {
        withUnsafeBytes { hay in
            needle.withUnsafeBytes { n in ByteSearch.firstOffset(of: n, in: hay).map { startIndex + $0 } }
        }
    }

    /// Whether `needle` occurs in these bytes.
    package func contains(bytes needle: [UInt8]) -> Bool { firstIndex(ofBytes: needle) != nil }
}
