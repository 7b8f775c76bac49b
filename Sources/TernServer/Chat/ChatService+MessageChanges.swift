import Foundation
public import TernProtocol

/// What to add to presented messages.
public struct MessageExtras: Sendable, OptionSet {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let threadInfo = MessageExtras(rawValue: 1)
    public static let parentInfo = MessageExtras(rawValue: 2)
    public static let reactions = MessageExtras(rawValue: 4)
    public static let all: MessageExtras = [.threadInfo, .parentInfo, .reactions]
}

/// What an update may change (nil: unchanged): the store's ``MessageChange``, whose `updatedAt`
/// the service sets.
public typealias MessageUpdate = MessageChange

extension ChatService {
    /// Reaction keys a message may carry, and the length of one.
    static let maxReactionKeys = 20
    static let maxReactionKeyLength = 128

    /// Who may change or delete `m`: its sender, or an operator of the channel; the Platform API
    /// (`by` nil) always. Admin messages only through the Platform API.
    func requireMayChange(_ m: MessageRecord, roster: ChannelRoster, by: String?, code: ErrorCode) throws {
        guard let by else { return }
        let me = try requireJoined(roster, by: by, code: code)
        if m.senderId == by || me.role == "operator" { return }
        throw SendbirdError(.unauthorizedRequest, "Only the sender or an operator can change this message.")
    }

    /// A joined member (or open-channel participant): checked before any message is looked up,
    /// so that an outsider learns nothing about which message ids exist.
    @discardableResult
    func requireJoined(_ roster: ChannelRoster, by: String, code: ErrorCode) throws -> MemberRecord {
        guard let me = roster.memberOrParticipant(by), me.state == "joined" else {
            throw SendbirdError(
                code == .unauthorizedRequest ? .unauthorizedRequest : .notAMember, "Not a member of the channel: \(roster.channel.channelUrl).")
        }
        return me
    }

    /// The channel and the message `by` is about to change (update or delete), once the rule
    /// allows it: a joined member within the flood limit for changes, a message they can see and
    /// may change (``requireMayChange(_:roster:by:code:)``). `by` nil: the Platform API.
    func changeableMessage(channelUrl: String, id: Int64, by: String?, origin: RequestOrigin) async throws -> (ChannelRoster, MessageRecord) {
        guard let roster = try await roster(channelUrl) else {
            throw SendbirdError(origin.channelNotFound, "\"Channel\" not found: \(channelUrl).")
        }
        if let by {
            try requireJoined(roster, by: by, code: origin == .webSocket ? .notAMember : .unauthorizedRequest)
            try floodLimits.check(.changes, userId: by, channelUrl: channelUrl, origin: origin, at: now())
        }
        guard let m = try await store.message(channelUrl, id: id), m.hiddenFor == nil || m.hiddenFor != by else {
            throw SendbirdError(origin == .webSocket ? .messageNotFound : .notFound, "\"Message\" not found: \(id).")
        }
        try requireMayChange(m, roster: roster, by: by, code: origin == .webSocket ? .notAMember : .unauthorizedRequest)
        return (roster, m)
    }

