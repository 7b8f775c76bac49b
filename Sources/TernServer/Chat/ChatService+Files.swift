public import Foundation
public import TernProtocol

/// A file of a file message as the sender describes it.
public struct OutgoingFile: Sendable {
    public var url: String
    public var name: String
    public var type: String
    public var size: Int
    public var thumbnails: [ThumbnailPayload] = []
}

/// A file message to send: one file, or 2–30.
public struct OutgoingFileMessage: Sendable, OutgoingMessageFields {
    public var channelUrl: String
    public var files: [OutgoingFile]
    public var data = ""
    public var customType = ""
    public var mentionType = "users"
    public var mentionedUserIds: [String] = []
    public var sortedMetaarray: [MetaArrayItem] = []
    public var parentMessageId: Int64 = 0
    public var replyToChannel = false
    public var reqId: String?
    public init(channelUrl: String, files: [OutgoingFile]) {
        self.channelUrl = channelUrl
        self.files = files
    }
}

extension ChatService {
    /// The file vault when the database keeps the files (PostgreSQL: several nodes share it),
    /// nil when they live in the data directory.
    var databaseFiles: FileVault? { store is any FileBlobStore ? files : nil }

    /// Most files in one multiple-file message, and the error code past it (as the SDKs number it).
    public static let maxFilesPerMessage = 30
    static let fileCountError = ErrorCode(800110)
    static let fileSizeError = ErrorCode(800260)
    /// How long a download key (`ekey`) lasts (seed 002: 3 days).
    static let fileKeyLifetime: Int64 = 3 * 86_400_000

    /// A new download key for the user (sent in `LOGI` as `ekey`), tied to the session it is
    /// sent with (`sessionKey`): it works only while that session holds (``userForFileKey(_:)``).
    public func issueFileKey(userId: String, sessionKey: String) async throws -> String {
        let key = Credentials.randomToken(bytes: 24)
        try await store.addFileAuth(
            keyHash: Credentials.hash(key), userId: userId, sessionHash: Credentials.hash(sessionKey), expiresAt: now() + Self.fileKeyLifetime)
        return key
    }

    /// Stores an upload (encrypted) for `channelUrl`, with thumbnails when it is an image.
    /// - Parameters:
    ///   - userId: the uploader (nil: the Platform API).
    ///   - baseURL: this server as the client reached it (`http://host:port`), for the file's URL.
    public func upload(
        userId: String?, channelUrl: String, name: String, type: String, data: Data, thumbnailSizes: [(Int, Int)], baseURL: String
    ) async throws -> UploadAnswer {
        guard let vault = files else { throw SendbirdError(.internalError, "File storage is not available.") }
        let channel = try await requireChannel(channelUrl)
        if let userId { _ = try await requireMember(channel, userId, code: .unauthorizedRequest) }
        let limit = config.fileUploadSizeLimitMB * 1024 * 1024
        if data.count > limit {
            throw SendbirdError(Self.fileSizeError, "The file is too large: \(data.count) bytes, at most \(config.fileUploadSizeLimitMB) MB.")
        }
        if data.isEmpty { throw SendbirdError(.invalidValue, "Invalid value: the file is empty.") }
        if thumbnailSizes.count > 3 { throw SendbirdError(.tooManyItems, "At most 3 thumbnail sizes.") }
        let cleanName = Self.safeName(name.isEmpty ? "file" : name)
        let mime = type.isEmpty ? "application/octet-stream" : type
        let id = Credentials.randomToken(bytes: 16)
        try await vault.store(data, id: id)
        var thumbs: [ThumbnailPayload] = []
        if mime.hasPrefix("image/") || Thumbnailer.size(of: data, mimeType: mime) != nil {
            for (i, t) in Thumbnailer.thumbnails(of: data, mimeType: mime, sizes: thumbnailSizes).enumerated() {
                let tid = id + "-t\(i + 1)"
                try await vault.store(t.data, id: tid)
                let ext = t.mimeType == "image/jpeg" ? "jpg" : "png"
                try await store.insertFile(
                    FileRecord(
                        fileId: tid, channelUrl: channelUrl, uploaderId: userId, name: "thumbnail\(i + 1).\(ext)", type: t.mimeType,
                        size: t.data.count, createdAt: now()))
                thumbs.append(
                    ThumbnailPayload(
                        url: "\(baseURL)/v3/storage/file/\(tid)/thumbnail\(i + 1).\(ext)", width: t.maxWidth, height: t.maxHeight,
                        realWidth: t.width, realHeight: t.height))
            }
        }
        let thumbJSON = String(decoding: (try? JSONEncoder().encode(thumbs)) ?? Data("[]".utf8), as: UTF8.self)
        try await store.insertFile(
            FileRecord(
                fileId: id, channelUrl: channelUrl, uploaderId: userId, name: cleanName, type: mime, size: data.count, createdAt: now(),
                thumbnails: thumbJSON))
        return UploadAnswer(
            url: "\(baseURL)/v3/storage/file/\(id)/\(Self.urlSegment(cleanName))", fileSize: data.count, name: cleanName, type: mime,
            thumbnails: thumbs)
    }

