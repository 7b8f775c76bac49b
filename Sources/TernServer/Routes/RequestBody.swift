import Foundation
public import Hummingbird
import NIOFoundationEssentialsCompat
import TernProtocol

/// Reads JSON request bodies into `Decodable` structs with Sendbird's errors: an empty body is `{}`, a body that is not JSON or not an object is
/// 400403, more than 1 MB is refused; the fields' own rules are the ``KeyedDecodingContainer``
/// readers below. Set as ``RESTRequestContext``'s `requestDecoder`, so a handler writes
/// `try await req.decode(as: Body.self, context: ctx)`.
public struct SendbirdRequestDecoder: RequestDecoder {
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        try Self.decode(T.self, from: Data(buffer: try await request.body.collect(upTo: 1 << 20)))
    }

    /// Decodes a body already read (an empty one is `{}`) with Sendbird's errors.
    static func decode<T: Decodable>(_ type: T.Type, from body: Data) throws -> T {
        var data = body
        if data.allSatisfy({ $0 == 32 || $0 == 10 || $0 == 13 || $0 == 9 }) { data = Data("{}".utf8) }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let e as SendbirdError {
            throw e
        } catch DecodingError.typeMismatch(_, let failure) where failure.codingPath.isEmpty {
            throw SendbirdError(.invalidJSON, "The request body must be a JSON object.")
        } catch {
            throw SendbirdError(.invalidJSON, "Invalid JSON request body.")
        }
    }
}

/// A body's fields, read leniently in shape but strictly in type: absent
/// and `null` are "not given", a value of the wrong type is 400100, an identifier field
/// (``Identifier/keys``) must have one spelling.
extension KeyedDecodingContainer {
    private func given(_ key: Key) -> Bool { contains(key) && !((try? decodeNil(forKey: key)) ?? true) }

    /// A string.
    func string(_ key: Key) throws -> String? {
        guard given(key) else { return nil }
        guard let s = try? decode(String.self, forKey: key) else { throw SendbirdErrorFactory.wrongType(key.stringValue, "string") }
        if Identifier.keys.contains(key.stringValue) { try Identifier.check(s, field: key.stringValue) }
        return s
    }

    /// A boolean, or the string `true`/`false` in any case.
    func bool(_ key: Key) throws -> Bool? {
        guard given(key) else { return nil }
        if let b = try? decode(Bool.self, forKey: key) { return b }
        switch (try? decode(String.self, forKey: key))?.lowercased() {
        case "true": return true
        case "false": return false
        default: throw SendbirdErrorFactory.wrongType(key.stringValue, "boolean")
        }
    }

    /// A string that must be given (400104 when absent or `null`).
    func requiredString(_ key: Key) throws -> String {
        guard let s = try string(key) else { throw SendbirdError.missing(key.stringValue) }
        return s
    }

    /// A whole number (a JSON number without a fraction, or a string of digits); not a boolean.
    func int(_ key: Key) throws -> Int64? {
        guard given(key) else { return nil }
        if (try? decode(Bool.self, forKey: key)) != nil { throw SendbirdErrorFactory.wrongType(key.stringValue, "integer") }
        if let i = try? decode(Int64.self, forKey: key) { return i }
        if let d = try? decode(Double.self, forKey: key), d == d.rounded(), abs(d) < 9e18 { return Int64(d) }
        if let s = try? decode(String.self, forKey: key), let i = Int64(s) { return i }
        throw SendbirdErrorFactory.wrongType(key.stringValue, "integer")
    }

    /// An object of string values (metadata); each key is an identifier (one spelling).
    func stringMap(_ key: Key) throws -> [String: String]? {
        guard given(key) else { return nil }
        guard let m = try? nestedContainer(keyedBy: AnyKey.self, forKey: key) else { throw SendbirdErrorFactory.wrongType(key.stringValue, "object") }
        var out: [String: String] = [:]
        for k in m.allKeys {
            try Identifier.check(k.stringValue, field: "\(key.stringValue) key")
            guard let s = try? m.decode(String.self, forKey: k) else {
                throw SendbirdErrorFactory.wrongType("\(key.stringValue).\(k.stringValue)", "string")
            }
            out[k.stringValue] = s
        }
        return out
    }

