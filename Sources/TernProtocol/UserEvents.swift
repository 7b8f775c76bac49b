import Foundation

// `USEV`, the events about a user rather than a channel, which ternd writes and TernKit reads: one
// type for both sides.

/// `USEV` categories (research/sendbird.md §2).
public enum UserEvent {
    public static let unblocked = 20000
    public static let blocked = 20001
}

/// `USEV` `data` of a block or unblock → `{blocker, blockee}`.
public struct BlockEventData: Codable, Sendable, Equatable {
    public var blocker: SenderPayload
    public var blockee: SenderPayload
    public init(blocker: SenderPayload, blockee: SenderPayload) {
        self.blocker = blocker
        self.blockee = blockee
    }
}

/// A `USEV` frame → `{cat, data, ts}`.
public struct UserEventFrame<Payload: Codable & Sendable>: Codable, Sendable {
    public var cat: Int
    public var data: Payload
    public var ts: Int64
    enum CodingKeys: String, CodingKey { case cat, data, ts }

    /// `cat` and `data` are needed; the time may be left out.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(cat: try c.decode(Int.self, forKey: .cat), data: try c.decode(Payload.self, forKey: .data), ts: c.lenientInt64(.ts))
    }

    public init(cat: Int, data: Payload, ts: Int64) {
        self.cat = cat
        self.data = data
        self.ts = ts
    }
}
