import Foundation
import Synchronization
import Testing

@testable import TernServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 17 §10a: every REST route × every kind of caller, with the answer expected in each cell,
/// generated from one table. A route the server registers without a row here fails the test, so
/// a new route cannot ship without saying who may call it. docs/security.md shows the same table.
///
/// The cast, each in a fresh private group channel `G` (and an open channel `O`) per route:
/// `owner` (operator of G and O), `member` (joined; sent message M), `peer` (joined, not M's
/// sender), `muted` (joined, muted), `invited` (invited, not accepted), `banned` (banned from G
/// and O), `outsider` (no relation), `deactivated` (was a member, then deactivated), plus no
/// credentials, a wrong Api-Token, and the Platform API.
@Suite("Authorization matrix: every REST route × every caller", .serialized)
struct AuthorizationMatrixTests {
    static let sessions = ["owner", "member", "peer", "muted", "invited", "banned", "outsider", "deactivated"]
    static let callers = ["none", "wrongToken"] + sessions + ["platform"]

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

    @Test("Every route the server registers has a row, and every row is a route")
    func everyRouteHasARow() async throws {
        try await withServer { s in
            let routes = Set(s.app.routes.map(Self.normalised))
            let rows = Set(Self.fullTable.keys)
            let missing = routes.subtracting(rows).sorted()
            let stale = rows.subtracting(routes).sorted()
            #expect(missing.isEmpty, "routes without a row in the authorization table: \(missing)")
            #expect(stale.isEmpty, "rows for routes the server does not have: \(stale)")
        }
    }

    /// Codes that mean "you may not": missing or wrong credentials, not yourself, not a member,
    /// banned, deactivated, an ended session.
    static let refusals: Set<Int> = [400401, 400108, 400300, 400302, 400309, 400310, 900020, 400750, 900100, 900041, 900500]

    struct Fixture {
        var group = ""
        var open = ""
        var message = 0
        var openMessage = 0
        var filePath = ""
    }

    /// A fresh private group channel and open channel with the cast in place, a message by
    /// `member` in each, channel metadata `k` and a metacounter `k`, and a file `member` uploaded.
    func fixture(_ s: TestServer, keys: [String: String], _ n: Int) async throws -> Fixture {
        var f = Fixture()
        let g = try await s.request(
            "POST", "/v3/group_channels",
            body: [
                "user_ids": ["owner", "member", "peer", "muted", "banned", "deactivated"], "operator_ids": ["owner"], "is_public": false,
                "channel_url": "g\(n)_matrix",
            ])
        f.group = g.json["channel_url"] as? String ?? ""
        _ = try await s.request("POST", "/v3/group_channels/\(f.group)/invite", body: ["user_ids": ["invited"]])
        _ = try await s.request("POST", "/v3/group_channels/\(f.group)/ban", body: ["user_id": "banned"])
        _ = try await s.request("POST", "/v3/group_channels/\(f.group)/mute", body: ["user_id": "muted"])
        let m = try await s.request(
            "POST", "/v3/group_channels/\(f.group)/messages", body: ["message_type": "MESG", "user_id": "member", "message": "m"])
        f.message = m.json["message_id"] as? Int ?? 0
        _ = try await s.request("POST", "/v3/group_channels/\(f.group)/metadata", body: ["metadata": ["k": "v"]])
        _ = try await s.request("POST", "/v3/group_channels/\(f.group)/metacounter", body: ["metacounter": ["k": 1]])
        let o = try await s.request("POST", "/v3/open_channels", body: ["name": "o", "channel_url": "o\(n)_matrix", "operator_ids": ["owner"]])
        f.open = o.json["channel_url"] as? String ?? ""
        _ = try await s.request("POST", "/v3/open_channels/\(f.open)/ban", body: ["user_id": "banned"])
        let mo = try await s.request(
            "POST", "/v3/open_channels/\(f.open)/messages", body: ["message_type": "MESG", "user_id": "member", "message": "m"])
        f.openMessage = mo.json["message_id"] as? Int ?? 0
        _ = try await s.request("POST", "/v3/open_channels/\(f.open)/metadata", body: ["metadata": ["k": "v"]])
        _ = try await s.request("POST", "/v3/open_channels/\(f.open)/metacounter", body: ["metacounter": ["k": 1]])
        let up = try await upload(s, channel: f.group, headers: ["Session-Key": keys["member"] ?? ""])
        if let url = up.json["url"] as? String, let path = URL(string: url)?.path { f.filePath = path }
        return f
    }

