import Foundation
import TernProtocol

/// Channel metadata (string values) and metacounters (integers): checks, changes, and the `SYEV` 11100 / 11200
/// that tell the members what was created, updated and deleted.
extension ChatService {
    struct MetadataEvent<Value: Encodable & Sendable>: Encodable, Sendable {
        let created: [String: Value]
        let updated: [String: Value]
        let deleted: [String]
    }

    /// Who may touch a channel's metadata: the Platform API, or a member of the channel.
    func requireMetadataAccess(_ channelUrl: String, by: String?) async throws -> ChannelRecord {
        let channel = try await requireChannel(channelUrl)
        if let by { _ = try await requireMember(channel, by, code: .unauthorizedRequest) }
        return channel
    }

    static func checkMetadata(_ items: [String: String]) throws {
        if items.isEmpty { throw SendbirdError.missing("metadata") }
        for (k, v) in items {
            if k.isEmpty { throw SendbirdError(.invalidValue, "Invalid value: an empty metadata key.") }
            try TextLimit.metadataKey.check(k)
            try Identifier.check(k, field: "metadata key")
            try TextLimit.metadataValue.check(v)
        }
    }

    public func channelMetadata(_ channelUrl: String, keys: [String]?, by: String?) async throws -> [String: String] {
        _ = try await requireMetadataAccess(channelUrl, by: by)
        return Self.only(keys, of: try await store.channelMetadata([channelUrl])[channelUrl] ?? [:])
    }

    @discardableResult
    public func changeChannelMetadata(_ channelUrl: String, _ change: MetadataChange, by: String?) async throws -> MetadataResult {
        _ = try await requireMetadataAccess(channelUrl, by: by)
        switch change {
        case .create(let items), .update(let items, _): try Self.checkMetadata(items)
        case .delete: break
        }
        let result = try await store.changeChannelMetadata(channelUrl, change)
        try await pushKeyedChange(result, cat: ChannelEvent.metadataChanged, channelUrl: channelUrl)
        return result
    }

    public func channelMetacounters(_ channelUrl: String, keys: [String]?, by: String?) async throws -> [String: Int64] {
        _ = try await requireMetadataAccess(channelUrl, by: by)
        return Self.only(keys, of: try await store.channelMetacounters(channelUrl))
    }

    @discardableResult
    public func changeChannelMetacounters(_ channelUrl: String, _ change: MetacounterChange, by: String?) async throws -> MetacounterResult {
        _ = try await requireMetadataAccess(channelUrl, by: by)
        switch change {
        case .create(let items), .update(let items, _, _):
            if items.isEmpty { throw SendbirdError.missing("metacounter") }
            for k in items.keys {
                if k.isEmpty || !TextLimit.metadataKey.allows(k) {
                    throw SendbirdError(.invalidValue, "Invalid value: a metacounter key must have 1–128 characters (at most 512 bytes).")
                }
                try Identifier.check(k, field: "metacounter key")
            }
        case .delete: break
        }
        if case .update(_, let mode, _) = change, !["set", "increase", "decrease"].contains(mode) {
            throw SendbirdError(.invalidValue, "Invalid value: \"mode\" (set, increase or decrease).")
        }
        let result = try await store.changeChannelMetacounters(channelUrl, change)
        try await pushKeyedChange(result, cat: ChannelEvent.metacountersChanged, channelUrl: channelUrl)
        return result
    }

    /// The values of `keys` in `all` (every value when no key is named).
    static func only<Value>(_ keys: [String]?, of all: [String: Value]) -> [String: Value] {
        guard let keys, !keys.isEmpty else { return all }
        return all.filter { keys.contains($0.key) }
    }

    /// Tells the members (or an open channel's participants) what a metadata or metacounter change did.
    func pushKeyedChange<Value: Encodable>(_ result: KeyedChangeResult<Value>, cat: Int, channelUrl: String) async throws {
        pushToFollowers(
            ChannelEventFrame(
                cat: cat, channelUrl: channelUrl,
                data: MetadataEvent(created: result.created, updated: result.updated, deleted: result.deleted), ts: now()),
            roster: try await requireRoster(channelUrl))
    }
}
