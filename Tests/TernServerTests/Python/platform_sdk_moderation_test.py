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
import urllib.request

LEGACY = os.environ.get("SENDBIRD_PY_LEGACY", "").strip()
if not LEGACY or not os.path.isdir(os.path.join(LEGACY, "sendbird_platform_sdk")):
    print("FAIL  setup: set SENDBIRD_PY_LEGACY to a directory holding sendbird-platform-sdk==0.0.16 "
          "(pip install --target DIR sendbird-platform-sdk==0.0.16)")
    sys.exit(2)
sys.path.insert(0, LEGACY)

try:
    import sendbird_platform_sdk
    from sendbird_platform_sdk.api import moderation_api, report_api
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


class StepFailure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise StepFailure(msg)


BASE = os.environ.get("TERND_URL", "").strip().rstrip("/")
TOKEN = os.environ.get("TERND_API_TOKEN", "")
if not BASE or not TOKEN:
    print("FAIL  setup: set TERND_URL (e.g. http://127.0.0.1:1234) and TERND_API_TOKEN")
    sys.exit(2)
if BASE.endswith("/v3"):
    BASE = BASE[:-3]

client = sendbird_platform_sdk.ApiClient(sendbird_platform_sdk.Configuration(host=BASE))
moderation = moderation_api.ModerationApi(client)
reports = report_api.ReportApi(client)
OPTS = {"_request_timeout": 15}

SFX = secrets.token_hex(4)
OP, BAD, CALM = "mod_op_" + SFX, "mod_bad_" + SFX, "mod_calm_" + SFX
S = {}


