#if canImport(Glibc)
import Glibc
#endif

/// A new TCP socket connected to 127.0.0.1:`port`: its descriptor. `configure` sets options on
/// the socket before it connects (a small receive buffer, a read timeout).
public func connectLoopback(port: Int, configure: (Int32) -> Void = { _ in }) throws -> Int32 {
    let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
    configure(fd)
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = in_port_t(UInt16(port).bigEndian)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    let r = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard r == 0 else {
        let error = errno
        Glibc.close(fd)
        throw TestFailure("connect: errno \(error)")
    }
    return fd
}