    /// Updates a message: text, data, custom type, mentions, metaarray. The change goes to every
    /// member as `MEDI` (with `old_values`); `connection` (the editing socket) gets it with `req_id`.
    @discardableResult
    public func updateMessage(
        channelUrl: String, id: Int64, _ update: MessageUpdate, by: String?, connection: ClientConnection? = nil, reqId: String? = nil,
        origin: RequestOrigin
    ) async throws -> MessagePayload {
        let (roster, old) = try await changeableMessage(channelUrl: channelUrl, id: id, by: by, origin: origin)
        if let by, roster.channel.freeze, !roster.isOperator(by) {
            throw SendbirdError(.channelFrozen, "The channel is frozen.")
        }
        if let text = update.message {
            if text.isEmpty && old.type == "MESG" { throw SendbirdError.missing("message") }
            try (old.type == "ADMM" ? TextLimit.adminMessage : TextLimit.message(config.maxMessageLength)).check(text)
        }
        try TextLimit.customType.check(update.customType)
        try TextLimit.data.check(update.data)
        if let ids = update.mentionedUserIds, ids.count > 100 { throw SendbirdError(.tooManyItems, "Too many mentioned users (at most 100).") }
        try Self.checkMetaarray(update.metaarray?.items ?? [])
        var change = MessageChange(updatedAt: now())
        if let text = update.message, old.type != "ADMM" {
            change.message = try await filtered(text, channel: roster.channel)
        } else {
            change.message = update.message
        }
        change.data = update.data
        change.customType = update.customType
        change.mentionType = update.mentionType.map { $0 == "channel" ? "channel" : "users" }
        if let ids = update.mentionedUserIds {
            let known = Set(try await store.users(ids).map(\.userId))
            change.mentionedUserIds = ids.filter { known.contains($0) }
        }
        change.metaarray = update.metaarray
        return try await sendQueue.run(channelUrl) {
            let (before, after) = try await store.updateMessage(channelUrl, id: id, change)
            var payload = try await presentMessages([after], extras: [.threadInfo, .parentInfo, .reactions])[0]
            var oldValues: [String: String] = [:]
            if before.message != after.message { oldValues["message"] = before.message }
            if before.data != after.data { oldValues["data"] = before.data }
            if before.customType != after.customType { oldValues["custom_type"] = before.customType }
            if before.mentionType != after.mentionType { oldValues["mention_type"] = before.mentionType }
            payload.oldValues = oldValues
            let json = String(decoding: try WireCoding.encoder.encode(payload), as: UTF8.self)
            let command = after.type == "FILE" ? Command.updateFileMessage : Command.updateMessage
            if let conn = connection, let req = reqId { conn.send(command.rawValue + Self.withReqId(json, req) + "\n") }
            broadcast(command.rawValue + json + "\n", in: roster, except: reqId == nil ? nil : connection) { $0 != after.hiddenFor }
            await webhookMessage("message_update", after, roster: roster)
            payload.reqId = reqId
            return payload
        }
    }

    /// Deletes a message: every member hears `DELM`, the one who deleted it included; a reply's
    /// parent has its thread recounted (`MTHD`).
    public func deleteMessage(channelUrl: String, id: Int64, by: String?, origin: RequestOrigin) async throws {
        let (roster, _) = try await changeableMessage(channelUrl: channelUrl, id: id, by: by, origin: origin)
        try await sendQueue.run(channelUrl) {
            let (deleted, parent) = try await store.deleteMessage(channelUrl, id: id, at: now())
            let event = DeleteMessageEvent(channelUrl: channelUrl, channelType: roster.channel.channelType, msgId: id)
            broadcast(Self.frameText(.deleteMessage, event), in: roster)
            if let parent { try await pushThreadInfo(parent, in: roster) }
            await webhookMessage("message_delete", deleted, roster: roster)
        }
    }

    /// `MTHD` with the parent's thread as it is now.
    func pushThreadInfo(_ parent: MessageRecord, in roster: ChannelRoster) async throws {
        let info = try await threadInfo(parent)
        let event = ThreadInfoEvent(
            channelUrl: parent.channelUrl, channelType: roster.channel.channelType, parentMessageId: parent.messageId, threadInfo: info)
        broadcast(Self.frameText(.threadInfo, event), in: roster)
    }

    func threadInfo(_ parent: MessageRecord) async throws -> ThreadInfo {
        var repliers: [SenderPayload] = []
        for id in parent.mostReplies { if let s = try await sender(id) { repliers.append(s) } }
        return ThreadInfo(replyCount: parent.replyCount, mostReplies: repliers, lastRepliedAt: parent.lastRepliedAt, updatedAt: now())
    }

    // MARK: - Changelogs

