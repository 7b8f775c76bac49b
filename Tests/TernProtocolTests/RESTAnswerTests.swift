import Foundation
import Testing

@testable import TernProtocol

@Suite("REST answers ternd writes and TernKit reads")
struct RESTAnswerTests {
    func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try WireCoding.decoder.decode(type, from: Data(json.utf8))
    }

    func object(_ value: some Encodable) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: WireCoding.encoder.encode(value)) as? [String: Any])
    }

    /// A user's keys as ternd writes them, with `extra` beside them.
    func user(_ id: String, _ extra: [String: Any] = [:]) throws -> [String: Any] {
        try object(UserPayload(userId: id, nickname: id.uppercased())).merging(extra) { $1 }
    }

    func json(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    @Test("A ban list nests the user, a mute list does not: both read; ternd writes the user flat and under `user`")
    func restrictionLists() throws {
        let bannedItem: [String: Any] = ["user": try user("u1"), "description": "d", "start_at": 1, "end_at": 9]
        let banned = try decode(RestrictionListPage.self, try json(["banned_list": [bannedItem]]))
        #expect(banned.isBan && banned.items.count == 1 && banned.total == 1 && banned.next == "")
        #expect(
            banned.items.first?.restriction
                == RestrictionPayload(user: UserPayload(userId: "u1", nickname: "U1"), description: "d", startAt: 1, endAt: 9))
        let muted = try decode(RestrictionListPage.self, try json(["muted_list": [try user("u2", ["description": "m"])], "next": "t"]))
        #expect(!muted.isBan && muted.items.first?.restriction.user.userId == "u2" && muted.items.first?.restriction.endAt == -1 && muted.next == "t")
        #expect(try decode(RestrictionListPage.self, "{}").items.isEmpty)

        let item = RestrictedUser(
            RestrictionPayload(user: UserPayload(userId: "u3"), description: "", startAt: 0, endAt: 1500), isBan: false, now: 1000)
        let written = RestrictionListPage(isBan: false, items: [item], total: 4, next: "")
        let page = try object(written)
        #expect(Set(page.keys) == ["muted_list", "total_mute_count", "next"])
        let first = try #require((page["muted_list"] as? [[String: Any]])?.first)
        #expect(first["user_id"] as? String == "u3" && first["restriction_type"] as? String == "muted")
        #expect(first["remaining_duration"] as? Int == 500 && (first["user"] as? [String: Any])?["user_id"] as? String == "u3")
        let again = try WireCoding.decoder.decode(RestrictionListPage.self, from: WireCoding.encoder.encode(written))
        #expect(again.items.first?.restriction == item.restriction && again.total == 4 && !again.isBan)
    }

    @Test("Keys left out read as their defaults")
    func defaults() throws {
        let push = try decode(ChannelPushPreferenceAnswer.self, "{}")
        #expect(push.pushTriggerOption == "default" && push.pushSound == "default" && push.enable)
        #expect(try !decode(ChannelPushPreferenceAnswer.self, #"{"push_trigger_option":"off"}"#).enable)
        #expect(
            try Set(object(ChannelPushPreferenceAnswer(pushTriggerOption: "all", pushSound: "s")).keys) == [
                "enable", "push_sound", "push_trigger_option",
            ])
        let upload = try decode(UploadAnswer.self, #"{"url":"http://x/f","file_size":3}"#)
        #expect(upload.requireAuth && upload.thumbnails.isEmpty && upload.fileSize == 3)
        #expect(throws: DecodingError.self) { try decode(UploadAnswer.self, #"{"file_size":3}"#) }
        #expect(try decode(MetadataAnswer.self, "{}").metadata.isEmpty)
        let emojis = try decode(EmojiCategoryList.self, #"{"emoji_categories":[{"emojis":[{"key":"smile"}]}]}"#)
        #expect(emojis.emojiCategories.flatMap { $0.emojis.map(\.key) } == ["smile"])
        let block = try decode(UserEventFrame<BlockEventData>.self, #"{"cat":20001,"data":{"blocker":{"user_id":"a"},"blockee":{"user_id":"b"}}}"#)
        #expect(block.cat == UserEvent.blocked && block.data.blockee.userId == "b" && block.ts == 0)
    }
}
