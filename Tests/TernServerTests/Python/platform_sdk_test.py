#!/usr/bin/env python3
"""End-to-end check of ternd against Sendbird's official Python Platform SDK.

Needs:  pip install sendbird-platform-sdk   (written against 2.1.5)
Env:    TERND_URL        base URL without /v3, e.g. http://127.0.0.1:1234
        TERND_API_TOKEN  the application's master API token
Run:    python3 Tests/TernServerTests/Python/platform_sdk_test.py

Every call goes through the SDK's own API classes with its default strict
settings (client-side validation and response type checking stay on), so a
step passes only if ternd's JSON deserialises into the SDK's models.  One step
("raw Api-Token header") uses urllib directly, to check that the header is
matched case-insensitively (the SDK itself sends it as lower-case `api-token`).

Prints one line per step ("ok  <step>"), stops at the first failure
("FAIL  <step>: <reason>", plus the last response body when there is one),
and ends with "<passed> passed, <failed> failed".  Exit code 0 only if all
steps passed.
"""

import json
import os
import secrets
import sys
import time
import traceback
import urllib.error
import urllib.request

from sdk_steps import StepFailure, check, server_from_env

try:
    import sendbird_platform_sdk
    from sendbird_platform_sdk.api import bot_api, group_channel_api, message_api, metadata_api, moderation_api, open_channel_api, user_api
    from sendbird_platform_sdk.model.create_a_bot_request import CreateABotRequest
    from sendbird_platform_sdk.model.join_channels_request import JoinChannelsRequest
    from sendbird_platform_sdk.model.create_an_open_channel_request import CreateAnOpenChannelRequest
    from sendbird_platform_sdk.model.update_an_open_channel_request import UpdateAnOpenChannelRequest
    from sendbird_platform_sdk.model.freeze_an_open_channel_request import FreezeAnOpenChannelRequest
    from sendbird_platform_sdk.model.register_operators_to_a_group_channel_request import RegisterOperatorsToAGroupChannelRequest
    from sendbird_platform_sdk.model.create_user_metadata_request import CreateUserMetadataRequest
    from sendbird_platform_sdk.model.update_user_metadata_request import UpdateUserMetadataRequest
    from sendbird_platform_sdk.model.update_specific_user_metadata_request import UpdateSpecificUserMetadataRequest
    from sendbird_platform_sdk.exceptions import ApiException
    from sendbird_platform_sdk.model.create_a_group_channel_request import CreateAGroupChannelRequest
    from sendbird_platform_sdk.model.create_a_user_request import CreateAUserRequest
    from sendbird_platform_sdk.model.mark_all_messages_as_read_request import MarkAllMessagesAsReadRequest
    from sendbird_platform_sdk.model.mark_channel_messages_as_read_request import MarkChannelMessagesAsReadRequest
    from sendbird_platform_sdk.model.send_a_message_request import SendAMessageRequest
    from sendbird_platform_sdk.model.update_a_user_request import UpdateAUserRequest
    from sendbird_platform_sdk.model.create_a_channel_metadata_request import CreateAChannelMetadataRequest
    from sendbird_platform_sdk.model.freeze_a_group_channel_request import FreezeAGroupChannelRequest
    from sendbird_platform_sdk.model.hide_a_channel_request import HideAChannelRequest
    from sendbird_platform_sdk.model.invite_as_members_request import InviteAsMembersRequest
    from sendbird_platform_sdk.model.leave_a_channel_request import LeaveAChannelRequest
    from sendbird_platform_sdk.model.reset_chat_history_request import ResetChatHistoryRequest
    from sendbird_platform_sdk.model.update_a_group_channel_request import UpdateAGroupChannelRequest
    from sendbird_platform_sdk.model.update_count_preference_of_a_channel_request import UpdateCountPreferenceOfAChannelRequest
    from sendbird_platform_sdk.model.block_a_user_request import BlockAUserRequest
    from sendbird_platform_sdk.model.update_a_message_request import UpdateAMessageRequest
    from sendbird_platform_sdk.model.add_extra_data_to_a_message_request import AddExtraDataToAMessageRequest
    from sendbird_platform_sdk.model.update_extra_data_in_a_message_request import UpdateExtraDataInAMessageRequest
    from sendbird_platform_sdk.model.sendbird_sorted_metaarray import SendbirdSortedMetaarray
    from sendbird_platform_sdk.model.sendbird_sorted_metaarray_inner import SendbirdSortedMetaarrayInner
except ImportError as exc:  # pragma: no cover
    print("FAIL  setup: cannot import sendbird_platform_sdk (%s); run: pip install sendbird-platform-sdk" % exc)
    sys.exit(2)


def now_ms():
    return int(time.time() * 1000)


# --------------------------------------------------------------------------- setup

BASE, TOKEN = server_from_env("FAIL  setup")

config = sendbird_platform_sdk.Configuration(host=BASE)
client = sendbird_platform_sdk.ApiClient(config)
users = user_api.UserApi(client)
channels = group_channel_api.GroupChannelApi(client)
messages = message_api.MessageApi(client)
metadata = metadata_api.MetadataApi(client)
moderation = moderation_api.ModerationApi(client)
opens = open_channel_api.OpenChannelApi(client)
AUTH = {"api_token": TOKEN, "_request_timeout": 15}

SFX = secrets.token_hex(4)
UA, UB, UC = "sdk_a_" + SFX, "sdk_b_" + SFX, "sdk_c_" + SFX
S = {}  # state shared between steps

