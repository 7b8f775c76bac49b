public import TernProtocol

/// Everything `ternd` keeps: one protocol per domain, two implementations — ``SQLiteStore`` (one
/// file, the default) and ``PostgresStore`` (several nodes on one database). Implementations are
/// the only code that speaks SQL; what is the same in both dialects (row mapping, JSON columns,
/// validation) lives beside the records in `Records.swift`.
///
/// Methods that change several rows (sending a message, reading a channel) are one transaction:
/// when they return, the change is durable, so the caller may acknowledge it.
public protocol Store: UserStore, ChannelStore, MetadataStore, MessageStore, ReceiptStore, SearchStore, FileStore,
    ModerationStore, PlatformStore
{
    /// Flushes and closes. Called once at shutdown, after the last write.
    func close() async throws
}

/// Users, their credentials (hashes only: the plain secrets never reach the store), sessions and blocks.
public protocol UserStore: Sendable {
    /// Creates a user. Throws 400202 when the id is taken.
    func createUser(_ user: UserRecord) async throws -> UserRecord
    /// Returns the user, creating it (with `nickname`) when it does not exist.
    func ensureUser(_ userId: String, nickname: String, now: Int64) async throws -> UserRecord
    func user(_ userId: String) async throws -> UserRecord?
    func users(_ userIds: [String]) async throws -> [UserRecord]
    /// Users ordered by id, after the query's `afterUserId`, with its filters.
    func listUsers(_ query: UserListQuery) async throws -> [UserRecord]
    func updateUser(_ user: UserRecord) async throws
    /// Deletes a user with their tokens, sessions and memberships. Returns false when there was none.
    func deleteUser(_ userId: String) async throws -> Bool
    func setLastSeen(_ userId: String, at ms: Int64) async throws
    func addAccessToken(userId: String, tokenHash: String, expiresAt: Int64) async throws
    /// The expiry (ms, 0 = never) of a token of this user, or nil when the user holds no such token.
    func accessTokenExpiry(userId: String, tokenHash: String) async throws -> Int64?
    func hasAccessTokens(userId: String) async throws -> Bool
    func revokeAccessTokens(userId: String) async throws
    /// Stores a session; `tokenHash` names the access token it was made from (nil: none).
    func addSession(keyHash: String, userId: String, expiresAt: Int64, tokenHash: String?) async throws
    /// A session key with what decides whether it still holds: its expiry, the access token it was
    /// made from (whether that still exists, and its expiry) and its user (whether they exist and
    /// are active).
    func session(keyHash: String) async throws -> SessionRecord?
    /// Ends every session of the user. Returns how many there were.
    func deleteSessions(userId: String) async throws -> Int
    /// Deletes sessions that expired before `now` (ms). Returns how many.
    func purgeExpiredSessions(now: Int64) async throws -> Int
    /// `blocker` blocks `blocked`. Returns false when it already did.
    func block(_ blocker: String, _ blocked: String, at ms: Int64) async throws -> Bool
    /// Returns false when there was no such block.
    func unblock(_ blocker: String, _ blocked: String) async throws -> Bool
    /// Users `userId` blocks (or, with `blockingMe`, who block them), by user id after `afterUserId`,
    /// optionally only some.
    func blockedUsers(_ userId: String, blockingMe: Bool, afterUserId: String?, limit: Int, userIds: [String]?) async throws -> [UserRecord]
    /// Of `userIds`, those `blocker` blocks.
    func blocked(by blocker: String, among userIds: [String]) async throws -> Set<String>
    /// Of `userIds`, those who block `blocked`.
    func blockers(of blocked: String, among userIds: [String]) async throws -> Set<String>
}

