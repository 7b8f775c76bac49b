#!/usr/bin/env python3
"""Bans, mutes and reports in ternd, driven by Sendbird's official Python Platform SDK.

The current SDK (2.1.5) has no ban, mute or report calls; the last release that has them is the
legacy 0.0.16, which cannot be installed beside 2.1.5, so it lives in a directory of its own:

Needs:  pip install --target DIR sendbird-platform-sdk==0.0.16
Env:    SENDBIRD_PY_LEGACY  that DIR
        TERND_URL           base URL without /v3, e.g. http://127.0.0.1:1234
        TERND_API_TOKEN     the application's master API token
Run:    python3 Tests/TernServerTests/Python/platform_sdk_moderation_test.py

The SDK's client-side validation and response type checking stay on, so a step passes only if
ternd's JSON deserialises into the SDK's models.  Output: one line per step ("ok  <step>" or
"FAIL  <step>: <reason>"), then "<passed> passed, <failed> failed"; exit code 0 only if all passed.
"""

import json
import os
import secrets
import sys
import time
import traceback

from sdk_steps import StepFailure, check, server_from_env

LEGACY = os.environ.get("SENDBIRD_PY_LEGACY", "").strip()
if not LEGACY or not os.path.isdir(os.path.join(LEGACY, "sendbird_platform_sdk")):
    print("FAIL  setup: set SENDBIRD_PY_LEGACY to a directory holding sendbird-platform-sdk==0.0.16 "
          "(pip install --target DIR sendbird-platform-sdk==0.0.16)")
    sys.exit(2)
sys.path.insert(0, LEGACY)

try:
    import sendbird_platform_sdk
    from sendbird_platform_sdk.api import application_api, privacy_api, group_channel_api, message_api, moderation_api, open_channel_api, report_api, user_api
    from sendbird_platform_sdk.model.add_fcm_push_configuration_data import AddFcmPushConfigurationData
    from sendbird_platform_sdk.model.register_gdpr_request_data import RegisterGdprRequestData
    from sendbird_platform_sdk.model.add_hms_push_configuration_data import AddHmsPushConfigurationData
    from sendbird_platform_sdk.model.update_fcm_push_configuration_by_id_data import UpdateFcmPushConfigurationByIdData
    from sendbird_platform_sdk.model.update_hms_push_configuration_by_id_data import UpdateHmsPushConfigurationByIdData
    from sendbird_platform_sdk.model.create_user_data import CreateUserData
    from sendbird_platform_sdk.model.gc_create_channel_data import GcCreateChannelData
    from sendbird_platform_sdk.model.gc_invite_as_members_data import GcInviteAsMembersData
    from sendbird_platform_sdk.model.oc_create_channel_data import OcCreateChannelData
    from sendbird_platform_sdk.model.oc_update_ban_by_id_data import OcUpdateBanByIdData
    from sendbird_platform_sdk.model.send_message_data import SendMessageData
    from sendbird_platform_sdk.exceptions import ApiException
    from sendbird_platform_sdk.model.gc_ban_user_data import GcBanUserData
    from sendbird_platform_sdk.model.gc_mute_user_data import GcMuteUserData
    from sendbird_platform_sdk.model.gc_update_ban_by_id_data import GcUpdateBanByIdData
    from sendbird_platform_sdk.model.oc_ban_user_data import OcBanUserData
    from sendbird_platform_sdk.model.oc_mute_user_data import OcMuteUserData
    from sendbird_platform_sdk.model.report_channel_by_url_data import ReportChannelByUrlData
    from sendbird_platform_sdk.model.report_message_by_id_data import ReportMessageByIdData
    from sendbird_platform_sdk.model.report_user_by_id_data import ReportUserByIdData
except ImportError as exc:  # pragma: no cover
    print("FAIL  setup: cannot import the legacy sendbird_platform_sdk from %s (%s)" % (LEGACY, exc))
    sys.exit(2)

if sendbird_platform_sdk.__version__ != "0.0.16":
    print("FAIL  setup: expected sendbird-platform-sdk 0.0.16 in %s, found %s" % (LEGACY, sendbird_platform_sdk.__version__))
    sys.exit(2)

BASE, TOKEN = server_from_env("FAIL  setup")

