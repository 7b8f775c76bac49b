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

/// What a metadata change did.
public struct MetadataResult: Sendable, Equatable {
    public var created: [String: String] = [:]
    public var updated: [String: String] = [:]
    public var deleted: [String] = []
    public init() {}
}

/// A change to a channel's metacounters.
public enum MetacounterChange: Sendable {
    case create([String: Int64])
    /// `mode`: `set`, `increase` or `decrease`.
    case update([String: Int64], mode: String, upsert: Bool)
    case delete([String]?)
}

public struct MetacounterResult: Sendable, Equatable {
    public var created: [String: Int64] = [:]
    public var updated: [String: Int64] = [:]
    public var deleted: [String] = []
    public init() {}
}
