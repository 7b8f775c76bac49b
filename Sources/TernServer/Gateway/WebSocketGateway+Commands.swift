import Foundation
import Logging
import TernProtocol

/// The commands of a logged-in connection: one handler per command, each decoding its frame and
/// calling ``ChatService``; a failure is answered with an `EROR` frame naming the command's
/// `req_id` and `channel_url` when it had them.
extension WebSocketGateway {
    /// One command as it arrived: the frame, who sent it on which connection, and when.
    struct Command {
        let frame: Frame
        let conn: ClientConnection
        let user: UserRecord
        let session: SessionEnd
        let arrived: Int64
    }

    /// What an `EROR` answer names: the failed command's `req_id` and `channel_url`, once read.
    struct ErrorTags {
        var reqId: String?
        var channelUrl: String?

        /// Notes a command's `req_id` and `channel_url`; returns the url, which must be given.
        mutating func channel(_ reqId: String?, _ channelUrl: String?) throws -> String {
            self.reqId = reqId
            self.channelUrl = channelUrl
            return try WebSocketGateway.requiredChannelUrl(channelUrl)
        }
    }

    func dispatch(_ frame: Frame, conn: ClientConnection, user: UserRecord, session: SessionEnd, arrived: Int64) async {
        let command = Command(frame: frame, conn: conn, user: user, session: session, arrived: arrived)
        var tags = ErrorTags()
        do {
            switch frame.command {
            case .ping:
                let p = try decode(PingPayload.self, frame)
                conn.send(ChatService.frameText(.pong, PingPayload(id: p.id?.value ?? arrived, ts: service.now())))
            case .message: try await sendMessage(command, &tags)
            case .updateMessage, .updateFileMessage: try await updateMessage(command, &tags)
            case .read:
                let r = try decode(ChannelRequest.self, frame)
                let url = try tags.channel(r.reqId, r.channelUrl)
                try await service.markRead(
                    userId: user.userId, channelUrl: url, connection: conn, reqId: r.reqId, origin: .webSocket, arrivedAt: arrived)
            case .typingStart, .typingEnd:
                let r = try decode(ChannelRequest.self, frame)
                let url = try tags.channel(nil, r.channelUrl)
                try await service.typing(userId: user.userId, channelUrl: url, start: frame.command == .typingStart)
            case .messageAck:
                let r = try decode(ChannelRequest.self, frame)
                if let url = r.channelUrl { try await service.acknowledgeDelivery(userId: user.userId, channelUrl: url) }
            case .login: try await refreshSession(command, &tags)
            case .file: try await sendFile(command, &tags)
            case .enter, .exit:
                let r = try decode(ChannelRequest.self, frame)
                let url = try tags.channel(r.reqId, r.channelUrl)
                let ack =
                    frame.command == .enter
                    ? try await service.enter(conn, channelUrl: url, reqId: r.reqId)
                    : try await service.exit(conn, channelUrl: url, reqId: r.reqId)
                conn.send(ChatService.frameText(frame.command, ack))
            default:
                throw SendbirdError(.invalidValue, "Unknown command \(frame.command).")
            }
        } catch {
            refuse(command, error, tags)
        }
    }

    /// Answers a failed command with `EROR`: its Sendbird error, 400403 for a payload that does
    /// not decode, 500901 (logged) for anything else.
    func refuse(_ command: Command, _ error: any Error, _ tags: ErrorTags) {
        let e: SendbirdError
        if let s = error as? SendbirdError {
            e = s
        } else if error is DecodingError {
            e = SendbirdError(.invalidJSON, "Malformed \(command.frame.command) payload.")
        } else {
            logger.error("command \(command.frame.command) failed: \(error)")
            e = SendbirdError(.internalError, "Internal error.")
        }
        let payload = ErrorPayload(code: e.code, message: e.message, reqId: tags.reqId, channelUrl: tags.channelUrl, ts: service.now())
        command.conn.send(ChatService.frameText(.error, payload))
    }

    /// `MESG`: a user message.
    func sendMessage(_ c: Command, _ tags: inout ErrorTags) async throws {
        let r = try decode(SendMessageRequest.self, c.frame)
        let url = try tags.channel(r.reqId, r.channelUrl)
        var out = OutgoingMessage(channelUrl: url, message: r.message ?? "")
        MessageFieldsBody(r).apply(to: &out)
        try Identifier.check(out.mentionedUserIds, field: "mentioned_user_ids")
        try await service.sendUserMessage(from: c.user.userId, out, connection: c.conn, origin: .webSocket, arrivedAt: c.arrived)
    }

