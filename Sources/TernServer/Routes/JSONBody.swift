import Foundation
import TernProtocol

/// Builders for the validation errors every route shares.
enum SendbirdErrorFactory {
    static func wrongType(_ key: String, _ type: String) -> SendbirdError {
        SendbirdError(.invalidValueType, "Invalid value type: \"\(key)\" must be a \(type).")
    }
    static func outOfRange(_ key: String, _ range: ClosedRange<Int>) -> SendbirdError {
        SendbirdError(.invalidValue, "Invalid value: \"\(key)\" must be between \(range.lowerBound) and \(range.upperBound).")
    }
}

/// A JSON request body read leniently in shape but strictly in type: absent keys and `null` read
/// as "not given", a value of the wrong type is 400100, a body that is not a JSON object 400403.
struct JSONBody {
    let object: [String: Any]

    /// An object nested in a body (a list item), read with the same rules.
    init(object: [String: Any]) { self.object = object }

    init(_ data: Data) throws {
        let trimmed = data.drop { $0 == 32 || $0 == 10 || $0 == 13 || $0 == 9 }
        if trimmed.isEmpty {
            object = [:]
            return
        }
        guard let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            throw SendbirdError(.invalidJSON, "Invalid JSON request body.")
        }
        guard let obj = value as? [String: Any] else {
            throw SendbirdError(.invalidJSON, "The request body must be a JSON object.")
        }
        object = obj
    }

    /// JSONSerialization hands booleans back as a boolean NSNumber subclass; tell them from numbers.
    static func isBool(_ v: Any) -> Bool { String(describing: type(of: v)).contains("Boolean") }

    func has(_ key: String) -> Bool { object[key] != nil && !(object[key] is NSNull) }

    func string(_ key: String) throws -> String? {
        guard let v = object[key], !(v is NSNull) else { return nil }
        if let s = v as? String {
            if Identifier.keys.contains(key) { try Identifier.check(s, field: key) }
            return s
        }
        throw SendbirdErrorFactory.wrongType(key, "string")
    }

    func requiredString(_ key: String) throws -> String {
        guard let s = try string(key) else { throw SendbirdError.missing(key) }
        return s
    }

    func bool(_ key: String) throws -> Bool? {
        guard let v = object[key], !(v is NSNull) else { return nil }
        if Self.isBool(v), let n = v as? NSNumber { return n.boolValue }
        if let s = v as? String {
            switch s.lowercased() {
            case "true": return true
            case "false": return false
            default: break
            }
        }
        throw SendbirdErrorFactory.wrongType(key, "boolean")
    }

    func int(_ key: String) throws -> Int64? {
        guard let v = object[key], !(v is NSNull) else { return nil }
        if !Self.isBool(v), let n = v as? NSNumber {
            let d = n.doubleValue
            if d == d.rounded() && abs(d) < 9e18 { return n.int64Value }
        }
        if let s = v as? String, let i = Int64(s) { return i }
        throw SendbirdErrorFactory.wrongType(key, "integer")
    }

    func stringArray(_ key: String) throws -> [String]? {
        guard let v = object[key], !(v is NSNull) else { return nil }
        var list: [String]
        if let a = v as? [Any] {
            list = try a.map { e in
                if let s = e as? String { return s }
                throw SendbirdErrorFactory.wrongType(key, "list of strings")
            }
        } else if let s = v as? String {
            list = s.split(separator: ",").map(String.init)
        } else {
            throw SendbirdErrorFactory.wrongType(key, "list of strings")
        }
        if Identifier.keys.contains(key) { try Identifier.check(list, field: key) }
        return list
    }

    func stringMap(_ key: String) throws -> [String: String]? {
        guard let v = object[key], !(v is NSNull) else { return nil }
        guard let m = v as? [String: Any] else { throw SendbirdErrorFactory.wrongType(key, "object") }
        var out: [String: String] = [:]
        for (k, e) in m {
            // Metadata keys are keys: one spelling each (see ``Identifier``).
            try Identifier.check(k, field: "\(key) key")
            if let s = e as? String { out[k] = s } else { throw SendbirdErrorFactory.wrongType("\(key).\(k)", "string") }
        }
        return out
    }

    func intMap(_ key: String) throws -> [String: Int64]? {
        guard let v = object[key], !(v is NSNull) else { return nil }
        guard let m = v as? [String: Any] else { throw SendbirdErrorFactory.wrongType(key, "object") }
        var out: [String: Int64] = [:]
        for (k, e) in m {
            try Identifier.check(k, field: "\(key) key")
            guard !Self.isBool(e), let n = e as? NSNumber, n.doubleValue == n.doubleValue.rounded(), abs(n.doubleValue) < 9e18 else {
                throw SendbirdErrorFactory.wrongType("\(key).\(k)", "integer")
            }
            out[k] = n.int64Value
        }
        return out
    }

    /// User ids from `user_ids` and (for the Python SDK) `users`, which may be objects with `user_id`.
    func userIds() throws -> [String] {
        var ids = try stringArray("user_ids") ?? []
        if let users = object["users"] as? [Any] {
            for u in users {
                if let s = u as? String { ids.append(s) } else if let o = u as? [String: Any], let id = o["user_id"] as? String { ids.append(id) }
            }
        }
        try Identifier.check(ids, field: "user_ids")
        return ids
    }
}

/// The properties an update of either channel type may change (`PUT /v3/group_channels/{url}`
/// and `PUT /v3/open_channels/{url}` read the same fields).
struct ChannelChangesBody: Decodable {
    var changes = ChatService.ChannelChanges()
    enum CodingKeys: String, CodingKey {
        case name
        case coverUrl = "cover_url"
        case data
        case customType = "custom_type"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        changes.name = try c.string(.name)
        changes.coverUrl = try c.string(.coverUrl)
        changes.data = try c.string(.data)
        changes.customType = try c.string(.customType)
    }
}
