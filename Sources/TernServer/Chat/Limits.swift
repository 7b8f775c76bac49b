import Foundation
public import TernProtocol

/// The identity rule: every identifier the server stores or keys by (user ids, channel URLs,
/// metadata and reaction keys) is in Unicode Normalization Form C, and one that is not is refused
/// with 400111 where it comes in.
///
/// Why: Swift's `String ==`, `Hashable` and `Dictionary` compare canonically equivalent text as
/// equal (`"ren\u{E9}" == "rene\u{301}"`), SQLite compares bytes. Two ids that are the same text in
/// two normalisation forms were two rows in the store but one identity in memory, so one user's
/// session passed the other's checks. NFC is the one canonical spelling of a text: two NFC strings
/// that Swift calls equal are the same bytes, so once only NFC ids exist, memory and the store
/// agree everywhere (rosters, the connection registry, rate limiters, caches). The checks on the
/// way in are at ``Identifier/check(_:field:)``; ``Identifier/sameBytes(_:_:)`` compares bytes at
/// the authorization points as a second guard.
public enum Identifier {
    /// Whether `s` is in NFC. ASCII (nearly every id) is, without looking further.
    public static func isNFC(_ s: String) -> Bool {
        if s.utf8.allSatisfy({ $0 < 0x80 }) { return true }
        return s.precomposedStringWithCanonicalMapping.utf8.elementsEqual(s.utf8)
    }

    /// Throws 400111 unless `s` is an acceptable identifier: NFC, with no control characters.
    public static func check(_ s: String, field: String) throws {
        guard isNFC(s) else {
            throw SendbirdError(.invalidValue, "Invalid value: \"\(field)\" must be in Unicode normalization form C (NFC).")
        }
        if s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw SendbirdError(.invalidValue, "Invalid value: \"\(field)\" must not contain control characters.")
        }
    }

    public static func check(_ list: [String], field: String) throws {
        for s in list { try check(s, field: field) }
    }

    /// Byte-for-byte equality (not Swift's canonical equivalence).
    public static func sameBytes(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }

    /// Request keys (JSON bodies and query strings) whose values are identifiers.
    static let keys: Set<String> = [
        "user_id", "user_ids", "users", "channel_url", "channel_urls", "operator_ids", "operators", "inviter_id",
        "target_id", "muted_list", "mentioned_users", "mentioned_user_ids", "reporting_user_id", "offending_user_id",
        "members_include_in", "members_exactly_in", "sender_id", "sender_ids", "banned_list", "key", "keys",
        "reaction", "item_keys",
    ]
}

/// Every string the server accepts has Sendbird's character limit and a byte limit: four bytes
/// per character, the most one Unicode scalar takes in UTF-8. Characters are counted as Swift
/// counts them (grapheme clusters), so without the byte limit one "character" of a letter and
/// 200,000 combining marks would pass as one.
public struct TextLimit: Sendable {
    public let field: String
    public let characters: Int
    public let bytes: Int

    public init(_ field: String, characters: Int, bytes: Int? = nil) {
        self.field = field
        self.characters = characters
        self.bytes = bytes ?? characters * 4
    }

    /// Whether `s` is within both limits (the byte count first: it costs nothing).
    public func allows(_ s: String) -> Bool {
        s.utf8.count <= bytes && s.count <= characters
    }

    /// Throws 400110 (or `code`) when `s` is over either limit.
    public func check(_ s: String, code: ErrorCode = .valueTooLong) throws {
        guard !allows(s) else { return }
        throw SendbirdError(code, "\"\(field)\" is too long (at most \(characters) characters and \(bytes) bytes).")
    }

    public func check(_ s: String?, code: ErrorCode = .valueTooLong) throws {
        if let s { try check(s, code: code) }
    }

    /// A limit on bytes alone (`data`, `req_id`).
    public static func bytes(_ field: String, _ n: Int) -> TextLimit { TextLimit(field, characters: n, bytes: n) }

    public static let userId = TextLimit("user_id", characters: 80)
    public static let nickname = TextLimit("nickname", characters: 80)
    public static let profileUrl = TextLimit("profile_url", characters: 2048)
    public static let channelName = TextLimit("name", characters: 191)
    public static let coverUrl = TextLimit("cover_url", characters: 2048)
    public static let customType = TextLimit("custom_type", characters: 128)
    public static let data = TextLimit.bytes("data", 65_535)
    public static let metadataKey = TextLimit("metadata key", characters: 128)
    public static let metadataValue = TextLimit("metadata value", characters: 190)
    public static let metaarrayKey = TextLimit("metaarray key", characters: 128)
    public static let metaarrayValue = TextLimit("metaarray value", characters: 190)
    public static let reqId = TextLimit.bytes("req_id", 128)
    public static let searchQuery = TextLimit("query", characters: 1000)
    public static let adminMessage = TextLimit("message", characters: 1000)
    public static let description = TextLimit("description", characters: 250)
    public static let reportDescription = TextLimit("report_description", characters: 250)
    public static let fileName = TextLimit("name", characters: 512)
    public static let fileUrl = TextLimit("url", characters: 2048)
    public static let fileType = TextLimit("type", characters: 128)
    public static let accessToken = TextLimit.bytes("token", 512)
    public static let pathParameter = TextLimit.bytes("path parameter", 2048)
    public static func message(_ characters: Int) -> TextLimit { TextLimit("message", characters: characters) }
}

/// A URL the server will call or hand out (webhooks, bot callbacks, emoji images): http or https
/// with a host, within the file URL's length limit; 400111 otherwise.
public enum WebURL {
    public static func check(_ url: String, field: String) throws {
        try TextLimit.fileUrl.check(url)
        guard let u = URL(string: url), let scheme = u.scheme?.lowercased(), ["http", "https"].contains(scheme), u.host != nil else {
            throw SendbirdError(.invalidValue, "Invalid value: \"\(field)\" must be an http(s) URL.")
        }
    }
}