client = sendbird_platform_sdk.ApiClient(sendbird_platform_sdk.Configuration(host=BASE))
moderation = moderation_api.ModerationApi(client)
reports = report_api.ReportApi(client)
users = user_api.UserApi(client)
groups = group_channel_api.GroupChannelApi(client)
opens = open_channel_api.OpenChannelApi(client)
messages = message_api.MessageApi(client)
OPTS = {"_request_timeout": 15}

SFX = secrets.token_hex(4)
OP, BAD, CALM = "mod_op_" + SFX, "mod_bad_" + SFX, "mod_calm_" + SFX
S = {}


def error_code(exc):
    try:
        return json.loads(exc.body).get("code")
    except Exception:  # noqa: BLE001
        return None


def expect_error(code, call):
    try:
        call()
    except ApiException as exc:
        check(error_code(exc) == code, "expected %d, got %r" % (code, exc.body))
        return
    raise StepFailure("expected error %d, the call succeeded" % code)


# --------------------------------------------------------------------------- steps


def step_setup():
    for uid in (OP, BAD, CALM):
        u = users.create_user(TOKEN, create_user_data=CreateUserData(user_id=uid, nickname=uid, profile_url=""), **OPTS)
        check(u.user_id == uid, "user_id %r" % u.user_id)
    g = groups.gc_create_channel(TOKEN, gc_create_channel_data=GcCreateChannelData(
        user_ids=[OP, BAD, CALM], operator_ids=[OP], name="mod " + SFX), **OPTS)
    check(g.member_count == 3, "member_count %r" % g.get("member_count"))
    S["group"] = g.channel_url
    o = opens.oc_create_channel(TOKEN, oc_create_channel_data=OcCreateChannelData(
        channel_url="mod_open_" + SFX, name="mod open " + SFX, operator_ids=[OP]), **OPTS)
    check(o.channel_url == "mod_open_" + SFX, "open channel_url %r" % o.channel_url)
    S["open"] = o.channel_url
    m = messages.send_message(TOKEN, "group_channels", S["group"], send_message_data=SendMessageData(
        user_id=BAD, message_type="MESG", message="buy cheap pills"), **OPTS)
    S["message"] = int(m.message_id)  # the legacy model types message_id as float
    om = messages.send_message(TOKEN, "open_channels", S["open"], send_message_data=SendMessageData(
        user_id=BAD, message_type="MESG", message="loud ads"), **OPTS)
    S["open_message"] = int(om.message_id)


def now_ms():
    return int(time.time() * 1000)


def step_gdpr_cancel():
    privacy = privacy_api.PrivacyApi(client)
    r = privacy.register_gdpr_request(TOKEN, register_gdpr_request_data=RegisterGdprRequestData(
        action="delete", user_ids=[CALM], channel_delete_option="do_not_delete", user_id=CALM), **OPTS)
    check(r.get("status") == "scheduled", "a GDPR request is scheduled: %r" % r.get("status"))
    seen = privacy.view_gdpr_request_by_id(TOKEN, r.request_id, **OPTS)
    check(seen.get("request_id") == r.request_id, "view %r" % seen.get("request_id"))
    privacy.cancel_the_registration_of_gdpr_request_by_id(TOKEN, r.request_id, **OPTS)
    check(users.view_user_by_id(TOKEN, CALM, **OPTS).user_id == CALM, "the user stays")


def step_push_configurations():
    app = application_api.ApplicationApi(client)
    fcm = app.add_fcm_push_configuration(TOKEN, add_fcm_push_configuration_data=AddFcmPushConfigurationData(
        api_key="fcm-secret-" + SFX, push_sound="ding"), **OPTS)
    fcm_id = fcm.push_configurations[0].id
    hms = app.add_hms_push_configuration(TOKEN, add_hms_push_configuration_data=AddHmsPushConfigurationData(
        huawei_app_id="hms-" + SFX, huawei_app_secret="hms-secret-" + SFX, push_sound="ding"), **OPTS)
    hms_id = hms.push_configurations[0].id
    # An update answers the provider's id (a string in the SDK's model, as on Sendbird's page).
    u = app.update_fcm_push_configuration_by_id(TOKEN, fcm_id, update_fcm_push_configuration_by_id_data=
        UpdateFcmPushConfigurationByIdData(provider_id=fcm_id, api_key="fcm-secret-2-" + SFX, push_sound="chime"), **OPTS)
    check(u.push_configurations == fcm_id, "update fcm answered %r" % u.push_configurations)
    u = app.update_hms_push_configuration_by_id(TOKEN, hms_id, update_hms_push_configuration_by_id_data=
        UpdateHmsPushConfigurationByIdData(provider_id=hms_id, huawei_app_id="hms-2-" + SFX, huawei_app_secret="s2-" + SFX,
                                           push_sound="chime"), **OPTS)
    check(u.push_configurations == hms_id, "update hms answered %r" % u.push_configurations)
    # Removal by Sendbird's push_type names: fcm, and huawei for HMS.
    app.remove_push_configuration_by_id(TOKEN, "fcm", fcm_id, **OPTS)
    app.remove_push_configuration_by_id(TOKEN, "huawei", hms_id, **OPTS)
    for kind, gone in (("fcm", fcm_id), ("hms", hms_id)):
        left = app.list_push_configurations(TOKEN, kind, **OPTS)
        check(not any(c.get("id") == gone for c in left.get("push_configurations", [])), "%s %s still listed" % (kind, gone))


