import Foundation
import TernProtocol

/// `POST /v3/{group_channels|open_channels}/{url}/metadata`: `metadata`, an object of strings,
/// required.
struct MetadataBody: Decodable {
    let metadata: [String: String]
    enum CodingKeys: String, CodingKey { case metadata }

    init(from decoder: any Decoder) throws {
        guard let m = try decoder.container(keyedBy: CodingKeys.self).stringMap(.metadata) else { throw SendbirdError.missing("metadata") }
        metadata = m
    }
}

/// `PUT …/{url}/metadata`: `upsert` (false), then `metadata` (``MetadataBody``), required;
/// `include_ts` (false) asks for the answer with its time, as the Chat SDKs do.
struct MetadataUpdateBody: Decodable {
    let upsert: Bool
    let metadata: [String: String]
    let includeTs: Bool
    enum CodingKeys: String, CodingKey {
        case upsert
        case includeTs = "include_ts"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        upsert = try c.bool(.upsert) ?? false
        metadata = try MetadataBody(from: decoder).metadata
        includeTs = try c.bool(.includeTs) ?? false
    }
}

/// `PUT …/{url}/metadata/{key}` and `PUT /v3/users/{user_id}/metadata/{key}`: `upsert` (false:
/// a missing key is 400201), then the key's `value`, a string, required.
struct MetadataValueBody: Decodable {
    let upsert: Bool
    let value: String
    enum CodingKeys: String, CodingKey { case upsert, value }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        upsert = try c.bool(.upsert) ?? false
        value = try c.requiredString(.value)
    }
}

/// `POST /v3/{group_channels|open_channels}/{url}/metacounter`: `metacounter`, an object of
/// whole numbers, required.
struct MetacounterBody: Decodable {
    let metacounter: [String: Int64]
    enum CodingKeys: String, CodingKey { case metacounter }

    init(from decoder: any Decoder) throws {
        guard let m = try decoder.container(keyedBy: CodingKeys.self).intMap(.metacounter) else { throw SendbirdError.missing("metacounter") }
        metacounter = m
    }
}

/// `PUT …/{url}/metacounter`: `mode` (`set`), `upsert` (false), then `metacounter`
/// (``MetacounterBody``), required.
struct MetacounterUpdateBody: Decodable {
    let mode: String
    let upsert: Bool
    let metacounter: [String: Int64]
    enum CodingKeys: String, CodingKey { case mode, upsert }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        mode = try c.string(.mode) ?? "set"
        upsert = try c.bool(.upsert) ?? false
        metacounter = try MetacounterBody(from: decoder).metacounter
    }
}

/// `PUT …/{url}/metacounter/{key}`: `mode` (`set`), `upsert` (false), then the key's `value`, a
/// whole number, required.
struct MetacounterValueBody: Decodable {
    let mode: String
    let upsert: Bool
    let value: Int64
    enum CodingKeys: String, CodingKey { case mode, upsert, value }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        mode = try c.string(.mode) ?? "set"
        upsert = try c.bool(.upsert) ?? false
        guard let v = try c.int(.value) else { throw SendbirdError.missing("value") }
        value = v
    }
}
