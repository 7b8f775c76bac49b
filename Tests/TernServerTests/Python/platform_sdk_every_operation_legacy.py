#!/usr/bin/env python3
"""Every operation of the legacy official Python Platform SDK (0.0.16), called through the SDK against ternd (issue 34).

The legacy SDK (the last with moderation, reports, emojis, metacounters, data export, GDPR,
announcements, statistics, webhooks…) cannot be installed beside 2.1.5 (same package name), so it
lives in a directory of its own, put first on sys.path before anything imports the SDK:

Needs:  pip install --target DIR sendbird-platform-sdk==0.0.16
Env:    SENDBIRD_PY_LEGACY  that DIR (default ~/.cache/tern/sendbird-py-0.0.16)
        TERND_URL           base URL without /v3, e.g. http://127.0.0.1:1234
        TERND_API_TOKEN     the application's master API token
ternd:  started with a translation provider, e.g. `ternd serve --translation-command 'tr a-z A-Z'`
        (Sendbird translates messages itself; ternd only with one)
Run:    python3 Tests/TernServerTests/Python/platform_sdk_every_operation_legacy.py

The runner is the one of `platform_sdk_every_operation.py` (imported): the operations are
discovered by `platform_endpoints.py` from the legacy package, each is called through its API
class with valid arguments in an order that creates what it needs first, with the SDK's input
validation and response type checking on, so an operation succeeds only if ternd's answer is 2xx
and deserialises into the legacy SDK's model. Output: one line per operation (`ok <op>`,
`FAIL <op>: …`, `allowed <op>: …`), then `N/M operations succeeded through the SDK`; exit status 0
only if every failing operation is in ALLOWED below.
"""

import datetime
import os
import sys

LEGACY = (os.environ.get("SENDBIRD_PY_LEGACY") or os.path.expanduser("~/.cache/tern/sendbird-py-0.0.16")).strip()
if not os.path.isdir(os.path.join(LEGACY, "sendbird_platform_sdk")):
    print("FAIL setup: no legacy SDK in %s; pip install --target DIR sendbird-platform-sdk==0.0.16 and set SENDBIRD_PY_LEGACY=DIR" % LEGACY)
    sys.exit(2)
sys.path.insert(0, LEGACY)  # before the shared runner imports sendbird_platform_sdk
sys.path.insert(1, os.path.dirname(os.path.abspath(__file__)))

import sendbird_platform_sdk  # noqa: E402

if sendbird_platform_sdk.__version__ != "0.0.16":
    print("FAIL setup: expected sendbird-platform-sdk 0.0.16 in %s, found %s" % (LEGACY, sendbird_platform_sdk.__version__))
    sys.exit(2)

import platform_sdk_every_operation as every  # noqa: E402  (the shared runner, now on the legacy SDK)
from platform_sdk_every_operation import SFX, S, model, now_ms  # noqa: E402

# The legacy SDK takes the token as every operation's first positional argument.
every.AUTH = {"_request_timeout": 15}


def sdk(op, *args, **kwargs):
    """Calls operation `op` of the legacy SDK (strict checks on), the token first."""
    return every.sdk(op, every.TOKEN, *args, **kwargs)

# Operations allowed to fail, with the reason: only what Sendbird itself would refuse here, or
# what the legacy SDK's model cannot read from Sendbird's documented answer either.
APNS = ("needs a real APNs certificate (Sendbird validates the .p12 it is given), and the legacy request model puts the "
        "required `apns_cert` file into a JSON body, which the SDK cannot serialise")
ALLOWED = {
    # needs what this setup does not have
    "add_apns_push_configuration": APNS,
    "update_apns_push_configuration_by_id": APNS,
    "delete_apns_certificate_by_id": "deletes the certificate of an APNs configuration, which needs a real APNs certificate to exist (above)",
    # legacy models that cannot read Sendbird's documented answer
    "remove_reaction_from_a_message": "RemoveReactionFromAMessageResponse types `user_id` as float; Sendbird's answer (and ternd's) "
                                      "has the user's id, a string",
    "view_channel_metacounter": "ViewChannelMetacounterResponse is a map of str; Sendbird's metacounter values are integers "
                                "(`{\"likes\": 1}`)",
    "update_channel_metacounter_by_key": "UpdateChannelMetacounterByKeyResponse is a map of str; Sendbird answers the item as an "
                                         "integer (`{\"views\": 5}`)",
    "view_push_preferences": "ViewPushPreferencesResponse types `snooze_start_ts`/`snooze_end_ts` as str; Sendbird documents "
                             "them as long timestamps (numbers), as 2.1.5 reads them",
    "reset_push_preferences": "ResetPushPreferencesResponse types `snooze_start_ts`/`snooze_end_ts` as str (see view_push_preferences)",
    "remove_registration_or_device_token_by_token": "the two official SDKs disagree on `token`: 0.0.16 wants a list ([str], as in "
                                                    "Sendbird's JSON example), 2.1.5 a string (as in Sendbird's property table); "
                                                    "ternd answers the string 2.1.5 reads",
    "block_user": "BlockUserResponse types `users` as [str] where Sendbird answers user objects",
}

UA, UB, UC, UD, UE, UF = ("legacy_%s_%s" % (c, SFX) for c in "abcdef")
BOT = "legacy_bot_" + SFX
CT = "legacy_" + SFX  # a custom channel type of this run


def loose(_class_name, **kwargs):
    """A request model whose own field type check is off, for a field the legacy model mistypes:
    `sorted_metaarray` and `metacounter` (typed str; Sendbird's pages want an array / an object)
    and `cover_file` (a required file in a JSON body, which cannot be serialised; left null).
    Everything else, and the response check, stays strict."""
    return model(_class_name, _check_type=False, **kwargs)


def group(**kw):
    return sdk("gc_create_channel", gc_create_channel_data=model("GcCreateChannelData", **kw))


def send(ct, url, user, text):
    return sdk("send_message", ct, url, send_message_data=model("SendMessageData", user_id=user, message_type="MESG", message=text))


def mid(key):
    return str(S[key])


def both(call):
    """`call(channel_type, channel_url, message_id)` for the group channel, then the open channel."""
    return call("group_channels", S["group"], mid("m1")), call("open_channels", S["open"], mid("om1"))


