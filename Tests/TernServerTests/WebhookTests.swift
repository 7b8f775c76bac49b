import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import Synchronization
import TernTestSupport
import Testing

@testable import TernServer

/// A webhook receiver on loopback: records what it is sent; the first `failFirst` requests get 503.
final class HookReceiver: StoppableServer {
    struct Hit: Sendable {
        let signature: String
        let body: Data
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    }
    final class Record: Sendable {
        let hits = Mutex<[Hit]>([])
        let attempts = Atomic<Int>(0)
    }
    let record = Record()
    var hitCount: Int { record.hits.withLock { $0.count } }
    var attemptCount: Int { record.attempts.load(ordering: .relaxed) }
    let failFirst: Int
    let task: Task<Void, any Error>
    let port: Int

    init(failFirst: Int = 0) async throws {
        self.failFirst = failFirst
        let router = Router()
        let (stream, cont) = AsyncStream<Int>.makeStream()
        let record = self.record
        router.post("/hook") { req, _ -> Response in
            let n = record.attempts.add(1, ordering: .relaxed).newValue
            if n <= failFirst { return Response(status: .serviceUnavailable) }
            let body = try await req.body.collect(upTo: 1 << 20)
            record.hits.withLock { $0.append(Hit(signature: req.headers[HTTPField.Name("x-sendbird-signature")!] ?? "", body: Data(buffer: body))) }
            return Response(status: .ok)
        }
        var logger = Logger(label: "hook-receiver")
        logger.logLevel = .critical
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in cont.yield(channel.localAddress?.port ?? 0) }, logger: logger)
        task = Task { try await app.runService(gracefulShutdownSignals: []) }
        var p = 0
        for await got in stream {
            p = got
            break
        }
        port = p
    }

    var url: String { "http://127.0.0.1:\(port)/hook" }

    func stop() async {
        task.cancel()
        _ = try? await task.value
    }

    /// Waits (up to 20 s) until at least `count` events arrived.
    func wait(for count: Int) async -> [Hit] {
        for _ in 0..<200 {
            let now = record.hits.withLock { $0 }
            if now.count >= count { return now }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return record.hits.withLock { $0 }
    }
}

/// Issue 20 §3: webhooks, end to end over loopback.
@Suite("Webhooks: signed events to a loopback receiver, in order, retried", .serialized)
struct WebhookTests {
    @Test("Messages sent over the SDK's WebSocket reach the webhook signed, in order, with members; settings are checked and kept")
    func signedOrderedEvents() async throws {
        try await running(try await HookReceiver()) { receiver in
            try await withServer(users: ["alice", "bob"], { $0.linkPreviews = false }) { s in
                let put = try await s.request(
                    "PUT", "/v3/applications/settings/webhook",
                    body: [
                        "enabled": true, "url": receiver.url, "include_members": true,
                        "enabled_events": [
                            "group_channel:create", "group_channel:message_send", "group_channel:message_update",
                            "group_channel:message_delete",
                        ],
                    ])
                #expect(put.status == 200, "\(put.text)")
                let got = try await s.request("GET", "/v3/applications/settings/webhook?display_all_webhook_categories=true")
                let hook = got.json["webhook"] as? [String: Any] ?? [:]
                #expect(hook["url"] as? String == receiver.url && hook["enabled"] as? Bool == true, "\(got.text)")
                #expect((hook["all_webhook_categories"] as? [String])?.contains("group_channel:message_send") == true)
                for bad: [String: Any] in [["url": "ftp://x"], ["enabled_events": ["group_channel:explode"]]] {
                    let r = try await s.request("PUT", "/v3/applications/settings/webhook", body: bad)
                    #expect(r.status == 400 && r.json["code"] as? Int == 400111, "\(bad): \(r.text)")
                }
                let sdk = try await s.request("GET", "/v3/applications/settings/webhook", headers: ["Session-Key": "whatever"])
                #expect(sdk.status == 403)

                let url = try await s.createChannel(["alice", "bob"])
                let (alice, _) = try await s.login("alice")
                for i in 1...5 {
                    alice.send("MESG", ["channel_url": url, "message": "hello \(i)", "req_id": "r\(i)"])
                    _ = await alice.next("MESG", where: { $0["req_id"] as? String == "r\(i)" })
                }
                await alice.close()
                let hits = await receiver.wait(for: 6)
                #expect(hits.count == 6, "\(hits.map { String(decoding: $0.body, as: UTF8.self) })")
                for h in hits {
                    #expect(h.signature == WebhookDispatcher.signature(h.body, key: s.apiToken), "signed with the API token")
                    #expect(h.signature.count == 64)
                }
                let events = hits.map(\.json)
                #expect(events.first?["category"] as? String == "group_channel:create")
                let sends = events.filter { $0["category"] as? String == "group_channel:message_send" }
                let texts = sends.compactMap { ($0["payload"] as? [String: Any])?["message"] as? String }
                #expect(texts == (1...5).map { "hello \($0)" }, "in the order they were sent: \(texts)")
                #expect((sends.first?["sender"] as? [String: Any])?["user_id"] as? String == "alice")
                #expect((sends.first?["channel"] as? [String: Any])?["channel_url"] as? String == url)
                let members = (sends.first?["members"] as? [[String: Any]] ?? []).compactMap { $0["user_id"] as? String }.sorted()
                #expect(members == ["alice", "bob"])
                // An edit and a deletion follow.
                let id = ((sends.last?["payload"] as? [String: Any])?["message_id"] as? NSNumber)?.int64Value ?? 0
                _ = try await s.request("PUT", "/v3/group_channels/\(url)/messages/\(id)", body: ["message_type": "MESG", "message": "edited"])
                _ = try await s.request("DELETE", "/v3/group_channels/\(url)/messages/\(id)")
                let later = await receiver.wait(for: 8).map(\.json).dropFirst(6).compactMap { $0["category"] as? String }
                #expect(later == ["group_channel:message_update", "group_channel:message_delete"], "\(later)")
            }
            // Kept across a restart is the store's job; a category not subscribed to is not sent.
        }
    }

    @Test("A receiver that fails at first gets the event on a retry; nothing is sent while webhooks are off")
    func retriedAndOff() async throws {
        try await running(try await HookReceiver(failFirst: 2)) { receiver in
            try await withServer({ $0.linkPreviews = false }) { s in
                let url = try await s.newChannel(of: ["alice", "bob"])
                _ = try await s.request(
                    "POST", "/v3/group_channels/\(url)/messages", body: ["message_type": "MESG", "user_id": "alice", "message": "before"])
                _ = try await s.request(
                    "PUT", "/v3/applications/settings/webhook", body: ["enabled": true, "url": receiver.url, "enabled_events": ["*"]])
                _ = try await s.request(
                    "POST", "/v3/group_channels/\(url)/messages", body: ["message_type": "MESG", "user_id": "alice", "message": "after"])
                let hits = await receiver.wait(for: 1)
                #expect(hits.count == 1, "delivered once, after two refusals")
                #expect(receiver.attemptCount == 3)
                #expect((hits.first?.json["payload"] as? [String: Any])?["message"] as? String == "after")
                _ = try await s.request("PUT", "/v3/applications/settings/webhook", body: ["enabled": false])
                _ = try await s.request(
                    "POST", "/v3/group_channels/\(url)/messages", body: ["message_type": "MESG", "user_id": "alice", "message": "off"])
                try await Task.sleep(for: .milliseconds(500))
                #expect(receiver.hitCount == 1)
                #expect(s.app.service.webhooks.dropped.load(ordering: .relaxed) == 0)
            }
        }
    }
}
