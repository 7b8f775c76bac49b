// `MESG`/`FILE`/`ADMM` payloads written by ``JSONWriter``, once per message on ternd's send path:
// the same members as `MessagePayload.encode(to:)` (Message.swift), in the same order; the rare
// nested parts (threads, reactions, link previews, files) go through `JSONEncoder`.

extension JSONWriter {
    /// A metaarray: `[{"key": …, "value": […]}]`.
    package mutating func metaarray(_ items: [MetaArrayItem]) {
        beginArray()
        for item in items {
            beginObject()
            key("key")
            string(item.key)
            key("value")
            strings(item.value)
            endObject()
        }
        endArray()
    }

    /// A list written by `JSONEncoder`, or `[]` without it when empty (most messages' reactions and files).
    package mutating func list(_ items: [some Encodable]) throws {
        if items.isEmpty {
            beginArray()
            endArray()
        } else {
            try encoded(items)
        }
    }
}

extension SenderPayload {
    package func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("user_id")
        w.string(userId)
        w.key("nickname")
        w.string(nickname)
        w.key("profile_url")
        w.string(profileUrl)
        w.key("metadata")
        w.stringMap(metadata)
        w.key("role")
        w.string(role)
        w.key("is_active")
        w.bool(isActive)
        w.key("require_auth_for_profile_image")
        w.bool(requireAuthForProfileImage)
        w.endObject()
    }
}

extension ParentMessageInfo {
    package func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("message_id")
        w.int(messageId)
        w.key("message")
        w.string(message)
        w.key("ts")
        w.int(ts)
        w.key("type")
        w.string(type)
        if let user {
            w.key("user")
            user.write(to: &w)
        }
        w.key("custom_type")
        w.string(customType)
        w.endObject()
    }
}

extension MessagePayload {
    /// The payload as JSON, as ``WireCoding/encoder`` writes it (the same members and values).
    package func jsonBytes() throws -> [UInt8] {
        var w = JSONWriter(capacity: 384 + message.utf8.count + data.utf8.count)
        try write(to: &w)
        return w.bytes
    }

    package func write(to w: inout JSONWriter) throws {
        w.beginObject()
        writeCommon(to: &w)
        try writeOptional(to: &w)
        w.endObject()
    }

    /// The members every message has.
    private func writeCommon(to w: inout JSONWriter) {
        w.key("type")
        w.string(type)
        w.key("message_id")
        w.int(messageId)
        w.key("msg_id")
        w.int(msgId)
        w.key("message")
        w.string(message)
        w.key("channel_url")
        w.string(channelUrl)
        w.key("channel_type")
        w.string(channelType)
        w.key("created_at")
        w.int(createdAt)
        w.key("ts")
        w.int(ts)
        w.key("updated_at")
        w.int(updatedAt)
        if let user {
            w.key("user")
            user.write(to: &w)
        }
        w.key("custom_type")
        w.string(customType)
        w.key("data")
        w.string(data)
        w.key("sorted_metaarray")
        w.metaarray(sortedMetaarray)
        w.key("mention_type")
        w.string(mentionType)
        w.key("mentioned_users")
        w.beginArray()
        for u in mentionedUsers { u.write(to: &w) }
        w.endArray()
        w.key("silent")
        w.bool(silent)
        w.key("is_op_msg")
        w.bool(isOpMsg)
        w.key("is_removed")
        w.bool(isRemoved)
        w.key("message_survival_seconds")
        w.int(messageSurvivalSeconds)
        w.key("parent_message_id")
        w.int(parentMessageId)
        w.key("is_reply_to_channel")
        w.bool(isReplyToChannel)
    }

    /// The members only some messages have.
    private func writeOptional(to w: inout JSONWriter) throws {
        if let reqId {
            w.key("req_id")
            w.string(reqId)
        }
        if let threadInfo {
            w.key("thread_info")
            try w.encoded(threadInfo)
        }
        if let parentMessageInfo {
            w.key("parent_message_info")
            parentMessageInfo.write(to: &w)
        }
        if let reactions {
            w.key("reactions")
            try w.encoded(reactions)
        }
        if let ogTag {
            w.key("og_tag")
            try w.encoded(ogTag)
        }
        if let oldValues {
            w.key("old_values")
            w.stringMap(oldValues)
        }
        if let translations {
            w.key("translations")
            w.stringMap(translations)
        }
        if let file {
            w.key("file")
            try w.encoded(file)
            w.key("url")
            w.string(file.url)
            w.key("name")
            w.string(file.name)
            w.key("size")
            w.int(file.size)
            w.key("thumbnails")
            try w.encoded(file.thumbnails)
        }
        if let files {
            w.key("files")
            try w.encoded(files)
        }
        if let requireAuth {
            w.key("require_auth")
            w.bool(requireAuth)
        }
    }
}
