import Foundation
import TOMLKit

/// One `[[accounts]]` table of config.toml: a login of its own, run beside the others in one tern.
public struct AccountSettings: Sendable, Equatable {
    /// What the channel list and the status bar call it; unique.
    public var name: String
    /// `http://HOST:PORT`, `https://HOST:PORT` or `sendbird://APP_ID`; nil: the embedded local server.
    public var server: String?
    /// The user to sign in as (nil: `$USER`).
    public var userId: String?
    /// The access token, or a command that prints it (`token_command`, as `TERN_TOKEN_COMMAND`).
    public var token: String?
    public var tokenCommand: String?
    public var appId: String?
    public var caFile: String?
    /// The colour of its header in the channel list (a theme colour: `cyan`, `208`, `#ff8800`).
    public var color: String?

    public init(name: String, server: String? = nil, userId: String? = nil) {
        self.name = name
        self.server = server
        self.userId = userId
    }

    static let keys = ["name", "server", "user_id", "token", "token_command", "app_id", "ca_file", "color"]

    /// The environment this account's login reads (``ClientConfiguration/fromEnvironment``): the process's,
    /// with the login variables replaced by the account's.
    public func environment(_ base: [String: String]) -> [String: String] {
        var env = base
        for key in ["TERN_SERVER", "TERN_USER_ID", "TERN_ACCESS_TOKEN", "TERN_TOKEN_COMMAND", "TERN_APP_ID", "TERN_CA_FILE"] { env[key] = nil }
        env["TERN_SERVER"] = server
        env["TERN_USER_ID"] = userId
        env["TERN_ACCESS_TOKEN"] = token
        env["TERN_TOKEN_COMMAND"] = tokenCommand
        env["TERN_APP_ID"] = appId
        env["TERN_CA_FILE"] = caFile
        return env
    }
}

extension Settings {
    /// `[[accounts]]`: each table checked (known keys, strings, a unique name, a colour the themes know).
    static func parseAccounts(_ value: TOMLValueConvertible, fail: (String, String) -> SettingsError) throws -> [AccountSettings] {
        guard let array = value.array else { throw fail("accounts", "accounts must be tables: [[accounts]] with name = \"…\"") }
        var out: [AccountSettings] = []
        for item in array {
            guard let t = item.table else { throw fail("accounts", "accounts must be tables: [[accounts]] with name = \"…\"") }
            for key in t.keys where !AccountSettings.keys.contains(key) {
                throw fail(key, "unknown account key \"\(key)\" (known: \(AccountSettings.keys.joined(separator: ", ")))")
            }
            func string(_ key: String) throws -> String? {
                guard let v = t[key] else { return nil }
                guard let s = v.string, !s.isEmpty else { throw fail(key, "an account's \(key) must be a string (in quotes), not empty") }
                return s
            }
            guard let name = try string("name") else { throw fail("accounts", "each [[accounts]] needs a name = \"…\"") }
            guard !name.contains(AccountKey.separator), !name.contains(" ") else {
                throw fail("name", "an account's name is one word: \"\(name)\"")
            }
            guard !out.contains(where: { $0.name == name }) else { throw fail("name", "two accounts are called \"\(name)\"") }
            var a = AccountSettings(name: name, server: try string("server"), userId: try string("user_id"))
            a.token = try string("token")
            a.tokenCommand = try string("token_command")
            a.appId = try string("app_id")
            a.caFile = try string("ca_file")
            if let c = try string("color") {
                guard Theme.color(c, palette: [:]) != nil else {
                    throw fail("color", "unknown colour \"\(c)\" (a name like cyan, 0-255 or #rrggbb)")
                }
                a.color = c
            }
            out.append(a)
        }
        return out
    }

    /// The accounts as TOML tables (`/save`).
    func accountsTOML() -> TOMLArray {
        let array = TOMLArray()
        for a in accounts {
            let t = TOMLTable()
            t["name"] = a.name
            for (key, value) in [
                ("server", a.server), ("user_id", a.userId), ("token", a.token), ("token_command", a.tokenCommand), ("app_id", a.appId),
                ("ca_file", a.caFile), ("color", a.color),
            ] {
                if let value { t[key] = value }
            }
            array.append(t)
        }
        return array
    }
}