/// Group and open channels, their members and roles, and the per-user channel changelog.
public protocol ChannelStore: Sendable {
    /// Creates a channel with its members, or for a distinct channel returns the existing one with
    /// exactly these members (`created` false).
    func createGroupChannel(_ channel: NewGroupChannel) async throws -> (channel: ChannelRecord, created: Bool)
    func channel(_ channelUrl: String) async throws -> ChannelRecord?
    func members(_ channelUrl: String) async throws -> [MemberRecord]
    func member(_ channelUrl: String, userId: String) async throws -> MemberRecord?
    /// Members of many channels at once, keyed by channel URL.
    func members(ofChannels channelUrls: [String]) async throws -> [String: [MemberRecord]]
    /// A page of channels in the query's order, each with the cursor that continues after it.
    func listChannels(_ query: ChannelListQuery) async throws -> [(channel: ChannelRecord, cursor: ChannelCursor)]
    /// Adds members by invitation or by joining; users already in the channel are skipped. A distinct
    /// channel stops being distinct. Returns the members added.
    /// With `chatHistory` a new member's read receipt starts at the channel's last message; without it at 0,
    /// and what was sent before is hidden from them (`ts_message_offset`).
    func addMembers(_ channelUrl: String, _ adds: [MemberAdd], nowMs: Int64, chatHistory: Bool) async throws -> [MemberRecord]
    /// How many group channels the user belongs to (joined or invited).
    func channelCount(userId: String) async throws -> Int
    /// An invited member accepts: `joined` from now. Returns false when the user was not invited.
    func acceptInvitation(_ channelUrl: String, userId: String, nowMs: Int64) async throws -> Bool
    /// Removes a member (leave, decline); a member leaving a distinct channel turns distinct off.
    /// Returns false when the user was not in the channel.
    func removeMember(_ channelUrl: String, userId: String, turnOffDistinct: Bool) async throws -> Bool
    /// Writes a channel's properties (name, cover, data, custom type, freeze).
    func updateChannel(_ channel: ChannelRecord) async throws
    /// Deletes a channel with its members and messages. Returns false when there was none.
    func deleteChannel(_ channelUrl: String) async throws -> Bool
    /// Hides or unhides a channel for one member; `messageOffset` also hides what came before it
    /// (and clears the member's unread counts).
    func setHidden(_ channelUrl: String, userId: String, state: String, messageOffset: Int64?) async throws
    /// Whether invitations to the user are accepted at once (default true).
    func invitationAutoAccept(userId: String) async throws -> Bool
    func setInvitationAutoAccept(userId: String, _ autoAccept: Bool) async throws
    /// Stores a new open channel (400202 when the URL is taken by any channel).
    func createOpenChannel(_ channel: ChannelRecord) async throws -> ChannelRecord
    /// A page of open channels, newest first.
    func listOpenChannels(_ query: OpenChannelListQuery) async throws -> [ChannelRecord]
    /// Replaces an open channel's operators.
    func setOpenChannelOperators(_ channelUrl: String, _ userIds: [String]) async throws
    /// Gives these members of a group channel the role (`operator` or `none`). Returns those whose role changed.
    func setMemberRole(_ channelUrl: String, userIds: [String], role: String) async throws -> [String]
    /// One user's group channel changes after a point (change time, URL), oldest first, at most `limit`
    /// of each kind: channels whose view changed for them (the channel, its members, operators, mutes,
    /// receipts or last message, or their own membership), and channels they lost (left, removed, banned,
    /// deleted).
    func channelChanges(userId: String, after: ChannelChangeCursor, limit: Int) async throws
        -> (updated: [(url: String, at: Int64)], deleted: [(url: String, at: Int64)])
}

/// Channels' metadata and metacounters.
public protocol MetadataStore: Sendable {
    /// Channel metadata of many channels, keyed by channel URL.
    func channelMetadata(_ channelUrls: [String]) async throws -> [String: [String: String]]
    /// Applies metadata changes in one transaction: `create` fails with 400202 on an existing key,
    /// `update` (without `upsert`) with 400201 on a missing one; `delete` nil deletes every key.
    func changeChannelMetadata(_ channelUrl: String, _ change: MetadataChange) async throws -> MetadataResult
    func channelMetacounters(_ channelUrl: String) async throws -> [String: Int64]
    /// Sets, increases or decreases counters (`create` fails on an existing key). Returns the new values.
    func changeChannelMetacounters(_ channelUrl: String, _ change: MetacounterChange) async throws -> MetacounterResult
}

