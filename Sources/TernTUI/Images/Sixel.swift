/// A DEC sixel encoder: RGBA pixels to the DCS string a sixel terminal draws at the cursor. Colours go to the
/// 6×6×6 cube (216 registers: plenty for a thumbnail, and the same for every picture); pixels less than half
/// opaque are left out (the background shows through, `P2 = 1`). Runs of four or more go out as `!N`.
public enum Sixel {
    /// `rgba` holds `width` × `height` pixels, 4 bytes each, row by row.
    public static func encode(rgba: [UInt8], width: Int, height: Int) -> String {
        guard width > 0, height > 0, rgba.count >= width * height * 4 else { return "" }
        // Each pixel's register (0–215), or -1 for a transparent one.
        var index = [Int16](repeating: -1, count: width * height)
        var used = [Bool](repeating: false, count: 216)
        for i in 0..<(width * height) {
            let p = i * 4
            guard rgba[p + 3] >= 128 else { continue }
            let r = level(rgba[p])
            let g = level(rgba[p + 1])
            let b = level(rgba[p + 2])
            let n = r * 36 + g * 6 + b
            index[i] = Int16(n)
            used[n] = true
        }
        var out = "\u{1B}P0;1;0q\"1;1;\(width);\(height)"
        for n in 0..<216 where used[n] {
            // Registers are given in percent.
            let (r, g, b) = (n / 36, n / 6 % 6, n % 6)
            out += "#\(n);2;\(r * 20);\(g * 20);\(b * 20)"
        }
        var band = 0
        while band < height {
            var colours: [Int] = []
            var seen = [Bool](repeating: false, count: 216)
            for y in band..<min(band + 6, height) {
                for x in 0..<width {
                    let n = Int(index[y * width + x])
                    if n >= 0 && !seen[n] {
                        seen[n] = true
                        colours.append(n)
                    }
                }
            }
            for (k, n) in colours.enumerated() {
                if k > 0 { out += "$" }
                out += "#\(n)"
                var run: (char: UInt8, count: Int) = (0, 0)
                func flush() {
                    guard run.count > 0 else { return }
                    let c = String(UnicodeScalar(run.char))
                    out += run.count >= 4 ? "!\(run.count)\(c)" : String(repeating: c, count: run.count)
                }
                for x in 0..<width {
                    var bits: UInt8 = 0
                    for k in 0..<6 where band + k < height && Int(index[(band + k) * width + x]) == n { bits |= 1 << k }
                    let char = 63 + bits
                    if char == run.char {
                        run.count += 1
                    } else {
                        flush()
                        run = (char, 1)
                    }
                }
                // Trailing empty sixels need not be sent.
                if run.char != 63 { flush() }
            }
            out += "-"
            band += 6
        }
        return out + "\u{1B}\\"
    }

    /// 0–255 to the cube's 0–5.
    static func level(_ v: UInt8) -> Int { (Int(v) * 5 + 127) / 255 }
}
