public import Foundation

/// A WebSocket command name: four upper-case letters (`MESG`, `LOGI`, `READ`, …).
public struct Command: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let login = Command("LOGI")
    public static let message = Command("MESG")
    public static let file = Command("FILE")
    public static let adminMessage = Command("ADMM")
    public static let broadcastMessage = Command("BRDM")
    public static let updateMessage = Command("MEDI")
    public static let updateFileMessage = Command("FEDI")
    public static let deleteMessage = Command("DELM")
    public static let read = Command("READ")
    public static let messageAck = Command("MACK")
    public static let delivery = Command("DLVR")
    public static let typingStart = Command("TPST")
    public static let typingEnd = Command("TPEN")
    public static let enter = Command("ENTR")
    public static let exit = Command("EXIT")
    public static let memberCount = Command("MCNT")
    public static let reaction = Command("MRCT")
    public static let threadInfo = Command("MTHD")
    public static let systemEvent = Command("SYEV")
    public static let userEvent = Command("USEV")
    public static let ping = Command("PING")
    public static let pong = Command("PONG")
    public static let expiring = Command("EXPR")
    public static let busy = Command("BUSY")
    public static let error = Command("EROR")

    /// Commands whose reply carries the request's `req_id` (Sendbird's ack-required set).
    public var requiresAck: Bool {
        switch rawValue {
        case "MESG", "FILE", "ENTR", "EXIT", "READ", "MEDI", "FEDI", "LOGI", "VOTE": return true
        default: return false
        }
    }
}

/// One protocol frame: a command and its JSON payload, written on the wire as `CMD4{json}\n`.
public struct Frame: Sendable, Equatable {
    public var command: Command
    /// The raw JSON object that follows the command (UTF-8).
    public var payload: Data

    public init(command: Command, payload: Data) {
        self.command = command
        self.payload = payload
    }

    /// A frame whose payload is `value` encoded with ``WireCoding/encoder``.
    public init(command: Command, _ value: some Encodable) throws {
        self.command = command
        self.payload = try WireCoding.encoder.encode(value)
    }

    /// Decodes the payload as `T`.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try decodeWithFoundation(T.self)
    }

    /// The frame as it travels: `CMD4{json}\n`.
    public var text: String { command.rawValue + String(decoding: payload, as: UTF8.self) + "\n" }
}

/// Why a line of a WebSocket message is not a frame.
public enum FrameError: Error, Sendable, Equatable, CustomStringConvertible {
    case tooShort(String)
    case badCommand(String)
    case notAnObject(Command)

    public var description: String {
        switch self {
        case .tooShort(let line): "frame too short: \(line.prefix(16))"
        case .badCommand(let c): "bad command name: \(c)"
        case .notAnObject(let c): "payload of \(c) is not a JSON object"
        }
    }
}

/// Splits and joins WebSocket messages that carry one or more `CMD4{json}\n` frames.
public enum FrameCodec {
    /// Limit on one WebSocket message, enforced by server and client alike.
    public static let maxMessageSize = 1 << 20

    /// Splits one WebSocket text message into frames. Each line is decoded on its own, so one bad
    /// line does not lose the good ones.
    public static func decode(_ text: String) -> [Result<Frame, FrameError>] {
        decode(Array(text.utf8))
    }

    /// Splits UTF-8 bytes of one WebSocket message into frames.
    public static func decode(_ bytes: [UInt8]) -> [Result<Frame, FrameError>] {
        var results: [Result<Frame, FrameError>] = []
        var start = 0
        let newline = UInt8(ascii: "\n")
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != newline { end += 1 }
            var lineEnd = end
            if lineEnd > start, bytes[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
            if lineEnd > start { results.append(decodeLine(bytes[start..<lineEnd])) }
            start = end + 1
        }
        return results
    }

    static func decodeLine(_ line: ArraySlice<UInt8>) -> Result<Frame, FrameError> {
        guard line.count >= 4 else {
            return .failure(.tooShort(String(decoding: line, as: UTF8.self)))
        }
        let nameBytes = line.prefix(4)
        let name = String(decoding: nameBytes, as: UTF8.self)
        guard nameBytes.allSatisfy({ ($0 >= 65 && $0 <= 90) }) else { return .failure(.badCommand(name)) }
        let rest = line.dropFirst(4)
        let command = Command(name)
        let firstNonSpace = rest.first { $0 != 32 && $0 != 9 }
        if let first = firstNonSpace, first != UInt8(ascii: "{") { return .failure(.notAnObject(command)) }
        return .success(Frame(command: command, payload: Data(rest)))
    }

    /// Joins frames into the text of one WebSocket message.
    public static func encode(_ frames: [Frame]) -> String {
        frames.map(\.text).joined()
    }
}

/// The JSON coders every wire type is read and written with.
public enum WireCoding {
    /// Every wire type spells out Sendbird's snake_case keys itself (no key strategy, which would
    /// also rewrite dictionary keys such as user ids). Key order is not fixed on Linux: readers
    /// must not depend on it. A payload is encoded once and copied to every recipient as bytes.
    public static var encoder: JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.withoutEscapingSlashes]
        return e
    }
    public static var decoder: JSONDecoder { JSONDecoder() }
}