/// A store whose group commit can run on the calling thread (SQLite: GRDB's synchronous write runs
/// in place when its writer is free). ``SendPipeline`` drives it from a thread of its own, so a
/// message's commit wakes no task and no dispatch queue (issue 35: each hand-off between threads
/// costs a wake-up, and at low rates the hand-offs were most of a message's cost).
protocol InPlaceMessageInsert: Sendable {
    /// ``MessageStore/insertMessages(_:)``, blocking the calling thread until the commit.
    func insertMessagesInPlace(_ batch: [NewMessage]) throws -> [Result<StoredMessage, any Error>]
    /// Whether no other write is running or waiting now: only then may an event loop commit in
    /// place (a Platform API call's long write would otherwise hold every connection of the loop).
    var writerIsFree: Bool { get }
}

/// Messages, threads, reactions and the message changelog.
public protocol MessageStore: Sendable {
    /// Stores a message and moves the counters it changes (unread counts per each member's count
    /// preference and blocks, the sender's read receipt, the channel's last message) in one
    /// transaction. A repeated `(channel, sender, req_id)` returns the original message with
    /// `duplicate` true and changes nothing.
    func insertMessage(_ message: NewMessage) async throws -> StoredMessage
    /// Stores several new messages in one transaction (group commit), in order; each one's outcome
    /// apart (a message refused with a ``SendbirdError`` leaves the others stored). Throws when the
    /// transaction as a whole failed (nothing was stored).
    func insertMessages(_ batch: [NewMessage]) async throws -> [Result<StoredMessage, any Error>]
    func message(_ channelUrl: String, id: Int64) async throws -> MessageRecord?
    /// History; with a `viewer`, messages hidden from them (1:1 blocks) are left out.
    func messages(_ channelUrl: String, query: MessageQuery) async throws -> [MessageRecord]
    func messages(ids: [Int64]) async throws -> [MessageRecord]
    /// The latest message `viewer` may see in the channel: after `after` (ms), not hidden from them.
    func lastVisibleMessage(_ channelUrl: String, viewer: String, after: Int64) async throws -> MessageRecord?
    /// Applies an update; returns the message before and after. 400201 when there is no such message.
    func updateMessage(_ channelUrl: String, id: Int64, _ change: MessageChange) async throws -> (old: MessageRecord, new: MessageRecord)
    /// Deletes a message (its reactions with it); the channel's last message moves back; a reply's
    /// parent has its thread recounted (returned).
    func deleteMessage(_ channelUrl: String, id: Int64, at ms: Int64) async throws -> (deleted: MessageRecord, parent: MessageRecord?)
    /// Returns false when the user had already reacted so.
    func addReaction(_ messageId: Int64, key: String, userId: String, at ms: Int64) async throws -> Bool
    func deleteReaction(_ messageId: Int64, key: String, userId: String, at ms: Int64) async throws -> Bool
    /// How many different reaction keys a message has.
    func reactionKeyCount(_ messageId: Int64) async throws -> Int
    /// Reactions of these messages, oldest first.
    func reactions(_ messageIds: [Int64]) async throws -> [Int64: [ReactionRecord]]
    /// Stores a message's link preview; returns the message.
    func setOGTag(_ messageId: Int64, _ json: String, updatedAt: Int64) async throws -> MessageRecord?
    /// A channel's message changes after a point (`changed_at`, `message_id`), oldest first: messages changed
    /// (edited, reacted to, their thread or preview moved) and messages deleted, at most `limit` of each kind.
    func messageChanges(_ channelUrl: String, after: MessageChangeCursor, limit: Int) async throws -> (
        updated: [MessageRecord], deleted: [(id: Int64, at: Int64)]
    )
}