# --------------------------------------------------------------------------- steps


def step_create_users():
    a = users.create_a_user(create_a_user_request=CreateAUserRequest(
        user_id=UA, nickname="Alice " + SFX, profile_url="", issue_access_token=True), **AUTH)
    check(a.user_id == UA, "user_id %r != %r" % (a.user_id, UA))
    check(isinstance(a.get("access_token"), str) and a.get("access_token") != "",
          "issue_access_token=True but access_token is %r" % a.get("access_token"))
    check(a.get("nickname") == "Alice " + SFX, "nickname %r" % a.get("nickname"))
    for uid, nick in ((UB, "Bob " + SFX), (UC, "Carol " + SFX)):
        u = users.create_a_user(create_a_user_request=CreateAUserRequest(
            user_id=uid, nickname=nick, profile_url=""), **AUTH)
        check(u.user_id == uid, "user_id %r != %r" % (u.user_id, uid))
        check(u.get("nickname") == nick, "nickname %r != %r" % (u.get("nickname"), nick))


def step_view_user():
    u = users.view_a_user(UB, **AUTH)
    check(u.user_id == UB, "user_id %r != %r" % (u.user_id, UB))
    check(u.get("nickname") == "Bob " + SFX, "nickname %r" % u.get("nickname"))


def step_update_user():
    u = users.update_a_user(UB, update_a_user_request=UpdateAUserRequest(nickname="Bobby " + SFX), **AUTH)
    check(u.user_id == UB, "user_id %r" % u.user_id)
    check(u.get("nickname") == "Bobby " + SFX, "update returned nickname %r" % u.get("nickname"))
    again = users.view_a_user(UB, **AUTH)
    check(again.get("nickname") == "Bobby " + SFX, "nickname not persisted: %r" % again.get("nickname"))


def step_list_users():
    r = users.list_users(user_ids=",".join([UA, UB, UC]), limit=10, **AUTH)
    got = sorted(u.user_id for u in r.get("users", []))
    check(got == sorted([UA, UB, UC]), "user_ids filter returned %r" % got)
    check(isinstance(r.get("next", ""), str), "next must be a string")


def step_distinct_channel():
    req = lambda: CreateAGroupChannelRequest(users=[], user_ids=[UA, UB], is_distinct=True)  # noqa: E731
    c1 = channels.create_a_group_channel(create_a_group_channel_request=req(), **AUTH)
    check(c1.channel_url, "empty channel_url")
    check(c1.get("is_distinct") is True, "is_distinct %r" % c1.get("is_distinct"))
    c2 = channels.create_a_group_channel(create_a_group_channel_request=req(), **AUTH)
    check(c2.channel_url == c1.channel_url,
          "distinct channel re-created: %r then %r" % (c1.channel_url, c2.channel_url))
    S["distinct_url"] = c1.channel_url


def step_group_channel():
    c = channels.create_a_group_channel(create_a_group_channel_request=CreateAGroupChannelRequest(
        users=[], user_ids=[UA, UB, UC], name="Team " + SFX, data='{"k":"v"}',
        custom_type="sdk_test", is_distinct=False), **AUTH)
    url = c.channel_url
    check(url and url != S["distinct_url"], "bad channel_url %r" % url)
    check(c.get("name") == "Team " + SFX, "name %r" % c.get("name"))
    check(c.get("data") == '{"k":"v"}', "data %r" % c.get("data"))
    check(c.get("custom_type") == "sdk_test", "custom_type %r" % c.get("custom_type"))
    check(c.get("is_distinct") is False, "is_distinct %r" % c.get("is_distinct"))
    check(c.get("member_count") == 3, "member_count %r" % c.get("member_count"))
    S["url"] = url


def step_view_channel():
    c = channels.get_a_group_channel(S["url"], show_member=True, **AUTH)
    check(c.channel_url == S["url"], "channel_url %r" % c.channel_url)
    check(c.get("name") == "Team " + SFX, "name %r" % c.get("name"))
    check(c.get("custom_type") == "sdk_test", "custom_type %r" % c.get("custom_type"))
    check(c.get("data") == '{"k":"v"}', "data %r" % c.get("data"))
    check(c.get("member_count") == 3, "member_count %r" % c.get("member_count"))
    got = sorted(m.user_id for m in c.get("members", []))
    check(got == sorted([UA, UB, UC]), "members %r" % got)


def step_list_members():
    r = channels.list_members(S["url"], limit=10, **AUTH)
    got = sorted(m.user_id for m in r.members)
    check(got == sorted([UA, UB, UC]), "members %r" % got)
    for m in r.members:
        check(m.get("state", "joined") == "joined", "member %s state %r" % (m.user_id, m.get("state")))


def step_list_channels():
    token, pages = "", 0
    found = None
    while pages < 50 and found is None:
        kw = dict(AUTH, limit=100, show_member=True, show_empty=True)
        if token:
            kw["token"] = token
        r = channels.list_channels(**kw)
        pages += 1
        for ch in r.get("channels", []):
            if ch.channel_url == S["url"]:
                found = ch
        token = r.get("next", "")
        if not token:
            break
    check(found is not None, "group channel %s not in GET /v3/group_channels (%d page(s))" % (S["url"], pages))
    check(found.get("name") == "Team " + SFX, "listed name %r" % found.get("name"))


def find_my_channel(user_id, url):
    r = users.list_my_group_channels(user_id, limit=100, show_empty=True, show_member=True, **AUTH)
    for ch in r.get("channels", []):
        if ch.channel_url == url:
            return ch
    return None