def steps():
    G = lambda: S["group"]  # noqa: E731
    O = lambda: S["open"]  # noqa: E731
    today = datetime.datetime.now(datetime.timezone.utc).date()
    tokens = ["legacy-gcm-%s-%d" % (SFX, i) for i in range(3)]

    def token_data(t):
        return model("AddRegistrationOrDeviceTokenData", gcm_reg_token=t, huawei_device_token="", apns_device_token="")

    def metadata_steps():
        return [
            ("create_channel_metadata", lambda: both(lambda ct, url, m: sdk("create_channel_metadata", ct, url, create_channel_metadata_data=model(
                "CreateChannelMetadataData", channel_type=ct, channel_url=url, metadata={"team": "blue", "floor": "3", "wing": "w"}, include_ts=True)))),
            ("view_channel_metadata", lambda: both(lambda ct, url, m: (sdk("view_channel_metadata", ct, url),
                                                                      sdk("view_channel_metadata", ct, url, keys=["team", "floor"])))),
            ("view_channel_metadata_by_key", lambda: both(lambda ct, url, m: sdk("view_channel_metadata_by_key", ct, url, "team"))),
            ("update_channel_metadata", lambda: both(lambda ct, url, m: sdk("update_channel_metadata", ct, url, update_channel_metadata_data=model(
                "UpdateChannelMetadataData", metadata={"team": "green", "room": "7"}, upsert=True)))),
            ("update_channel_metadata_by_key", lambda: both(lambda ct, url, m: sdk("update_channel_metadata_by_key", ct, url, "team",
                                                                                  body={"value": "red", "upsert": True}))),
            ("delete_channel_metadata_by_key", lambda: both(lambda ct, url, m: sdk("delete_channel_metadata_by_key", ct, url, "floor"))),
            ("delete_channel_metadata", lambda: both(lambda ct, url, m: (sdk("delete_channel_metadata", ct, url, key="wing"),
                                                                        sdk("delete_channel_metadata", ct, url)))),
            ("create_channel_metacounter", lambda: both(lambda ct, url, m: sdk("create_channel_metacounter", ct, url, create_channel_metacounter_data=loose(
                "CreateChannelMetacounterData", channel_type=ct, channel_url=url, metacounter={"likes": 1, "views": 10, "shares": 0})))),
            ("view_channel_metacounter", lambda: both(lambda ct, url, m: (sdk("view_channel_metacounter", ct, url),
                                                                         sdk("view_channel_metacounter", ct, url, keys=["likes"])))),
            ("view_channel_metacounter_by_key", lambda: both(lambda ct, url, m: sdk("view_channel_metacounter_by_key", ct, url, "likes"))),
            ("update_channel_metacounter", lambda: both(lambda ct, url, m: sdk("update_channel_metacounter", ct, url, update_channel_metacounter_data=loose(
                "UpdateChannelMetacounterData", metacounter={"likes": 2, "stars": 1}, mode="increase", upsert=True)))),
            ("update_channel_metacounter_by_key", lambda: both(lambda ct, url, m: sdk("update_channel_metacounter_by_key", ct, url, "views",
                                                                                     body={"value": 5, "mode": "decrease"}))),
            ("delete_channel_metacounter_by_key", lambda: both(lambda ct, url, m: sdk("delete_channel_metacounter_by_key", ct, url, "shares"))),
            ("delete_channel_metacounter", lambda: both(lambda ct, url, m: sdk("delete_channel_metacounter", ct, url))),
        ]

    return [
        # ------------------------------------------------------------ users
        ("create_user", lambda: [sdk("create_user", create_user_data=model(
            "CreateUserData", user_id=u, nickname="Legacy %s %s" % (u[7], SFX), profile_url="", issue_access_token=(u == UA)))
            for u in (UA, UB, UC, UD, UE, UF)]),
        ("view_user_by_id", lambda: sdk("view_user_by_id", UA, include_unread_count=True)),
        ("list_users", lambda: sdk("list_users", user_ids=",".join([UA, UB, UC]), limit=10, show_bot=True)),
        ("update_user_by_id", lambda: sdk("update_user_by_id", UB, update_user_by_id_data=model(
            "UpdateUserByIdData", user_id=UB, nickname="Bobby " + SFX, profile_url=""))),
        ("create_user_token", lambda: (sdk("create_user_token", UA, create_user_token_data=model(
            "CreateUserTokenData", expires_at=float(now_ms() + 3_600_000))), sdk("create_user_token", UB))),
        ("create_user_metadata", lambda: sdk("create_user_metadata", UC, create_user_metadata_data=model(
            "CreateUserMetadataData", metadata={"team": "red", "role": "dev", "city": "Oslo", "pet": "cat"}))),
        ("view_user_metadata", lambda: (sdk("view_user_metadata", UC), sdk("view_user_metadata", UC, keys=["team", "role"]))),
        ("view_user_metadata_by_key", lambda: sdk("view_user_metadata_by_key", UC, "team")),
        ("update_user_metadata", lambda: sdk("update_user_metadata", UC, update_user_metadata_data=model(
            "UpdateUserMetadataData", metadata={"team": "blue", "floor": "3"}, upsert=True))),
        ("update_user_metadata_by_key", lambda: sdk("update_user_metadata_by_key", UC, "role", body={"value": "ops", "upsert": True})),
        ("delete_user_metadata_by_key", lambda: sdk("delete_user_metadata_by_key", UC, "city")),
        ("delete_user_metadata", lambda: (sdk("delete_user_metadata", UC, key="pet"), sdk("delete_user_metadata", UC))),
        ("view_default_channel_invitation_preference", lambda: sdk("view_default_channel_invitation_preference")),
        ("update_default_channel_invitation_preference", lambda: sdk("update_default_channel_invitation_preference",
            update_default_channel_invitation_preference_data=model("UpdateDefaultChannelInvitationPreferenceData", auto_accept=True))),
        ("view_channel_invitation_preference", lambda: sdk("view_channel_invitation_preference", UD)),
        # UD and UF decline automatic joins, so an invitation leaves them invited
        ("update_channel_invitation_preference", lambda: [sdk("update_channel_invitation_preference", u,
            update_channel_invitation_preference_data=model("UpdateChannelInvitationPreferenceData", auto_accept=False)) for u in (UD, UF)]),
        # ------------------------------------------------------------ group channels
        ("gc_create_channel", lambda: (
            S.__setitem__("group", group(user_ids=[UA, UB, UC], name="Team " + SFX, custom_type=CT, data="d").channel_url),
            S.__setitem__("public", group(user_ids=[UA], name="Public " + SFX, is_public=True).channel_url),
            S.__setitem__("doomed", group(user_ids=[UA, UB], name="Doomed " + SFX).channel_url),
            S.__setitem__("leave_me", group(user_ids=[UA, UB], custom_type="leave_me_" + SFX).channel_url))),
        ("gc_update_channel_by_url", lambda: sdk("gc_update_channel_by_url", G(), gc_update_channel_by_url_data=loose(
            "GcUpdateChannelByUrlData", channel_url=G(), name="Renamed " + SFX, cover_url="", cover_file=None, custom_type=CT, data="d2",
            is_distinct=False, is_public=False, access_code="", operator_ids=[]))),
        ("gc_invite_as_members", lambda: sdk("gc_invite_as_members", G(), gc_invite_as_members_data=model(
            "GcInviteAsMembersData", channel_url=G(), user_ids=[UD, UF], users=[], invitation_status={}, hidden_status={}))),
        ("gc_check_if_member_by_id", lambda: (sdk("gc_check_if_member_by_id", G(), UA), sdk("gc_check_if_member_by_id", G(), UD),
                                              sdk("gc_check_if_member_by_id", G(), UE))),
        ("gc_list_members", lambda: (sdk("gc_list_members", G(), limit=10, show_read_receipt=True, show_delivery_receipt=True,
                                         order="operator_then_member_alphabetical"),
                                     sdk("gc_list_members", G(), member_state_filter="invited_only"))),
        ("gc_accept_invitation", lambda: sdk("gc_accept_invitation", G(), gc_accept_invitation_data=model(
            "GcAcceptInvitationData", channel_url=G(), user_id=UD, access_code=""))),
        ("gc_decline_invitation", lambda: sdk("gc_decline_invitation", G(), gc_decline_invitation_data=model(
            "GcDeclineInvitationData", channel_url=G(), user_id=UF))),
        ("gc_join_channel", lambda: sdk("gc_join_channel", S["public"], gc_join_channel_data=model(
            "GcJoinChannelData", channel_url=S["public"], user_id=UF, access_code=""))),
        ("gc_register_operators", lambda: sdk("gc_register_operators", G(), gc_register_operators_data=model(
            "GcRegisterOperatorsData", channel_url=G(), operator_ids=[UA]))),
        ("gc_list_operators", lambda: sdk("gc_list_operators", G(), limit=10)),
        ("gc_cancel_the_registration_of_operators", lambda: sdk("gc_cancel_the_registration_of_operators", G(), [UA])),
        ("gc_hide_or_archive_channel", lambda: sdk("gc_hide_or_archive_channel", G(), gc_hide_or_archive_channel_data=model(
            "GcHideOrArchiveChannelData", channel_url=G(), user_id=UB, allow_auto_unhide=True, should_hide_all=False,
            hide_previous_messages=False))),
        ("gc_unhide_or_unarchive_channel", lambda: sdk("gc_unhide_or_unarchive_channel", G(), UB, should_unhide_all=False)),
        ("gc_freeze_channel", lambda: [sdk("gc_freeze_channel", G(), gc_freeze_channel_data=model(
            "GcFreezeChannelData", channel_url=G(), freeze=f)) for f in (True, False)]),
        # ------------------------------------------------------------ open channels
        ("oc_create_channel", lambda: S.__setitem__("open", sdk("oc_create_channel", oc_create_channel_data=model(
            "OcCreateChannelData", channel_url="legacy_open_" + SFX, name="Stage " + SFX, custom_type=CT, data="d",
            operator_ids=[UA])).channel_url)),
        ("oc_view_channel_by_url", lambda: sdk("oc_view_channel_by_url", O())),
        ("oc_list_channels", lambda: sdk("oc_list_channels", url_contains=SFX, limit=10, show_frozen=True, show_metadata=True)),
        ("oc_update_channel_by_url", lambda: sdk("oc_update_channel_by_url", O(), oc_update_channel_by_url_data=loose(
            "OcUpdateChannelByUrlData", channel_url=O(), name="Main stage " + SFX, cover_url="", cover_file=None, custom_type=CT,
            data="d2", operator_ids=[UA], operators=[]))),
        ("oc_register_operators", lambda: sdk("oc_register_operators", O(), oc_register_operators_data=model(
            "OcRegisterOperatorsData", channel_url=O(), operator_ids=[UB]))),
        ("oc_list_operators", lambda: sdk("oc_list_operators", O(), limit=10)),
        ("oc_cancel_the_registration_of_operators", lambda: sdk("oc_cancel_the_registration_of_operators", O(), [UB])),
        ("oc_list_participants", lambda: sdk("oc_list_participants", O(), limit=10)),
        ("oc_freeze_channel", lambda: [sdk("oc_freeze_channel", O(), oc_freeze_channel_data=model(
            "OcFreezeChannelData", channel_url=O(), freeze=f)) for f in (True, False)]),
        # ------------------------------------------------------------ messages
        ("send_message", lambda: (
            S.__setitem__("m1", int(send("group_channels", G(), UA, "hello " + SFX).message_id)),
            S.__setitem__("m2", int(send("group_channels", G(), UB, "doomed " + SFX).message_id)),
            sdk("send_message", "group_channels", G(), send_message_data=model(
                "SendMessageData", user_id=UB, message_type="MESG", message="@c " + SFX, custom_type="mention", data='{"k":1}',
                mention_type="users", mentioned_user_ids=[UC], dedup_id="dedup-" + SFX)),
            sdk("send_message", "group_channels", G(), send_message_data=model(
                "SendMessageData", user_id=UA, message_type="ADMM", message="admin " + SFX)),
            S.__setitem__("om1", int(send("open_channels", O(), UA, "on stage " + SFX).message_id)),
            S.__setitem__("om2", int(send("open_channels", O(), UB, "doomed on stage " + SFX).message_id)))),
        ("gc_view_channel_by_url", lambda: (sdk("gc_view_channel_by_url", G()), sdk("gc_view_channel_by_url", G(), show_member=True,
                                            show_read_receipt=True, show_delivery_receipt=True))),
        ("gc_list_channels", lambda: sdk("gc_list_channels", show_member=True, show_empty=True, show_read_receipt=True,
                                         show_delivery_receipt=True, show_metadata=True, show_frozen=True, limit=10, custom_types=CT)),
        ("list_my_group_channels", lambda: sdk("list_my_group_channels", UB, show_member=True, show_empty=True, show_read_receipt=True,
                                               show_delivery_receipt=True, hidden_mode="all", member_state_filter="all", limit=10)),
        ("view_message_by_id", lambda: both(lambda ct, url, m: sdk("view_message_by_id", ct, url, m, with_sorted_meta_array=True))),
        ("list_messages", lambda: both(lambda ct, url, m: sdk("list_messages", ct, url, message_ts=str(now_ms() + 60_000), prev_limit=10,
                                                             next_limit=0, include_reactions=True, with_sorted_meta_array=True))),
        ("view_total_number_of_messages_in_channel", lambda: both(lambda ct, url, m: sdk("view_total_number_of_messages_in_channel", ct, url))),
        ("update_message_by_id", lambda: both(lambda ct, url, m: sdk("update_message_by_id", ct, url, m, update_message_by_id_data=model(
            "UpdateMessageByIdData", message_id=int(m), channel_type=ct, channel_url=url, message_type="MESG", message="edited " + SFX,
            custom_type="edited")))),
        ("add_extra_data_to_message", lambda: both(lambda ct, url, m: sdk("add_extra_data_to_message", ct, url, m,
            add_extra_data_to_message_data=loose("AddExtraDataToMessageData", channel_type=ct, channel_url=url, message_id=int(m),
                                                 sorted_metaarray=[{"key": "tags", "value": ["a", "b"]}])))),
        ("update_extra_data_in_message", lambda: both(lambda ct, url, m: sdk("update_extra_data_in_message", ct, url, m,
            update_extra_data_in_message_data=loose("UpdateExtraDataInMessageData", channel_type=ct, channel_url=url, message_id=int(m),
                                                    sorted_metaarray=[{"key": "tags", "value": ["c"]}], mode="add", upsert=True)))),
        ("remove_extra_data_from_message", lambda: both(lambda ct, url, m: sdk("remove_extra_data_from_message", ct, url, m, keys=["tags"]))),
        ("enable_reactions", lambda: sdk("enable_reactions", enable_reactions_data=model("EnableReactionsData", enabled=True))),
        ("add_reaction_to_a_message", lambda: sdk("add_reaction_to_a_message", "group_channels", G(), mid("m1"),
            add_reaction_to_a_message_data=model("AddReactionToAMessageData", channel_type="group_channels", channel_url=G(),
                                                 message_id=S["m1"], user_id=UB, reaction="smile"))),
        ("list_reactions_of_message", lambda: (sdk("list_reactions_of_message", "group_channels", G(), mid("m1")),
                                               sdk("list_reactions_of_message", "group_channels", G(), mid("m1"), list_users=True))),
        ("remove_reaction_from_a_message", lambda: sdk("remove_reaction_from_a_message", "group_channels", G(), mid("m1"),
                                                       user_id=UB, reaction="smile")),
        ("translate_message_into_other_languages", lambda: sdk("translate_message_into_other_languages", "group_channels", G(), mid("m1"),
            translate_message_into_other_languages_data=model("TranslateMessageIntoOtherLanguagesData", target_langs=["es"]))),
        ("view_number_of_unread_messages", lambda: sdk("view_number_of_unread_messages", UC)),
        ("view_number_of_channels_with_unread_messages", lambda: sdk("view_number_of_channels_with_unread_messages", UC, super_mode="all")),
        ("view_number_of_unread_items", lambda: sdk("view_number_of_unread_items", UC,
                                                    item_keys="group_channel_unread_message_count,group_channel_invitation_count")),
        ("view_number_of_channels_by_join_status", lambda: (sdk("view_number_of_channels_by_join_status", UC),
                                                            sdk("view_number_of_channels_by_join_status", UC, state="joined"))),
        ("gc_view_number_of_each_members_unread_messages", lambda: (sdk("gc_view_number_of_each_members_unread_messages", G()),
            sdk("gc_view_number_of_each_members_unread_messages", G(), user_ids=",".join([UB, UC])))),
        ("gc_mark_all_messages_as_read", lambda: sdk("gc_mark_all_messages_as_read", G(), gc_mark_all_messages_as_read_data=model(
            "GcMarkAllMessagesAsReadData", channel_url=G(), user_id=UB, timestamp=now_ms()))),
        ("gc_mark_all_messages_as_delivered", lambda: sdk("gc_mark_all_messages_as_delivered", G(), gc_mark_all_messages_as_delivered_data=model(
            "GcMarkAllMessagesAsDeliveredData", application_id="LOCAL", channel_url=G(), user_id=UB))),
        ("mark_all_messages_as_read", lambda: sdk("mark_all_messages_as_read", UC, mark_all_messages_as_read_data=model(
            "MarkAllMessagesAsReadData", channel_urls=[G()]))),
        ("migrate_messages_by_url", lambda: sdk("migrate_messages_by_url", G(), body={"messages": [
            {"user_id": UA, "message_type": "MESG", "message": "imported " + SFX, "timestamp": now_ms() - 86_400_000}]})),
        ("delete_message_by_id", lambda: (sdk("delete_message_by_id", "group_channels", G(), mid("m2")),
                                          sdk("delete_message_by_id", "open_channels", O(), mid("om2")))),
        ("gc_reset_chat_history", lambda: sdk("gc_reset_chat_history", G(), gc_reset_chat_history_data=model(
            "GcResetChatHistoryData", channel_url=G(), user_id=UC, reset_all=False))),
        # ------------------------------------------------------------ emojis
        ("use_default_emojis", lambda: sdk("use_default_emojis", use_default_emojis_data=model("UseDefaultEmojisData", use_default_emoji=False))),
        ("add_emoji_categories", lambda: S.__setitem__("category", int(sdk("add_emoji_categories", body={"emoji_categories": [
            {"name": "Legacy " + SFX, "url": "https://example.com/cat.png", "emojis": [{"key": "legacy_" + SFX, "url": "https://example.com/e.png"}]}]}
            ).emoji_categories[0].id))),
        ("list_all_emojis_and_emoji_categories", lambda: sdk("list_all_emojis_and_emoji_categories")),
        ("get_emoji_category_by_id", lambda: sdk("get_emoji_category_by_id", str(S["category"]))),
        ("update_emoji_category_url_by_id", lambda: sdk("update_emoji_category_url_by_id", str(S["category"]),
            update_emoji_category_url_by_id_data=model("UpdateEmojiCategoryUrlByIdData", emoji_category_id=int(S["category"]),
                                                       url="https://example.com/cat2.png"))),
        ("add_emojis", lambda: sdk("add_emojis", add_emojis_data=model("AddEmojisData", emoji_category_id=int(S["category"]),
            emojis=[{"key": "legacy2_" + SFX, "url": "https://example.com/e2.png"}]))),
        ("list_emojis", lambda: sdk("list_emojis")),
        ("get_emoji_by_key", lambda: sdk("get_emoji_by_key", "legacy2_" + SFX)),
        ("update_emoji_url_by_key", lambda: sdk("update_emoji_url_by_key", "legacy2_" + SFX, update_emoji_url_by_key_data=model(
            "UpdateEmojiUrlByKeyData", emoji_key="legacy2_" + SFX, url="https://example.com/e3.png"))),
        ("delete_emoji_by_key", lambda: sdk("delete_emoji_by_key", "legacy2_" + SFX)),
        ("delete_emoji_category_by_id", lambda: sdk("delete_emoji_category_by_id", str(S["category"]))),
        # ------------------------------------------------------------ channel metadata and metacounters
        *metadata_steps(),
        # ------------------------------------------------------------ per-user channel preferences, push
        ("view_count_preference_of_channel_by_url", lambda: sdk("view_count_preference_of_channel_by_url", UB, G())),
        ("update_count_preference_of_channel_by_url", lambda: sdk("update_count_preference_of_channel_by_url", UB, G(),
            update_count_preference_of_channel_by_url_data=model("UpdateCountPreferenceOfChannelByUrlData", count_preference="unread_message_count_only"))),
        ("view_push_preferences", lambda: sdk("view_push_preferences", UB)),
        ("update_push_preferences", lambda: sdk("update_push_preferences", UB, update_push_preferences_data=model(
            "UpdatePushPreferencesData", push_trigger_option="mention_only", do_not_disturb=True, start_hour=22, start_min=0, end_hour=7,
            end_min=30, snooze_enabled=False, snooze_start_ts=0, snooze_end_ts=0, block_push_from_bots=False, push_blocked_bot_ids=[],
            timezone="Europe/Oslo", push_sound="default"))),
        ("view_push_preferences_for_channel_by_url", lambda: sdk("view_push_preferences_for_channel_by_url", UB, G())),
        ("update_push_preferences_for_channel_by_url", lambda: sdk("update_push_preferences_for_channel_by_url", UB, G(),
            update_push_preferences_for_channel_by_url_data=model("UpdatePushPreferencesForChannelByUrlData",
                                                                  push_trigger_option="mention_only", enable=True, push_sound="default"))),
        ("reset_push_preferences", lambda: sdk("reset_push_preferences", UB)),
        ("choose_push_notification_content_template", lambda: sdk("choose_push_notification_content_template", UB, body={"name": "alternative"})),
        # ------------------------------------------------------------ device tokens
        ("add_registration_or_device_token", lambda: [sdk("add_registration_or_device_token", UA, "gcm",
                                                          add_registration_or_device_token_data=token_data(t)) for t in tokens]),
        ("list_registration_or_device_tokens", lambda: sdk("list_registration_or_device_tokens", UA, "gcm")),
        ("view_who_owns_registration_or_device_token_by_token", lambda: sdk("view_who_owns_registration_or_device_token_by_token", "gcm", tokens[0])),
        ("remove_registration_or_device_token_by_token", lambda: sdk("remove_registration_or_device_token_by_token", UA, "gcm", tokens[0])),
        ("remove_registration_or_device_token_from_owner_by_token", lambda: sdk(
            "remove_registration_or_device_token_from_owner_by_token", "gcm", tokens[1])),
        ("remove_registration_or_device_token", lambda: sdk("remove_registration_or_device_token", UA)),
        # ------------------------------------------------------------ moderation
        ("block_user", lambda: sdk("block_user", UA, block_user_data=model("BlockUserData", user_id=UA, target_id=UC, user_ids=[], users=[]))),
        ("list_blocked_users", lambda: sdk("list_blocked_users", UA, limit=10)),
        ("unblock_user_by_id", lambda: (sdk("block_user", UA, block_user_data=model("BlockUserData", user_id=UA, target_id=UC, user_ids=[UC], users=[]),
                                          _check_return_type=False),  # set-up: block_user itself is allowed to fail above
                                      sdk("unblock_user_by_id", UA, UC))),
        ("gc_ban_user", lambda: sdk("gc_ban_user", G(), gc_ban_user_data=model(
            "GcBanUserData", channel_url=G(), user_id=UC, agent_id=UA, seconds=600, description="spam"))),
        ("gc_list_banned_users", lambda: sdk("gc_list_banned_users", G(), limit=10)),
        ("gc_view_ban_by_id", lambda: sdk("gc_view_ban_by_id", G(), UC)),
        ("gc_update_ban_by_id", lambda: sdk("gc_update_ban_by_id", G(), UC, gc_update_ban_by_id_data=model(
            "GcUpdateBanByIdData", channel_url=G(), banned_user_id=UC, seconds=60, description="shorter"))),
        ("gc_unban_user_by_id", lambda: (sdk("gc_unban_user_by_id", G(), UC),
                                         sdk("gc_invite_as_members", G(), gc_invite_as_members_data=model(
                                             "GcInviteAsMembersData", channel_url=G(), user_ids=[UC], users=[], invitation_status={},
                                             hidden_status={})))),
        ("gc_mute_user", lambda: sdk("gc_mute_user", G(), gc_mute_user_data=model(
            "GcMuteUserData", channel_url=G(), user_id=UB, seconds=120, description="calm down"))),
        ("gc_list_muted_users", lambda: sdk("gc_list_muted_users", G(), limit=10)),
        ("gc_view_mute_by_id", lambda: sdk("gc_view_mute_by_id", G(), UB)),
        ("gc_unmute_user_by_id", lambda: sdk("gc_unmute_user_by_id", G(), UB)),
        ("oc_ban_user", lambda: sdk("oc_ban_user", O(), oc_ban_user_data=model(
            "OcBanUserData", channel_url=O(), user_id=UC, agent_id=UA, seconds=-1, description="for good"))),
        ("oc_list_banned_users", lambda: sdk("oc_list_banned_users", O(), limit=10)),
        ("oc_view_ban_by_id", lambda: sdk("oc_view_ban_by_id", O(), UC)),
        ("oc_update_ban_by_id", lambda: sdk("oc_update_ban_by_id", O(), UC, oc_update_ban_by_id_data=model(
            "OcUpdateBanByIdData", channel_url=O(), banned_user_id=UC, seconds=300, description="five minutes"))),
        ("oc_unban_user_by_id", lambda: sdk("oc_unban_user_by_id", O(), UC)),
        ("oc_mute_user", lambda: sdk("oc_mute_user", O(), oc_mute_user_data=model("OcMuteUserData", user_id=UB, seconds=30, description="quiet"))),
        ("oc_list_muted_users", lambda: sdk("oc_list_muted_users", O(), limit=10)),
        ("oc_view_mute_by_id", lambda: sdk("oc_view_mute_by_id", O(), UB)),
        ("oc_unmute_user_by_id", lambda: sdk("oc_unmute_user_by_id", O(), UB)),
        ("ban_from_channels_with_custom_channel_types", lambda: sdk("ban_from_channels_with_custom_channel_types", UE,
            ban_from_channels_with_custom_channel_types_data=model("BanFromChannelsWithCustomChannelTypesData", channel_custom_types=[CT]))),
        ("list_banned_channels", lambda: sdk("list_banned_channels", UE, limit=10)),
        ("mute_in_channels_with_custom_channel_types", lambda: sdk("mute_in_channels_with_custom_channel_types", UE,
            mute_in_channels_with_custom_channel_types_data=model("MuteInChannelsWithCustomChannelTypesData", channel_custom_types=[CT]))),
        ("list_muted_channels", lambda: sdk("list_muted_channels", UE, limit=10)),
        ("register_as_operator_to_channels_with_custom_channel_types", lambda: sdk(
            "register_as_operator_to_channels_with_custom_channel_types", UA,
            register_as_operator_to_channels_with_custom_channel_types_data=model(
                "RegisterAsOperatorToChannelsWithCustomChannelTypesData", channel_custom_types=[CT]))),
        ("ban_users_in_channels_with_custom_channel_type", lambda: sdk("ban_users_in_channels_with_custom_channel_type", CT,
            ban_users_in_channels_with_custom_channel_type_data=model("BanUsersInChannelsWithCustomChannelTypeData", banned_list=[
                model("BanUsersInChannelsWithCustomChannelTypeDataBannedListInner", user_id=UF, seconds=600.0, description="custom type ban")]))),
        ("list_banned_users_in_channels_with_custom_channel_type", lambda: sdk("list_banned_users_in_channels_with_custom_channel_type", CT, limit=10)),
        ("unban_users_in_channels_with_custom_channel_type", lambda: sdk("unban_users_in_channels_with_custom_channel_type", CT, [UF])),
        ("mute_users_in_channels_with_custom_channel_type", lambda: sdk("mute_users_in_channels_with_custom_channel_type", CT,
            mute_users_in_channels_with_custom_channel_type_data=model("MuteUsersInChannelsWithCustomChannelTypeData", user_ids=[UF],
                                                                       seconds=600.0, description="custom type mute"))),
        ("list_muted_users_in_channels_with_custom_channel_type", lambda: sdk("list_muted_users_in_channels_with_custom_channel_type", CT, limit=10)),
        ("unmute_users_in_channels_with_custom_channel_type", lambda: sdk("unmute_users_in_channels_with_custom_channel_type", CT, [UF])),
        # ------------------------------------------------------------ reports
        ("report_message_by_id", lambda: both(lambda ct, url, m: sdk("report_message_by_id", ct, url, m, report_message_by_id_data=model(
            "ReportMessageByIdData", report_category="spam", offending_user_id=UA, channel_type=ct, channel_url=url, message_id=m,
            reporting_user_id=UB, report_description="ads")))),
        ("report_user_by_id", lambda: sdk("report_user_by_id", UA, report_user_by_id_data=model(
            "ReportUserByIdData", offending_user_id=UA, report_category="harassing", channel_type="group_channels", channel_url=G(),
            reporting_user_id=UB, report_description="rude"))),
        ("report_channel_by_url", lambda: sdk("report_channel_by_url", "group_channels", G(), report_channel_by_url_data=model(
            "ReportChannelByUrlData", report_category="inappropriate", channel_type="group_channels", channel_url=G(), reporting_user_id=UB))),
        ("list_reports", lambda: (sdk("list_reports", limit=10), sdk("list_reports", limit=10, start_ts=now_ms() - 600_000, end_ts=now_ms() + 1000))),
        ("list_reports_on_channel_by_url", lambda: sdk("list_reports_on_channel_by_url", "group_channels", G(), limit=10)),
        ("list_reports_on_user_by_id", lambda: sdk("list_reports_on_user_by_id", UA, limit=10)),
        ("list_reports_on_message_by_id", lambda: both(lambda ct, url, m: sdk("list_reports_on_message_by_id", ct, url, m, limit=10))),
        ("set_domain_filter", lambda: sdk("set_domain_filter", CT, set_domain_filter_data=model(
            "SetDomainFilterData", domain_filter=model("SetDomainFilterDataDomainFilter", domains=["spam.example"], type=1),
            profanity_filter=model("SetDomainFilterDataProfanityFilter", keywords=["darn"], type=1)))),
        ("view_moderated_message_by_id", lambda: sdk("view_moderated_message_by_id", "group_channels", G(),
                                                     str(int(send("group_channels", G(), UA, "darn it " + SFX).message_id)))),
        # ------------------------------------------------------------ bots
        ("create_bot", lambda: sdk("create_bot", create_bot_data=model(
            "CreateBotData", bot_userid=BOT, bot_nickname="Bot " + SFX, bot_profile_url="", bot_type="helper",
            bot_callback_url="http://127.0.0.1:9/bot", is_privacy_mode=False))),
        ("view_bot_by_id", lambda: sdk("view_bot_by_id", BOT)),
        ("list_bots", lambda: sdk("list_bots", limit=10)),
        ("update_bot_by_id", lambda: sdk("update_bot_by_id", BOT, update_bot_by_id_data=model(
            "UpdateBotByIdData", bot_userid=BOT, bot_nickname="Bot2 " + SFX, bot_profile_url="", bot_callback_url="http://127.0.0.1:9/bot2",
            is_privacy_mode=False, enable_mark_as_read=True, show_member=False, channel_invitation_preference=1))),
        ("join_channels", lambda: sdk("join_channels", BOT, join_channels_data=model("JoinChannelsData", bot_userid=BOT, channel_urls=[G()]))),
        ("send_bots_message", lambda: sdk("send_bots_message", BOT, send_bot_s_message_data=model(
            "SendBotSMessageData", message="beep " + SFX, channel_url=G()))),
        ("leave_channels_by_url", lambda: sdk("leave_channels_by_url", BOT, G())),
        ("leave_channels", lambda: (
            sdk("join_channels", BOT, join_channels_data=model("JoinChannelsData", bot_userid=BOT, channel_urls=[G()])),
            sdk("leave_channels", BOT, channel_url=G()))),
        ("delete_bot_by_id", lambda: sdk("delete_bot_by_id", BOT)),
        # ------------------------------------------------------------ announcements and their statistics
        ("schedule_announcement", lambda: sdk("schedule_announcement", schedule_announcement_data=model(
            "ScheduleAnnouncementData", message=model("ScheduleAnnouncementDataMessage", type="MESG", user_id=UA, content="news " + SFX),
            target_at="target_channels", target_list=[G()], target_channel_type="group", unique_id="legacy_ann_" + SFX,
            announcement_group="legacy_group_" + SFX, scheduled_at=now_ms() + 3_600_000))),
        ("view_announcement_by_id", lambda: sdk("view_announcement_by_id", "legacy_ann_" + SFX)),
        ("update_announcement_by_id", lambda: sdk("update_announcement_by_id", "legacy_ann_" + SFX, update_announcement_by_id_data=model(
            "UpdateAnnouncementByIdData", unique_id="legacy_ann_" + SFX, message_content="news, edited " + SFX))),
        ("list_announcements", lambda: sdk("list_announcements", limit=10)),
        ("list_announcement_groups", lambda: sdk("list_announcement_groups", limit=10)),
        ("get_detailed_open_rate_of_announcement_group", lambda: sdk("get_detailed_open_rate_of_announcement_group", "legacy_group_" + SFX)),
        ("get_detailed_open_rate_of_announcement_by_id", lambda: sdk("get_detailed_open_rate_of_announcement_by_id", "legacy_ann_" + SFX)),
        ("get_detailed_open_status_of_announcement_by_id", lambda: sdk("get_detailed_open_status_of_announcement_by_id", "legacy_ann_" + SFX,
                                                                       limit=10)),
        ("get_statistics", lambda: sdk("get_statistics")),
        ("get_statistics_daily", lambda: sdk("get_statistics_daily", (today - datetime.timedelta(days=7)).isoformat(), today.isoformat(),
                                             "", "", "", "")),
        ("get_statistics_monthly", lambda: sdk("get_statistics_monthly")),
        # ------------------------------------------------------------ statistics
        ("view_number_of_daily_active_users", lambda: (sdk("view_number_of_daily_active_users", date=today.isoformat()),
                                                       sdk("view_number_of_daily_active_users"))),
        ("view_number_of_monthly_active_users", lambda: (sdk("view_number_of_monthly_active_users", date=today.isoformat()),
                                                         sdk("view_number_of_monthly_active_users"))),
        ("view_number_of_concurrent_connections", lambda: sdk("view_number_of_concurrent_connections")),
        ("view_number_of_peak_connections", lambda: sdk("view_number_of_peak_connections", "daily", today.year, today.month, today.year,
                                                        today.month, start_day=1, end_day=today.day)),
        ("retrieve_advanced_analytics_metrics", lambda: sdk("retrieve_advanced_analytics_metrics")),
        # ------------------------------------------------------------ data export, GDPR
        ("register_and_schedule_data_export", lambda: S.__setitem__("export", sdk("register_and_schedule_data_export", "messages",
            register_and_schedule_data_export_data=model("RegisterAndScheduleDataExportData", start_ts=now_ms() - 3_600_000,
                                                         end_ts=now_ms(), format="json", channel_urls=[G()])).request_id)),
        ("list_data_exports_by_message_channel_or_user", lambda: sdk("list_data_exports_by_message_channel_or_user", "messages", limit=10)),
        ("view_data_export_by_id", lambda: sdk("view_data_export_by_id", "messages", S["export"])),
        ("register_gdpr_request", lambda: S.__setitem__("gdpr", sdk("register_gdpr_request", register_gdpr_request_data=model(
            "RegisterGdprRequestData", action="delete", user_ids=[UF], channel_delete_option="do_not_delete", user_id=UF)).request_id)),
        ("list_gdpr_requests", lambda: sdk("list_gdpr_requests", limit=10)),
        ("view_gdpr_request_by_id", lambda: sdk("view_gdpr_request_by_id", S["gdpr"])),
        ("cancel_the_registration_of_gdpr_request_by_id", lambda: sdk("cancel_the_registration_of_gdpr_request_by_id", S["gdpr"])),
        # ------------------------------------------------------------ application settings
        ("list_auto_event_messages", lambda: sdk("list_auto_event_messages")),
        ("configure_auto_event_messages", lambda: sdk("configure_auto_event_messages", configure_auto_event_data=model(
            "ConfigureAutoEventData", auto_event_message=model("ConfigureAutoEventDataAutoEventMessage", user_join={"enabled": True})))),
        ("add_ip_to_whitelist", lambda: sdk("add_ip_to_whitelist", add_ip_to_whitelist_data=model(
            "AddIpToWhitelistData", ip_whitelist_addresses=["127.0.0.1", "::1"] + OTHER_IPS))),
        ("retrieve_ip_whitelist", lambda: sdk("retrieve_ip_whitelist")),
        ("delete_allowed_ips_from_whitelist", delete_allowed_ips),
        ("generate_secondary_api_token", lambda: S.__setitem__("token2", sdk("generate_secondary_api_token",
            generate_secondary_api_token_data=model("GenerateSecondaryApiTokenData", http_api_token=every.TOKEN)).token)),
        ("list_secondary_api_tokens", lambda: sdk("list_secondary_api_tokens")),
        ("view_secondary_api_token_by_token", lambda: sdk("view_secondary_api_token_by_token", S["token2"])),
        ("revoke_secondary_api_token_by_token", lambda: sdk("revoke_secondary_api_token_by_token", S["token2"])),
        ("list_push_notification_content_templates", lambda: sdk("list_push_notification_content_templates")),
        ("view_push_notification_content_template", lambda: sdk("view_push_notification_content_template", "default")),
        ("update_push_notification_content_template", lambda: sdk("update_push_notification_content_template", "alternative",
            update_push_notification_content_template_data=model("UpdatePushNotificationContentTemplateData", template_name="alternative",
                template="{sender_name}: {message}", template_mesg="{sender_name}: {message}", template_file="{sender_name}: file",
                template_admn="{message}"))),
        ("add_fcm_push_configuration", lambda: S.__setitem__("fcm", sdk("add_fcm_push_configuration", add_fcm_push_configuration_data=model(
            "AddFcmPushConfigurationData", api_key="fcm-secret-" + SFX, push_sound="ding")).push_configurations[0].id)),
        ("add_hms_push_configuration", lambda: S.__setitem__("hms", sdk("add_hms_push_configuration", add_hms_push_configuration_data=model(
            "AddHmsPushConfigurationData", huawei_app_id="hms-" + SFX, huawei_app_secret="hms-secret-" + SFX, push_sound="ding"))
            .push_configurations[0].id)),
        ("list_push_configurations", lambda: [sdk("list_push_configurations", kind) for kind in ("fcm", "hms")]),
        ("view_push_configuration_by_id", lambda: sdk("view_push_configuration_by_id", "fcm", S["fcm"])),
        ("update_fcm_push_configuration_by_id", lambda: sdk("update_fcm_push_configuration_by_id", S["fcm"],
            update_fcm_push_configuration_by_id_data=model("UpdateFcmPushConfigurationByIdData", provider_id=S["fcm"],
                                                           api_key="fcm-secret-2-" + SFX, push_sound="chime"))),
        ("update_hms_push_configuration_by_id", lambda: sdk("update_hms_push_configuration_by_id", S["hms"],
            update_hms_push_configuration_by_id_data=model("UpdateHmsPushConfigurationByIdData", provider_id=S["hms"],
                                                           huawei_app_id="hms-2-" + SFX, huawei_app_secret="s2-" + SFX, push_sound="chime"))),
        ("add_apns_push_configuration", lambda: S.__setitem__("apns", apns_add().push_configurations[0].id)),
        ("update_apns_push_configuration_by_id", lambda: apns_update(S["apns"])),
        ("delete_apns_certificate_by_id", lambda: sdk("delete_apns_certificate_by_id", S["apns"])),
        ("remove_push_configuration_by_id", lambda: (sdk("remove_push_configuration_by_id", "fcm", S["fcm"]),
                                                     sdk("remove_push_configuration_by_id", "huawei", S["hms"]))),
        ("retrieve_list_of_subscribed_events", lambda: (sdk("retrieve_list_of_subscribed_events"),
                                                        sdk("retrieve_list_of_subscribed_events", display_all_webhook_categories=True))),
        ("choose_which_events_to_subscribe_to", lambda: sdk("choose_which_events_to_subscribe_to", choose_which_events_to_subscribe_to_data=model(
            "ChooseWhichEventsToSubscribeToData", enabled=False, url="http://127.0.0.1:9/hook", include_members=True,
            enabled_events=["group_channel:create", "group_channel:message_send"]))),
        # ------------------------------------------------------------ leaving and deleting
        ("gc_leave_channel", lambda: sdk("gc_leave_channel", G(), gc_leave_channel_data=model(
            "GcLeaveChannelData", channel_url=G(), user_ids=[UD], should_leave_all=False))),
        ("leave_my_group_channels", lambda: sdk("leave_my_group_channels", UB, leave_my_group_channels_data=model(
            "LeaveMyGroupChannelsData", custom_type="leave_me_" + SFX))),
        ("gc_delete_channel_by_url", lambda: sdk("gc_delete_channel_by_url", S["doomed"])),
        ("oc_delete_channel_by_url", lambda: sdk("oc_delete_channel_by_url", O())),
        ("delete_user_by_id", lambda: sdk("delete_user_by_id", UE)),
    ]


