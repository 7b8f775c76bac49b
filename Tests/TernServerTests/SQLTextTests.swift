import Testing

@testable import TernServer

/// The statements both stores share: on either dialect, every placeholder has its argument, in
/// order, and lists are spelled the dialect's way.
@Suite("Shared SQL: one statement, two dialects")
struct SQLTextTests {
    static func placeholders(_ sql: String) -> Int { sql.filter { $0 == "?" }.count }

    static func check(_ t: SQLText, _ d: SQLDialect, _ what: String) {
        #expect(placeholders(t.sql) == t.args.count, "\(what) on \(d): \(placeholders(t.sql)) placeholders, \(t.args.count) arguments: \(t.sql)")
        switch d {
        case .sqlite:
            #expect(!t.sql.contains("ANY(") && !t.args.contains { if case .texts = $0 { true } else { false } }, "\(what): no arrays on SQLite")
        case .postgres:
            #expect(!t.sql.contains(" IN ("), "\(what): lists are arrays on PostgreSQL: \(t.sql)")
        }
    }

    @Test("Channel lists with every filter and each order, with and without a cursor")
    func channelLists() {
        for d in [SQLDialect.sqlite, .postgres] {
            for order in ["chronological", "channel_name_alphabetical", "metadata_value_alphabetical", "latest_last_message"] {
                for cursor in [nil, ChannelCursor(snapshot: 5, number: 3, text: "b", url: "u")] {
                    var q = ChannelListQuery(memberId: "me", limit: 7)
                    q.order = order
                    q.after = cursor
                    q.channelUrls = ["a", "b"]
                    q.customTypes = ["t1", "t2", "t3"]
                    q.customTypeStartsWith = "t"
                    q.nameContains = "Team"
                    q.createdAfter = 1
                    q.createdBefore = 2
                    q.membersExactlyIn = ["x", "y"]
                    q.membersIncludeIn = ["x", "z"]
                    q.membersNicknameContains = "Al"
                    q.metadataKey = "k"
                    q.metadataValues = ["v1", "v2"]
                    q.publicMembershipMode = "joined"
                    q.publicMember = "me"
                    q.hiddenMode = "hidden_allow_auto_unhide"
                    q.showFrozen = false
                    q.publicMode = "private"
                    q.superMode = "super"
                    q.distinctMode = "nondistinct"
                    q.queryType = order == "chronological" ? "OR" : "AND"
                    let list = ChannelListSQL(q, snapshot: 99, dialect: d)
                    Self.check(list.statement, d, "channels by \(order)")
                    #expect(list.statement.args.last == .int(7), "the limit is last")
                    #expect(list.textKey == (order == "channel_name_alphabetical" || order == "metadata_value_alphabetical"))
                }
            }
            var prefix = ChannelListQuery(memberId: nil)
            prefix.metadataKey = "k"
            prefix.metadataValueStartsWith = "v"
            Self.check(ChannelListSQL(prefix, snapshot: 1, dialect: d).statement, d, "metadata prefix")
        }
    }

    @Test("History pages: before, at and after an anchor, with their ties, every filter")
    func historyPages() {
        for d in [SQLDialect.sqlite, .postgres] {
            for anchorId in [nil, Int64(42)] {
                var q = MessageQuery(anchor: .timestamp(100), prevLimit: 2, nextLimit: 3, inclusive: true, reverse: false)
                q.messageType = "MESG"
                q.customTypes = ["a", "b"]
                q.senderIds = ["s"]
                q.createdAfter = 5
                q.viewer = "me"
                q.replyType = "only_reply_to_channel"
                let page = MessagePageSQL(q, channelUrl: "c", anchorTs: 100, anchorId: anchorId, dialect: d)
                let edge = MessageRecord(
                    messageId: 9, channelUrl: "c", type: "MESG", senderId: nil, message: "", customType: "", data: "", mentionType: "users",
                    mentionedUserIds: [], silent: false, isOpMsg: false, createdAt: 90, updatedAt: 0, parentMessageId: 0)
                for (name, t) in [
                    ("prev", page.prev), ("prev ties", page.prevTies([edge, edge])), ("anchor", page.anchor), ("next", page.next),
                    ("next ties", page.nextTies([edge, edge, edge])),
                ] {
                    guard let t else {
                        Issue.record("\(name) is missing")
                        continue
                    }
                    Self.check(t, d, name)
                }
                #expect(page.prevTies([edge]) == nil, "a page that is not full has no ties")
            }
        }
    }

    @Test("User lists, reports and search")
    func usersReportsSearch() {
        for d in [SQLDialect.sqlite, .postgres] {
            var u = UserListQuery()
            u.afterUserId = "a"
            u.userIds = ["b", "c"]
            u.nicknameStartsWith = "Jo"
            u.nickname = "John"
            u.metadataKey = "team"
            u.metadataValues = ["x", "y"]
            u.activeMode = "deactivated"
            if let t = userListSQL(u, dialect: d) { Self.check(t, d, "users") } else { Issue.record("no user statement") }
            u.metadataValues = nil
            if let t = userListSQL(u, dialect: d) { Self.check(t, d, "users with a key") }
            u.userIds = []
            #expect(userListSQL(u, dialect: d) == nil, "an empty id list lists no one")
        }
        var r = ReportQuery()
        r.channelUrl = "c"
        r.messageId = 1
        r.offendingUserId = "o"
        r.startTs = 1
        r.endTs = 2
        r.beforeId = 3
        Self.check(reportListSQL(r), .sqlite, "reports")
        #expect(reportListSQL(ReportQuery()).sql == "SELECT * FROM reports ORDER BY report_id DESC LIMIT ?")
        var s = MessageSearch(match: "hello")
        s.userId = "me"
        s.channelCustomType = "t"
        s.channelUrl = "c"
        s.from = 1
        s.to = 2
        let search = MessageSearchSQL(s, source: "messages m", match: "m.search @@ ?::tsquery", matchArg: .text("q"))
        Self.check(search.base, .postgres, "search")
        // The joins' arguments come before the match's, as the statement reads them.
        #expect(search.base.args.prefix(3) == [.text("me"), .text("t"), .text("q")])
    }
}
