import Foundation
public import Hummingbird
import NIOFoundationEssentialsCompat
import TernProtocol

/// Reads JSON request bodies into `Decodable` structs with Sendbird's errors, as ``JSONBody``
/// reads them field by field: an empty body is `{}`, a body that is not JSON or not an object is
/// 400403, more than 1 MB is refused; the fields' own rules are the ``KeyedDecodingContainer``
/// readers below. Set as ``RESTRequestContext``'s `requestDecoder`, so a handler writes
/// `try await req.decode(as: Body.self, context: ctx)`.
public struct SendbirdRequestDecoder: RequestDecoder {
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        var data = Data(buffer: try await request.body.collect(upTo: 1 << 20))
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

/// A body's fields, read leniently in shape but strictly in type (``JSONBody``'s rules): absent
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

/// `PUT …/{group_channels|open_channels}/{url}/freeze`: `{"freeze": true|false}`, required.
struct FreezeBody: Decodable {
    let freeze: Bool
    enum CodingKeys: String, CodingKey { case freeze }

    init(from decoder: any Decoder) throws {
        guard let freeze = try decoder.container(keyedBy: CodingKeys.self).bool(.freeze) else { throw SendbirdError.missing("freeze") }
        self.freeze = freeze
    }
}
