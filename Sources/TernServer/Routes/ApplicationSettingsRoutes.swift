import Crypto
import Foundation
import Hummingbird
import NIOFoundationEssentialsCompat
import TernProtocol

/// Application settings of the Platform API: push provider configurations (FCM, APNs, HMS),
/// push message templates, auto event messages and the IP allow-list.
///
/// `ternd` sends no push notifications, so provider secrets are never needed: a configuration
/// keeps its settings, a masked form of each secret (its last four characters) and the secret's
/// SHA-256 fingerprint — never the secret itself.
struct ApplicationSettingsRoutes: Sendable {
    let rest: RESTSupport
    var service: ChatService { rest.service }

    func register(on api: RouterGroup<RESTRequestContext>) {
        // One route per provider type (`{push_type}` in the SDKs): the router prefers a literal
        // segment and does not fall back to a parameter, so `push/fcm` cannot also be `push/:type`.
        let push = api.group("/v3/applications/push")
        for type in ["fcm", "apns", "hms"] {
            push.post("\(type)") { req, ctx in try await addPush(req, ctx, type) }
            push.get("\(type)") { req, ctx in try await listPush(req, ctx, type) }
            push.put("\(type)/:provider_id") { req, ctx in try await updatePush(req, ctx, type) }
            push.get("\(type)/:provider_id") { req, ctx in try await viewPush(req, ctx, type) }
            push.delete("\(type)/:provider_id") { req, ctx in try await removePush(req, ctx, type) }
        }
        // Sendbird's name for the HMS type in `remove_push_configuration_by_id`'s `push_type`.
        push.delete("huawei/:provider_id") { req, ctx in try await removePush(req, ctx, "hms") }
        push.delete("apns/cert/:provider_id", use: removeCertificate)
        push.get("message_templates") { req, ctx in try await templates(req, ctx, name: nil) }
        push.get("message_templates/:template_name") { req, ctx in
            try await templates(req, ctx, name: try rest.param(ctx, "template_name"))
        }
        push.put("message_templates/:template_name", use: updateTemplate)
        let filters = api.group("/v3/applications/settings_global")
        filters.get { req, ctx in try await filter(req, ctx, type: nil) }
        filters.put { req, ctx in try await setFilter(req, ctx, type: nil) }
        filters.get(":custom_type") { req, ctx in try await filter(req, ctx, type: try rest.param(ctx, "custom_type")) }
        filters.put(":custom_type") { req, ctx in try await setFilter(req, ctx, type: try rest.param(ctx, "custom_type")) }
        let settings = api.group("/v3/applications/settings")
        settings.get("auto_event_message", use: autoEvents)
        settings.put("auto_event_message", use: updateAutoEvents)
        settings.get("ip_whitelist", use: allowList)
        settings.put("ip_whitelist", use: addToAllowList)
        settings.delete("ip_whitelist", use: removeFromAllowList)
    }

    // MARK: Documents

    /// The fields of a JSON body, or of a multipart form (the APNs certificate is uploaded as one):
    /// text parts as strings, a file part as its SHA-256 fingerprint and size.
    func fields(_ req: Request) async throws -> [String: Any] {
        if let boundary = FileRoutes.boundary(req) {
            let body = try await req.body.collect(upTo: 1 << 20)
            var out: [String: Any] = [:]
            for part in try FileRoutes.parts(body, boundary: boundary) {
                if part.filename != nil {
                    let bytes = Data(buffer: part.body)
                    out[part.name + "_fingerprint"] = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
                    out[part.name + "_size"] = bytes.count
                } else {
                    let text = String(buffer: part.body)
                    out[part.name] = text == "true" ? true as Any : text == "false" ? false as Any : text as Any
                }
            }
            return out
        }
        return try SendbirdRequestDecoder.decode(DocumentBody.self, from: Data(buffer: try await req.body.collect(upTo: 1 << 20))).object
    }

    // MARK: Push configurations

    static let secrets: Set<String> = ["api_key", "huawei_app_secret", "apns_cert_password", "service_account_key"]
    static let allowed: [String: Set<String>] = [
        "fcm": ["api_key", "push_sound", "service_account_key"],
        "apns": [
            "apns_cert_env_type", "apns_cert_password", "has_unread_count_badge", "content_available", "mutable_content", "push_sound",
            "apns_type", "apns_cert_fingerprint", "apns_cert_size",
        ],
        "hms": ["huawei_app_id", "huawei_app_secret", "push_sound"],
    ]

