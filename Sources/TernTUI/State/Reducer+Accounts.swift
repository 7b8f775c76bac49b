import Foundation
import TernKit

/// Several accounts in one tern: each account's connection, user and unread total; `/account` and `/fold`.
extension Reducer {
    /// An event about one account as a whole.
    func applyAccount(_ name: String, _ event: ClientEvent, _ state: inout AppState) -> [Effect] {
        guard let i = state.accounts.firstIndex(where: { $0.name == name }) else { return [] }
        switch event {
        case .connectionStateChanged(let s):
            state.accounts[i].connection = s
        case .connected(let user):
            state.accounts[i].me = user
        case .syncing(let on):
            state.accounts[i].syncing = on
            state.syncing = state.accounts.contains { $0.syncing }
        case .unreadCountChanged(_, _, _, let total):
            state.accounts[i].totalUnread = total
            state.totalUnread = state.accounts.reduce(0) { $0 + $1.totalUnread }
        default:
            // Errors and blocks: said as with one account, naming the account (only what this event said).
            let before = state.notice
            let effects = apply(event, &state)
            if let n = state.notice, n != before { state.notice = name + ": " + n }
            return effects
        }
        return []
    }

    /// `/account`: the accounts and their connections; `/account NAME`: to that account's channels.
    func accountCommand(_ c: SlashCommand.Invocation, _ state: inout AppState) -> [Effect] {
        guard !state.accounts.isEmpty else {
            state.notice = "one account (\(state.me.userId) on \(state.server)): [[accounts]] in config.toml adds more"
            return []
        }
        guard c.words.count > 1 else {
            state.notice = state.accounts.map { a in
                "\(a.name): \(a.me.userId) \(Self.connectionWord(a.connection))"
            }.joined(separator: " · ")
            return []
        }
        guard let i = Self.account(named: c.rest, state) else {
            state.notice = "no account \"\(c.rest)\" (accounts: \(state.accounts.map(\.name).joined(separator: ", ")))"
            return []
        }
        state.accounts[i].folded = false
        state.accountFocus = nil
        let name = state.accounts[i].name
        // Its channel with the latest activity (the list keeps them in that order).
        guard let url = Self.channelOrder(state).first(where: { AccountKey.account(of: $0) == name }) else {
            // Nothing to show there yet: what names no channel is done there until the channel changes.
            state.accountFocus = name
            state.notice = "\(name) has no channels yet: /dm USER, /create NAME or /join NAME now act there"
            return []
        }
        return select(url, &state)
    }

    /// `/fold [NAME]`: the account's channels hidden under its header, or shown again.
    func foldCommand(_ c: SlashCommand.Invocation, _ state: inout AppState) -> [Effect] {
        guard !state.accounts.isEmpty else {
            state.notice = "/fold folds an account's channels: there is one account"
            return []
        }
        let found = c.words.count > 1 ? Self.account(named: c.rest, state) : state.currentAccount
        guard let i = found else {
            state.notice = "no account \"\(c.rest)\" (accounts: \(state.accounts.map(\.name).joined(separator: ", ")))"
            return []
        }
        state.accounts[i].folded.toggle()
        return []
    }

    /// The account called `name`, or the only one whose name starts with it.
    static func account(named name: String, _ state: AppState) -> Int? {
        if let i = state.accounts.firstIndex(where: { $0.name == name }) { return i }
        let starting = state.accounts.indices.filter { state.accounts[$0].name.lowercased().hasPrefix(name.lowercased()) }
        return starting.count == 1 ? starting[0] : nil
    }

    static func connectionWord(_ s: ConnectionState) -> String {
        switch s {
        case .open: "connected"
        case .connecting: "connecting"
        case .reconnecting: "reconnecting"
        case .closed: "offline"
        }
    }
}
