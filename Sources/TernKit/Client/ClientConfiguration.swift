import Foundation
public import NIOSSL
public import TernProtocol

/// Where the server is: REST base and WebSocket base, from `TERN_SERVER` / `--server`.
public struct ServerAddress: Sendable, Equatable, CustomStringConvertible {
    public var apiBase: String
    public var webSocketBase: String
    /// Set for `sendbird://APP_ID`: the app id is part of the address.
    public var impliedAppId: String?

    public init(apiBase: String, webSocketBase: String, impliedAppId: String? = nil) {
        self.apiBase = apiBase
        self.webSocketBase = webSocketBase
        self.impliedAppId = impliedAppId
    }

    /// `http(s)://host:port` (a `ternd`) or `sendbird://APP_ID` (Sendbird's hosted service).
    public init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased() else {
            throw SendbirdError(.invalidParameter, "not a server address: \"\(text)\" (expected http://HOST:PORT, https://HOST or sendbird://APP_ID)")
        }
        switch scheme {
        case "http", "https", "ws", "wss":
            guard let host = url.host, !host.isEmpty else {
                throw SendbirdError(.invalidParameter, "no host in the server address \"\(text)\"")
            }
            let secure = scheme == "https" || scheme == "wss"
            let hostPart = host.contains(":") ? "[\(host)]" : host
            let authority = hostPart + (url.port.map { ":\($0)" } ?? "")
            self.init(apiBase: (secure ? "https://" : "http://") + authority, webSocketBase: (secure ? "wss://" : "ws://") + authority)
        case "sendbird":
            guard let app = url.host, !app.isEmpty else {
                throw SendbirdError(.invalidParameter, "no application id in \"\(text)\" (expected sendbird://APP_ID)")
            }
            let lower = app.lowercased()
            self.init(apiBase: "https://api-\(lower).sendbird.com", webSocketBase: "wss://ws-\(lower).sendbird.com", impliedAppId: app.uppercased())
        default:
            throw SendbirdError(.invalidParameter, "unsupported scheme \"\(scheme)\" in the server address \"\(text)\" (use http, https or sendbird)")
        }
    }

    public var description: String { apiBase }
}

/// Where the access token comes from.
public enum TokenSource: Sendable, Equatable {
    case none
    case token(String)
    /// A shell command whose standard output is the token (`TERN_TOKEN_COMMAND`).
    case command(String)

    /// Runs the command if there is one; throws a clear error if it fails or prints nothing.
    public func resolve() throws -> String? {
        switch self {
        case .none: return nil
        case .token(let t): return t
        case .command(let cmd):
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/sh")
            p.arguments = ["-c", cmd]
            let out = Pipe()
            let err = Pipe()
            p.standardOutput = out
            p.standardError = err
            p.standardInput = FileHandle.nullDevice
            do { try p.run() } catch {
                throw SendbirdError(.invalidParameter, "TERN_TOKEN_COMMAND could not start: \(error)")
            }
            let data = out.fileHandleForReading.readDataToEndOfFile()
            let errData = err.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            guard p.terminationStatus == 0 else {
                let detail = String(decoding: errData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                throw SendbirdError(
                    .invalidParameter, "TERN_TOKEN_COMMAND exited with status \(p.terminationStatus)\(detail.isEmpty ? "" : ": \(detail)")")
            }
            let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !token.isEmpty else { throw SendbirdError(.invalidParameter, "TERN_TOKEN_COMMAND printed no token") }
            return token
        }
    }
}

/// Everything the engine needs to log in, and its timing knobs.
public struct ClientConfiguration: Sendable {
    public var server: ServerAddress
    public var appId: String
    public var userId: String
    public var token: TokenSource
    /// Timeout of every REST request, and of every command awaiting an acknowledgement (ms).
    public var requestTimeout: Millis = 10_000
    public var ackTimeout: Millis = 10_000
    public var typingThrottle: Millis = 1000
    public var typingExpiry: Millis = 10_000
    public var markAsReadInterval: Millis = 1000
    public var reconnectJitter: Double = 0.1
    /// Replaces the server's `reconnect` policy (tests; `nil` follows the server).
    public var reconnectPolicy: ReconnectPolicy?
    /// The engine sleeps until its earliest timer; ticks come at most this often / 10 (ms).
    public var tickInterval: Millis = 100
    /// Where the offline cache lives (one SQLite file per server and user); nil: no cache.
    public var cacheDirectory: String?
    /// Largest cache size in bytes (256 MB; the least recently opened channels' messages go first).
    public var cacheMaxBytes: Int64 = 256 * 1024 * 1024
    /// Time between two automatic resends after a reconnection (ms).
    public var resendSpacing: Millis = 200
    /// A PEM file of certificate authorities trusted for `https://` / `wss://` besides the system's
    /// (`TERN_CA_FILE` / `--ca-file`): for a server whose certificate a private CA signed, or a
    /// self-signed certificate. nil: the system's roots only. Certificates are always verified.
    public var caFile: String?
    /// A stable name of the server for the offline cache's file and owner (nil: its address). The
    /// embedded local server's is `embedded`: its cache survives the server moving to another port.
    public var cacheName: String?
    /// Asked before each reconnection attempt: where the server is now (nil: where it was). The
    /// embedded local server's record, re-read, so a client follows it when it had to move ports.
    public var locateServer: (@Sendable () -> ServerAddress?)?
    /// A first connection that fails for a reason that may pass (server down, wrong port, no network)
    /// keeps trying on the reconnection schedule instead of giving up: the interactive client waits
    /// for its server. Off: only an engine with an earlier session in its cache does (scripts fail fast).
    public var waitForServer = false

