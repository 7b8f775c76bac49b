public import Foundation
import NIOCore
import NIOHTTP1
public import Synchronization
public import TernProtocol

/// Link previews (seed 002): the first http(s) URL of a user message is fetched (through
/// ``OutboundHTTP``: every hop's address checked, 1 MB and 5 s for the whole fetch; at most
/// 8 at once, 2 per sender, ``LinkPreviewGate``), its `og:` tags read, the result cached per URL and
/// delivered as an update of the message (`MEDI`). A URL already cached comes with the message itself.
public enum LinkPreviews {
    public static let timeout: TimeInterval = 5  // OutboundHTTP.Limits().timeout
    public static let maxBytes = 1 << 20
    /// How long a page's tags are trusted before it is read again.
    public static let cacheLifetimeMs: Int64 = 3_600_000

    /// The first http(s) URL in `text`.
    public static func firstURL(in text: String) -> String? {
        // Most messages hold no link: a scan of the bytes for "://" spares them the split by
        // Unicode whitespace (on the send path of every message).
        guard hasSchemeSeparator(text) else { return nil }
        for word in text.split(whereSeparator: { $0.isWhitespace }) {
            var w = String(word)
            while let last = w.last, ".,;:!?)]}>\"'".contains(last) { w.removeLast() }
            while let first = w.first, "([{<\"'".contains(first) { w.removeFirst() }
            let lower = w.lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), let u = URL(string: w), u.host != nil else { continue }
            return w
        }
        return nil
    }

    /// Whether `text` holds "://" anywhere (a search of its UTF-8 bytes).
    static func hasSchemeSeparator(_ text: String) -> Bool { ByteSearch.firstOffset(of: "://", in: text) != nil }

    /// The `og:` tags of an HTML page (nil when it has neither title, description nor image).
    public static func parse(html: String) -> OGMetaData? {
        var tags: [String: String] = [:]
        var rest = html[...]
        while let start = rest.range(of: "<meta", options: .caseInsensitive) {
            guard let end = rest[start.upperBound...].firstIndex(of: ">") else { break }
            let tag = rest[start.upperBound..<end]
            rest = rest[rest.index(after: end)...]
            let attrs = attributes(String(tag))
            guard let key = (attrs["property"] ?? attrs["name"])?.lowercased(), key.hasPrefix("og:"), let content = attrs["content"] else { continue }
            if tags[key] == nil { tags[key] = decodeEntities(content) }
        }
        var og = OGMetaData(title: tags["og:title"], url: tags["og:url"], description: tags["og:description"])
        if let image = tags["og:image"] ?? tags["og:image:url"] ?? tags["og:image:secure_url"] {
            og.image = OGImage(
                url: image, secureUrl: tags["og:image:secure_url"], type: tags["og:image:type"], width: tags["og:image:width"].flatMap { Int($0) },
                height: tags["og:image:height"].flatMap { Int($0) }, alt: tags["og:image:alt"])
        }
        guard og.title != nil || og.description != nil || og.image != nil else { return nil }
        return og
    }

    /// `key="value"` / `key='value'` / `key=value` pairs of a tag.
    static func attributes(_ tag: String) -> [String: String] {
        var out: [String: String] = [:]
        var chars = Array(tag)
        var i = 0
        chars.append(" ")
        while i < chars.count {
            while i < chars.count, chars[i].isWhitespace || chars[i] == "/" { i += 1 }
            var name = ""
            while i < chars.count, !chars[i].isWhitespace, chars[i] != "=" {
                name.append(chars[i])
                i += 1
            }
            while i < chars.count, chars[i].isWhitespace { i += 1 }
            guard i < chars.count, chars[i] == "=" else { continue }
            i += 1
            while i < chars.count, chars[i].isWhitespace { i += 1 }
            var value = ""
            if i < chars.count, chars[i] == "\"" || chars[i] == "'" {
                let q = chars[i]
                i += 1
                while i < chars.count, chars[i] != q {
                    value.append(chars[i])
                    i += 1
                }
                i += 1
            } else {
                while i < chars.count, !chars[i].isWhitespace {
                    value.append(chars[i])
                    i += 1
                }
            }
            if !name.isEmpty { out[name.lowercased()] = value }
        }
        return out
    }

    static func decodeEntities(_ s: String) -> String {
        guard s.contains("&") else { return s }
        var out = s
        for (e, c) in [
            ("&quot;", "\""), ("&#39;", "'"), ("&#x27;", "'"), ("&apos;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&nbsp;", " "), ("&amp;", "&"),
        ] {
            out = out.replacingOccurrences(of: e, with: c)
        }
        return out
    }

    /// Whether `host` is this machine or a private network: a name is resolved and judged by
    /// every address it gives (see ``PrivateAddresses``); a name that does not resolve counts as
    /// private. (A fetch judges the address it connects to, not this.)
    public static func isPrivate(host: String) -> Bool {
        let h = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if h == "localhost" || h.hasSuffix(".localhost") { return true }
        guard let addresses = try? OutboundHTTP.addresses(h, port: 80), !addresses.isEmpty else { return true }
        return addresses.contains { PrivateAddresses.isPrivate(ip: $0.ipAddress ?? "") }
    }

    /// Fetches a page within ``OutboundHTTP``'s rules: every hop (at most 5 redirects, http(s)
    /// only) resolved once and its address checked against `policy` before connecting; at most
    /// ``maxBytes`` read, then the connection closed; ``timeout`` for the whole fetch. Unless the
    /// policy allows it, hosts on this machine or a private network are not read (a chat server
    /// must not become a way into its own network).
    public static func fetch(_ url: String, policy: OutboundHTTP.Policy, limits: OutboundHTTP.Limits = OutboundHTTP.Limits()) async -> OGMetaData? {
        guard
            let response = try? await OutboundHTTP.get(
                url, policy: policy, limits: limits,
                headers: [("Accept", "text/html,application/xhtml+xml"), ("User-Agent", "ternd link preview")])
        else { return nil }
        guard (200..<300).contains(response.status) else { return nil }
        let type = (response.headers.first(name: "Content-Type") ?? "text/html").lowercased()
        guard type.contains("html") else { return nil }
        return parse(html: String(buffer: response.body))
    }

    /// ``fetch(_:policy:limits:)`` with only `allowPrivate` to say.
    public static func fetch(_ url: String, allowPrivate: Bool = false) async -> OGMetaData? {
        await fetch(url, policy: OutboundHTTP.Policy(allowPrivate: allowPrivate))
    }
}