    /// Keeps the allowed fields; a secret becomes `****` + its last four characters and a fingerprint,
    /// whatever its JSON type (an FCM `service_account_key` sent as an object, a numeric APNs
    /// password): only its text form is hashed, and the value itself is never stored.
    static func sanitise(_ fields: [String: Any], type: String, into base: [String: Any]) throws -> [String: Any] {
        var out = base
        for (key, value) in fields where allowed[type]!.contains(key) {
            if secrets.contains(key) {
                guard let text = secretText(value) else { throw SendbirdError(.invalidValue, "Invalid value: \"\(key)\".") }
                // A service account key (a JSON document with a private key) runs to a few KB.
                if text.utf8.count > 64 * 1024 { throw SendbirdError(.invalidValue, "Invalid value: \"\(key)\" is too long.") }
                out[key] = mask(text)
                out[key + "_fingerprint"] = Credentials.hash(text)
                continue
            }
            if let s = value as? String { try TextLimit.fileUrl.check(s) }
            out[key] = value
        }
        return out
    }

    /// A secret's text: a string as it is, any other JSON value (object, array, number, boolean)
    /// as compact JSON with sorted keys; nil for JSON null.
    static func secretText(_ value: Any) -> String? {
        if let s = value as? String { return s }
        if value is NSNull { return nil }
        if let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]) {
            return String(decoding: data, as: UTF8.self)
        }
        return "\(value)"
    }

    static func mask(_ secret: String) -> String { "****" + String(secret.suffix(4)) }

    /// A stored push configuration as answered: any secret that is not already masked (one stored
    /// by a version that kept non-string secrets as sent) is masked on the way out.
    static func redacted(_ config: [String: Any]) -> [String: Any] {
        var out = config
        for key in secrets {
            guard let value = config[key] else { continue }
            if let s = value as? String, s.hasPrefix("****"), s.count <= 8 { continue }
            out[key] = secretText(value).map(mask) ?? ""
        }
        return out
    }

    func addPush(_ req: Request, _ ctx: RESTRequestContext, _ type: String) async throws -> Response {
        let f = try await fields(req)
        let required = ["fcm": "api_key", "apns": "apns_cert_fingerprint", "hms": "huawei_app_id"][type]!
        if f[required] == nil && !(type == "fcm" && f["service_account_key"] != nil) {
            throw SendbirdError.missing(type == "apns" ? "apns_cert" : required)
        }
        let id = Credentials.randomToken(bytes: 8)
        let config = try Self.sanitise(f, type: type, into: ["id": id, "push_type": type, "push_sound": "default"])
        try await rest.saveDocument("push_configuration", "\(type)/\(id)", config)
        return try rest.document(["push_configurations": [Self.redacted(config)]])
    }

    func requirePush(_ type: String, _ ctx: RESTRequestContext) async throws -> (key: String, config: [String: Any]) {
        let id = try rest.param(ctx, "provider_id")
        let key = "\(type)/\(id)"
        guard let c = try await rest.loadDocument("push_configuration", key) else {
            throw SendbirdError(.notFound, "\"Push configuration\" not found: \(id).")
        }
        return (key, c)
    }

    func updatePush(_ req: Request, _ ctx: RESTRequestContext, _ type: String) async throws -> Response {
        let (key, current) = try await requirePush(type, ctx)
        let config = try Self.sanitise(try await fields(req), type: type, into: Self.redacted(current))
        try await rest.saveDocument("push_configuration", key, config)
        // As Sendbird answers an update (and the official SDK's model reads): the provider's id.
        return try rest.document(["push_configurations": try rest.param(ctx, "provider_id")])
    }

    func listPush(_ req: Request, _ ctx: RESTRequestContext, _ type: String) async throws -> Response {
        let all = try await service.settings(scope: "push_configuration", keyPrefix: type + "/").compactMap {
            ((try? JSONSerialization.jsonObject(with: Data($0.json.utf8))) as? [String: Any]).map(Self.redacted)
        }
        return try rest.document(["push_configurations": all])
    }

    func viewPush(_ req: Request, _ ctx: RESTRequestContext, _ type: String) async throws -> Response {
        return try rest.document(["push_configurations": [Self.redacted(try await requirePush(type, ctx).config)]])
    }

    func removePush(_ req: Request, _ ctx: RESTRequestContext, _ type: String) async throws -> Response {
        let (key, _) = try await requirePush(type, ctx)
        try await service.setSetting(scope: "push_configuration", key: key, json: nil)
        return try rest.document(["push_configurations": [try rest.param(ctx, "provider_id")]])
    }

    func removeCertificate(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        var (key, config) = try await requirePush("apns", ctx)
        config["apns_cert_fingerprint"] = nil
        config["apns_cert_size"] = nil
        try await rest.saveDocument("push_configuration", key, config)
        return try rest.document(["push_configurations": [try rest.param(ctx, "provider_id")]])
    }

    // MARK: Templates

    static let defaultTemplates: [String: [String: String]] = [
        "default": ["mesg": "{sender_name}: {message}", "file": "{sender_name}: {filename}", "admm": "{message}"],
        "alternative": ["mesg": "New message arrived", "file": "New file arrived", "admm": "New message arrived"],
    ]

    func template(_ name: String) async throws -> [String: Any] {
        guard let base = Self.defaultTemplates[name] else { throw SendbirdError(.notFound, "\"Template\" not found: \(name).") }
        var t: [String: Any] = base
        for (k, v) in try await rest.loadDocument("push_template_app", name) ?? [:] { t[k] = v }
        return ["template_name": name, "template": t]
    }

    func templates(_ req: Request, _ ctx: RESTRequestContext, name: String?) async throws -> Response {
        var out: [[String: Any]] = []
        for n in name.map({ [$0] }) ?? ["default", "alternative"] { out.append(try await template(n)) }
        return try rest.document(["push_message_templates": out])
    }

    func updateTemplate(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let name = try rest.param(ctx, "template_name")
        _ = try await template(name)
        let b = try await req.decode(as: PushTemplateChangesBody.self, context: ctx)
        var stored = try await rest.loadDocument("push_template_app", name) ?? [:]
        for (key, text) in b.texts { stored[key] = text }
        try await rest.saveDocument("push_template_app", name, stored)
        return try rest.document(["push_message_templates": [try await template(name)]])
    }

    // MARK: Profanity and domain filters

    func currentFilter(_ key: String) async throws -> ContentFilter {
        guard let json = try await service.setting(scope: "content_filter", key: key) else { return ContentFilter() }
        return (try? JSONDecoder().decode(ContentFilter.self, from: Data(json.utf8))) ?? ContentFilter()
    }

    func filter(_ req: Request, _ ctx: RESTRequestContext, type: String?) async throws -> Response {
        var f = try await currentFilter(type.map { "type:" + $0 } ?? "global")
        f.customType = type
        return try rest.json(f)
    }

    /// Changes the filters (global, or for channels of one custom type): `profanity_filter`
    /// {keywords, regex_filters, type, should_check_global} and `domain_filter` {domains, type,
    /// should_check_global}; what is not given stays as it was.
    func setFilter(_ req: Request, _ ctx: RESTRequestContext, type: String?) async throws -> Response {
        if let type { try TextLimit.customType.check(type) }
        let key = type.map { "type:" + $0 } ?? "global"
        let b = try await req.decode(as: FilterChangesBody.self, context: ctx)
        var f = try await currentFilter(key)
        b.profanity?.apply(to: &f.profanityFilter)
        b.domains?.apply(to: &f.domainFilter)
        f.customType = nil
        try await service.saveContentFilter(f, key: key)
        f.customType = type
        return try rest.json(f)
    }

    // MARK: Auto event messages

    static let autoEventKeys = ["user_join", "user_leave", "channel_create", "channel_change"]

    func autoEventSettings() async throws -> [String: Any] {
        var out: [String: Any] = [:]
        let stored = try await rest.loadDocument("application", "auto_event_message") ?? [:]
        for key in Self.autoEventKeys { out[key] = stored[key] ?? ["enabled": false] }
        return out
    }

    func autoEvents(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        return try rest.document(["auto_event_message": try await autoEventSettings()])
    }

    /// Which channel events post an automatic admin message (``ChatService/autoEventMessage(_:_:users:actor:)``).
    func updateAutoEvents(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let b = try await req.decode(as: DocumentBody.self, context: ctx)
        guard let given = b.object["auto_event_message"] as? [String: Any] else { throw SendbirdError.missing("auto_event_message") }
        var current = try await autoEventSettings()
        for (key, value) in given {
            guard Self.autoEventKeys.contains(key) else {
                throw SendbirdError(.invalidValue, "Invalid value: \"\(key)\" (user_join, user_leave, channel_create or channel_change).")
            }
            guard let obj = value as? [String: Any] else { throw SendbirdErrorFactory.wrongType(key, "object") }
            current[key] = obj
        }
        try await rest.saveDocument("application", "auto_event_message", current)
        service.autoEventSettingsChanged()
        return try rest.document(["auto_event_message": current])
    }

    // MARK: IP allow-list

    func allowList(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        return try rest.document(["ip_whitelist_addresses": try await service.ipAllowList().map(\.text)])
    }

    func addToAllowList(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        let add = try await req.decode(as: IPAllowListBody.self, context: ctx).addresses
        if add.isEmpty { throw SendbirdError.missing("ip_whitelist_addresses") }
        return try rest.document(["ip_whitelist_addresses": try await service.changeIPAllowList(add: add, remove: []).map(\.text)])
    }

    func removeFromAllowList(_ req: Request, _ ctx: RESTRequestContext) async throws -> Response {
        var remove = QueryParameters(req.uri.query).list("ip_whitelist_addresses") ?? []
        if remove.isEmpty { remove = try await req.decode(as: IPAllowListBody.self, context: ctx).addresses }
        if remove.isEmpty { throw SendbirdError.missing("ip_whitelist_addresses") }
        return try rest.document(["ip_whitelist_addresses": try await service.changeIPAllowList(add: [], remove: remove).map(\.text)])
    }
}