/// Read and delivery receipts, unread counts and count preferences.
public protocol ReceiptStore: Sendable {
    /// Moves the user's read receipt to `ts` and clears their unread counts in the channel.
    /// Returns the user's new unread totals.
    func markRead(_ channelUrl: String, userId: String, ts: Int64) async throws -> UnreadCount
    /// Marks every (or each listed) channel of the user read. Returns the channels that changed and
    /// the user's new totals.
    func markAllRead(userId: String, channelUrls: [String]?, ts: Int64) async throws -> (channels: [String], totals: UnreadCount)
    /// Moves the user's delivery receipt forward to `ts` (never back). Returns whether it moved.
    func markDelivered(_ channelUrl: String, userId: String, ts: Int64) async throws -> Bool
    /// Total unread messages of the user over joined channels, optionally only some custom types and
    /// only super (`super`) or other (`nonsuper`) channels. Supergroups count at most 100 each.
    func unreadMessageTotal(userId: String, customTypes: [String]?, superMode: String?) async throws -> Int
    func unreadChannelCount(userId: String, customTypes: [String]?, superMode: String?) async throws -> Int
    /// Unread messages, mentions and invitations of the user by channel kind.
    func unreadItems(userId: String, customTypes: [String]?) async throws -> UnreadItems
    /// The users' unread totals (`unread_cnt`), stamped in the order of the writes they follow.
    func unreadTotals(_ userIds: [String], at ms: Int64) async throws -> [String: UnreadCount]
    /// Sets a member's count preference. Returns false when the user is not in the channel.
    func setCountPreference(_ channelUrl: String, userId: String, _ preference: String) async throws -> Bool
}

/// Message search.
public protocol SearchStore: Sendable {
    /// How many messages a channel keeps.
    func messageCount(_ channelUrl: String) async throws -> Int
    /// Messages matching a search, one page, and how many match in all.
    func searchMessages(_ search: MessageSearch) async throws -> (messages: [MessageRecord], total: Int)
    /// Indexed words matching a term pattern (for wildcard and fuzzy search terms).
    func searchVocabulary(_ pattern: SearchQuery.TermPattern) async throws -> [String]
}

/// Uploaded files, their download keys, and cached link previews.
public protocol FileStore: Sendable {
    /// A cached link preview: its JSON (nil: the page had none) and when it was read.
    func ogCache(_ url: String) async throws -> (json: String?, fetchedAt: Int64)?
    func setOGCache(_ url: String, json: String?, at ms: Int64) async throws
    func insertFile(_ file: FileRecord) async throws
    func file(_ fileId: String) async throws -> FileRecord?
    /// A per-user download key (`ekey`), stored hashed.
    /// Stores a download key made for the session `sessionHash` (the hash of its session key).
    func addFileAuth(keyHash: String, userId: String, sessionHash: String, expiresAt: Int64) async throws
    /// The user of an unexpired download key and the session it was made for (nil: a key stored
    /// before keys were tied to sessions, which holds no more).
    func fileAuth(keyHash: String, now: Int64) async throws -> (userId: String, sessionHash: String?)?
}

/// Bans, mutes and reports.
public protocol ModerationStore: Sendable {
    /// Bans or mutes (replacing an earlier one of the same kind).
    func restrict(_ restriction: RestrictionRecord) async throws
    /// Lifts a ban or mute. Returns false when there was none.
    func lift(_ channelUrl: String, userId: String, kind: RestrictionRecord.Kind) async throws -> Bool
    /// Restrictions of a channel that hold at `now`, by user id after `afterUserId` (all when `limit` is nil).
    func restrictions(_ channelUrl: String, kind: RestrictionRecord.Kind, now: Int64, afterUserId: String?, limit: Int?) async throws
        -> [RestrictionRecord]
    /// Users muted now in each of these channels.
    func mutedUsers(ofChannels channelUrls: [String], now: Int64) async throws -> [String: Set<String>]
    /// Stores a report; returns it with its id.
    func addReport(_ report: ReportRecord) async throws -> ReportRecord
    /// Reports, newest first.
    func reports(_ query: ReportQuery) async throws -> [ReportRecord]
}