def step_gc_ban():
    url = S["group"]
    r = moderation.gc_ban_user(TOKEN, url, gc_ban_user_data=GcBanUserData(
        channel_url=url, user_id=BAD, agent_id=OP, seconds=600, description="spam"), **OPTS)
    check(r.user.user_id == BAD and r.description == "spam", "ban %r" % r)
    check(r.end_at - r.start_at == 600_000, "ban length %r..%r" % (r.start_at, r.end_at))
    check(abs(r.start_at - now_ms()) < 60_000, "start_at %r is not a ms timestamp of now" % r.start_at)
    listed = moderation.gc_list_banned_users(TOKEN, url, limit=10, **OPTS)
    check([b.user.user_id for b in listed.banned_list] == [BAD], "banned list %r" % listed)
    check(listed.banned_list[0].description == "spam" and listed.banned_list[0].end_at == r.end_at, "listed ban %r" % listed.banned_list[0])
    check(listed.total_ban_count == 1, "total_ban_count %r" % listed.total_ban_count)
    check(listed.get("next", "") == "", "next %r" % listed.get("next"))
    one = moderation.gc_view_ban_by_id(TOKEN, url, BAD, **OPTS)
    check(one.user.user_id == BAD and one.description == "spam" and one.end_at == r.end_at, "view ban %r" % one)
    members = groups.gc_list_members(TOKEN, url, limit=10, **OPTS).members
    check(BAD not in [m.user_id for m in members], "the banned user is still a member")
    up = moderation.gc_update_ban_by_id(TOKEN, url, BAD, gc_update_ban_by_id_data=GcUpdateBanByIdData(
        channel_url=url, banned_user_id=BAD, seconds=60, description="spam, shorter"), **OPTS)
    check(up.user.user_id == BAD, "update ban user %r" % up.get("user"))
    check(up.description == "spam, shorter" and up.end_at - up.start_at == 60_000, "update ban %r" % up)
    again = moderation.gc_view_ban_by_id(TOKEN, url, BAD, **OPTS)
    check(again.description == "spam, shorter" and again.end_at == up.end_at, "update not persisted %r" % again)
    moderation.gc_unban_user_by_id(TOKEN, url, BAD, **OPTS)
    expect_error(400201, lambda: moderation.gc_view_ban_by_id(TOKEN, url, BAD, **OPTS))
    check(moderation.gc_list_banned_users(TOKEN, url, **OPTS).banned_list == [], "banned list after unban")


def step_gc_ban_paging():
    url = S["group"]
    for uid in (BAD, CALM):
        moderation.gc_ban_user(TOKEN, url, gc_ban_user_data=GcBanUserData(
            channel_url=url, user_id=uid, agent_id=OP, seconds=-1, description="page"), **OPTS)
    first = moderation.gc_list_banned_users(TOKEN, url, limit=1, **OPTS)
    check(len(first.banned_list) == 1 and first.next, "first page %r" % first)
    check(first.banned_list[0].end_at == -1, "a permanent ban's end_at %r" % first.banned_list[0].end_at)
    second = moderation.gc_list_banned_users(TOKEN, url, limit=1, token=first.next, **OPTS)
    check(len(second.banned_list) == 1 and second.get("next", "") == "", "second page %r" % second)
    got = sorted([first.banned_list[0].user.user_id, second.banned_list[0].user.user_id])
    check(got == sorted([BAD, CALM]), "pages %r" % got)
    for uid in (BAD, CALM):
        moderation.gc_unban_user_by_id(TOKEN, url, uid, **OPTS)
    # a ban removed both from the channel and an unban does not bring them back: re-invite them
    groups.gc_invite_as_members(TOKEN, url, gc_invite_as_members_data=GcInviteAsMembersData(
        channel_url=url, user_ids=[BAD, CALM], users=[], invitation_status={}, hidden_status={}), **OPTS)
    members = [m.user_id for m in groups.gc_list_members(TOKEN, url, limit=10, **OPTS).members]
    check(sorted(members) == sorted([OP, BAD, CALM]), "members after the re-invite %r" % members)