def raw(method, path, body=None):
    """Setup through the Platform API without the SDK (users and channels are not what this script checks)."""
    req = urllib.request.Request(BASE + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Api-Token": TOKEN, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=15) as r:
        return json.loads(r.read() or b"{}")


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
        raw("POST", "/v3/users", {"user_id": uid, "nickname": uid, "profile_url": ""})
    g = raw("POST", "/v3/group_channels", {"user_ids": [OP, BAD, CALM], "operator_ids": [OP], "name": "mod " + SFX})
    S["group"] = g["channel_url"]
    o = raw("POST", "/v3/open_channels", {"channel_url": "mod_open_" + SFX, "operator_ids": [OP]})
    S["open"] = o["channel_url"]
    m = raw("POST", "/v3/group_channels/%s/messages" % S["group"], {"user_id": BAD, "message": "buy cheap pills"})
    S["message"] = m["message_id"]


def step_gc_ban():
    url = S["group"]
    r = moderation.gc_ban_user(TOKEN, url, gc_ban_user_data=GcBanUserData(
        channel_url=url, user_id=BAD, agent_id=OP, seconds=600, description="spam"), **OPTS)
    check(r.user.user_id == BAD and r.description == "spam", "ban %r" % r)
    check(r.end_at - r.start_at == 600_000, "ban length %r..%r" % (r.start_at, r.end_at))
    listed = moderation.gc_list_banned_users(TOKEN, url, limit=10, **OPTS)
    check([b.user.user_id for b in listed.banned_list] == [BAD], "banned list %r" % listed)
    check(listed.total_ban_count == 1, "total_ban_count %r" % listed.total_ban_count)
    one = moderation.gc_view_ban_by_id(TOKEN, url, BAD, **OPTS)
    check(one.description == "spam", "view ban %r" % one)
    members = raw("GET", "/v3/group_channels/%s/members" % url)["members"]
    check(BAD not in [m["user_id"] for m in members], "the banned user is still a member")
    up = moderation.gc_update_ban_by_id(TOKEN, url, BAD, gc_update_ban_by_id_data=GcUpdateBanByIdData(
        channel_url=url, banned_user_id=BAD, seconds=60, description="spam, shorter"), **OPTS)
    check(up.description == "spam, shorter" and up.end_at - up.start_at == 60_000, "update ban %r" % up)
    moderation.gc_unban_user_by_id(TOKEN, url, BAD, **OPTS)
    expect_error(400201, lambda: moderation.gc_view_ban_by_id(TOKEN, url, BAD, **OPTS))
    check(moderation.gc_list_banned_users(TOKEN, url, **OPTS).banned_list == [], "banned list after unban")


def step_gc_mute():
    url = S["group"]
    r = moderation.gc_mute_user(TOKEN, url, gc_mute_user_data=GcMuteUserData(
        channel_url=url, user_id=CALM, seconds=120, description="calm down"), **OPTS)
    check(r.get("channel_url") == url, "the mute answers with the channel: %r" % r)
    listed = moderation.gc_list_muted_users(TOKEN, url, **OPTS)
    check([u.user_id for u in listed.muted_list] == [CALM], "muted list %r" % listed)
    info = moderation.gc_view_mute_by_id(TOKEN, url, CALM, **OPTS)
    check(info.is_muted is True and 0 < info.remaining_duration <= 120_000, "mute info %r" % info)
    check(info.description == "calm down", "description %r" % info.description)
    moderation.gc_unmute_user_by_id(TOKEN, url, CALM, **OPTS)
    check(moderation.gc_view_mute_by_id(TOKEN, url, CALM, **OPTS).is_muted is False, "still muted after unmute")
    expect_error(400201, lambda: moderation.gc_unmute_user_by_id(TOKEN, url, CALM, **OPTS))


def step_oc_ban_and_mute():
    url = S["open"]
    r = moderation.oc_ban_user(TOKEN, url, oc_ban_user_data=OcBanUserData(
        channel_url=url, user_id=BAD, agent_id=OP, seconds=-1, description="for good"), **OPTS)
    check(r.user.user_id == BAD and r.end_at == -1, "open ban %r" % r)
    check([b.user.user_id for b in moderation.oc_list_banned_users(TOKEN, url, **OPTS).banned_list] == [BAD], "open banned list")
    moderation.oc_unban_user_by_id(TOKEN, url, BAD, **OPTS)
    moderation.oc_mute_user(TOKEN, url, oc_mute_user_data=OcMuteUserData(user_id=CALM, seconds=30, description="quiet"), **OPTS)
    check([u.user_id for u in moderation.oc_list_muted_users(TOKEN, url, **OPTS).muted_list] == [CALM], "open muted list")
    check(moderation.oc_view_mute_by_id(TOKEN, url, CALM, **OPTS).is_muted is True, "open mute info")
    moderation.oc_unmute_user_by_id(TOKEN, url, CALM, **OPTS)


def step_ban_errors():
    url = S["group"]
    expect_error(400201, lambda: moderation.gc_ban_user(TOKEN, url, gc_ban_user_data=GcBanUserData(
        channel_url=url, user_id="nobody_" + SFX, agent_id=OP, seconds=60, description=""), **OPTS))
    expect_error(400111, lambda: moderation.gc_ban_user(TOKEN, url, gc_ban_user_data=GcBanUserData(
        channel_url=url, user_id=BAD, agent_id=OP, seconds=-5, description=""), **OPTS))


def step_reports():
    url = S["group"]
    r = reports.report_message_by_id(TOKEN, "group_channels", url, str(S["message"]), report_message_by_id_data=ReportMessageByIdData(
        report_category="spam", offending_user_id=BAD, channel_type="group_channels", channel_url=url,
        message_id=str(S["message"]), reporting_user_id=CALM, report_description="ads"), **OPTS)
    check(r.report_category == "spam" and r.reported_message.message == "buy cheap pills", "message report %r" % r)
    reports.report_user_by_id(TOKEN, BAD, report_user_by_id_data=ReportUserByIdData(
        offending_user_id=BAD, report_category="harassing", channel_type="group_channels", channel_url=url,
        reporting_user_id=CALM, report_description="rude"), **OPTS)
    reports.report_channel_by_url(TOKEN, "group_channels", url, report_channel_by_url_data=ReportChannelByUrlData(
        report_category="inappropriate", channel_type="group_channels", channel_url=url, reporting_user_id=CALM), **OPTS)
    expect_error(400111, lambda: reports.report_channel_by_url(TOKEN, "group_channels", url, report_channel_by_url_data=ReportChannelByUrlData(
        report_category="boring"), **OPTS))


def step_list_reports():
    url = S["group"]
    everything = reports.list_reports(TOKEN, limit=100, **OPTS)
    mine = [x for x in everything.report_logs if x.get("channel") and x.channel.channel_url == url]
    check([x.report_type for x in mine] == ["channel", "user", "message"], "report types %r" % [x.report_type for x in mine])
    on_channel = reports.list_reports_on_channel_by_url(TOKEN, "group_channels", url, **OPTS)
    check(len(on_channel.report_logs) == 3, "reports on the channel %r" % on_channel)
    on_user = reports.list_reports_on_user_by_id(TOKEN, BAD, **OPTS)
    check({x.report_category for x in on_user.report_logs} == {"spam", "harassing"}, "reports on the user %r" % on_user)
    on_message = reports.list_reports_on_message_by_id(TOKEN, "group_channels", url, str(S["message"]), **OPTS)
    check(len(on_message.report_logs) == 1 and on_message.report_logs[0].reporting_user.user_id == CALM, "reports on the message %r" % on_message)
    first = reports.list_reports(TOKEN, limit=1, start_ts=int(time.time() * 1000) - 600_000, **OPTS)
    check(len(first.report_logs) == 1 and first.next, "paging %r" % first)


STEPS = [
    ("setup: users, a group channel, an open channel, a message", step_setup),
    ("group channel ban: ban, list, view, update, unban", step_gc_ban),
    ("group channel mute: mute (answers the channel), list, view, unmute", step_gc_mute),
    ("open channel ban and mute", step_oc_ban_and_mute),
    ("ban errors: unknown user 400201, bad seconds 400111", step_ban_errors),
    ("reports of a message, a user and a channel; bad category 400111", step_reports),
    ("report listings: all, by channel, by user, by message, paging", step_list_reports),
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
