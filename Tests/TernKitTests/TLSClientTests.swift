import Foundation
import TernProtocol
import TernServer
import TernTestSupport
import Testing

@testable import TernKit

/// The engine against a real in-process `ternd` serving `https://` and `wss://` with a certificate
/// from a throwaway CA (made by the `openssl` command line): trusted with the CA file, refused
/// without it.
@Suite("TLS: https and wss with a CA file")
struct TLSClientTests {
    @Test func connectsSendsReceivesAndMovesFilesOverTLSWithTheCAFile() async throws {
        let ca = try ThrowawayCA.make()
        defer { ca.remove() }
        try await withLocalServer(ca.serve) { server in
            let alice = Self.client(server, "alice", caFile: ca.caCertificate)
            let bob = Self.client(server, "bob", caFile: ca.caCertificate)
            #expect(await alice.configuration.server.webSocketBase.hasPrefix("wss://"))
            let aliceLog = EventLog(alice)
            let bobLog = EventLog(bob)
            try await alice.connect()
            try await bob.connect()

            // REST (https) creates the channel; the message goes and comes back over wss.
            let channel = try await alice.directChannel(with: "bob")
            let stored = try await alice.sendMessageAndWait("hello over TLS", to: channel.url)
            #expect(stored.status == .succeeded && stored.messageId > 0)
            let got = try await bobLog.wait("messageReceived") { e -> Message? in
                if case .messageReceived(let m) = e, m.messageId == stored.messageId { return m }
                return nil
            }
            #expect(got.text == "hello over TLS" && got.sender?.userId == "alice")
            let history = try await bob.previousMessages(in: channel.url, limit: 10)
            #expect(history.messages.map(\.text) == ["hello over TLS"])

            // A file goes up over https (with progress) and comes down again.
            let dir = makeTempDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let path = dir + "/report.txt"
            let (content, _, progress, sent) = try await sendTextFile(
                String(repeating: "secure ", count: 30_000), at: path, from: alice, log: aliceLog, to: channel.url)
            #expect(sent.status == .succeeded && sent.files.count == 1, "\(String(describing: sent.error))")
            #expect(progress.last?.0 == progress.last?.1 && (progress.last?.1 ?? 0) >= Int64(content.count))
            // The engine downloads from the URL the server names. ternd builds it from the request's
            // authority and, for now, says http:// even when it serves TLS; the download is over https
            // whichever it says.
            var secured = sent
            secured.files[0].url = secured.files[0].url.replacingOccurrences(of: "http://127.0.0.1:", with: "https://127.0.0.1:")
            #expect(secured.files[0].url.hasPrefix("https://127.0.0.1:\(server.port)/"), "\(secured.files[0].url)")
            let downloads = makeTempDirectory()
            defer { try? FileManager.default.removeItem(atPath: downloads) }
            let saved = try await bob.download(secured, to: downloads)
            #expect(saved.count == 1 && FileManager.default.contents(atPath: saved[0]) == content)

            await alice.shutdown()
            await bob.shutdown()
        }
    }

