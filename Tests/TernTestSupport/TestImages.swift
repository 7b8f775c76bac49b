public import Foundation

/// Images for tests.
public enum TestImages {
    /// A PNG of `width` × `height` (a horizontal gradient), built by hand so tests do not depend on the code under test.
    public static func png(width: Int, height: Int) -> Data {
        // Minimal valid PNG: header, IHDR, one IDAT (zlib stored), IEND — built by hand so the test
        // does not depend on the code under test.
        var raw = Data()
        for _ in 0..<height {
            raw.append(0)
            for x in 0..<width { raw.append(contentsOf: [UInt8(x * 4 % 256), 0x80, 0x40]) }
        }
        func adler(_ d: Data) -> UInt32 {
            var a: UInt32 = 1
            var b: UInt32 = 0
            for byte in d {
                a = (a + UInt32(byte)) % 65521
                b = (b + a) % 65521
            }
            return (b << 16) | a
        }
        var z = Data([0x78, 0x01])
        var offset = 0
        while offset < raw.count {
            let n = min(65535, raw.count - offset)
            let last: UInt8 = offset + n >= raw.count ? 1 : 0
            z.append(last)
            z.append(contentsOf: [UInt8(n & 0xff), UInt8(n >> 8), UInt8(~n & 0xff), UInt8((~n >> 8) & 0xff)])
            z.append(raw[offset..<offset + n])
            offset += n
        }
        let ad = adler(raw)
        z.append(contentsOf: [UInt8(ad >> 24), UInt8((ad >> 16) & 0xff), UInt8((ad >> 8) & 0xff), UInt8(ad & 0xff)])
        func crc(_ d: Data) -> UInt32 {
            var c: UInt32 = 0xffff_ffff
            for byte in d {
                c ^= UInt32(byte)
                for _ in 0..<8 { c = (c & 1) != 0 ? (c >> 1) ^ 0xedb8_8320 : c >> 1 }
            }
            return ~c
        }
        func chunk(_ type: String, _ body: Data) -> Data {
            var out = Data()
            let len = UInt32(body.count)
            out.append(contentsOf: [UInt8(len >> 24), UInt8((len >> 16) & 0xff), UInt8((len >> 8) & 0xff), UInt8(len & 0xff)])
            let typed = Data(type.utf8) + body
            out.append(typed)
            let c = crc(typed)
            out.append(contentsOf: [UInt8(c >> 24), UInt8((c >> 16) & 0xff), UInt8((c >> 8) & 0xff), UInt8(c & 0xff)])
            return out
        }
        var ihdr = Data()
        for v in [UInt32(width), UInt32(height)] {
            ihdr.append(contentsOf: [UInt8(v >> 24), UInt8((v >> 16) & 0xff), UInt8((v >> 8) & 0xff), UInt8(v & 0xff)])
        }
        ihdr.append(contentsOf: [8, 2, 0, 0, 0])
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + chunk("IHDR", ihdr) + chunk("IDAT", z) + chunk("IEND", Data())
    }
}
