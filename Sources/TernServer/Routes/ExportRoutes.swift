import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import TernProtocol

/// Data exports (`/v3/export/{messages|channels|users}`) and GDPR requests (`/v3/privacy/gdpr`),
/// Platform API only. Each export or access request writes a real file, downloadable with the
/// Api-Token from the URL its answer gives, for seven days: under the data directory (`exports/`,
/// mode 0600) on SQLite, and on PostgreSQL in the database beside uploaded files (sealed by the
/// ``FileVault``), so that every node of a cluster serves it. A GDPR `delete` removes the user
/// (and, as asked, their 1-on-1 or all channels).
struct ExportRoutes: Sendable {
    let rest: RESTSupport
    var service: ChatService { rest.service }
    static let dataTypes: Set<String> = ["messages", "channels", "users"]
    static let lifetime: Int64 = 7 * 86_400_000
    static let maxRows = 1_000_000

    func register(on api: RouterGroup<RESTRequestContext>) {
        let exports = api.group("/v3/export/:data_type")
        exports.post(use: register)
        exports.get(use: list)
        exports.get(":request_id", use: view)
        exports.get(":request_id/file", use: download)
        let requests = api.group("/v3/privacy/gdpr")
        requests.post(use: gdpr)
        requests.get(use: gdprList)
        requests.get(":request_id", use: gdprView)
        requests.delete(":request_id", use: gdprCancel)
        api.post("/v3/migration/:target_channel_url", use: migrate)
        Task { await resumeScheduled() }
    }

    var directory: String { service.config.dataDirectory + "/exports" }

    /// The database keeps export files (PostgreSQL: several nodes share it), not the data directory.
    var inDatabase: FileVault? { service.databaseFiles }