    @Test func withoutTheCAFileTheCertificateIsNotTrusted() async throws {
        let ca = try ThrowawayCA.make()
        let otherCA = try ThrowawayCA.make()
        defer {
            ca.remove()
            otherCA.remove()
        }
        try await withLocalServer(ca.serve) { server in
            // The system's roots only, then another CA: the WebSocket is refused at the handshake…
            for caFile in [nil, otherCA.caCertificate] {
                let eve = Self.client(server, "eve", caFile: caFile)
                let error = await #expect(throws: SendbirdError.self) { try await eve.connect() }
                #expect(error?.code == .webSocketConnectionFailed)
                #expect(error?.message.contains("not trusted") == true, "\(String(describing: error))")
                #expect(await eve.currentUser == nil)
                // …and so is REST.
                let restError = await #expect(throws: SendbirdError.self) {
                    try await eve.rest.requestData("GET", "/v3/users/eve", body: nil, sessionKey: nil)
                }
                #expect(restError?.code == .networkError)
                #expect(restError?.message.contains("not trusted") == true, "\(String(describing: restError))")
                await eve.shutdown()
            }
            // The server is fine: with the CA file the same user gets in.
            let eve = Self.client(server, "eve", caFile: ca.caCertificate)
            let user = try await eve.connect()
            #expect(user.userId == "eve")
            await eve.shutdown()
        }
    }

    @Test func aCertificateForAnotherNameIsRefusedEvenFromTheTrustedCA() async throws {
        // Signed by the trusted CA, but for localhost only: 127.0.0.1 is not one of its names.
        let ca = try ThrowawayCA.make(subjectAltName: "DNS:localhost")
        defer { ca.remove() }
        try await withLocalServer(ca.serve) { server in
            let eve = Self.client(server, "eve", caFile: ca.caCertificate)
            let error = await #expect(throws: SendbirdError.self) { try await eve.connect() }
            #expect(error?.code == .webSocketConnectionFailed)
            #expect(error?.message.contains("not valid for this host name") == true, "\(String(describing: error))")
            let restError = await #expect(throws: SendbirdError.self) {
                try await eve.rest.requestData("GET", "/v3/users/eve", body: nil, sessionKey: nil)
            }
            #expect(restError?.message.contains("not valid for this host name") == true, "\(String(describing: restError))")
            await eve.shutdown()
            // By the name it was made for, the same server is trusted.
            var c = ClientConfiguration(server: try ServerAddress(parsing: "https://localhost:\(server.port)"), userId: "eve")
            c.caFile = ca.caCertificate
            let named = ChatClient(configuration: c)
            let user = try await named.connect()
            #expect(user.userId == "eve")
            await named.shutdown()
        }
    }

    @Test func theHTTPClientIsShutDownWhenTheEngineGoesAway() async throws {
        let ca = try ThrowawayCA.make()
        defer { ca.remove() }
        try await withLocalServer(ca.serve) { server in
            weak var http: AnyObject?
            do {
                let alice = Self.client(server, "alice", caFile: ca.caCertificate)
                try await alice.connect()
                _ = try await alice.totalUnreadMessageCount()  // a pooled https connection is open
                http = alice.rest.http
                await alice.shutdown()
            }
            // The engine and its RESTClient are gone; the HTTP client closes its connections and is
            // released (were it never shut down, its deinit would stop a debug build).
            try await eventually("the HTTP client released") { http == nil }
        }
    }

    @Test func aMissingOrBadCAFileIsAClearError() async throws {
        let dir = makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let notPEM = dir + "/not.pem"
        _ = FileManager.default.createFile(atPath: notPEM, contents: Data("just text\n".utf8))
        let env = ["TERN_SERVER": "https://127.0.0.1:1", "TERN_USER_ID": "x"]
        for path in [dir + "/missing.pem", notPEM, dir] {
            let error = #expect(throws: SendbirdError.self) { try ClientConfiguration.fromEnvironment(env.merging(["TERN_CA_FILE": path]) { $1 }) }
            #expect(error?.code == .invalidParameter && error?.message.contains(path) == true, "\(String(describing: error))")
            // The option is checked the same way.
            #expect(throws: SendbirdError.self) { try ClientConfiguration.fromEnvironment(env, caFile: path) }
            // An engine given one fails its connection with the same error, before any network.
            var config = ClientConfiguration(server: try ServerAddress(parsing: "https://127.0.0.1:1"), userId: "x")
            config.caFile = path
            let client = ChatClient(configuration: config)
            let connectError = await #expect(throws: SendbirdError.self) { try await client.connect() }
            #expect(connectError?.code == .invalidParameter)
            await client.shutdown()
        }
        #expect(try ClientConfiguration.fromEnvironment(env).caFile == nil)
        let ca = try ThrowawayCA.make()
        defer { ca.remove() }
        #expect(try ClientConfiguration.fromEnvironment(env.merging(["TERN_CA_FILE": ca.caCertificate]) { $1 }).caFile == ca.caCertificate)
        #expect(
            try ClientConfiguration.fromEnvironment(env.merging(["TERN_CA_FILE": notPEM]) { $1 }, caFile: ca.caCertificate).caFile == ca.caCertificate
        )
    }

    /// A client of `server` over https/wss, trusting `caFile` (nil: the system's roots only).
    static func client(_ server: LocalServer, _ user: String, caFile: String?) -> ChatClient {
        var c = ClientConfiguration(
            server: ServerAddress(apiBase: "https://127.0.0.1:\(server.port)", webSocketBase: "wss://127.0.0.1:\(server.port)"), userId: user)
        c.caFile = caFile
        c.reconnectPolicy = ReconnectPolicy(interval: 0.2, maxInterval: 1, mul: 2, retryCnt: -1)
        c.tickInterval = 20
        return ChatClient(configuration: c)
    }
}

/// The throwaway CA of the test support (``TestCertificates``), with how a server serves it.
typealias ThrowawayCA = TestCertificates

extension TestCertificates {
    /// Sets a server configuration to serve https/wss with this CA's server certificate.
    var serve: @Sendable (inout ServerConfiguration) -> Void {
        let (cert, key) = (serverCertificate, serverKey)
        return { config in
            config.tlsCertificatePath = cert
            config.tlsKeyPath = key
        }
    }
}