    /// `MEDI` / `FEDI`: an edit of a message.
    func updateMessage(_ c: Command, _ tags: inout ErrorTags) async throws {
        let r = try decode(UpdateMessageRequest.self, c.frame)
        let url = try tags.channel(r.reqId, r.channelUrl)
        guard let id = r.msgId?.value else { throw SendbirdError.missing("msg_id") }
        var u = MessageUpdate()
        u.message = r.message
        u.data = r.data
        u.customType = r.customType
        u.mentionType = r.mentionType
        u.mentionedUserIds = r.mentionedUserIds
        if let m = r.metaarray {
            let mode: MetaArrayChange.Mode = m.mode == "remove" ? .remove : .add
            u.metaarray = MetaArrayChange(items: m.array, mode: mode, upsert: m.upsert ?? false)
        }
        try await service.updateMessage(channelUrl: url, id: id, u, by: c.user.userId, connection: c.conn, reqId: r.reqId, origin: .webSocket)
    }

    /// `FILE`: a file message (one file by its fields, or several in `files`).
    func sendFile(_ c: Command, _ tags: inout ErrorTags) async throws {
        let r = try decode(FileMessageRequest.self, c.frame)
        let url = try tags.channel(r.reqId, r.channelUrl)
        var files: [OutgoingFile] = []
        if let many = r.files, !many.isEmpty {
            files = many.map { OutgoingFile(url: $0.url, name: $0.name, type: $0.type, size: $0.size, thumbnails: $0.thumbnails) }
        } else if let u = r.url {
            files = [OutgoingFile(url: u, name: r.name ?? "", type: r.type ?? "", size: Int(r.size?.value ?? 0), thumbnails: r.thumbnails ?? [])]
        }
        var out = OutgoingFileMessage(channelUrl: url, files: files)
        MessageFieldsBody(r).apply(to: &out)
        try Identifier.check(out.mentionedUserIds, field: "mentioned_user_ids")
        try await service.sendFileMessage(from: c.user.userId, out, connection: c.conn, origin: .webSocket)
    }

    /// `LOGI{token,req_id}` over an open socket: a session refresh, answered with a new key. The
    /// token must be one of the user's and still valid, and the user still active.
    func refreshSession(_ c: Command, _ tags: inout ErrorTags) async throws {
        let obj = (try? JSONSerialization.jsonObject(with: c.frame.payload) as? [String: Any]) ?? [:]
        tags.reqId = obj["req_id"] as? String
        let userId = c.user.userId
        var tokenHash: String?
        var tokenExpiresAt: Int64 = 0
        if let token = obj["token"] as? String, !token.isEmpty {
            (tokenHash, tokenExpiresAt) = try await service.checkAccessToken(token, userId: userId)
        } else if service.config.requireAccessToken {
            throw SendbirdError(.invalidAccessToken, "An access token is required.")
        } else if try await service.hasAccessTokens(userId: userId) {
            throw SendbirdError(.invalidAccessToken, "An access token is required.")
        }
        guard let current = try await service.user(userId), current.isActive else {
            throw SendbirdError(.userDeactivated, "The user is deactivated.")
        }
        let (key, ends) = try await service.createSession(userId: userId, tokenHash: tokenHash, tokenExpiresAt: tokenExpiresAt)
        c.session.value = ends
        struct Refreshed: Encodable {
            let key: String, newKey: String, reqId: String?
            enum CodingKeys: String, CodingKey {
                case key
                case newKey = "new_key"
                case reqId = "req_id"
            }
        }
        c.conn.send(ChatService.frameText(.login, Refreshed(key: key, newKey: key, reqId: tags.reqId)))
    }

    func decode<T: Decodable>(_ type: T.Type, _ frame: Frame) throws -> T {
        do { return try frame.decode(T.self) } catch {
            throw SendbirdError(.invalidJSON, "Malformed \(frame.command) payload.")
        }
    }

    /// The commands sent once per message or keystroke: read from the bytes by `JSONReader` when
    /// it can, else by `JSONDecoder`, which then decides.
    func decode<T: ByteDecodable>(_ type: T.Type, _ frame: Frame) throws -> T {
        do { return try frame.decode(T.self) } catch {
            throw SendbirdError(.invalidJSON, "Malformed \(frame.command) payload.")
        }
    }
}
