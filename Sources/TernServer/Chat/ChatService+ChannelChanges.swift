import Foundation
public import TernProtocol

extension ChatService {
    /// What a channel changelog page answers.
    public struct ChannelChangelogPage: Sendable {
        public var updated: [GroupChannelPayload]
        public var deleted: [String]
        public var hasMore: Bool
        /// Where the next call resumes: the last change of this page; when nothing changed, the cursor given
        /// (no later than now), so the next call sees only what changes after this one.
        public var next: ChannelChangeCursor
    }

    /// `my_group_channels/changelogs`: the user's channels that changed after `cursor` (shown as the user sees
    /// them now, through the same filters as their channel list: `custom_types`, `show_empty`, `show_frozen`)
    /// and the channels they lost, oldest change first, `limit` in all.
    public func channelChangelog(
        userId: String, after cursor: ChannelChangeCursor, limit: Int, customTypes: [String]?, showEmpty: Bool, showFrozen: Bool
    ) async throws -> ChannelChangelogPage {
        let (updated, deleted) = try await store.channelChanges(userId: userId, after: cursor, limit: limit + 1)
        enum Item {
            case updated(String)
            case deleted(String)
        }
        var items: [(at: Int64, url: String, item: Item)] = updated.map { ($0.at, $0.url, .updated($0.url)) }
        items += deleted.map { ($0.at, $0.url, .deleted($0.url)) }
        items.sort { ($0.at, $0.url) < ($1.at, $1.url) }
        let page = Array(items.prefix(limit))
        var changedUrls: [String] = []
        var gone: [String] = []
        for entry in page {
            switch entry.item {
            case .updated(let url): changedUrls.append(url)
            case .deleted(let url): gone.append(url)
            }
        }
        var channels: [GroupChannelPayload] = []
        if !changedUrls.isEmpty {
            var query = ChannelListQuery(memberId: userId, limit: changedUrls.count)
            query.channelUrls = changedUrls
            query.showEmpty = showEmpty
            query.showFrozen = showFrozen
            query.customTypes = customTypes
            query.hiddenMode = "all"
            let rows = try await store.listChannels(query).map(\.channel)
            let order = Dictionary(uniqueKeysWithValues: changedUrls.enumerated().map { ($1, $0) })
            let sorted = rows.sorted { (order[$0.channelUrl] ?? 0) < (order[$1.channelUrl] ?? 0) }
            channels = try await present(sorted, viewer: userId)
        }
        let next = page.last.map { ChannelChangeCursor(ts: $0.at, url: $0.url) } ?? Self.resumePoint(cursor, now: now())
        return ChannelChangelogPage(updated: channels, deleted: gone, hasMore: items.count > limit, next: next)
    }

    /// Where a changelog with nothing new resumes: the cursor asked with, brought back to now when it lies
    /// in the future (a client clock ahead would otherwise skip what changes until then). Not simply
    /// "now": a change stamped a moment ago may still be committing, and the cursor asked with keeps it.
    static func resumePoint(_ cursor: ChannelChangeCursor, now: Int64) -> ChannelChangeCursor {
        cursor.ts > now ? ChannelChangeCursor(ts: now) : cursor
    }
}