extension Store {
    /// A session made without an access token.
    public func addSession(keyHash: String, userId: String, expiresAt: Int64) async throws {
        try await addSession(keyHash: keyHash, userId: userId, expiresAt: expiresAt, tokenHash: nil)
    }
}

/// What the rest of the Platform API keeps: settings documents, device tokens, and the per-user
/// views of memberships and restrictions. A domain of its own, so that a second dialect adds only
/// what differs.
public protocol PlatformStore: Sendable {
    /// A settings document (JSON text) by scope and key, or nil.
    func setting(scope: String, key: String) async throws -> String?
    /// Stores a settings document; nil deletes it.
    func setSetting(scope: String, key: String, json: String?) async throws
    /// Every document of a scope whose key starts with `keyPrefix`, ordered by key.
    func settings(scope: String, keyPrefix: String) async throws -> [(key: String, json: String)]
    /// Deletes every document of a scope whose key starts with `keyPrefix`. Returns how many.
    func deleteSettings(scope: String, keyPrefix: String) async throws -> Int

    /// Registers a device token for a user (several users may share one token, as on Sendbird).
    func addDeviceToken(userId: String, type: String, token: String, at ms: Int64) async throws
    /// A user's tokens of a type, oldest first.
    func deviceTokens(userId: String, type: String) async throws -> [String]
    /// Removes a token from one user (nil: from every owner). Returns the owners it was removed from.
    func removeDeviceToken(type: String, token: String, userId: String?) async throws -> [String]
    /// Removes every token of a user. Returns how many.
    func removeDeviceTokens(userId: String) async throws -> Int
    /// Who holds a token.
    func deviceTokenOwners(type: String, token: String) async throws -> [String]

    /// A user's group-channel memberships: channel, state (`joined`/`invited`) and custom type.
    func memberships(userId: String) async throws -> [(channelUrl: String, state: String, customType: String)]
    /// URLs of the channels (group, or open when `open`) whose custom type is one of these.
    func channelUrls(customTypes: [String], open: Bool) async throws -> [String]
    /// How many users were seen (connected or disconnected) on any day from `firstDay` to
    /// `lastDay` (UTC day numbers: ms / 86,400,000), each counted once.
    func activeUsers(firstDay: Int64, lastDay: Int64) async throws -> Int
    /// Messages created in `[from, to]` (ms), oldest first, at most `limit`, optionally only in
    /// these channels and from these senders (for data exports).
    func exportMessages(from: Int64, to: Int64, channelUrls: [String]?, senderIds: [String]?, limit: Int) async throws -> [MessageRecord]
    /// Per UTC day from `firstDay` to `lastDay`: messages created, distinct senders, distinct channels.
    func dailyMessageStats(firstDay: Int64, lastDay: Int64) async throws -> [Int64: (messages: Int, senders: Int, channels: Int)]
    /// Per UTC day: channels created.
    func dailyCreatedChannels(firstDay: Int64, lastDay: Int64) async throws -> [Int64: Int]
    /// Stores historical messages (a migration) with their own times, in one transaction: no
    /// unread counts change, and the channel's last message moves only to a newer one. Returns the ids.
    func importMessages(_ channelUrl: String, _ messages: [NewMessage]) async throws -> [Int64]
    /// Every channel (group and open), by URL, optionally only these.
    func exportChannels(channelUrls: [String]?, limit: Int) async throws -> [ChannelRecord]
    /// A user's restrictions of a kind that hold at `now`, by channel URL after `afterChannelUrl`.
    func restrictions(ofUser userId: String, kind: RestrictionRecord.Kind, now: Int64, afterChannelUrl: String?, limit: Int) async throws
        -> [RestrictionRecord]
}
