import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The private-host rule of outbound requests the server makes for its users (link previews):
/// an address on this machine or on a network that is not the public internet is not reached.
///
/// Judged on the address itself (the one about to be connected to), never on a name: loopback,
/// "this network" (`0.0.0.0/8`, `::`), RFC 1918, carrier-grade NAT, link-local, benchmarking,
/// IETF protocol assignments, multicast and reserved ranges, IPv6 unique-local, site-local and
/// multicast, IPv4 inside IPv6 (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64
/// `64:ff9b::/96`, 6to4 `2002::/16`) judged as the IPv4 address they carry — and every address
/// of this machine's own interfaces (`getifaddrs`), public ones included.
public enum PrivateAddresses {
    /// Whether the address (4 or 16 bytes, network order) is private in the sense above.
    public static func isPrivate(_ bytes: [UInt8]) -> Bool {
        if isReserved(bytes) { return true }
        return ownAddresses().contains(canonical(bytes))
    }

    /// Whether a textual IP address is private; anything that is not an IP address is.
    public static func isPrivate(ip: String) -> Bool {
        guard let bytes = parse(ip) else { return true }
        return isPrivate(bytes)
    }

    /// An IPv4 address carried inside an IPv6 one, as its 4 bytes; the address as it is otherwise.
    static func canonical(_ b: [UInt8]) -> [UInt8] {
        guard b.count == 16 else { return b }
        let zero10 = b[0..<10].allSatisfy { $0 == 0 }
        if zero10 && b[10] == 0xff && b[11] == 0xff { return Array(b[12...]) }  // ::ffff:a.b.c.d
        if b[0..<12].allSatisfy({ $0 == 0 }) && !(b[12] == 0 && b[13] == 0 && b[14] == 0) { return Array(b[12...]) }  // ::a.b.c.d
        // 64:ff9b::/96
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && b[4..<12].allSatisfy({ $0 == 0 }) { return Array(b[12...]) }
        return b
    }

    /// The fixed ranges (without this machine's interfaces).
    static func isReserved(_ raw: [UInt8]) -> Bool {
        let b = canonical(raw)
        if b.count == 4 {
            let (a, c) = (b[0], b[1])
            return a == 0  // this network, 0.0.0.0
                || a == 10  // RFC 1918
                || a == 127  // loopback
                || (a == 100 && (64...127).contains(c))  // carrier-grade NAT
                || (a == 169 && c == 254)  // link-local (cloud metadata services)
                || (a == 172 && (16...31).contains(c))  // RFC 1918
                || (a == 192 && c == 168)  // RFC 1918
                || (a == 192 && c == 0 && b[2] == 0)  // IETF protocol assignments
                || (a == 192 && c == 0 && b[2] == 2)  // TEST-NET-1
                || (a == 198 && (18...19).contains(c))  // benchmarking
                || (a == 198 && c == 51 && b[2] == 100)  // TEST-NET-2
                || (a == 203 && c == 0 && b[2] == 113)  // TEST-NET-3
                || a >= 224  // multicast, reserved, broadcast
        }
        guard b.count == 16 else { return true }
        if b.allSatisfy({ $0 == 0 }) { return true }  // ::
        if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return true }  // ::1
        if (b[0] & 0xfe) == 0xfc { return true }  // fc00::/7 unique local
        if b[0] == 0xfe && (b[1] & 0xc0) == 0x80 { return true }  // fe80::/10 link-local
        if b[0] == 0xfe && (b[1] & 0xc0) == 0xc0 { return true }  // fec0::/10 site-local
        if b[0] == 0xff { return true }  // multicast
        if b[0] == 0x01 && b[1] == 0x00 && b[2..<8].allSatisfy({ $0 == 0 }) { return true }  // 100::/64 discard
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8 { return true }  // 2001:db8::/32 documentation
        if b[0] == 0x20 && b[1] == 0x02 { return isPrivate(Array(b[2..<6])) }  // 6to4 carries an IPv4 address
        return false
    }

    /// The addresses of this machine's interfaces (IPv4 as 4 bytes, IPv6 as 16), read afresh on
    /// each call: an address added since start counts at once.
    public static func ownAddresses() -> Set<[UInt8]> {
        var out: Set<[UInt8]> = []
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return out }
        defer { freeifaddrs(list) }
        var p: UnsafeMutablePointer<ifaddrs>? = first
        while let a = p {
            if let sa = a.pointee.ifa_addr {
                switch Int32(sa.pointee.sa_family) {
                case AF_INET:
                    let v4 = sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                    out.insert(withUnsafeBytes(of: v4) { Array($0) })
                case AF_INET6:
                    let v6 = sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                    out.insert(canonical(withUnsafeBytes(of: v6) { Array($0) }))
                default:
                    break
                }
            }
            p = a.pointee.ifa_next
        }
        return out
    }

    /// The bytes of a textual IPv4 or IPv6 address (brackets allowed), or nil.
    public static func parse(_ text: String) -> [UInt8]? {
        let s = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
        var v4 = in_addr()
        if inet_pton(AF_INET, s, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, s, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}
