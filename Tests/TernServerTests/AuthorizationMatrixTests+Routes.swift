import Foundation
import Synchronization
import Testing

@testable import TernServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The REST half of the matrix: every route the server registers, with who may call it.
extension AuthorizationMatrixTests {
    /// Who may call a route; every other caller must be refused.
    enum Access {
        /// Anyone, even without credentials.
        case anyone
        /// Only the Platform API (`Api-Token`).
        case platform
        /// Any signed-in user who is active, and the Platform API.
        case anyUser
        /// The user named in the path, and the Platform API. Session callers are tried both on
        /// their own id (allowed) and on someone else's (refused).
        case selfOnly
        /// These session callers, and the Platform API.
        case only(Set<String>)
        /// The user named in the path if they are one of these (own id only), and the Platform API.
        case selfIn(Set<String>)
        /// Nobody, not even the Platform API (joining a private channel without an invitation).
        case nobody
    }

    struct Row {
        let access: Access
        let body: [String: Any]?
        /// Added to the path (`$ME` is the caller).
        var query = ""
        /// Whom the Platform API acts for in `$ME`.
        var platformActsAs = "member"
        init(_ access: Access, _ body: [String: Any]? = nil, query: String = "", platformActsAs: String = "member") {
            self.access = access
            self.body = body
            self.query = query
            self.platformActsAs = platformActsAs
        }
    }

    // Caller sets, for the group channel G and the open channel O.
    static let joined: Set<String> = ["owner", "member", "peer", "muted"]
    static let operators: Set<String> = ["owner"]
    static let sender: Set<String> = ["owner", "member"]  // M's sender, and operators
    static let openReaders: Set<String> = ["owner", "member", "peer", "muted", "invited", "outsider"]  // all but the banned
    static let reactors: Set<String> = ["owner", "member", "peer", "muted"]

