import Foundation
import TernProtocol

/// Turns store rows into the wire payloads of `TernProtocol`.
enum Presenter {
    static func user(_ u: UserRecord, online: Bool, accessToken: String? = nil) -> UserPayload {
        UserPayload(
            userId: u.userId, nickname: u.nickname, profileUrl: u.profileUrl, metadata: u.metadata, isOnline: online,
            lastSeenAt: online ? 0 : u.lastSeenAt, isActive: u.isActive, hasEverLoggedIn: u.hasEverLoggedIn,
            createdAt: u.createdAt, accessToken: accessToken)
    }

    static func sender(_ u: UserRecord) -> SenderPayload {
        SenderPayload(userId: u.userId, nickname: u.nickname, profileUrl: u.profileUrl, metadata: u.metadata)
    }

    static func message(_ m: MessageRecord, users: [String: UserRecord], channelType: String = "group") -> MessagePayload {
        message(m, senders: users.mapValues(sender), channelType: channelType)
    }

    /// A message with its sender and mentioned users as presented already (the sender cache's).
    static func message(_ m: MessageRecord, senders: [String: SenderPayload], channelType: String = "group") -> MessagePayload {
        let senderPayload: SenderPayload? = m.type == "ADMM" ? nil : m.senderId.map { id in senders[id] ?? SenderPayload(userId: id) }
        return MessagePayload(
            type: m.type, id: m.messageId, message: m.message, channelUrl: m.channelUrl, channelType: channelType,
            createdAt: m.createdAt, updatedAt: m.updatedAt, user: senderPayload, customType: m.customType, data: m.data,
            mentionType: m.mentionType,
            mentionedUsers: m.mentionedUserIds.map { id in senders[id] ?? SenderPayload(userId: id) },
            silent: m.silent, isOpMsg: m.isOpMsg, parentMessageId: m.parentMessageId
        )
        .with { p in
            p.sortedMetaarray = m.sortedMetaarray
            p.isReplyToChannel = m.replyToChannel
            if let og = m.ogTag { p.ogTag = try? JSONDecoder().decode(OGMetaData.self, from: Data(og.utf8)) }
            if let f = m.files, let files = try? JSONDecoder().decode([FilePayload].self, from: Data(f.utf8)), let first = files.first {
                p.file = first
                p.files = files
                // Files this server stores need the per-user `auth`; files elsewhere do not.
                p.requireAuth = files.contains { $0.url.contains("/v3/storage/file/") }
            }
        }
    }

    static func threadInfo(_ m: MessageRecord, users: [String: UserRecord]) -> ThreadInfo {
        ThreadInfo(
            replyCount: m.replyCount, mostReplies: m.mostReplies.map { id in users[id].map(sender) ?? SenderPayload(userId: id) },
            lastRepliedAt: m.lastRepliedAt, updatedAt: m.lastRepliedAt)
    }

    static func parentInfo(_ m: MessageRecord, users: [String: UserRecord]) -> ParentMessageInfo {
        ParentMessageInfo(
            messageId: m.messageId, message: m.message, ts: m.createdAt, type: m.type,
            user: m.type == "ADMM" ? nil : m.senderId.map { id in users[id].map(sender) ?? SenderPayload(userId: id) }, customType: m.customType)
    }

    /// Reactions grouped by key, each key in the order it first appeared.
    static func reactions(_ records: [ReactionRecord]) -> [ReactionPayload] {
        var out: [ReactionPayload] = []
        for r in records {
            if let i = out.firstIndex(where: { $0.key == r.key }) {
                out[i].userIds.append(r.userId)
                out[i].updatedAt = max(out[i].updatedAt, r.updatedAt)
            } else {
                out.append(ReactionPayload(key: r.key, userIds: [r.userId], updatedAt: r.updatedAt))
            }
        }
        return out
    }

    /// A group channel as `viewer` sees it (nil viewer: the Platform API's neutral view).
    static func groupChannel(
        _ c: ChannelRecord, members: [MemberRecord], users: [String: UserRecord], lastMessage: MessageRecord?,
        viewer: String?, online: (String) -> Bool
    ) -> GroupChannelPayload {
        var p = GroupChannelPayload(channelUrl: c.channelUrl)
        p.name = c.name
        p.coverUrl = c.coverUrl
        p.customType = c.customType
        p.data = c.data
        p.createdAt = c.createdAt
        p.createdBy = c.createdBy.map { id in users[id].map(sender) ?? SenderPayload(userId: id) }
        p.isDistinct = c.isDistinct
        p.isPublic = c.isPublic
        p.isSuper = c.isSuper
        p.isEphemeral = c.isEphemeral
        p.isDiscoverable = c.isPublic
        p.freeze = c.freeze
        p.memberCount = c.memberCount
        p.joinedMemberCount = c.joinedMemberCount
        p.members = members.map { m in
            let u = users[m.userId]
            let isOnline = online(m.userId)
            return MemberPayload(
                userId: m.userId, nickname: u?.nickname ?? "", profileUrl: u?.profileUrl ?? "", metadata: u?.metadata ?? [:],
                isOnline: isOnline, lastSeenAt: isOnline ? 0 : (u?.lastSeenAt ?? 0), state: m.state, role: m.role,
                readTs: c.isSuper ? nil : m.readTs, deliveredTs: c.isSuper ? nil : m.deliveredTs)
        }
        p.operators = members.filter { $0.role == "operator" }.map { m in users[m.userId].map(sender) ?? SenderPayload(userId: m.userId) }
        if !c.isSuper {
            var read: [String: Int64] = [:]
            var delivered: [String: Int64] = [:]
            for m in members where m.state == "joined" {
                read[m.userId] = m.readTs
                delivered[m.userId] = m.deliveredTs
            }
            p.readReceipt = read
            p.deliveryReceipt = delivered
        }
        p.lastMessage = lastMessage.map { message($0, users: users) }
        if let viewer, let me = members.first(where: { $0.userId == viewer }) {
            p.memberState = me.state
            p.myRole = me.role
            p.unreadMessageCount = c.isSuper ? min(me.unreadCount, 100) : me.unreadCount
            p.unreadMentionCount = me.unreadMentionCount
            p.countPreference = CountPreference.spelled(me.countPreference)
            p.userLastRead = me.readTs
            p.joinedTs = me.joinedTs / 1000
            p.invitedAt = me.invitedAt
            p.inviter = me.inviterId.map { id in users[id].map(sender) ?? SenderPayload(userId: id) }
            p.hiddenState = me.hiddenState
            p.isHidden = me.hiddenState != "unhidden"
            p.tsMessageOffset = me.tsMessageOffset
        }
        return p
    }
}

extension MessagePayload {
    /// A copy changed by `body`.
    func with(_ body: (inout MessagePayload) -> Void) -> MessagePayload {
        var copy = self
        body(&copy)
        return copy
    }
}
