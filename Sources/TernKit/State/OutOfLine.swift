/// An optional part of a value kept out of line: one pointer in the value that holds it, the part itself
/// in a shared box.
///
/// ``Message`` and ``GroupChannel`` are moved and copied on every incoming line (arrays of them shift
/// when a channel goes to the top of the list, events carry them through streams, the app's state holds
/// them). Parts that most values lack — a reply's parent, a link preview, a send error, a thread, a
/// channel's last message — made them 512 and 792 bytes, all copied byte for byte each time. Kept out of
/// line, an absent part costs 8 bytes and a present one a retain.
///
/// The box is immutable: setting the part puts a new box in (parts are set rarely, read often), so
/// copies of a value never see each other's changes. Codable as the optional it wraps: a missing key
/// or `null` reads as `nil`, and `nil` is not written (as a plain optional property).
@propertyWrapper
public struct OutOfLine<Wrapped: Sendable>: Sendable {
    final class Box: Sendable {
        let value: Wrapped
        init(_ value: Wrapped) { self.value = value }
    }

    var box: Box?

    public init(wrappedValue: Wrapped?) {
        box = wrappedValue.map(Box.init)
    }

    public var wrappedValue: Wrapped? {
        get { box?.value }
        set { box = newValue.map(Box.init) }
    }
}

extension OutOfLine: Equatable where Wrapped: Equatable {
    public static func == (a: Self, b: Self) -> Bool {
        switch (a.box, b.box) {
        case (nil, nil): true
        case (let x?, let y?): x === y || x.value == y.value
        default: false
        }
    }
}

extension OutOfLine: Codable where Wrapped: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        self.init(wrappedValue: c.decodeNil() ? nil : try c.decode(Wrapped.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        if let value = wrappedValue { try c.encode(value) } else { try c.encodeNil() }
    }
}

// A synthesized `Codable` reads and writes a wrapped property with `decode(_:forKey:)` and
// `encode(_:forKey:)`; these make it behave as the optional it is (absent key, no key written).
extension KeyedDecodingContainer {
    func decode<T: Codable & Sendable>(_: OutOfLine<T>.Type, forKey key: Key) throws -> OutOfLine<T> {
        OutOfLine(wrappedValue: try decodeIfPresent(T.self, forKey: key))
    }
}

extension KeyedEncodingContainer {
    mutating func encode<T: Codable & Sendable>(_ value: OutOfLine<T>, forKey key: Key) throws {
        try encodeIfPresent(value.wrappedValue, forKey: key)
    }
}
