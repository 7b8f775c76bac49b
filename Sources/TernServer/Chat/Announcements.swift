import Foundation
import Logging
import Synchronization
import TernProtocol

/// Announcements (`/v3/announcements`): one message — a user's (`MESG`) or an admin message
/// (`ADMM`) — sent to many channels at a scheduled time, with how many of its recipients have
/// read it since (their read receipt is at or after the moment it was sent).
///
/// Targets: `target_channels` (the URLs in `target_list`) and `sender_all_channels` (every group
/// channel the sender has joined, for `MESG`). An announcement scheduled for later waits in a
/// task of this process; one still scheduled when `ternd` starts is resumed. Its state is a
/// settings document: `scheduled`, `running`, `completed`, `paused`, `canceled`, `stopped`.
extension ChatService {
    static let announcementTargets: Set<String> = ["target_channels", "sender_all_channels"]

    func announcement(_ id: String) async throws -> [String: Any]? {
        guard let json = try await store.setting(scope: "announcement", key: id) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
    }

    func saveAnnouncement(_ a: [String: Any]) async throws {
        let data = try JSONSerialization.data(withJSONObject: a, options: [.sortedKeys])
        try await store.setSetting(scope: "announcement", key: a["unique_id"] as? String ?? "", json: String(decoding: data, as: UTF8.self))
    }

    func allAnnouncements() async throws -> [[String: Any]] {
        try await store.settings(scope: "announcement", keyPrefix: "").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.json.utf8))) as? [String: Any]
        }
    }

    /// Sends it now if its time has come, or waits for it in a task.
    func schedule(_ id: String) async throws {
        guard let a = try await announcement(id), a["status"] as? String == "scheduled" else { return }
        let at = (a["scheduled_at"] as? NSNumber)?.int64Value ?? 0
        let wait = at - now()
        if wait <= 0 {
            try await runAnnouncement(id)
            return
        }
        Task { [weak self] in
            try? await Task.sleep(for: .milliseconds(wait))
            try? await self?.runAnnouncement(id)
        }
    }

    /// Picks up the announcements still scheduled (at start).
    func resumeAnnouncements() async {
        guard let all = try? await allAnnouncements() else { return }
        for a in all where a["status"] as? String == "scheduled" {
            if let id = a["unique_id"] as? String { try? await schedule(id) }
        }
    }

    /// Sends the announcement to each target channel (a channel that refuses it — the sender not
    /// a member, muted, frozen — is counted as not sent).
    func runAnnouncement(_ id: String) async throws {
        guard var a = try await announcement(id), a["status"] as? String == "scheduled" else { return }
        a["status"] = "running"
        try await saveAnnouncement(a)
        let message = a["message"] as? [String: Any] ?? [:]
        let type = message["type"] as? String ?? "MESG"
        let sender = message["user_id"] as? String ?? ""
        let content = message["content"] as? String ?? ""
        let customType = a["message_custom_type"] as? String ?? ""
        let data = a["message_data"] as? String ?? ""
        var targets = a["target_list"] as? [String] ?? []
        if a["target_at"] as? String == "sender_all_channels" {
            targets = try await store.memberships(userId: sender).filter { $0.state == "joined" }.map(\.channelUrl)
        }
        var sent: [String: Any] = [:]
        for url in targets {
            // Stopped or cancelled meanwhile: the rest are not sent.
            if let current = try await announcement(id), current["status"] as? String != "running" { break }
            do {
                let payload: MessagePayload
                if type == "ADMM" {
                    payload = try await sendAdminMessage(channelUrl: url, message: content, customType: customType, data: data)
                } else {
                    var out = OutgoingMessage(channelUrl: url, message: content)
                    out.customType = customType
                    out.data = data
                    payload = try await sendUserMessage(from: sender, out, connection: nil, origin: .rest)
                }
                sent[url] = ["message_id": payload.messageId, "sent_at": payload.createdAt]
            } catch {
                logger.notice("announcement \(id): not sent to \(url): \(error)")
            }
        }
        guard var done = try await announcement(id) else { return }
        done["sent"] = sent
        done["sent_channel_count"] = sent.count
        done["target_channel_count"] = targets.count
        done["completed_at"] = now()
        if done["status"] as? String == "running" { done["status"] = "completed" }
        try await saveAnnouncement(done)
    }

    /// Who received it and whether they have read it: one row per member (not the sender) of each
    /// channel it was sent to.
    func openStatus(_ a: [String: Any]) async throws -> [(user: String, channel: String, opened: Bool, sentAt: Int64, openAt: Int64)] {
        let sender = (a["message"] as? [String: Any])?["user_id"] as? String
        var rows: [(user: String, channel: String, opened: Bool, sentAt: Int64, openAt: Int64)] = []
        for (url, info) in (a["sent"] as? [String: Any] ?? [:]).sorted(by: { $0.key < $1.key }) {
            let at = ((info as? [String: Any])?["sent_at"] as? NSNumber)?.int64Value ?? 0
            for m in try await store.members(url) where m.state == "joined" && m.userId != sender {
                rows.append((m.userId, url, m.readTs >= at, at, m.readTs >= at ? m.readTs : 0))
            }
        }
        return rows
    }
}
