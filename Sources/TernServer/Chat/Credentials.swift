import Crypto
import Foundation

/// Secrets: generation, hashing for storage, constant-time comparison.
public enum Credentials {
    /// A random secret of `bytes` bytes as lower-case hex.
    public static func randomToken(bytes: Int = 20) -> String {
        var rng = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &rng)) }.joined()
    }

    /// SHA-256 of the secret as hex: what the store keeps instead of the secret.
    public static func hash(_ secret: String) -> String {
        SHA256.hash(data: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Compares two secrets without leaking, through timing, where they first differ.
    public static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(hash(a).utf8)
        let y = Array(hash(b).utf8)
        var diff: UInt8 = 0
        for i in 0..<x.count { diff |= x[i] ^ y[i] }
        return diff == 0
    }
}