    /// One page of a channel's message changes for a viewer (members only; messages hidden from them are left
    /// out): updated and deleted messages merged in the order they changed. `next` continues after the page.
    public func messageChangelog(
        _ channelUrl: String, after cursor: MessageChangeCursor, limit: Int, viewer: String?, extras: MessageExtras, replyType: String
    ) async throws -> (updated: [MessagePayload], deleted: [(id: Int64, at: Int64)], hasMore: Bool, next: MessageChangeCursor?) {
        let channel = try await requireChannel(channelUrl)
        var offset: Int64 = 0
        if let viewer { offset = try await requireMember(channel, viewer, code: .unauthorizedRequest).tsMessageOffset }
        let (updated, deleted) = try await store.messageChanges(channelUrl, after: cursor, limit: limit + 1)
        enum Item {
            case updated(MessageRecord)
            case deleted(Int64, Int64)
        }
        var items: [(ts: Int64, id: Int64, item: Item)] = updated.map { ($0.changedAt, $0.messageId, .updated($0)) }
        items += deleted.map { ($0.at, $0.id, .deleted($0.id, $0.at)) }
        items.sort { ($0.ts, $0.id) < ($1.ts, $1.id) }
        let page = Array(items.prefix(limit))
        var records: [MessageRecord] = []
        var gone: [(id: Int64, at: Int64)] = []
        for entry in page {
            switch entry.item {
            case .updated(let m):
                if let viewer, m.hiddenFor == viewer { continue }
                if m.createdAt <= offset { continue }
                if m.parentMessageId != 0 && replyType == "none" { continue }
                if m.parentMessageId != 0 && replyType == "only_reply_to_channel" && !m.replyToChannel { continue }
                records.append(m)
            case .deleted(let id, let at):
                gone.append((id, at))
            }
        }
        let next = page.last.map { MessageChangeCursor(ts: $0.ts, messageId: $0.id) } ?? cursor
        return (try await presentMessages(records, extras: extras), gone, items.count > limit, next)
    }

    // MARK: - Reactions

    /// Adds (or removes) `userId`'s reaction `key` on a message; every member hears `MRCT`, the
    /// reactor included.
    @discardableResult
    public func react(channelUrl: String, id: Int64, key: String, userId: String, add: Bool, origin: RequestOrigin) async throws -> ReactionEvent {
        guard let roster = try await roster(channelUrl) else {
            throw SendbirdError(origin.channelNotFound, "\"Channel\" not found: \(channelUrl).")
        }
        guard roster.memberOrParticipant(userId)?.state == "joined" else {
            throw SendbirdError(origin == .webSocket ? .notAMember : .unauthorizedRequest, "Not a member of the channel: \(channelUrl).")
        }
        if roster.channel.isOpen, roster.isBanned(userId, at: now()) {
            throw Self.banned(roster.banned[userId] ?? -1, webSocket: origin == .webSocket)
        }
        try floodLimits.check(.changes, userId: userId, channelUrl: channelUrl, origin: origin, at: now())
        if key.isEmpty { throw SendbirdError.missing("reaction") }
        try TextLimit("reaction", characters: Self.maxReactionKeyLength).check(key)
        if add, try await !reactionsEnabled() {
            throw SendbirdError(.invalidValue, "Reactions are turned off for this application.")
        }
        try Identifier.check(key, field: "reaction")
        guard let m = try await store.message(channelUrl, id: id), m.hiddenFor != userId else {
            throw SendbirdError(origin == .webSocket ? .messageNotFound : .notFound, "\"Message\" not found: \(id).")
        }
        if m.type == "ADMM" { throw SendbirdError(.invalidValue, "Admin messages take no reactions.") }
        let t = now()
        return try await sendQueue.run(channelUrl) {
            if add {
                let existing = try await store.reactions([id])[id] ?? []
                if !existing.contains(where: { $0.key == key }) && Set(existing.map(\.key)).count >= Self.maxReactionKeys {
                    throw SendbirdError(.tooManyItems, "A message takes at most \(Self.maxReactionKeys) different reactions.")
                }
            }
            let changed =
                add
                ? try await store.addReaction(id, key: key, userId: userId, at: t)
                : try await store.deleteReaction(id, key: key, userId: userId, at: t)
            let event = ReactionEvent(
                channelUrl: channelUrl, channelType: roster.channel.channelType, msgId: id, reaction: key, userId: userId,
                operation: add ? "ADD" : "DELETE", updatedAt: t)
            if changed { broadcast(Self.frameText(.reaction, event), in: roster) { $0 != m.hiddenFor } }
            return event
        }
    }

    // MARK: - Presenting

