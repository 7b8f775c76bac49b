import Foundation
import TernTestSupport
import Testing

/// `tern send` and `tern tail` as processes against a `ternd` process serving https/wss with a
/// certificate from a throwaway CA: `--ca-file` and `TERN_CA_FILE` make it trusted.
@Suite("tern send / tern tail over TLS", .serialized)
struct TLSScriptingEndToEndTests {
    @Test func caFileOptionAndVariableTrustAPrivateCA() async throws {
        let dir = makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (caFile, cert, key) = try Self.makeCertificates(in: dir)
        let server = try await TerndChild.start(
            dataDirectory: dir + "/data", apiToken: "e2e-\(UUID().uuidString)", extra: ["--tls-cert", cert, "--tls-key", key])
        let env = ["TERN_SERVER": "https://127.0.0.1:\(server.port)"]
        let tail = try Child(
            try builtBinary("tern"), ["tail", "--json"], environment: env.merging(["TERN_USER_ID": "bob", "TERN_CA_FILE": caFile]) { $1 })
        defer {
            tail.signal(SIGKILL)
            server.child.signal(SIGKILL)
        }
        _ = try await tail.waitLine("bob connected over wss") { $0["type"] as? String == "connected" && $0["user_id"] as? String == "bob" }

        // --ca-file: the message goes (https for the channel, wss for the message) and tail prints it.
        let sent = try await tern(["send", "--ca-file", caFile, "--to", "bob", "over", "tls"], env: env.merging(["TERN_USER_ID": "alice"]) { $1 })
        #expect(sent.status == 0, "tern send --ca-file: \(sent.stderr)")
        let id = Int(sent.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        let message = try await tail.waitLine("alice's message") { $0["type"] as? String == "message" && $0["message_id"] as? Int == id }
        #expect(message["message"] as? String == "over tls")

        // Without the CA the certificate is not trusted; a CA file that is not there is a usage error.
        let untrusted = try await tern(["send", "--to", "bob", "x"], env: env.merging(["TERN_USER_ID": "alice"]) { $1 })
        #expect(
            untrusted.status == 1 && untrusted.stderr.contains("tern: error 800210:") && untrusted.stderr.contains("not trusted"),
            "\(untrusted.stderr)")
        let missing = try await tern(
            ["send", "--to", "bob", "x"], env: env.merging(["TERN_USER_ID": "alice", "TERN_CA_FILE": dir + "/none.pem"]) { $1 })
        #expect(missing.status == 1 && missing.stderr.contains("tern: error 800110:") && missing.stderr.contains("none.pem"), "\(missing.stderr)")
        #expect(untrusted.stdout.isEmpty && missing.stdout.isEmpty, "nothing on standard output when it fails")

        tail.signal(SIGINT)
        #expect(await tail.finish(timeout: 15) == 0)
        await server.stop()
    }

    /// A CA and a server certificate it signed for 127.0.0.1 and localhost (the `openssl` command line).
    static func makeCertificates(in dir: String) throws -> (ca: String, cert: String, key: String) {
        let script = """
            set -e
            cd "$1"
            printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\nbasicConstraints=CA:FALSE\\n' > san.ext
            openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj '/CN=Tern E2E CA' \
                -addext 'basicConstraints=critical,CA:TRUE' -addext 'keyUsage=critical,keyCertSign,cRLSign'
            openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj '/CN=localhost'
            openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile san.ext
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", script, "sh", dir]
        let err = Pipe()
        p.standardOutput = FileHandle.nullDevice
        p.standardError = err
        try p.run()
        let detail = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw TestFailure("openssl failed (\(p.terminationStatus)): \(detail)") }
        return (dir + "/ca.pem", dir + "/server.pem", dir + "/server.key")
    }
}
