import Foundation
import TernProtocol

/// One emoji of `POST /v3/emojis` and of a category in `POST /v3/emoji_categories`: `key` (not
/// empty, at most a reaction key's length) and `url` (http or https) are required. That the key is
/// new in the catalog is the handler's check.
struct NewEmojiBody: Decodable {
    let key: String
    let url: String
    enum CodingKeys: String, CodingKey { case key, url }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard let key = try c.string(.key), !key.isEmpty else { throw SendbirdError.missing("key") }
        try TextLimit("key", characters: ChatService.maxReactionKeyLength).check(key)
        guard let url = try c.string(.url) else { throw SendbirdError.missing("url") }
        try WebURL.check(url, field: "url")
        self.key = key
        self.url = url
    }
}

/// `POST /v3/emoji_categories`: `emoji_categories`, a non-empty list of categories, each with a
/// `name` (required, not empty), an optional `url` and optional `emojis` (``NewEmojiBody``).
struct NewEmojiCategoriesBody: Decodable {
    let categories: [Category]
    enum CodingKeys: String, CodingKey { case emojiCategories = "emoji_categories" }

    struct Category: Decodable {
        let name: String
        let url: String
        let emojis: [NewEmojiBody]
        enum CodingKeys: String, CodingKey { case name, url, emojis }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            guard let name = try c.string(.name), !name.isEmpty else { throw SendbirdError.missing("name") }
            try TextLimit.channelName.check(name)
            self.name = name
            url = try c.string(.url) ?? ""
            if !url.isEmpty { try WebURL.check(url, field: "url") }
            // `null` is no emojis; anything else is read as the list.
            let given = try c.contains(.emojis) && !c.decodeNil(forKey: .emojis)
            emojis = given ? try c.objectList(NewEmojiBody.self, .emojis) ?? [] : []
        }
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard c.contains(.emojiCategories) else { throw SendbirdError.missing("emoji_categories") }
        guard let list = try c.objectList(Category.self, .emojiCategories), !list.isEmpty else {
            throw SendbirdErrorFactory.wrongType("emoji_categories", "list of objects")
        }
        categories = list
    }
}

/// `POST /v3/emojis`: `emoji_category_id` (a whole number) and `emojis` (``NewEmojiBody``, a list)
/// are required.
struct NewEmojisBody: Decodable {
    let categoryId: Int64
    let emojis: [NewEmojiBody]
    enum CodingKeys: String, CodingKey {
        case categoryId = "emoji_category_id"
        case emojis
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard let id = try c.int(.categoryId) else { throw SendbirdError.missing("emoji_category_id") }
        categoryId = id
        guard let emojis = try c.objectList(NewEmojiBody.self, .emojis) else { throw SendbirdError.missing("emojis") }
        self.emojis = emojis
    }
}

/// `PUT /v3/emoji_categories/{id}`: `url` (required, http or https) and `name` (optional; empty
/// is not given).
struct EmojiCategoryChangesBody: Decodable {
    let url: String
    let name: String?
    enum CodingKeys: String, CodingKey { case url, name }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard let url = try c.string(.url) else { throw SendbirdError.missing("url") }
        try WebURL.check(url, field: "url")
        self.url = url
        name = try c.string(.name).flatMap { $0.isEmpty ? nil : $0 }
        if let name { try TextLimit.channelName.check(name) }
    }
}

/// `PUT /v3/emojis/{key}`: `url` (required, http or https).
struct EmojiChangesBody: Decodable {
    let url: String
    enum CodingKeys: String, CodingKey { case url }

    init(from decoder: any Decoder) throws {
        guard let url = try decoder.container(keyedBy: CodingKeys.self).string(.url) else { throw SendbirdError.missing("url") }
        try WebURL.check(url, field: "url")
        self.url = url
    }
}

/// `PUT /v3/applications/settings/use_default_emoji`: `use_default_emoji`, required.
struct UseDefaultEmojiBody: Decodable {
    let on: Bool
    enum CodingKeys: String, CodingKey { case useDefaultEmoji = "use_default_emoji" }

    init(from decoder: any Decoder) throws {
        guard let on = try decoder.container(keyedBy: CodingKeys.self).bool(.useDefaultEmoji) else {
            throw SendbirdError.missing("use_default_emoji")
        }
        self.on = on
    }
}

/// `PUT /v3/applications/settings/reactions`: `enabled`, required.
struct ReactionsSwitchBody: Decodable {
    let enabled: Bool
    enum CodingKeys: String, CodingKey { case enabled }

    init(from decoder: any Decoder) throws {
        guard let enabled = try decoder.container(keyedBy: CodingKeys.self).bool(.enabled) else { throw SendbirdError.missing("enabled") }
        self.enabled = enabled
    }
}