    /// Messages with their users, and what `extras` asks for: thread info, the parents of replies,
    /// reactions. Link previews and files are always there.
    func presentMessages(_ records: [MessageRecord], extras: MessageExtras) async throws -> [MessagePayload] {
        var parents: [Int64: MessageRecord] = [:]
        if extras.contains(.parentInfo) {
            let ids = Set(records.map(\.parentMessageId).filter { $0 != 0 })
            for p in try await store.messages(ids: Array(ids)) { parents[p.messageId] = p }
        }
        var ids = Set<String>()
        for r in records + Array(parents.values) {
            if let s = r.senderId { ids.insert(s) }
            ids.formUnion(r.mentionedUserIds)
            if extras.contains(.threadInfo) { ids.formUnion(r.mostReplies) }
        }
        let users = Dictionary(uniqueKeysWithValues: try await store.users(Array(ids)).map { ($0.userId, $0) })
        let reactions = extras.contains(.reactions) ? try await store.reactions(records.map(\.messageId)) : [:]
        var types: [String: String] = [:]
        for url in Set(records.map(\.channelUrl)) { types[url] = try await roster(url)?.channel.channelType ?? "group" }
        return records.map { r in
            var p = Presenter.message(r, users: users, channelType: types[r.channelUrl] ?? "group")
            if extras.contains(.threadInfo), r.replyCount > 0 || r.parentMessageId == 0 {
                p.threadInfo = Presenter.threadInfo(r, users: users)
            }
            if let parent = parents[r.parentMessageId] { p.parentMessageInfo = Presenter.parentInfo(parent, users: users) }
            if extras.contains(.reactions) { p.reactions = Presenter.reactions(reactions[r.messageId] ?? []) }
            return p
        }
    }

    static func checkMetaarray(_ items: [MetaArrayItem]) throws {
        if items.count > 50 { throw SendbirdError(.tooManyItems, "Too many metaarray keys (at most 50).") }
        for i in items {
            if i.key.isEmpty { throw SendbirdError.missing("metaarray key") }
            try TextLimit.metaarrayKey.check(i.key)
            try Identifier.check(i.key, field: "metaarray key")
            if i.value.count > 50 { throw SendbirdError(.tooManyItems, "Too many values under \(i.key) (at most 50).") }
            for v in i.value { try TextLimit.metaarrayValue.check(v) }
        }
    }
}

/// A message search as the SDKs and the Platform API ask for it.
public struct MessageSearchRequest: Sendable {
    public var keyword: String
    public var advanced = false
    public var exactMatch = false
    public var channelUrl: String?
    public var channelCustomType: String?
    public var from: Int64?
    public var to: Int64?
    /// `score` or `ts`.
    public var sortField = "score"
    public var reverse = false
    public var limit = 20
    /// Where the previous page ended (`end_cursor`).
    public var after: String?
    public init(keyword: String) { self.keyword = keyword }
}

extension ChatService {
    /// Searches the messages `viewer` may read (every channel for the Platform API).
    public func searchMessages(_ r: MessageSearchRequest, viewer: String?) async throws -> MessageSearchPage {
        if r.keyword.trimmingCharacters(in: .whitespaces).isEmpty { throw SendbirdError.missing("query") }
        try TextLimit.searchQuery.check(r.keyword)
        guard (1...100).contains(r.limit) else { throw SendbirdError(.invalidValue, "Invalid value: \"limit\" must be 1 to 100.") }
        guard r.sortField == "score" || r.sortField == "ts" else {
            throw SendbirdError(.invalidValue, "Invalid value: \"sort_field\" must be score or ts.")
        }
        if let url = r.channelUrl, let viewer {
            let channel = try await requireChannel(url)
            _ = try await requireMember(channel, viewer, code: .unauthorizedRequest)
        }
        let store = self.store
        let match: String
        if r.advanced {
            let expression = try await SearchQuery.advanced(r.keyword) { pattern in try await store.searchVocabulary(pattern) }
            match = expression
        } else {
            match = "message : (" + (try SearchQuery.plain(r.keyword, exact: r.exactMatch)) + ")"
        }
        var q = MessageSearch(match: match)
        q.userId = viewer
        q.channelUrl = r.channelUrl
        q.channelCustomType = r.channelCustomType
        q.from = r.from
        q.to = r.to
        q.byScore = r.sortField == "score"
        q.newestFirst = r.reverse
        q.limit = r.limit
        if let after = r.after, !after.isEmpty {
            guard let data = Data(base64Encoded: after), let n = Int(String(decoding: data, as: UTF8.self)), n >= 0 else {
                throw SendbirdError(.invalidValue, "Invalid value: \"after\".")
            }
            q.offset = n
        }
        let (records, total) = try await store.searchMessages(q)
        let end = q.offset + records.count
        let results = try await presentMessages(records, extras: [.parentInfo])
        return MessageSearchPage(
            results: results, hasNext: end < total, endCursor: Data(String(end).utf8).base64EncodedString(), totalCount: total)
    }
}
