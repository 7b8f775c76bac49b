import Foundation
public import TernKit

/// One account of several (config.toml `[[accounts]]`): its engine and how it is named.
public struct Account: Sendable {
    /// The name in the config: the channel list's header, the status bar's `user@name`.
    public let name: String
    public let client: ChatClient
    public let userId: String
    /// The server's address (its REST base).
    public let server: String
    /// How the server is named in file names when not by its address (the embedded server: "embedded").
    public let fileName: String?
    /// A colour for its header (`color`).
    public let color: String?

    public init(name: String, client: ChatClient, userId: String, server: String, fileName: String? = nil, color: String? = nil) {
        self.name = name
        self.client = client
        self.userId = userId
        self.server = server
        self.fileName = fileName
        self.color = color
    }
}

/// Several accounts: each effect goes to its channel's account (or the one on screen), each answer comes
/// back with its channels named by ``AccountKey``.
extension ChatApp {
    /// The engine an effect is for, its route, and the effect as that engine takes it (plain URLs).
    func route(_ effect: Effect) -> (ChatClient, AccountRoute, Effect) {
        guard !accounts.isEmpty else { return (client, AccountRoute(nil), effect) }
        let a = account(named: AccountRoute.account(of: effect))
        let r = AccountRoute(a.name)
        return (a.client, r, r.untagged(effect))
    }

    /// The engine of a channel (by its key) and its route; with one account, the one.
    func route(forKey key: String?) -> (ChatClient, AccountRoute) {
        guard !accounts.isEmpty else { return (client, AccountRoute(nil)) }
        let a = account(named: key.flatMap(AccountKey.account(of:)))
        return (a.client, AccountRoute(a.name))
    }

    /// The account called `name`; none named: the one `/account` chose (``AppState/accountFocus``), else the
    /// channel on screen's, else the first.
    func account(named name: String?) -> Account {
        let wanted = name ?? state.accountFocus ?? state.currentAccount.map { state.accounts[$0].name }
        return accounts.first { $0.name == wanted } ?? accounts[0]
    }

    /// An engine's answer, into the app with its channels named by key.
    func dispatch(_ r: AccountRoute, _ action: Action) {
        dispatch(r.tagged(action))
    }

    /// Every engine, with its route (the one account's when there is one).
    var engines: [(ChatClient, AccountRoute)] {
        accounts.isEmpty ? [(client, AccountRoute(nil))] : accounts.map { ($0.client, AccountRoute($0.name)) }
    }

    /// The accounts as the state keeps them.
    static func accountStates(_ accounts: [Account]) -> [AccountState] {
        accounts.map { AccountState(name: $0.name, me: User(userId: $0.userId), server: $0.server, color: $0.color) }
    }

    /// Where a channel's account keeps its logs: named as its cache is.
    func logDirectory(forKey key: String) -> String {
        let env = ProcessInfo.processInfo.environment
        guard !accounts.isEmpty else { return ChatLog.directory(environment: env, user: state.me.userId, server: accountServer ?? state.server) }
        let a = account(named: AccountKey.account(of: key))
        return ChatLog.directory(environment: env, user: state.me(for: key).userId, server: a.fileName ?? a.server)
    }

    /// Ctrl-S, `/search`: the server's search; with several accounts every account's server at once, the
    /// results together, newest first (each named by its channel's key). An account that fails says so;
    /// the others' results stay.
    func search(_ query: String, _ client: ChatClient, _ r: AccountRoute) async {
        var q = MessageSearchQuery(keyword: query)
        q.limit = 50
        q.order = .timestamp
        q.reverse = true
        q.advanced = MessageSearchQuery.looksAdvanced(query)
        guard !accounts.isEmpty else {
            do {
                let found = try await client.searchMessages(q)
                dispatch(r, .searchResults(query: query, found.messages, hasMore: found.hasNext))
            } catch {
                dispatch(r, .searchResults(query: query, [], hasMore: false))
                dispatch(r, .failed("search: " + Self.describe(error)))
            }
            return
        }
        let engines = self.engines
        let asked = q
        let answers = await withTaskGroup(of: (AccountRoute, Result<MessageSearchResult, any Error>).self) { group in
            for (client, r) in engines {
                group.addTask {
                    do { return (r, .success(try await client.searchMessages(asked))) } catch { return (r, .failure(error)) }
                }
            }
            var all: [(AccountRoute, Result<MessageSearchResult, any Error>)] = []
            for await answer in group { all.append(answer) }
            return all
        }
        var found: [Message] = []
        var more = false
        var failures: [String] = []
        for (r, answer) in answers {
            switch answer {
            case .success(let page):
                found += page.messages.map(r.tagged)
                more = more || page.hasNext
            case .failure(let error):
                failures.append((r.name ?? "") + ": " + Self.describe(error))
            }
        }
        found.sort { $0.createdAt != $1.createdAt ? $0.createdAt > $1.createdAt : $0.channelUrl < $1.channelUrl }
        dispatch(.searchResults(query: query, found, hasMore: more))
        if !failures.isEmpty { dispatch(.failed("search: " + failures.sorted().joined(separator: " · "))) }
    }
}
