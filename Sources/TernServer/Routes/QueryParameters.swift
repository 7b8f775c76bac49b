import Foundation

/// A request's query string, parsed the way the Sendbird SDKs write it.
///
/// Arrays arrive comma-joined with each element percent-encoded before joining
/// (`custom_types=a%2Cb,c%20d`), so the raw value is split on literal commas first and each
/// element decoded after. Booleans may be `true`/`false`, `True`/`False` (the Python SDK) or `1`/`0`.
public struct QueryParameters: Sendable {
    /// Each key's first raw value (a single value is read from it).
    let raw: [String: String]
    /// Each key's raw values in order, for a key given more than once (`ip=a&ip=b`, as the legacy
    /// Python SDK sends a list): ``list(_:)`` reads them all.
    let repeated: [String: [String]]

    public init(_ query: String?) {
        var raw: [String: String] = [:]
        var repeated: [String: [String]] = [:]
        for pair in (query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = Self.decode(String(parts[0]))
            let value = parts.count > 1 ? String(parts[1]) : ""
            if raw[key] == nil { raw[key] = value } else { repeated[key, default: [raw[key] ?? ""]].append(value) }
        }
        self.raw = raw
        self.repeated = repeated
    }

    static func decode(_ s: String) -> String {
        let plusFixed = s.replacingOccurrences(of: "+", with: " ")
        return plusFixed.removingPercentEncoding ?? plusFixed
    }

    /// The decoded value, nil when absent.
    public func string(_ key: String) -> String? { raw[key].map(Self.decode) }

    /// A non-empty decoded value.
    public func nonEmpty(_ key: String) -> String? {
        guard let s = string(key), !s.isEmpty else { return nil }
        return s
    }

    /// A comma-separated list (or the key given several times, each value such a list); nil when
    /// absent or empty.
    public func list(_ key: String) -> [String]? {
        if let values = repeated[key] {
            let all = values.flatMap { Self.items($0) }
            return all.isEmpty ? nil : all
        }
        guard let v = raw[key], !v.isEmpty else { return nil }
        return Self.items(v)
    }

    /// One raw value's items.
    static func items(_ v: String) -> [String] {
        if !v.contains(",") {
            // The Python Platform SDK encodes the joining commas too (`a%2Cb`): with no literal
            // comma, the decoded value's commas separate the elements.
            return Self.decode(v).split(separator: ",", omittingEmptySubsequences: true).map(String.init)
        }
        return v.split(separator: ",", omittingEmptySubsequences: true).map { Self.decode(String($0)) }
    }

    /// Throws 400111 when a value that names users, channels or keys is not a valid identifier
    /// (``Identifier``): every REST request is checked this way before its route runs.
    func checkIdentifiers() throws {
        for key in raw.keys where Identifier.keys.contains(key) {
            try Identifier.check(list(key) ?? [], field: key)
        }
    }

    /// A boolean; throws 400100 for a value that is not one.
    public func bool(_ key: String, default value: Bool) throws -> Bool {
        guard let s = string(key), !s.isEmpty else { return value }
        switch s.lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw SendbirdErrorFactory.wrongType(key, "boolean")
        }
    }

    /// An integer; throws 400100 for a value that is not one.
    public func int(_ key: String) throws -> Int64? {
        guard let s = string(key), !s.isEmpty else { return nil }
        if let v = Int64(s) { return v }
        if let d = Double(s), d.isFinite, d == d.rounded(), abs(d) < 9e18 { return Int64(d) }
        throw SendbirdErrorFactory.wrongType(key, "integer")
    }

    /// An integer within `range`; throws 400111 outside it.
    public func int(_ key: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let v = try int(key) else { return value }
        guard v >= range.lowerBound && v <= range.upperBound else {
            throw SendbirdErrorFactory.outOfRange(key, range)
        }
        return Int(v)
    }
}
