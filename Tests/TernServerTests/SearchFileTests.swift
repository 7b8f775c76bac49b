import Foundation
import Hummingbird
import Synchronization
import TernProtocol
import TernTestSupport
import Testing

@testable import TernServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Search (FTS5 and the advanced syntax), files (upload, thumbnails, encryption at rest, member-only
/// downloads, file messages), link previews and the per-channel flood limit.
@Suite("Search, files, link previews, flood limit", .serialized)
struct SearchFileTests {
    func send(_ s: TestServer, _ url: String, _ user: String, _ text: String, customType: String = "", data: String = "") async throws {
        let r = try await s.request(
            "POST", "/v3/group_channels/\(url)/messages",
            body: ["message_type": "MESG", "user_id": user, "message": text, "custom_type": customType, "data": data])
        #expect(r.status == 200, "\(r.text)")
    }

    func search(_ s: TestServer, _ key: String, _ query: String) async throws -> TestServer.HTTPResult {
        try await s.request("GET", "/v3/search/messages?" + query, headers: ["Session-Key": key])
    }

    func texts(_ r: TestServer.HTTPResult) -> [String] {
        (r.json["results"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
    }

    @Test("Search: words and prefixes, exact phrases, wildcards, fuzzy terms, AND/OR, fields, time range, paging, members only")
    func searching() async throws {
        try await withServer(users: ["alice", "bob", "eve"], { $0.linkPreviews = false }) { s in
            let a = try await s.createChannel(["alice", "bob"], name: "a")
            let other = try await s.createChannel(["eve"], name: "secret")
            try await send(s, a, "alice", "The quick, brown fox!")
            try await send(s, a, "bob", "a slow brown dog", customType: "pets")
            try await send(s, a, "alice", "colour and color", data: "urgent")
            try await send(s, a, "bob", "hello world")
            try await send(s, other, "eve", "brown secret")
            let (sock, logi) = try await s.login("alice")
            let key = logi["key"] as? String ?? ""
            // Plain: every word, punctuation ignored; only alice's channels.
            #expect(Set(texts(try await search(s, key, "query=brown"))) == ["The quick, brown fox!", "a slow brown dog"])
            #expect(texts(try await search(s, key, "query=quick%20fox")) == ["The quick, brown fox!"])
            #expect(texts(try await search(s, key, "query=qui")) == ["The quick, brown fox!"], "words match as prefixes")
            #expect(texts(try await search(s, key, "query=brown%20fox&exact_match=true")) == ["The quick, brown fox!"])
            #expect(texts(try await search(s, key, "query=fox%20brown&exact_match=true")).isEmpty)
            // Advanced.
            #expect(Set(texts(try await search(s, key, "query=col*r&advanced_query=true"))) == ["colour and color"])
            #expect(texts(try await search(s, key, "query=hel%3Fo&advanced_query=true")) == ["hello world"])
            #expect(texts(try await search(s, key, "query=worlx~&advanced_query=true")) == ["hello world"], "one edit for 5 letters")
            #expect(texts(try await search(s, key, "query=wrold~&advanced_query=true")).isEmpty, "a swap is two edits")
            #expect(texts(try await search(s, key, "query=dug~&advanced_query=true")) == ["a slow brown dog"], "3 letters: one edit")
            #expect(texts(try await search(s, key, "query=quikcly~&advanced_query=true")).isEmpty)
            #expect(texts(try await search(s, key, "query=quicc~&advanced_query=true")) == ["The quick, brown fox!"])
            #expect(texts(try await search(s, key, "query=coolour~&advanced_query=true")) == ["colour and color"], "7 letters: two edits")
            #expect(texts(try await search(s, key, "query=xyzzy~&advanced_query=true")).isEmpty)
            let either = try await search(
                s, key, "query=" + "(fox OR dog) AND brown".addingPercentEncoding(withAllowedCharacters: .alphanumerics)! + "&advanced_query=true")
            #expect(Set(texts(either)) == ["The quick, brown fox!", "a slow brown dog"])
            let field = try await search(
                s, key, "query=" + "brown AND custom_type:pets".addingPercentEncoding(withAllowedCharacters: .alphanumerics)! + "&advanced_query=true"
            )
            #expect(texts(field) == ["a slow brown dog"])
            #expect(texts(try await search(s, key, "query=data%3Aurgent&advanced_query=true")) == ["colour and color"])
            let bad = try await search(s, key, "query=%28brown&advanced_query=true")
            #expect(bad.status == 400 && bad.json["code"] as? Int == 400111)
            // Order by time, reverse (newest first), paging with has_next / after.
            let p1 = try await search(s, key, "query=o&sort_field=ts&reverse=true&limit=2&advanced_query=true&exact_match=false")
            _ = p1
            let page1 = try await search(
                s, key,
                "query=" + "brown OR hello OR color".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                    + "&advanced_query=true&sort_field=ts&reverse=true&limit=2")
            #expect(texts(page1) == ["hello world", "colour and color"])
            #expect(page1.json["has_next"] as? Bool == true && page1.json["total_count"] as? Int == 4)
            let cursor = page1.json["end_cursor"] as? String ?? ""
            let page2 = try await search(
                s, key,
                "query=" + "brown OR hello OR color".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                    + "&advanced_query=true&sort_field=ts&reverse=true&limit=2&after=\(cursor)")
            #expect(texts(page2) == ["a slow brown dog", "The quick, brown fox!"] && page2.json["has_next"] as? Bool == false)
            // Channel and time range filters.
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            #expect(texts(try await search(s, key, "query=brown&channel_url=\(a)&message_ts_from=\(now + 60_000)")).isEmpty)
            let outsider = try await search(s, key, "query=brown&channel_url=\(other)")
            #expect(outsider.status == 403, "a channel alice is not in")
            await sock.close()
        }
    }

    static func png(width: Int, height: Int) -> Data { TestImages.png(width: width, height: height) }

    func multipart(_ fields: [(String, String)], file: Data, name: String, type: String, boundary: String = "XyZb0undary") -> (Data, String) {
        var body = Data()
        for (k, v) in fields { body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(k)\"\r\n\r\n\(v)\r\n".utf8)) }
        body.append(
            Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(name)\"\r\nContent-Type: \(type)\r\n\r\n".utf8))
        body.append(file)
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        return (body, "multipart/form-data; boundary=\(boundary)")
    }

    func upload(_ s: TestServer, key: String, _ body: Data, _ type: String) async throws -> (Int, [String: Any]) {
        var req = URLRequest(url: URL(string: s.baseURL + "/v3/storage/file")!)
        req.httpMethod = "POST"
        req.setValue(type, forHTTPHeaderField: "Content-Type")
        req.setValue(key, forHTTPHeaderField: "Session-Key")
        req.httpBody = body
        let (data, response) = try await URLSession.shared.data(for: req)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }

    func get(_ url: String) async throws -> (Int, Data) {
        let (data, response) = try await URLSession.shared.data(from: URL(string: url)!)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    @Test("Files: upload with thumbnails (fit, never upscaled), encrypted on disk, downloads only for members, file messages of 1-30 files")
    func files() async throws {
        try await withServer(
            users: ["alice", "bob", "eve"],
            {
                $0.linkPreviews = false
                $0.fileUploadSizeLimitMB = 1
            }
        ) { s in
            let url = try await s.createChannel(["alice", "bob"])
            let (alice, logi) = try await s.login("alice")
            let (bob, bobLogi) = try await s.login("bob")
            let (eve, eveLogi) = try await s.login("eve")
            let key = logi["key"] as? String ?? ""
            let bobFileKey = bobLogi["ekey"] as? String ?? ""
            let eveFileKey = eveLogi["ekey"] as? String ?? ""
            #expect(!bobFileKey.isEmpty && logi["file_upload_size_limit"] as? Int == 1)
            let image = Self.png(width: 64, height: 32)
            let (body, type) = multipart(
                [("channel_url", url), ("thumbnail1", "32,32"), ("thumbnail2", "200,200")], file: image, name: "pic.png", type: "image/png")
            let (status, answer) = try await upload(s, key: key, body, type)
            #expect(status == 200, "\(answer)")
            let fileURL = answer["url"] as? String ?? ""
            #expect(answer["file_size"] as? Int == image.count && answer["require_auth"] as? Bool == true)
            let thumbs = answer["thumbnails"] as? [[String: Any]] ?? []
            #expect(thumbs.count == 2)
            #expect(thumbs.first?["real_width"] as? Int == 32 && thumbs.first?["real_height"] as? Int == 16, "fits 32x32, keeps 2:1")
            #expect(thumbs.last?["real_width"] as? Int == 64 && thumbs.last?["real_height"] as? Int == 32, "never upscaled")
            // Stored encrypted: the PNG bytes are nowhere in what is kept (files in the data
            // directory, or rows in PostgreSQL).
            let stored = try await s.app.service.files?.storedBytes() ?? []
            #expect(stored.count == 3)
            for raw in stored {
                #expect(raw.range(of: Data([0x89, 0x50, 0x4E, 0x47])) == nil)
            }
            if ProcessInfo.processInfo.environment["TERN_TEST_DATABASE"] != "postgres" {
                let onDisk = try FileManager.default.contentsOfDirectory(atPath: s.dataDirectory + "/files").filter { $0.hasSuffix(".bin") }
                #expect(onDisk.count == 3)
            }
            // Members download with their ekey; others are refused.
            let (okStatus, okData) = try await get(fileURL + "?auth=\(bobFileKey)")
            #expect(okStatus == 200 && okData == image)
            let (thumbStatus, thumbData) = try await get((thumbs.first?["url"] as? String ?? "") + "?auth=\(bobFileKey)")
            #expect(thumbStatus == 200 && thumbData.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            #expect(try await get(fileURL + "?auth=\(eveFileKey)").0 == 403)
            #expect(try await get(fileURL).0 == 403)
            #expect(try await get(fileURL + "?auth=forged").0 == 403)
            // Too large, not a member.
            let big = multipart([("channel_url", url)], file: Data(count: 1024 * 1024 + 10), name: "big.bin", type: "application/octet-stream")
            let (bigStatus, bigAnswer) = try await upload(s, key: key, big.0, big.1)
            #expect(bigStatus == 400 && bigAnswer["code"] as? Int == 800260)
            let eveKey = eveLogi["key"] as? String ?? ""
            #expect(try await upload(s, key: eveKey, body, type).1["code"] as? Int == 400108)
            // A file message with the uploaded file, one with a URL, refused past 30 files.
            alice.send(
                "FILE",
                [
                    "channel_url": url, "url": fileURL, "name": "pic.png", "type": "image/png", "size": image.count, "thumbnails": thumbs,
                    "req_id": "f1", "custom": "d1",
                ])
            let ack = await alice.next("FILE") { $0["req_id"] as? String == "f1" }
            #expect(ack?["url"] as? String == fileURL && ack?["name"] as? String == "pic.png" && ack?["data"] as? String == "d1")
            #expect(((ack?["file"] as? [String: Any])?["thumbnails"] as? [Any])?.count == 2)
            let got = await bob.next("FILE")
            #expect(got?["require_auth"] as? Bool == true && got?["type"] as? String == "FILE")
            let many = (0..<3).map { ["url": "https://example.com/\($0).txt", "name": "\($0).txt", "type": "text/plain", "size": 10] }
            alice.send("FILE", ["channel_url": url, "files": many, "req_id": "f2"])
            let multi = await alice.next("FILE") { $0["req_id"] as? String == "f2" }
            #expect((multi?["files"] as? [Any])?.count == 3)
            #expect(multi?["require_auth"] as? Bool == false, "files elsewhere need no auth")
            let tooMany = (0..<31).map { ["url": "https://example.com/\($0).txt", "name": "\($0).txt", "type": "text/plain", "size": 1] }
            alice.send("FILE", ["channel_url": url, "files": tooMany, "req_id": "f3"])
            #expect(await alice.next("EROR") { $0["req_id"] as? String == "f3" }?["code"] as? Int == 800110)
            alice.send("FILE", ["channel_url": url, "url": "ftp://example.com/x", "name": "x", "req_id": "f4"])
            #expect(await alice.next("EROR") { $0["req_id"] as? String == "f4" }?["code"] as? Int == 400111)
            for x in [alice, bob, eve] { await x.close() }
        }
    }

    @Test("Platform API file message by URL: stored and delivered as FILE with its name, size, type and thumbnails; bad fields refused")
    func platformFileMessage() async throws {
        try await withServer(users: ["alice", "bob"], { $0.linkPreviews = false }) { s in
            let url = try await s.createChannel(["alice", "bob"])
            let (bob, _) = try await s.login("bob")
            let sent = try await s.request(
                "POST", "/v3/group_channels/\(url)/messages",
                body: [
                    "message_type": "FILE", "user_id": "alice", "url": "https://example.com/cat.png", "file_name": "cat.png",
                    "file_type": "image/png", "file_size": 2048, "custom_field": "meta", "dedup_id": "d1",
                    "thumbnails": ["https://example.com/cat-s.png", ["url": "https://example.com/cat-m.png", "width": 320, "height": 240]],
                ])
            #expect(sent.status == 200, "\(sent.text)")
            #expect(sent.json["type"] as? String == "FILE" && sent.json["data"] as? String == "meta")
            let file = sent.json["file"] as? [String: Any] ?? [:]
            #expect(file["url"] as? String == "https://example.com/cat.png" && file["name"] as? String == "cat.png")
            #expect(file["size"] as? Int == 2048 && file["type"] as? String == "image/png")
            let thumbs = sent.json["thumbnails"] as? [[String: Any]] ?? []
            #expect(thumbs.count == 2 && thumbs.last?["width"] as? Int == 320, "\(sent.text)")
            let live = await bob.next("FILE")
            #expect(live?["message_id"] as? Int == sent.json["message_id"] as? Int)
            let page = try await s.request("GET", "/v3/group_channels/\(url)/messages?message_ts=9999999999999&prev_limit=5")
            #expect((page.json["messages"] as? [[String: Any]] ?? []).last?["type"] as? String == "FILE")

            // The same dedup_id is the same message.
            let again = try await s.request(
                "POST", "/v3/group_channels/\(url)/messages",
                body: ["message_type": "FILE", "user_id": "alice", "url": "https://example.com/cat.png", "dedup_id": "d1"])
            #expect(again.json["message_id"] as? Int == sent.json["message_id"] as? Int, "\(again.text)")

            for (body, code) in [
                (["message_type": "FILE", "user_id": "alice"], 400105),
                (["message_type": "FILE", "user_id": "alice", "url": "https://example.com/a", "file_size": "big"], 400100),
                (["message_type": "FILE", "user_id": "alice", "url": "ftp://example.com/a"], 400111),
                (["message_type": "FILE", "url": "https://example.com/a"], 400105),
            ] as [([String: Any], Int)] {
                let r = try await s.request("POST", "/v3/group_channels/\(url)/messages", body: body)
                #expect(r.status == 400 && r.json["code"] as? Int == code, "\(body): \(r.text)")
            }
            await bob.close()
        }
    }

    @Test("Link previews: the page's og: tags arrive as an update; a cached URL comes with the first delivery")
    func linkPreviews() async throws {
        let page = """
            <html><head><title>x</title>
            <meta property="og:title" content="Tern &amp; friends">
            <meta property='og:description' content='A terminal chat'>
            <meta property="og:url" content="http://example.test/tern">
            <meta property="og:image" content="http://example.test/i.png"><meta property="og:image:width" content="640">
            <meta property="og:image:alt" content="logo">
            </head><body>hi</body></html>
            """
        let router = Router()
        router.get("/page") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: page)))
        }
        router.get("/plain") { _, _ in "no html here" }
        let portBox = PortBox()
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { ch in
                portBox.set(ch.localAddress?.port ?? 0)
            })
        let task = Task { try await app.runService() }
        defer { task.cancel() }
        var port = 0
        for _ in 0..<200 where port == 0 {
            try await Task.sleep(for: .milliseconds(10))
            port = portBox.get()
        }
        #expect(port > 0)
        #expect(LinkPreviews.isPrivate(host: "127.0.0.1") && LinkPreviews.isPrivate(host: "localhost") && LinkPreviews.isPrivate(host: "10.1.2.3"))
        #expect(LinkPreviews.isPrivate(host: "192.168.0.5") && LinkPreviews.isPrivate(host: "::1") && !LinkPreviews.isPrivate(host: "93.184.216.34"))
        // By default a page on this machine is not read.
        #expect(await LinkPreviews.fetch("http://127.0.0.1:\(port)/page") == nil)
        #expect(await LinkPreviews.fetch("http://127.0.0.1:\(port)/page", allowPrivate: true)?.title == "Tern & friends")
        try await withServer({ $0.linkPreviewsPrivateHosts = true }) { s in
            let url = try await s.newChannel(of: ["alice", "bob"])
            let (alice, _) = try await s.login("alice")
            let (bob, _) = try await s.login("bob")
            let link = "http://127.0.0.1:\(port)/page"
            alice.send("MESG", ["channel_url": url, "message": "look at \(link).", "req_id": "l1"])
            let first = await bob.next("MESG")
            #expect(first?["og_tag"] == nil)
            let update = await bob.next("MEDI")
            let og = update?["og_tag"] as? [String: Any]
            #expect(og?["og:title"] as? String == "Tern & friends" && og?["og:description"] as? String == "A terminal chat")
            #expect((og?["og:image"] as? [String: Any])?["width"] as? Int == 640)
            #expect((og?["og:image"] as? [String: Any])?["alt"] as? String == "logo")
            #expect(update?["updated_at"] as? Int == 0, "a preview is not an edit")
            // Cached now: the next message with the URL carries it at once.
            alice.send("MESG", ["channel_url": url, "message": link, "req_id": "l2"])
            let second = await bob.next("MESG")
            #expect((second?["og_tag"] as? [String: Any])?["og:title"] as? String == "Tern & friends")
            // A page without og: tags gives no preview.
            alice.send("MESG", ["channel_url": url, "message": "http://127.0.0.1:\(port)/plain", "req_id": "l3"])
            _ = await bob.next("MESG")
            #expect(await bob.next("MEDI", timeout: .seconds(2)) == nil)
            for x in [alice, bob] { await x.close() }
        }
    }

    @Test("Flood limit: more than 5 messages a second from one user in one channel are refused (900200) and not stored")
    func floodLimit() async throws {
        // A still clock: all seven arrive within the same second however slow the machine is.
        try await withFloodLimitedServer { s in
            let a = try await s.newChannel(of: ["alice", "bob"])
            let b = try await s.createChannel(["alice", "bob"], name: "b")
            let (alice, _) = try await s.login("alice")
            for i in 0..<7 { alice.send("MESG", ["channel_url": a, "message": "m\(i)", "req_id": "a\(i)"]) }
            alice.send("MESG", ["channel_url": b, "message": "other channel", "req_id": "b0"])
            _ = await alice.next("MESG") { $0["req_id"] as? String == "b0" }
            // Every send was answered: an ack or a refusal.
            for i in 0..<7 {
                _ = await alice.next("MESG", timeout: .milliseconds(200)) { $0["req_id"] as? String == "a\(i)" }
            }
            let acked = alice.all("MESG").filter { ($0["req_id"] as? String)?.hasPrefix("a") == true }.count
            let refused = 7 - acked
            let errors = alice.all("EROR").filter { $0["code"] as? Int == 900200 }
            #expect(errors.count >= 2 && refused == errors.count)
            #expect(alice.all("MESG").contains { $0["req_id"] as? String == "b0" }, "another channel has its own budget")
            let history = try await s.request("GET", "/v3/group_channels/\(a)/messages?message_ts=9999999999999&prev_limit=20&next_limit=0")
            #expect((history.json["messages"] as? [Any])?.count == 7 - errors.count, "refused messages are not stored")
            await alice.close()
        }
    }
}

final class PortBox: Sendable {
    let value = Mutex<Int>(0)
    func set(_ v: Int) { value.withLock { $0 = v } }
    func get() -> Int { value.withLock { $0 } }
}