def step_my_channels():
    ch = find_my_channel(UB, S["url"])
    check(ch is not None, "%s not in my_group_channels of %s" % (S["url"], UB))
    check(isinstance(ch.get("unread_message_count"), int),
          "unread_message_count missing/not int: %r" % ch.get("unread_message_count"))
    check(ch.get("unread_message_count") == 0, "unread_message_count %r before any message" % ch.get("unread_message_count"))
    other = find_my_channel(UB, S["distinct_url"])
    check(other is not None, "distinct channel missing from my_group_channels of %s" % UB)
    check(find_my_channel(UC, S["distinct_url"]) is None, "%s sees the A/B distinct channel" % UC)


def step_send_messages():
    sent = []
    for text in ("hello " + SFX, "second " + SFX):
        m = messages.send_a_message("group_channels", S["url"], send_a_message_request=SendAMessageRequest(
            message_type="MESG", user_id=UA, message=text), **AUTH)
        check(m.get("type") == "MESG", "type %r" % m.get("type"))
        check(m.get("message") == text, "message %r" % m.get("message"))
        check("user" in m and m.user.user_id == UA, "sender %r" % (m.get("user"),))
        check(isinstance(m.get("message_id"), int) and m.message_id > 0, "message_id %r" % m.get("message_id"))
        sent.append(m)
    adm = messages.send_a_message("group_channels", S["url"], send_a_message_request=SendAMessageRequest(
        message_type="ADMM", user_id=UA, message="admin " + SFX), **AUTH)
    check(adm.get("type") == "ADMM", "admin type %r" % adm.get("type"))
    check(adm.get("message") == "admin " + SFX, "admin message %r" % adm.get("message"))
    check("user" not in adm, "admin message must not carry `user`, got %r" % (adm.get("user"),))
    sent.append(adm)
    ids = [m.message_id for m in sent]
    check(len(set(ids)) == 3, "duplicate message ids %r" % ids)
    S["sent"] = sent


def step_list_messages():
    # anchor = now (never earlier than the newest created_at, in case the server bumps
    # timestamps to keep them strictly increasing); message_id=0 means "not given"
    anchor = max([now_ms()] + [m.get("created_at", 0) for m in S["sent"]])
    r = messages.list_messages("group_channels", S["url"], anchor, 0, prev_limit=10, next_limit=0, **AUTH)
    got = r.get("messages", [])
    check([m.get("message_id") for m in got] == [m.message_id for m in S["sent"]],
          "ids %r, expected %r" % ([m.get("message_id") for m in got], [m.message_id for m in S["sent"]]))
    check([m.get("type") for m in got] == ["MESG", "MESG", "ADMM"], "types %r" % [m.get("type") for m in got])
    check([m.get("message") for m in got] == [m.message for m in S["sent"]], "texts %r" % [m.get("message") for m in got])
    ts = [m.get("created_at") for m in got]
    check(all(isinstance(t, int) for t in ts) and ts == sorted(ts), "created_at not ascending ints: %r" % ts)
    check("user" not in got[2], "listed admin message carries `user`: %r" % (got[2].get("user"),))
    check(got[0].user.user_id == UA and got[1].user.user_id == UA, "MESG senders wrong")


def step_list_messages_include():
    # Without `include`, a message exactly at message_ts is in the page (Sendbird: default true).
    first = S["sent"][0]
    r = messages.list_messages("group_channels", S["url"], first.created_at, 0, prev_limit=0, next_limit=1, **AUTH)
    got = [m.get("message_id") for m in r.get("messages", [])]
    check(got and got[0] == first.message_id, "the anchor message is not in the page: %r" % got)
    r = messages.list_messages("group_channels", S["url"], first.created_at, 0, prev_limit=0, next_limit=1, include=False, **AUTH)
    got = [m.get("message_id") for m in r.get("messages", [])]
    check(first.message_id not in got, "include=False still has the anchor: %r" % got)


def step_check_if_member():
    r = channels.check_if_member(S["distinct_url"], UC, **AUTH)  # the 1-to-1 of UA and UB
    check(r.is_member is False and r.state == "none", "a non-member: %r" % r)
    r = channels.check_if_member(S["distinct_url"], UA, **AUTH)
    check(r.is_member is True and r.state == "joined", "a member: %r" % r)


def step_bot():
    bots = bot_api.BotApi(client)
    bot_id = "bot_" + SFX
    bots.create_a_bot(create_a_bot_request=CreateABotRequest(
        bot_callback_url="http://127.0.0.1:9/bot", bot_nickname="Bot " + SFX, bot_profile_url="", bot_type="helper",
        bot_userid=bot_id, is_privacy_mode=False), **AUTH)
    # The 2.1.5 model reads the answer as one channel; Sendbird's page says `channels`: both are there.
    joined = bots.join_channels(bot_id, join_channels_request=JoinChannelsRequest(channel_urls=[S["distinct_url"]]), **AUTH)
    check(joined.channel_url == S["distinct_url"], "join_channels answered %r" % joined.get("channel_url"))
    check([c.get("channel_url") for c in joined.get("channels", [])] == [S["distinct_url"]], "channels %r" % joined.get("channels"))
    # The SDK sends a bot's message as multipart/form-data. Its 2.1.5 model wants the message nested
    # under `message`, where Sendbird's page (and ternd) answer the message itself: its type check is
    # off for this call only (SDK_NOTES.md).
    bots.send_a_bot_message(bot_id, "MESG", S["distinct_url"], message="beep " + SFX, _check_return_type=False, **AUTH)
    r = messages.list_messages("group_channels", S["distinct_url"], now_ms() + 1000, 0, prev_limit=1, next_limit=0, **AUTH)
    last = r.get("messages", [])[-1]
    check(last.get("message") == "beep " + SFX and last.user.user_id == bot_id, "the bot's message: %r" % last.get("message"))