def step_gc_mute():
    url = S["group"]
    r = moderation.gc_mute_user(TOKEN, url, gc_mute_user_data=GcMuteUserData(
        channel_url=url, user_id=CALM, seconds=120, description="calm down"), **OPTS)
    check(r.get("channel_url") == url, "the mute answers with the channel: %r" % r)
    listed = moderation.gc_list_muted_users(TOKEN, url, **OPTS)
    check([u.user_id for u in listed.muted_list] == [CALM], "muted list %r" % listed)
    check(listed.total_mute_count == 1, "total_mute_count %r" % listed.total_mute_count)
    entry = listed.muted_list[0]
    check(entry.get("description") == "calm down" and 0 < entry.get("remaining_duration", 0) <= 120_000,
          "muted list entry %r" % entry)
    info = moderation.gc_view_mute_by_id(TOKEN, url, CALM, **OPTS)
    check(info.is_muted is True and 0 < info.remaining_duration <= 120_000, "mute info %r" % info)
    check(info.description == "calm down" and info.end_at - info.start_at == 120_000, "mute info %r" % info)
    moderation.gc_unmute_user_by_id(TOKEN, url, CALM, **OPTS)
    check(moderation.gc_view_mute_by_id(TOKEN, url, CALM, **OPTS).is_muted is False, "still muted after unmute")
    check(moderation.gc_list_muted_users(TOKEN, url, **OPTS).muted_list == [], "muted list after unmute")
    expect_error(400201, lambda: moderation.gc_unmute_user_by_id(TOKEN, url, CALM, **OPTS))


def step_oc_ban():
    url = S["open"]
    r = moderation.oc_ban_user(TOKEN, url, oc_ban_user_data=OcBanUserData(
        channel_url=url, user_id=BAD, agent_id=OP, seconds=-1, description="for good"), **OPTS)
    check(r.user.user_id == BAD and r.end_at == -1 and r.description == "for good", "open ban %r" % r)
    listed = moderation.oc_list_banned_users(TOKEN, url, **OPTS)
    check([b.user.user_id for b in listed.banned_list] == [BAD] and listed.total_ban_count == 1, "open banned list %r" % listed)
    one = moderation.oc_view_ban_by_id(TOKEN, url, BAD, **OPTS)
    check(one.user.user_id == BAD and one.end_at == -1 and one.description == "for good", "open view ban %r" % one)
    up = moderation.oc_update_ban_by_id(TOKEN, url, BAD, oc_update_ban_by_id_data=OcUpdateBanByIdData(
        channel_url=url, banned_user_id=BAD, seconds=300, description="five minutes"), **OPTS)
    check(up.user.user_id == BAD and up.description == "five minutes" and up.end_at - up.start_at == 300_000, "open update ban %r" % up)
    moderation.oc_unban_user_by_id(TOKEN, url, BAD, **OPTS)
    expect_error(400201, lambda: moderation.oc_view_ban_by_id(TOKEN, url, BAD, **OPTS))
    check(moderation.oc_list_banned_users(TOKEN, url, **OPTS).banned_list == [], "open banned list after unban")


def step_oc_mute():
    url = S["open"]
    r = moderation.oc_mute_user(TOKEN, url, oc_mute_user_data=OcMuteUserData(user_id=CALM, seconds=30, description="quiet"), **OPTS)
    check(r.get("channel_url") == url, "the open mute answers with the channel: %r" % r)
    listed = moderation.oc_list_muted_users(TOKEN, url, **OPTS)
    check([u.user_id for u in listed.muted_list] == [CALM] and listed.total_mute_count == 1, "open muted list %r" % listed)
    info = moderation.oc_view_mute_by_id(TOKEN, url, CALM, **OPTS)
    check(info.is_muted is True and 0 < info.remaining_duration <= 30_000 and info.description == "quiet", "open mute info %r" % info)
    moderation.oc_unmute_user_by_id(TOKEN, url, CALM, **OPTS)
    check(moderation.oc_view_mute_by_id(TOKEN, url, CALM, **OPTS).is_muted is False, "open: still muted after unmute")


