import Foundation
import TernProtocol

// Channels and messages as the offline cache keeps them (its `json` columns), written by
// ``JSONWriter`` instead of `JSONEncoder`: the same members the synthesized `Encodable`
// conformances write (property names as keys, every non-optional member, optionals only when set),
// so the synthesized `Decodable` reads them back unchanged (`swift test --filter CacheJSONTests`).
// The cache writes every message that arrives and every channel it moves, once a second: this was
// most of the cache's CPU per incoming line (issue 36). The rare parts (threads, reactions, link
// previews, files) still go through `JSONEncoder`.

extension User {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("userId")
        w.string(userId)
        w.key("nickname")
        w.string(nickname)
        w.key("profileUrl")
        w.string(profileUrl)
        w.endObject()
    }
}

extension Member {
    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("user")
        user.write(to: &w)
        w.key("state")
        w.string(state)
        w.key("role")
        w.string(role)
        w.key("isOnline")
        w.bool(isOnline)
        w.key("isMuted")
        w.bool(isMuted)
        w.endObject()
    }
}

extension Message {
    /// The message as the cache stores it.
    func cacheJSON() throws -> Data {
        var w = JSONWriter(capacity: 320 + text.utf8.count + data.utf8.count)
        try write(to: &w)
        return Data(w.bytes)
    }

    func write(to w: inout JSONWriter) throws {
        w.beginObject()
        w.key("messageId")
        w.int(messageId)
        if let requestId {
            w.key("requestId")
            w.string(requestId)
        }
        w.key("channelUrl")
        w.string(channelUrl)
        w.key("kind")
        w.string(kind.rawValue)
        w.key("text")
        w.string(text)
        if let sender {
            w.key("sender")
            sender.write(to: &w)
        }
        w.key("createdAt")
        w.int(createdAt)
        w.key("updatedAt")
        w.int(updatedAt)
        w.key("customType")
        w.string(customType)
        w.key("data")
        w.string(data)
        w.key("silent")
        w.bool(silent)
        w.key("mentionedUserIds")
        w.strings(mentionedUserIds)
        w.key("mentionType")
        w.string(mentionType)
        w.key("parentMessageId")
        w.int(parentMessageId)
        w.key("isReplyToChannel")
        w.bool(isReplyToChannel)
        try writeParts(to: &w)
        w.key("status")
        w.string(status.rawValue)
        if let error {
            w.key("error")
            w.beginObject()
            w.key("code")
            w.int(error.code.rawValue)
            w.key("message")
            w.string(error.message)
            w.endObject()
        }
        w.endObject()
    }

    /// Reply, thread, reactions, link preview, files and metaarray: empty for most messages.
    private func writeParts(to w: inout JSONWriter) throws {
        if let parent {
            w.key("parent")
            w.beginObject()
            w.key("messageId")
            w.int(parent.messageId)
            w.key("text")
            w.string(parent.text)
            if let sender = parent.sender {
                w.key("sender")
                sender.write(to: &w)
            }
            w.key("createdAt")
            w.int(parent.createdAt)
            w.endObject()
        }
        if let thread {
            w.key("thread")
            try w.encoded(thread)
        }
        w.key("reactions")
        try w.list(reactions)
        if let preview {
            w.key("preview")
            try w.encoded(preview)
        }
        w.key("files")
        try w.list(files)
        w.key("metaarray")
        w.metaarray(metaarray)
    }
}

extension GroupChannel {
    /// The channel as the cache stores it.
    func cacheJSON() throws -> Data {
        var w = JSONWriter(capacity: 512 + 96 * members.count)
        w.beginObject()
        w.key("url")
        w.string(url)
        w.key("name")
        w.string(name)
        w.key("coverUrl")
        w.string(coverUrl)
        w.key("customType")
        w.string(customType)
        w.key("data")
        w.string(data)
        w.key("createdAt")
        w.int(createdAt)
        w.key("isDistinct")
        w.bool(isDistinct)
        w.key("isPublic")
        w.bool(isPublic)
        w.key("isSuper")
        w.bool(isSuper)
        w.key("isEphemeral")
        w.bool(isEphemeral)
        w.key("isFrozen")
        w.bool(isFrozen)
        w.key("members")
        w.beginArray()
        for m in members { m.write(to: &w) }
        w.endArray()
        w.key("memberCount")
        w.int(memberCount)
        w.key("joinedMemberCount")
        w.int(joinedMemberCount)
        w.key("unreadMessageCount")
        w.int(unreadMessageCount)
        w.key("unreadMentionCount")
        w.int(unreadMentionCount)
        if let lastMessage {
            w.key("lastMessage")
            try lastMessage.write(to: &w)
        }
        w.key("readReceipt")
        Self.writeTimes(readReceipt, to: &w)
        w.key("deliveryReceipt")
        Self.writeTimes(deliveryReceipt, to: &w)
        w.key("myMemberState")
        w.string(myMemberState)
        w.key("myRole")
        w.string(myRole)
        w.key("hiddenState")
        w.string(hiddenState)
        w.key("metadata")
        w.stringMap(metadata)
        if let inviter {
            w.key("inviter")
            inviter.write(to: &w)
        }
        w.key("messageOffset")
        w.int(messageOffset)
        w.key("countPreference")
        w.string(countPreference)
        w.endObject()
        return Data(w.bytes)
    }

    /// Receipt times by user id.
    static func writeTimes(_ times: [String: Millis], to w: inout JSONWriter) {
        w.beginObject()
        for (user, ms) in times {
            w.key(user)
            w.int(ms)
        }
        w.endObject()
    }
}