def step_view_message():
    want = S["sent"][1]
    m = messages.get_a_message("group_channels", S["url"], want.message_id, **AUTH)
    check(m.get("message_id") == want.message_id, "message_id %r" % m.get("message_id"))
    check(m.get("message") == want.message, "message %r" % m.get("message"))
    check(m.get("type") == "MESG" and m.user.user_id == UA, "type/sender wrong")
    check(m.get("channel_url") in (None, S["url"]), "channel_url %r" % m.get("channel_url"))


def step_unread_three():
    r = users.view_number_of_unread_messages(UB, **AUTH)
    check(r.get("unread_count") == 3, "unread_count for %s is %r, expected 3" % (UB, r.get("unread_count")))
    ch = find_my_channel(UB, S["url"])
    check(ch is not None and ch.get("unread_message_count") == 3,
          "my_group_channels unread_message_count %r, expected 3" % (ch and ch.get("unread_message_count")))


def step_mark_as_read():
    messages.mark_channel_messages_as_read(S["url"], mark_channel_messages_as_read_request=MarkChannelMessagesAsReadRequest(
        user_id=UB), **AUTH)
    r = users.view_number_of_unread_messages(UB, **AUTH)
    check(r.get("unread_count") == 0, "unread_count for %s after mark_as_read is %r" % (UB, r.get("unread_count")))


def step_mark_all_as_read():
    before = users.view_number_of_unread_messages(UC, **AUTH)
    check(before.get("unread_count") == 3, "unread_count for %s is %r, expected 3" % (UC, before.get("unread_count")))
    users.mark_all_messages_as_read(UC, mark_all_messages_as_read_request=MarkAllMessagesAsReadRequest(), **AUTH)
    after = users.view_number_of_unread_messages(UC, **AUTH)
    check(after.get("unread_count") == 0, "unread_count for %s after mark_as_read_all is %r" % (UC, after.get("unread_count")))


def step_wrong_token():
    try:
        users.view_a_user(UA, api_token="wrong-" + SFX, _request_timeout=15)
    except ApiException as e:
        body = e.body.decode() if isinstance(e.body, bytes) else e.body
        try:
            doc = json.loads(body or "")
        except ValueError:
            raise StepFailure("HTTP %s with non-JSON body %r" % (e.status, body))
        check(isinstance(doc, dict) and doc.get("code") == 400401,
              "HTTP %s body %r, expected code 400401" % (e.status, body))
        check(doc.get("error") is True, "error flag %r" % doc.get("error"))
        return
    raise StepFailure("a wrong Api-Token was accepted")