    static let boundary = "matrix-boundary-7f3a"

    func upload(_ s: TestServer, channel: String, headers: [String: String]) async throws -> TestServer.HTTPResult {
        let b = Self.boundary
        let body =
            "--\(b)\r\nContent-Disposition: form-data; name=\"channel_url\"\r\n\r\n\(channel)\r\n"
            + "--\(b)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--\(b)--\r\n"
        var req = URLRequest(url: URL(string: s.baseURL + "/v3/storage/file")!)
        req.httpMethod = "POST"
        for (k, v) in headers { req.setValue(v, forHTTPHeaderField: k) }
        req.setValue("multipart/form-data; boundary=\(b)", forHTTPHeaderField: "Content-Type")
        req.httpBody = Data(body.utf8)
        let (data, response) = try await URLSession.shared.data(for: req)
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return TestServer.HTTPResult(status: (response as? HTTPURLResponse)?.statusCode ?? 0, json: json, text: String(decoding: data, as: UTF8.self))
    }

    func headers(_ caller: String, keys: [String: String], apiToken: String) -> [String: String] {
        switch caller {
        case "none": return [:]
        case "wrongToken": return ["Api-Token": "not-the-token"]
        case "platform": return ["Api-Token": apiToken]
        default: return ["Session-Key": keys[caller] ?? ""]
        }
    }

    static func substitute(_ value: Any, me: String, n: Int) -> Any {
        if let s = value as? String { return s.replacingOccurrences(of: "$ME", with: me).replacingOccurrences(of: "$N", with: "\(n)") }
        if let a = value as? [Any] { return a.map { substitute($0, me: me, n: n) } }
        if let d = value as? [String: Any] {
            var out: [String: Any] = [:]
            for (k, v) in d { out[(substitute(k, me: me, n: n) as? String) ?? k] = substitute(v, me: me, n: n) }
            return out
        }
        return value
    }

    /// Path parameters other than the channel, message and user, and what the matrix puts there.
    static let placeholders: [(String, String)] = [
        ("{target_id}", "target"),
        ("{key}", "k"),
        ("{token_type}", "gcm"),
        ("{token}", "tok"),
        ("{custom_type}", "matrix-type"),
        ("{api_token}", "no-such-token"),
        ("{bot_userid}", "no-such-bot"),
        ("{emoji_category_id}", "1"),
        ("{emoji_key}", "smile"),
        ("{provider_id}", "no-such-provider"),
        ("{template_name}", "default"),
        ("{data_type}", "messages"),
        ("{request_id}", "no-such-request"),
        ("{unique_id}", "no-such-announcement"),
        ("{announcement_group}", "no-such-group"),
        ("{target_channel_url}", "no-such-channel"),
    ]

    /// The REST matrix checks authorization, which is the same code on either store; with
    /// `TERN_TEST_DATABASE=postgres` it is left to the SQLite pass (about 3,000 cells, each on a
    /// fresh fixture: 8 to 9 minutes on PostgreSQL in a debug build, the whole PostgreSQL pass's
    /// length). The store queries it leans on run on PostgreSQL in the store suite and in the
    /// other server suites, and the WebSocket command matrix below runs on both.
    static var onSQLite: Bool { ProcessInfo.processInfo.environment["TERN_TEST_DATABASE"] != "postgres" }