    /// An object of whole-number values (counters); each key is an identifier (one spelling).
    func intMap(_ key: Key) throws -> [String: Int64]? {
        guard given(key) else { return nil }
        guard let m = try? nestedContainer(keyedBy: AnyKey.self, forKey: key) else { throw SendbirdErrorFactory.wrongType(key.stringValue, "object") }
        var out: [String: Int64] = [:]
        for k in m.allKeys {
            try Identifier.check(k.stringValue, field: "\(key.stringValue) key")
            guard (try? m.decode(Bool.self, forKey: k)) == nil, let n = try? m.decode(Double.self, forKey: k), n == n.rounded(), abs(n) < 9e18
            else { throw SendbirdErrorFactory.wrongType("\(key.stringValue).\(k.stringValue)", "integer") }
            out[k.stringValue] = Int64(n)
        }
        return out
    }

    /// A nested `Decodable` value (an object or a list of them), or nil when absent or `null`;
    /// a value of another shape is 400100 naming the field.
    func nested<T: Decodable>(_ type: T.Type, _ key: Key, as what: String = "object") throws -> T? {
        guard given(key) else { return nil }
        do {
            return try decode(T.self, forKey: key)
        } catch let e as SendbirdError {
            throw e
        } catch {
            throw SendbirdErrorFactory.wrongType(key.stringValue, what)
        }
    }

    /// A list of strings, or one string of comma-separated items.
    func stringArray(_ key: Key) throws -> [String]? {
        guard given(key) else { return nil }
        let list: [String]
        if let a = try? decode([String].self, forKey: key) {
            list = a
        } else if let s = try? decode(String.self, forKey: key) {
            list = s.split(separator: ",").map(String.init)
        } else {
            throw SendbirdErrorFactory.wrongType(key.stringValue, "list of strings")
        }
        if Identifier.keys.contains(key.stringValue) { try Identifier.check(list, field: key.stringValue) }
        return list
    }
}

/// A coding key for any name: the keys of a metadata object, or a body read by the names a
/// caller chooses.
struct AnyKey: CodingKey {
    let stringValue: String
    init(stringValue: String) { self.stringValue = stringValue }
    init(_ name: String) { stringValue = name }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
}

/// The user ids a membership body names: `user_ids` (a list, or comma-separated), and for the
/// Python SDK `users`, a list of ids or of objects with `user_id`.
struct UserIdsBody: Decodable {
    var ids: [String] = []
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        ids = try c.stringArray(AnyKey("user_ids")) ?? []
        if let users = try? c.nestedUnkeyedContainer(forKey: AnyKey("users")) {
            var list = users
            while !list.isAtEnd {
                if let s = try? list.decode(String.self) {
                    ids.append(s)
                } else if let o = try? list.nestedContainer(keyedBy: AnyKey.self), let id = try? o.decode(String.self, forKey: AnyKey("user_id")) {
                    ids.append(id)
                } else {
                    let at = list.currentIndex
                    _ = try? list.decode(IgnoredValue.self)
                    if list.currentIndex == at { break }
                }
            }
        }
        try Identifier.check(ids, field: "user_ids")
    }
}

/// Any JSON value, skipped.
struct IgnoredValue: Decodable {
    init(from decoder: any Decoder) throws {}
}

/// `PUT …/{group_channels|open_channels}/{url}/freeze`: `{"freeze": true|false}`, required.
struct FreezeBody: Decodable {
    let freeze: Bool
    enum CodingKeys: String, CodingKey { case freeze }

    init(from decoder: any Decoder) throws {
        guard let freeze = try decoder.container(keyedBy: CodingKeys.self).bool(.freeze) else { throw SendbirdError.missing("freeze") }
        self.freeze = freeze
    }
}

extension KeyedDecodingContainer {
    /// A message's `sorted_metaarray` (``MetaArrayList``), or nil when absent or `null`; not a
    /// list is 400100.
    func metaArray(_ key: Key) throws -> [MetaArrayItem]? { try nested(MetaArrayList.self, key, as: "array")?.items }
}