    /// A stored file for someone allowed to read it: a joined member of the channel it was uploaded
    /// for (`userId`), or the Platform API (`userId` nil).
    public func download(fileId: String, userId: String?) async throws -> (data: Data, file: FileRecord) {
        guard let vault = files, let f = try await store.file(fileId) else { throw SendbirdError(.notFound, "\"File\" not found.") }
        if let userId {
            guard let m = try await store.member(f.channelUrl, userId: userId), m.state == "joined" else {
                throw SendbirdError(.unauthorizedRequest, "Only members of the channel may download this file.")
            }
        }
        guard let data = try await vault.load(fileId) else { throw SendbirdError(.notFound, "\"File\" not found.") }
        return (data, f)
    }

    /// The user a download key belongs to.
    /// The key must be unexpired and its session must still hold, by the same rules as a
    /// `Session-Key` (``checkSession(_:)``): deactivating or deleting the user, re-issuing or revoking the
    /// token the session came from, or the session's end, ends the key at once.
    public func userForFileKey(_ key: String) async throws -> String {
        let refused = SendbirdError(.unauthorizedRequest, "Invalid or expired \"auth\" for this file.")
        guard TextLimit.accessToken.allows(key), let auth = try await store.fileAuth(keyHash: Credentials.hash(key), now: now()),
            let sessionHash = auth.sessionHash, let session = try await store.session(keyHash: sessionHash), session.userId == auth.userId
        else { throw refused }
        do { try checkSession(session) } catch { throw refused }
        return auth.userId
    }

    /// Sends a file message (`FILE`): one file, or several (2–30). Stored and fanned out like a user message.
    @discardableResult
    public func sendFileMessage(
        from userId: String, _ out: OutgoingFileMessage, connection: ClientConnection?, origin: RequestOrigin
    ) async throws -> MessagePayload {
        let t0 = now()
        let (roster, me) = try await senderContext(userId, channelUrl: out.channelUrl, origin: origin)
        let channel = roster.channel
        if out.files.isEmpty { throw SendbirdError.missing("url") }
        if out.files.count > Self.maxFilesPerMessage {
            throw SendbirdError(Self.fileCountError, "A message carries at most \(Self.maxFilesPerMessage) files (\(out.files.count) given).")
        }
        let limit = config.fileUploadSizeLimitMB * 1024 * 1024
        for f in out.files {
            if f.url.isEmpty { throw SendbirdError.missing("url") }
            try TextLimit.fileUrl.check(f.url)
            try TextLimit.fileType.check(f.type)
            if f.thumbnails.count > 3 { throw SendbirdError(.tooManyItems, "At most 3 thumbnails.") }
            for t in f.thumbnails { try TextLimit.fileUrl.check(t.url) }
            guard let scheme = URL(string: f.url)?.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                throw SendbirdError(.invalidValue, "Invalid value: \"url\" must be an http(s) URL.")
            }
            if f.size > limit {
                throw SendbirdError(Self.fileSizeError, "The file \(f.name) is too large: at most \(config.fileUploadSizeLimitMB) MB.")
            }
            try TextLimit.fileName.check(f.name)
        }
        let parentInfo = try await checkSend(out, from: userId, me: me, origin: origin, at: t0, limitsMentions: false)
        let payloads = out.files.map { FilePayload(url: $0.url, name: $0.name, size: $0.size, type: $0.type, thumbnails: $0.thumbnails) }
        let filesJSON = String(decoding: try JSONEncoder().encode(payloads), as: UTF8.self)
        let senderPayload = try await sender(userId)
        let online = onlineRecipients(roster.members, sender: userId)
        var mentioned: [String] = []
        if !out.mentionedUserIds.isEmpty {
            let known = Set(try await store.users(out.mentionedUserIds).map(\.userId))
            mentioned = Self.mentionable(out.mentionedUserIds.filter { known.contains($0) }, in: channel)
        }
        var new = newMessage(
            "FILE", out, text: "", from: userId, me: me, in: roster, mentioned: mentioned, silent: false, online: online, origin: origin)
        new.files = filesJSON
        let reqId = out.reqId
        let (stored, payload) = try await pipeline.submit(new) { stored in
            try self.deliverNow(
                stored, command: "FILE", sender: senderPayload, users: [:], roster: roster, parentInfo: parentInfo,
                connection: connection, reqId: reqId)
        }
        try await afterDelivery(stored, roster: roster)
        return payload
    }

    /// A file name with no path and no control characters.
    static func safeName(_ name: String) -> String {
        let last = name.split(separator: "/").last.map(String.init) ?? name
        let cleaned = String(last.unicodeScalars.filter { $0.value >= 0x20 && $0 != "\\" }.map(Character.init))
        return String((cleaned.isEmpty ? "file" : cleaned).prefix(255))
    }

    static func urlSegment(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? "file"
    }
}