    /// Writes an export file: under `exports/` (0600), or into the database.
    func write(_ data: Data, name: String) async throws {
        if let vault = inDatabase {
            try await vault.store(data, id: "export-" + name)
            return
        }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = directory + "/" + name
        guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw SendbirdError(.internalError, "The export file could not be written.")
        }
    }

    /// An export file written by ``write(_:name:)`` (nil when it is gone).
    func read(name: String) async throws -> Data? {
        if let vault = inDatabase { return try await vault.load("export-" + name) }
        return FileManager.default.contents(atPath: directory + "/" + name)
    }

    func fileURL(_ req: Request, _ type: String, _ id: String) -> String { rest.baseURL(req) + "/v3/export/\(type)/\(id)/file" }

    // MARK: Exports

    func dataType(_ ctx: RESTRequestContext, orGDPR: Bool = false) throws -> String {
        let t = try rest.param(ctx, "data_type")
        guard Self.dataTypes.contains(t) || (orGDPR && t == "gdpr") else {
            throw SendbirdError(.invalidValue, "Invalid value: \"data_type\" must be messages, channels or users.")
        }
        return t
    }

    /// The rows of an export, as JSON objects.
    func rows(_ type: String, _ filters: ExportBody, from: Int64, to: Int64) async throws -> [[String: Any]] {
        switch type {
        case "messages":
            let messages = try await service.exportMessages(
                from: from, to: to, channelUrls: filters.channelUrls, senderIds: filters.senderIds, limit: Self.maxRows)
            return messages.map { m in
                [
                    "message_id": m.messageId, "channel_url": m.channelUrl, "type": m.type, "sender_id": m.senderId ?? "",
                    "message": m.message, "custom_type": m.customType, "data": m.data, "created_at": m.createdAt,
                    "updated_at": m.updatedAt, "parent_message_id": m.parentMessageId,
                ]
            }
        case "channels":
            return try await service.exportChannels(channelUrls: filters.channelUrls, limit: Self.maxRows)
                .filter { $0.createdAt * 1000 >= from && $0.createdAt * 1000 <= to }
                .map { c in
                    [
                        "channel_url": c.channelUrl, "channel_type": c.channelType, "name": c.name, "custom_type": c.customType,
                        "data": c.data, "created_at": c.createdAt, "member_count": c.memberCount, "freeze": c.freeze,
                    ]
                }
        default:
            var q = UserListQuery()
            q.limit = Self.maxRows
            q.activeMode = "all"
            q.userIds = filters.userIds
            return try await service.listUsers(q).map { u in
                [
                    "user_id": u.userId, "nickname": u.nickname, "profile_url": u.profileUrl, "metadata": u.metadata,
                    "created_at": u.createdAt, "last_seen_at": u.lastSeenAt, "is_active": u.isActive,
                ]
            }
        }
    }

    /// User text that a spreadsheet would take for a formula (it starts with `=`, `+`, `-`, `@`, a
    /// tab or a carriage return) gets a leading `'`, as OWASP's CSV-injection advice says: it is
    /// shown as text, never evaluated.
    static func neutralised(_ text: String) -> String {
        guard let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) else { return text }
        return "'" + text
    }

    static func csv(_ rows: [[String: Any]], delimiter: String) -> Data {
        guard let first = rows.first else { return Data() }
        let columns = first.keys.sorted()
        func field(_ v: Any?) -> String {
            var s: String
            switch v {
            case let x as String: s = neutralised(x)
            case let x as [String: String]:
                s = String(decoding: (try? JSONSerialization.data(withJSONObject: x, options: [.sortedKeys])) ?? Data(), as: UTF8.self)
            case let x?: s = "\(x)"
            case nil: s = ""
            }
            if s.contains(delimiter) || s.contains("\"") || s.contains("\n") || s.contains("\r") {
                s = "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            }
            return s
        }
        var out = columns.joined(separator: delimiter) + "\n"
        for r in rows { out += columns.map { field(r[$0]) }.joined(separator: delimiter) + "\n" }
        return Data(out.utf8)
    }

    func register(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let type = try dataType(ctx)
        let body = try await req.decode(as: ExportBody.self, context: ctx)
        let (from, to, format, delimiter, timezone) = (body.from, body.to, body.format, body.delimiter, body.timezone)
        let id = Credentials.randomToken(bytes: 12)
        let t = service.now()
        let rows = try await rows(type, body, from: from, to: to)
        let data =
            format == "csv" ? Self.csv(rows, delimiter: delimiter) : try JSONSerialization.data(withJSONObject: [type: rows], options: [.sortedKeys])
        try await write(data, name: "\(type)-\(id).\(format)")
        var record: [String: Any] = [
            "request_id": id, "data_type": type, "status": "done", "format": format, "csv_delimiter": delimiter, "timezone": timezone,
            "created_at": t, "start_ts": from, "end_ts": to, "rows": rows.count,
            "file": ["url": fileURL(req, type, id), "expires_at": t + Self.lifetime],
        ]
        for (key, value) in [("channel_urls", body.channelUrls), ("sender_ids", body.senderIds), ("user_ids", body.userIds)] {
            if let v = value { record[key] = v }
        }
        try await rest.saveDocument("export", "\(type)/\(id)", record)
        return try rest.document(record)
    }

    func list(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let type = try dataType(ctx)
        var all = try await service.settings(scope: "export", keyPrefix: type + "/").compactMap {
            ((try? JSONSerialization.jsonObject(with: Data($0.json.utf8))) as? [String: Any]).map(Self.shown)
        }
        all.sort { (($0["created_at"] as? NSNumber)?.int64Value ?? 0) > (($1["created_at"] as? NSNumber)?.int64Value ?? 0) }
        return try rest.document(["exported_data": all, "next": ""])
    }

    func requireExport(_ ctx: RESTRequestContext, orGDPR: Bool = false) async throws -> [String: Any] {
        let type = try dataType(ctx, orGDPR: orGDPR)
        let id = try rest.param(ctx, "request_id")
        guard let r = try await rest.loadDocument("export", "\(type)/\(id)") else { throw SendbirdError(.notFound, "\"Export\" not found: \(id).") }
        return r
    }

    func view(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        return try rest.document(try await requireExport(ctx))
    }

    /// The file of an export (or of a GDPR access request), with the Api-Token, until it expires.
    func download(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let r = try await requireExport(ctx, orGDPR: true)
        let file = r["file"] as? [String: Any] ?? r["files"] as? [String: Any] ?? [:]
        if let expires = (file["expires_at"] as? NSNumber)?.int64Value, expires < service.now() {
            throw SendbirdError(.notFound, "The export file has expired.")
        }
        let type = r["data_type"] as? String ?? ""
        let format = r["format"] as? String ?? "json"
        guard let data = try await read(name: "\(type)-\(r["request_id"] as? String ?? "").\(format)") else {
            throw SendbirdError(.notFound, "The export file is gone.")
        }
        var headers = HTTPFields()
        headers[.contentType] = format == "csv" ? "text/csv; charset=utf-8" : "application/json"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: data)))
    }

    // MARK: Migration

    /// Imports messages from another service into a channel with their original times
    /// (`messages: [{message_type: MESG|ADMM|FILE, user_id, message, timestamp (ms), custom_type,
    /// data, mention_type, mentioned_user_ids, url/file_name/file_size/file_type for FILE}]`, at
    /// most 100 a call). Nobody is notified and no unread count changes; the channel's last message
    /// moves only when an imported one is newer. Answers the new ids.
    func migrate(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let url = try rest.param(ctx, "target_channel_url")
        let channel = try await service.requireChannel(url)
        let body = try await req.decode(as: MigrationBody.self, context: ctx)
        var out: [NewMessage] = []
        for m in body.messages {
            let type = m.type
            guard MigratedMessageBody.types.contains(type) else {
                throw SendbirdError(.invalidValue, "Invalid value: \"message_type\" must be MESG, ADMM or FILE.")
            }
            guard let ts = m.timestamp, ts > 0 else { throw SendbirdError.missing("timestamp") }
            if ts > service.now() { throw SendbirdError(.invalidValue, "Invalid value: \"timestamp\" is in the future.") }
            var sender: String?
            if type != "ADMM" {
                guard let u = m.userId, !u.isEmpty else { throw SendbirdError.missing("user_id") }
                try Identifier.check(u, field: "user_id")
                try await service.requireUser(u)
                sender = u
            }
            let text = m.message ?? ""
            if type != "FILE" && text.isEmpty { throw SendbirdError.missing("message") }
            try TextLimit.message(service.config.maxMessageLength).check(text)
            let customType = m.customType ?? ""
            try TextLimit.customType.check(customType)
            let data = m.data ?? ""
            try TextLimit.data.check(data)
            let mentioned = m.mentionedUserIds ?? []
            try Identifier.check(mentioned, field: "mentioned_user_ids")
            var files: String?
            if type == "FILE" {
                guard let fileURL = m.url, let scheme = URL(string: fileURL)?.scheme?.lowercased(), ["http", "https"].contains(scheme) else {
                    throw SendbirdError(.invalidValue, "Invalid value: \"url\" must be an http(s) URL.")
                }
                try TextLimit.fileUrl.check(fileURL)
                let file = FilePayload(url: fileURL, name: m.fileName ?? "", size: Int(m.fileSize ?? 0), type: m.fileType ?? "", thumbnails: [])
                files = String(decoding: try JSONEncoder().encode([file]), as: UTF8.self)
            }
            out.append(
                NewMessage(
                    channelUrl: channel.channelUrl, type: type, senderId: sender, message: text, customType: customType, data: data,
                    mentionType: m.mentionType == "channel" ? "channel" : "users", mentionedUserIds: mentioned, silent: false,
                    isOpMsg: false, createdAt: ts, reqId: nil, persist: true, markSenderRead: false, files: files))
        }
        let ids = try await service.importMessages(channel.channelUrl, out)
        return try rest.document(["message_ids": ids])
    }

    // MARK: GDPR

    /// Registers a GDPR request. As on Sendbird it is scheduled, not carried out at once: until
    /// ``ServerConfiguration/gdprDelaySeconds`` have passed it may be cancelled (0: at once, and
    /// the answer says `done`). Scheduled requests survive a restart; on several nodes, the node
    /// that took the request carries it out.
    func gdpr(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let body = try await req.decode(as: GDPRRequestBody.self, context: ctx)
        let (action, user, option) = (body.action, body.userId, body.channelDeleteOption)
        _ = try await service.requireUser(user)
        let id = Credentials.randomToken(bytes: 12)
        let t = service.now()
        let delayMs = Int64(service.config.gdprDelaySeconds * 1000)
        var record: [String: Any] = [
            "request_id": id, "action": action, "status": "scheduled", "user_id": user, "user_ids": [user], "created_at": t,
            "scheduled_at": t + delayMs, "file_url": fileURL(req, "gdpr", id), "node": service.config.nodeId ?? "",
        ]
        if action == "delete" { record["channel_delete_option"] = option }
        try await rest.saveDocument("gdpr", id, record)
        if delayMs <= 0 {
            return try rest.document(Self.shown(try await carryOut(id) ?? record))
        }
        schedule(id, in: delayMs)
        return try rest.document(Self.shown(record))
    }

    /// A request as answered (without what only the server needs).
    static func shown(_ record: [String: Any]) -> [String: Any] {
        var r = record
        r["file_url"] = nil
        r["node"] = nil
        return r
    }

    func schedule(_ id: String, in ms: Int64) {
        Task {
            try? await Task.sleep(for: .milliseconds(max(0, ms)))
            do { _ = try await carryOut(id) } catch { service.logger.error("GDPR request \(id) failed: \(error)") }
        }
    }

    /// Schedules again the requests this node took that a restart interrupted.
    func resumeScheduled() async {
        let node = service.config.nodeId ?? ""
        let all = (try? await service.settings(scope: "gdpr", keyPrefix: "")) ?? []
        for setting in all {
            guard let r = (try? JSONSerialization.jsonObject(with: Data(setting.json.utf8))) as? [String: Any],
                r["status"] as? String == "scheduled", (r["node"] as? String ?? "") == node, let id = r["request_id"] as? String
            else { continue }
            let due = (r["scheduled_at"] as? NSNumber)?.int64Value ?? 0
            schedule(id, in: due - service.now())
        }
    }

    /// Carries a scheduled request out (nil: it was cancelled or is done already).
    func carryOut(_ id: String) async throws -> [String: Any]? {
        guard var record = try await rest.loadDocument("gdpr", id), record["status"] as? String == "scheduled",
            let user = record["user_id"] as? String, let action = record["action"] as? String
        else { return nil }
        let t = service.now()
        if action == "access" {
            guard let u = try await service.user(user) else {
                record["status"] = "failed"
                try await rest.saveDocument("gdpr", id, record)
                return record
            }
            let memberships = try await service.memberships(userId: user)
            // Everything kept about the user: profile, memberships and the messages they sent.
            let sent = try await service.exportMessages(from: 0, to: Int64.max, channelUrls: nil, senderIds: [user], limit: Self.maxRows)
            let content: [String: Any] = [
                "user": [
                    "user_id": u.userId, "nickname": u.nickname, "profile_url": u.profileUrl, "metadata": u.metadata,
                    "created_at": u.createdAt, "last_seen_at": u.lastSeenAt, "is_active": u.isActive,
                ] as [String: Any],
                "channels": memberships.map { ["channel_url": $0.channelUrl, "state": $0.state, "custom_type": $0.customType] },
                "messages": sent.map {
                    ["message_id": $0.messageId, "channel_url": $0.channelUrl, "message": $0.message, "data": $0.data, "created_at": $0.createdAt]
                        as [String: Any]
                },
            ]
            try await write(try JSONSerialization.data(withJSONObject: content, options: [.sortedKeys]), name: "gdpr-\(id).json")
            record["files"] = ["url": record["file_url"] as? String ?? "", "expires_at": t + Self.lifetime]
            record["format"] = "json"
            record["data_type"] = "gdpr"
        } else {
            try await service.eraseUser(user, channelDeleteOption: record["channel_delete_option"] as? String ?? "do_not_delete")
        }
        record["status"] = "done"
        record["done_at"] = t
        try await rest.saveDocument("gdpr", id, record)
        if action == "access" { try await rest.saveDocument("export", "gdpr/\(id)", Self.shown(record)) }
        return record
    }

    func gdprList(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        var all = try await service.settings(scope: "gdpr", keyPrefix: "").compactMap {
            ((try? JSONSerialization.jsonObject(with: Data($0.json.utf8))) as? [String: Any]).map(Self.shown)
        }
        all.sort { (($0["created_at"] as? NSNumber)?.int64Value ?? 0) > (($1["created_at"] as? NSNumber)?.int64Value ?? 0) }
        return try rest.document(["requests": all, "next": ""])
    }

    func gdprView(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let id = try rest.param(ctx, "request_id")
        guard let r = try await rest.loadDocument("gdpr", id) else { throw SendbirdError(.notFound, "\"GDPR request\" not found: \(id).") }
        return try rest.document(Self.shown(r))
    }

    /// Cancelling: a request still scheduled is dropped; one carried out cannot be cancelled (400111).
    func gdprCancel(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let id = try rest.param(ctx, "request_id")
        guard let r = try await rest.loadDocument("gdpr", id) else { throw SendbirdError(.notFound, "\"GDPR request\" not found: \(id).") }
        if r["status"] as? String != "scheduled" {
            throw SendbirdError(.invalidValue, "The request \(id) has been carried out and cannot be cancelled.")
        }
        try await service.setSetting(scope: "gdpr", key: id, json: nil)
        return try rest.empty()
    }
}