    /// The table. Paths are as the router reports them.
    static var table: [String: Row] {
        [
            "GET /": Row(.anyone),
            // Users
            "GET /v3/users": Row(.anyUser),
            "POST /v3/users": Row(.platform, ["user_id": "fresh-$N", "nickname": "n"]),
            "GET /v3/users/{user_id}": Row(.anyUser),
            "PUT /v3/users/{user_id}": Row(.selfOnly, ["nickname": "renamed"]),
            "DELETE /v3/users/{user_id}": Row(.platform),
            "POST /v3/users/{user_id}/token": Row(.platform, [:]),
            "GET /v3/users/{user_id}/unread_message_count": Row(.selfOnly),
            "GET /v3/users/{user_id}/unread_channel_count": Row(.selfOnly),
            "GET /v3/users/{user_id}/unread_item_count": Row(.selfOnly),
            "PUT /v3/users/{user_id}/mark_as_read_all": Row(.selfOnly, [:]),
            "GET /v3/users/{user_id}/block": Row(.selfOnly),
            "POST /v3/users/{user_id}/block": Row(.selfOnly, ["target_id": "target"]),
            "DELETE /v3/users/{user_id}/block/{target_id}": Row(.selfOnly),
            "GET /v3/users/{user_id}/count_preference/{channel_url}": Row(.selfIn(joined)),
            "PUT /v3/users/{user_id}/count_preference/{channel_url}": Row(.selfIn(joined), ["count_preference": "all"]),
            "GET /v3/users/{user_id}/channel_invitation_preference": Row(.selfOnly),
            "PUT /v3/users/{user_id}/channel_invitation_preference": Row(.selfOnly, ["auto_accept": false]),  // keeps `invited` invited
            "GET /v3/users/{user_id}/metadata": Row(.anyUser),
            "GET /v3/users/{user_id}/metadata/{key}": Row(.anyUser),
            "POST /v3/users/{user_id}/metadata": Row(.selfOnly, ["metadata": ["new-$N": "v"]]),
            "PUT /v3/users/{user_id}/metadata": Row(.selfOnly, ["metadata": ["k": "v2"], "upsert": true]),
            "PUT /v3/users/{user_id}/metadata/{key}": Row(.selfOnly, ["value": "v3", "upsert": true]),
            "DELETE /v3/users/{user_id}/metadata": Row(.selfOnly),
            "DELETE /v3/users/{user_id}/metadata/{key}": Row(.selfOnly),
            "GET /v3/users/{user_id}/my_group_channels": Row(.selfOnly),
            "GET /v3/users/{user_id}/my_group_channels/changelogs": Row(.selfOnly),
            "GET /v3/sdk/users/{user_id}/my_group_channels/changelogs": Row(.selfOnly),
            // Group channels
            "GET /v3/group_channels": Row(.anyUser),
            "POST /v3/group_channels": Row(.anyUser, ["user_ids": ["target"], "name": "new"]),
            "GET /v3/group_channels/{channel_url}": Row(.only(joined.union(["invited"]))),
            "GET /v3/sdk/group_channels/{channel_url}": Row(.only(joined.union(["invited"]))),
            "PUT /v3/group_channels/{channel_url}": Row(.only(operators), ["name": "renamed"]),
            "DELETE /v3/group_channels/{channel_url}": Row(.only(operators)),
            "GET /v3/group_channels/{channel_url}/members": Row(.only(joined.union(["invited"]))),
            "POST /v3/group_channels/{channel_url}/invite": Row(.only(joined), ["user_ids": ["target"]]),
            "PUT /v3/group_channels/{channel_url}/accept": Row(.only(["invited"]), ["user_id": "$ME"], platformActsAs: "invited"),
            "PUT /v3/group_channels/{channel_url}/decline": Row(.only(["invited"]), ["user_id": "$ME"], platformActsAs: "invited"),
            "PUT /v3/group_channels/{channel_url}/join": Row(.nobody, ["user_id": "$ME"]),
            "PUT /v3/group_channels/{channel_url}/leave": Row(.only(joined.union(["invited"])), ["user_ids": ["$ME"]]),
            "PUT /v3/group_channels/{channel_url}/hide": Row(.only(joined), ["user_id": "$ME"]),
            "DELETE /v3/group_channels/{channel_url}/hide": Row(.only(joined), ["user_id": "$ME"]),
            "PUT /v3/group_channels/{channel_url}/freeze": Row(.only(operators), ["freeze": true]),
            "PUT /v3/group_channels/{channel_url}/reset_user_history": Row(.only(joined), ["user_id": "$ME"]),
            "PUT /v3/group_channels/{channel_url}/messages/mark_as_read": Row(.only(joined), ["user_id": "$ME"]),
            "PUT /v3/group_channels/{channel_url}/messages/mark_as_delivered": Row(.only(joined), ["user_id": "$ME"]),
            "GET /v3/group_channels/{channel_url}/messages/unread_count": Row(.only(joined)),
            "GET /v3/group_channels/{channel_url}/messages_gap": Row(.only(joined), query: "?prev_start_ts=0&prev_end_ts=9999999999999"),
            "GET /v3/sdk/group_channels/{channel_url}/messages_gap": Row(.only(joined), query: "?prev_start_ts=0&prev_end_ts=9999999999999"),
            "GET /v3/sdk/group_channels/{channel_url}/messages": Row(.only(joined), query: "?message_ts=9999999999999&prev_limit=5&next_limit=0"),
            "GET /v3/sdk/group_channels/{channel_url}/messages/{message_id}": Row(.only(joined)),
            // Open channels
            "GET /v3/open_channels": Row(.anyUser),
            "POST /v3/open_channels": Row(.anyUser, ["name": "new open"]),
            "GET /v3/open_channels/{channel_url}": Row(.only(openReaders.union(["banned"]))),
            "GET /v3/sdk/open_channels/{channel_url}": Row(.only(openReaders.union(["banned"]))),
            "PUT /v3/open_channels/{channel_url}": Row(.only(operators), ["name": "renamed"]),
            "DELETE /v3/open_channels/{channel_url}": Row(.only(operators)),
            "PUT /v3/open_channels/{channel_url}/freeze": Row(.platform, ["freeze": true]),
            "GET /v3/open_channels/{channel_url}/participants": Row(.only(openReaders)),
            // Search, files, reports
            "GET /v3/search/messages": Row(.anyUser),
            "POST /v3/storage/file": Row(.only(joined)),
            "GET /v3/storage/file/{file_id}/{name}": Row(.only(joined)),
            "GET /v3/report": Row(.platform),
            "GET /v3/report/users/{user_id}": Row(.platform),
            "POST /v3/report/users/{user_id}": Row(.anyUser, ["report_category": "spam", "reporting_user_id": "$ME"]),
            // A user's channels at once, Platform typing, restrictions by custom channel type
            "GET /v3/group_channels/{channel_url}/members/{user_id}": Row(.only(joined.union(["invited"]))),
            "POST /v3/group_channels/{channel_url}/typing": Row(.platform, ["user_ids": ["member"]]),
            "DELETE /v3/group_channels/{channel_url}/typing": Row(.platform, ["user_ids": ["member"]]),
            "PUT /v3/users/{user_id}/my_group_channels/leave": Row(.selfOnly, [:]),
            "GET /v3/users/{user_id}/group_channel_count": Row(.selfOnly, query: "?state=joined"),
            "GET /v3/users/{user_id}/ban": Row(.selfOnly),
            "GET /v3/users/{user_id}/mute": Row(.selfOnly),
            "POST /v3/users/{user_id}/banned_channel_custom_types": Row(.platform, ["channel_custom_types": ["matrix-type"], "seconds": 60]),
            "POST /v3/users/{user_id}/muted_channel_custom_types": Row(.platform, ["channel_custom_types": ["matrix-type"], "seconds": 60]),
            "POST /v3/users/{user_id}/operating_channel_custom_types": Row(.platform, ["channel_custom_types": ["matrix-type"]]),
            "POST /v3/applications/settings_by_channel_custom_type/{custom_type}/ban": Row(
                .platform, ["banned_list": [["user_id": "target", "seconds": 60]]]),
            "GET /v3/applications/settings_by_channel_custom_type/{custom_type}/ban": Row(.platform),
            "DELETE /v3/applications/settings_by_channel_custom_type/{custom_type}/ban": Row(.platform, query: "?user_ids=target"),
            "POST /v3/applications/settings_by_channel_custom_type/{custom_type}/mute": Row(
                .platform, ["muted_list": [["user_id": "target", "seconds": 60]]]),
            "GET /v3/applications/settings_by_channel_custom_type/{custom_type}/mute": Row(.platform),
            "DELETE /v3/applications/settings_by_channel_custom_type/{custom_type}/mute": Row(.platform, query: "?user_ids=target"),
            // Application settings
            "GET /v3/applications/settings/webhook": Row(.platform),
            "PUT /v3/applications/settings/webhook": Row(.platform, ["enabled": false]),
            "POST /v3/applications/api_tokens": Row(.platform, [:]),
            "GET /v3/applications/api_tokens": Row(.platform),
            "GET /v3/applications/api_tokens/{api_token}": Row(.platform),
            "DELETE /v3/applications/api_tokens/{api_token}": Row(.platform),
            "GET /v3/applications/ccu": Row(.platform),
            "GET /v3/applications/dau": Row(.platform),
            "GET /v3/applications/mau": Row(.platform),
            "GET /v3/applications/peak_connections": Row(.platform),
            "GET /v3/statistics/metric": Row(.platform, query: "?metric_type=messages"),
            "GET /v3/applications/default_channel_invitation_preference": Row(.platform),
            "PUT /v3/applications/default_channel_invitation_preference": Row(.platform, ["auto_accept": true]),
            // Bots (the fixture has none: the calls that name one answer 400201, which is not a refusal)
            "POST /v3/bots": Row(.platform, ["bot_userid": "bot-$N", "bot_nickname": "b", "bot_callback_url": "http://127.0.0.1:9/cb"]),
            "GET /v3/bots": Row(.platform),
            "GET /v3/bots/{bot_userid}": Row(.platform),
            "PUT /v3/bots/{bot_userid}": Row(.platform, ["is_privacy_mode": true]),
            "DELETE /v3/bots/{bot_userid}": Row(.platform),
            "POST /v3/bots/{bot_userid}/channels": Row(.platform, ["channel_urls": ["x"]]),
            "DELETE /v3/bots/{bot_userid}/channels": Row(.platform),
            "DELETE /v3/bots/{bot_userid}/channels/{channel_url}": Row(.platform),
            "POST /v3/bots/{bot_userid}/send": Row(.platform, ["channel_url": "x", "message": "m"]),
            // Emojis (read by any user, changed by the Platform API) and the reaction switches
            "GET /v3/emoji_categories": Row(.anyUser),
            "POST /v3/emoji_categories": Row(
                .platform, ["emoji_categories": [["name": "c$N", "emojis": [["key": "k$N", "url": "http://127.0.0.1/e.png"]]]]]),
            "GET /v3/emoji_categories/{emoji_category_id}": Row(.anyUser),
            "PUT /v3/emoji_categories/{emoji_category_id}": Row(.platform, ["url": "http://127.0.0.1/c.png"]),
            "DELETE /v3/emoji_categories/{emoji_category_id}": Row(.platform),
            "GET /v3/emojis": Row(.anyUser),
            "POST /v3/emojis": Row(.platform, ["emoji_category_id": 1, "emojis": [["key": "e$N", "url": "http://127.0.0.1/e.png"]]]),
            "GET /v3/emojis/{emoji_key}": Row(.anyUser),
            "PUT /v3/emojis/{emoji_key}": Row(.platform, ["url": "http://127.0.0.1/e2.png"]),
            "DELETE /v3/emojis/{emoji_key}": Row(.platform),
            "PUT /v3/applications/settings/use_default_emoji": Row(.platform, ["use_default_emoji": true]),
            "PUT /v3/applications/settings/reactions": Row(.platform, ["enabled": true]),
            // Application settings: push providers and templates, auto event messages, the IP allow-list
            "POST /v3/applications/push/fcm": Row(.platform, ["api_key": "AAAA-secret-key"]),
            "POST /v3/applications/push/apns": Row(.platform, [:]),
            "POST /v3/applications/push/hms": Row(.platform, ["huawei_app_id": "app", "huawei_app_secret": "s"]),
            "PUT /v3/applications/push/fcm/{provider_id}": Row(.platform, ["push_sound": "ding"]),
            "PUT /v3/applications/push/apns/{provider_id}": Row(.platform, ["push_sound": "ding"]),
            "PUT /v3/applications/push/hms/{provider_id}": Row(.platform, ["push_sound": "ding"]),
            "GET /v3/applications/push/fcm": Row(.platform),
            "GET /v3/applications/push/apns": Row(.platform),
            "GET /v3/applications/push/hms": Row(.platform),
            "GET /v3/applications/push/fcm/{provider_id}": Row(.platform),
            "GET /v3/applications/push/apns/{provider_id}": Row(.platform),
            "GET /v3/applications/push/hms/{provider_id}": Row(.platform),
            "DELETE /v3/applications/push/fcm/{provider_id}": Row(.platform),
            "DELETE /v3/applications/push/apns/{provider_id}": Row(.platform),
            "DELETE /v3/applications/push/hms/{provider_id}": Row(.platform),
            "DELETE /v3/applications/push/huawei/{provider_id}": Row(.platform),
            "DELETE /v3/applications/push/apns/cert/{provider_id}": Row(.platform),
            "GET /v3/applications/push/message_templates": Row(.platform),
            "GET /v3/applications/push/message_templates/{template_name}": Row(.platform),
            "PUT /v3/applications/push/message_templates/{template_name}": Row(.platform, ["mesg": "{sender_name}: {message}"]),
            "GET /v3/applications/settings/auto_event_message": Row(.platform),
            "GET /v3/applications/settings_global": Row(.platform),
            "PUT /v3/applications/settings_global": Row(.platform, ["profanity_filter": ["type": 0]]),
            "GET /v3/applications/settings_global/{custom_type}": Row(.platform),
            "PUT /v3/applications/settings_global/{custom_type}": Row(.platform, ["domain_filter": ["type": 0]]),
            "PUT /v3/applications/settings/auto_event_message": Row(.platform, ["auto_event_message": ["user_join": ["enabled": true]]]),
            "GET /v3/applications/settings/ip_whitelist": Row(.platform),
            // The tests call from 127.0.0.1: the list keeps it, so the rest of the matrix still gets in.
            "PUT /v3/applications/settings/ip_whitelist": Row(.platform, ["ip_whitelist_addresses": ["127.0.0.1", "::1"]]),
            "DELETE /v3/applications/settings/ip_whitelist": Row(.platform, query: "?ip_whitelist_addresses=192.0.2.1"),
            // Data exports and GDPR requests (a GDPR delete of `target` would remove a user the matrix needs: access only)
            "POST /v3/export/{data_type}": Row(.platform, ["start_ts": 0, "end_ts": 1]),
            "GET /v3/export/{data_type}": Row(.platform),
            "GET /v3/export/{data_type}/{request_id}": Row(.platform),
            "GET /v3/export/{data_type}/{request_id}/file": Row(.platform),
            "POST /v3/migration/{target_channel_url}": Row(
                .platform, ["messages": [["message_type": "ADMM", "message": "old", "timestamp": 1_600_000_000_000]]]),
            "POST /v3/privacy/gdpr": Row(.platform, ["action": "access", "user_id": "target"]),
            "GET /v3/privacy/gdpr": Row(.platform),
            "GET /v3/privacy/gdpr/{request_id}": Row(.platform),
            "DELETE /v3/privacy/gdpr/{request_id}": Row(.platform),
            // Announcements (to a channel that does not exist: stored, sent nowhere)
            "POST /v3/announcements": Row(
                .platform, ["message": ["type": "ADMM", "content": "hello"], "target_list": ["none"], "unique_id": "ann-$N"]),
            "GET /v3/announcements": Row(.platform),
            "GET /v3/announcements/{unique_id}": Row(.platform),
            "PUT /v3/announcements/{unique_id}": Row(.platform, ["action": "pause"]),
            "GET /v3/announcement_open_status/{unique_id}": Row(.platform),
            "GET /v3/announcement_open_rate/{unique_id}": Row(.platform),
            "GET /v3/announcement_open_rate_by_group/{announcement_group}": Row(.platform),
            "GET /v3/announcement_group": Row(.platform),
            "GET /v3/announcement_stats/daily": Row(.platform),
            "GET /v3/announcement_stats/weekly": Row(.platform),
            "GET /v3/announcement_stats/monthly": Row(.platform),
            // Push settings
            "POST /v3/users/{user_id}/push/{token_type}": Row(.selfOnly, ["gcm_reg_token": "tok"]),
            "GET /v3/users/{user_id}/push/{token_type}": Row(.selfOnly),
            "DELETE /v3/users/{user_id}/push/{token_type}/{token}": Row(.selfOnly),
            "DELETE /v3/users/{user_id}/push": Row(.selfOnly),
            "GET /v3/push/device_tokens/{token_type}/{token}": Row(.platform),
            "DELETE /v3/push/device_tokens/{token_type}/{token}": Row(.platform),
            "PUT /v3/users/{user_id}/push/template": Row(.selfOnly, ["name": "alternative"]),
            "GET /v3/users/{user_id}/push/template": Row(.selfOnly),
            "GET /v3/users/{user_id}/push_preference": Row(.selfOnly),
            "PUT /v3/users/{user_id}/push_preference": Row(.selfOnly, ["do_not_disturb": true, "start_hour": 22, "end_hour": 7]),
            "DELETE /v3/users/{user_id}/push_preference": Row(.selfOnly),
            "GET /v3/users/{user_id}/push_preference/{channel_url}": Row(.selfIn(joined.union(["invited"]))),
            "PUT /v3/users/{user_id}/push_preference/{channel_url}": Row(.selfIn(joined.union(["invited"])), ["push_trigger_option": "mention_only"]),
        ]
    }

