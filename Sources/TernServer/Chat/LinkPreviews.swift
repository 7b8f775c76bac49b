import Foundation
import Synchronization
import TernProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Link previews (seed 002): the first http(s) URL of a user message is fetched (time- and
/// size-limited, redirects only to http/https), its `og:` tags read, the result cached per URL and
/// delivered as an update of the message (`MEDI`). A URL already cached comes with the message itself.
public enum LinkPreviews {
    public static let timeout: TimeInterval = 5
    public static let maxBytes = 1 << 20
    /// How long a page's tags are trusted before it is read again.
    public static let cacheLifetimeMs: Int64 = 3_600_000

    /// The first http(s) URL in `text`.
    public static func firstURL(in text: String) -> String? {
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
            while i < chars.count, !chars[i].isWhitespace, chars[i] != "=" { name.append(chars[i]); i += 1 }
            while i < chars.count, chars[i].isWhitespace { i += 1 }
            guard i < chars.count, chars[i] == "=" else { continue }
            i += 1
            while i < chars.count, chars[i].isWhitespace { i += 1 }
            var value = ""
            if i < chars.count, chars[i] == "\"" || chars[i] == "'" {
                let q = chars[i]
                i += 1
                while i < chars.count, chars[i] != q { value.append(chars[i]); i += 1 }
                i += 1
            } else {
                while i < chars.count, !chars[i].isWhitespace { value.append(chars[i]); i += 1 }
            }
            if !name.isEmpty { out[name.lowercased()] = value }
        }
        return out
    }

    static func decodeEntities(_ s: String) -> String {
        guard s.contains("&") else { return s }
        var out = s
        for (e, c) in [("&quot;", "\""), ("&#39;", "'"), ("&#x27;", "'"), ("&apos;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&nbsp;", " "), ("&amp;", "&")] {
            out = out.replacingOccurrences(of: e, with: c)
        }
        return out
    }

    /// Whether `host` is this machine or a private network (loopback, RFC 1918, link-local, unique
    /// local, or a name that resolves to one): pages there are not read unless the server allows it.
    public static func isPrivate(host: String) -> Bool {
        let h = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if h == "localhost" || h.hasSuffix(".localhost") { return true }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(h, nil, &hints, &list) == 0, let first = list else { return true }
        defer { freeaddrinfo(list) }
        var p: UnsafeMutablePointer<addrinfo>? = first
        while let a = p {
            if a.pointee.ai_family == AF_INET, let sa = a.pointee.ai_addr {
                let v4 = sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt32(bigEndian: $0.pointee.sin_addr.s_addr) }
                let b0 = v4 >> 24, b1 = (v4 >> 16) & 0xff
                if b0 == 127 || b0 == 10 || b0 == 0 || (b0 == 172 && (16...31).contains(b1)) || (b0 == 192 && b1 == 168)
                    || (b0 == 169 && b1 == 254) || (b0 == 100 && (64...127).contains(b1))
                {
                    return true
                }
            } else if a.pointee.ai_family == AF_INET6, let sa = a.pointee.ai_addr {
                let bytes = sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ptr in
                    withUnsafeBytes(of: ptr.pointee.sin6_addr) { Array($0) }
                }
                let loopback = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
                let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff
                if loopback || (bytes[0] & 0xfe) == 0xfc || (bytes[0] == 0xfe && (bytes[1] & 0xc0) == 0x80) { return true }
                if mapped && (bytes[12] == 127 || bytes[12] == 10 || (bytes[12] == 192 && bytes[13] == 168)) { return true }
            }
            p = a.pointee.ai_next
        }
        return false
    }

    /// Fetches a page, following redirects only to http(s), reading at most ``maxBytes`` (the rest
    /// is not downloaded) within ``timeout``. Unless `allowPrivate`, hosts on this machine or a
    /// private network are not read (a chat server must not become a way into its own network).
    public static func fetch(_ url: String, allowPrivate: Bool = false) async -> OGMetaData? {
        guard let u = URL(string: url), let scheme = u.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        if !allowPrivate, isPrivate(host: u.host ?? "") { return nil }
        var req = URLRequest(url: u, timeoutInterval: timeout)
        req.setValue("text/html,application/xhtml+xml", forHTTPHeaderField: "Accept")
        req.setValue("ternd link preview", forHTTPHeaderField: "User-Agent")
        let result: (Data, HTTPURLResponse?) = await withCheckedContinuation { cont in
            let reader = PageReader(limit: maxBytes, continuation: cont)
            let config = URLSessionConfiguration.ephemeral
            config.timeoutIntervalForRequest = timeout
            config.timeoutIntervalForResource = timeout
            let session = URLSession(configuration: config, delegate: reader, delegateQueue: nil)
            session.dataTask(with: req).resume()
        }
        guard let http = result.1, (200..<300).contains(http.statusCode) else { return nil }
        let type = (http.value(forHTTPHeaderField: "Content-Type") ?? "text/html").lowercased()
        guard type.contains("html") else { return nil }
        return parse(html: String(decoding: result.0.prefix(maxBytes), as: UTF8.self))
    }

    /// Reads a page up to a size, allowing redirects to http/https only.
    final class PageReader: NSObject, URLSessionDataDelegate, Sendable {
        let limit: Int
        let state: Mutex<(data: Data, done: CheckedContinuation<(Data, HTTPURLResponse?), Never>?)>

        init(limit: Int, continuation: CheckedContinuation<(Data, HTTPURLResponse?), Never>) {
            self.limit = limit
            state = Mutex((Data(), continuation))
        }

        func finish(_ task: URLSessionTask, _ session: URLSession) {
            let (data, cont) = state.withLock { s -> (Data, CheckedContinuation<(Data, HTTPURLResponse?), Never>?) in
                let c = s.done
                s.done = nil
                return (s.data, c)
            }
            cont?.resume(returning: (data, task.response as? HTTPURLResponse))
            session.finishTasksAndInvalidate()
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let full = state.withLock { s -> Bool in
                s.data.append(data.prefix(max(0, limit - s.data.count)))
                return s.data.count >= limit
            }
            if full {
                finish(dataTask, session)
                dataTask.cancel()
            }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            if error != nil && state.withLock({ $0.data.isEmpty }) {
                let cont = state.withLock { s -> CheckedContinuation<(Data, HTTPURLResponse?), Never>? in
                    let c = s.done
                    s.done = nil
                    return c
                }
                cont?.resume(returning: (Data(), nil))
                session.finishTasksAndInvalidate()
                return
            }
            finish(task, session)
        }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            let scheme = request.url?.scheme?.lowercased()
            completionHandler(scheme == "http" || scheme == "https" ? request : nil)
        }
    }
}
