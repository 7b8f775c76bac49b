import Testing

@testable import TernKit

/// The engine's side: a channel's read from the server that lands while the user sees it.
@Suite struct SeenChannelReadTests {
    /// The answer may predate the read the messages on screen asked for (a race seen in
    /// `openChannelIsMarkedReadAsMessagesArrive`): a seen channel shows nothing unread, a channel only
    /// shown (the terminal unfocused) or closed keeps the server's counts.
    @Test func aSeenChannelHasNothingUnreadWhateverTheAnswerSays() async {
        let config = ClientConfiguration(server: ServerAddress(apiBase: "http://127.0.0.1:1", webSocketBase: "ws://127.0.0.1:1"), userId: "me")
        let client = ChatClient(configuration: config)
        func answer(_ url: String) -> GroupChannel {
            var c = GroupChannel(url: url, members: [Member(user: User(userId: "me")), Member(user: User(userId: "bob"))])
            c.unreadMessageCount = 3
            c.unreadMentionCount = 1
            return c
        }
        await client.openChannel("seen")
        await client.showChannel("shown")
        await client.finishFetch("seen", answer("seen"))
        await client.finishFetch("shown", answer("shown"))
        await client.finishFetch("closed", answer("closed"))
        #expect(await client.unreadCount(in: "seen") == 0)
        #expect(await client.unreadCount(in: "shown") == 3)
        #expect(await client.unreadCount(in: "closed") == 3)
        await client.shutdown()
    }
}
