import Foundation

/// A throwaway certificate authority and a server certificate it signed (for 127.0.0.1 and
/// localhost), made with the `openssl` command line in a temporary directory: TLS tests need a
/// certificate no machine trusts by default.
public struct TestCertificates: Sendable {
    public let directory: String
    public var caCertificate: String { directory + "/ca.pem" }
    public var serverCertificate: String { directory + "/server.pem" }
    public var serverKey: String { directory + "/server.key" }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Makes the CA and a server certificate it signed for `subjectAltName`. Throws when `openssl`
    /// is missing or fails (with what it said).
    public static func make(subjectAltName: String = "IP:127.0.0.1,DNS:localhost") throws -> TestCertificates {
        let dir = NSTemporaryDirectory() + "tern-tls-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let ext = dir + "/san.ext"
        try "subjectAltName=\(subjectAltName)\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(toFile: ext, atomically: true, encoding: .utf8)
        let steps: [[String]] = [
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", dir + "/ca.key", "-out", dir + "/ca.pem", "-days", "2",
                "-subj", "/CN=Tern Test CA", "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ],
            ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", dir + "/server.key", "-out", dir + "/server.csr", "-subj", "/CN=localhost"],
            [
                "x509", "-req", "-in", dir + "/server.csr", "-CA", dir + "/ca.pem", "-CAkey", dir + "/ca.key", "-CAcreateserial",
                "-out", dir + "/server.pem", "-days", "2", "-extfile", ext,
            ],
        ]
        for args in steps {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = ["openssl"] + args
            let err = Foundation.Pipe()
            p.standardOutput = FileHandle.nullDevice
            p.standardError = err
            try p.run()
            let detail = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            guard p.terminationStatus == 0 else {
                throw Failure(description: "openssl \(args[0]) failed (\(p.terminationStatus)): \(detail)")
            }
        }
        return TestCertificates(directory: dir)
    }

    public func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