def step_ban_errors():
    url = S["group"]
    expect_error(400201, lambda: moderation.gc_ban_user(TOKEN, url, gc_ban_user_data=GcBanUserData(
        channel_url=url, user_id="nobody_" + SFX, agent_id=OP, seconds=60, description=""), **OPTS))
    expect_error(400111, lambda: moderation.gc_ban_user(TOKEN, url, gc_ban_user_data=GcBanUserData(
        channel_url=url, user_id=BAD, agent_id=OP, seconds=-5, description=""), **OPTS))
    expect_error(400201, lambda: moderation.gc_ban_user(TOKEN, "no_such_" + SFX, gc_ban_user_data=GcBanUserData(
        channel_url="no_such_" + SFX, user_id=BAD, agent_id=OP, seconds=60, description=""), **OPTS))
    expect_error(400201, lambda: moderation.oc_unban_user_by_id(TOKEN, S["open"], CALM, **OPTS))


def step_reports():
    url = S["group"]
    r = reports.report_message_by_id(TOKEN, "group_channels", url, str(S["message"]), report_message_by_id_data=ReportMessageByIdData(
        report_category="spam", offending_user_id=BAD, channel_type="group_channels", channel_url=url,
        message_id=str(S["message"]), reporting_user_id=CALM, report_description="ads"), **OPTS)
    check(r.report_type == "message" and r.report_category == "spam" and r.report_description == "ads", "message report %r" % r)
    check(r.reported_message.message == "buy cheap pills", "reported_message %r" % r.get("reported_message"))
    check(r.offending_user.user_id == BAD and r.reporting_user.user_id == CALM, "report users %r" % r)
    check(r.channel.channel_url == url, "report channel %r" % r.get("channel"))
    # Sendbird's unit for a report's created_at is not pinned down here: accept now in ms or in s
    check(abs(r.created_at - now_ms()) < 60_000 or abs(r.created_at - now_ms() / 1000) < 60, "created_at %r is not now" % r.created_at)
    u = reports.report_user_by_id(TOKEN, BAD, report_user_by_id_data=ReportUserByIdData(
        offending_user_id=BAD, report_category="harassing", channel_type="group_channels", channel_url=url,
        reporting_user_id=CALM, report_description="rude"), **OPTS)
    check(u.report_type == "user" and u.report_category == "harassing" and u.offending_user.user_id == BAD, "user report %r" % u)
    check(u.channel.channel_url == url and u.reporting_user.user_id == CALM, "user report context %r" % u)
    c = reports.report_channel_by_url(TOKEN, "group_channels", url, report_channel_by_url_data=ReportChannelByUrlData(
        report_category="inappropriate", channel_type="group_channels", channel_url=url, reporting_user_id=CALM), **OPTS)
    check(c.report_type == "channel" and c.report_category == "inappropriate" and c.channel.channel_url == url, "channel report %r" % c)
    o = reports.report_message_by_id(TOKEN, "open_channels", S["open"], str(S["open_message"]), report_message_by_id_data=ReportMessageByIdData(
        report_category="suspicious", offending_user_id=BAD, channel_type="open_channels", channel_url=S["open"],
        message_id=str(S["open_message"]), reporting_user_id=OP), **OPTS)
    check(o.channel.channel_url == S["open"] and o.reported_message.message == "loud ads", "open message report %r" % o)


def step_report_errors():
    url = S["group"]
    expect_error(400111, lambda: reports.report_channel_by_url(TOKEN, "group_channels", url, report_channel_by_url_data=ReportChannelByUrlData(
        report_category="boring"), **OPTS))
    expect_error(400201, lambda: reports.report_user_by_id(TOKEN, "nobody_" + SFX, report_user_by_id_data=ReportUserByIdData(
        offending_user_id="nobody_" + SFX, report_category="spam"), **OPTS))
    expect_error(400201, lambda: reports.report_message_by_id(TOKEN, "group_channels", url, "999999999", report_message_by_id_data=ReportMessageByIdData(
        report_category="spam", offending_user_id=BAD), **OPTS))
    expect_error(400201, lambda: reports.report_channel_by_url(TOKEN, "group_channels", "no_such_" + SFX, report_channel_by_url_data=ReportChannelByUrlData(
        report_category="spam"), **OPTS))