    @Test(
        "Each route answers each caller as the table says: allowed, or refused with a Sendbird code",
        .enabled(if: onSQLite, "authorization is store-independent; the SQLite pass runs it"))
    func matrix() async throws {
        try await withServer({ $0.linkPreviews = false }) { s in
            try await s.createUsers(Self.sessions + ["target"])
            for u in Self.sessions + ["target"] {
                _ = try await s.request("POST", "/v3/users/\(u)/metadata", body: ["metadata": ["k": "v"]])
            }
            _ = try await s.request("PUT", "/v3/users/invited/channel_invitation_preference", body: ["auto_accept": false])
            var keys: [String: String] = [:]
            for u in Self.sessions {
                let (sock, login) = try await s.login(u)
                keys[u] = login["key"] as? String ?? ""
                await sock.close()
            }
            var failures: [String] = []
            var cells = 0
            var n = 0
            for (route, row) in Self.fullTable.sorted(by: { $0.key < $1.key }) {
                let parts = route.split(separator: " ", maxSplits: 1)
                let method = String(parts[0])
                let template = String(parts[1])
                let destructive = method != "GET"
                var shared: Fixture?
                // The deactivated user is deactivated after the fixture puts them in the channel.
                for caller in Self.callers {
                    var attempts: [(pathUser: String, allowed: Bool)] = []
                    let isSession = Self.sessions.contains(caller)
                    switch row.access {
                    case .anyone: attempts = [("target", true)]
                    case .platform: attempts = [("target", caller == "platform")]
                    case .anyUser: attempts = [("target", caller == "platform" || (isSession && caller != "deactivated"))]
                    case .selfOnly:
                        if isSession {
                            attempts = [(caller, caller != "deactivated"), ("target", false)]
                        } else {
                            attempts = [("member", caller == "platform")]
                        }
                    case .only(let who): attempts = [("target", caller == "platform" || who.contains(caller))]
                    case .selfIn(let who):
                        attempts = isSession ? [(caller, who.contains(caller)), ("target", false)] : [("member", caller == "platform")]
                    case .nobody: attempts = [("target", false)]
                    }
                    for (pathUser, allowed) in attempts {
                        n += 1
                        let f: Fixture
                        if destructive || shared == nil {
                            f = try await fixture(s, keys: keys, n)
                            shared = f
                        } else {
                            f = shared!
                        }
                        if n == 1 {
                            _ = try await s.request("PUT", "/v3/users/deactivated", body: ["is_active": false])
                        }
                        let open = template.contains("open_channels")
                        var path =
                            template
                            .replacingOccurrences(of: "{channel_url}", with: open ? f.open : f.group)
                            .replacingOccurrences(of: "{message_id}", with: "\(open ? f.openMessage : f.message)")
                            .replacingOccurrences(of: "{user_id}", with: pathUser)
                        for (name, value) in Self.placeholders { path = path.replacingOccurrences(of: name, with: value) }
                        if template.hasPrefix("/v3/storage/file/") { path = f.filePath }
                        let me = isSession ? caller : row.platformActsAs
                        path += row.query.replacingOccurrences(of: "$ME", with: me)
                        let h = headers(caller, keys: keys, apiToken: s.apiToken)
                        let r: TestServer.HTTPResult
                        if route == "POST /v3/storage/file" {
                            r = try await upload(s, channel: f.group, headers: h)
                        } else {
                            let body = row.body.map { Self.substitute($0, me: me, n: n) as? [String: Any] ?? [:] }
                            r = try await s.request(method, path, body: body, headers: h)
                        }
                        cells += 1
                        let code = r.json["code"] as? Int ?? 0
                        let refused = r.status >= 400 && Self.refusals.contains(code)
                        if allowed && (refused || r.status >= 500) {
                            failures.append("\(route) as \(caller) (path user \(pathUser)): expected allowed, got \(r.status) \(r.text.prefix(160))")
                        } else if !allowed && !refused {
                            failures.append("\(route) as \(caller) (path user \(pathUser)): expected refused, got \(r.status) \(r.text.prefix(160))")
                        }
                    }
                }
            }
            let report = "\(failures.count) of \(cells) cells:\n" + failures.joined(separator: "\n")
            #expect(failures.isEmpty, "\(report)")
        }
    }

