package import Foundation

/// A wire type that can also be read straight from a frame's bytes by ``JSONReader``, for the frames
/// that arrive once per message. The reader gives exactly what `Decodable` gives, or gives up
/// (``JSONReader/Unrecognised``) and leaves the frame to `JSONDecoder`.
package protocol ByteDecodable: Decodable {
    /// Reads one value at the reader's position; throws ``JSONReader/Unrecognised`` for anything
    /// it is not sure of.
    init(reading reader: inout JSONReader) throws(JSONReader.Unrecognised)
}

extension ByteDecodable {
    /// The value read by ``JSONReader`` from a whole payload (one JSON object and nothing else), or
    /// nil when it gave up.
    package static func scan(_ payload: Data) -> Self? {
        payload.withUnsafeBytes { raw -> Self? in
            var reader = JSONReader(raw.bindMemory(to: UInt8.self))
            do throws(JSONReader.Unrecognised) {
                guard reader.atObject() else { return nil }
                let value = try Self(reading: &reader)
                try reader.finish()
                return value
            } catch {
                return nil
            }
        }
    }
}

extension Frame {
    /// Decodes the payload as `T`: with ``JSONReader`` when it can, else with `JSONDecoder`, which
    /// then decides (and throws for what it cannot read).
    package func decode<T: ByteDecodable>(_ type: T.Type = T.self) throws -> T {
        if let value = T.scan(payload) { return value }
        return try decodeWithFoundation(T.self)
    }

    /// Decodes the payload with `JSONDecoder` only, as every frame was read before ``JSONReader``.
    package func decodeWithFoundation<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try WireCoding.decoder.decode(T.self, from: payload.isEmpty ? Data("{}".utf8) : payload)
    }
}
