import Foundation

/// An IP address or a CIDR range (`203.0.113.7`, `10.0.0.0/8`, `2001:db8::/32`), matched by its
/// leading bits. IPv4-mapped IPv6 addresses (`::ffff:10.1.2.3`) match as IPv4.
public struct IPRange: Sendable, Equatable {
    public let text: String
    let bytes: [UInt8]
    let prefix: Int

    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: "/", maxSplits: 1).map(String.init)
        guard let address = parts.first, let bytes = Self.parse(address) else { return nil }
        let bits = bytes.count * 8
        var prefix = bits
        if parts.count == 2 {
            guard let p = Int(parts[1]), p >= 0, p <= bits else { return nil }
            prefix = p
        }
        self.text = trimmed
        self.bytes = bytes
        self.prefix = prefix
    }

    /// The address as bytes (4 for IPv4 and IPv4-mapped IPv6, 16 for IPv6), or nil.
    static func parse(_ s: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, s, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, s, &v6) == 1 {
            let b = withUnsafeBytes(of: &v6) { Array($0) }
            if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF { return Array(b[12...]) }
            return b
        }
        return nil
    }

    public func contains(_ address: String) -> Bool {
        guard let a = Self.parse(address), a.count == bytes.count else { return false }
        var left = prefix
        for i in 0..<a.count where left > 0 {
            let n = min(8, left)
            let mask: UInt8 = n == 8 ? 0xFF : ~(0xFF >> UInt8(n))
            if a[i] & mask != bytes[i] & mask { return false }
            left -= n
        }
        return true
    }

    /// Ranges given as texts, each one range or several separated by commas (`--trusted-proxy`).
    /// - Throws: ``ServerStartError`` naming the first text that is not an address or a range.
    public static func list(_ texts: [String]) throws -> [IPRange] {
        try texts.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.map {
            guard let r = IPRange($0) else { throw ServerStartError("\"\($0)\" is not an IP address or a CIDR range") }
            return r
        }
    }

    public static func isLoopback(_ address: String) -> Bool {
        IPRange("127.0.0.0/8")!.contains(address) || IPRange("::1")!.contains(address)
    }
}
