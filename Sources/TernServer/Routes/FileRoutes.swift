import Foundation
import HTTPTypes
import Hummingbird
import MultipartKit
import NIOCore
import NIOFoundationEssentialsCompat
import TernProtocol

/// `/v3/storage/file`: uploads (multipart) and downloads of files, only for channel members.
struct FileRoutes: Sendable {
    let rest: RESTSupport
    var service: ChatService { rest.service }

    /// Uploads need credentials; a download may come with none but the file key in its URL
    /// (`?auth=`), so it is not behind ``CallerMiddleware``.
    func register(on api: RouterGroup<RESTRequestContext>, anonymous router: Router<RESTRequestContext>) {
        api.post("/v3/storage/file", use: upload)
        router.get("/v3/storage/file/:file_id/:name", use: download)
    }

    /// One part of a multipart body.
    struct Part {
        var name = ""
        var filename: String?
        var contentType: String?
        var body = ByteBuffer()
    }

    /// The boundary of a `multipart/form-data` request (nil: not one).
    static func boundary(_ req: Request) -> String? {
        guard let type = req.headers[.contentType], type.lowercased().hasPrefix("multipart/form-data"),
            let item = type.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) }).first(where: { $0.hasPrefix("boundary=") })
        else { return nil }
        return String(item.dropFirst("boundary=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
    }

    static func parts(_ body: ByteBuffer, boundary: String) throws -> [Part] {
        let parser = MultipartParser(boundary: boundary)
        var parts: [Part] = []
        var current = Part()
        parser.onHeader = { field, value in
            switch field.lowercased() {
            case "content-disposition":
                for item in value.split(separator: ";") {
                    let kv = item.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                    guard kv.count == 2 else { continue }
                    let v = kv[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                    if kv[0] == "name" { current.name = v }
                    if kv[0] == "filename" { current.filename = v }
                }
            case "content-type":
                current.contentType = value
            default:
                break
            }
        }
        parser.onBody = { chunk in current.body.writeBuffer(&chunk) }
        parser.onPartComplete = {
            parts.append(current)
            current = Part()
        }
        do { try parser.execute(body) } catch {
            throw SendbirdError(.invalidValue, "Invalid value: the multipart body cannot be read.")
        }
        return parts
    }

    func upload(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let caller = try ctx.caller
        guard let boundary = Self.boundary(req) else {
            throw SendbirdError(.invalidValue, "Invalid value: an upload is multipart/form-data with a boundary.")
        }
        let limit = service.config.fileUploadSizeLimitMB * 1024 * 1024
        let body: ByteBuffer
        do {
            body = try await req.body.collect(upTo: limit + 1024 * 1024)
        } catch {
            throw SendbirdError(ChatService.fileSizeError, "The file is too large: at most \(service.config.fileUploadSizeLimitMB) MB.")
        }
        let parts = try Self.parts(body, boundary: boundary)
        guard let file = parts.first(where: { $0.name == "file" }) else { throw SendbirdError.missing("file") }
        func text(_ name: String) -> String? {
            parts.first { $0.name == name }.map { String(buffer: $0.body) }
        }
        guard let channelUrl = text("channel_url"), !channelUrl.isEmpty else { throw SendbirdError.missing("channel_url") }
        var sizes: [(Int, Int)] = []
        for i in 1...3 {
            guard let raw = text("thumbnail\(i)") else { continue }
            let nums = raw.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard nums.count == 2, nums[0] > 0, nums[1] > 0, nums[0] <= 4096, nums[1] <= 4096 else {
                throw SendbirdError(.invalidValue, "Invalid value: \"thumbnail\(i)\" must be \"width,height\".")
            }
            sizes.append((nums[0], nums[1]))
        }
        let data = Data(buffer: file.body)
        let uploaded = try await service.upload(
            userId: caller.userId, channelUrl: channelUrl, name: file.filename ?? "file", type: file.contentType ?? "", data: data,
            thumbnailSizes: sizes, baseURL: rest.baseURL(req))
        return try rest.json(uploaded)
    }

    func download(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let q = QueryParameters(req.uri.query)
        let userId: String?
        if let auth = q.nonEmpty("auth") {
            userId = try await service.userForFileKey(auth)
        } else if req.headers[.apiToken] != nil || req.headers[.sessionKey] != nil {
            userId = try await rest.authenticate(req).userId
        } else {
            throw SendbirdError(.unauthorizedRequest, "This file needs the \"auth\" parameter of a channel member.")
        }
        let (data, file) = try await service.download(fileId: try rest.param(ctx, "file_id"), userId: userId)
        return Response(status: .ok, headers: Self.downloadHeaders(file, size: data.count), body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Types a browser shows without running anything: served inline. Every other type (HTML, SVG,
    /// XML, JavaScript, PDF, anything unknown) could run script on this server's origin, where the
    /// Platform API also answers, so it is served as an attachment.
    static let passiveTypes: Set<String> = [
        "image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "image/avif", "text/plain",
    ]

    /// The headers of a download: `nosniff` always (the browser keeps to the declared type), a
    /// sandboxing CSP always (no script, no plugin, a unique origin, even when opened directly),
    /// and `attachment` for any type not in ``passiveTypes`` (audio and video stay inline).
    static func downloadHeaders(_ file: FileRecord, size: Int) -> HTTPFields {
        let type = file.type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        let inline = passiveTypes.contains(type) || type.hasPrefix("audio/") || type.hasPrefix("video/")
        var headers = HTTPFields()
        headers[.contentType] = file.type
        headers[.contentLength] = String(size)
        let name = file.name.filter { $0 != "\"" && $0 != "\\" && !$0.isNewline }
        headers[.contentDisposition] = "\(inline ? "inline" : "attachment"); filename=\"\(name)\""
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("Content-Security-Policy")!] = "default-src 'none'; style-src 'unsafe-inline'; sandbox"
        return headers
    }
}