def step_raw_header_case():
    req = urllib.request.Request(BASE + "/v3/users/" + UA, headers={"Api-Token": TOKEN, "Accept": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=15) as resp:
            doc = json.loads(resp.read().decode("utf-8"))
    except urllib.error.HTTPError as e:
        raise StepFailure("`Api-Token` (mixed case) rejected: HTTP %s %s" % (e.code, e.read()[:300]))
    check(doc.get("user_id") == UA, "user_id %r" % doc.get("user_id"))


def step_invite():
    ud = "sdk_d_" + SFX
    users.create_a_user(create_a_user_request=CreateAUserRequest(user_id=ud, nickname="Dan " + SFX, profile_url=""), **AUTH)
    r = channels.invite_as_members(S["url"], invite_as_members_request=InviteAsMembersRequest(user_ids=[ud], inviter_id=UA), **AUTH)
    check(r.get("member_count") == 4, "member_count after invite %r" % r.get("member_count"))
    S["ud"] = ud


def step_leave():
    r = channels.leave_a_channel(S["url"], leave_a_channel_request=LeaveAChannelRequest(user_ids=[S["ud"]]), **AUTH)
    check(isinstance(r, dict), "leave answered %r" % (r,))
    c = channels.get_a_group_channel(S["url"], **AUTH)
    check(c.get("member_count") == 3, "member_count after leave %r" % c.get("member_count"))


def step_update_channel():
    c = channels.update_a_group_channel(S["url"], update_a_group_channel_request=UpdateAGroupChannelRequest(
        name="Renamed " + SFX, custom_type="sdk_test2"), **AUTH)
    check(c.get("name") == "Renamed " + SFX, "name %r" % c.get("name"))
    check(c.get("custom_type") == "sdk_test2", "custom_type %r" % c.get("custom_type"))


def step_freeze():
    c = moderation.freeze_a_group_channel(S["url"], freeze_a_group_channel_request=FreezeAGroupChannelRequest(freeze=True), **AUTH)
    check(c.get("freeze") is True, "freeze %r" % c.get("freeze"))
    c = moderation.freeze_a_group_channel(S["url"], freeze_a_group_channel_request=FreezeAGroupChannelRequest(freeze=False), **AUTH)
    check(c.get("freeze") is False, "freeze %r" % c.get("freeze"))


def step_hide_unhide():
    channels.hide_a_channel(S["url"], hide_a_channel_request=HideAChannelRequest(
        user_id=UB, hide_previous_messages=False, allow_auto_unhide=True), **AUTH)
    mine = users.list_my_group_channels(UB, show_empty=True, **AUTH)
    check(S["url"] not in [c.channel_url for c in mine.get("channels", [])], "hidden channel still listed")
    channels.unhide_a_channel(S["url"], UB, **AUTH)
    mine = users.list_my_group_channels(UB, show_empty=True, **AUTH)
    check(S["url"] in [c.channel_url for c in mine.get("channels", [])], "unhidden channel not listed")


def step_reset_history():
    r = channels.reset_chat_history(S["url"], reset_chat_history_request=ResetChatHistoryRequest(user_id=UC), **AUTH)
    check((r.get("ts_message_offset") or 0) > 0, "ts_message_offset %r" % r.get("ts_message_offset"))


def step_channel_metadata():
    r = metadata.create_a_channel_metadata("group_channels", S["url"], create_a_channel_metadata_request=CreateAChannelMetadataRequest(
        metadata={"team": "blue", "floor": "3"}), **AUTH)
    check(dict(r.get("metadata") or {}) == {"team": "blue", "floor": "3"}, "metadata %r" % r.get("metadata"))
    got = metadata.view_a_channel_metadata_when_retrieving_all_items_of_a_channel_metadata("group_channels", S["url"], **AUTH)
    # Without include_ts the Platform API answers the bare map (Sendbird's page; the legacy SDK's model).
    check(dict(got) == {"team": "blue", "floor": "3"}, "view metadata %r" % got)


def step_count_preference():
    r = users.view_count_preference_of_a_channel(UB, S["url"], **AUTH)
    check(r.get("count_preference") == "all", "default count_preference %r" % r.get("count_preference"))
    r = users.update_count_preference_of_a_channel(UB, S["url"], update_count_preference_of_a_channel_request=UpdateCountPreferenceOfAChannelRequest(
        count_preference="unread_mentioned_count_only"), **AUTH)
    check(r.get("count_preference") == "unread_mentioned_count_only", "count_preference %r" % r.get("count_preference"))
    messages.send_a_message("group_channels", S["url"], send_a_message_request=SendAMessageRequest(
        user_id=UA, message_type="MESG", message="not counted for B"), **AUTH)
    r = users.view_number_of_unread_messages(UB, **AUTH)
    check(r.get("unread_count") == 0, "unread_count with mentions only %r" % r.get("unread_count"))
    ch = find_my_channel(UB, S["url"])
    check(ch is not None and ch.get("count_preference") == "unread_mentioned_count_only", "channel count_preference %r" % (ch and ch.get("count_preference")))
    r = users.update_count_preference_of_a_channel(UB, S["url"], update_count_preference_of_a_channel_request=UpdateCountPreferenceOfAChannelRequest(
        count_preference="false"), **AUTH)
    check(r.get("count_preference") == "false", "count_preference off %r" % r.get("count_preference"))
    users.update_count_preference_of_a_channel(UB, S["url"], update_count_preference_of_a_channel_request=UpdateCountPreferenceOfAChannelRequest(
        count_preference="all"), **AUTH)


def step_unread_channels():
    r = users.view_number_of_channels_with_unread_messages(UC, super_mode="all", **AUTH)
    check(r.get("unread_count") == 1, "channels with unread for %s: %r" % (UC, r.get("unread_count")))
    r = users.view_number_of_channels_with_unread_messages(UC, super_mode="super", **AUTH)
    check(r.get("unread_count") == 0, "super channels with unread %r" % r.get("unread_count"))


def step_block():
    r = moderation.block_a_user(UB, block_a_user_request=BlockAUserRequest(target_id=UA), **AUTH)
    check([u.user_id for u in r.get("users", [])] == [UA], "blocked users %r" % r.get("users"))
    listed = moderation.list_blocked_users(UB, user_ids=UA, **AUTH)
    check([u.user_id for u in listed.get("users", [])] == [UA], "blocked list %r" % listed.get("users"))
    listed = moderation.list_blocked_users(UB, user_ids=",".join([UA, UC]), **AUTH)
    check([u.user_id for u in listed.get("users", [])] == [UA], "blocked list by two ids %r" % listed.get("users"))
    listed = moderation.list_blocked_users(UB, user_ids=UC, **AUTH)
    check(listed.get("users", []) == [], "user_ids filter on a user not blocked %r" % listed.get("users"))
    blocking = moderation.list_blocked_users(UA, list="blocking_me", **AUTH)
    check([u.user_id for u in blocking.get("users", [])] == [UB], "blocking list %r" % blocking.get("users"))
    before = users.view_number_of_unread_messages(UB, **AUTH).get("unread_count")
    messages.send_a_message("group_channels", S["url"], send_a_message_request=SendAMessageRequest(
        user_id=UA, message_type="MESG", message="from a blocked user"), **AUTH)
    after = users.view_number_of_unread_messages(UB, **AUTH).get("unread_count")
    check(after == before, "a blocked sender counted: %r -> %r" % (before, after))
    moderation.unblock_a_user(UB, UA, **AUTH)
    listed = moderation.list_blocked_users(UB, **AUTH)
    check(listed.get("users", []) == [], "blocked list after unblock %r" % listed.get("users"))


def step_update_message():
    sent = messages.send_a_message("group_channels", S["url"], send_a_message_request=SendAMessageRequest(
        user_id=UA, message_type="MESG", message="to be edited", custom_type="draft"), **AUTH)
    S["edit_id"] = sent.message_id
    r = messages.update_a_message("group_channels", S["url"], sent.message_id, update_a_message_request=UpdateAMessageRequest(
        message_type="MESG", message="edited by the platform", custom_type="final"), **AUTH)
    check(r.get("message") == "edited by the platform" and r.get("custom_type") == "final", "updated %r" % r)
    got = messages.get_a_message("group_channels", S["url"], sent.message_id, **AUTH)
    check(got.get("message") == "edited by the platform", "get after update %r" % got.get("message"))


def step_message_extra_data():
    mid = S["edit_id"]
    r = messages.add_extra_data_to_a_message("group_channels", S["url"], mid, add_extra_data_to_a_message_request=AddExtraDataToAMessageRequest(
        sorted_metaarray=SendbirdSortedMetaarray([SendbirdSortedMetaarrayInner(key="tags", value=["a", "b"])])), **AUTH)
    items = [(i.key, list(i.value)) for i in r.sorted_metaarray.value]
    check(items == [("tags", ["a", "b"])], "added %r" % items)
    r = messages.update_extra_data_in_a_message("group_channels", S["url"], mid, update_extra_data_in_a_message_request=UpdateExtraDataInAMessageRequest(
        mode="remove", upsert=False, sorted_metaarray=SendbirdSortedMetaarray([SendbirdSortedMetaarrayInner(key="tags", value=["a"])])), **AUTH)
    items = [(i.key, list(i.value)) for i in r.sorted_metaarray.value]
    check(items == [("tags", ["b"])], "after remove %r" % items)
    messages.remove_extra_data_from_a_message("group_channels", S["url"], mid, keys="tags", **AUTH)
    got = messages.get_a_message("group_channels", S["url"], mid, **AUTH)
    left = got.get("sorted_metaarray")
    check(len(getattr(left, "value", left) or []) == 0, "metaarray after removing the key %r" % left)


def step_replies_in_history():
    reply = messages.send_a_message("group_channels", S["url"], send_a_message_request=SendAMessageRequest(
        user_id=UB, message_type="MESG", message="a reply", parent_message_id=S["edit_id"]), **AUTH)
    check(reply.get("parent_message_id") == S["edit_id"], "parent_message_id %r" % reply.get("parent_message_id"))
    ts = now_ms() + 60000
    none = messages.list_messages("group_channels", S["url"], ts, 0, prev_limit=50, next_limit=0, **AUTH)
    check(reply.message_id not in [m.message_id for m in none.messages], "replies are out of the default history")
    every = messages.list_messages("group_channels", S["url"], ts, 0, prev_limit=50, next_limit=0, include_reply_type="ALL",
                                   include_thread_info=True, include_parent_message_info=True, **AUTH)
    check(reply.message_id in [m.message_id for m in every.messages], "include_reply_type=ALL lists replies")
    total = messages.get_total_number_of_messages_in_a_channel("group_channels", S["url"], **AUTH)
    check((total.get("total") or 0) >= 5, "total %r" % total.get("total"))


def step_delete_message():
    messages.delete_a_message("group_channels", S["url"], S["edit_id"], **AUTH)
    try:
        messages.get_a_message("group_channels", S["url"], S["edit_id"], **AUTH)
    except ApiException as e:
        body = json.loads(e.body) if e.body else {}
        check(body.get("code") == 400201, "deleted message: %r" % body)
        return
    raise StepFailure("the deleted message is still there")


def api_error_code(exc):
    try:
        return json.loads(exc.body).get("code")
    except Exception:  # noqa: BLE001
        return None


def step_open_channels():
    a = opens.create_an_open_channel(create_an_open_channel_request=CreateAnOpenChannelRequest(
        channel_url="oc_a_" + SFX, name="Stage " + SFX, custom_type="live", data="d", operator_ids=[UA]), **AUTH)
    check(a.channel_url == "oc_a_" + SFX, "channel_url %r" % a.channel_url)
    check([u.user_id for u in a.get("operators", [])] == [UA], "operators %r" % a.get("operators"))
    check(a.get("participant_count") == 0, "participant_count %r" % a.get("participant_count"))
    b = opens.create_an_open_channel(create_an_open_channel_request=CreateAnOpenChannelRequest(
        channel_url="oc_b_" + SFX, name="Backstage " + SFX), **AUTH)
    S["open"] = a.channel_url
    got = opens.get_an_open_channel(a.channel_url, include_operators=True, **AUTH)
    check(got.get("name") == "Stage " + SFX and got.get("custom_type") == "live", "get %r" % got)
    check(got.get("data") == "d" and got.get("channel_type") == "open" and got.get("freeze") is False, "get %r" % got)
    check([u.user_id for u in got.get("operators", [])] == [UA], "include_operators %r" % got.get("operators"))
    check(isinstance(got.get("created_at"), int) and abs(got.get("created_at") - now_ms() // 1000) < 600, "created_at (s) %r" % got.get("created_at"))
    # Filters and paging (newest first).
    by_type = opens.list_open_channels(custom_types="live", url_contains=SFX, limit=10, **AUTH)
    check([c.channel_url for c in by_type.get("channels", [])] == [a.channel_url], "custom_types filter %r" % by_type)
    by_url = opens.list_open_channels(channel_urls=a.channel_url, limit=10, **AUTH)
    check([c.channel_url for c in by_url.get("channels", [])] == [a.channel_url], "channel_urls filter %r" % by_url)
    by_name = opens.list_open_channels(name_contains="backstage " + SFX, limit=10, **AUTH)
    check([c.channel_url for c in by_name.get("channels", [])] == [b.channel_url], "name_contains filter %r" % by_name)
    first = opens.list_open_channels(url_contains=SFX, limit=1, **AUTH)
    check([c.channel_url for c in first.get("channels", [])] == [b.channel_url], "first page %r" % first)
    second = opens.list_open_channels(url_contains=SFX, limit=1, token=first.get("next"), **AUTH)
    check([c.channel_url for c in second.get("channels", [])] == [a.channel_url], "second page %r" % second)
    check(second.get("next") in ("", None), "last page next %r" % second.get("next"))
    c = opens.list_open_channels(channel_urls=",".join([a.channel_url, b.channel_url]), limit=10, **AUTH)
    check(sorted(x.channel_url for x in c.get("channels", [])) == sorted([a.channel_url, b.channel_url]), "two channel_urls %r" % c)
    up = opens.update_an_open_channel(a.channel_url, update_an_open_channel_request=UpdateAnOpenChannelRequest(
        name="Main stage " + SFX), **AUTH)
    check(up.get("name") == "Main stage " + SFX, "update %r" % up.get("name"))
    opens.delete_an_open_channel(b.channel_url, **AUTH)
    try:
        opens.get_an_open_channel(b.channel_url, **AUTH)
        raise StepFailure("a deleted open channel was found")
    except ApiException as exc:
        check(api_error_code(exc) == 400201, "deleted channel: %r" % exc.body)


def step_open_channel_operators_and_freeze():
    url = S["open"]
    opens.register_operators(url, register_operators_to_a_group_channel_request=RegisterOperatorsToAGroupChannelRequest(
        operator_ids=[UB]), **AUTH)
    ops = opens.list_channel_operators(url, limit=10, **AUTH)
    check(sorted(u.user_id for u in ops.get("operators", [])) == sorted([UA, UB]), "operators %r" % ops)
    p1 = opens.list_channel_operators(url, limit=1, **AUTH)
    check(len(p1.get("operators", [])) == 1 and p1.get("next"), "operators page 1 %r" % p1)
    p2 = opens.list_channel_operators(url, limit=1, token=p1.get("next"), **AUTH)
    check(len(p2.get("operators", [])) == 1 and p2.get("next") in ("", None), "operators page 2 %r" % p2)
    check(sorted([p1.operators[0].user_id, p2.operators[0].user_id]) == sorted([UA, UB]), "operator pages %r %r" % (p1, p2))
    opens.unregister_operators(url, UB, **AUTH)
    ops = opens.list_channel_operators(url, **AUTH)
    check([u.user_id for u in ops.get("operators", [])] == [UA], "after unregistering %r" % ops)
    opens.unregister_operators(url, "", delete_all=True, **AUTH)
    check(opens.list_channel_operators(url, **AUTH).get("operators", []) == [], "delete_all left operators")
    f = moderation.freeze_an_open_channel(url, freeze_an_open_channel_request=FreezeAnOpenChannelRequest(freeze=True), **AUTH)
    check(f.get("freeze") is True, "freeze %r" % f.get("freeze"))
    check(opens.get_an_open_channel(url, **AUTH).get("freeze") is True, "freeze not persisted")
    hidden = opens.list_open_channels(url_contains=SFX, show_frozen=False, limit=10, **AUTH)
    check(url not in [c.channel_url for c in hidden.get("channels", [])], "show_frozen=False lists a frozen channel")
    shown = opens.list_open_channels(url_contains=SFX, show_frozen=True, limit=10, **AUTH)
    check(url in [c.channel_url for c in shown.get("channels", [])], "show_frozen=True misses the frozen channel")
    f = moderation.freeze_an_open_channel(url, freeze_an_open_channel_request=FreezeAnOpenChannelRequest(freeze=False), **AUTH)
    check(f.get("freeze") is False, "unfreeze %r" % f.get("freeze"))
    sent = messages.send_a_message("open_channels", url, send_a_message_request=SendAMessageRequest(
        user_id=UA, message_type="MESG", message="hello stage"), **AUTH)
    check(sent.get("channel_type") == "open", "channel_type %r" % sent.get("channel_type"))
    listed = messages.list_messages("open_channels", url, now_ms() + 60000, 0, prev_limit=10, next_limit=0, **AUTH)
    check([m.get("message") for m in listed.get("messages", [])] == ["hello stage"], "history %r" % listed)


def step_user_metadata():
    made = users.create_user_metadata(UC, create_user_metadata_request=CreateUserMetadataRequest(
        metadata={"team": "red" + SFX, "role": "dev"}), **AUTH)
    check(made == {"team": "red" + SFX, "role": "dev"}, "create answers the new metadata: %r" % made)
    try:
        users.create_user_metadata(UC, create_user_metadata_request=CreateUserMetadataRequest(metadata={"team": "x"}), **AUTH)
        raise StepFailure("creating an existing key succeeded")
    except ApiException as exc:
        check(api_error_code(exc) == 400202, "existing key: %r" % exc.body)
    one = users.view_specific_user_metadata(UC, "team", **AUTH)
    check(one == {"team": "red" + SFX}, "view one %r" % one)
    try:
        users.view_specific_user_metadata(UC, "nope", **AUTH)
        raise StepFailure("a missing key was found")
    except ApiException as exc:
        check(api_error_code(exc) == 400201, "missing key: %r" % exc.body)
    up = users.update_user_metadata(UC, update_user_metadata_request=UpdateUserMetadataRequest(
        metadata={"city": "Oslo"}, upsert=True), **AUTH)
    check(up == {"city": "Oslo"}, "update answers the updated keys: %r" % up)
    try:
        users.update_user_metadata(UC, update_user_metadata_request=UpdateUserMetadataRequest(metadata={"zip": "0150"}), **AUTH)
        raise StepFailure("updating a missing key without upsert succeeded")
    except ApiException as exc:
        check(api_error_code(exc) == 400201, "update without upsert: %r" % exc.body)
    one = users.update_specific_user_metadata(UC, "role", update_specific_user_metadata_request=UpdateSpecificUserMetadataRequest(
        value="ops"), **AUTH)
    check(one == {"role": "ops"}, "update one %r" % one)
    users.delete_specific_user_metadata(UC, "city", **AUTH)
    u = users.view_a_user(UC, **AUTH)
    check(u.get("metadata") == {"team": "red" + SFX, "role": "ops"}, "metadata %r" % u.get("metadata"))
    users.create_user_metadata(UB, create_user_metadata_request=CreateUserMetadataRequest(metadata={"team": "blue" + SFX}), **AUTH)
    r = users.list_users(metadatakey="team", metadatavalues_in="red" + SFX, limit=10, **AUTH)
    check([x.user_id for x in r.get("users", [])] == [UC], "metadata filter %r" % r.get("users"))
    r = users.list_users(metadatakey="team", metadatavalues_in="red%s,blue%s" % (SFX, SFX), limit=10, **AUTH)
    check(sorted(x.user_id for x in r.get("users", [])) == sorted([UB, UC]), "metadata filter, two values %r" % r.get("users"))
    r = users.list_users(nickname_startswith="Carol " + SFX, limit=10, **AUTH)
    check([x.user_id for x in r.get("users", [])] == [UC], "nickname filter %r" % r.get("users"))
    r = users.list_users(nickname_startswith="Bobby " + SFX[:4], limit=10, **AUTH)
    check([x.user_id for x in r.get("users", [])] == [UB], "nickname prefix filter %r" % r.get("users"))
    users.delete_user_all_metadata(UC, **AUTH)
    users.delete_user_all_metadata(UB, **AUTH)
    check(users.view_a_user(UC, **AUTH).get("metadata") in ({}, None), "metadata left after deleting all")


STEPS = [
    ("create users", step_create_users),
    ("view user", step_view_user),
    ("update user", step_update_user),
    ("list users by user_ids", step_list_users),
    ("create distinct 1:1 channel twice", step_distinct_channel),
    ("create group channel", step_group_channel),
    ("view group channel", step_view_channel),
    ("list channel members", step_list_members),
    ("list group channels", step_list_channels),
    ("list my group channels", step_my_channels),
    ("send 2 user messages + 1 admin message", step_send_messages),
    ("list messages by timestamp", step_list_messages),
    ("list messages: the anchor included by default, not with include=false", step_list_messages_include),
    ("check_if_member: joined, and none for a non-member", step_check_if_member),
    ("view message", step_view_message),
    ("unread message count is 3", step_unread_three),
    ("mark channel as read -> unread 0", step_mark_as_read),
    ("mark all as read for a user -> unread 0", step_mark_all_as_read),
    ("count preference: view, mentions only, false, all", step_count_preference),
    ("channels with unread messages (super_mode)", step_unread_channels),
    ("block, list (blocked_by_me, blocking_me), unblock", step_block),
    ("update a message", step_update_message),
    ("message extra data (sorted_metaarray add, remove values, remove keys)", step_message_extra_data),
    ("replies: reply types in history, total count", step_replies_in_history),
    ("delete a message", step_delete_message),
    ("invite a member", step_invite),
    ("leave (Platform user_ids)", step_leave),
    ("update group channel", step_update_channel),
    ("freeze and unfreeze", step_freeze),
    ("hide and unhide for a user", step_hide_unhide),
    ("reset a user's chat history", step_reset_history),
    ("channel metadata create + view", step_channel_metadata),
    ("open channels: create, get, list filters and paging, update, delete", step_open_channels),
    ("open channel operators, freeze, messages", step_open_channel_operators_and_freeze),
    ("user metadata CRUD and the user list's metadata and nickname filters", step_user_metadata),
    ("bot: create, join a channel (one channel and `channels`), send a message as a form", step_bot),
    ("wrong Api-Token -> 400401", step_wrong_token),
    ("raw Api-Token header (mixed case)", step_raw_header_case),
]


def describe(exc):
    if isinstance(exc, StepFailure):
        return str(exc)
    if isinstance(exc, ApiException):
        body = exc.body.decode() if isinstance(exc.body, bytes) else exc.body
        return "HTTP %s %s: %s" % (exc.status, exc.reason, (body or "")[:1000])
    return "%s: %s" % (type(exc).__name__, str(exc).strip())


def main():
    passed = 0
    for name, fn in STEPS:
        client.last_response = None
        try:
            fn()
        except Exception as exc:  # noqa: BLE001
            print("FAIL  %s: %s" % (name, describe(exc)))
            last = getattr(client, "last_response", None)
            if last is not None and not isinstance(exc, ApiException):
                data = last.data if isinstance(last.data, str) else last.data.decode("utf-8", "replace")
                print("      last response: HTTP %s %s" % (last.status, data[:2000]))
            if os.environ.get("TERND_TEST_TRACEBACK"):
                traceback.print_exc()
            print("%d passed, 1 failed" % passed)
            return 1
        print("ok  %s" % name)
        passed += 1
    print("%d passed, 0 failed" % passed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
