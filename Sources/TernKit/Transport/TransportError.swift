import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL

/// Short, human words for what went wrong under a REST call or a WebSocket: the network and TLS
/// errors of SwiftNIO, NIOSSL and AsyncHTTPClient, which print as long type names.
enum TransportError {
    static func describe(_ error: any Error) -> String {
        if let e = error as? HTTPClientError {
            switch e {
            case .deadlineExceeded, .connectTimeout, .readTimeout, .writeTimeout: return "timed out"
            case .remoteConnectionClosed: return "connection lost"
            case .cancelled: return "cancelled"
            case .alreadyShutdown: return "the client was shut down"
            default: break
            }
        }
        if error is CancellationError { return "cancelled" }
        let text = "\(error)"
        let lower = text.lowercased()
        if lower.contains("certificate_verify_failed") || lower.contains("unable to get local issuer")
            || lower.contains("self signed certificate") || lower.contains("self-signed certificate")
        {
            return "the server's certificate is not trusted (to trust a private or self-signed CA, give its PEM file with --ca-file or TERN_CA_FILE)"
        }
        if let e = error as? NIOSSLExtraError, e == .failedToValidateHostname {
            return "the server's certificate is not valid for this host name"
        }
        if lower.contains("failedtovalidatehostname") { return "the server's certificate is not valid for this host name" }
        if lower.contains("wrong_version_number") || lower.contains("packet_length_too_long") || lower.contains("http_request") {
            return "TLS handshake failed: the server does not speak TLS here (try http:// or ws://)"
        }
        if lower.contains("eof during handshake") {
            return "TLS handshake failed: the server closed the connection (does it serve TLS on this port? else try http:// or ws://)"
        }
        if error is NIOSSLError || lower.contains("handshakefailed") { return "TLS handshake failed: \(text)" }
        if lower.contains("connectionrefused") || lower.contains("connection refused") { return "connection refused" }
        if lower.contains("connecttimeout") || lower.contains("timed out") { return "timed out" }
        if lower.contains("unresolved") || lower.contains("nxdomain") || lower.contains("socketaddresserror.unknown")
            || lower.contains("unknown(host")
        {
            return "unknown host"
        }
        if lower.contains("connection reset") || lower.contains("uncleanshutdown") { return "connection lost" }
        return text
    }
}
