import TernProtocol

/// Rows the ``Store`` hands back and the queries it takes: channel and user metadata and metacounters (``MetadataStore``).
/// They are storage-shaped; ``Presenter`` turns them into wire payloads.

/// A change to a channel's metadata.
public enum MetadataChange: Sendable {
    case create([String: String])
    case update([String: String], upsert: Bool)
    /// nil: every key.
    case delete([String]?)
}

/// What a change of keyed values did (metadata: text values; metacounters: integers).
public struct KeyedChangeResult<Value: Sendable & Equatable>: Sendable, Equatable {
    public var created: [String: Value] = [:]
    public var updated: [String: Value] = [:]
    public var deleted: [String] = []
    public init() {}
}

/// What a metadata change did.
public typealias MetadataResult = KeyedChangeResult<String>

/// A change to a channel's metacounters.
public enum MetacounterChange: Sendable {
    case create([String: Int64])
    /// `mode`: `set`, `increase` or `decrease`.
    case update([String: Int64], mode: String, upsert: Bool)
    case delete([String]?)
}

extension MetacounterChange {
    /// A counter's value after an update in `mode` (`set`, `increase` or `decrease`) by `value`
    /// from `old` (nil: a new counter, from 0); 400111 when it would overflow.
    static func updated(_ old: Int64?, by value: Int64, mode: String, key: String) throws -> Int64 {
        let (sum, overflow): (Int64, Bool) =
            switch mode {
            case "increase": (old ?? 0).addingReportingOverflow(value)
            case "decrease": (old ?? 0).subtractingReportingOverflow(value)
            default: (value, false)
            }
        if overflow { throw SendbirdError(.invalidValue, "The metacounter \"\(key)\" would overflow.") }
        return sum
    }
}

/// What a metacounter change did.
public typealias MetacounterResult = KeyedChangeResult<Int64>