/// Lists of objects (emojis, categories, ban lists) and exact values (filter settings), read as
/// the handlers read them by hand.
extension KeyedDecodingContainer {
    /// A list of objects decoded as `T`, or nil when the key is absent. `null`, a value that is not
    /// a list, or a list with an item that is not an object is 400100 naming the field ("list of
    /// objects"), found before any item is read; the items' own errors are theirs.
    func objectList<T: Decodable>(_ type: T.Type, _ key: Key) throws -> [T]? {
        guard contains(key) else { return nil }
        guard (try? decode([ObjectShape].self, forKey: key)) != nil else { throw SendbirdErrorFactory.wrongType(key.stringValue, "list of objects") }
        return try decode([T].self, forKey: key)
    }

    /// A value decoded exactly as `T` (a `null`, or a string for a number, is of the wrong type),
    /// or nil when the key is absent; any value `T` does not decode from is `failure`.
    func exactly<T: Decodable>(_ type: T.Type, _ key: Key, else failure: SendbirdError) throws -> T? {
        guard contains(key) else { return nil }
        do {
            return try decode(T.self, forKey: key)
        } catch {
            throw failure
        }
    }
}

/// Any JSON object, skipped: decoding it fails for every other value.
private struct ObjectShape: Decodable {
    init(from decoder: any Decoder) throws { _ = try decoder.container(keyedBy: AnyKey.self) }
}

/// Any JSON value as `JSONSerialization` reads it: `NSNull`, `Bool`, `Int64` (or `Double` when
/// it has a fraction or is too large), `String`, `[Any]`, `[String: Any]`. For what a body hands
/// on unread (a list stored as given) and for fields read leniently by their shape.
struct AnyJSON: Decodable {
    let value: Any

    init(from decoder: any Decoder) throws {
        if var list = try? decoder.unkeyedContainer() {
            var out: [Any] = []
            while !list.isAtEnd { out.append(try list.decode(AnyJSON.self).value) }
            value = out
        } else if let object = try? decoder.container(keyedBy: AnyKey.self) {
            var out: [String: Any] = [:]
            for k in object.allKeys { out[k.stringValue] = try object.decode(AnyJSON.self, forKey: k).value }
            value = out
        } else {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() {
                value = NSNull()
            } else if let b = try? c.decode(Bool.self) {
                value = b
            } else if let i = try? c.decode(Int64.self) {
                value = i
            } else if let d = try? c.decode(Double.self) {
                value = d
            } else {
                value = try c.decode(String.self)
            }
        }
    }
}

extension KeyedDecodingContainer {
    /// A field's JSON value as it is (``AnyJSON``), or nil when absent or `null`: for a value read
    /// by its shape (`as? [[String: Any]]`) or kept as given.
    func raw(_ key: Key) -> Any? {
        guard contains(key), !((try? decodeNil(forKey: key)) ?? true) else { return nil }
        return (try? decode(AnyJSON.self, forKey: key))?.value
    }
}

/// Builders for the validation errors every route shares.
enum SendbirdErrorFactory {
    static func wrongType(_ key: String, _ type: String) -> SendbirdError {
        SendbirdError(.invalidValueType, "Invalid value type: \"\(key)\" must be a \(type).")
    }
    static func outOfRange(_ key: String, _ range: ClosedRange<Int>) -> SendbirdError {
        SendbirdError(.invalidValue, "Invalid value: \"\(key)\" must be between \(range.lowerBound) and \(range.upperBound).")
    }
}

/// A body kept as given: a settings document stored and answered unchanged (its keys are the
/// caller's). Not an object: 400403.
struct DocumentBody: Decodable {
    let object: [String: Any]
    init(from decoder: any Decoder) throws {
        guard let object = try AnyJSON(from: decoder).value as? [String: Any] else {
            throw SendbirdError(.invalidJSON, "The request body must be a JSON object.")
        }
        self.object = object
    }
}