def step_list_reports():
    url = S["group"]
    everything = reports.list_reports(TOKEN, limit=100, **OPTS)
    mine = [x for x in everything.report_logs if x.get("channel") and x.channel.channel_url == url]
    check([x.report_type for x in mine] == ["channel", "user", "message"], "report types (newest first) %r" % [x.report_type for x in mine])
    on_channel = reports.list_reports_on_channel_by_url(TOKEN, "group_channels", url, **OPTS)
    check(len(on_channel.report_logs) == 3, "reports on the channel %r" % on_channel)
    on_open = reports.list_reports_on_channel_by_url(TOKEN, "open_channels", S["open"], **OPTS)
    check([x.report_type for x in on_open.report_logs] == ["message"], "reports on the open channel %r" % on_open)
    on_user = reports.list_reports_on_user_by_id(TOKEN, BAD, **OPTS)
    check({x.report_category for x in on_user.report_logs} == {"spam", "harassing", "suspicious"}, "reports on the user %r" % on_user)
    on_message = reports.list_reports_on_message_by_id(TOKEN, "group_channels", url, str(S["message"]), **OPTS)
    check(len(on_message.report_logs) == 1 and on_message.report_logs[0].reporting_user.user_id == CALM, "reports on the message %r" % on_message)
    check(on_message.report_logs[0].reported_message.message == "buy cheap pills", "listed reported_message %r" % on_message.report_logs[0])
    since = now_ms() - 600_000
    first = reports.list_reports(TOKEN, limit=1, start_ts=since, **OPTS)
    check(len(first.report_logs) == 1 and first.next, "paging %r" % first)
    second = reports.list_reports(TOKEN, limit=1, start_ts=since, token=first.next, **OPTS)
    check(len(second.report_logs) == 1 and second.report_logs[0].created_at <= first.report_logs[0].created_at, "second page %r" % second)
    check(second.report_logs[0].to_dict() != first.report_logs[0].to_dict(), "the second page repeats the first")
    empty = reports.list_reports(TOKEN, limit=10, start_ts=now_ms() + 60_000, **OPTS)
    check(empty.report_logs == [], "start_ts in the future %r" % empty)
    user_pages = reports.list_reports_on_user_by_id(TOKEN, BAD, limit=2, **OPTS)
    check(len(user_pages.report_logs) == 2 and user_pages.next, "user reports page %r" % user_pages)
    rest = reports.list_reports_on_user_by_id(TOKEN, BAD, limit=2, token=user_pages.next, **OPTS)
    check(len(rest.report_logs) == 1 and rest.get("next", "") == "", "user reports last page %r" % rest)


STEPS = [
    ("setup via the SDK: users, a group channel, an open channel, messages", step_setup),
    ("group channel ban: ban, list, view, update, unban", step_gc_ban),
    ("group channel ban list paging (limit=1 + token), permanent bans", step_gc_ban_paging),
    ("group channel mute: mute (answers the channel), list, view, unmute", step_gc_mute),
    ("open channel ban: ban, list, view, update, unban", step_oc_ban),
    ("open channel mute: mute (answers the channel), list, view, unmute", step_oc_mute),
    ("ban errors: unknown user / channel 400201, bad seconds 400111", step_ban_errors),
    ("reports of a message, a user, a channel, an open channel's message", step_reports),
    ("report errors: bad category 400111, unknown user / message / channel 400201", step_report_errors),
    ("report listings: all, by channel, by user, by message, paging", step_list_reports),
    ("push configurations: add fcm and hms, update (answers the id), remove as fcm and huawei", step_push_configurations),
    ("GDPR: a request is scheduled, viewed, and cancelled before it is carried out", step_gdpr_cancel),
]


def main():
    passed = failed = 0
    for name, fn in STEPS:
        try:
            fn()
            passed += 1
            print("ok  %s" % name)
        except ApiException as exc:
            failed += 1
            print("FAIL  %s: HTTP %s %s" % (name, exc.status, exc.body))
            break
        except Exception as exc:  # noqa: BLE001
            failed += 1
            print("FAIL  %s: %s: %s" % (name, type(exc).__name__, exc))
            traceback.print_exc(limit=3)
            break
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(0 if failed == 0 and passed == len(STEPS) else 1)


if __name__ == "__main__":
    main()
