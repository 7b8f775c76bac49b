import Foundation
import TernProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An upload in progress: its network task, to cancel.
final class UploadHandle: Sendable {
    let task: Locked<URLSessionTask?> = Locked(nil)
    let cancelled = Locked(false)
}

/// Reports the bytes of an upload as they go out.
final class UploadProgressDelegate: NSObject, URLSessionTaskDelegate, URLSessionDataDelegate, Sendable {
    let progress: @Sendable (Int64, Int64) -> Void
    let received = Locked(Data())
    let done: Locked<CheckedContinuation<(Data, URLResponse?), any Error>?>

    init(progress: @escaping @Sendable (Int64, Int64) -> Void, continuation: CheckedContinuation<(Data, URLResponse?), any Error>) {
        self.progress = progress
        done = Locked(continuation)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        progress(totalBytesSent, totalBytesExpectedToSend)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        received.withLock { $0.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let cont = done.withLock { c -> CheckedContinuation<(Data, URLResponse?), any Error>? in
            let x = c
            c = nil
            return x
        }
        if let error { cont?.resume(throwing: error) } else { cont?.resume(returning: (received.withLock { $0 }, task.response)) }
        session.finishTasksAndInvalidate()
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
            throw SendbirdError(ErrorCode(800260), "\((path as NSString).lastPathComponent) is \(data.count / 1024 / 1024) MB; the server takes at most \(fileSizeLimitMB) MB")
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
                let uploaded = try await self.upload(data, name: name, type: type, channelUrl: url, thumbnailSizes: thumbnailSizes, handle: handle, progress: progress)
                var body = FileMessageRequest(channelUrl: url, reqId: reqId)
                body.url = uploaded.url
                body.name = name
                body.type = type
                body.size = FlexibleInt64(Int64(uploaded.fileSize))
                body.thumbnails = uploaded.thumbnails
                body.requireAuth = uploaded.requireAuth
                // Cancelled after the bytes went up but before the message: it is not sent.
                guard self.uploads.removeValue(forKey: reqId) != nil, !handle.cancelled.withLock({ $0 }) else {
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
                failed.error = handle.cancelled.withLock { $0 }
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
        handle.cancelled.withLock { $0 = true }
        handle.task.withLock { $0?.cancel() }
        return true
    }

    struct UploadAnswer: Decodable {
        var url: String
        var fileSize: Int
        var thumbnails: [ThumbnailPayload]?
        var requireAuth: Bool?
        enum CodingKeys: String, CodingKey { case url, fileSize = "file_size", thumbnails, requireAuth = "require_auth" }
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
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(safe)\"\r\nContent-Type: \(type)\r\n\r\n".utf8))
        body.append(data)
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        guard let target = URL(string: rest.baseURL + "/v3/storage/file") else { throw SendbirdError(.invalidParameter, "bad server URL") }
        var req = URLRequest(url: target, timeoutInterval: max(60, Double(data.count) / 100_000))
        req.httpMethod = "POST"
        req.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
        req.setValue(key, forHTTPHeaderField: "Session-Key")
        req.setValue(configuration.appId, forHTTPHeaderField: "App-Id")
        let (answer, response): (Data, URLResponse?) = try await withCheckedThrowingContinuation { cont in
            let delegate = UploadProgressDelegate(progress: progress, continuation: cont)
            let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
            let task = session.uploadTask(with: req, from: body)
            handle.task.withLock { $0 = task }
            if handle.cancelled.withLock({ $0 }) { task.cancel() }
            task.resume()
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            if let e = try? JSONDecoder().decode(ErrorPayload.self, from: answer) { throw SendbirdError(ErrorCode(e.code), e.message) }
            throw SendbirdError(.requestFailed, "upload failed with HTTP \(status)")
        }
        progress(Int64(body.count), Int64(body.count))
        let a = try WireCoding.decoder.decode(UploadAnswer.self, from: answer)
        return (a.url, a.fileSize, a.thumbnails ?? [], a.requireAuth ?? true)
    }

    /// A file URL with this user's download key when the server wants one.
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
            guard let url = URL(string: authorizedURL(f.url)) else { throw SendbirdError(.invalidParameter, "bad file URL \(f.url)") }
            let (data, response) = try await URLSession.shared.data(for: URLRequest(url: url, timeoutInterval: 120))
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            guard (200..<300).contains(status) else {
                if let e = try? JSONDecoder().decode(ErrorPayload.self, from: data) { throw SendbirdError(ErrorCode(e.code), e.message) }
                throw SendbirdError(.requestFailed, "download failed with HTTP \(status)")
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
            try data.write(to: URL(fileURLWithPath: path))
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
            let up = try await upload(data, name: name, type: type, channelUrl: url, thumbnailSizes: thumbnailSizes, handle: UploadHandle()) { _, _ in }
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