OTHER_IPS = ["10.1.2.3", "10.1.2.4"]


def delete_allowed_ips():
    """Deletes two addresses in one call (the SDK repeats the query key for each), checks both are
    gone, then removes the rest one by one, this machine's own last (an empty list allows all)."""
    try:
        sdk("delete_allowed_ips_from_whitelist", OTHER_IPS)
        left = sdk("retrieve_ip_whitelist").get("ip_whitelist_addresses", [])
    finally:
        for ip in OTHER_IPS + ["::1", "127.0.0.1"]:
            try:
                sdk("delete_allowed_ips_from_whitelist", [ip])
            except Exception:  # noqa: BLE001 - already gone
                pass
    kept = [ip for ip in OTHER_IPS if ip in left]
    if kept:
        raise AssertionError("deleting %s in one call left %s on the allow-list (answer %s)" % (OTHER_IPS, kept, left))


def apns_cert():
    import io
    f = io.BytesIO(b"not a real certificate")
    f.name = "apns.p12"
    return f


def apns_add():
    return sdk("add_apns_push_configuration", add_apns_push_configuration_data=model(
        "AddApnsPushConfigurationData", apns_cert=apns_cert(), apns_cert_env_type="development", apns_cert_password="",
        has_unread_count_badge=True, content_available=False, mutable_content=False, push_sound="default", apns_type="cert"))


def apns_update(provider_id):
    return sdk("update_apns_push_configuration_by_id", provider_id, update_apns_push_configuration_by_id_data=model(
        "UpdateApnsPushConfigurationByIdData", provider_id=provider_id, apns_cert=apns_cert(), apns_cert_env_type="development",
        apns_cert_password="", has_unread_count_badge=False, content_available=False, mutable_content=False, push_sound="chime",
        apns_type="cert"))


if __name__ == "__main__":
    sys.exit(every.main(steps, ALLOWED, LEGACY))