    public init(server: ServerAddress, appId: String = "LOCAL", userId: String, token: TokenSource = .none) {
        self.server = server
        self.appId = server.impliedAppId ?? appId
        self.userId = userId
        self.token = token
    }

    /// The TLS settings of every `https://` and `wss://` connection: the server's certificate chain
    /// and host name are verified against the system's roots plus the certificates in ``caFile``.
    /// Throws ``ErrorCode/invalidParameter`` when the CA file is missing or holds no PEM certificate.
    public func tlsConfiguration() throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .fullVerification
        if let caFile {
            tls.additionalTrustRoots = [.certificates(try Self.loadCertificates(caFile))]
        }
        return tls
    }

    /// The certificates of a PEM file, or a clear error.
    static func loadCertificates(_ path: String) throws -> [NIOSSLCertificate] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw SendbirdError(.invalidParameter, "CA file \(path): no such file")
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw SendbirdError(.invalidParameter, "CA file \(path): not readable")
        }
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            throw SendbirdError(.invalidParameter, "CA file \(path): not a PEM certificate file (\(error))")
        }
        guard !certificates.isEmpty else {
            throw SendbirdError(.invalidParameter, "CA file \(path): holds no PEM certificate")
        }
        return certificates
    }

    /// Reads `TERN_SERVER` (unless `server` is given), `TERN_USER_ID` (default `$USER`),
    /// `TERN_ACCESS_TOKEN` / `TERN_TOKEN_COMMAND`, `TERN_APP_ID` (default `LOCAL`) and `TERN_CA_FILE`
    /// (unless `caFile` is given; checked here, so a bad file fails before any connection).
    public static func fromEnvironment(
        _ env: [String: String], server: String? = nil, userId: String? = nil, caFile: String? = nil
    ) throws -> ClientConfiguration {
        guard let serverText = server ?? env["TERN_SERVER"].flatMap({ $0.isEmpty ? nil : $0 }) else {
            throw SendbirdError(.invalidParameter, "no server: set TERN_SERVER (e.g. http://127.0.0.1:8080) or pass --server")
        }
        let address = try ServerAddress(parsing: serverText)
        guard let user = userId ?? env["TERN_USER_ID"].flatMap({ $0.isEmpty ? nil : $0 }) ?? env["USER"].flatMap({ $0.isEmpty ? nil : $0 }) else {
            throw SendbirdError(.invalidParameter, "no user: set TERN_USER_ID (or USER)")
        }
        var token = TokenSource.none
        if let t = env["TERN_ACCESS_TOKEN"], !t.isEmpty {
            token = .token(t)
        } else if let c = env["TERN_TOKEN_COMMAND"], !c.isEmpty {
            token = .command(c)
        }
        let app = env["TERN_APP_ID"].flatMap { $0.isEmpty ? nil : $0 } ?? "LOCAL"
        var config = ClientConfiguration(server: address, appId: app, userId: user, token: token)
        config.caFile = caFile ?? env["TERN_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        if config.caFile != nil { _ = try config.tlsConfiguration() }
        return config
    }
}