    /// Rows repeated for group and open channels (`/v3/group_channels/…` and `/v3/open_channels/…`).
    static func channelRows(_ ct: String) -> [String: Row] {
        let group = ct == "group_channels"
        let readers: Set<String> = group ? joined : openReaders
        let writers: Set<String> = group ? ["owner", "member", "peer"] : openReaders  // the muted may not send
        // Anyone may report what happens in an open channel, the banned included (an appeal).
        let reporters: Set<String> = group ? joined : openReaders.union(["banned"])
        let base = "/v3/\(ct)/{channel_url}"
        let rows: [String: Row] = [
            "GET \(base)/messages": Row(.only(readers), query: "?message_ts=9999999999999&prev_limit=5&next_limit=0"),
            "POST \(base)/messages": Row(.only(writers), ["message_type": "MESG", "user_id": "$ME", "message": "hi"]),
            "GET \(base)/messages/{message_id}": Row(.only(readers)),
            "PUT \(base)/messages/{message_id}": Row(.only(sender), ["message_type": "MESG", "message": "edited"]),
            "DELETE \(base)/messages/{message_id}": Row(.only(sender)),
            "GET \(base)/messages/{message_id}/reactions": Row(.only(readers)),
            "POST \(base)/messages/{message_id}/reactions": Row(.only(group ? reactors : readers), ["user_id": "$ME", "reaction": "smile"]),
            "DELETE \(base)/messages/{message_id}/reactions": Row(.only(group ? reactors : readers), query: "?user_id=$ME&reaction=smile"),
            "POST \(base)/messages/{message_id}/sorted_metaarray": Row(.only(sender), ["sorted_metaarray": [["key": "a", "value": ["b"]]]]),
            "PUT \(base)/messages/{message_id}/sorted_metaarray": Row(
                .only(sender), ["sorted_metaarray": [["key": "a", "value": ["c"]]], "mode": "add"]),
            "DELETE \(base)/messages/{message_id}/sorted_metaarray": Row(.only(sender), query: "?keys=a"),
            "GET \(base)/messages/changelogs": Row(.only(readers), query: "?change_ts=0"),
            "GET \(base)/messages/total_count": Row(.only(readers)),
            // No provider is configured in the matrix: allowed callers get 400111, which is not a refusal.
            "POST \(base)/messages/{message_id}/translation": Row(.only(readers), ["target_langs": ["de"]]),
            "GET \(base)/metadata": Row(.only(readers)),
            "GET \(base)/metadata/{key}": Row(.only(readers)),
            "POST \(base)/metadata": Row(.only(readers), ["metadata": ["new-$N": "v"]]),
            "PUT \(base)/metadata": Row(.only(readers), ["metadata": ["k": "v2"], "upsert": true]),
            "PUT \(base)/metadata/{key}": Row(.only(readers), ["value": "v3", "upsert": true]),
            "DELETE \(base)/metadata": Row(.only(readers)),
            "DELETE \(base)/metadata/{key}": Row(.only(readers)),
            "GET \(base)/metacounter": Row(.only(readers)),
            "GET \(base)/metacounter/{key}": Row(.only(readers)),
            "POST \(base)/metacounter": Row(.only(readers), ["metacounter": ["new-$N": 1]]),
            "PUT \(base)/metacounter": Row(.only(readers), ["metacounter": ["n": 1], "mode": "increase", "upsert": true]),
            "PUT \(base)/metacounter/{key}": Row(.only(readers), ["value": 2, "mode": "set", "upsert": true]),
            "DELETE \(base)/metacounter": Row(.only(readers)),
            "DELETE \(base)/metacounter/{key}": Row(.only(readers)),
            "GET \(base)/operators": Row(.only(group ? joined.union(["invited"]) : openReaders.union(["banned"]))),
            "POST \(base)/operators": Row(.only(operators), ["operator_ids": ["peer"]]),
            "DELETE \(base)/operators": Row(.only(operators), ["operator_ids": ["peer"]]),
            "GET \(base)/ban": Row(.only(operators)),
            "POST \(base)/ban": Row(.only(operators), ["user_id": "target", "seconds": 60]),
            "GET \(base)/ban/{user_id}": Row(.only(operators)),
            "PUT \(base)/ban/{user_id}": Row(.only(operators), ["seconds": 120]),
            "DELETE \(base)/ban/{user_id}": Row(.only(operators)),
            "GET \(base)/mute": Row(.only(operators)),
            "POST \(base)/mute": Row(.only(operators), ["user_id": "target", "seconds": 60]),
            "GET \(base)/mute/{user_id}": Row(.only(operators)),
            "DELETE \(base)/mute/{user_id}": Row(.only(operators)),
            "GET /v3/report/\(ct)/{channel_url}": Row(.platform),
            "POST /v3/report/\(ct)/{channel_url}": Row(.only(reporters), ["report_category": "spam", "reporting_user_id": "$ME"]),
            "GET /v3/report/\(ct)/{channel_url}/messages/{message_id}": Row(.platform),
            "GET /v3/report/\(ct)/{channel_url}/profanity_messages/{message_id}": Row(.platform),
            "POST /v3/report/\(ct)/{channel_url}/messages/{message_id}": Row(
                .only(reporters), ["report_category": "spam", "reporting_user_id": "$ME"]),
        ]
        return rows
    }

    static var fullTable: [String: Row] {
        var t = table
        for ct in ["group_channels", "open_channels"] { t.merge(channelRows(ct)) { a, _ in a } }
        return t
    }

    static func normalised(_ route: String) -> String {
        route.replacingOccurrences(of: ":([a-z_]+)", with: "{$1}", options: .regularExpression)
    }
}
