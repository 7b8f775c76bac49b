public import Foundation
import TernProtocol

/// An upload in progress, to cancel: ``cancel()`` stops its network transfer (now, or as soon as it starts).
final class UploadHandle: Sendable {
    private struct State {
        var cancelled = false
        var stop: (@Sendable () -> Void)?
    }
    private let state = Locked(State())

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    func cancel() {
        let stop = state.withLock { s -> (@Sendable () -> Void)? in
            s.cancelled = true
            defer { s.stop = nil }
            return s.stop
        }
        stop?()
    }

    /// What stops the transfer; run at once if the upload was already cancelled.
    func onCancel(_ stop: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> Bool in
            if s.cancelled { return true }
            s.stop = stop
            return false
        }
        if now { stop() }
    }
}

extension ChatClient {
    /// Media types by file extension, for uploads.
    static let mimeTypes: [String: String] = [
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp", "bmp": "image/bmp",
        "txt": "text/plain", "md": "text/markdown", "pdf": "application/pdf", "json": "application/json", "zip": "application/zip",
        "gz": "application/gzip", "mp4": "video/mp4", "mp3": "audio/mpeg", "csv": "text/csv", "html": "text/html", "log": "text/plain",
    ]

    /// Sends a file: uploads it (reporting bytes sent), then sends the file message. Returns its
    /// request id at once; the pending message is published, then `messageSent` or `messageFailed`.
    /// Images get thumbnails of each `thumbnailSizes` box.
    @discardableResult
    public func sendFile(
        path: String, to url: String, thumbnailSizes: [(Int, Int)] = [(240, 240)], progress: @escaping @Sendable (Int64, Int64) -> Void = { _, _ in }
    ) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SendbirdError(.invalidParameter, "cannot read \(path)")
        }
        let limit = fileSizeLimitMB * 1024 * 1024
        guard data.count <= limit else {
            throw SendbirdError(
                ErrorCode(800260),
                "\((path as NSString).lastPathComponent) is \(data.count / 1024 / 1024) MB; the server takes at most \(fileSizeLimitMB) MB")
        }
        guard !data.isEmpty else { throw SendbirdError(.invalidParameter, "\(path) is empty") }
        let name = (path as NSString).lastPathComponent
        let type = Self.mimeTypes[(name as NSString).pathExtension.lowercased()] ?? "application/octet-stream"
        let reqId = "rq-" + newRequestId()
        var pending = Message(
            messageId: 0, requestId: reqId, channelUrl: url, kind: .file, text: "", sender: currentUser ?? User(userId: me), createdAt: clock.now(),
            status: .pending)
        pending.files = [FilePayload(url: "", name: name, size: data.count, type: type)]
        emit(.messagePending(pending))
        let handle = UploadHandle()
        uploads[reqId] = handle
        Task {
            do {
                let uploaded = try await self.upload(
                    data, name: name, type: type, channelUrl: url, thumbnailSizes: thumbnailSizes, handle: handle, progress: progress)
                var body = FileMessageRequest(channelUrl: url, reqId: reqId)
                body.url = uploaded.url
                body.name = name
                body.type = type
                body.size = FlexibleInt64(Int64(uploaded.fileSize))
                body.thumbnails = uploaded.thumbnails
                body.requireAuth = uploaded.requireAuth
                // Cancelled after the bytes went up but before the message: it is not sent.
                guard self.uploads.removeValue(forKey: reqId) != nil, !handle.isCancelled else {
                    throw SendbirdError(.connectionCanceled, "the upload was cancelled")
                }
                let reply = try await self.request(try Frame(command: .file, body), reqId: reqId)
                if reply.command == .error {
                    let e = try reply.decode(ErrorPayload.self)
                    throw SendbirdError(ErrorCode(e.code), e.message)
                }
                var sent = Message(try reply.decode(MessagePayload.self))
                sent.requestId = reqId
                sent.status = .succeeded
                self.store.applySent(sent)
                self.emit(.messageSent(sent))
                if let c = self.store[url] { self.emit(.channelUpdated(c)) }
            } catch {
                self.uploads[reqId] = nil
                var failed = pending
                failed.status = .failed
                failed.error =
                    handle.isCancelled
                    ? SendbirdError(.connectionCanceled, "the upload was cancelled")
                    : (error as? SendbirdError) ?? SendbirdError(.requestFailed, "\(error)")
                self.emit(.messageFailed(failed))
            }
        }
        return reqId
    }

    /// Cancels an upload still in progress. Returns false when there is none (it finished, failed or
    /// was never started).
    public func cancelUpload(_ requestId: String) -> Bool {
        guard let handle = uploads.removeValue(forKey: requestId) else { return false }
        handle.cancel()
        return true
    }

    func upload(
        _ data: Data, name: String, type: String, channelUrl: String, thumbnailSizes: [(Int, Int)], handle: UploadHandle,
        progress: @escaping @Sendable (Int64, Int64) -> Void
    ) async throws -> (url: String, fileSize: Int, thumbnails: [ThumbnailPayload], requireAuth: Bool) {
        let key = try requireSession()
        let boundary = "tern-" + newRequestId()
        var body = Data()
        func field(_ name: String, _ value: String) {
            body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
        }
        field("channel_url", channelUrl)
        for (i, s) in thumbnailSizes.prefix(3).enumerated() { field("thumbnail\(i + 1)", "\(s.0),\(s.1)") }
        let safe = name.replacingOccurrences(of: "\"", with: "_")
        body.append(
            Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(safe)\"\r\nContent-Type: \(type)\r\n\r\n".utf8))
        body.append(data)
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        let rest = self.rest
        let payload = body
        let contentType = "multipart/form-data; boundary=\(boundary)"
        let timeout = max(60, Double(data.count) / 100_000)
        let upload = Task.detached {
            try await rest.upload("/v3/storage/file", body: payload, contentType: contentType, sessionKey: key, timeout: timeout, progress: progress)
        }
        handle.onCancel { upload.cancel() }
        let reply: RESTClient.Reply
        do {
            reply = try await withTaskCancellationHandler {
                try await upload.value
            } onCancel: {
                upload.cancel()
            }
        } catch {
            if handle.isCancelled { throw SendbirdError(.connectionCanceled, "the upload was cancelled") }
            throw SendbirdError(.networkError, "upload to \(rest.baseURL) failed: \(RESTClient.describe(error))")
        }
        let answer = reply.body
        let status = reply.status
        guard (200..<300).contains(status) else {
            if let e = try? JSONDecoder().decode(ErrorPayload.self, from: answer) { throw SendbirdError(ErrorCode(e.code), e.message) }
            throw SendbirdError(.requestFailed, "upload failed with HTTP \(status)")
        }
        progress(Int64(body.count), Int64(body.count))
        let a = try WireCoding.decoder.decode(UploadAnswer.self, from: answer)
        return (a.url, a.fileSize, a.thumbnails, a.requireAuth)
    }

    /// A file URL with this user's download key when the server wants one.
    /// The bytes of an image message's picture for a preview: its smallest thumbnail, else the image itself when
    /// it is at most `maxBytes`.
    public func previewImageData(_ message: Message, maxBytes: Int = 8 << 20) async throws -> Data {
        guard let f = message.files.first, f.type.lowercased().hasPrefix("image/") else {
            throw SendbirdError(.invalidParameter, "the message has no image")
        }
        let thumb = f.thumbnails.filter { !$0.url.isEmpty }.min { $0.width * $0.height < $1.width * $1.height }
        guard thumb != nil || f.size <= maxBytes else { throw SendbirdError(.invalidParameter, "the image is too large to preview") }
        let url = authorizedURL(thumb?.url ?? f.url)
        guard let scheme = URL(string: url)?.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw SendbirdError(.invalidParameter, "bad file URL \(url)")
        }
        let reply = try await rest.fetch(url, maxBytes: maxBytes, timeout: 60)
        guard (200..<300).contains(reply.status) else { throw SendbirdError(.requestFailed, "preview: HTTP \(reply.status)") }
        return reply.body
    }

    public func authorizedURL(_ url: String) -> String {
        guard let key = fileKey, url.hasPrefix(rest.baseURL) else { return url }
        return url + (url.contains("?") ? "&" : "?") + "auth=" + RESTClient.segment(key)
    }

    /// Downloads a file message's files into `directory`; returns the paths written (a name that is
    /// taken gets a number).
    public func download(_ message: Message, to directory: String) async throws -> [String] {
        guard !message.files.isEmpty else { throw SendbirdError(.invalidParameter, "the message has no file") }
        var paths: [String] = []
        for f in message.files {
            let url = authorizedURL(f.url)
            guard let scheme = URL(string: url)?.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                throw SendbirdError(.invalidParameter, "bad file URL \(f.url)")
            }
            let base = (f.name.isEmpty ? "file" : (f.name as NSString).lastPathComponent)
            var path = (directory as NSString).appendingPathComponent(base)
            var n = 1
            while FileManager.default.fileExists(atPath: path) {
                let ext = (base as NSString).pathExtension
                let stem = (base as NSString).deletingPathExtension
                path = (directory as NSString).appendingPathComponent(ext.isEmpty ? "\(stem)-\(n)" : "\(stem)-\(n).\(ext)")
                n += 1
            }
            let reply: RESTClient.Reply
            do {
                reply = try await rest.download(url, to: path, timeout: 120)
            } catch let e as SendbirdError {
                throw e
            } catch {
                throw SendbirdError(.networkError, "download of \(f.name) failed: \(RESTClient.describe(error))")
            }
            guard (200..<300).contains(reply.status) else {
                if let e = try? JSONDecoder().decode(ErrorPayload.self, from: reply.body) { throw SendbirdError(ErrorCode(e.code), e.message) }
                throw SendbirdError(.requestFailed, "download failed with HTTP \(reply.status)")
            }
            paths.append(path)
        }
        return paths
    }
}