    /// The WebSocket commands a client may send, with who may send each (on the private group
    /// channel G or the open channel O of a fresh fixture). The Platform API has no socket.
    static func commandTable(_ f: Fixture) -> [(name: String, command: String, payload: [String: Any], allowed: Set<String>)] {
        let g = f.group
        let o = f.open
        return [
            ("MESG in G", "MESG", ["channel_url": g, "message": "hi"], ["owner", "member", "peer"]),
            (
                "FILE in G", "FILE", ["channel_url": g, "url": "https://example.invalid/a.png", "name": "a.png", "type": "image/png", "size": 1],
                ["owner", "member", "peer"]
            ),
            ("MEDI of M", "MEDI", ["channel_url": g, "msg_id": f.message, "message": "edited"], ["owner", "member"]),
            ("FEDI of M", "FEDI", ["channel_url": g, "msg_id": f.message, "data": "d"], ["owner", "member"]),
            ("READ in G", "READ", ["channel_url": g], joined),
            ("TPST in G", "TPST", ["channel_url": g, "time": 1], joined),
            ("TPEN in G", "TPEN", ["channel_url": g, "time": 1], joined),
            // A non-member's MACK is ignored without a reply (MACK has none): it moves no receipt.
            ("MACK in G", "MACK", ["channel_url": g, "msg_id": f.message], Set(sessions)),
            ("ENTR O", "ENTR", ["channel_url": o], openReaders),
            ("MESG in O", "MESG", ["channel_url": o, "message": "hi"], openReaders),
            // Leaving a room one is not in is answered and changes nothing.
            ("EXIT O", "EXIT", ["channel_url": o], Set(sessions)),
            ("LOGI refresh", "LOGI", [:], joined.union(["invited", "banned", "outsider"])),
            ("PING", "PING", ["id": 7], joined.union(["invited", "banned", "outsider"])),
        ]
    }

    @Test("Each WebSocket command answers each caller as the table says; a deactivated user cannot log in")
    func commandMatrix() async throws {
        try await withServer({ $0.linkPreviews = false }) { s in
            try await s.createUsers(Self.sessions + ["target"])
            _ = try await s.request("PUT", "/v3/users/invited/channel_invitation_preference", body: ["auto_accept": false])
            let f = try await fixture(s, keys: [:], 1)
            _ = try await s.request("PUT", "/v3/users/deactivated", body: ["is_active": false])
            let refused = s.connect("deactivated")
            #expect(await refused.next("LOGI")?["code"] as? Int == 400300)
            await refused.close()
            var failures: [String] = []
            var cells = 0
            let callers = Self.sessions.filter { $0 != "deactivated" }
            var sockets: [String: TestSocket] = [:]
            for c in callers { sockets[c] = try await s.login(c).0 }
            var pingId = 1000
            for (name, command, payload, allowed) in Self.commandTable(f) {
                for caller in callers {
                    let sock = sockets[caller]!
                    pingId += 1
                    let reqId = "r\(pingId)"
                    var p = payload
                    if command != "PING" { p["req_id"] = reqId }
                    let errorsBefore = sock.all("EROR").count
                    sock.send(command, p)
                    // Frames of one socket are handled in order: once this PONG is back, any answer
                    // to the command is too.
                    sock.send("PING", ["id": pingId])
                    let fence = pingId
                    _ = await sock.next("PONG") { ($0["id"] as? Int) == fence }
                    if command == "MESG" || command == "FILE" {
                        // A send does not hold up the socket's other commands (a slow one would hold up
                        // its pings): it is answered by its own acknowledgement or error.
                        for _ in 0..<400 {
                            let answered =
                                sock.all("EROR").contains { ($0["req_id"] as? String) == reqId }
                                || sock.all(command).contains { ($0["req_id"] as? String) == reqId }
                            if answered { break }
                            try await Task.sleep(for: .milliseconds(25))
                        }
                    }
                    let errors = sock.all("EROR").dropFirst(errorsBefore).filter { ($0["req_id"] as? String) == reqId || $0["req_id"] == nil }
                    let codes = errors.compactMap { $0["code"] as? Int }
                    cells += 1
                    let wasRefused = codes.contains { Self.refusals.contains($0) }
                    if allowed.contains(caller) && !codes.isEmpty {
                        failures.append("\(name) as \(caller): expected allowed, got EROR \(codes)")
                    } else if !allowed.contains(caller) && !wasRefused {
                        failures.append("\(name) as \(caller): expected refused, got \(codes.isEmpty ? "no error" : "EROR \(codes)")")
                    }
                }
            }
            for sock in sockets.values { await sock.close() }
            let report = "\(failures.count) of \(cells) cells:\n" + failures.joined(separator: "\n")
            #expect(failures.isEmpty, "\(report)")
        }
    }
}
