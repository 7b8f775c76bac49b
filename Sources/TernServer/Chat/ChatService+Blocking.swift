import Foundation
import TernProtocol

/// The count preferences a member may choose (Sendbird's `CountPreference`), kept in the Chat SDK's
/// spelling. The Platform API spells two of them differently (`false`, `unread_mentioned_count_only`):
/// both are accepted, and Platform API callers get their spelling back.
public enum CountPreference {
    public static let all = "all"
    public static let messagesOnly = "unread_message_count_only"
    public static let mentionsOnly = "unread_mention_count_only"
    public static let off = "off"
    public static let values: Set<String> = [all, messagesOnly, mentionsOnly, off]

    /// The stored value for any accepted spelling, or nil.
    public static func parse(_ raw: String) -> String? {
        switch raw {
        case "false": off
        case "unread_mentioned_count_only": mentionsOnly
        default: values.contains(raw) ? raw : nil
        }
    }

    /// The value as the current caller spells it.
    public static func spelled(_ value: String) -> String {
        guard WireDialect.platform else { return value }
        switch value {
        case off: return "false"
        case mentionsOnly: return "unread_mentioned_count_only"
        default: return value
        }
    }
}

/// Who the current REST request comes from, where the Platform API and the Chat SDK spell a value
/// differently. Set per request by ``SendbirdErrorMiddleware``.
public enum WireDialect {
    @TaskLocal public static var platform = false
}

extension ChatService {
    // MARK: - Blocking (seed 003)

    /// `blocker` blocks each of `targets`. From then on, in 1:1 channels the blocked users' new
    /// messages are kept but never reach the blocker; in every channel they do not count as the
    /// blocker's unread. The blocker's devices hear `USEV` 20001; the blocked users are not told.
    /// Returns the users blocked (those already blocked included).
    @discardableResult
    public func block(_ blocker: String, targets: [String]) async throws -> [UserRecord] {
        if targets.isEmpty { throw SendbirdError.missing("target_id") }
        if targets.count > 100 { throw SendbirdError(.tooManyItems, "Too many users to block at once (at most 100).") }
        guard let me = try await store.user(blocker) else { throw SendbirdError(.notFound, "\"User\" not found: \(blocker).") }
        if targets.contains(blocker) { throw SendbirdError(.invalidValue, "A user cannot block themselves.") }
        let found = try await store.users(targets)
        let known = Set(found.map(\.userId))
        if let missing = targets.first(where: { !known.contains($0) }) {
            throw SendbirdError(.notFound, "\"User\" not found: \(missing).")
        }
        let t = now()
        for u in found {
            guard try await store.block(blocker, u.userId, at: t) else { continue }
            pushUserEvent(
                UserEventFrame(cat: UserEvent.blocked, data: BlockEventData(blocker: Presenter.sender(me), blockee: Presenter.sender(u)), ts: t),
                to: blocker)
        }
        return found
    }

    /// `blocker` unblocks `target`: its later messages count and arrive again; what it sent while
    /// blocked in a 1:1 channel stays hidden from the blocker.
    public func unblock(_ blocker: String, target: String) async throws {
        guard let me = try await store.user(blocker) else { throw SendbirdError(.notFound, "\"User\" not found: \(blocker).") }
        guard let u = try await store.user(target) else { throw SendbirdError(.notFound, "\"User\" not found: \(target).") }
        guard try await store.unblock(blocker, target) else {
            throw SendbirdError(.notFound, "\(target) is not blocked by \(blocker).")
        }
        pushUserEvent(
            UserEventFrame(cat: UserEvent.unblocked, data: BlockEventData(blocker: Presenter.sender(me), blockee: Presenter.sender(u)), ts: now()),
            to: blocker)
    }

    func pushUserEvent(_ event: UserEventFrame<BlockEventData>, to userId: String) {
        let frame = Self.frameText(.userEvent, event)
        send(frame, toUser: userId)
    }

    // MARK: - Count preference

    /// Sets what the member's unread counts count in one channel. Their devices hear 11000 with their
    /// new unread totals (a preference that leaves a count out also clears it).
    public func setCountPreference(channelUrl: String, userId: String, _ preference: String) async throws -> String {
        guard let value = CountPreference.parse(preference) else {
            throw SendbirdError(
                .invalidValue, "Invalid value: \"count_preference\" must be all, unread_message_count_only, unread_mention_count_only or off (false)."
            )
        }
        let channel = try await requireGroupChannel(channelUrl)
        _ = try await requireMember(channel, userId, code: .unauthorizedRequest)
        _ = try await store.setCountPreference(channelUrl, userId: userId, value)
        invalidateChannel(channelUrl)
        try await pushOwn(ChannelEventFrame(cat: ChannelEvent.changed, channelUrl: channelUrl, data: Empty(), ts: now()), to: userId)
        return value
    }

    public func countPreference(channelUrl: String, userId: String) async throws -> String {
        let channel = try await requireGroupChannel(channelUrl)
        return try await requireMember(channel, userId, code: .unauthorizedRequest).countPreference
    }
}