extension ChatClient {
    /// Sends a file message that points at a file somewhere else (nothing is uploaded).
    @discardableResult
    public func sendFileURL(_ fileURL: String, name: String, type: String = "", size: Int = 0, to url: String) async throws -> Message {
        guard let scheme = URL(string: fileURL)?.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw SendbirdError(.invalidParameter, "not an http(s) URL: \(fileURL)")
        }
        return try await sendFiles([FilePayload(url: fileURL, name: name, size: size, type: type)], to: url)
    }

    /// Uploads several files (2–30) and sends them as one message.
    @discardableResult
    public func sendFiles(paths: [String], to url: String, thumbnailSizes: [(Int, Int)] = [(240, 240)]) async throws -> Message {
        guard (2...30).contains(paths.count) else {
            throw SendbirdError(.invalidParameter, "a multiple-file message carries 2 to 30 files (\(paths.count) given)")
        }
        var files: [FilePayload] = []
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else {
                throw SendbirdError(.invalidParameter, "cannot read \(path)")
            }
            guard data.count <= fileSizeLimitMB * 1024 * 1024 else {
                throw SendbirdError(ErrorCode(800260), "\((path as NSString).lastPathComponent) is over \(fileSizeLimitMB) MB")
            }
            let name = (path as NSString).lastPathComponent
            let type = Self.mimeTypes[(name as NSString).pathExtension.lowercased()] ?? "application/octet-stream"
            let up = try await upload(data, name: name, type: type, channelUrl: url, thumbnailSizes: thumbnailSizes, handle: UploadHandle()) { _, _ in
            }
            files.append(FilePayload(url: up.url, name: name, size: up.fileSize, type: type, thumbnails: up.thumbnails))
        }
        return try await sendFiles(files, to: url)
    }

    /// Sends a file message of files already somewhere (uploaded, or by URL), with the message's data,
    /// custom type and metaarray.
    func sendFiles(
        _ files: [FilePayload], to url: String, data: String = "", customType: String = "", metaarray: [MetaArrayItem] = []
    ) async throws -> Message {
        let reqId = "rq-" + newRequestId()
        var body = FileMessageRequest(channelUrl: url, reqId: reqId)
        if !data.isEmpty { body.custom = data }
        if !customType.isEmpty { body.customType = customType }
        if !metaarray.isEmpty { body.metaarray = FlexibleMetaArray(metaarray) }
        if files.count == 1, let f = files.first {
            body.url = f.url
            body.name = f.name
            body.type = f.type
            body.size = FlexibleInt64(Int64(f.size))
            body.thumbnails = f.thumbnails
        } else {
            body.files = files
        }
        let reply = try await request(try Frame(command: .file, body), reqId: reqId)
        if reply.command == .error {
            let e = try reply.decode(ErrorPayload.self)
            throw SendbirdError(ErrorCode(e.code), e.message)
        }
        var sent = Message(try reply.decode(MessagePayload.self))
        sent.requestId = reqId
        store.applySent(sent)
        emit(.messageSent(sent))
        return sent
    }
}