/// How many previews run at once: at most ``global`` in the server and ``perUser`` for one
/// sender; a link beyond either is not previewed (it is not queued: a burst of links must not
/// turn into a backlog of fetches or of memory).
public final class LinkPreviewGate: Sendable {
    public let global: Int
    public let perUser: Int
    let state = Mutex<(total: Int, users: [String: Int])>((total: 0, users: [:]))
    /// Previews not run because a limit was reached.
    public let dropped = Atomic<Int>(0)
    /// Most previews that ran at once.
    public let peak = Atomic<Int>(0)

    public init(global: Int = 8, perUser: Int = 2) {
        self.global = global
        self.perUser = perUser
    }

    /// Takes a place for `userId`, or returns false when none is free.
    public func enter(_ userId: String) -> Bool {
        let n: Int? = state.withLock { s in
            guard s.total < global, s.users[userId, default: 0] < perUser else { return nil }
            s.total += 1
            s.users[userId, default: 0] += 1
            return s.total
        }
        guard let n else {
            dropped.add(1, ordering: .relaxed)
            return false
        }
        _ = peak.max(n, ordering: .relaxed)
        return true
    }

    public func leave(_ userId: String) {
        state.withLock { s in
            s.total -= 1
            let left = s.users[userId, default: 1] - 1
            s.users[userId] = left > 0 ? left : nil
        }
    }
}
